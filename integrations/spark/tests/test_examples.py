"""The examples run as written: docs/scale-out.md's local-mode job and the Structured
Streaming example (in the tests' local[2] session, which their getOrCreate() finds), and a
job whose task fails once and is retried by Spark (a process of its own: local[2,2])."""

import json
import os
import re
import runpy
import subprocess
import sys

from conftest import CONTEXTS, ROOT, SCRIPTS, binary, records


def run_python(source, *arguments, cwd=ROOT):
    """Runs Python code in a process of its own, with a Spark of its own."""
    environment = dict(os.environ, MAPPINGS_BINARY=binary(), PYSPARK_PYTHON=sys.executable)
    environment["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "integrations", "spark"),
                                                 environment.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", source, *arguments], cwd=cwd, capture_output=True, text=True,
                          env=environment, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


def test_the_local_mode_example_of_the_docs_runs(spark, capfd, monkeypatch):
    with open(os.path.join(ROOT, "docs", "scale-out.md"), encoding="utf-8") as page:
        text = page.read()
    block = re.search(r"<!-- local-mode example -->\n```python\n(.*?)```", text, re.S)
    assert block, "docs/scale-out.md has no local-mode example"
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("MAPPINGS_BINARY", binary())
    exec(compile(block.group(1), "docs/scale-out.md", "exec"), {})
    out = capfd.readouterr().out
    # The pipeline example has 6 lines: one is not JSON, one lacks its id, one has bad coordinates.
    assert "read 6, written 3, rejected 3" in out
    assert "|identifier|name|retweets|" in out
    assert "[transformer failed]" in out and "[invalid JSON]" in out


def test_the_streaming_example_maps_each_micro_batch(spark, tmp_path, capfd, monkeypatch):
    source = tmp_path / "in"
    source.mkdir()
    for name in ("a", "b"):
        (source / f"{name}.ndjson").write_text(
            open(os.path.join(ROOT, "Examples", "pipeline", "tweets.ndjson"), encoding="utf-8").read())
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "argv", ["streaming.py", str(source), str(tmp_path / "out"), binary()])
    runpy.run_path(os.path.join(ROOT, "integrations", "spark", "examples", "streaming.py"), run_name="__main__")
    batches = re.findall(r"read (\d+), written (\d+), rejected (\d+)", capfd.readouterr().out)
    assert sum(int(read) for read, _, _ in batches) == 12
    assert sum(int(written) for _, written, _ in batches) == 6
    rejects = [json.loads(line) for part in (tmp_path / "out" / "rejects").glob("part-*.json")
               for line in part.read_text().splitlines()]
    assert len(rejects) == 6
    assert list((tmp_path / "out" / "mapped").glob("part-*.parquet"))


RETRIED = """
import json, sys
from pyspark import TaskContext
from pyspark.sql import SparkSession
from mappings_spark import map_json

contexts, scripts, binary, path = sys.argv[1:5]
# local[2, 2]: two threads, and a failed task is tried again once.
spark = SparkSession.builder.master("local[2,2]").config("spark.ui.enabled", "false").getOrCreate()
lines = [line.rstrip("\\n") for line in open(path, encoding="utf-8")]

def fail_once(index, rows):
    # The first attempt of partition 2 dies half-way through its input.
    for number, row in enumerate(rows):
        if index == 2 and number == 100 and TaskContext.get().attemptNumber() == 0:
            raise RuntimeError("injected failure")
        yield row

rdd = spark.sparkContext.parallelize(lines, 4).mapPartitionsWithIndex(fail_once)
output = map_json(rdd, "$Order", mappings=[contexts], scripts=scripts, binary=binary)
mapped, rejects = output
ids = [row.id for row in mapped.select("id").collect()]
print(json.dumps({"mapped": len(ids), "distinct": len(set(ids)), "rejected": rejects.count(),
                  "counts": output.counts()}))
"""


def test_a_retried_task_writes_its_records_once(tmp_path):
    lines = records(1_000, bad_every=50, seed=9)
    path = tmp_path / "orders.ndjson"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = json.loads(run_python(RETRIED, CONTEXTS, SCRIPTS, binary(), str(path)).splitlines()[-1])
    assert result["mapped"] == result["distinct"] == 980
    assert result["rejected"] == 20
    assert (result["counts"]["read"], result["counts"]["partitions"]) == (1_000, 4)
