"""map_json in local[2]: the same records and rejects as one `mappings stream` over the same
input, counts that reconcile, the schema applied, and a looping script that costs only its
own records."""

import json
import subprocess
from collections import Counter
from decimal import Decimal

from conftest import CONTEXTS, EXTRA, SCRIPTS, binary, records
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

    # The mapped rows are those of one stream over the same input, in any order (decimals and
    # JSON aside: the reader would make their numbers doubles).
    reader = spark.read.schema(mapped.schema).option("timeZone", "UTC").option("mode", "FAILFAST")
    expected = reader.json(spark.sparkContext.parallelize(expected_mapped, 4))
    assert mapped.count() == len(expected_mapped)
    assert mapped.drop("total", "extra").exceptAll(expected.drop("total", "extra")).count() == 0
    assert expected.drop("total", "extra").exceptAll(mapped.drop("total", "extra")).count() == 0
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
