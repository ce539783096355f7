"""map_json against the same reshape written in PySpark's own from_json and column expressions,
in local mode, on the benchmark's record shapes (Benchmarks/generate.py): `tweet` ($BenchTweet,
about 1.2 KB a record), `small` ($SmallTweet, about 515 bytes) and `large` ($LargeTweet, about
5.6 KB: a retweet with two users of 40 fields, of which the reshape reads a tenth).

    python integrations/spark/bench/bench.py INPUT.ndjson --shape large [--runs 3] [--master local[2]]

Each method runs in a Spark of its own (a process each, one after the other), `--runs` times:
it reads INPUT, maps it and writes every row to Spark's `noop` sink (everything computed,
nothing stored). map_json's runs also reconcile the partitions' counts and count the rejects,
as a job would, and let go of the cached run. The figures: the median time, the median CPU
time of the Spark process and the processes it ran (the `mappings` ones for map_json), and
the peak memory of that process tree, sampled every 50 ms. Then one more Spark compares the two methods' rows on the first 2,000
records, and a table ends the output.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "integrations", "spark"))

CONTEXTS = {"tweet": "$BenchTweet", "small": "$SmallTweet", "large": "$LargeTweet"}

# What the payloads hold, as each native reshape reads them.
PAYLOADS = {
    "tweet": (
        "created_at STRING, id_str STRING, text STRING, in_reply_to_status_id_str STRING, lang STRING, "
        "retweet_count STRING, favorite_count STRING, "
        "user STRUCT<id_str: STRING, name: STRING, screen_name: STRING, url: STRING, followers_count: STRING, "
        "verified: BOOLEAN, created_at: STRING>, "
        "entities STRUCT<hashtags: ARRAY<STRUCT<text: STRING>>, urls: ARRAY<STRUCT<url: STRING, "
        "expanded_url: STRING>>, user_mentions: ARRAY<STRUCT<screen_name: STRING>>>"
    ),
    "small": (
        "id_str STRING, created_at STRING, text STRING, lang STRING, retweet_count STRING, "
        "in_reply_to_status_id_str STRING, user STRUCT<id_str: STRING, name: STRING, screen_name: STRING, "
        "url: STRING, followers_count: STRING, verified: BOOLEAN, created_at: STRING>, "
        "hashtags ARRAY<STRUCT<text: STRING>>"
    ),
    "large": (
        "created_at STRING, id_str STRING, text STRING, lang STRING, retweet_count STRING, favorite_count STRING, "
        "user STRUCT<id_str: STRING, screen_name: STRING, followers_count: STRING, verified: BOOLEAN, "
        "created_at: STRING>, entities STRUCT<hashtags: ARRAY<STRUCT<text: STRING>>>, "
        "retweeted_status STRUCT<id_str: STRING, text: STRING, created_at: STRING, "
        "user: STRUCT<screen_name: STRING>>"
    ),
}


def native(shape, lines):
    """The shape's reshape in from_json and column expressions."""
    from pyspark.sql import functions as F

    def api_date(column):
        # "Thu Apr 21 20:37:03 +0000 2011": Spark 3+ does not parse day names, so they go first.
        return F.to_timestamp(F.substring(column, 5, 100), "MMM dd HH:mm:ss Z yyyy")

    t = lines.select(F.from_json("value", PAYLOADS[shape]).alias("t")).select("t.*")
    if shape == "small":
        return t.select(
            F.col("id_str").cast("long").alias("id"), F.to_timestamp("created_at").alias("createdAt"), "text",
            F.struct(F.col("user.id_str").cast("long").alias("id"), F.col("user.name").alias("name"),
                     F.col("user.screen_name").alias("screenName"), F.col("user.url").alias("url"),
                     F.col("user.followers_count").cast("long").alias("followers"),
                     F.coalesce("user.verified", F.lit(False)).alias("verified"),
                     F.to_timestamp("user.created_at").alias("joined")).alias("user"),
            F.col("hashtags.text").alias("tags"),
            F.coalesce(F.col("retweet_count").cast("long"), F.lit(0)).alias("retweets"), "lang",
            F.col("in_reply_to_status_id_str").cast("long").alias("replyTo"))
    if shape == "large":
        retweet = F.col("retweeted_status")
        return t.select(
            F.col("id_str").cast("long").alias("id"), "text", api_date("created_at").alias("createdAt"),
            F.col("user.id_str").cast("long").alias("userId"), F.col("user.screen_name").alias("userName"),
            F.col("user.followers_count").cast("long").alias("followers"),
            F.coalesce("user.verified", F.lit(False)).alias("verified"), api_date("user.created_at").alias("joined"),
            F.when(retweet.isNull(), None).otherwise(F.struct(
                retweet.id_str.cast("long").alias("id"), retweet.text.alias("text"),
                api_date(retweet.created_at).alias("createdAt"), retweet.user.screen_name.alias("author"),
            )).alias("retweetOf"),
            F.col("entities.hashtags.text").alias("tags"), "lang",
            F.col("retweet_count").cast("long").alias("retweets"),
            F.col("favorite_count").cast("long").alias("favorites"))
    return t.select(
        F.col("id_str").cast("long").alias("id"), "text", api_date("created_at").alias("createdAt"),
        F.struct(
            F.col("user.id_str").cast("long").alias("id"), F.col("user.name").alias("name"),
            F.col("user.screen_name").alias("screenName"), F.col("user.url").alias("url"),
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
        "lang", F.col("in_reply_to_status_id_str").cast("long").alias("replyTo"))


def with_mappings(spark, shape, lines, binary, level=None):
    from pyspark import StorageLevel

    from mappings_spark import map_json

    return map_json(lines, CONTEXTS[shape], mappings=[os.path.join(ROOT, "Benchmarks", "contexts")],
                    scripts=os.path.join(ROOT, "Benchmarks", "scripts"), binary=binary,
                    storage_level=getattr(StorageLevel, level) if level else None)


class PeakMemory:
    """The largest resident memory of a process and every process under it, sampled."""

    def __init__(self, pid):
        self.pid, self.peak, self.running = pid, 0, True
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()

    @staticmethod
    def resident(pid):
        try:
            with open(f"/proc/{pid}/statm") as statm:
                return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:
            return 0

    def tree(self):
        children = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as stat:
                        parent = int(stat.read().rsplit(")", 1)[1].split()[1])
                    children.setdefault(parent, []).append(int(entry))
                except (OSError, IndexError, ValueError):
                    pass
        found, queue = [], [self.pid]
        while queue:
            pid = queue.pop()
            found.append(pid)
            queue.extend(children.get(pid, []))
        return found

    def sample(self):
        while self.running:
            self.peak = max(self.peak, sum(self.resident(pid) for pid in self.tree()))
            time.sleep(0.05)

    def stop(self):
        self.running = False
        self.thread.join()
        return self.peak


def cpu_seconds(pid):
    """CPU time of a process and of its children it has waited for (user and system)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def session(options):
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(options.master)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.files.maxPartitionBytes", f"{options.partition_mb}m")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", options.memory)
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def child(options):
    """One method, `--runs` times, in this process's Spark."""
    spark = session(options)
    jvm_pid = spark._jvm.ProcessHandle.current().pid()
    memory = PeakMemory(jvm_pid)
    times, cpu, extra = [], [], {}
    for _ in range(options.runs):
        start, start_cpu = time.monotonic(), cpu_seconds(jvm_pid)
        if options.child == "from_json":
            native(options.shape, spark.read.text(options.input)).write.format("noop").mode("overwrite").save()
        else:
            output = with_mappings(spark, options.shape, spark.read.text(options.input), options.binary,
                                   options.storage_level)
            mapped, rejects = output
            mapped.write.format("noop").mode("overwrite").save()
            extra = output.counts()
            extra["rejects"] = rejects.count()
            output.unpersist()
        times.append(time.monotonic() - start)
        cpu.append(cpu_seconds(jvm_pid) - start_cpu)
    print(json.dumps({"method": options.child, "seconds": [round(t, 2) for t in times],
                      "median": round(statistics.median(times), 2), "cpu": [round(t, 1) for t in cpu],
                      "median_cpu": round(statistics.median(cpu), 1), "peak_mib": round(memory.stop() / 2**20),
                      **extra}), flush=True)


def compare(options):
    """The two methods' rows on the first 2,000 records."""
    spark = session(options)
    sample = spark.read.text(options.input).limit(2_000).cache()
    mapped, expected = with_mappings(spark, options.shape, sample, options.binary)[0], native(options.shape, sample)
    print(json.dumps({"sample": mapped.count(), "differing": mapped.exceptAll(expected).count()
                      + expected.exceptAll(mapped).count()}), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("input")
    parser.add_argument("--shape", choices=sorted(CONTEXTS), default="tweet")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "mappings"))
    parser.add_argument("--partition-mb", type=int, default=64)
    parser.add_argument("--memory", default="2g", help="spark.driver.memory (the executor's, in local mode)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--storage-level", help="map_json's storage_level (default: its own)")
    parser.add_argument("--child", choices=["from_json", "map_json", "compare"], help=argparse.SUPPRESS)
    options = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if options.child == "compare":
        return compare(options)
    if options.child:
        return child(options)
    print(json.dumps({"input": options.input, "bytes": os.path.getsize(options.input), "shape": options.shape,
                      "master": options.master, "cores": os.cpu_count(), "load": os.getloadavg()}), flush=True)
    results = {}
    for method in ("from_json", "map_json", "compare"):
        done = subprocess.run([sys.executable, __file__, *sys.argv[1:], "--child", method], capture_output=True,
                              text=True)
        if done.returncode != 0:
            sys.exit(f"{method} failed:\n{done.stderr[-4000:]}")
        results[method] = json.loads(done.stdout.strip().splitlines()[-1])
        print(json.dumps(results[method]), flush=True)
    native_run, mapped_run = results["from_json"], results["map_json"]
    print(f"\n| {options.shape} ({os.path.getsize(options.input) / 2**20:.0f} MiB, {options.master}) "
          f"| time (median of {options.runs}) | CPU time (median) | peak memory |\n|---|---|---|---|")
    for label, run in (("from_json + column expressions", native_run), ("map_json", mapped_run)):
        print(f"| {label} | {run['median']} s | {run['median_cpu']} s | {run['peak_mib']} MiB |")
    print(f"| ratio (from_json / map_json) | {native_run['median'] / mapped_run['median']:.2f}x "
          f"| {native_run['median_cpu'] / mapped_run['median_cpu']:.2f}x | |")
    print(f"\nrows compared: {results['compare']['sample']}, differing: {results['compare']['differing']}; "
          f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
