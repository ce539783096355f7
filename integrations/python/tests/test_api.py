"""The package as a Python user calls it: load, map, map_lines, errors, logging, limits,
threads, the GIL, and the wheel alone on a machine without the tool."""

import datetime
import decimal
import json
import logging
import math
import os
import shutil
import subprocess
import sys
import threading
import time

import pytest

import mappings
from conftest import KINDS, ROOT, SHOP, binary, order, ticking, tool


def test_the_installed_wheel_is_what_is_tested():
    assert "site-packages" in mappings.__file__, mappings.__file__
    assert os.path.exists(os.path.join(os.path.dirname(mappings.__file__), "py.typed"))
    assert os.path.exists(os.path.join(os.path.dirname(mappings.__file__), "__init__.pyi"))


def test_the_version_is_the_repository_s():
    with open(os.path.join(ROOT, "VERSION")) as file:
        version = file.read().strip()
    assert mappings.__version__ == version
    assert os.path.basename(os.environ.get("MAPPINGS_WHEEL", f"mappings-{version}-")).startswith(f"mappings-{version}-")


def test_load_lists_the_contexts(shop):
    assert shop.contexts == ["$Customer", "$Order", "$Wait"]


def test_a_load_error_carries_the_diagnostics_as_check_prints_them(tmp_path, monkeypatch):
    (tmp_path / "contexts").mkdir()
    (tmp_path / "contexts" / "bad.mappings").write_text('{\n  "$A": { "@class": "Nope", "x": "x" }\n}\n')
    with pytest.raises(mappings.LoadError) as raised:
        monkeypatch.chdir(tmp_path)
        mappings.load("contexts")
    diagnostics = raised.value.diagnostics
    assert "bad.mappings:2:21" in diagnostics and "^^^^^^" in diagnostics and "= help:" in diagnostics, diagnostics
    checked = subprocess.run([binary(), "check", "--mappings", "contexts", "--color", "never"], cwd=tmp_path,
                             capture_output=True, text=True)
    assert checked.returncode == 2
    # What check prints, but its count of errors at the end.
    assert checked.stderr.rstrip("\n").rsplit("\n\nmappings: ", 1)[0] == diagnostics.rstrip("\n")


def test_an_unknown_context_and_a_missing_folder_are_load_errors(shop, tmp_path):
    with pytest.raises(mappings.LoadError) as raised:
        shop.map("$Nope", b"{}")
    assert "$Nope" in raised.value.diagnostics
    with pytest.raises(mappings.LoadError):
        mappings.load(tmp_path / "nowhere")


def test_map_gives_typed_values(shop):
    result = shop.map("$Order", json.dumps(order(7, total="12345678901234567890.123456789", rate=-0.0)))
    assert result.ok and result.status == "clean" and result.issues == [] and result.line == 1
    value = result.value
    assert value["id"] == 7 and value["code"] == "C7"
    assert value["total"] == decimal.Decimal("12345678901234567890.123456789")
    assert isinstance(value["total"], decimal.Decimal)
    assert value["rate"] == 0.0 and math.copysign(1, value["rate"]) == -1
    assert value["placed"] == datetime.datetime(2024, 8, 17, 7, 30, 0, 7, tzinfo=datetime.timezone.utc)
    assert value["customer"] == {"id": 21, "name": "Zoë 7 😀"}
    assert value["extra"] == {"n": 7, "list": [1.5, None, "x"]}
    assert value["counts"] == {"a": 7, "b": -7} and value["tags"] == ["t", "7"]


def test_map_takes_str_bytes_and_arrays(shop):
    one = shop.map("$Order", json.dumps(order(1)).encode())
    many = shop.map("$Order", json.dumps([order(1), order(2)]))
    assert isinstance(many.value, list) and many.value[0] == one.value and many.value[1]["id"] == 2
    with pytest.raises(TypeError):
        shop.map("$Order", object())


def test_errors_and_invalid_json_are_results_not_exceptions(shop):
    bad = shop.map("$Order", json.dumps(order(3, placed_at="yesterday")))
    assert not bad.ok and bad.status == "errors"
    (issue,) = bad.issues
    assert issue["path"] == "$.placed_at" and issue["property"] == "Order.placed"
    assert issue["rule"].startswith(os.path.join(SHOP, "contexts", "shop.mappings") + ":") or issue["rule"].endswith(
        "shop.mappings:26"), issue
    assert set(issue) >= {"kind", "path", "property", "rule", "message", "severity"}
    invalid = shop.map("$Order", b'{"id": 1,')
    assert not invalid.ok and invalid.status == "invalid" and invalid.value is None
    assert invalid.issues[0]["kind"] == "invalid JSON"


def test_a_filtered_payload_has_no_value(shop):
    dropped = shop.map("$Order", json.dumps(order(4, test=True)))
    assert dropped.status == "filtered" and dropped.value is None and dropped.ok


def lines_of(records):
    return [json.dumps(record) for record in records]


def test_map_lines_keeps_input_order_on_two_workers(shop):
    records = [order(number) for number in range(1, 3001)]
    records[100] = order(101, placed_at="never")
    records[200] = order(201, test=True)
    text = "\n".join(lines_of(records)).encode() + b"\n\n"
    one = list(shop.map_lines("$Order", text, workers=1))
    two = list(shop.map_lines("$Order", iter(lines_of(records)), workers=2))
    assert [r.line for r in one] == [n for n in range(1, 3001) if n != 201]
    assert [(r.line, r.value, r.ok) for r in one] == [(r.line, r.value, r.ok) for r in two]
    bad = [r for r in one if not r.ok]
    assert [r.line for r in bad] == [101] and json.loads(bad[0].input)["placed_at"] == "never"
    assert one[0].value == shop.map("$Order", json.dumps(records[0])).value


def test_map_lines_reads_a_path(shop, tmp_path):
    path = tmp_path / "orders.ndjson"
    path.write_text("\n".join(lines_of(order(n) for n in range(1, 501))) + "\nnot json\n")
    results = list(shop.map_lines("$Order", str(path), workers=2))
    assert len(results) == 501 and results[-1].status == "invalid" and results[-1].line == 501
    with pytest.raises(ValueError):
        list(shop.map_lines("$Order", ['{"id": 1,\n"code": "x"}']))


def test_lines_of_every_kind_over_many_blocks_map_as_the_same_text(shop):
    """An iterable of lines the module gathers into blocks of 1 MiB: bytes with and without
    their line end, str, bytearray, memoryview, blank lines; the same results as the whole text,
    line numbers and all. A line that is no text, or an iterator that fails, stops the call."""
    records = [json.dumps(order(n)) for n in range(1, 12001)]
    kinds = [lambda t: t, lambda t: t.encode(), lambda t: t.encode() + b"\n", lambda t: bytearray(t.encode()),
             lambda t: memoryview(t.encode() + b"\r\n")]
    lines = [kinds[n % len(kinds)](text) for n, text in enumerate(records)]
    lines[500:500] = ["", b"\n"]
    text = "\n".join(records[:500] + ["", ""] + records[500:]).encode()
    assert len(text) > 3 << 20
    whole = [(r.line, r.value) for r in shop.map_lines("$Order", text, workers=2)]
    assert [(r.line, r.value) for r in shop.map_lines("$Order", iter(lines), workers=2)] == whole
    assert [line for line, _ in whole][499:502] == [500, 503, 504] and len(whole) == 12000

    def failing():
        yield records[0]
        raise RuntimeError("the source broke")

    with pytest.raises(RuntimeError, match="the source broke"):
        list(shop.map_lines("$Order", failing()))
    with pytest.raises(TypeError):
        list(shop.map_lines("$Order", [records[0], 7]))


def test_values_equal_the_tools_output(shop, tmp_path):
    """Every value of the kinds fixture (the Spark tests'), and the shop's orders, as `mappings
    map` writes them: the same numbers, digits, dates, text."""
    import mappings as package

    catalog = package.load(os.path.join(KINDS, "contexts"), scripts=os.path.join(KINDS, "scripts"))
    with open(os.path.join(KINDS, "kinds.ndjson"), "rb") as file:
        lines = [line for line in file.read().split(b"\n") if line.strip()]
    for line in lines:
        written, status = tool("map", "--mappings", os.path.join(KINDS, "contexts"), "--scripts",
                               os.path.join(KINDS, "scripts"), "--context", "$Kinds",
                               input=line)
        result = catalog.map("$Kinds", line)
        assert result.ok == (status == 0), (line, result.issues)
        if status != 0:
            continue
        expected = json.loads(written, parse_float=decimal.Decimal)
        compare(result.value, expected, "$")


def compare(value, expected, path):
    """`value` (the package's) against `expected` (the tool's JSON, floats kept as decimals)."""
    if isinstance(value, datetime.datetime):
        assert value == datetime.datetime.fromisoformat(expected.replace("Z", "+00:00")), path
    elif isinstance(value, float):
        assert float(expected) == value and math.copysign(1, value) == math.copysign(1, float(expected)), path
        assert decimal.Decimal(repr(value)) == decimal.Decimal(str(expected)), path
    elif isinstance(value, decimal.Decimal):
        assert isinstance(expected, (decimal.Decimal, int)) and decimal.Decimal(expected) == value, path
    elif isinstance(value, dict):
        assert isinstance(expected, dict) and list(value) == list(expected), path
        for key in value:
            compare(value[key], expected[key], f"{path}.{key}")
    elif isinstance(value, list):
        assert isinstance(expected, list) and len(value) == len(expected), path
        for index, element in enumerate(value):
            compare(element, expected[index], f"{path}[{index}]")
    else:
        assert type(value) is type(expected) and value == expected, (path, value, expected)


def test_a_scripts_log_goes_to_python_logging(shop, caplog):
    with caplog.at_level(logging.INFO, logger="mappings"):
        result = shop.map("$Order", json.dumps(order(5, code="log-me")))
    assert result.value["code"] == "LOG-ME"
    assert any("code log-me" in record.getMessage() for record in caplog.records if record.name == "mappings")


def test_the_limits_stop_a_script_that_never_ends(tmp_path):
    catalog = mappings.load(os.path.join(SHOP, "contexts"), lua_timeout_ms=100)
    started = time.monotonic()
    result = catalog.map("$Order", json.dumps(order(6, code="LOOP")))
    assert time.monotonic() - started < 10
    assert not result.ok and "Shop.lua" in json.dumps(result.issues), result.issues


def test_threads_share_one_catalog(shop):
    payloads = [json.dumps(order(n)) for n in range(1, 401)]
    expected = [shop.map("$Order", payload).value for payload in payloads]
    results = {}

    def work(worker):
        results[worker] = [shop.map("$Order", payload).value for payload in payloads]

    threads = [threading.Thread(target=work, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(results[worker] == expected for worker in range(4))


def test_the_gil_is_released_while_records_map(shop):
    """A record whose transformer spins for 400 ms: meanwhile, another thread runs Python."""
    result, seconds, ticks = ticking(lambda: shop.map("$Wait", b'{"id": 1, "ms": 400}'))
    assert result.ok and result.value == {"id": 1, "done": True}
    assert seconds >= 0.3 and ticks >= 20, (seconds, ticks)


def test_the_wheel_alone_maps_without_the_tool(tmp_path):
    """A process whose PATH has this venv's python and the system's folders, and no `mappings`."""
    path = os.pathsep.join([os.path.dirname(sys.executable), "/usr/bin", "/bin"])
    script = (
        "import json, shutil, mappings\n"
        "assert shutil.which('mappings') is None, shutil.which('mappings')\n"
        f"c = mappings.load({os.path.join(SHOP, 'contexts')!r})\n"
        "r = c.map('$Customer', '{\"id\": 1, \"name\": \"x\"}')\n"
        "print(json.dumps(r.value))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                          env={"PATH": path, "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"id": 1, "name": "x"}
    assert shutil.which("mappings", path=path) is None


def random_order(generator, number):
    """An order with values drawn at random from the edges the fidelity rule names."""
    def text():
        alphabet = "aé😀\"\\\n\t\u0001 zß中"
        return "".join(generator.choice(alphabet) for _ in range(generator.randint(0, 12)))

    # One record in ten beyond what the engine keeps (more than 38 digits, a year far from 2001).
    wild = generator.random() < 0.1
    digits = "".join(generator.choice("0123456789") for _ in range(generator.randint(1, 30 if wild else 20)))
    fraction = "".join(generator.choice("0123456789") for _ in range(generator.randint(0, 25 if wild else 15)))
    total = decimal.Decimal(("-" if generator.random() < 0.3 else "") + digits + ("." + fraction if fraction else ""))
    rate = generator.choice([-0.0, 0.0, 5e-324, 1.7976931348623157e308, generator.uniform(-1e9, 1e9), 0.1, 1 / 3])
    big = generator.choice([2 ** 63 - 1, -(2 ** 63), 2 ** 64 + generator.randint(0, 10 ** 6), -(10 ** 30)])
    micros = generator.randint(0, 999999)
    record = order(number, code=text() or "x", rate=rate, customer={"id": big % (2 ** 62), "name": text()},
                   extra={"big": big, "f": rate, "s": text(), "d": [decimal.Decimal("0." + "1" * 25)]},
                   placed_at=f"{generator.randint(1, 9999) if wild else generator.randint(1900, 2100):04d}-02-28T23:59:59.{micros:06d}Z")
    record["total"] = total
    return record


def test_random_records_equal_the_tools_output(shop, tmp_path):
    """200 random orders through map_lines and through `mappings stream`: the same values."""
    import random

    generator = random.Random(7)
    records = [random_order(generator, number) for number in range(1, 201)]
    text = "\n".join(json.dumps(record, default=str).replace('"total": "', '"total": ').replace(
        '", "rate"', ', "rate"') for record in records) + "\n"
    text = text.replace('"0.1111111111111111111111111"', "0.1111111111111111111111111")
    path = tmp_path / "orders.ndjson"
    path.write_text(text)
    rejects = tmp_path / "rejects.ndjson"
    written, status = tool("stream", "--mappings", os.path.join(SHOP, "contexts"), "--scripts",
                           os.path.join(SHOP, "scripts"), "--context", "$Order", "--quiet", "--rejects",
                           str(rejects), str(path))
    assert status in (0, 1)
    expected = [json.loads(line, parse_float=decimal.Decimal) for line in written.splitlines() if line]
    rejected = [json.loads(line)["line"] for line in rejects.read_text().splitlines() if line]
    results = list(shop.map_lines("$Order", str(path), workers=2))
    assert len(results) == 200 and len(expected) + len(rejected) == 200
    # Dates this far from 2001 lose microseconds, decimals beyond 38 digits: the engine refuses them.
    assert [result.line for result in results if not result.ok] == rejected and len(expected) > 150
    for result, tools in zip((result for result in results if result.ok), expected):
        compare(result.value, tools, f"line {result.line}")
        assert isinstance(result.value["total"], decimal.Decimal)
        assert isinstance(result.value["extra"]["d"][0], decimal.Decimal)


def test_the_benchmark_runs_and_its_peers_agree():
    """B10 in its smoke mode (Benchmarks/python_bench.py): every contender's output equals the
    package's before a timing counts, so a peer that drifts fails here."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(SHOP))))
    done = subprocess.run([sys.executable, os.path.join(root, "Benchmarks", "python_bench.py"), "--smoke",
                           "--data-dir", os.path.join(os.environ.get("TMPDIR", "/tmp"), "mappings-b10-smoke")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "goal: to_arrow vs pyarrow + compute" in done.stdout


def test_run_tests_runs_the_contexts_tests(tmp_path):
    """The first mapping's @tests pass; one edited to expect another title fails, and says so."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(SHOP))))
    project = os.path.join(root, "Examples", "first-mapping")
    results = mappings.load(os.path.join(project, "contexts")).run_tests()
    assert results and all(result["passed"] for result in results), results
    assert results[0]["context"] == "$Issue" and results[0]["number"] == 1
    shutil.copytree(project, tmp_path / "project")
    path = tmp_path / "project" / "contexts" / "Issue.mappings"
    text = path.read_text()
    path.write_text(text.replace('"title": "Found a bug"', '"title": "Found two bugs"', 1))
    failed = [result for result in mappings.load(tmp_path / "project" / "contexts").run_tests("$Issue")
              if not result["passed"]]
    assert len(failed) == 1 and "title" in failed[0]["failures"][0], failed


def test_a_forked_child_maps_lines(shop):
    """A process forked after the parent mapped on workers (multiprocessing's fork, a
    pre-forking server) has none of the parent's threads: its own map_lines must still run."""
    lines = [json.dumps(order(n)) for n in range(1, 2001)]
    assert len(list(shop.map_lines("$Order", lines, workers=2))) == 2000
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = 0 if len(list(shop.map_lines("$Order", lines, workers=2))) == 2000 else 2
        finally:
            os._exit(code)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child's map_lines did not finish in 30 s")


def test_deep_and_hostile_payloads_are_results(shop):
    """Nesting to the reader's limit maps; beyond it, and bytes that are no UTF-8, are issues of
    the record, never a crash of the interpreter."""
    deep = order(9)
    deep["extra"] = json.loads("[" * 500 + "]" * 500)
    result = shop.map("$Order", json.dumps(deep))
    assert result.ok and result.value["extra"] == json.loads("[" * 500 + "]" * 500)
    deeper = json.dumps(order(9)).replace('"extra": {', '"extra": ' + "[" * 600 + "]" * 600 + ', "x": {')
    assert shop.map("$Order", deeper).status == "invalid"
    broken = json.dumps(order(9)).encode().replace(b"c9", b"c\xff\xfe")
    results = list(shop.map_lines("$Order", [broken, json.dumps(order(10))]))
    assert [r.status for r in results] == ["invalid", "clean"]
    assert shop.map("$Order", "\ud800").status == "invalid"


def other_pythons():
    """CPythons of other versions on this machine (pyenv's, or on PATH), the oldest and the newest."""
    found = {}
    roots = [os.path.expanduser("~/.pyenv/versions")]
    for root in roots:
        if os.path.isdir(root):
            for name in os.listdir(root):
                path = os.path.join(root, name, "bin", "python3")
                parts = name.split(".")
                if os.access(path, os.X_OK) and len(parts) >= 2 and parts[0] == "3" and parts[1].isdigit():
                    found[(3, int(parts[1]))] = path
    for minor in range(9, 15):
        path = shutil.which(f"python3.{minor}")
        if path:
            found.setdefault((3, minor), path)
    usable = sorted(version for version in found if version >= (3, 9) and version != sys.version_info[:2])
    return [found[version] for version in (usable[:1] + usable[-1:])] if usable else []


@pytest.mark.parametrize("python", other_pythons() or [None])
def test_the_one_wheel_serves_other_pythons(python, tmp_path):
    """The wheel is cp39-abi3: the same file installs and maps on the oldest and newest other
    CPython this machine has (3.9 and 3.13 here)."""
    wheel = os.environ.get("MAPPINGS_WHEEL")
    if python is None or not wheel:
        pytest.skip("no other CPython 3.9+ here, or MAPPINGS_WHEEL unset (tools/test sets it)")
    venv = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", "--without-pip", str(venv)], check=True)
    version, site = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import sys, sysconfig; print('%d.%d' % sys.version_info[:2], sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True).stdout.split()
    # This pip installs it for that Python: the wheel's tags must admit its version.
    platform = os.path.basename(wheel)[:-len(".whl")].split("-")[-1]
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--disable-pip-version-check",
         "--only-binary", ":all:", "--python-version", version, "--implementation", "cp", "--platform", platform,
         "--target", site, wheel], capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    script = (
        "import json, sys, mappings\n"
        f"c = mappings.load({os.path.join(SHOP, 'contexts')!r})\n"
        f"lines = [json.dumps(r) for r in {[order(1), order(2, placed_at='x')]!r}]\n"
        "results = list(c.map_lines('$Order', lines, workers=2))\n"
        "print(sys.version_info[:2], [r.status for r in results], results[0].value['placed'].isoformat())\n"
    )
    done = subprocess.run([str(venv / "bin" / "python"), "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(") ", 1)[1].strip() == "['clean', 'errors'] 2024-02-11T01:30:00.000001+00:00"


def test_what_a_review_found(shop, tmp_path):
    """Numbers past int(str)'s digits or Decimal's exponents, types made from Python, lines
    with line feeds of their own, an unknown context for run_tests, a missing folder."""
    huge = "9" * 5000
    payload = json.dumps(order(1)).replace('"extra": {', '"extra": {"huge": ' + huge + ', "tiny": 1e-99999999999999999999, ')
    for result in [shop.map("$Order", payload), next(shop.map_lines("$Order", [payload]))]:
        assert result.ok and result.value["extra"]["huge"] == 10 ** 5000 - 1
        assert result.value["extra"]["tiny"] == "1e-99999999999999999999"
    for made in [shop._native, shop._context("$Order"), shop._context("$Order").lines(1), result]:
        with pytest.raises(TypeError):
            type(made)()
    with pytest.raises(ValueError):
        list(shop.map_lines("$Order", [json.dumps(order(1)) + "\n\n", json.dumps(order(2))]))
    lines = [json.dumps(order(1)) + "\r\n", json.dumps(order(2)).encode() + b"\n", json.dumps(order(3))]
    assert [r.line for r in shop.map_lines("$Order", lines)] == [1, 2, 3]
    with pytest.raises(mappings.LoadError):
        shop.run_tests("$Nope")
    with pytest.raises(mappings.LoadError) as raised:
        mappings.load(tmp_path / "nowhere")
    assert "nowhere" in raised.value.diagnostics


def test_a_line_past_64_mib_is_a_reject_as_the_stream_says(shop, tmp_path):
    """The stream's limit: a line longer than 64 MiB is no record but a reject with its first
    bytes; the lines around it map, with their own line numbers."""
    huge = json.dumps(order(2, code="x" * (64 << 20)))
    # Spaces past the limit are a line too long too, not a blank line.
    spaces = " " * ((64 << 20) + 1)
    # A record of exactly 64 MiB is one, with its carriage return too (measured without it).
    fits = json.dumps(order(5, extra={"pad": ""}))
    pad = (64 << 20) - len(fits)
    fits = fits.replace('"pad": ""', '"pad": "' + "y" * pad + '"') + "\r"
    lines = [json.dumps(order(1)), huge, json.dumps(order(3)), spaces, fits]
    path = tmp_path / "long.ndjson"
    path.write_text("\n".join(lines) + "\n")
    for source, workers in ((lines, 1), (str(path), 1), (lines, 0), (str(path), 0)):
        results = list(shop.map_lines("$Order", source, workers=workers))
        assert [(r.line, r.status) for r in results] == [
            (1, "clean"), (2, "invalid"), (3, "clean"), (4, "invalid"), (5, "clean")]
        assert len(results[4].value["extra"]["pad"]) == pad
        assert results[1].issues[0]["message"] == "the line is longer than 67108864 bytes"
        assert results[1].input == huge.encode()[:1024] and results[3].input == b" " * 1024
    for workers in (1, 0):
        table, rejects = shop.to_arrow("$Order", str(path), workers=workers)
        assert table.column("id").to_pylist() == [1, 3, 5] and rejects.column("line").to_pylist() == [2, 4]


def test_traits_select_as_the_tools_trait_option():
    """`traits={"apiVersion": 2}` is `--trait apiVersion=2`: the `@when apiVersion >= 2` entries
    of Examples/language/shop.mappings read the version 2 keys."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(SHOP))))
    shop_file = os.path.join(root, "Examples", "language", "shop.mappings")
    payload = json.dumps({"uuid": "3f2b6a4e-8c1d-4b7a-9e5f-0a1b2c3d4e5f", "name": "old", "display_name": "new",
                          "price": {"value": 1.5}})
    first = mappings.load(shop_file).map("$Product", payload).value
    second = mappings.load(shop_file, traits={"apiVersion": 2}).map("$Product", payload).value
    assert (first["title"], second["title"]) == ("old", "new")
    written, status = tool("map", "--mappings", shop_file, "--trait", "apiVersion=2", "--context", "$Product",
                           input=payload.encode())
    assert status == 0 and json.loads(written)["title"] == "new"


def test_a_loads_warnings_go_to_logging_as_the_tool_prints_them(caplog):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(SHOP))))
    path = os.path.join(root, "Examples", "language", "selector-trap.mappings")
    with caplog.at_level(logging.WARNING, logger="mappings"):
        mappings.load(path)
    (record,) = [record for record in caplog.records if record.name == "mappings"]
    assert record.levelno == logging.WARNING
    assert 'warning: "type" is a trait, not a payload key' in record.getMessage()
    assert "selector-trap.mappings:10:" in record.getMessage()
