"""map_json against the same reshape written in PySpark's own from_json and column expressions,
in local mode: the benchmark's tweet reshape ($BenchTweet, Benchmarks/contexts) over NDJSON
that Benchmarks/generate.py writes.

    python integrations/spark/bench/bench.py INPUT.ndjson [--master local[2]] [--binary PATH]

Each run reads INPUT, maps it and writes every row to Spark's `noop` sink (everything is
computed, nothing stored); the times include Spark's planning, not its start. map_json's
run also counts the rejects and reconciles the partitions' counts, as a job would.
"""

import argparse
import json
import os
import sys
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "integrations", "spark"))
from mappings_spark import map_json  # noqa: E402

# What the payloads hold, as the native reshape reads them.
PAYLOAD = (
    "created_at STRING, id_str STRING, text STRING, in_reply_to_status_id_str STRING, lang STRING, "
    "retweet_count STRING, favorite_count STRING, "
    "user STRUCT<id_str: STRING, name: STRING, screen_name: STRING, url: STRING, followers_count: STRING, "
    "verified: BOOLEAN, created_at: STRING>, "
    "entities STRUCT<hashtags: ARRAY<STRUCT<text: STRING>>, urls: ARRAY<STRUCT<url: STRING, expanded_url: STRING>>, "
    "user_mentions: ARRAY<STRUCT<screen_name: STRING>>>"
)


def api_date(column):
    # "Thu Apr 21 20:37:03 +0000 2011": Spark 3+ does not parse day names, so they go first.
    return F.to_timestamp(F.substring(column, 5, 100), "MMM dd HH:mm:ss Z yyyy")


def native(lines):
    """The $BenchTweet reshape in from_json and column expressions."""
    tweet = lines.select(F.from_json("value", PAYLOAD).alias("t")).select("t.*")
    return tweet.select(
        F.col("id_str").cast("long").alias("id"),
        "text",
        api_date("created_at").alias("createdAt"),
        F.struct(
            F.col("user.id_str").cast("long").alias("id"),
            F.col("user.name").alias("name"),
            F.col("user.screen_name").alias("screenName"),
            F.col("user.url").alias("url"),
            F.col("user.followers_count").cast("long").alias("followers"),
            F.coalesce(F.col("user.verified"), F.lit(False)).alias("verified"),
            api_date("user.created_at").alias("joined"),
        ).alias("user"),
        F.col("entities.hashtags.text").alias("tags"),
        F.transform("entities.urls", lambda u: F.struct(u.url.alias("url"), u.expanded_url.alias("expanded"))).alias(
            "links"),
        F.col("entities.user_mentions.screen_name").alias("mentions"),
        F.coalesce(F.col("retweet_count").cast("long"), F.lit(0)).alias("retweets"),
        F.coalesce(F.col("favorite_count").cast("long"), F.lit(0)).alias("favorites"),
        "lang",
        F.col("in_reply_to_status_id_str").cast("long").alias("replyTo"),
    )


def timed(label, run):
    start = time.monotonic()
    result = run()
    seconds = time.monotonic() - start
    print(json.dumps({"run": label, "seconds": round(seconds, 1), **(result or {})}), flush=True)
    return seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("input")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "mappings"))
    parser.add_argument("--partition-mb", type=int, default=64)
    options = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master(options.master)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.files.maxPartitionBytes", f"{options.partition_mb}m")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    print(json.dumps({"input": options.input, "bytes": os.path.getsize(options.input), "master": options.master,
                      "cores": os.cpu_count(), "load": os.getloadavg()}), flush=True)

    def with_mappings():
        output = map_json(spark.read.text(options.input), "$BenchTweet",
                          mappings=[os.path.join(ROOT, "Benchmarks", "contexts")],
                          scripts=os.path.join(ROOT, "Benchmarks", "scripts"), binary=options.binary)
        mapped, rejects = output
        mapped.write.format("noop").mode("overwrite").save()
        counts = output.counts()
        counts["rejects"] = rejects.count()
        output.unpersist()
        return counts

    def with_from_json():
        native(spark.read.text(options.input)).write.format("noop").mode("overwrite").save()
        return {"records": spark.read.text(options.input).count()}

    timed("from_json", with_from_json)
    timed("map_json", with_mappings)

    # Both say the same thing: the same rows for the first records.
    sample = spark.read.text(options.input).limit(2_000).cache()
    output = map_json(sample, "$BenchTweet", mappings=[os.path.join(ROOT, "Benchmarks", "contexts")],
                      scripts=os.path.join(ROOT, "Benchmarks", "scripts"), binary=options.binary)
    mapped, expected = output[0], native(sample)
    print(json.dumps({"sample": mapped.count(), "differing": mapped.exceptAll(expected).count()
                      + expected.exceptAll(mapped).count()}), flush=True)
    print(json.dumps({"load": os.getloadavg()}), flush=True)


if __name__ == "__main__":
    main()
