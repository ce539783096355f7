"""Corrupt Avro — flipped bytes, cut files, messages cut short — never crashes the tool nor
hangs it: each run ends by itself with a status of its own (0 mapped, 1 some records rejected,
2 an input that cannot be read past), the records that can be read are read, and every
problem is on stderr or a reject with its byte offset."""
import io
import json
import random

import fastavro
import pytest

from conftest import SCHEMA, mappings, record
from test_interop import COPY

RUNS = 120
# Statuses the tool ends with by itself: never a signal (a negative status) nor an abort.
STATUSES = {0, 1, 2}


def container(codec):
    buffer = io.BytesIO()
    fastavro.writer(buffer, fastavro.parse_schema(SCHEMA), [record(n) for n in range(30)], codec=codec,
                    sync_interval=400)
    return buffer.getvalue()


def run(tmp_path, data, *extra):
    path = tmp_path / "fuzz.avro"
    path.write_bytes(data)
    done = mappings("stream", "--mappings", str(tmp_path / "copy.mappings"), "--context", "$Copy",
                    "--from-format", "avro", "--rejects", str(tmp_path / "rejects.ndjson"), *extra, str(path),
                    timeout=60)
    assert done.returncode in STATUSES, (done.returncode, done.stderr.decode()[-2000:])
    return done


@pytest.mark.parametrize("codec", ["null", "deflate", "snappy"])
def test_flipped_and_cut_bytes_never_crash_nor_hang(tmp_path, codec):
    (tmp_path / "copy.mappings").write_text(COPY)
    original = container(codec)
    generator = random.Random(f"avro-fuzz-{codec}")
    rejected = 0
    for attempt in range(RUNS):
        data = bytearray(original)
        if attempt % 3 == 0:
            data = data[: generator.randrange(len(data))]
        for _ in range(1 + attempt % 4):
            data[generator.randrange(len(data) or 1)] ^= 1 << generator.randrange(8)
        done = run(tmp_path, bytes(data))
        if done.returncode != 0:
            assert b"byte" in done.stderr or (tmp_path / "rejects.ndjson").read_text().count("byte") > 0
            rejected += 1
    # The corruption was seen: most runs report something.
    assert rejected > RUNS // 2


def test_a_corrupt_block_is_one_reject_and_the_blocks_after_it_read(tmp_path):
    (tmp_path / "copy.mappings").write_text(COPY)
    data = bytearray(container("null"))
    reader = fastavro.block_reader(io.BytesIO(bytes(data)))
    blocks = [(block.offset, block.num_records) for block in reader]
    assert len(blocks) >= 3
    # The second block's size varint, made absurd: its sync marker is then not where it says.
    second = blocks[1][0]
    data[second + 1] ^= 0x40
    done = run(tmp_path, bytes(data))
    assert done.returncode == 1
    rejects = [json.loads(line) for line in (tmp_path / "rejects.ndjson").read_text().splitlines()]
    assert len(rejects) == 1
    message = json.dumps(rejects[0])
    assert f"byte {second}" in message and "corrupt" in message
    mapped = done.stdout.decode().splitlines()
    assert len(mapped) == 30 - blocks[1][1]
