"""Ctrl-C and the limits, as a user meets them: a real SIGINT to a process mapping records that
each spin in Lua, on the calling thread and on workers, for map_lines and to_arrow; and the
Lua limits and batch sizes the tool refuses, refused by the package in the same ranges."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

import mappings
from conftest import SHOP, tool

# Maps 400 records that each spin 200 ms in Lua (under the 2 s deadline): minutes of work. It
# says "started" just before; on KeyboardInterrupt it says how long the interrupt took to come,
# maps once more with the same catalog, and exits 130.
MAPPER = """
import json, sys, time
import mappings

catalog = mappings.load(sys.argv[1], lua_timeout_ms=2000, lua_budget=2_000_000_000)
how, workers = sys.argv[2], int(sys.argv[3])
lines = [json.dumps({"id": n, "ms": 200}) for n in range(1, 401)]
if how == "to_arrow":
    import pyarrow
print("started", flush=True)
try:
    if how == "map_lines":
        for result in catalog.map_lines("$Wait", lines, workers=workers):
            pass
    else:
        catalog.to_arrow("$Wait", lines, workers=workers)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    again = catalog.map("$Wait", json.dumps({"id": 1, "ms": 1}))
    print("after", again.ok, again.value, flush=True)
    again = list(catalog.map_lines("$Wait", [json.dumps({"id": 2, "ms": 1})], workers=workers))
    print("after", again[0].ok, again[0].value, flush=True)
    sys.exit(130)
"""


def rest(process):
    """What the process writes until it exits (within 60 s), after the lines read already
    (communicate() would lose those its pipe's buffer read ahead)."""
    process.wait(timeout=60)
    return process.stdout.read(), process.stderr.read()


@pytest.mark.parametrize("how, workers", [("map_lines", 0), ("map_lines", 1), ("map_lines", 2),
                                          ("to_arrow", 0), ("to_arrow", 2)])
def test_sigint_is_a_keyboard_interrupt_within_a_second(how, workers):
    process = subprocess.Popen([sys.executable, "-c", MAPPER, os.path.join(SHOP, "contexts"), how, str(workers)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline() == "started\n", process.stderr.read()
        # Well into the records (the first block maps on the calling thread, or on the workers).
        time.sleep(1)
        assert process.poll() is None
        sent = time.monotonic()
        os.kill(process.pid, signal.SIGINT)
        line = process.stdout.readline()
        took = time.monotonic() - sent
        assert line == "interrupted\n", line + process.stderr.read()
        # 50 ms of a slice (or of a wait), and the record that was mapping (200 ms), with room
        # for a loaded machine.
        assert took < 1.5, took
        out, err = rest(process)
        assert process.returncode == 130, err
        assert out == "after True {'id': 1, 'done': True}\nafter True {'id': 2, 'done': True}\n", out + err
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def test_a_signal_handler_that_does_not_raise_lets_mapping_go_on():
    script = """
import json, signal, sys
import mappings
signal.signal(signal.SIGINT, lambda number, frame: print("handled", flush=True))
catalog = mappings.load(sys.argv[1], lua_timeout_ms=2000, lua_budget=2_000_000_000)
print("started", flush=True)
results = list(catalog.map_lines("$Wait", [json.dumps({"id": n, "ms": 100}) for n in range(1, 21)], workers=0))
print("mapped", len(results), all(result.ok for result in results), flush=True)
"""
    process = subprocess.Popen([sys.executable, "-c", script, os.path.join(SHOP, "contexts")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "started\n"
    time.sleep(0.5)
    os.kill(process.pid, signal.SIGINT)
    out, err = rest(process)
    assert process.returncode == 0, err
    assert out == "handled\nmapped 20 True\n", out + err


# The tool's option, the package's argument, and the range the tool prints for it.
LIMITS = [
    ("--lua-memory", "lua_memory_mib", 1, 1048576, "MiB"),
    ("--lua-budget", "lua_budget", 1000, 2**63 - 1, "instructions"),
    ("--lua-timeout", "lua_timeout_ms", 1, 3600000, "ms"),
    ("--lua-max-result", "lua_max_result_mib", 1, 1024, "MiB"),
]


@pytest.mark.parametrize("option, argument, low, high, unit", LIMITS)
def test_a_lua_limit_has_the_tools_range(option, argument, low, high, unit):
    contexts = os.path.join(SHOP, "contexts")
    for value in [low - 1, -1, 0, high + 1, 2**62, 2**64]:
        if low <= value <= high:
            continue
        with pytest.raises(ValueError) as raised:
            mappings.load(contexts, **{argument: value})
        assert str(raised.value) == f"{argument} must be between {low} and {high} {unit}, not {value}"
    for value in [True, 1.5, "100", None]:
        with pytest.raises(TypeError, match=argument):
            mappings.load(contexts, **{argument: value})
    for value in [low, min(high, 4096)]:
        assert mappings.load(contexts, **{argument: value}).contexts
    # The tool draws the same lines.
    bounds = [(low - 1, False), (low, True)] + ([(high, True), (high + 1, False)] if high < 2**62 else [])
    for value, accepted in bounds:
        # What is judged is the range: a value in it may still stop the check's own run of the
        # scripts (1 ms for loading them, on a busy machine), which is not a refusal of it.
        from conftest import binary
        done = subprocess.run([binary(), "check", "--mappings", contexts, "--scripts", os.path.join(SHOP, "scripts"),
                               option, str(value)], capture_output=True)
        refused = done.stderr.startswith(b"Error: " + option.encode() + b" must be")
        assert refused != accepted, (option, value, done.stdout, done.stderr)
        assert done.returncode == 0 or not accepted or b"deadline" in done.stderr, (option, value, done.stderr)


def test_batch_rows_is_a_positive_int_of_32_bits(shop):
    lines = [json.dumps({"id": n, "ms": 0}) for n in range(1, 6)]
    for value in [0, -1, 2**31, 2**63]:
        with pytest.raises(ValueError) as raised:
            shop.to_arrow("$Wait", lines, batch_rows=value)
        assert str(raised.value) == f"batch_rows must be between 1 and 2147483647, not {value}"
    for value in [True, 2.0]:
        with pytest.raises(TypeError, match="batch_rows"):
            shop.to_arrow("$Wait", lines, batch_rows=value)
    table, rejects = shop.to_arrow("$Wait", lines, batch_rows=2)
    assert table.num_rows == 5 and rejects.num_rows == 0
    assert shop.to_arrow("$Wait", lines, batch_rows=2**31 - 1)[0].num_rows == 5
