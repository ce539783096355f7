#!/usr/bin/env python3
"""B11: small records into SQLite and PostgreSQL, one worker, against what a user would write.

    python Benchmarks/database_bench.py --mappings BIN [--size-mb 50] [--runs 3] [--smoke]

Runs with a Python that has msgspec and psycopg 3 (tools/python-env's .build/venv plus msgspec:
Benchmarks/run B11 installs it there). The small shape (Benchmarks/generate.py) mapped by
$SmallTweet (Benchmarks/contexts/small.mappings) into the table `schema --format sql` gives:

- PostgreSQL (a cluster of its own, tools/postgres-server, fsync off for every contender):
  `mappings stream --to postgresql://… --workers 1`; Python reading the NDJSON with msgspec
  Structs declaring only the fields read (Benchmarks/peers/reshape_msgspec.py's reshape) and
  writing rows with psycopg's `COPY … FROM STDIN` in batches of 5,000; and the floor, `psql
  \\copy` of a CSV of the rows already mapped.
- SQLite (WAL, synchronous NORMAL for every contender): `mappings stream --to sqlite:…`; Python
  with msgspec and the sqlite3 module's executemany, 5,000 rows a transaction.

Times are wall seconds of the whole load (the median of --runs), records per second, and the
ratio to Mappings. Each contender's table is read back and compared with Mappings' first: a
difference stops the run (exit 1).
"""

import argparse
import csv
import datetime
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "peers"))

import generate  # noqa: E402

CONTEXTS = os.path.join(HERE, "contexts")
SCRIPTS = os.path.join(HERE, "scripts")
TABLE = "small_tweet"
COLUMNS = ["id", "created_at", "text", "user", "tags", "retweets", "lang", "reply_to"]


def iso(moment):
    """A date as Mappings writes it: seconds, a fraction only when there is one, Z."""
    moment = moment.astimezone(datetime.timezone.utc)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += (".%06d" % moment.microsecond).rstrip("0")
    return text + "Z"


def peer_rows(path):
    """The rows of the msgspec peer: decode with Structs of the fields read, reshape, and turn
    the output into column values (nested values as JSON text)."""
    import msgspec
    import reshape_msgspec

    decoder = msgspec.json.Decoder(reshape_msgspec.SmallIn)
    encoder = msgspec.json.Encoder()
    with open(path, "rb") as lines:
        for line in lines:
            out = reshape_msgspec.small(decoder.decode(line), False)
            user = out.user
            yield (out.id, iso(out.createdAt), out.text, encoder.encode(user).decode(), encoder.encode(out.tags).decode(),
                   out.retweets, out.lang, out.replyTo)


def timed(function, runs, before):
    times = []
    for _ in range(runs):
        before()
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def normalized(rows):
    """Rows comparable across contenders: JSON columns parsed, dates as text instants."""
    out = []
    for row in rows:
        row = list(row)
        for index in (3, 4):
            if isinstance(row[index], str):
                row[index] = json.loads(row[index])
        if isinstance(row[1], datetime.datetime):
            row[1] = iso(row[1])
        out.append(tuple(row))
    return sorted(out, key=lambda row: row[0])


def contend(contenders, runs, before, table, records):
    """Times each contender (`before` each run) and compares its table with the first's."""
    results, reference = [], None
    for name, function in contenders:
        seconds = timed(function, runs, before)
        rows = table()
        if reference is None:
            reference = rows
            assert len(rows) == records, "%d rows, %d records" % (len(rows), records)
        elif rows != reference:
            different = next((i for i, (a, b) in enumerate(zip(rows, reference)) if a != b), min(len(rows),
                                                                                                    len(reference)))
            raise SystemExit("B11: %s's table differs from Mappings' at row %d (%d rows, %d)" % (
                name, different, len(rows), len(reference)))
        results.append((name, seconds))
    return results


def report(title, rows, records):
    print("\n%s (%d records, wall seconds, median)" % (title, records))
    print("| contender | seconds | records/s | vs Mappings |")
    print("|---|---:|---:|---:|")
    ours = rows[0][1]
    for name, seconds in rows:
        ratio = "—" if name == rows[0][0] else "%.2f×" % (seconds / ours)
        print("| %s | %.3f | %s | %s |" % (name, seconds, format(int(records / seconds), ","), ratio))


def bench_postgres(arguments, path, records, folder):
    import psycopg

    server = os.path.join(ROOT, "tools", "postgres-server")
    cluster = os.path.join(folder, "cluster")
    uri = subprocess.run([server, "start", cluster], check=True, capture_output=True, text=True).stdout.strip()
    try:
        ddl = subprocess.run([arguments.mappings, "schema", "--mappings", CONTEXTS, "--scripts", SCRIPTS, "--context", "$SmallTweet",
                              "--format", "sql", "--dialect", "postgresql"], check=True, capture_output=True,
                             text=True).stdout
        with psycopg.connect(uri, autocommit=True) as connection:
            connection.execute(ddl)

        def truncate():
            with psycopg.connect(uri, autocommit=True) as connection:
                connection.execute('TRUNCATE "%s"' % TABLE)

        def table():
            with psycopg.connect(uri) as connection:
                return normalized(connection.execute(
                    'SELECT %s FROM "%s"' % (", ".join('"%s"::text' % c if c in ("user", "tags") else '"%s"' % c
                                                       for c in COLUMNS), TABLE)).fetchall())

        def ours():
            subprocess.run([arguments.mappings, "stream", "--mappings", CONTEXTS, "--scripts", SCRIPTS, "--context", "$SmallTweet",
                            "--workers", "1", "--to", uri, path], check=True, capture_output=True)

        def peer():
            rows = peer_rows(path)
            with psycopg.connect(uri) as connection:
                done = False
                while not done:
                    with connection.transaction(), connection.cursor().copy(
                            'COPY "%s" (%s) FROM STDIN' % (TABLE, ", ".join('"%s"' % c for c in COLUMNS))) as copy:
                        for count, row in enumerate(rows, 1):
                            copy.write_row(row)
                            if count == 5000:
                                break
                        else:
                            done = True

        csv_path = os.path.join(folder, "mapped.csv")
        with open(csv_path, "w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out)
            for row in peer_rows(path):
                writer.writerow(["" if value is None else value for value in row])

        def floor():
            subprocess.run(["psql", uri, "-q", "-c", "\\copy \"%s\" (%s) FROM '%s' CSV" % (
                TABLE, ", ".join('"%s"' % c for c in COLUMNS), csv_path)], check=True, capture_output=True)

        results = contend([("mappings stream --to postgresql, 1 worker", ours),
                           ("python: msgspec + psycopg COPY", peer), ("psql \\copy of the mapped CSV (floor)", floor)],
                          arguments.runs, truncate, table, records)
        report("B11 PostgreSQL", results, records)
    finally:
        subprocess.run([server, "remove", cluster], capture_output=True)


def bench_sqlite(arguments, path, records, folder):
    database = os.path.join(folder, "small.db")

    def fresh():
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(database + suffix):
                os.remove(database + suffix)
        ddl = subprocess.run([arguments.mappings, "schema", "--mappings", CONTEXTS, "--scripts", SCRIPTS, "--context", "$SmallTweet",
                              "--format", "sql", "--dialect", "sqlite"], check=True, capture_output=True,
                             text=True).stdout
        with sqlite3.connect(database) as connection:
            connection.execute("PRAGMA journal_mode = WAL")
            connection.executescript(ddl)

    def table():
        with sqlite3.connect(database) as connection:
            return normalized(connection.execute(
                'SELECT %s FROM "%s"' % (", ".join('"%s"' % c for c in COLUMNS), TABLE)).fetchall())

    def ours():
        subprocess.run([arguments.mappings, "stream", "--mappings", CONTEXTS, "--scripts", SCRIPTS, "--context", "$SmallTweet",
                        "--workers", "1", "--to", "sqlite:" + database, path], check=True, capture_output=True)

    def peer():
        connection = sqlite3.connect(database, isolation_level=None)
        connection.execute("PRAGMA synchronous = NORMAL")
        insert = 'INSERT INTO "%s" (%s) VALUES (%s)' % (TABLE, ", ".join('"%s"' % c for c in COLUMNS),
                                                       ", ".join("?" * len(COLUMNS)))
        batch = []
        for row in peer_rows(path):
            batch.append(row)
            if len(batch) == 5000:
                connection.execute("BEGIN")
                connection.executemany(insert, batch)
                connection.execute("COMMIT")
                batch = []
        connection.execute("BEGIN")
        connection.executemany(insert, batch)
        connection.execute("COMMIT")
        connection.close()

    results = contend([("mappings stream --to sqlite, 1 worker", ours),
                       ("python: msgspec + sqlite3 executemany", peer)], arguments.runs, fresh, table, records)
    report("B11 SQLite", results, records)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mappings", required=True, help="the mappings binary (a release build)")
    parser.add_argument("--size-mb", type=float, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data-dir", default=os.path.join(ROOT, ".build", "benchmark-data"))
    parser.add_argument("--smoke", action="store_true")
    arguments = parser.parse_args()
    if arguments.smoke:
        arguments.size_mb, arguments.runs = 0.25, 1
    os.makedirs(arguments.data_dir, exist_ok=True)
    path = os.path.join(arguments.data_dir, "b11-small-%gmb.ndjson" % arguments.size_mb)
    if not os.path.exists(path):
        with open(path, "wb") as out:
            generate.generate(out, int(arguments.size_mb * 1e6), seed=7, shape="small")
    with open(path, "rb") as lines:
        records = sum(1 for line in lines if line.strip())
    with tempfile.TemporaryDirectory() as folder:
        bench_sqlite(arguments, path, records, folder)
        bench_postgres(arguments, path, records, folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
