"""Structured Streaming with map_json: each micro-batch of NDJSON files that lands in INPUT is
mapped in `foreachBatch`, the mapped records appended to OUTPUT/mapped (Parquet) and the rejects
to OUTPUT/rejects (JSON), with the batch's counts checked before anything is written.

    python integrations/spark/examples/streaming.py INPUT OUTPUT [BINARY]

It stops once the files already there are processed (`availableNow`); drop the trigger to
keep it running. Run from the repository's root (the shipped contexts and scripts).
"""

import sys

from pyspark.sql import SparkSession

from mappings_spark import map_json

source, target = sys.argv[1], sys.argv[2]
binary = sys.argv[3] if len(sys.argv) > 3 else ".build/release/mappings"
spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()


def process(batch, batch_id):
    """Maps one micro-batch. A batch Spark runs again after a failure maps the same lines to the
    same rows: writes keyed by batch_id (or an idempotent sink) keep the output exact."""
    output = map_json(batch, "$TweetModel", mappings=["contexts"], scripts="scripts", binary=binary)
    mapped, rejects = output
    counts = output.counts()  # raises when a partition's counts do not reconcile
    mapped.write.mode("append").parquet(f"{target}/mapped")
    rejects.write.mode("append").json(f"{target}/rejects")
    output.unpersist()
    print(f"batch {batch_id}: read {counts['read']}, written {counts['written']}, rejected {counts['rejected']}")


query = (
    spark.readStream.text(source)
    .writeStream.foreachBatch(process)
    .option("checkpointLocation", f"{target}/checkpoint")
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
