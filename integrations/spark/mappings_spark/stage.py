"""What runs in each partition task: its lines through one `mappings stream` process."""

import json
import os
import shutil
import stat
import subprocess
import tempfile
from decimal import Decimal

# The tags of the rows a partition task yields: one per mapped record, one per rejected
# record, and one holding the task's `--stats`.
MAPPED, REJECTED, STATS = "m", "r", "s"
# In a tree of decimal fields, the values of a dictionary.
MAP = "map"


class Stage:
    """Everything a partition task needs, pickled with the function that Spark ships.

    Paths are either shipped (`SparkContext.addFile`, found again with `SparkFiles.get`) or
    shared (the same path on every node): `shipped` holds the names to look up.
    """

    def __init__(self, context, mappings, scripts, binary, workers, on_issue, arguments, shipped, text_fields):
        self.context = context
        self.mappings = mappings
        self.scripts = scripts
        self.binary = binary
        self.workers = workers
        self.on_issue = on_issue
        self.arguments = arguments
        self.shipped = shipped
        self.text_fields = text_fields

    def local(self, path):
        """The path of `path` on this node: where Spark put a shipped file, or the path itself."""
        if path in self.shipped:
            from pyspark import SparkFiles

            return SparkFiles.get(self.shipped[path])
        return path

    def executable(self):
        """The tool on this node, executable (a shipped file may have lost its mode bits)."""
        path = self.local(self.binary)
        if os.path.sep not in path:
            found = shutil.which(path)
            if found is None:
                raise RuntimeError(f"mappings_spark: no '{path}' on this node's PATH; pass binary= a path to ship")
            return found
        if not os.access(path, os.X_OK):
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return path

    def command(self, rejects, stats):
        command = [self.executable(), "stream", "--context", self.context, "--color", "never"]
        for path in self.mappings:
            command += ["--mappings", self.local(path)]
        if self.scripts is not None:
            command += ["--scripts", self.local(self.scripts)]
        command += ["--workers", str(self.workers), "--on-issue", self.on_issue]
        command += ["--rejects", rejects, "--stats", stats]
        return command + list(self.arguments)

    def __call__(self, partition, lines):
        """Streams one partition's lines through the tool; yields tagged rows.

        The same lines give the same rows in the same order, so a task that Spark retries
        (its first attempt's output discarded) writes what the first would have: nothing is
        duplicated or lost. A load failure (exit status 2) fails the task, and Spark's retry
        and job failure follow.
        """
        with tempfile.TemporaryDirectory(prefix="mappings-spark-") as folder:
            source = os.path.join(folder, "input.ndjson")
            rejects = os.path.join(folder, "rejects.ndjson")
            stats = os.path.join(folder, "stats.json")
            with open(source, "w", encoding="utf-8") as out:
                for line in lines:
                    out.write(_record_line(line))
                    out.write("\n")
            errors = os.path.join(folder, "stderr")
            with open(source, "rb") as stdin, open(errors, "wb") as stderr:
                process = subprocess.Popen(
                    self.command(rejects, stats), stdin=stdin, stdout=subprocess.PIPE, stderr=stderr
                )
                try:
                    for output in process.stdout:
                        text = output.decode("utf-8").rstrip("\n")
                        yield (MAPPED, partition, self.exact(text) if self.text_fields else text)
                    status = process.wait()
                finally:
                    # A consumer that stops early (`first()`, `limit`) closes this generator: the
                    # process it no longer reads is stopped, not left behind.
                    if process.poll() is None:
                        process.kill()
                        process.wait()
                    process.stdout.close()
            if status not in (0, 1):
                with open(errors, encoding="utf-8", errors="replace") as stderr:
                    raise RuntimeError(
                        f"mappings stream failed in partition {partition} (exit {status}):\n{stderr.read()}"
                    )
            with open(rejects, encoding="utf-8") as rejected:
                for text in rejected:
                    yield (REJECTED, partition, text.rstrip("\n"))
            with open(stats, encoding="utf-8") as counts:
                yield (STATS, partition, counts.read())

    def exact(self, text):
        """The record with its decimal fields' numbers, and its JSON fields' values, as strings of
        their exact text: Spark's JSON reader, reading a number where it expects a string,
        writes a double's digits."""
        record = json.loads(text, parse_float=Decimal)
        _quote(record, self.text_fields)
        return json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=_double)


def _record_line(line):
    """One NDJSON line for a record: a null record is the JSON `null` (mapped or rejected like
    any other, never dropped), and line breaks, which JSON allows only between tokens, are
    spaces so that the record stays one line."""
    if line is None:
        return "null"
    if "\n" in line or "\r" in line:
        return line.replace("\r", " ").replace("\n", " ")
    return line


class Leaf:
    """A field whose value Spark must read as strings: `kind` is "Decimal" (every number inside
    becomes its digits) or "JSON" (each value where `spark_type` has a string becomes its JSON
    text)."""

    def __init__(self, kind, spark_type):
        self.kind = kind
        self.spark_type = spark_type


def _quote(value, fields):
    """Makes strings, in place, of the values under `fields`: a tree of field names (a dict)
    whose leaves are `Leaf`s, where `(MAP, tree)` stands for each value of a dictionary."""
    if isinstance(value, list):
        for element in value:
            _quote(element, fields)
    elif isinstance(fields, tuple) and isinstance(value, dict):
        for inner in value.values():
            _quote(inner, fields[1])
    elif isinstance(value, dict):
        for name, inner in fields.items():
            if name not in value or value[name] is None:
                continue
            if isinstance(inner, Leaf):
                value[name] = _digits(value[name]) if inner.kind == "Decimal" else _texts(value[name], inner.spark_type)
            else:
                _quote(value[name], inner)


def _digits(value):
    if isinstance(value, (Decimal, int)) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list):
        return [_digits(element) for element in value]
    if isinstance(value, dict):
        return {key: _digits(element) for key, element in value.items()}
    return value


def _texts(value, spark_type):
    """The JSON text of `value` where `spark_type` is a string; arrays and maps element-wise."""
    if value is None:
        return None
    if isinstance(spark_type, dict) and spark_type.get("type") == "array" and isinstance(value, list):
        return [_texts(element, spark_type["elementType"]) for element in value]
    if isinstance(spark_type, dict) and spark_type.get("type") == "map" and isinstance(value, dict):
        return {key: _texts(element, spark_type["valueType"]) for key, element in value.items()}
    return _json_text(value)


def _json_text(value):
    """JSON text with every number's digits as read (`json.dumps` would write a Decimal's
    float)."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, (int, Decimal)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(_json_text(element) for element in value) + "]"
    return "{" + ",".join(json.dumps(key, ensure_ascii=False) + ":" + _json_text(inner)
                          for key, inner in value.items()) + "}"


def _double(value):
    """`json.dumps`'s fallback: a number that is not a decimal field's is a double."""
    if isinstance(value, Decimal):
        return float(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def text_fields(schema_json):
    """The tree of fields Spark must read as strings, from the metadata `mappings schema
    --format spark` writes (`{"mappings.type": "Decimal"}` or `"JSON"`); empty when none."""

    def walk(data_type):
        if not isinstance(data_type, dict):
            return {}
        kind = data_type.get("type")
        if kind == "struct":
            found = {}
            for field in data_type["fields"]:
                marked = field.get("metadata", {}).get("mappings.type")
                if marked in ("Decimal", "JSON"):
                    found[field["name"]] = Leaf(marked, field["type"])
                else:
                    inner = walk(field["type"])
                    if inner:
                        found[field["name"]] = inner
            return found
        if kind == "array":
            return walk(data_type["elementType"])
        if kind == "map":
            inner = walk(data_type["valueType"])
            return (MAP, inner) if inner else {}
        return {}

    return walk(schema_json)
