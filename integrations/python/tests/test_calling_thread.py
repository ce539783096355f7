"""`workers=0`: map_lines and to_arrow map on the calling thread (the GIL released), reading
the caller's lines in place. Everything must come out as it does from the lanes: values,
statuses, issues, inputs, line numbers, log lines, Arrow rows and rejects."""

import json
import logging
import threading

import pytest

import mappings
from conftest import order, ticking


def mixed_lines():
    """Lines of every outcome: clean, errors, filtered, not JSON, blank, CRLF, unicode, five
    script log lines."""
    records = []
    for number in range(1, 4001):
        if number % 97 == 0:
            records.append(json.dumps(order(number, placed_at="never")))
        elif number % 89 == 0:
            records.append(json.dumps(order(number, test=True)))
        elif number % 83 == 0:
            records.append('{"id": %d, "code": ' % number)
        elif number % 79 == 0:
            records.append("   \t")
        elif number % 733 == 0:
            records.append(json.dumps(order(number, code="log-me")) + "\r")
        elif number % 71 == 0:
            records.append(json.dumps(order(number, rate="fast")) + "\r")
        else:
            records.append(json.dumps(order(number, code=f"c{number} ✓ \\ \"q\" \u2028")))
    return records


def outcomes(results):
    return [(r.line, r.status, r.ok, r.value, r.issues, r.input) for r in results]


def test_the_calling_thread_maps_as_the_lanes(shop, tmp_path, caplog):
    records = mixed_lines()
    text = ("\n".join(records) + "\n").encode()
    assert len(text) > 3 << 17  # many of the calling thread's blocks
    path = tmp_path / "mixed.ndjson"
    path.write_bytes(text)
    kinds = [lambda t: t, lambda t: t.encode(), lambda t: t.encode() + b"\n", lambda t: bytearray(t.encode()),
             lambda t: memoryview(t.encode())]
    lines = [kinds[n % len(kinds)](record) for n, record in enumerate(records)]
    expected = outcomes(shop.map_lines("$Order", text, workers=2))
    statuses = {status for _, status, *_ in expected}
    assert statuses == {"clean", "errors", "invalid"}, statuses
    assert len(expected) < 4000 and expected[-1][0] == 4000
    for source in (text, str(path), iter(lines)):
        with caplog.at_level(logging.INFO, logger="mappings"):
            caplog.clear()
            here = outcomes(shop.map_lines("$Order", source, workers=0))
        assert here == expected
        logged = [record.getMessage() for record in caplog.records if record.name == "mappings"]
        # Five records log (scripts may log 100 lines a second: a few, so that none is dropped).
        assert logged == [logged[0]] * 5 and logged[0].endswith("Shop.lua:14: code log-me"), logged
    assert outcomes(shop.map_lines("$Order", text, workers=1)) == expected


def test_threads_each_map_on_their_own_thread(shop):
    records = mixed_lines()[:1500]
    expected = outcomes(shop.map_lines("$Order", records, workers=1))
    results = {}

    def work(worker):
        results[worker] = outcomes(shop.map_lines("$Order", records, workers=0))

    threads = [threading.Thread(target=work, args=(worker,)) for worker in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(results[worker] == expected for worker in range(3))


def test_a_line_holding_a_line_feed_maps_nothing_of_its_block(shop, caplog):
    lines = [json.dumps(order(1, code="log-me")), json.dumps(order(2)), '{"id": 3,\n"code": "x"}']
    with caplog.at_level(logging.INFO, logger="mappings"):
        with pytest.raises(ValueError, match="line feed"):
            list(shop.map_lines("$Order", lines, workers=0))
    assert not [record for record in caplog.records if record.name == "mappings"]


def test_the_gil_is_released_while_the_calling_thread_maps(shop):
    """Two records whose transformer spins for 250 ms each: meanwhile, another thread runs Python."""
    lines = [b'{"id": 1, "ms": 250}', b'{"id": 2, "ms": 250}']
    results, seconds, ticks = ticking(lambda: list(shop.map_lines("$Wait", lines, workers=0)))
    assert [r.value for r in results] == [{"id": 1, "done": True}, {"id": 2, "done": True}]
    assert seconds >= 0.4 and ticks >= 20, (seconds, ticks)


def test_to_arrow_on_the_calling_thread_is_the_lanes_table(shop):
    records = mixed_lines()
    table, rejects = shop.to_arrow("$Order", records, workers=2, batch_rows=700)
    here, here_rejects = shop.to_arrow("$Order", records, workers=0, batch_rows=700)
    here.validate(full=True)
    assert here.num_rows > 3000 and here.equals(table)
    assert here_rejects.num_rows > 50 and here_rejects.equals(rejects)


def test_workers_is_a_count_from_zero(shop):
    line = [json.dumps(order(1))]
    # At the call, not at the first result.
    with pytest.raises(ValueError, match="0 .* or more"):
        shop.map_lines("$Order", line, workers=-1)
    for wrong in (1.5, "2", True):
        with pytest.raises(TypeError):
            shop.map_lines("$Order", line, workers=wrong)
    with pytest.raises(mappings.LoadError):
        shop.map_lines("$Nope", line, workers=0)
    assert [r.line for r in shop.map_lines("$Order", line, workers=0)] == [1]
    assert mappings.Catalog.map_lines.__defaults__ == (1,)


def test_mutated_lines_come_out_as_from_the_lanes(shop):
    """3,000 orders with random damage — bytes flipped, cut, doubled, invalid UTF-8, stray
    quotes and backslashes, carriage returns, spaces alone — through the calling thread, one
    lane and two: the same outcomes, record for record."""
    import random

    generator = random.Random(48)
    pieces = [b'"', b"\\", b"\r", b"\xff", b"\xc3", b"{", b"]", b"\\u00", b" ", b"\t", b"0", b"-", b"e9"]
    lines = []
    for number in range(1, 3001):
        line = bytearray(json.dumps(order(number, code=f"c{number} ✓")).encode())
        for _ in range(generator.choice([0, 0, 1, 2, 5])):
            at = generator.randrange(len(line) + 1)
            damage = generator.randrange(4)
            if damage == 0 and at < len(line):
                line[at] = generator.randrange(256) if generator.random() < 0.3 else line[at] ^ 0x20
            elif damage == 1:
                line[at:at] = generator.choice(pieces)
            elif damage == 2:
                del line[at:at + generator.randrange(1, 20)]
            else:
                line[at:at] = line[max(0, at - 30):at]
        line = bytes(line).replace(b"\n", b" ")
        lines.append(line if generator.random() > 0.01 else b"  ")
    expected = outcomes(shop.map_lines("$Order", lines, workers=1))
    assert len({status for _, status, *_ in expected}) >= 3
    assert outcomes(shop.map_lines("$Order", lines, workers=0)) == expected
    assert outcomes(shop.map_lines("$Order", b"\n".join(lines), workers=0)) == expected
    assert outcomes(shop.map_lines("$Order", lines, workers=2)) == expected
