"""`mappings playground` over HTTP, as its page drives it: the state, live runs, saving, safety."""

import json
from pathlib import Path
import socket
import time

from jsonschema import Draft202012Validator

TWEET = "$TweetModel"


def run(server, files=None, payload=None, context=TWEET):
    status, answer = server.json("POST", "/api/run", {"context": context, "files": files or {}, "payload": payload})
    assert status == 200, answer
    return answer


def test_the_page_and_its_state(playground, workspace):
    server = playground("--context", TWEET, "--input", "twitter/tweet.json")
    status, headers, page = server.request("GET", "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    text = page.decode()
    for element in ('id="mappings"', 'id="payload"', 'id="output"', 'id="issues"', 'id="explain"', 'id="tests"'):
        assert element in text, element
    # Nothing is fetched from elsewhere: no script, style or image from another address.
    assert 'src="http' not in text and 'href="http' not in text and "@import" not in text
    assert "Access-Control-Allow-Origin" not in headers
    status, state = server.json("GET", "/api/state")
    assert status == 200
    assert state["context"] == TWEET and TWEET in state["contexts"]
    assert state["payload"] == (workspace / "twitter" / "tweet.json").read_text()
    paths = [file["path"] for file in state["files"]]
    assert "contexts/twitter.mappings" in paths and any(path.endswith(".lua") for path in paths)
    assert state["contextFiles"][TWEET] == "contexts/twitter.mappings"
    assert state["writes"] is False


def test_the_first_test_input_is_the_payload_without_input(playground):
    server = playground()
    status, state = server.json("GET", "/api/state")
    assert status == 200 and state["payload"].strip() not in ("", "{}")


def test_a_run_gives_the_output_the_explain_trace_and_the_tests(playground, workspace):
    server = playground()
    payload = (workspace / "twitter" / "tweet.json").read_text()
    answer = run(server, payload=payload)
    output = json.loads(answer["output"])
    assert output["identifier"] == "240859602684612608" and output["user"]["name"] == "Twitter API"
    assert answer["issues"] == [] and answer["diagnostics"] == []
    assert any("identifier" in line for line in answer["explain"])
    assert answer["tests"] and all(test["passed"] for test in answer["tests"]), answer["tests"]


def test_a_bad_payload_gives_its_issue_by_path(playground):
    server = playground()
    answer = run(server, payload=json.dumps({"id_str": 5, "user": {"name": "Ann"}}))
    issues = {issue["path"]: issue for issue in answer["issues"]}
    assert "$.text" in issues, answer["issues"]
    issue = issues["$.text"]
    assert issue["kind"] == "missing required value" and issue["property"].startswith("TweetModel.")
    assert issue["file"] == "contexts/twitter.mappings" and issue["line"] > 0
    # The one shape of an issue (docs/issue.schema.json), with the playground's file, line and text.
    shapes = json.loads((Path(__file__).resolve().parents[3] / "docs" / "issue.schema.json").read_text())
    validator = Draft202012Validator({"$ref": "#/$defs/issue", "$defs": shapes["$defs"]})
    assert [error.message for issue in answer["issues"] for error in validator.iter_errors(issue)] == []
    not_json = run(server, payload='{"text": ')
    assert not_json["payloadError"][0]["file"] == "payload" and not_json["output"] is None


def test_an_edit_of_the_mappings_changes_the_output_and_a_broken_one_is_a_diagnostic(playground, workspace):
    server = playground()
    payload = (workspace / "twitter" / "tweet.json").read_text()
    original = (workspace / "contexts" / "twitter.mappings").read_text()
    edited = original.replace('"message": "text"', '"message": "id_str"', 1)
    assert edited != original
    answer = run(server, {"contexts/twitter.mappings": edited}, payload)
    assert json.loads(answer["output"])["message"] == "240859602684612608"
    broken = original.replace('"@class": "TweetModel"', '"@class": "TweetModl"', 1)
    answer = run(server, {"contexts/twitter.mappings": broken}, payload)
    assert answer["output"] is None
    diagnostic = answer["diagnostics"][0]
    assert diagnostic["message"] == 'unknown class "TweetModl"' and diagnostic["file"] == "contexts/twitter.mappings"
    assert diagnostic["line"] == original[: original.index('"@class": "TweetModel"')].count("\n") + 1
    assert "did you mean" in diagnostic["help"]
    # The files on disk are not touched.
    assert (workspace / "contexts" / "twitter.mappings").read_text() == original


def test_no_write_without_write_and_a_write_with_it(playground, workspace):
    path = workspace / "contexts" / "twitter.mappings"
    original = path.read_text()
    edited = original.replace('"message": "text"', '"message": "full_text"', 1)
    server = playground()
    status, answer = server.json("POST", "/api/save", {"files": {"contexts/twitter.mappings": edited}})
    assert status == 403 and "--write" in answer["error"]
    assert path.read_text() == original
    writer = playground("--write")
    broken = original.replace('"@class": "TweetModel"', '"@class": "TweetModl"', 1)
    status, answer = writer.json("POST", "/api/save", {"files": {"contexts/twitter.mappings": broken}})
    assert status == 409 and answer["diagnostics"] and path.read_text() == original
    status, answer = writer.json("POST", "/api/save", {"files": {"../outside.mappings": "{}"}})
    assert status == 403 and not (workspace.parent / "outside.mappings").exists()
    status, answer = writer.json("POST", "/api/save", {"files": {"contexts/twitter.mappings": edited}})
    assert status == 200 and answer["saved"] == ["contexts/twitter.mappings"]
    assert path.read_text() == edited


def test_requests_for_another_host_or_from_another_origin_are_refused(playground):
    server = playground()
    status, _, body = server.request("GET", "/api/state", headers={"Host": "evil.example:%d" % server.port})
    assert status == 421 and b"localhost" in body
    status, _, _ = server.request("GET", "/", headers={"Host": "localhost:%d" % server.port})
    assert status == 200
    status, _, _ = server.request(
        "POST", "/api/run", {"context": TWEET, "files": {}, "payload": "{}"}, headers={"Origin": "http://evil.example"})
    assert status == 403
    status, headers, _ = server.request(
        "POST", "/api/run", {"context": TWEET, "files": {}, "payload": "{}"},
        headers={"Origin": "http://127.0.0.1:%d" % server.port})
    assert status == 200 and "Access-Control-Allow-Origin" not in headers


def raw(port, data, timeout=10):
    """Sends bytes as they are and reads the answer until the server closes (or `timeout`)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        try:
            connection.sendall(data)
        except OSError:
            pass  # the server answered and closed before the whole body went
        answer = b""
        while True:
            try:
                chunk = connection.recv(65536)
            except socket.timeout:
                return answer + b"<timed out>"
            except OSError:
                return answer
            if not chunk:
                return answer
            answer += chunk


def test_a_page_of_another_port_or_scheme_cannot_save_nor_run_even_without_a_preflight(playground, workspace):
    """A page on another local port or scheme posts text/plain (no CORS preflight): refused,
    the file untouched; only the page's own origin (scheme, host and port) is let through."""
    server = playground("--write")
    target = workspace / "contexts" / "twitter.mappings"
    before = target.read_bytes()
    edits = json.dumps({"files": {"contexts/twitter.mappings": before.decode() + "\n"}}).encode()
    for origin in ["http://localhost:1", "https://127.0.0.1:%d" % server.port, "http://127.0.0.1:%d" % (server.port + 1),
                   "null", "http://127.0.0.1:%d.evil.example" % server.port]:
        for path in ["/api/save", "/api/run"]:
            status, _, body = raw_post(server, path, edits, origin)
            assert status == 403, (origin, path, body)
    assert target.read_bytes() == before
    status, _, _ = raw_post(server, "/api/save", edits, "http://127.0.0.1:%d" % server.port)
    assert status == 200 and target.read_bytes() != before
    status, _, _ = raw_post(server, "/api/run", json.dumps({"context": TWEET, "files": {}, "payload": "{}"}).encode(),
                            "http://localhost:%d" % server.port, host="localhost:%d" % server.port)
    assert status == 200


def raw_post(server, path, body, origin, host=None):
    """A POST as a browser page of `origin` sends it, with a text/plain body."""
    host = host or "127.0.0.1:%d" % server.port
    answer = raw(server.port, b"POST %s HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nContent-Type: text/plain\r\n"
                 b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (path.encode(), host.encode(), origin.encode(),
                                                                       len(body), body))
    head, _, text = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), head, text


def test_host_is_read_strictly(playground):
    server = playground()
    port = server.port
    for host, expected in [
        ("127.0.0.1:%d" % port, 200), ("localhost:%d" % port, 200), ("LOCALHOST:%d" % port, 200),
        ("127.0.0.1", 421), ("localhost", 421), ("127.0.0.1:%d" % (port + 1), 421), ("127.0.0.1:0%d" % port, 421),
        ("evil.example:%d" % port, 421), ("127.0.0.1:%d@evil.example" % port, 421), ("", 421),
    ]:
        answer = raw(port, b"GET /api/state HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % host.encode())
        assert answer.startswith(b"HTTP/1.1 %d" % expected), (host, answer[:200])
    twice = raw(port, b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nHost: evil.example:%d\r\n"
                      b"Connection: close\r\n\r\n" % (port, port))
    assert twice.startswith(b"HTTP/1.1 421") and b"two Host headers" in twice


def test_a_body_over_the_limit_is_413_at_once(playground):
    server = playground()
    size = 9 << 20
    started = time.monotonic()
    answer = raw(server.port, b"POST /api/run HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                              b"Content-Length: %d\r\n\r\n" % (server.port, size) + b" " * size)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"larger than 8388608 bytes" in answer
    assert time.monotonic() - started < 5


def test_a_declared_body_over_the_limit_is_413_before_it_is_sent(playground):
    """The head alone says 100 MiB: the answer comes at once, not at the header timeout, and
    the connection closes."""
    server = playground()
    started = time.monotonic()
    answer = raw(server.port, b"POST /api/run HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                              b"Content-Length: %d\r\n\r\n" % (server.port, 100 << 20))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert time.monotonic() - started < 3
    headers, _, body = answer.partition(b"\r\n\r\n")
    assert b"connection: close" in headers.lower()
    assert json.loads(body)["error"] == "the body is larger than 8388608 bytes"


def test_a_transfer_coding_other_than_chunked_alone_is_400(playground):
    server = playground()
    body = json.dumps({"context": TWEET, "files": {}, "payload": "{}"}).encode()
    for coding, expected in [(b"gzip, chunked", 400), (b"chunked", 200)]:
        answer = raw(server.port, b"POST /api/run HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                                  b"Transfer-Encoding: %s\r\nConnection: close\r\n\r\n%x\r\n%s\r\n0\r\n\r\n"
                     % (server.port, coding, len(body), body))
        assert answer.startswith(b"HTTP/1.1 %d" % expected), (coding, answer[:300])
    assert b"Transfer-Encoding other than chunked" in raw(
        server.port, b"POST /api/run HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
                     b"0\r\n\r\n" % server.port)


def test_a_request_of_another_site_without_an_origin_may_not_change_anything(playground, workspace):
    """A browser that sends no Origin still says where a request comes from (Sec-Fetch-Site):
    another site's, even of this host on another port (same-site), may not run nor save."""
    server = playground("--write")
    target = workspace / "contexts" / "twitter.mappings"
    before = target.read_bytes()
    edits = json.dumps({"files": {"contexts/twitter.mappings": before.decode() + "\n"}}).encode()
    run_body = json.dumps({"context": TWEET, "files": {}, "payload": "{}"}).encode()

    def post(path, body, site):
        answer = raw(server.port, b"POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nSec-Fetch-Site: %s\r\n"
                                  b"Content-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                     % (path.encode(), server.port, site.encode(), len(body), body))
        head, _, text = answer.partition(b"\r\n\r\n")
        return int(head.split(b" ")[1]), text

    for site in ["cross-site", "same-site", "Cross-Site"]:
        for path, body in [("/api/save", edits), ("/api/run", run_body), ("/api/new", b'{"payload": "{}"}')]:
            status, text = post(path, body, site)
            assert status == 403, (site, path, text)
            assert "another site" in json.loads(text)["error"]
    assert target.read_bytes() == before
    # Reading is not changing: the state is answered whoever asks (the Host check guards it).
    answer = raw(server.port, b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nSec-Fetch-Site: cross-site\r\n"
                              b"Connection: close\r\n\r\n" % server.port)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    # The page's own requests (same-origin), and one the user typed (none), are taken.
    assert post("/api/run", run_body, "same-origin")[0] == 200
    assert post("/api/run", run_body, "none")[0] == 200
    assert post("/api/save", edits, "same-origin")[0] == 200 and target.read_bytes() != before


def test_a_script_that_loops_is_a_timeout_issue_and_the_playground_stays_responsive(playground, workspace):
    server = playground("--lua-timeout", "300")
    script = workspace / "scripts" / "MyTransformers.lua"
    looping = "local function spin() while true do end end\n" + script.read_text()
    looping = looping.replace("return MyTransformers", "MyTransformers.coordinate2DFromDictionary = function() spin() end\nreturn MyTransformers")
    payload = (workspace / "twitter" / "tweet.json").read_text()
    start = time.monotonic()
    answer = run(server, {"scripts/MyTransformers.lua": looping}, payload)
    assert time.monotonic() - start < 20
    assert any("deadline" in issue["message"] or "budget" in issue["message"] for issue in answer["issues"]), answer["issues"]
    status, state = server.json("GET", "/api/state")
    assert status == 200


def test_new_infers_a_project_from_the_payload_and_runs_it_from_the_page_alone(playground):
    server = playground("--context", "$TweetModel")
    payload = '{"name": "London", "dt": 1485789600, "main": {"temp": 280.32, "temp_min": 279.15}, "rain": {"1h": 0.5}}'
    status, answer = server.json("POST", "/api/new", {"payload": payload, "model": "Weather"})
    assert status == 200, answer
    assert answer["context"] == "$Weather"
    paths = [file["path"] for file in answer["files"]]
    assert paths == ["contexts/models.mappings", "contexts/Weather.mappings", "scripts/Transformers.lua"]
    files = {file["path"]: file["text"] for file in answer["files"]}
    assert '"dt": "Date"' in files["contexts/models.mappings"]
    status, run = server.json("POST", "/api/run", {"context": "$Weather", "files": files, "payload": payload,
                                                  "project": True})
    assert status == 200 and run["testsRun"] is True, run
    assert '"dt": "2017-01-30T15:20:00Z"' in run["output"], run
    assert run["issues"] == [] and all(test["passed"] for test in run["tests"]), run
    # A payload that is no object is refused with the reason.
    status, refused = server.json("POST", "/api/new", {"payload": "[1, 2]", "model": "X"})
    assert status == 422 and "not an object" in refused["error"], refused


def test_tests_not_run_while_the_files_do_not_load(playground, workspace):
    server = playground("--context", "$TweetModel")
    path = "contexts/twitter.mappings"
    broken = (workspace / path).read_text().replace('"@class": "TweetModel"', '"@class": "TweetModl"', 1)
    status, run = server.json("POST", "/api/run", {"context": "$TweetModel", "files": {path: broken}, "payload": "{}"})
    assert status == 200 and run["testsRun"] is False and run["tests"] == [], run
