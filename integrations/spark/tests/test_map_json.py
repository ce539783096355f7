"""map_json in local[2]: the same records and rejects as one `mappings stream` over the same
input, counts that reconcile, the schema applied, and a looping script that costs only its
own records."""

import json
import re
import subprocess
from collections import Counter
from decimal import Decimal

import pytest

from conftest import CONTEXTS, EXTRA, FIXTURES, SCRIPTS, binary, records
from mappings_spark import map_json, spark_schema


def stream(lines, tmp_path, *options):
    """What one `mappings stream` writes for `lines`: mapped lines, rejects, stats."""
    source = tmp_path / "input.ndjson"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rejects, stats = tmp_path / "rejects.ndjson", tmp_path / "stats.json"
    done = subprocess.run(
        [binary(), "stream", "--context", "$Order", "--mappings", CONTEXTS, "--scripts", SCRIPTS,
         "--rejects", str(rejects), "--stats", str(stats), *options, str(source)],
        capture_output=True, text=True,
    )
    assert done.returncode in (0, 1), done.stderr
    mapped = done.stdout.splitlines()
    return mapped, [json.loads(line) for line in rejects.read_text().splitlines()], json.loads(stats.read_text())


def issue_keys(issues):
    """What identifies an issue wherever the files were: not the rule's file path."""
    return tuple((issue["kind"], issue.get("path"), issue.get("property")) for issue in issues)


def test_partitions_map_as_one_stream_would(spark, tmp_path):
    lines = records(20_000)
    expected_mapped, expected_rejects, expected_stats = stream(lines, tmp_path)
    assert expected_stats["rejected"] > 200 and expected_stats["written"] > 19_000

    data = spark.createDataFrame([(line,) for line in lines], "json STRING").repartition(8)
    assert data.rdd.getNumPartitions() == 8
    output = map_json(data, "$Order", mappings=[CONTEXTS], scripts=SCRIPTS, binary=binary())
    mapped, rejects = output

    # The schema applied: typed columns, not strings.
    types = dict(mapped.dtypes)
    assert types["placedAt"] == "timestamp"
    assert types["customer"] == "struct<id:bigint,name:string,email:string>"
    assert types["lines"] == "array<struct<sku:string,quantity:bigint,price:string>>"
    assert types["total"] == "string" and types["status"] == "string"

    # The mapped rows are those of one stream over the same input, in any order (decimals —
    # the total and the lines' prices — and JSON aside: the reader would make their numbers
    # doubles, and 1.10 would read 1.1).
    reader = spark.read.schema(mapped.schema).option("timeZone", "UTC").option("mode", "FAILFAST")
    expected = reader.json(spark.sparkContext.parallelize(expected_mapped, 4))
    assert mapped.count() == len(expected_mapped)
    assert mapped.drop("total", "extra", "lines").exceptAll(expected.drop("total", "extra", "lines")).count() == 0
    assert expected.drop("total", "extra", "lines").exceptAll(mapped.drop("total", "extra", "lines")).count() == 0
    # The lines, their prices as written.
    got_lines = Counter(tuple((line.sku, line.quantity, line.price) for line in (row.lines or []))
                        for row in mapped.select("lines").collect())
    want_lines = Counter(tuple((line["sku"], line["quantity"], None if line["price"] is None else str(line["price"]))
                               for line in (json.loads(record, parse_float=Decimal).get("lines") or []))
                         for record in expected_mapped)
    assert got_lines == want_lines
    # Decimals keep every digit (a JSON reader alone would have made them doubles).
    totals = Counter(row.total for row in mapped.select("total").collect())
    assert totals == Counter(str(Decimal(json.loads(line, parse_float=Decimal)["total"])) for line in expected_mapped)
    assert all(len(total.replace(".", "")) > 20 for total in totals)
    # So do JSON properties, as their text.
    extras = Counter(row.extra for row in mapped.select("extra").collect())
    assert set(extras) == {None, EXTRA} and extras[EXTRA] > 2_000

    # The rejects are the same records, with the same issues.
    got = Counter((row.input, issue_keys(row.asDict(recursive=True)["issues"])) for row in rejects.collect())
    want = Counter((reject["input"], issue_keys(reject["issues"])) for reject in expected_rejects)
    assert got == want

    # Every partition's counts reconcile, and the totals are the stream's.
    counts = output.counts()
    assert counts["partitions"] == 8
    assert (counts["read"], counts["written"], counts["rejected"]) == (
        20_000, expected_stats["written"], expected_stats["rejected"])
    output.unpersist()


def test_a_looping_script_rejects_its_records_and_the_job_completes(spark):
    lines = records(400, bad_every=10_000, seed=3)
    looping = []
    for number in (5, 6, 7):
        record = json.loads(lines[number])
        record["code"] = "LOOP"
        looping.append(json.dumps(record))
    # Partition 0 holds the looping records; the other three are clean.
    partitions = [looping + lines[:100], lines[100:200], lines[200:300], lines[300:400]]
    rdd = spark.sparkContext.parallelize(partitions, 4).flatMap(lambda chunk: chunk)
    output = map_json(rdd, "$Order", mappings=[CONTEXTS], scripts=SCRIPTS, binary=binary(), lua_timeout_ms=50)
    mapped, rejects = output
    assert mapped.count() == 400
    rejected = rejects.collect()
    assert [row.partition for row in rejected] == [0, 0, 0]
    assert [row.line for row in rejected] == [1, 2, 3]
    for row in rejected:
        assert [issue.kind for issue in row.issues] == ["transformer failed"]
        assert "Orders.normalizedCode failed" in row.issues[0].message
    assert output.counts()["rejected"] == 3


def test_the_spark_schema_is_the_tool_s(spark):
    from pyspark.sql.types import StructType

    schema = spark_schema("$Order", mappings=[CONTEXTS], scripts=SCRIPTS, binary=binary())
    read = StructType.fromJson(schema)
    assert read.simpleString() == (
        "struct<id:string,placedAt:timestamp,status:string,customer:struct<id:bigint,name:string,email:string>,"
        "lines:array<struct<sku:string,quantity:bigint,price:string>>,total:string,code:string,note:string,"
        "site:string,extra:string>")
    assert read["total"].metadata == {"mappings.type": "Decimal"}
    assert read["extra"].metadata == {"mappings.type": "JSON"}


class Raw(str):
    """A JSON number's text as written."""


def raw(text):
    return json.loads(text, parse_float=Raw, parse_int=Raw)


def json_text(value):
    """JSON text as `mappings` writes it: compact, numbers as written, UTF-8 as it is."""
    if isinstance(value, Raw):
        return str(value)
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(json_text(element) for element in value) + "]"
    return "{" + ",".join(json_text(key) + ":" + json_text(inner) for key, inner in value.items()) + "}"


def test_every_kind_of_value_is_the_row_the_json_reader_makes_of_one_stream(spark, tmp_path):
    from pyspark.sql.types import StructType

    kinds = open(f"{FIXTURES}/kinds.ndjson", encoding="utf-8").read().splitlines()
    lines = [line for _ in range(40) for line in kinds]
    done = subprocess.run([binary(), "stream", "--context", "$Kinds", "--mappings", CONTEXTS, "--scripts", SCRIPTS],
                          input="\n".join(lines) + "\n", capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    expected_lines = done.stdout.splitlines()
    schema = spark_schema("$Kinds", mappings=[CONTEXTS], scripts=SCRIPTS, binary=binary())

    data = spark.createDataFrame([(line,) for line in lines], "json STRING").coalesce(1)
    output = map_json(data, "$Kinds", mappings=[CONTEXTS], scripts=SCRIPTS, binary=binary())
    mapped = output.mapped
    # The schema is the tool's, nullability and metadata included.
    assert mapped.schema.jsonValue() == schema
    got = [row.asDict(recursive=True) for row in mapped.collect()]
    assert len(got) == len(expected_lines)

    # Every column but the text ones is what Spark's JSON reader makes of the stream's lines.
    text_columns = {"dec", "decs", "js", "jsList", "prices"}
    reader = spark.read.schema(StructType.fromJson(schema)).option("timeZone", "UTC").option("mode", "FAILFAST")
    expected = [row.asDict(recursive=True) for row in reader.json(spark.sparkContext.parallelize(expected_lines, 1)).collect()]
    for mine, theirs in zip(got, expected):
        assert {k: v for k, v in mine.items() if k not in text_columns} == \
            {k: v for k, v in theirs.items() if k not in text_columns}
    # Decimals are their digits as written, JSON values their text: no double in between.
    for mine, line in zip(got, expected_lines):
        record = raw(line)
        assert mine["dec"] == record["dec"]
        assert mine["decs"] == record["decs"]
        assert mine["prices"] == record["prices"]
        assert mine["js"] == json_text(record["js"])
        assert mine["jsList"] == [None if value is None else json_text(value) for value in record["jsList"]]
    assert got[0]["n"] == -(2 ** 63) and got[1]["n"] == 2 ** 63 - 1
    assert got[0]["text"] == 'a"b\\c\né😀'
    assert got[0]["dec"] == "1234567890123456789.0123456789012345678"
    # A recursive model is a struct down to where it recurs, and JSON text from there.
    assert got[0]["tree"] == {"name": "r", "children": ['{"name":"c","children":[]}']}
    assert output.counts()["written"] == len(lines)
    output.unpersist()


def test_carried_columns_reach_both_outputs_past_filtered_records(spark, tmp_path):
    from pyspark.sql import functions as F

    folder = tmp_path / "in"
    folder.mkdir()
    lines = records(3_000, bad_every=37, seed=5)
    for index in range(3):
        (folder / f"part-{index}.ndjson").write_text("\n".join(lines[index::3]) + "\n", encoding="utf-8")
    source = (spark.read.text(str(folder)).withColumn("file", F.input_file_name())
              .withColumn("row", F.monotonically_increasing_id()))
    by_place = {(row.file, row.row): row.value for row in source.collect()}
    output = map_json(source, "$OpenOrder", mappings=[CONTEXTS], scripts=SCRIPTS, binary=binary(),
                      column="value", carry=["file", "row"])
    mapped, rejects = output
    assert mapped.columns[-2:] == ["file", "row"] and rejects.columns[-2:] == ["file", "row"]
    assert mapped.schema["file"].nullable == source.schema["file"].nullable
    # Each mapped record sits beside the place of the line it came from.
    rows = mapped.select("id", "status", "file", "row").collect()
    for row in rows:
        assert json.loads(by_place[(row.file, row.row)])["order_id"].upper() == row.id
        assert row.status != "cancelled"
    # So does each reject, and its input is that line.
    rejected = rejects.collect()
    assert rejected and all(by_place[(row.file, row.row)] == row.input for row in rejected)
    counts = output.counts()
    assert counts["filtered"] > 500
    assert counts["read"] == 3_000 == counts["written"] + counts["rejected"] + counts["filtered"]
    assert counts["written"] == len(rows) and counts["rejected"] == len(rejected)
    output.unpersist()


def test_blank_and_null_records_are_rejected_not_lost(spark):
    good = records(3, bad_every=10_000)
    data = spark.createDataFrame([(good[0],), ("",), ("  \t",), (None,), (good[1],), ("\n",), (good[2],)],
                                 "json STRING").coalesce(1)
    output = map_json(data, "$Order", mappings=[CONTEXTS], scripts=SCRIPTS, binary=binary())
    mapped, rejects = output
    # The rejects first: read from the run itself (nothing was put aside yet), then again from
    # what its tasks put aside; the same rows.
    first = sorted(tuple(row) for row in rejects.collect())
    assert mapped.count() == 3
    assert sorted(tuple(row) for row in rejects.collect()) == first
    rejected = {row.line: row for row in rejects.collect()}
    assert sorted(rejected) == [2, 3, 4, 6]
    assert rejected[2].input == "" and rejected[3].input == "  \t" and rejected[6].input == "\n"
    assert rejected[2].issues[0].kind == "invalid JSON"
    assert rejected[4].input == "null"
    counts = output.counts()
    assert (counts["read"], counts["written"], counts["rejected"]) == (7, 3, 4)


def test_emitted_records_make_every_column_nullable(spark):
    # One in 5 bad: a quarter of those invalid JSON, a quarter without the customer's name.
    lines = records(200, bad_every=5, seed=4)
    data = spark.createDataFrame([(line,) for line in lines], "json STRING")
    output = map_json(data, "$Order", mappings=[CONTEXTS], scripts=SCRIPTS, binary=binary(), on_issue="emit")
    mapped = output.mapped
    assert all(field.nullable for field in mapped.schema.fields)
    assert mapped.schema["customer"].dataType["name"].nullable
    # Records with errors are rows (the invalid JSON ones have nothing to write).
    assert mapped.count() == 200 - 10 and output.rejects.count() == 10
    assert mapped.where("customer.name IS NULL").count() == 10


def test_a_failing_task_names_its_partition_and_the_first_issue(spark):
    # Enough records that writing them to a process that has exited breaks the pipe: the
    # message is still the process's own.
    lines = records(8_000, bad_every=10_000)
    data = spark.createDataFrame([(line,) for line in lines], "json STRING").repartition(2)
    output = map_json(data, "$Order", mappings=[CONTEXTS], scripts=SCRIPTS, binary=binary(),
                      arguments=["--max-in-flight", "0"])
    with pytest.raises(Exception) as failure:
        output.mapped.count()
    message = str(failure.value)
    assert re.search(r"mappings stream in partition \d exited with status 2", message)
    assert "--max-in-flight" in message
