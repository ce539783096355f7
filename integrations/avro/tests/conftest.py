"""Fixtures of the Avro interop tests: the tool under test (MAPPINGS_BINARY, else the debug
build), a folder of contexts per test, and records of every Avro type that fastavro writes."""
import datetime
import decimal
import os
import subprocess
import uuid

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def binary():
    return os.environ.get("MAPPINGS_BINARY") or os.path.join(ROOT, ".build", "debug", "mappings")


def mappings(*arguments, check=None, timeout=120, **options):
    """Runs the tool; `check` is the exit status expected."""
    done = subprocess.run([binary(), *arguments], capture_output=True, timeout=timeout, **options)
    if check is not None:
        assert done.returncode == check, f"exit {done.returncode}\n{done.stderr.decode()}"
    return done


# Every type of Avro, the logical types the format reads exactly among them.
SCHEMA = {
    "type": "record", "name": "Event", "namespace": "test.avro",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "small", "type": "int"},
        {"name": "flag", "type": "boolean"},
        {"name": "ratio", "type": "double"},
        {"name": "single", "type": "float"},
        {"name": "name", "type": "string"},
        {"name": "blob", "type": "bytes"},
        {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 4}},
        {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE"]}},
        {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 20, "scale": 4}},
        {"name": "amount", "type": {"type": "fixed", "name": "Amount", "size": 8,
                                    "logicalType": "decimal", "precision": 18, "scale": 2}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "at_ms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "at_us", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "local_us", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
        {"name": "time_ms", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "key", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "maybe", "type": ["null", "string"], "default": None},
        {"name": "either", "type": ["long", "string", "Color"]},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "counts", "type": {"type": "map", "values": "long"}},
        {"name": "user", "type": {"type": "record", "name": "User", "fields": [
            {"name": "login", "type": "string"},
            {"name": "follows", "type": {"type": "array", "items": ["null", "User"]}},
        ]}},
    ],
}

UTC = datetime.timezone.utc


def record(n):
    """The n-th record: values that reach the edges of their types."""
    return {
        "id": ([0, 1, -1, 2**63 - 1, -(2**63), 9007199254740993][n] if n < 6 else n * 1_000_003),
        "small": [0, 2**31 - 1, -(2**31)][n % 3],
        "flag": n % 2 == 0,
        "ratio": [0.1, -2.5, 1e-300, 1.7976931348623157e308, 3.0, -0.0][n % 6],
        "single": [0.1, 3.4028234663852886e38, 1.0, -7.25][n % 4],
        "name": ["plain", "quote \" backslash \\ tab \t", "é 😀 \u0000", ""][n % 4],
        "blob": bytes([n % 256, 0, 255, 10][: n % 5]),
        "hash": bytes([n % 256, 1, 2, 3]),
        "color": ["RED", "GREEN", "BLUE"][n % 3],
        "price": [decimal.Decimal("1234567890123456.7890"), decimal.Decimal("-0.0001"),
                  decimal.Decimal("0.0000"), decimal.Decimal("-9999999999999999.9999")][n % 4],
        "amount": [decimal.Decimal("12.34"), decimal.Decimal("-0.01"), decimal.Decimal("9999999999999999.99")][n % 3],
        "day": [datetime.date(2024, 2, 29), datetime.date(1969, 12, 31), datetime.date(1, 1, 1),
                datetime.date(9999, 12, 31)][n % 4],
        "at_ms": [datetime.datetime(2024, 1, 31, 12, 0, 0, 123000, tzinfo=UTC),
                  datetime.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)][n % 2],
        "at_us": [datetime.datetime(2024, 1, 31, 12, 0, 0, 123456, tzinfo=UTC),
                  datetime.datetime(1900, 1, 1, 0, 0, 0, 1, tzinfo=UTC)][n % 2],
        "local_us": datetime.datetime(2024, 6, 1, 8, 30, 0, 500),
        "time_ms": datetime.time(23, 59, 59, 999000),
        "key": uuid.UUID(int=n * 7919),
        "maybe": None if n % 3 == 0 else f"m{n}",
        "either": [n, f"s{n}", "BLUE"][n % 3],
        "tags": [f"t{i}" for i in range(n % 4)],
        "counts": {f"k{i}": i * 1000 for i in range(n % 3)},
        "user": {"login": f"u{n}", "follows": [None, {"login": "inner", "follows": []}][: n % 3]},
    }


@pytest.fixture
def records():
    return [record(n) for n in range(40)]
