"""Avro in and out against fastavro: files fastavro writes (every codec both read, every type and
logical type) read exactly; files Mappings writes read by fastavro as the mapped records; a round
trip through an identity context gives the input back."""
import base64
import datetime
import decimal
import io
import json
import struct

import fastavro
import pytest

from conftest import SCHEMA, mappings

# The codecs avro-c reads that fastavro writes too ("lzma" is avro-c's own raw LZMA2, which
# fastavro's "xz" is not).
CODECS = ["null", "deflate", "snappy"]

COPY = '{ "$Copy": { "all": "@self" } }'


def write_avro(path, records, codec="null", schema=SCHEMA, sync_interval=16000):
    with open(path, "wb") as out:
        fastavro.writer(out, fastavro.parse_schema(schema), records, codec=codec, sync_interval=sync_interval)


def expected_json(value, schema):
    """What the Avro format reads `value` (as fastavro gives it) as, by the documented table."""
    field_types = {f["name"]: f["type"] for f in schema["fields"]}
    out = {}
    for name, item in value.items():
        out[name] = item
    for name in ("blob", "hash"):
        out[name] = base64.b64encode(value[name]).decode()
    out["price"] = str(value["price"])
    out["amount"] = str(value["amount"])
    out["day"] = value["day"].isoformat()
    at_ms = value["at_ms"]
    out["at_ms"] = at_ms.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (at_ms.microsecond // 1000)
    at_us = value["at_us"]
    out["at_us"] = at_us.strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % at_us.microsecond
    local = value["local_us"]
    out["local_us"] = local.strftime("%Y-%m-%dT%H:%M:%S") + ".%06d" % local.microsecond
    time = value["time_ms"]
    out["time_ms"] = time.strftime("%H:%M:%S") + ".%03d" % (time.microsecond // 1000)
    out["key"] = str(value["key"])
    assert set(field_types) == set(out)
    return out


def read_lines(stdout):
    # Decimals keep their text: a float's exact spelling is checked apart.
    return [json.loads(line, parse_float=decimal.Decimal) for line in stdout.decode().splitlines()]


def check_record(got, want):
    for name, value in want.items():
        if name == "single":
            assert struct.pack("<f", float(got[name])) == struct.pack("<f", value), name
        elif name == "ratio":
            assert float(got[name]) == value and str(float(got[name])) == str(value), name
        elif name in ("price", "amount"):
            assert str(got[name]) == value, (name, got[name], value)
        else:
            assert got[name] == value, (name, got[name], value)


@pytest.mark.parametrize("codec", CODECS)
def test_reads_what_fastavro_writes_exactly(tmp_path, records, codec):
    (tmp_path / "copy.mappings").write_text(COPY)
    path = tmp_path / "events.avro"
    # Small blocks: many of them, so that a block boundary falls between reads.
    write_avro(path, records, codec, sync_interval=300)
    done = mappings("stream", "--mappings", str(tmp_path / "copy.mappings"), "--context", "$Copy", str(path), check=0)
    lines = read_lines(done.stdout)
    assert len(lines) == len(records)
    with open(path, "rb") as handle:
        originals = list(fastavro.reader(handle))
    for line, original in zip(lines, originals):
        check_record(line["all"], expected_json(original, SCHEMA))


def test_reads_standard_input_as_it_comes(tmp_path, records):
    (tmp_path / "copy.mappings").write_text(COPY)
    path = tmp_path / "events.avro"
    write_avro(path, records, "deflate", sync_interval=200)
    with open(path, "rb") as handle:
        done = mappings("stream", "--mappings", str(tmp_path / "copy.mappings"), "--context", "$Copy",
                        "--from-format", "avro", stdin=handle, check=0)
    assert len(read_lines(done.stdout)) == len(records)


def test_floats_are_written_as_their_shortest_text(tmp_path):
    schema = {"type": "record", "name": "F", "fields": [{"name": "f", "type": "float"}, {"name": "d", "type": "double"}]}
    (tmp_path / "copy.mappings").write_text(COPY)
    path = tmp_path / "floats.avro"
    write_avro(path, [{"f": 0.1, "d": 0.1}, {"f": 2.0, "d": 2.0}, {"f": 1e-7, "d": 1e300}], schema=schema)
    done = mappings("stream", "--mappings", str(tmp_path / "copy.mappings"), "--context", "$Copy", str(path), check=0)
    assert done.stdout.decode().splitlines() == [
        '{"all":{"f":0.1,"d":0.1}}', '{"all":{"f":2.0,"d":2.0}}', '{"all":{"f":1e-07,"d":1e+300}}']


IDENTITY_SCHEMA = {
    "type": "record", "name": "Order",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "total", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}},
        {"name": "placed", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
            {"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}}},
        {"name": "attrs", "type": {"type": "map", "values": "double"}},
        {"name": "raw", "type": "bytes"},
    ],
}


def identity_context():
    # Every field as it is (an entry without a type keeps any JSON value); the nullable one optional.
    entries = ", ".join(f'"{f["name"]}": {{ "@keyPath": "{f["name"]}", "@optional": true }}' if f["name"] == "note"
                        else f'"{f["name"]}": "{f["name"]}"' for f in IDENTITY_SCHEMA["fields"])
    return '{ "$Identity": { ' + entries + ' } }'


def orders(count):
    utc = datetime.timezone.utc
    return [{
        "id": n * 1_000_000_007,
        "total": decimal.Decimal(n * 1234) / 100,
        "placed": datetime.datetime(2024, 1, 1, tzinfo=utc) + datetime.timedelta(microseconds=n * 987_654_321),
        "note": None if n % 2 else f"note {n}",
        "lines": [{"sku": f"S{n}-{i}", "qty": i} for i in range(n % 3)],
        "attrs": {"w": n / 8, "h": -n * 1.5},
        "raw": bytes(range(n % 7)),
    } for n in range(60)]


@pytest.mark.parametrize("codec", CODECS + ["lzma"])
def test_round_trip_through_an_identity_context_gives_the_input(tmp_path, codec):
    (tmp_path / "identity.mappings").write_text(identity_context())
    (tmp_path / "order.avsc").write_text(json.dumps(IDENTITY_SCHEMA))
    source = tmp_path / "in.avro"
    write_avro(source, orders(60), "null", schema=IDENTITY_SCHEMA)
    out = tmp_path / "out.avro"
    written = mappings("stream", "--mappings", str(tmp_path / "identity.mappings"), "--context", "$Identity",
                       "--to-format", "avro", "--avro-schema", str(tmp_path / "order.avsc"), "--avro-codec", codec,
                       str(source), check=0)
    out.write_bytes(written.stdout)
    if codec == "lzma":
        # Only avro-c reads its own lzma: read it back with mappings, as JSON.
        (tmp_path / "copy.mappings").write_text(COPY)
        again = mappings("stream", "--mappings", str(tmp_path / "copy.mappings"), "--context", "$Copy", str(out), check=0)
        direct = mappings("stream", "--mappings", str(tmp_path / "copy.mappings"), "--context", "$Copy", str(source), check=0)
        assert again.stdout == direct.stdout
        return
    with open(source, "rb") as a, open(out, "rb") as b:
        reader = fastavro.reader(b)
        assert reader.codec == codec
        assert list(fastavro.reader(a)) == list(reader)


def test_fastavro_reads_what_a_model_maps_to(tmp_path):
    (tmp_path / "users.mappings").write_text("""{
        "@models": {
            "Status": ["active", "banned"],
            "User": { "id": "Int", "name": "String", "score": "Double", "balance": "Decimal",
                      "seen": "Date", "status": "Status", "tags": "[String]", "nick": "String?",
                      "prefs": "[String: Int]", "extra": "JSON" }
        },
        "$User": { "@class": "User", "id": "id", "name": "name", "score": "score", "balance": "balance",
                   "seen": "seen", "status": "status", "tags": "tags",
                   "nick": { "@keyPath": "nick", "@optional": true }, "prefs": "prefs",
                   "extra": { "@keyPath": "extra", "@optional": true } }
    }""")
    lines = [
        {"id": 1, "name": "Ada", "score": 0.5, "balance": "12345678901234567890.123", "seen": "2024-01-31T12:00:00.123456Z",
         "status": "active", "tags": ["a", "b"], "prefs": {"x": 1}, "extra": {"any": [1, "two"]}},
        {"id": 2, "name": "Bob", "score": 2, "balance": 0.1, "seen": "1999-12-31T23:59:59Z",
         "status": "banned", "tags": [], "nick": "b", "prefs": {}},
    ]
    payload = "".join(json.dumps(line) + "\n" for line in lines).encode()
    arguments = ["stream", "--mappings", str(tmp_path / "users.mappings"), "--context", "$User"]
    as_json = mappings(*arguments, input=payload, check=0)
    as_avro = mappings(*arguments, "--to-format", "avro", "--avro-codec", "deflate", input=payload, check=0)
    schema = json.loads(mappings("schema", "--mappings", str(tmp_path / "users.mappings"), "--context", "$User",
                                 "--format", "avro", check=0).stdout)
    got = list(fastavro.reader(io.BytesIO(as_avro.stdout)))
    assert fastavro.reader(io.BytesIO(as_avro.stdout)).writer_schema["name"] == schema["name"]
    mapped = read_lines(as_json.stdout)
    assert len(got) == len(mapped) == 2
    for avro, want in zip(got, mapped):
        assert avro["id"] == want["id"] and avro["name"] == want["name"]
        assert avro["score"] == float(want["score"])
        assert avro["balance"] == str(want["balance"])
        assert avro["seen"] == datetime.datetime.fromisoformat(want["seen"])
        assert avro["status"] == want["status"] and avro["tags"] == want["tags"]
        assert avro["nick"] == want.get("nick") and avro["prefs"] == want["prefs"]
        assert (json.loads(avro["extra"]) if avro["extra"] is not None else None) == \
            (json.loads(json.dumps(want["extra"], default=str)) if want.get("extra") is not None else None)


def test_single_object_and_confluent_messages_fastavro_encodes(tmp_path, records):
    """Datums fastavro encodes (schemaless_writer), framed as single-object and as Confluent
    messages, back to back on standard input: read exactly, by fingerprint and by id."""
    (tmp_path / "copy.mappings").write_text(COPY)
    (tmp_path / "event.avsc").write_text(json.dumps(SCHEMA))
    parsed = fastavro.parse_schema(SCHEMA)
    fingerprint = bytes.fromhex(fastavro.schema.fingerprint(
        fastavro.schema.to_parsing_canonical_form(parsed), "CRC-64-AVRO"))

    def datum(value):
        buffer = io.BytesIO()
        fastavro.schemaless_writer(buffer, parsed, value)
        return buffer.getvalue()

    single = b"".join(b"\xc3\x01" + fingerprint + datum(value) for value in records)
    confluent = b"".join(b"\x00" + (42).to_bytes(4, "big") + datum(value) for value in records)
    copy = ["stream", "--mappings", str(tmp_path / "copy.mappings"), "--from-format", "avro"]
    by_fingerprint = mappings(*copy, "--avro-schema", str(tmp_path / "event.avsc"), input=single, check=0)
    by_id = mappings(*copy, "--avro-schema", f"42={tmp_path / 'event.avsc'}", input=confluent, check=0)
    assert by_fingerprint.stdout == by_id.stdout
    lines = read_lines(by_id.stdout)
    assert len(lines) == len(records)
    for line, value in zip(lines, records):
        original = fastavro.schemaless_reader(io.BytesIO(datum(value)), parsed)
        check_record(line["all"], expected_json(original, SCHEMA))
    # An id no schema is given for ends the input there, naming the byte.
    other = confluent + b"\x00" + (7).to_bytes(4, "big") + datum(records[0])
    done = mappings(*copy, "--avro-schema", f"42={tmp_path / 'event.avsc'}", input=other)
    assert done.returncode == 2
    assert f"is not avro past byte {len(confluent)}: the message names the schema id 7".encode() in done.stderr
