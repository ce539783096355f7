"""to_arrow as a data user reads it: pyarrow, Polars and DuckDB over the table; the schema as
`mappings schema --format arrow` prints it; rejects with their reasons; batches."""

import datetime
import decimal
import json
import math
import os

import pyarrow as pa
import pytest

from conftest import KINDS, SHOP, order, tool


def orders(count, **changes):
    return "\n".join(json.dumps(order(number, **changes)) for number in range(1, count + 1)).encode() + b"\n"


def test_the_table_holds_what_map_gives(shop):
    text = orders(12000)
    table, rejects = shop.to_arrow("$Order", text, workers=2, batch_rows=2000)
    assert table.num_rows == 12000 and rejects.num_rows == 0
    # Every buffer as the Arrow format lays it out: offsets, validity, children's lengths.
    table.validate(full=True)
    # A batch is handed over once it holds batch_rows rows (with the rest of a block of lines).
    assert len(table.to_batches()) >= 2
    values = [result.value for result in shop.map_lines("$Order", text)]
    rows = table.to_pylist()
    for row, value in zip(rows, values):
        assert row["id"] == value["id"] and row["code"] == value["code"] and row["rate"] == value["rate"]
        assert row["total"] == value["total"] and isinstance(row["total"], decimal.Decimal)
        assert row["placed"] == value["placed"] and row["placed"].tzinfo is not None
        assert row["customer"] == value["customer"]
        assert json.loads(row["extra"]) == value["extra"]
        assert dict(row["counts"]) == value["counts"] and row["tags"] == value["tags"]


def test_the_schema_is_the_tools(shop):
    table, _ = shop.to_arrow("$Order", orders(3))
    printed, status = tool("schema", "--mappings", os.path.join(SHOP, "contexts"), "--scripts",
                           os.path.join(SHOP, "scripts"), "--context", "$Order", "--format", "arrow")
    assert status == 0
    top = [line for line in str(table.schema).splitlines() if not line.startswith(" ")]
    assert printed.splitlines() == top
    assert table.schema == shop.arrow_schema("$Order")
    assert table.schema.field("id").type == pa.int64() and not table.schema.field("id").nullable
    assert table.schema.field("total").type == pa.decimal128(38, 18)
    assert table.schema.field("placed").type == pa.timestamp("us", tz="UTC")
    assert table.schema.field("customer").nullable


def test_every_kind_of_the_spark_fixture(kinds):
    with open(os.path.join(KINDS, "kinds.ndjson"), "rb") as file:
        text = file.read()
    table, rejects = kinds.to_arrow("$Kinds", text)
    table.validate(full=True)
    rejects.validate(full=True)
    printed, status = tool("schema", "--mappings", os.path.join(KINDS, "contexts"), "--scripts",
                           os.path.join(KINDS, "scripts"), "--context", "$Kinds", "--format", "arrow")
    assert status == 0 and printed.splitlines() == [
        line for line in str(table.schema).splitlines() if not line.startswith(" ")]
    values = [result.value for result in kinds.map_lines("$Kinds", text)]
    # The first record's decimal has 19 digits after the point: more than decimal128(38, 18)
    # holds, so the record is a reject that says so, never a rounded value.
    assert rejects.column("line").to_pylist() == [1]
    (issue,) = rejects.column("issues").to_pylist()[0]
    assert "decimal128(38, 18)" in issue["message"] and issue["severity"] == "error"
    assert json.loads(rejects.column("input").to_pylist()[0])["n"] == -9223372036854775808
    for row, value in zip(table.to_pylist(), values[1:]):
        for key in ("n", "d", "b", "text", "tags", "flags", "grid"):
            assert row[key] == value[key], key
        assert row["when"] == value["when"]
        assert row["dec"] == value["dec"]
        assert json.loads(row["js"]) == json.loads(json.dumps(value["js"], default=float))
        assert dict(row["counts"]) == value["counts"]
        # A union is one struct of every member's fields (those of the other members null); a
        # recursive model is its JSON text.
        assert {key: field for key, field in row["shape"].items() if field is not None} == value["shape"]
        assert json.loads(row["tree"] or "null") == value["tree"]


def test_rejects_keep_line_input_and_issues(shop):
    lines = [json.dumps(order(1)), json.dumps(order(2, placed_at="never")), "{not json", json.dumps(order(4, test=True)),
             json.dumps(order(5))]
    table, rejects = shop.to_arrow("$Order", lines)
    assert table.column("id").to_pylist() == [1, 5]
    assert rejects.column("line").to_pylist() == [2, 3]
    assert rejects.column("input").to_pylist()[1] == "{not json"
    kinds = [issues[0]["kind"] for issues in rejects.column("issues").to_pylist()]
    assert kinds == ["conversion failed", "invalid JSON"]


def test_an_empty_input_is_an_empty_table_of_the_schema(shop):
    table, rejects = shop.to_arrow("$Order", b"")
    assert table.num_rows == 0 and rejects.num_rows == 0 and table.schema == shop.arrow_schema("$Order")


def test_polars_and_duckdb_read_the_table(shop, tmp_path):
    import duckdb
    import polars as pl

    path = tmp_path / "orders.ndjson"
    path.write_bytes(orders(1000))
    orders_table, _ = shop.to_arrow("$Order", str(path), workers=2)
    table = orders_table
    frame = pl.from_arrow(table)
    assert frame.height == 1000 and frame["id"].sum() == 500500
    assert frame.schema["placed"] == pl.Datetime("us", "UTC")
    total = duckdb.sql("select count(*), sum(total), max(customer.id) from orders_table").fetchall()[0]
    assert total[0] == 1000 and total[2] == 3000
    assert total[1] == sum(decimal.Decimal(f"{n}.{n % 100:02d}") for n in range(1, 1001))
    first = duckdb.sql("select placed from orders_table where id = 1").fetchall()[0][0]
    assert first == datetime.datetime(2024, 2, 11, 1, 30, 0, 1, tzinfo=datetime.timezone.utc)


def test_to_arrow_needs_pyarrow_only_when_called():
    import subprocess
    import sys

    script = "import sys; sys.modules['pyarrow'] = None\nimport mappings\nprint('ok')"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


def test_random_orders_are_the_same_rows_as_map_lines_values(shop):
    """200 random orders (test_api's generator: extreme doubles, long decimals, far dates,
    unicode): every record map_lines maps is a row with its values, in order; every other one,
    and every decimal decimal128(38, 18) cannot hold, is a reject."""
    import random

    from test_api import random_order

    generator = random.Random(11)
    records = [random_order(generator, number) for number in range(1, 201)]
    lines = [json.dumps(record, default=str).replace('"total": "', '"total": ').replace('", "rate"', ', "rate"')
             .replace('"0.1111111111111111111111111"', "0.1111111111111111111111111") for record in records]
    table, rejects = shop.to_arrow("$Order", lines, workers=2, batch_rows=50)
    table.validate(full=True)
    results = list(shop.map_lines("$Order", lines))
    fits = [r for r in results if r.ok and abs(r.value["total"].as_tuple().exponent) <= 18
            and r.value["total"].adjusted() < 20]
    assert table.num_rows == len(fits) and table.num_rows + rejects.num_rows == len(results)
    assert sorted(rejects.column("line").to_pylist() + [r.line for r in fits]) == list(range(1, 201))
    for row, result in zip(table.to_pylist(), fits):
        value = result.value
        assert row["total"] == value["total"] and row["placed"] == value["placed"]
        assert row["code"] == value["code"] and row["customer"] == value["customer"]
        assert row["rate"] == value["rate"] or (math.isnan(row["rate"]) and math.isnan(value["rate"]))
        assert json.loads(row["extra"], parse_float=decimal.Decimal) == exact(value["extra"])


def exact(value):
    """A value with its floats as the decimals they read back as (what JSON text compares as)."""
    if isinstance(value, float):
        return decimal.Decimal(repr(value))
    if isinstance(value, dict):
        return {key: exact(member) for key, member in value.items()}
    if isinstance(value, list):
        return [exact(element) for element in value]
    return value


def test_a_record_with_errors_whose_output_fits_is_a_reject(shop):
    """An error in a field the output still holds (a rate that is no number leaves it null):
    the record is a reject of to_arrow, with its issue, not a failure of the call."""
    lines = [json.dumps(order(1)), json.dumps(order(2, rate="fast")), json.dumps(order(3))]
    table, rejects = shop.to_arrow("$Order", lines)
    assert table.column("id").to_pylist() == [1, 3]
    assert rejects.column("line").to_pylist() == [2]
    assert rejects.column("issues").to_pylist()[0][0]["path"] == "$.rate"
