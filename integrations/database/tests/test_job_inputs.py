"""What a job believes about its input, tried as a hostile user would (issue: "jobs lose
nothing, round 4"): standard input that is a new stream, a file still being written (each line
in two writes) while runs are killed, a file rotated by logrotate's create or copytruncate, a
lock got round through a link or under a running stream, names the database cannot keep.
docs/operations.md, "Into a database" and "Rotated and growing files"."""
import os
import random
import signal
import subprocess
import threading
import time

import pytest

from conftest import CONTEXTS, binary, mappings, orders
from destinations import Postgres, SQLite, compare, records


@pytest.fixture(params=["sqlite", "postgresql"])
def destination(request, tmp_path):
    if request.param == "sqlite":
        return SQLite(tmp_path / "shop.db")
    return Postgres(request.getfixturevalue("postgres"))


def job_arguments(destination, *extra, name="daily"):
    return ["stream", "--mappings", CONTEXTS, "--context", "$OrderEvent", "--to", destination.uri,
            "--create-tables", "--job", name, *extra]


def job(destination, *extra, input=None, check=None, name="daily"):
    return mappings(*job_arguments(destination, *extra, name=name), input=input, check=check)


def offsets(destination):
    return [tuple(row) for row in destination.query(
        'SELECT "file", "line", "records", "rejected" FROM "mappings_offsets" ORDER BY "job"')]


def mapped(*paths):
    """What `mappings stream` writes of the files, in the table's order."""
    out = []
    for path in paths:
        out += records(mappings("stream", "--mappings", CONTEXTS, "--context", "$OrderEvent", str(path)).stdout)
    return sorted(out, key=lambda record: (record["id"], record["number"]))


def count(destination):
    return destination.query('SELECT count(*) FROM "order"')[0][0]


def test_standard_input_of_another_run_is_refused_not_skipped(destination, tmp_path):
    a = orders(tmp_path / "a.ndjson", 300, seed=31)
    b = orders(tmp_path / "b.ndjson", 200, seed=32, identities=lambda number: 1000 + number)
    c = orders(tmp_path / "c.ndjson", 50, seed=33, identities=lambda number: 2000 + number)
    job(destination, input=a.read_text(), check=0)
    assert offsets(destination) == [("-", 301, 300, 0)]
    # A new stream on standard input: its first 300 lines were skipped before.
    second = job(destination, input=b.read_text(), check=2)
    assert "standard input cannot be told from another stream, so no line of it is skipped" in second.stderr
    assert "--job-input continue" in second.stderr and "--job-input new" in second.stderr
    # An empty one is refused too: not a silent exit 0 that read nothing.
    job(destination, input="", check=2)
    assert count(destination) == 300
    # It continues the last one: nothing skipped, its lines numbered on.
    job(destination, "--job-input", "continue", input=b.read_text(), check=0)
    assert offsets(destination) == [("-", 501, 500, 0)]
    # A new input: from its first line.
    new = job(destination, "--job-input", "new", input=c.read_text(), check=0)
    assert "--job-input new maps the inputs from their first line" in new.stderr
    assert offsets(destination) == [("-", 51, 550, 0)]
    compare(destination.table("order"), mapped(a, b, c))
    # `continue` is for standard input: a file is found by its identity.
    refused = job(destination, "--job-input", "continue", str(a), check=2)
    assert "--job-input continue is for standard input" in refused.stderr
    # A job that has not run reads standard input from its first line without being told.
    job(destination, input=a.read_text(), check=0, name="fresh")
    assert ("-", 301, 300, 0) in offsets(destination)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_last_line_without_its_line_feed_is_left_for_the_next_run(destination, tmp_path, workers):
    source = orders(tmp_path / "all.ndjson", 150, seed=34)
    text = source.read_bytes()
    lines = text.splitlines(keepends=True)
    growing = tmp_path / "growing.ndjson"
    half = len(lines[100]) // 2
    growing.write_bytes(b"".join(lines[:100]) + lines[100][:half])
    first = job(destination, "--workers", str(workers), str(growing), check=0)
    assert f"{growing}:101 has no line feed yet ({half} bytes): left for the next run" in first.stderr
    assert offsets(destination) == [(str(growing), 101, 100, 0)]
    with open(growing, "ab") as out:
        out.write(lines[100][half:] + b"".join(lines[101:]))
    job(destination, "--workers", str(workers), str(growing), check=0)
    assert offsets(destination) == [(str(growing), 151, 150, 0)]
    compare(destination.table("order"), mapped(source))
    assert f"the job goes on from {growing}:151 when started again" not in first.stderr
    assert f"the job goes on from {growing}:101 when started again" in first.stderr
    # --resume-from waits for the line end too, and says where to go on.
    resumed = mappings("stream", "--mappings", CONTEXTS, "--context", "$OrderEvent", "--workers", str(workers),
                       "--resume-from", f"{growing}:101", str(growing), check=0)
    assert len(records(resumed.stdout)) == 50
    # An input followed by another is whole: its last line ends with it.
    growing.write_bytes(b"".join(lines[:100]) + lines[100].rstrip(b"\n"))
    both = mappings("stream", "--mappings", CONTEXTS, "--context", "$OrderEvent", "--workers", str(workers),
                    "--resume-from", f"{growing}:1", str(growing), str(source), check=0)
    assert len(records(both.stdout)) == 101 + 150
    # Without a job, a file's last line ends with the file, as before.
    cut = tmp_path / "cut.ndjson"
    cut.write_bytes(text.rstrip(b"\n"))
    plain = mappings("stream", "--mappings", CONTEXTS, "--context", "$OrderEvent", "--workers", str(workers),
                     str(cut), check=0)
    assert len(records(plain.stdout)) == 150


def test_a_file_written_while_the_job_is_killed_maps_every_record_once(destination, tmp_path):
    source = orders(tmp_path / "all.ndjson", 3000, seed=35)
    lines = source.read_bytes().splitlines(keepends=True)
    growing = tmp_path / "growing.ndjson"
    growing.write_bytes(b"")
    rng = random.Random(35)

    def produce():
        # Each line in two write() calls, the second a moment later: a reader may find half a line.
        descriptor = os.open(growing, os.O_WRONLY | os.O_APPEND)
        try:
            for line in lines:
                cut = rng.randrange(1, len(line))
                os.write(descriptor, line[:cut])
                time.sleep(0.0004)
                os.write(descriptor, line[cut:])
        finally:
            os.close(descriptor)

    producer = threading.Thread(target=produce)
    producer.start()
    arguments = [binary(), *job_arguments(destination, "--batch", "10", "--workers", "2", str(growing))]
    runs = kills = 0
    while producer.is_alive() or runs < 3:
        process = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            _, stderr = process.communicate(timeout=rng.uniform(0.05, 0.6))
            assert process.returncode == 0, stderr
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.communicate()
            kills += 1
        runs += 1
    producer.join()
    job(destination, "--workers", "2", str(growing), check=0)
    assert runs >= 3
    assert offsets(destination) == [(str(growing), 3001, 3000, 0)]
    compare(destination.table("order"), mapped(source))


@pytest.mark.parametrize("rotation", ["create", "copytruncate"])
def test_a_rotated_file_is_refused_alone_and_found_by_its_identity(destination, tmp_path, rotation):
    first = orders(tmp_path / "first.ndjson", 230, seed=36).read_bytes().splitlines(keepends=True)
    after = orders(tmp_path / "after.ndjson", 70, seed=37, identities=lambda number: 1000 + number).read_bytes()
    log = tmp_path / "app.log"
    rotated = tmp_path / "app.log.1"
    log.write_bytes(b"".join(first[:200]))
    job(destination, str(log), check=0)
    if rotation == "create":
        # The file renamed, its writer still appending to it, a new one in its place.
        os.rename(log, rotated)
        with open(rotated, "ab") as out:
            out.write(b"".join(first[200:]))
    else:
        # The file copied, then cut to nothing and written on.
        with open(log, "ab") as out:
            out.write(b"".join(first[200:]))
        rotated.write_bytes(log.read_bytes())
        os.truncate(log, 0)
    with open(log, "ab") as out:
        out.write(after)
    alone = job(destination, str(log), check=2)
    assert "Was it rotated, replaced or truncated?" in alone.stderr, alone.stderr
    assert f"--job daily {log}.1 {log}" in alone.stderr
    assert count(destination) == 200
    both = job(destination, str(rotated), str(log), check=0)
    found = "the same file, renamed since" if rotation == "create" else "a copy of it, the same bytes up to where"
    assert f"--job daily stopped in {log}, and goes on in {rotated}: {found}" in both.stderr, both.stderr
    assert offsets(destination) == [(str(log), 71, 300, 0)]
    compare(destination.table("order"), mapped(tmp_path / "first.ndjson", tmp_path / "after.ndjson"))
    # Replaced by a file of other bytes: refused, unless the user says it is new.
    log.write_bytes(b"".join(first[:80]))
    job(destination, str(log), check=2)
    job(destination, "--job-input", "new", str(log), check=0)
    assert offsets(destination) == [(str(log), 81, 380, 0)]


def started(destination, *extra):
    """The job started in the background, once it has committed a batch (or ended)."""
    process = subprocess.Popen([binary(), *job_arguments(destination, *extra)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    while process.poll() is None:
        try:
            if destination.query('SELECT "records" FROM "mappings_offsets"'):
                break
        except Exception:  # the table is not there yet
            pass
        time.sleep(0.02)
    return process


def test_a_link_to_the_database_shares_its_lock_and_no_lock_file_outlives_a_run(tmp_path):
    source = orders(tmp_path / "orders.ndjson", 20000, seed=38)
    database = SQLite(tmp_path / "cc2.db")
    os.symlink(tmp_path / "cc2.db", tmp_path / "link.db")
    linked = SQLite(tmp_path / "link.db")
    first = started(database, "--batch", "20", str(source))
    second = job(linked, "--batch", "20", str(source))
    assert first.wait(timeout=300) == 0
    assert second.returncode == 2, second.stderr
    assert 'the job "daily" is running in another stream' in second.stderr
    assert count(database) == 20000
    assert [name for name in os.listdir(tmp_path) if name.endswith(".lock")] == []


def test_a_job_moved_under_a_running_stream_stops_it_before_a_record_is_written_twice(destination, tmp_path):
    source = orders(tmp_path / "orders.ndjson", 20000, seed=39)
    process = started(destination, "--batch", "20", str(source))
    # Another writer (round any lock) moves the job.
    destination.execute('UPDATE "mappings_offsets" SET "line" = "line" + 1000000')
    _, stderr = process.communicate(timeout=300)
    if process.returncode == 0:
        pytest.skip("the stream ended before the job was moved")
    assert process.returncode == 2, stderr
    assert 'the job "daily" no longer stands where this stream started it' in stderr, stderr
    # Every row written is one the offsets count: the batch after the move was not written.
    assert count(destination) == destination.query('SELECT "records" FROM "mappings_offsets"')[0][0]


def test_names_the_database_cannot_keep_are_refused_before_anything(destination, tmp_path):
    source = orders(tmp_path / "orders.ndjson", 10, seed=40)
    for name, message in [("", "--job takes a name, not an empty one"),
                          ("tab\there", "holds a control character")]:
        refused = job(destination, str(source), name=name, check=2)
        assert message in refused.stderr
    memory = mappings("stream", "--mappings", CONTEXTS, "--context", "$OrderEvent", "--to", "sqlite::memory:",
                      "--job", "daily", str(source), check=2)
    assert "a database in memory, gone with the stream" in memory.stderr
    if destination.dialect == "postgresql":
        long = "t" * 64
        refused = job(destination, "--table", long, str(source), check=2)
        assert f'"{long}" is 64 bytes, and PostgreSQL keeps 63 of an identifier' in refused.stderr
        schema = mappings("schema", "--mappings", CONTEXTS, "--context", "$OrderEvent", "--format", "sql",
                          "--dialect", "postgresql", "--table", long, check=2)
        assert "PostgreSQL keeps 63" in schema.stderr
        job(destination, "--table", "t" * 63, str(source), check=0)


def test_rejects_are_counted_in_the_offsets_without_a_rejects_table(destination, tmp_path):
    source = orders(tmp_path / "orders.ndjson", 400, seed=41, bad_every=41)
    job(destination, "--rejects", str(tmp_path / "rejects.ndjson"), str(source), check=1)
    assert offsets(destination) == [(str(source), 401, 391, 9)]
    assert len((tmp_path / "rejects.ndjson").read_text().splitlines()) == 9
