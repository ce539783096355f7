"""`mappings stream --to`: records into SQLite and PostgreSQL read back with their own clients,
upserts by @identity, tables that do not fit, and exactly once across kill -9 at random moments
and a database that goes away (docs/operations.md, "Into a database")."""
import json
import os
import random
import re
import signal
import subprocess
import time

import pytest

from conftest import CONTEXTS, ROOT, Cluster, binary, mappings, order, orders
from destinations import Postgres, SQLite, compare, records


@pytest.fixture(params=["sqlite", "postgresql"])
def destination(request, tmp_path):
    if request.param == "sqlite":
        return SQLite(tmp_path / "shop.db")
    return Postgres(request.getfixturevalue("postgres"))


def stream(context, *arguments, check=None):
    return mappings("stream", "--mappings", CONTEXTS, "--context", context, *arguments, check=check)


def mapped(context, path):
    """What `mappings stream` writes of `path`: the records a table should hold."""
    return records(stream(context, str(path)).stdout)


def test_every_kind_of_value_reads_back_as_the_stream_writes_it(destination, tmp_path):
    source = orders(tmp_path / "orders.ndjson", 400, seed=1, bad_every=41)
    done = stream("$OrderEvent", "--to", destination.uri, "--create-tables", "--job", "kinds",
                  "--rejects-table", "rejects", str(source), check=1)
    assert "committed 391" in done.stderr, done.stderr
    expected = sorted(mapped("$OrderEvent", source), key=lambda record: (record["id"], record["number"]))
    compare(destination.table("order"), expected)
    rejected = [line for (line,) in destination.query('SELECT "line" FROM "rejects" ORDER BY "line"')]
    assert rejected == list(range(41, 401, 41))
    issues = json.loads(destination.query('SELECT "issues"::text FROM "rejects" WHERE "line" = 41')[0][0]
                        if destination.dialect == "postgresql"
                        else destination.query('SELECT "issues" FROM "rejects" WHERE "line" = 41')[0][0])
    assert issues[0]["kind"] == "missing required value" and issues[0]["path"] == "$.number"
    assert destination.query('SELECT "file", "line", "records", "rejected" FROM "mappings_offsets"') == [
        (str(source), 401, 391, 9)]
    # Started again, the job has nothing left to do.
    again = stream("$OrderEvent", "--to", destination.uri, "--job", "kinds", "--rejects-table", "rejects",
                   str(source), check=0)
    assert "read 0, written 0, rejected 0, committed 0" in again.stderr
    assert len(destination.table("order")) == 391


def test_a_context_with_an_identity_upserts_and_the_last_record_wins(destination, tmp_path):
    first = orders(tmp_path / "first.ndjson", 500, seed=2, identities=lambda number: number % 37)
    stream("$Order", "--to", destination.uri, "--create-tables", "--batch", "10", "--job", "first", str(first),
           check=0)
    latest = {record["id"]: record for record in mapped("$Order", first)}
    compare(destination.table("order"), [latest[key] for key in sorted(latest)])
    # A second stream changes some of them and adds others, one transaction in all.
    second = orders(tmp_path / "second.ndjson", 60, seed=3, identities=lambda number: number % 45)
    stream("$Order", "--to", destination.uri, "--job", "second", str(second), check=0)
    for record in mapped("$Order", second):
        latest[record["id"]] = record
    compare(destination.table("order"), [latest[key] for key in sorted(latest)])


def test_a_table_that_does_not_fit_the_context_is_refused_before_any_row(destination, tmp_path):
    double = "REAL" if destination.dialect == "sqlite" else "double precision"
    destination.execute(f'CREATE TABLE "order" ("id" bigint, "number" text, "total" {double}, "mandatory" text NOT NULL)')
    source = orders(tmp_path / "orders.ndjson", 20, seed=4)
    done = stream("$OrderEvent", "--to", destination.uri, "--job", "misfit", str(source), check=2)
    assert 'the table "order" does not fit the context' in done.stderr
    assert 'its column "total" is' in done.stderr and "which does not hold total's values as written" in done.stderr
    assert 'it has no column "counts"' in done.stderr
    assert 'its column "mandatory" is NOT NULL without a default' in done.stderr
    assert destination.query('SELECT count(*) FROM "order"') == [(0,)]


def test_schema_sql_prints_the_table_the_stream_fills(destination, tmp_path):
    ddl = mappings("schema", "--mappings", CONTEXTS, "--context", "$Order", "--format", "sql", "--dialect",
                   destination.dialect, check=0).stdout
    destination.execute(ddl)
    source = orders(tmp_path / "orders.ndjson", 50, seed=5)
    stream("$Order", "--to", destination.uri, str(source), check=0)
    assert destination.query('SELECT count(*) FROM "order"') == [(50,)]


def test_a_value_the_database_would_change_rejects_its_record_saying_why(destination, tmp_path):
    rng = random.Random(6)
    good = [order(rng, number) for number in range(1, 4)]
    for payload in good:
        payload.pop("weight", None)
    # -0.0: SQLite's REAL reads it back as 0.0; PostgreSQL's float8 keeps its sign.
    negative_zero = dict(good[0], id=10, weight=-0.0)
    # U+0000: PostgreSQL's text and jsonb cannot hold it; SQLite's text can.
    nul_text = dict(good[0], id=11, note="a\u0000b")
    nul_json = dict(good[0], id=12, extra={"k": "a\u0000b"})
    path = tmp_path / "odd.ndjson"
    path.write_text("".join(json.dumps(payload) + "\n" for payload in [*good, negative_zero, nul_text, nul_json]),
                    encoding="utf-8")
    stream("$OrderEvent", "--to", destination.uri, "--create-tables", "--rejects", str(tmp_path / "rejects"),
           str(path), check=1)
    rejects = [json.loads(line) for line in (tmp_path / "rejects").read_text().splitlines()]
    messages = {reject["line"]: reject["issues"][0]["message"] for reject in rejects}
    for reject in rejects:
        assert reject["issues"][0]["kind"] == "output not in schema"
    if destination.dialect == "sqlite":
        assert set(messages) == {4}, messages
        assert "$.weight: expected a number SQLite's REAL keeps (it reads -0.0 back as 0.0), found -0.0" in messages[4]
        assert destination.query('SELECT "note" FROM "order" WHERE "id" = 11') == [("a\u0000b",)]
    else:
        assert set(messages) == {5, 6}, messages
        assert "$.note: PostgreSQL text cannot hold the character U+0000" in messages[5]
        assert "$.extra: PostgreSQL jsonb cannot hold the character U+0000" in messages[6]
        (weight,), = destination.query('SELECT "weight" FROM "order" WHERE "id" = 10')
        assert weight == 0 and str(weight) == "-0.0"
    assert destination.query('SELECT count(*) FROM "order"') == [(6 - len(messages),)]


def test_decimals_read_back_with_the_digits_and_scale_map_writes(destination, tmp_path):
    rng = random.Random(7)
    totals = ["1.10", "-0.0", "0.000", "123456789012345678.90", '"1.10"', '"-0.500"', "1.0E+2", "100"]
    lines = []
    for number, total in enumerate(totals, start=1):
        payload = order(rng, number)
        payload["lines"] = [{"sku": "S", "qty": 1, "price": "__price__"}]
        text = json.dumps(payload).replace('"total": ' + json.dumps(payload["total"]), '"total": ' + total)
        lines.append(text.replace('"__price__"', total) + "\n")
    path = tmp_path / "decimals.ndjson"
    path.write_text("".join(lines), encoding="utf-8")
    # `map`'s output, a record at a time: the text of each decimal as written.
    written = []
    for line in lines:
        output = mappings("map", "--mappings", CONTEXTS, "--context", "$OrderEvent", input=line, check=0).stdout
        written.append(re.search(r'"total":(-?[0-9.]+)', output).group(1))
    assert written == ["1.10", "-0.0", "0.000", "123456789012345678.90", "1.10", "-0.500", "100", "100"]
    negative_zero = destination.dialect == "postgresql"  # numeric has no negative zero: an issue
    stream("$OrderEvent", "--to", destination.uri, "--create-tables", "--rejects", str(tmp_path / "rejects"),
           str(path), check=1 if negative_zero else 0)
    expected = mapped("$OrderEvent", path)
    if negative_zero:
        rejects = [json.loads(line) for line in (tmp_path / "rejects").read_text().splitlines()]
        assert [reject["line"] for reject in rejects] == [2]
        assert rejects[0]["issues"][0]["message"].startswith(
            'the record\'s output does not fit the columns of the table "order": $.total: expected a decimal '
            "numeric keeps (it reads -0.0 back as 0.0), found -0.0 (byte "), rejects
        expected = [record for record in expected if record["id"] != 2]
    compare(destination.table("order"), sorted(expected, key=lambda record: record["id"]))
    stored = dict(destination.query('SELECT "id", "total" FROM "order"'))
    for number, text in enumerate(written, start=1):
        if number in stored:
            assert str(stored[number]) == text, f"id {number}: {stored[number]!r} stored, {text} mapped"


def run_with_kills(arguments, timing, rng, kills, progress, total, reset):
    """Runs the stream once uninterrupted to time it, then again and again, each run killed
    (SIGKILL) at a random moment within that time, `kills` times, then lets it finish. Returns
    its last exit status, and the records committed after each kill (`progress()`). A run that
    finishes before its kill while no kill has yet come in the middle (the timed run was slower:
    a busy machine) proves nothing: the job starts over (`reset()`), timed by that run."""
    started = time.monotonic()
    subprocess.run([binary(), *timing], capture_output=True, timeout=300)
    duration = time.monotonic() - started
    seen = []

    def middle():
        return any(0 < committed < total for committed in seen)

    # At least `kills`, and more (up to 30) until one of them came while records were committed.
    for attempt in range(30):
        if attempt >= kills and middle():
            break
        started = time.monotonic()
        process = subprocess.Popen([binary(), *arguments], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            process.wait(timeout=rng.uniform(0.15, 0.85) * duration)
            if process.returncode in (0, 1):
                if middle():
                    return process.returncode, seen
                duration = time.monotonic() - started
                reset()
                continue
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.wait()
        seen.append(progress())
    return subprocess.run([binary(), *arguments], capture_output=True, timeout=300).returncode, seen


@pytest.mark.parametrize("workers", [1, 2])
def test_kill_9_at_random_moments_loses_and_doubles_nothing(destination, tmp_path, workers):
    source = orders(tmp_path / "orders.ndjson", 20000, seed=10 + workers, bad_every=97)
    common = ["stream", "--mappings", CONTEXTS, "--context", "$OrderEvent", "--create-tables", "--batch", "25",
              "--workers", str(workers)]
    # The run that times the stream writes into a table of its own.
    timing = [*common, "--to", destination.uri, "--table", "timing", str(source)]
    arguments = [*common, "--to", destination.uri, "--job", "killed", "--rejects-table", "rejects", str(source)]

    def progress():
        rows = destination.query('SELECT "records" FROM "mappings_offsets" WHERE "job" = \'killed\'')
        return rows[0][0] if rows else 0

    def reset():
        for table in ("order", "rejects"):
            destination.execute(f'DELETE FROM "{table}"')
        destination.execute('DELETE FROM "mappings_offsets" WHERE "job" = \'killed\'')

    expected = sorted(mapped("$OrderEvent", source), key=lambda record: (record["id"], record["number"]))
    status, seen = run_with_kills(arguments, timing, random.Random(workers), kills=8, progress=progress,
                                  total=len(expected), reset=reset)
    assert status == 1  # the bad lines are rejects
    # Some of the kills came in the middle: after them, part of the input was committed.
    assert any(0 < committed < len(expected) for committed in seen), seen
    rows = destination.table("order")
    assert len({row[0] for row in rows}) == len(rows), "a record written twice"
    compare(rows, expected)
    rejected = [line for (line,) in destination.query('SELECT "line" FROM "rejects" ORDER BY "line"')]
    assert rejected == list(range(97, 20001, 97))
    assert destination.query(
        'SELECT "line", "records", "rejected" FROM "mappings_offsets" WHERE "job" = \'killed\'') == [
        (20001, len(expected), len(rejected))]


@pytest.fixture
def own_cluster(tmp_path):
    """A cluster this test may stop and start."""
    cluster = Cluster(tmp_path / "cluster")
    cluster.start()
    yield cluster
    cluster.remove()


def away(uri, source, *extra):
    return [binary(), "stream", "--mappings", CONTEXTS, "--context", "$OrderEvent", "--to", uri, "--create-tables",
            "--job", "away", "--batch", "20", *extra, str(source)]


def start_stream(uri, source, *extra):
    return subprocess.Popen(away(uri, source, *extra), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def committed(uri):
    try:
        rows = Postgres(uri).query('SELECT "records" FROM "mappings_offsets"')
        return rows[0][0] if rows else 0
    except Exception:  # the table is not there yet
        return 0


def test_a_database_gone_for_good_stops_the_stream_at_its_last_commit(own_cluster, tmp_path):
    uri = own_cluster.database()
    source = orders(tmp_path / "orders.ndjson", 40000, seed=20)
    process = start_stream(uri, source, "--retry-for", "2")
    while committed(uri) == 0:
        time.sleep(0.05)
    own_cluster.stop()
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 69, stderr
    assert "the database cannot be reached" in stderr and "gave up after 2 seconds" in stderr, stderr
    assert "the job goes on from" in stderr
    own_cluster.restart()
    before = committed(uri)
    assert 0 < before < 40000
    done = subprocess.run(away(uri, source), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    compare(Postgres(uri).table("order"), sorted(mapped("$OrderEvent", source), key=lambda record: record["id"]))


def test_a_database_back_within_retry_for_loses_nothing(own_cluster, tmp_path):
    uri = own_cluster.database()
    source = orders(tmp_path / "orders.ndjson", 40000, seed=21)
    process = start_stream(uri, source, "--retry-for", "60")
    while committed(uri) == 0:
        time.sleep(0.05)
    own_cluster.stop()
    time.sleep(1.5)
    own_cluster.restart()
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    assert "the database cannot be reached" in stderr and "trying again in" in stderr, stderr
    compare(Postgres(uri).table("order"), sorted(mapped("$OrderEvent", source), key=lambda record: record["id"]))


def job_position(destination):
    """The records the (only) job committed and the line it goes on from; (0, 1) before its first commit."""
    try:
        rows = destination.query('SELECT "records", "line" FROM "mappings_offsets"')
        return rows[0] if rows else (0, 1)
    except Exception:  # the table is not there yet
        return (0, 1)


def test_a_job_runs_in_one_stream_at_a_time(destination, tmp_path):
    source = orders(tmp_path / "orders.ndjson", 20000, seed=22)
    arguments = [binary(), "stream", "--mappings", CONTEXTS, "--context", "$OrderEvent", "--to", destination.uri,
                 "--create-tables", "--job", "once", "--batch", "20", str(source)]
    first = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    while job_position(destination)[0] == 0 and first.poll() is None:
        time.sleep(0.02)
    second = subprocess.run(arguments, capture_output=True, text=True, timeout=60)
    assert first.wait(timeout=300) == 0
    assert second.returncode == 2, second.stderr
    assert 'the job "once" is running in another stream' in second.stderr
    assert destination.query('SELECT count(*) FROM "order"') == [(20000,)]


def test_sigterm_commits_what_was_mapped_and_the_job_goes_on_from_there(destination, tmp_path):
    source = orders(tmp_path / "orders.ndjson", 20000, seed=23, bad_every=89)
    arguments = [binary(), "stream", "--mappings", CONTEXTS, "--context", "$OrderEvent", "--to", destination.uri,
                 "--create-tables", "--job", "term", "--batch", "20", "--rejects-table", "rejects", str(source)]
    first = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    while job_position(destination)[0] == 0 and first.poll() is None:
        time.sleep(0.02)
    first.send_signal(signal.SIGTERM)
    _, stderr = first.communicate(timeout=60)
    if first.returncode in (0, 1):
        pytest.skip("the stream ended before the signal")
    assert first.returncode == 75, stderr
    assert "stopped by SIGTERM" in stderr and "the job goes on from" in stderr, stderr
    committed, line = job_position(destination)
    # Everything read before the stop was committed: the summary's place is the table's.
    assert f"{source}:{line} when started again" in stderr, stderr
    assert 0 < committed < 20000
    again = subprocess.run(arguments, capture_output=True, text=True, timeout=300)
    assert again.returncode == 1, again.stderr
    expected = sorted(mapped("$OrderEvent", source), key=lambda record: (record["id"], record["number"]))
    compare(destination.table("order"), expected)
    rejected = [line for (line,) in destination.query('SELECT "line" FROM "rejects" ORDER BY "line"')]
    assert rejected == list(range(89, 20001, 89))


EXAMPLE = os.path.join(ROOT, ".build", "swifthost-examples", "debug", "example-database")


def example_database(destination):
    """Runs Examples/SwiftHost's `example-database` (built when missing, as the suite builds it)
    from the repository's root, as docs/swift.md says."""
    if not os.path.exists(EXAMPLE):
        subprocess.run(["swift", "build", "--package-path", os.path.join(ROOT, "Examples", "SwiftHost"),
                        "--scratch-path", os.path.join(ROOT, ".build", "swifthost-examples"),
                        "--product", "example-database", "-Xswiftc", "-gnone"], check=True, capture_output=True)
    return subprocess.run([EXAMPLE, destination], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_a_swift_host_writes_through_the_same_sink_and_its_job_goes_on(destination):
    tweets = os.path.join(ROOT, "Examples", "pipeline", "tweets.ndjson")
    first = example_database(destination.uri)
    assert first.returncode == 0, first.stderr
    assert f"read 6, written 3, rejected 3; the job stands at Examples/pipeline/tweets.ndjson:7 " \
           f"(byte {os.path.getsize(tweets)})" in first.stdout, first.stdout
    expected = records(mappings("stream", "--mappings", os.path.join(ROOT, "contexts"), "--scripts",
                                os.path.join(ROOT, "scripts"), "--context", "$TweetModel", tweets).stdout)
    stored = destination.query('SELECT "identifier", "message", "retweets" FROM "tweet_model" ORDER BY "identifier"')
    assert [tuple(row) for row in stored] == [
        (record["identifier"], record["message"], record["retweets"]) for record in expected]
    assert [line for (line,) in destination.query('SELECT "line" FROM "rejects" ORDER BY "line"')] == [3, 4, 5]
    again = example_database(destination.uri)
    assert again.returncode == 0, again.stderr
    assert "read 0, written 0, rejected 0" in again.stdout
    assert len(destination.query('SELECT 1 FROM "tweet_model"')) == 3
