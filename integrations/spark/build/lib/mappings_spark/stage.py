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

    def __init__(self, context, mappings, scripts, binary, workers, on_issue, arguments, shipped, decimal_fields):
        self.context = context
        self.mappings = mappings
        self.scripts = scripts
        self.binary = binary
        self.workers = workers
        self.on_issue = on_issue
        self.arguments = arguments
        self.shipped = shipped
        self.decimal_fields = decimal_fields

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
                for output in process.stdout:
                    text = output.decode("utf-8").rstrip("\n")
                    yield (MAPPED, partition, self.exact(text) if self.decimal_fields else text)
                status = process.wait()
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
        """The record with the numbers of its decimal fields quoted, so that Spark's JSON reader
        keeps every digit of them as a string (it reads a number as a double's digits)."""
        record = json.loads(text, parse_float=Decimal)
        _quote_decimals(record, self.decimal_fields)
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


def _quote_decimals(value, fields):
    """Replaces, in place, the numbers under `fields`: a tree of field names whose leaves are
    True, where `(MAP, tree)` stands for each value of a dictionary."""
    if isinstance(value, list):
        for element in value:
            _quote_decimals(element, fields)
    elif isinstance(fields, tuple) and isinstance(value, dict):
        for key, inner in value.items():
            _quote_decimals(inner, fields[1])
    elif isinstance(value, dict):
        for name, inner in fields.items():
            if name not in value:
                continue
            if inner is True:
                value[name] = _quoted(value[name])
            else:
                _quote_decimals(value[name], inner)


def _quoted(value):
    if isinstance(value, (Decimal, int)) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list):
        return [_quoted(element) for element in value]
    if isinstance(value, dict):
        return {key: _quoted(element) for key, element in value.items()}
    return value


def _double(value):
    """`json.dumps`'s fallback: a number that is not a decimal field's is a double."""
    if isinstance(value, Decimal):
        return float(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def decimal_fields(schema_json):
    """The tree of fields whose values hold decimals, from the metadata `mappings schema
    --format spark` writes (`{"mappings.type": "Decimal"}`); empty when there are none."""

    def walk(data_type):
        if not isinstance(data_type, dict):
            return {}
        kind = data_type.get("type")
        if kind == "struct":
            found = {}
            for field in data_type["fields"]:
                if field.get("metadata", {}).get("mappings.type") == "Decimal":
                    found[field["name"]] = True
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
