"""The wheel tools/build-spark-wheel makes: installed alone, it maps with the portable tool it
carries (no `binary=`, no `mappings` on the PATH, no MAPPINGS_BINARY), and a successful job
prints no traceback."""

import json
import os
import subprocess
import sys

from conftest import ROOT

JOB = """
import json
from pyspark.sql import SparkSession
import mappings_spark
from mappings_spark import map_json

spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()
output = map_json(spark.read.text("Examples/pipeline/tweets.ndjson"), "$TweetModel",
                  mappings=["contexts"], scripts="scripts")
mapped, rejects = output
print(json.dumps({"binary": mappings_spark.find_binary(), "jar": mappings_spark._jar(),
                  "mapped": mapped.count(), "rejects": rejects.count(), "counts": output.counts()}))
"""


def test_the_wheel_carries_the_portable_tool_and_needs_nothing_else(tmp_path):
    built = subprocess.run([os.path.join(ROOT, "tools", "build-spark-wheel")], capture_output=True, text=True,
                           timeout=1800)
    assert built.returncode == 0, built.stderr[-4000:]
    wheel = built.stdout.strip().splitlines()[-1]
    assert wheel.endswith(".whl") and "manylinux_2_" in os.path.basename(wheel)
    site = tmp_path / "site"
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                                wheel], capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    assert os.access(site / "mappings_spark" / "bin" / "mappings", os.X_OK)

    environment = {key: value for key, value in os.environ.items() if key != "MAPPINGS_BINARY"}
    environment.update(PYTHONPATH=str(site), PATH="/usr/bin:/bin", PYSPARK_PYTHON=sys.executable)
    done = subprocess.run([sys.executable, "-c", JOB], cwd=ROOT, capture_output=True, text=True, env=environment,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["binary"] == str(site / "mappings_spark" / "bin" / "mappings")
    assert result["jar"] == str(site / "mappings_spark" / "jars" / "mappings-spark.jar")
    assert (result["mapped"], result["rejects"]) == (3, 3)
    assert (result["counts"]["read"], result["counts"]["written"]) == (6, 3)
    # A successful job is quiet: no Python traceback, no broken pipe.
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr[-4000:]
