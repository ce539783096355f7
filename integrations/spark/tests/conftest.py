"""Shared by the integration's tests: one local[2] Spark session, the `mappings` binary, the
orders fixture and a seeded generator of order records (some of them bad)."""

import json
import os
import random
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
# The package as it is in this checkout, before any installed copy of it.
sys.path.insert(0, os.path.dirname(HERE))
FIXTURES = os.path.join(HERE, "fixtures")
CONTEXTS = os.path.join(FIXTURES, "contexts")
SCRIPTS = os.path.join(FIXTURES, "scripts")


def binary():
    """The tool: $MAPPINGS_BINARY, else the debug build of `swift build`."""
    path = os.environ.get("MAPPINGS_BINARY", os.path.join(ROOT, ".build", "debug", "mappings"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"no mappings binary at {path}: run 'swift build' or set MAPPINGS_BINARY")
    return path


@pytest.fixture(scope="session")
def spark():
    # The executors' Python is this one: the one with pyspark (and without mappings_spark
    # installed, map_json ships its own package to them anyway).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("mappings-spark-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def order(rng, number):
    """One order record, valid."""
    lines = [
        {"sku": f"SKU-{rng.randrange(1000):03d}", "quantity": rng.randrange(1, 9),
         "price": f"{rng.randrange(1, 10**6)}.{rng.randrange(10**9):09d}"}
        for _ in range(rng.randrange(0, 4))
    ]
    record = {
        "order_id": "%08x-%04x-4%03x-8%03x-%012x" % (number, rng.randrange(1 << 16), rng.randrange(1 << 12),
                                                      rng.randrange(1 << 12), rng.randrange(1 << 48)),
        "placed_at": rng.choice([
            "2024-%02d-%02dT%02d:%02d:%02dZ" % (rng.randrange(1, 13), rng.randrange(1, 29), rng.randrange(24),
                                              rng.randrange(60), rng.randrange(60)),
            "2023-05-06T07:08:09.%03d+02:00" % rng.randrange(1, 1000),
            rng.randrange(10**9, 2 * 10**9),
        ]),
        "status": rng.choice(["placed", "shipped", "cancelled"]),
        "customer": {"customer_id": rng.randrange(10**6), "name": rng.choice(["Ann", "Bo", "Café Ü", "東京"])},
        "lines": lines,
        "total": "12345678901234567890.%010d" % rng.randrange(10**10),
        "code": rng.choice(["ab", "cd-1", "x"]),
    }
    if rng.random() < 0.5:
        record["customer"]["email"] = f"c{number}@example.com"
    if rng.random() < 0.3:
        record["note"] = rng.choice(["leave at door", None, "ring twice"])
    if rng.random() < 0.2:
        record["site"] = "https://shop.example/o/%d" % number
    return record


def bad(rng, number):
    """A line that must be rejected: invalid JSON, a missing required value, a bad enum, a bad date."""
    kind = number % 4
    if kind == 0:
        return '{"order_id": "broken'
    record = order(rng, number)
    if kind == 1:
        del record["customer"]["name"]
    elif kind == 2:
        record["status"] = "lost"
    else:
        record["placed_at"] = "yesterday"
    return json.dumps(record, ensure_ascii=False)


# JSON kept as it came, with a number no double holds.
EXTRA = '{"weight":1.100000000000000000001,"n":[1,null]}'


def records(count, bad_every=97, seed=20):
    """`count` NDJSON lines, one in `bad_every` of them bad, one in 7 with `EXTRA`."""
    rng = random.Random(seed)
    lines = []
    for number in range(1, count + 1):
        line = bad(rng, number) if number % bad_every == 0 else json.dumps(order(rng, number), ensure_ascii=False)
        if number % 7 == 0 and line.endswith("}"):
            line = line[:-1] + ',"extra":' + EXTRA + "}"
        lines.append(line)
    return lines
