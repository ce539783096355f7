"""Shared by the Python package's tests, which run against the installed wheel (tools/test
installs .build/python's wheel into a fresh venv): the fixture projects and the tool, whose
output the package's values are compared with."""

import os
import subprocess
import threading
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SHOP = os.path.join(HERE, "fixtures")
KINDS = os.path.join(ROOT, "integrations", "spark", "tests", "fixtures")


def binary():
    """The tool: $MAPPINGS_BINARY, else the debug build of `swift build`."""
    path = os.environ.get("MAPPINGS_BINARY", os.path.join(ROOT, ".build", "debug", "mappings"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"no mappings binary at {path}: run 'swift build' or set MAPPINGS_BINARY")
    return path


def tool(*arguments, input=None, cwd=None):
    """Runs the tool; its stdout (text) and exit status."""
    done = subprocess.run([binary(), *arguments], input=input, capture_output=True, cwd=cwd)
    return done.stdout.decode(), done.returncode


@pytest.fixture(scope="session")
def shop():
    import mappings

    return mappings.load(os.path.join(SHOP, "contexts"), lua_timeout_ms=2000)


@pytest.fixture(scope="session")
def kinds():
    import mappings

    return mappings.load(os.path.join(KINDS, "contexts"), scripts=os.path.join(KINDS, "scripts"))


def order(number, **changes):
    """An order record of the shop fixture."""
    record = {
        "id": number,
        "code": f"c{number}",
        "total": f"{number}.{number % 100:02d}",
        "rate": number / 7,
        "placed_at": f"2024-0{1 + number % 9}-1{number % 10}T0{number % 10}:30:00.{number % 1000000:06d}Z",
        "customer": {"id": number * 3, "name": f"Zoë {number} 😀"},
        "extra": {"n": number, "list": [1.5, None, "x"]},
        "counts": {"a": number, "b": -number},
        "tags": ["t", str(number)],
    }
    record.update(changes)
    return record


def ticking(call):
    """Runs `call` while another thread runs Python, ticking every 5 ms: its answer, the seconds
    it took and the ticks meanwhile (none when the call holds the GIL)."""
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.005)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        time.sleep(0.05)
        started = time.monotonic()
        answer = call()
        ended = time.monotonic()
    finally:
        done.set()
        ticker.join()
    return answer, ended - started, len([t for t in ticks if started < t < ended])
