#!/usr/bin/env python3
"""B13 (CSV): CSV rows of orders mapped into typed JSON lines, Mappings against Python.

    python Benchmarks/csv_bench.py --mappings .build/release/mappings [--size-mb 50] [--runs 5] [--smoke]

Mappings: `mappings stream --from-format csv` with Benchmarks/contexts-csv/orders.mappings on 1
and on 2 workers (the CSV is decoded on the reading thread, the rows mapped on the lanes).
Python: the standard library's `csv.reader` and msgspec, doing the same reshape: each row's
cells converted to the model's types (int, Decimal with its digits, a boolean from yes/no,
an ISO 8601 date, an empty note as null) and encoded as one JSON line (msgspec's encoder, with
decimals as numbers). It needs msgspec (a venv: Benchmarks/run B13 makes one).

Times are CPU seconds (user + system) and wall seconds of a process, the median of --runs
rounds in which the contenders take turns. The outputs are compared (every line parsed, decimals
as text) before any timing counts; a difference stops the run (exit status 1).
"""

import argparse
import csv
import datetime
import decimal
import os
import random
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CONTEXT = os.path.join(HERE, "contexts-csv", "orders.mappings")
NAMES = ["Ann", "Bob", "Chloé", "Dan", "Eve", "Fay", "Gus", "Hana", "Ivo", "Jürgen", "Kai", "Lea"]
NOTES = ["", "", "", "gift wrap, please", 'say "hi"', "leave at the door\nring twice", "fragile"]


def generate(path, size_mb, seed=13):
    """A CSV of orders of about `size_mb` MB: quoted commas, quotes and line feeds, empty notes."""
    rng = random.Random(seed)
    target = int(size_mb * 1e6)
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(["order_id", "customer", "email", "total", "currency", "paid", "placed_at", "items",
                         "country", "note"])
        index = 0
        while out.tell() < target:
            index += 1
            first, last = rng.choice(NAMES), rng.choice(NAMES)
            placed = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(
                seconds=rng.randrange(0, 365 * 86400))
            writer.writerow([
                100000 + index, "%s, %s" % (last, first) if rng.random() < 0.3 else "%s %s" % (first, last),
                "%s.%s@example.com" % (first.lower(), last.lower()), "%d.%02d" % (rng.randrange(1, 5000),
                                                                                 rng.randrange(0, 100)),
                rng.choice(["EUR", "USD", "GBP"]), rng.choice(["yes", "no"]),
                placed.strftime("%Y-%m-%dT%H:%M:%SZ"), rng.randrange(1, 20), rng.choice(["DE", "FR", "US", "JP"]),
                rng.choice(NOTES)])


PEER = r'''
import csv, datetime, decimal, sys
import msgspec

class Order(msgspec.Struct):
    id: int
    customer: str
    email: str
    total: decimal.Decimal
    currency: str
    paid: bool
    placedAt: datetime.datetime
    items: int
    country: str
    note: "str | None"

TRUE = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}
encoder = msgspec.json.Encoder(decimal_format="number")
out = sys.stdout.buffer
with open(sys.argv[1], newline="", encoding="utf-8") as source:
    rows = csv.reader(source)
    next(rows)
    batch = []
    for row in rows:
        order = Order(
            int(row[0]), row[1], row[2], decimal.Decimal(row[3]), row[4], TRUE[row[5].lower()],
            datetime.datetime.fromisoformat(row[6]), int(row[7]), row[8], row[9] or None)
        batch.append(encoder.encode(order))
        if len(batch) == 4096:
            out.write(b"\n".join(batch) + b"\n")
            batch = []
    if batch:
        out.write(b"\n".join(batch) + b"\n")
'''


def run(command, output):
    """Runs `command` writing stdout to `output`: (cpu seconds, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(output, "wb") as out:
        subprocess.run(command, stdout=out, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def canonical(path):
    import json
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line, parse_float=str, parse_int=str) for line in lines]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mappings", required=True)
    parser.add_argument("--size-mb", type=float, default=50)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(HERE), ".build", "benchmark-data"))
    parser.add_argument("--smoke", action="store_true")
    arguments = parser.parse_args()
    if arguments.smoke:
        arguments.size_mb, arguments.runs = 0.25, 1
    os.makedirs(arguments.data_dir, exist_ok=True)
    data = os.path.join(arguments.data_dir, "orders-%gmb-seed13.csv" % arguments.size_mb)
    if not os.path.exists(data):
        generate(data, arguments.size_mb)
    peer = os.path.join(arguments.data_dir, "csv_peer.py")
    with open(peer, "w") as script:
        script.write(PEER)
    contenders = [
        ("mappings stream, 1 worker", [arguments.mappings, "stream", "--mappings", CONTEXT, "--workers", "1", data]),
        ("mappings stream, 2 workers", [arguments.mappings, "stream", "--mappings", CONTEXT, "--workers", "2", data]),
        ("Python csv + msgspec", [sys.executable, peer, data]),
    ]
    outputs = {}
    for name, command in contenders:
        output = os.path.join(arguments.data_dir, "b13-%d.ndjson" % len(outputs))
        run(command, output)
        outputs[name] = canonical(output)
    reference = outputs[contenders[0][0]]
    for name, lines in outputs.items():
        if lines != reference:
            first = next((index for index, (a, b) in enumerate(zip(lines, reference)) if a != b), None)
            print("error: %s's output differs from Mappings' (%d lines, %d; first difference at line %s)" % (
                name, len(lines), len(reference), first), file=sys.stderr)
            return 1
    times = {name: [] for name, _ in contenders}
    for _ in range(arguments.runs):
        for name, command in contenders:
            times[name].append(run(command, os.devnull))
    size = os.path.getsize(data)
    print("B13 CSV: %d orders, %.1f MB (%d runs, medians)" % (len(reference), size / 1e6, arguments.runs))
    peer_cpu = statistics.median(cpu for cpu, _ in times["Python csv + msgspec"])
    peer_wall = statistics.median(wall for _, wall in times["Python csv + msgspec"])
    for name, _ in contenders:
        cpu = statistics.median(value for value, _ in times[name])
        wall = statistics.median(value for _, value in times[name])
        print("  %-28s cpu %7.3f s  wall %7.3f s  %6.1f MB/s  vs Python: %.2fx cpu, %.2fx wall" % (
            name, cpu, wall, size / 1e6 / wall, peer_cpu / cpu, peer_wall / wall))
    return 0


if __name__ == "__main__":
    sys.exit(main())
