"""`mappings serve` over HTTP, driven by a real client as a pipeline would."""

import http.client
import json
import signal
import subprocess
import threading
import time

from conftest import MAPPINGS, workspace
from jsonschema import Draft202012Validator

REPOSITORY = __import__("pathlib").Path(__file__).resolve().parents[3]
SHAPES = json.loads((REPOSITORY / "docs" / "issue.schema.json").read_text())


def shape_errors(document, definition: str) -> list:
    """What in `document` is not docs/issue.schema.json's `definition` (issue or reject)."""
    validator = Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": SHAPES["$defs"]})
    return [f"{error.json_path}: {error.message}" for error in validator.iter_errors(document)]


def wait_in_flight(server, count: int) -> None:
    """Until `count` requests are being answered (a slow one has started)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.metrics()["mappings_in_flight"] >= count:
            return
        time.sleep(0.02)
    raise AssertionError("the slow request never started")


def slow_request(server, spin: int):
    """A /v1/map request whose Lua transformer counts to `spin`, sent on a thread of its own: the
    thread, and a dict that holds the answer under "answer" once it is joined."""
    answers = {}

    def send():
        answers["answer"] = server.map("$Job", {"id": 1, "spin": spin})

    thread = threading.Thread(target=send)
    thread.start()
    return thread, answers


def test_one_payload_each_status(server):
    status, headers, body = server.map("$User", {"name": "Ann", "age": 30})
    assert status == 200 and headers["Content-Type"] == "application/json"
    expected = subprocess.run(
        [MAPPINGS, "map", "--context", "$User"], input=b'{"name": "Ann", "age": 30}', cwd=server.root,
        capture_output=True, check=True,
    ).stdout
    assert body == expected
    status, _, body = server.map("$User", {"age": "old"})
    assert status == 422
    issues = json.loads(body)["issues"]
    assert {i["path"] for i in issues} == {"$.name", "$.age"}
    assert all({"kind", "path", "property", "rule", "message", "severity"} <= set(i) for i in issues)
    assert [error for issue in issues for error in shape_errors(issue, "issue")] == []
    status, _, body = server.request("POST", "/v1/map/%24User?many=true", '{"name": "A"}')
    assert status == 422
    assert [error for issue in json.loads(body)["issues"] for error in shape_errors(issue, "issue")] == []
    # An array without many: mapped as one payload, and the answer says what map says.
    status, _, body = server.request("POST", "/v1/map/%24User", ' [{"name": "A", "age": 1}]')
    assert status == 422
    assert json.loads(body)["note"] == "the body is an array; to map each of its elements into $User, add ?many=true"
    assert "note" not in json.loads(server.map("$User", {"age": "old"})[2])
    status, _, body = server.request("POST", "/v1/map/%24User", '{\n  "name": ')
    assert status == 400 and "2:11" in json.loads(body)["error"]
    status, _, body = server.map("$Usr", {})
    assert status == 404
    answer = json.loads(body)
    assert '"$Usr"' in answer["error"] and "$User" in answer["help"]
    status, _, _ = server.map("$Adult", {"name": "Kid", "age": 9})
    assert status == 204
    status, _, _ = server.map("$User", {"name": "A"}, content_type="text/csv")
    assert status == 415
    status, _, body = server.map("$User", {"name": "A", "age": None}, )
    assert json.loads(body) == {"name": "A", "age": None}
    status, _, body = server.request("POST", "/v1/map/%24User?omitNulls=true", '{"name": "A"}')
    assert status == 200 and json.loads(body) == {"name": "A"}
    status, _, body = server.request("POST", "/v1/map/%24User?strict=true", '{"name": "A", "age": "30"}')
    assert status == 422


def test_ndjson_keeps_order_and_numbers_rejects(server):
    lines = []
    for index in range(500):
        if index % 50 == 7:
            lines.append('{"age": 1}')
        elif index % 50 == 8:
            lines.append("{not json")
        elif index % 50 == 9:
            lines.append("")
        else:
            lines.append(json.dumps({"name": f"user {index}", "age": index}))
    body = "\n".join(lines) + "\n"
    status, headers, data = server.request("POST", "/v1/map/%24User", body, content_type="application/x-ndjson")
    assert status == 200 and headers["Content-Type"] == "application/x-ndjson"
    out = data.decode().splitlines()
    records = [(n + 1, line) for n, line in enumerate(lines) if line]
    assert len(out) == len(records)
    for (number, line), answer in zip(records, out):
        value = json.loads(answer)
        if "@rejected" in value:
            assert shape_errors(value["@rejected"], "reject") == []
        if line.startswith("{not"):
            assert value["@rejected"]["line"] == number
            assert value["@rejected"]["issues"][0]["kind"] == "invalid JSON"
        elif '"name"' not in line:
            assert value["@rejected"]["line"] == number
            assert value["@rejected"]["issues"][0]["path"] == "$.name"
        else:
            assert value == {"name": json.loads(line)["name"], "age": json.loads(line)["age"]}
    # The same objects `mappings stream` writes.
    streamed = subprocess.run(
        [MAPPINGS, "stream", "--context", "$User", "--quiet"], input=body.encode(), cwd=server.root,
        capture_output=True, check=False,
    ).stdout.decode().splitlines()
    assert [line for line in out if not line.startswith('{"@rejected"')] == streamed
    # Several blocks of a MiB, mapped by several lanes: every line back, in order.
    many = "".join(json.dumps({"name": "n%d" % i, "age": i}) + ("\r\n" if i % 2 else "\n") for i in range(60_000))
    status, _, data = server.request("POST", "/v1/map/%24User", many, content_type="application/x-ndjson")
    assert status == 200
    assert [json.loads(line)["age"] for line in data.decode().splitlines()] == list(range(60_000))
    status, _, data = server.request(
        "POST", "/v1/map/%24Adult", '{"name": "a", "age": 3}\n{"name": "b", "age": 30}\n', content_type="application/x-ndjson"
    )
    assert data.decode().splitlines() == ['{"@filtered":{"line":1}}', '{"name":"b","age":30}']


def test_health_readiness_and_metrics_reconcile(server):
    assert server.request("GET", "/healthz")[0] == 200
    status, _, body = server.request("GET", "/readyz")
    assert status == 200 and b"version 1" in body
    before = server.metrics()
    for _ in range(7):
        assert server.map("$User", {"name": "x"})[0] == 200
    for _ in range(3):
        assert server.map("$User", {})[0] == 422
    server.request("POST", "/v1/map/%24User", '{"name": "a"}\n{}\n{"name": "b"}\n', content_type="application/x-ndjson")
    assert server.map("$Nope", {})[0] == 404
    after = server.metrics()

    def grew(name):
        return after.get(name, 0) - before.get(name, 0)

    assert grew('mappings_records_total{context="$User",outcome="written"}') == 9
    assert grew('mappings_records_total{context="$User",outcome="rejected"}') == 4
    assert grew('mappings_requests_total{code="200"}') == 8 + 1  # and the first /metrics
    assert grew('mappings_requests_total{code="422"}') == 3
    assert grew('mappings_requests_total{code="404"}') == 1
    assert after["mappings_catalog_version"] == 1
    assert after["mappings_in_flight"] == 0
    assert after["mappings_request_duration_seconds_count"] >= 12
    server.map("$Job", {"id": 1, "spin": 10})
    assert server.metrics()["mappings_lua_calls_total"] >= 1


def test_limits_body_and_in_flight(start):
    server = start("--max-body", "1k", "--max-in-flight", "1")
    status, _, body = server.request("POST", "/v1/map/%24User", json.dumps({"name": "x" * 2000}))
    assert status == 413 and "--max-body" in json.loads(body)["help"]
    thread, answers = slow_request(server, 60_000_000)
    wait_in_flight(server, 1)
    status, headers, _ = server.map("$User", {"name": "quick"})
    thread.join()
    assert status == 503 and headers["Retry-After"] == "1"
    assert answers["answer"][0] == 200
    assert server.map("$User", {"name": "after"})[0] == 200
    # Health and metrics are never refused for the load.
    assert server.request("GET", "/healthz")[0] == 200


def test_a_transformer_past_its_deadline_is_the_records_issue(start):
    server = start("--lua-timeout", "100")
    thread, answers = slow_request(server, 2_000_000_000)
    assert server.map("$User", {"name": "meanwhile"})[0] == 200
    thread.join()
    status, _, body = answers["answer"]
    assert status == 422
    assert json.loads(body)["issues"][0]["kind"] == "transformer failed"


def test_reloads_good_broken_and_failing_tests(server):
    contexts = server.root / "contexts" / "app.mappings"
    original = contexts.read_text()
    contexts.write_text(original.replace('"name": "name",\n        "age"', '"name": "login",\n        "age"', 1))
    status, _, body = server.request("POST", "/v1/reload")
    # The $User test maps "name": the edit breaks it, so the version is refused.
    assert status == 409 and json.loads(body)["result"] == "refused"
    assert "test" in json.loads(body)["error"]
    assert json.loads(server.map("$User", {"name": "Ann"})[2]) == {"name": "Ann", "age": None}
    contexts.write_text(original.replace('"$Adult"', '"$Grownup"'))
    status, _, body = server.request("POST", "/v1/reload")
    assert status == 200 and json.loads(body) == {"result": "swapped", "version": 2}
    assert server.map("$Grownup", {"name": "a"})[0] == 200
    assert server.map("$Adult", {"name": "a"})[0] == 404
    contexts.write_text(original + "{")
    status, _, body = server.request("POST", "/v1/reload")
    assert status == 409 and json.loads(body)["version"] == 2
    assert server.request("GET", "/readyz")[2] == b"ready: version 2\n"
    metrics = server.metrics()
    assert metrics['mappings_reloads_total{result="refused"}'] == 2
    assert metrics['mappings_reloads_total{result="swapped"}'] == 1
    assert metrics["mappings_catalog_version"] == 2


def test_watch_and_sighup(start):
    server = start("--watch")
    contexts = server.root / "contexts" / "app.mappings"
    contexts.write_text(contexts.read_text().replace('"$Adult"', '"$Major"'))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and server.map("$Major", {"name": "a"})[0] != 200:
        time.sleep(0.2)
    assert server.map("$Major", {"name": "a"})[0] == 200
    # SIGHUP with no file changed since: nothing to swap, no version taken.
    server.process.send_signal(signal.SIGHUP)
    time.sleep(1)
    assert server.request("GET", "/readyz")[2] == b"ready: version 2\n"
    contexts.write_text(contexts.read_text().replace('"$Major"', '"$Senior"'))
    server.process.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and b"version 3" not in server.request("GET", "/readyz")[2]:
        time.sleep(0.1)
    assert server.request("GET", "/readyz")[2] == b"ready: version 3\n"


def test_sigterm_drains_the_requests_in_flight_and_exits_0(start):
    server = start("--drain-timeout", "30")
    thread, answers = slow_request(server, 80_000_000)
    wait_in_flight(server, 1)
    server.process.send_signal(signal.SIGTERM)
    thread.join()
    assert answers["answer"][0] == 200
    assert json.loads(answers["answer"][2]) == {"id": 1, "result": 80_000_000}
    assert server.process.wait(timeout=30) == 0


def test_an_address_in_use_or_a_broken_catalog_is_status_2(start, tmp_path):
    server = start()
    taken = subprocess.run(
        [MAPPINGS, "serve", "--listen", f"127.0.0.1:{server.port}"], cwd=server.root, capture_output=True, timeout=60,
        check=False,
    )
    assert taken.returncode == 2
    (tmp_path / "contexts").mkdir()
    (tmp_path / "contexts" / "a.mappings").write_text('{ "$A": { "@class": "Nope" } }')
    broken = subprocess.run([MAPPINGS, "serve", "--listen", "127.0.0.1:0"], cwd=tmp_path, capture_output=True, timeout=60, check=False)
    assert broken.returncode == 2 and b'unknown class "Nope"' in broken.stderr


def test_stream_serves_the_same_metrics_while_it_runs():
    root = workspace()
    stream = subprocess.Popen(
        [MAPPINGS, "stream", "--context", "$User", "--metrics-listen", "127.0.0.1:0"], cwd=root,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        line = stream.stderr.readline().decode()
        port = int(line.rsplit(":", 1)[1].split("/")[0])

        def scrape():
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("GET", "/metrics")
            text = connection.getresponse().read().decode()
            connection.close()
            return {name: float(value) for name, value in (l.rsplit(" ", 1) for l in text.splitlines() if l and not l.startswith("#"))}

        def until(name, value):
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if scrape().get(name) == value:
                    return
                time.sleep(0.1)
            raise AssertionError(f"{name} never reached {value}: {scrape()}")

        stream.stdin.write(b'{"name": "a"}\n{"name": "b"}\n{"name": "c"}\n')
        stream.stdin.flush()
        until('mappings_records_total{context="$User",outcome="written"}', 3)
        stream.stdin.write(b'{"age": 1}\n')
        stream.stdin.flush()
        until('mappings_records_total{context="$User",outcome="rejected"}', 1)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", "/healthz")
        assert connection.getresponse().status == 200
        connection.close()
        stream.stdin.close()
        assert stream.wait(timeout=60) == 1
        assert len(stream.stdout.read().splitlines()) == 3
    finally:
        if stream.poll() is None:
            stream.kill()
        stream.stdout.close()
        stream.stderr.close()


def test_a_request_in_flight_finishes_on_the_version_it_started_with(server):
    thread, answers = slow_request(server, 50_000_000)
    wait_in_flight(server, 1)
    script = server.root / "scripts" / "Slow.lua"
    script.write_text(script.read_text().replace("return n\n", "return n * 2\n"))
    status, _, body = server.request("POST", "/v1/reload")
    assert status == 200 and json.loads(body)["version"] == 2
    thread.join()
    assert json.loads(answers["answer"][2]) == {"id": 1, "result": 50_000_000}
    assert json.loads(server.map("$Job", {"id": 2, "spin": 10})[2]) == {"id": 2, "result": 20}
