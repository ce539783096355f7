"""Mappings as a stage of Apache Spark.

`map_json` pipes each partition of JSON strings through `mappings stream` (one process per
partition task) and returns the mapped records as a DataFrame typed by `mappings schema
--format spark`, with the rejected records beside them:

    from mappings_spark import map_json

    mapped, rejects = map_json(spark.read.text("tweets.ndjson"), "$TweetModel",
                               mappings=["contexts"], scripts="scripts", binary="bin/mappings")
    mapped.write.parquet("tweets.parquet")
    rejects.write.json("rejects")

docs/scale-out.md is the guide.
"""

import json
import os
import subprocess

from .stage import MAPPED, REJECTED, STATS, Stage, text_fields

__all__ = ["map_json", "MappingOutput", "CountMismatch", "spark_schema", "REJECT_SCHEMA"]

# The rejects DataFrame: the partition, the record's line in it (1-based), its text, and
# the issues `mappings stream --rejects` wrote for it.
REJECT_SCHEMA = (
    "partition INT, line BIGINT, input STRING, "
    "issues ARRAY<STRUCT<kind: STRING, path: STRING, property: STRING, rule: STRING, "
    "provenance: STRING, message: STRING, severity: STRING>>"
)
_REJECT_LINE_SCHEMA = (
    "line BIGINT, input STRING, "
    "issues ARRAY<STRUCT<kind: STRING, path: STRING, property: STRING, rule: STRING, "
    "provenance: STRING, message: STRING, severity: STRING>>"
)
# Spark's JSON reader, set to the text `mappings` writes: ISO 8601 in UTC, fraction optional.
_READ_OPTIONS = {"mode": "FAILFAST", "timeZone": "UTC"}


class CountMismatch(RuntimeError):
    """The partitions' counts do not add up: `read != written + rejected` somewhere."""


class MappingOutput(tuple):
    """`(mapped_df, rejects_df)`, which also knows each partition's `--stats`."""

    def __new__(cls, mapped, rejects, stats, tagged):
        output = super().__new__(cls, (mapped, rejects))
        output.stats_df = stats
        output._tagged = tagged
        return output

    def unpersist(self):
        """Lets go of the cached run both DataFrames read from."""
        self._tagged.unpersist()

    @property
    def mapped(self):
        return self[0]

    @property
    def rejects(self):
        return self[1]

    def counts(self):
        """The totals over every partition: read, written, rejected (and the per-partition
        rows they came from). Raises `CountMismatch` when a partition's do not reconcile, or
        when a partition task wrote no stats."""
        rows = self.stats_df.collect()
        totals = {"read": 0, "written": 0, "rejected": 0, "unprocessed": 0, "partitions": len(rows)}
        for row in rows:
            stats = json.loads(row.stats)
            if stats["read"] != stats["written"] + stats["rejected"] + stats.get("unprocessed", 0):
                raise CountMismatch(f"partition {row.partition}: {stats}")
            for key in ("read", "written", "rejected", "unprocessed"):
                totals[key] += stats.get(key, 0)
        return totals


def spark_schema(context, mappings=("contexts",), scripts=None, binary="mappings", traits=()):
    """The output schema of `context` as Spark's JSON form (`mappings schema --format spark`)."""
    command = [binary, "schema", "--context", context, "--format", "spark", "--color", "never"]
    for path in mappings:
        command += ["--mappings", path]
    if scripts is not None:
        command += ["--scripts", scripts]
    for trait in traits:
        command += ["--trait", trait]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"mappings schema failed (exit {done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout)


def map_json(
    df_or_rdd,
    context,
    mappings=("contexts",),
    scripts=None,
    binary="mappings",
    workers=1,
    on_issue="reject",
    traits=(),
    lua_timeout_ms=None,
    arguments=(),
    ship=True,
    column=None,
):
    """Maps JSON records with a context, one `mappings stream` process per partition task.

    Parameters:
        df_or_rdd: a DataFrame whose one string column (or `column`) holds one JSON record
            per row, or an RDD of such strings.
        context: the context's identifier, such as "$TweetModel".
        mappings: `.mappings` files or directories (directories keep `@import`s whole).
        scripts: the directory of the Lua transformers, or None for the tool's default.
        binary: the `mappings` tool. The driver runs it for the schema; executors run it too.
        workers: `--workers` of each stream process (threads per partition task).
        on_issue: `--on-issue`: "reject" (records with issues go to the rejects) or "emit".
        traits: `--trait KEY=VALUE` assignments.
        lua_timeout_ms: `--lua-timeout`, the time one transformer call may take.
        arguments: any other `mappings stream` options, as a list of strings.
        ship: True ships `mappings`, `scripts` and `binary` to the executors with
            `SparkContext.addFile`; False reads them from the same paths on every node.
        column: the column of JSON text, when the DataFrame has more than one.

    Returns:
        a `MappingOutput`, which unpacks as `(mapped_df, rejects_df)`: the mapped records
        typed by the context's Spark schema, and the rejects (partition, line, input,
        issues). `.counts()` reconciles the partitions' counts. Both DataFrames come from
        one cached run over the input: use them, then call the output's
        `unpersist()`.
    """
    if on_issue not in ("reject", "emit"):
        raise ValueError("on_issue must be 'reject' or 'emit' ('fail' would fail the task, and Spark retry it)")
    rdd, spark = _lines(df_or_rdd, column)
    # Shipped paths are the driver's, made absolute; shared ones stay as given, so that a path
    # relative to each container's working directory (an --archives one) resolves on each node.
    place = os.path.abspath if ship else (lambda path: path)
    mappings = [place(path) for path in ([mappings] if isinstance(mappings, str) else mappings)]
    scripts = place(scripts) if scripts is not None else None
    driver_binary = place(binary) if os.path.sep in binary else binary
    schema = spark_schema(context, mappings=mappings, scripts=scripts, binary=driver_binary, traits=traits)

    options = []
    for trait in traits:
        options += ["--trait", trait]
    if lua_timeout_ms is not None:
        options += ["--lua-timeout", str(lua_timeout_ms)]
    options += list(arguments)
    shipped = _ship(spark.sparkContext, mappings + ([scripts] if scripts else []) + (
        [driver_binary] if os.path.sep in driver_binary else []), ship)
    stage = Stage(context, mappings, scripts, driver_binary, workers, on_issue, options, shipped,
                  text_fields(schema))

    from pyspark import StorageLevel
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    tagged = rdd.mapPartitionsWithIndex(stage).persist(StorageLevel.MEMORY_AND_DISK)
    rows = spark.createDataFrame(tagged, "tag STRING, partition INT, text STRING", verifySchema=False)
    mapped = (
        rows.where(F.col("tag") == MAPPED)
        .select(F.from_json("text", StructType.fromJson(schema), _READ_OPTIONS).alias("record"))
        .select("record.*")
    )
    rejects = rows.where(F.col("tag") == REJECTED).select(
        "partition", F.from_json("text", _REJECT_LINE_SCHEMA, {"mode": "FAILFAST"}).alias("reject")
    ).select("partition", "reject.line", "reject.input", "reject.issues")
    stats = rows.where(F.col("tag") == STATS).select("partition", F.col("text").alias("stats"))
    return MappingOutput(mapped, rejects, stats, tagged)


def _lines(df_or_rdd, column):
    """The RDD of JSON strings, and the session."""
    from pyspark.sql import DataFrame, SparkSession

    if isinstance(df_or_rdd, DataFrame):
        columns = df_or_rdd.columns
        if column is None:
            if len(columns) != 1:
                raise ValueError(f"the DataFrame has columns {columns}: pass column= the one holding JSON")
            column = columns[0]
        return df_or_rdd.select(column).rdd.map(lambda row: row[0]), df_or_rdd.sparkSession
    spark = SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()
    return df_or_rdd, spark


# What this process shipped already, by SparkContext: path and fingerprint → shipped name.
_SHIPPED = {}


def _ship(spark_context, paths, ship):
    """Ships this package to the executors' Python (`addPyFile` of a zip of it), so that they
    need not have it installed, and `paths` with `addFile` (directories recursively); returns
    the name each path has on the executors. No path when `ship` is False: every node reads
    the same paths.

    Each path ships as a copy named after its content's fingerprint (names, sizes and
    modification times): two directories both called `contexts` do not collide, and an
    edited file ships again under a new name (Spark refuses to ship a changed file under a
    name it has shipped), so the next call maps with the edit.
    """
    known = _SHIPPED.setdefault(id(spark_context), {})
    if _PACKAGE_ZIP not in known:
        spark_context.addPyFile(_package_zip())
        known[_PACKAGE_ZIP] = _PACKAGE_ZIP
    if not ship:
        return {}
    names = {}
    for path in paths:
        key = (path, _fingerprint(path))
        if key not in known:
            known[key] = _staged_copy(path, key[1])
            spark_context.addFile(os.path.join(_staging(), known[key]), recursive=os.path.isdir(path))
        names[path] = known[key]
    return names


def _fingerprint(path):
    import hashlib

    digest = hashlib.sha1(path.encode())
    walked = [(path, [], [""])] if os.path.isfile(path) else os.walk(path)
    for folder, directories, files in walked:
        directories.sort()
        for name in sorted(files):
            info = os.stat(os.path.join(folder, name) if name else folder)
            digest.update(f"{os.path.relpath(os.path.join(folder, name), path)}:{info.st_size}:{info.st_mtime_ns}".encode())
    return digest.hexdigest()[:12]


def _staged_copy(path, fingerprint):
    """Copies `path` into the staging directory as `<fingerprint>-<name>`; returns that name."""
    import shutil

    name = f"{fingerprint}-{os.path.basename(path.rstrip(os.path.sep))}"
    target = os.path.join(_staging(), name)
    if os.path.isdir(path):
        shutil.copytree(path, target)
    else:
        shutil.copy2(path, target)
    return name


_STAGING = []


def _staging():
    """A temporary directory of this driver process for what it ships."""
    import tempfile

    if not _STAGING:
        _STAGING.append(tempfile.mkdtemp(prefix="mappings-spark-"))
    return _STAGING[0]


_PACKAGE_ZIP = "mappings_spark.zip"


def _package_zip():
    """A zip of this package, in the staging directory."""
    import zipfile

    path = os.path.join(_staging(), _PACKAGE_ZIP)
    package = os.path.dirname(os.path.abspath(__file__))
    with zipfile.ZipFile(path, "w") as archive:
        for name in sorted(os.listdir(package)):
            if name.endswith(".py"):
                archive.write(os.path.join(package, name), os.path.join("mappings_spark", name))
    return path
