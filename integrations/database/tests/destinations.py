"""Reading tables back, as their users' clients read them (Python's sqlite3, psycopg 3), in the
values the records' JSON holds, so that a row compares with `mappings stream`'s output line."""
import datetime
import json
import math
import sqlite3
from decimal import Decimal

import psycopg

# The columns of $Order and $OrderEvent and their kinds (the properties in snake_case).
COLUMNS = {
    "id": "integer", "number": "string", "total": "decimal", "weight": "double", "paid": "boolean",
    "placed_at": "date", "note": "string", "customer": "json", "lines": "json", "extra": "json", "counts": "json",
}
PROPERTIES = {"placed_at": "placedAt"}


def records(stdout):
    """`mappings stream`'s output lines, numbers as they are written (Decimal, int)."""
    return [json.loads(line, parse_float=Decimal) for line in stdout.splitlines() if line]


def same(kind, stored, expected):
    """Whether a stored value is the record's, for a column of `kind`."""
    if expected is None or stored is None:
        return stored is None and expected is None
    if kind == "double":
        return float(stored) == float(expected) and math.copysign(1, float(stored)) == math.copysign(1, float(expected))
    if kind == "boolean":
        return bool(stored) == expected and stored in (0, 1, True, False)
    if kind == "date":
        if isinstance(stored, datetime.datetime):
            return stored == datetime.datetime.fromisoformat(expected.replace("Z", "+00:00"))
        return stored == expected
    if kind == "decimal":
        # SQLite's text, PostgreSQL's numeric: the sign, every digit and the scale as written.
        return Decimal(str(stored)).as_tuple() == Decimal(str(expected)).as_tuple()
    if kind == "json":
        return json.loads(stored, parse_float=Decimal) == expected
    return stored == expected


class SQLite:
    dialect = "sqlite"

    def __init__(self, path):
        self.path = str(path)
        self.uri = "sqlite:" + self.path

    def query(self, sql, parameters=()):
        with sqlite3.connect(self.path) as connection:
            return connection.execute(sql, parameters).fetchall()

    def execute(self, sql):
        with sqlite3.connect(self.path) as connection:
            connection.executescript(sql)

    def table(self, name):
        names = ", ".join(f'"{column}"' for column in COLUMNS)
        return self.query(f'SELECT {names} FROM "{name}" ORDER BY "id", "number"')


class Postgres:
    dialect = "postgresql"

    def __init__(self, uri):
        self.uri = uri

    def query(self, sql, parameters=()):
        with psycopg.connect(self.uri) as connection:
            return connection.execute(sql, parameters).fetchall()

    def execute(self, sql):
        with psycopg.connect(self.uri, autocommit=True) as connection:
            connection.execute(sql)

    def table(self, name):
        # jsonb as its text: numbers stay Decimal-exact when read with parse_float=Decimal.
        names = ", ".join(f'"{column}"::text' if kind == "json" else f'"{column}"' for column, kind in COLUMNS.items())
        return self.query(f'SELECT {names} FROM "{name}" ORDER BY "id", "number"')


def compare(rows, expected):
    """Asserts that `rows` (in COLUMNS' order) hold the records `expected`, one a row, in order."""
    assert len(rows) == len(expected), f"{len(rows)} rows, {len(expected)} records"
    for row, record in zip(rows, expected):
        for (column, kind), stored in zip(COLUMNS.items(), row):
            value = record.get(PROPERTIES.get(column, column))
            assert same(kind, stored, value), f"{column}: {stored!r} stored, {value!r} mapped (id {record['id']})"
