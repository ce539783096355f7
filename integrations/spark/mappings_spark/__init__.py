"""Mappings as a stage of Apache Spark.

`map_json` runs each partition of JSON records through one `mappings stream --spark-frames`
process, from the JVM: the records' bytes go to the process as they are, and what comes back
is Spark rows in Spark's own layout, typed by the context's `mappings schema --format spark`.
No Python runs per record, and Spark parses no JSON for the mapped records. The rejected
records come back beside them:

    from mappings_spark import map_json

    mapped, rejects = map_json(spark.read.text("tweets.ndjson"), "$TweetModel",
                               mappings=["contexts"], scripts="scripts")
    mapped.write.parquet("tweets.parquet")
    rejects.write.json("rejects")

The tool is the portable build this package carries (see `find_binary`); docs/scale-out.md
is the guide.
"""

import copy
import hashlib
import json
import os
import shutil
import subprocess

__all__ = ["map_json", "MappingOutput", "CountMismatch", "spark_schema", "find_binary", "REJECT_SCHEMA"]

HERE = os.path.dirname(os.path.abspath(__file__))

# The rejects DataFrame: the partition, the record's place in it (from 1), its text, the
# issues, then the carried columns.
REJECT_SCHEMA = (
    "partition INT, line BIGINT, input STRING, "
    "issues ARRAY<STRUCT<kind: STRING, path: STRING, property: STRING, rule: STRING, "
    "provenance: STRING, message: STRING, severity: STRING>>"
)
_REJECT_TEXT_SCHEMA = (
    "input STRING, issues ARRAY<STRUCT<kind: STRING, path: STRING, property: STRING, rule: STRING, "
    "provenance: STRING, message: STRING, severity: STRING>>"
)
# The tags of the rows a partition gives (PartitionPipe.java).
_MAPPED, _REJECTED, _STATS = 0, 1, 2
_PIPE = "mappings.spark.PartitionPipe"


class CountMismatch(RuntimeError):
    """The partitions' counts do not add up: `read != written + rejected + filtered` somewhere."""


class MappingOutput(tuple):
    """`(mapped_df, rejects_df)`, which also knows each partition's `--stats`."""

    def __new__(cls, mapped, rejects, stats, tagged):
        output = super().__new__(cls, (mapped, rejects))
        output.stats_df = stats
        output._tagged = tagged
        return output

    def unpersist(self):
        """Lets go of the cached run both DataFrames read from."""
        for rdd in self._tagged:
            rdd.unpersist(False)

    @property
    def mapped(self):
        return self[0]

    @property
    def rejects(self):
        return self[1]

    def counts(self):
        """The totals over every partition: read, written, rejected, filtered (and the number of
        partitions). Raises `CountMismatch` when a partition's do not reconcile."""
        rows = self.stats_df.collect()
        totals = {"read": 0, "written": 0, "rejected": 0, "filtered": 0, "unprocessed": 0, "partitions": len(rows)}
        for row in rows:
            stats = json.loads(row.stats)
            # Blank records are rejected before the process (a stream skips blank lines).
            stats["read"] += row.blank
            stats["rejected"] += row.blank
            counted = sum(stats.get(key, 0) for key in ("written", "rejected", "filtered", "unprocessed"))
            if stats["read"] != counted:
                raise CountMismatch(f"partition {row.partition}: {stats}")
            for key in ("read", "written", "rejected", "filtered", "unprocessed"):
                totals[key] += stats.get(key, 0)
        return totals


def find_binary():
    """The `mappings` tool `map_json` runs when not given `binary=`: `$MAPPINGS_BINARY`, else the
    portable build this package carries (`bin/mappings`, put there by `tools/build-spark-wheel`:
    the Swift runtime and Lua linked in, so that executors need nothing but the C library), else
    `mappings` on the PATH."""
    candidates = [os.environ.get("MAPPINGS_BINARY"), os.path.join(HERE, "bin", "mappings"), shutil.which("mappings")]
    for path in candidates:
        if path and os.path.isfile(path):
            return path
    raise FileNotFoundError(
        "mappings_spark: no mappings tool: this copy of the package carries none (install the wheel "
        "tools/build-spark-wheel makes, which does), $MAPPINGS_BINARY is unset and there is no mappings on "
        "the PATH; or pass binary= a path"
    )


def spark_schema(context, mappings=("contexts",), scripts=None, binary=None, traits=()):
    """The output schema of `context` as Spark's JSON form (`mappings schema --format spark`)."""
    command = [binary or find_binary(), "schema", "--context", context, "--format", "spark", "--color", "never"]
    for path in [mappings] if isinstance(mappings, str) else mappings:
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
    binary=None,
    workers=1,
    on_issue="reject",
    traits=(),
    lua_timeout_ms=None,
    arguments=(),
    ship=True,
    column=None,
    carry=(),
    storage_level=None,
):
    """Maps JSON records with a context, one `mappings stream` process per partition task.

    Parameters:
        df_or_rdd: a DataFrame whose string column (`column`, or its only one) holds one JSON
            record per row, or an RDD of such strings.
        context: the context's identifier, such as "$TweetModel".
        mappings: `.mappings` files or directories (directories keep `@import`s whole).
        scripts: the directory of the Lua transformers, or None for the tool's default.
        binary: the `mappings` tool; None finds it (`find_binary`: the portable build this
            package carries). The driver runs it for the schema; each task runs it too.
        workers: `--workers` of each stream process (threads per partition task).
        on_issue: `--on-issue`: "reject" (records with issues go to the rejects) or "emit"
            (they are mapped rows too, and every column is then nullable).
        traits: `--trait KEY=VALUE` assignments.
        lua_timeout_ms: `--lua-timeout`, the time one transformer call may take.
        arguments: any other `mappings stream` options, as a list of strings.
        ship: True ships `mappings`, `scripts` and the tool to the executors with
            `SparkContext.addFile`; False reads them from the same paths on every node.
        column: the column of JSON text, when the DataFrame has more than one.
        carry: columns of the DataFrame (names, or columns with a name) to carry into both
            outputs beside each record, such as the input file and an offset.
        storage_level: a pyspark StorageLevel to keep the mapped records at, for a job that
            reads `mapped_df` more than once; None keeps them nowhere (each action on
            `mapped_df` maps again; the rejects and the counts never do).

    Returns:
        a `MappingOutput`, which unpacks as `(mapped_df, rejects_df)`: the mapped records typed
        by the context's Spark schema (its nullability too), then the carried columns; and the
        rejects (partition, line, input, issues, then the carried columns). `.counts()`
        reconciles the partitions' counts. Write `mapped_df` first: its run puts the rejects
        and stats aside, which `rejects_df` and `.counts()` then read (they map the input
        themselves when nothing was put aside yet). `unpersist()` lets go of what is kept.
    """
    if on_issue not in ("reject", "emit"):
        raise ValueError("on_issue must be 'reject' or 'emit' ('fail' would fail the task, and Spark retry it)")
    from pyspark.sql import Column, DataFrame
    from pyspark.sql import functions as F

    lines, spark = _lines(df_or_rdd, column, carry)
    carried = [F.col(name) if isinstance(name, str) else name for name in carry]
    if carried:
        lines = lines.select("value", F.struct(*carried).alias("carry"))
        carry_type = lines.schema["carry"].dataType
        for field in carry_type.fields:
            if not isinstance(field.name, str) or field.name in ("partition", "line", "input", "issues"):
                raise ValueError(f"carry: a carried column cannot be named '{field.name}' (a rejects column)")
    elif any(not isinstance(name, (str, Column)) for name in carry):
        raise TypeError("carry takes column names or columns")

    binary = binary or find_binary()
    # Shipped paths are the driver's, made absolute; shared ones stay as given, so that a path
    # relative to each container's working directory (an --archives one) resolves on each node.
    place = os.path.abspath if ship else (lambda path: path)
    mappings = [place(path) for path in ([mappings] if isinstance(mappings, str) else mappings)]
    scripts = place(scripts) if scripts is not None else None
    driver_binary = place(binary) if os.path.sep in binary else binary
    schema = spark_schema(context, mappings=mappings, scripts=scripts, binary=driver_binary, traits=traits)
    record_schema = _nullable(schema) if on_issue == "emit" else schema
    if carried:
        clash = {field["name"] for field in schema["fields"]} & set(carry_type.fieldNames())
        if clash:
            raise ValueError(f"carry: {sorted(clash)} would be columns of the mapped records twice")

    shipped = {}
    if ship:
        context_spark = spark.sparkContext
        for path in mappings + ([scripts] if scripts else []):
            shipped[path] = _ship(context_spark, path)
        if os.path.sep in driver_binary:
            shipped[driver_binary] = os.path.join(_ship(context_spark, _tool_folder(driver_binary)), "mappings")

    def local(path):
        # A shipped path is found on each node in the folder Spark fetched it to.
        return "spark-files:" + shipped[path] if path in shipped else path

    command = [local(driver_binary), "stream", "--context", context, "--color", "never", "--spark-frames",
               "--workers", str(workers), "--on-issue", on_issue]
    for path in mappings:
        command += ["--mappings", local(path)]
    if scripts is not None:
        command += ["--scripts", local(scripts)]
    for trait in traits:
        command += ["--trait", trait]
    if lua_timeout_ms is not None:
        command += ["--lua-timeout", str(lua_timeout_ms)]
    command += list(arguments)

    pipe = _pipe_class(spark)
    jvm, jspark = spark._jvm, spark._jsparkSession
    record_fields = len(schema["fields"])
    carry_fields = len(carry_type.fields) if carried else 0
    rows = lines._jdf.queryExecution().toRdd().toJavaRDD()
    chunks, others = pipe.run(rows, command, carry_type.json() if carried else None)
    # The rejects and the stats of a run are put aside by its tasks (`others`): the mapped
    # records are written by the first action on them, and the rejects and the counts read
    # what that run put aside, without mapping again. The records themselves are kept only when
    # asked (`storage_level`), as the frames came: a few large chunks a partition.
    if storage_level is not None:
        chunks.persist(spark.sparkContext._getJavaStorageLevel(storage_level))

    def frame(rdd, fields):
        data_type = jvm.org.apache.spark.sql.types.DataType.fromJson(json.dumps({"type": "struct", "fields": fields}))
        return DataFrame(jspark.internalCreateDataFrame(rdd.rdd(), data_type, False), spark)

    carry_json = json.loads(carry_type.json())["fields"] if carried else []
    mapped = frame(pipe.records(chunks, record_fields, carry_fields), record_schema["fields"] + carry_json)
    all_rows = frame(pipe.others(others, carry_fields), [
        {"name": "tag", "type": "integer", "nullable": False, "metadata": {}},
        {"name": "line", "type": "long", "nullable": False, "metadata": {}},
        {"name": "text", "type": "string", "nullable": False, "metadata": {}},
        {"name": "carry", "type": {"type": "struct", "fields": carry_json}, "nullable": True, "metadata": {}},
    ])
    partition = F.spark_partition_id().alias("partition")
    rejects = (
        all_rows.where(F.col("tag") == _REJECTED)
        .select(partition, "line", F.from_json("text", _REJECT_TEXT_SCHEMA, {"mode": "FAILFAST"}).alias("reject"),
                "carry")
        .select("partition", "line", "reject.input", "reject.issues", *[f"carry.{name}" for name in
                                                                       (carry_type.fieldNames() if carried else [])])
    )
    stats = all_rows.where(F.col("tag") == _STATS).select(partition, F.col("line").alias("blank"),
                                                          F.col("text").alias("stats"))
    return MappingOutput(mapped, rejects, stats, (chunks, others))


def _nullable(data_type):
    """A Spark type's JSON form with every field, element and value nullable."""
    data_type = copy.deepcopy(data_type)

    def walk(node):
        if isinstance(node, dict):
            for key in ("nullable", "containsNull", "valueContainsNull"):
                if key in node:
                    node[key] = True
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(data_type)
    return data_type


def _lines(df_or_rdd, column, carry):
    """A DataFrame of the records' text (`value`) and the columns to carry, and the session."""
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql import functions as F

    if isinstance(df_or_rdd, DataFrame):
        columns = df_or_rdd.columns
        if column is None:
            rest = [name for name in columns if name not in [c for c in carry if isinstance(c, str)]]
            if len(rest) != 1:
                raise ValueError(f"the DataFrame has columns {columns}: pass column= the one holding JSON")
            column = rest[0]
        value = F.col(column) if isinstance(column, str) else column
        return df_or_rdd.select(value.cast("string").alias("value"), *[
            F.col(c) if isinstance(c, str) else c for c in carry]), df_or_rdd.sparkSession
    if carry:
        raise ValueError("carry= needs a DataFrame: an RDD of strings has no columns to carry")
    spark = SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()
    return spark.createDataFrame(df_or_rdd.map(lambda text: (text,)), "value STRING"), spark


def _pipe_class(spark):
    """PartitionPipe, in this session's driver and (through `addJar`) on its executors."""
    jvm = spark._jvm
    loader = jvm.Thread.currentThread().getContextClassLoader()
    path = _jar()
    known = _SHIPPED.setdefault(id(spark.sparkContext), {})
    if ("jar", path) not in known:
        spark.sparkContext._jsc.sc().addJar(path)
        try:
            jvm.java.lang.Class.forName(_PIPE, False, loader)
        except Exception:
            # Not on the driver's class path yet: its class loader takes the jar (Spark's
            # loader of added jars can; any URLClassLoader's addURL is reached the same way).
            loader.addURL(jvm.java.io.File(path).toURI().toURL())
        known[("jar", path)] = path
    return getattr(jvm.mappings.spark, "PartitionPipe")


def _jar():
    """The jar of PartitionPipe: the one this package carries, else one compiled (once, with the
    JDK's javac) from the source it carries against this pyspark's jars."""
    import pyspark

    source = os.path.join(HERE, "java", "mappings", "spark", "PartitionPipe.java")
    with open(source, "rb") as text:
        digest = hashlib.sha1(text.read() + pyspark.__version__.encode()).hexdigest()[:12]
    # The jar carried, when it was compiled from this source for this pyspark (a checkout whose
    # source changed since compiles it again).
    carried = os.path.join(HERE, "jars", "mappings-spark.jar")
    try:
        with open(carried + ".source", encoding="utf-8") as made_from:
            if made_from.read().strip() == digest:
                return carried
    except OSError:
        pass
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "mappings-spark")
    jar = os.path.join(cache, f"mappings-spark-{digest}.jar")
    if os.path.isfile(jar):
        return jar
    javac = shutil.which("javac") or (os.environ.get("JAVA_HOME") and os.path.join(os.environ["JAVA_HOME"], "bin", "javac"))
    if not javac or not os.path.isfile(javac):
        raise RuntimeError("mappings_spark: this copy carries no jars/mappings-spark.jar and there is no javac "
                           "to make one: install the wheel tools/build-spark-wheel makes, or a JDK")
    import tempfile

    os.makedirs(cache, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mappings-spark-javac-") as classes:
        classpath = os.path.join(os.path.dirname(pyspark.__file__), "jars", "*")
        done = subprocess.run([javac, "-nowarn", "--release", "17", "-d", classes, "-cp", classpath, source],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"mappings_spark: javac failed:\n{done.stderr}")
        made = jar + f".tmp-{os.getpid()}"
        _zip_folder(classes, made)
        os.replace(made, jar)
    return jar


def _zip_folder(folder, target):
    import zipfile

    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
        for root, directories, files in os.walk(folder):
            directories.sort()
            for name in sorted(files):
                path = os.path.join(root, name)
                archive.write(path, os.path.relpath(path, folder))


def _tool_folder(binary):
    """A folder holding the tool and, when it is beside it, its Lua worker (hard links where the
    file system allows, so that shipping a large build copies nothing)."""
    folder = os.path.join(_staging(), "tool-" + _fingerprint(binary))
    if not os.path.isdir(folder):
        made = folder + f".tmp-{os.getpid()}"
        os.makedirs(made, exist_ok=True)
        for name, source in (("mappings", binary),
                             ("mappings-lua-worker", os.path.join(os.path.dirname(binary), "mappings-lua-worker"))):
            if os.path.isfile(source):
                try:
                    os.link(source, os.path.join(made, name))
                except OSError:
                    shutil.copy2(source, os.path.join(made, name))
        os.rename(made, folder)
    return folder


# What this process shipped already, by SparkContext: path and fingerprint → shipped name.
_SHIPPED = {}


def _ship(spark_context, path):
    """Ships `path` (a directory recursively) with `addFile`; returns its name on the executors.

    Each path ships as a copy named after its content's fingerprint (names, sizes and
    modification times): two directories both called `contexts` do not collide, and an edited
    file ships again under a new name (Spark refuses to ship a changed file under a name it has
    shipped), so the next call maps with the edit.
    """
    known = _SHIPPED.setdefault(id(spark_context), {})
    key = (path, _fingerprint(path))
    if key not in known:
        known[key] = _staged_copy(path, key[1])
        spark_context.addFile(os.path.join(_staging(), known[key]), recursive=os.path.isdir(path))
    return known[key]


def _fingerprint(path):
    digest = hashlib.sha1(path.encode())
    walked = [(path, [], [""])] if os.path.isfile(path) else os.walk(path)
    for folder, directories, files in walked:
        directories.sort()
        for name in sorted(files):
            info = os.stat(os.path.join(folder, name) if name else folder)
            digest.update(f"{os.path.relpath(os.path.join(folder, name), path)}:{info.st_size}:{info.st_mtime_ns}".encode())
    return digest.hexdigest()[:12]


def _staged_copy(path, fingerprint):
    """Puts `path` in the staging directory as `<fingerprint>-<name>` (hard links where it can);
    returns that name."""
    name = f"{fingerprint}-{os.path.basename(path.rstrip(os.path.sep))}"
    target = os.path.join(_staging(), name)
    if os.path.exists(target):
        return name

    def link(source, destination, **_):
        try:
            os.link(source, destination)
        except OSError:
            shutil.copy2(source, destination)

    if os.path.isdir(path):
        shutil.copytree(path, target, copy_function=link)
    else:
        link(path, target)
    return name


_STAGING = []


def _staging():
    """A temporary directory of this driver process for what it ships."""
    import tempfile

    if not _STAGING:
        _STAGING.append(tempfile.mkdtemp(prefix="mappings-spark-"))
    return _STAGING[0]
