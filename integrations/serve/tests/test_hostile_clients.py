"""What `mappings serve` grants a client, driven by clients that stall, send bodies that are not
HTTP/1.1's, go away, or ask for what the API does not have; and what it says of itself: reloads
that change nothing, versions, metrics, draining. Every wait is bounded."""

import http.client
import json
import signal
import socket
import threading
import time

from conftest import workspace
from test_serve import wait_in_flight


def raw(port, data, timeout=15):
    """Sends bytes as they are; reads until the server closes. Returns (answer, seconds)."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(data)
        answer = b""
        while True:
            try:
                chunk = connection.recv(65536)
            except socket.timeout:
                return answer + b"<timed out>", time.monotonic() - started
            except OSError:
                break
            if not chunk:
                break
            answer += chunk
    return answer, time.monotonic() - started


def head(path, length=None, extra=b""):
    lines = b"POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" % path.encode()
    if length is not None:
        lines += b"Content-Length: %d\r\n" % length
    return lines + extra + b"\r\n"


def test_stalled_clients_hold_no_mapping_slot(start):
    """64 connections send a head and 4 of 100 body bytes, then wait; 64 more send half a head:
    with --max-in-flight 64 every other request still gets its answer, at once."""
    server = start("--max-in-flight", "64", "--header-timeout", "3", "--body-timeout", "60")
    stalled = []
    try:
        for index in range(128):
            connection = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            if index % 2:
                connection.sendall(head("/v1/map/%24User", 100) + b'{"na')
            else:
                connection.sendall(b"POST /v1/map/%24User HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            stalled.append(connection)
        time.sleep(0.3)
        started = time.monotonic()
        for index in range(40):
            status, _, body = server.map("$User", {"name": "n%d" % index})
            assert status == 200, body
        assert time.monotonic() - started < 10
        assert server.metrics()["mappings_in_flight"] == 0
        # The stalled ones are closed once they have gone quiet for --header-timeout.
        deadline = time.monotonic() + 20
        closed = 0
        for connection in stalled:
            connection.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                if connection.recv(1) == b"":
                    closed += 1
            except OSError:
                closed += 1
        assert closed == len(stalled)
    finally:
        for connection in stalled:
            connection.close()


def test_a_body_that_trickles_is_408_at_the_body_timeout(start):
    server = start("--header-timeout", "5", "--body-timeout", "2")
    connection = socket.create_connection(("127.0.0.1", server.port), timeout=15)
    started = time.monotonic()
    connection.sendall(head("/v1/map/%24User", 200) + b"{")
    answer = b""
    # A byte a second: never quiet for the header timeout, never whole.
    while b"\r\n\r\n" not in answer and time.monotonic() - started < 12:
        try:
            connection.sendall(b" ")
        except OSError:
            break
        connection.settimeout(1)
        try:
            answer += connection.recv(65536)
        except socket.timeout:
            pass
    connection.close()
    assert answer.startswith(b"HTTP/1.1 408"), answer
    assert b"--body-timeout" in answer
    assert time.monotonic() - started < 8
    assert server.metrics()["mappings_request_body_timeouts_total"] == 1


def test_malformed_framing_is_400_and_a_client_gone_is_no_413(server):
    answer, _ = raw(server.port, head("/v1/map/%24User", extra=b"Transfer-Encoding: chunked\r\n") + b"zz\r\n{}\r\n0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400") and b"chunk size" in answer, answer
    answer, _ = raw(server.port, head("/v1/map/%24User", extra=b"Transfer-Encoding: gzip\r\n") + b'{"name": "a"}')
    assert answer.startswith(b"HTTP/1.1 400") and b"Transfer-Encoding" in answer, answer
    before = server.metrics()
    connection = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    connection.sendall(head("/v1/map/%24User", 1000) + b'{"name"')
    time.sleep(0.3)
    connection.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and server.metrics().get("mappings_requests_abandoned_total", 0) < 1:
        time.sleep(0.1)
    after = server.metrics()
    assert after["mappings_requests_abandoned_total"] == 1
    assert after.get('mappings_requests_total{code="413"}', 0) == before.get('mappings_requests_total{code="413"}', 0)
    # Still answers, and a body over --max-body is 413 at once, the connection closed.
    assert server.map("$User", {"name": "after"})[0] == 200


def test_a_declared_body_over_the_limit_is_413_before_it_is_sent(server):
    """The head alone says 100 MiB: the answer comes at once, not at the header timeout, and
    the connection closes."""
    answer, seconds = raw(server.port, head("/v1/map/%24User", 100 << 20))
    assert answer.startswith(b"HTTP/1.1 413"), answer
    assert seconds < 3, seconds
    headers, _, body = answer.partition(b"\r\n\r\n")
    assert b"connection: close" in headers.lower()
    assert json.loads(body) == {"error": "the body is larger than 16777216 bytes",
                                "help": "raise --max-body, or send smaller bodies"}
    assert server.metrics()['mappings_requests_total{code="413"}'] == 1
    # A body within the limit, declared so, still maps.
    assert server.map("$User", {"name": "after"})[0] == 200


def test_a_transfer_coding_other_than_chunked_alone_is_400(server):
    # (`chunked, chunked` the HTTP parser refuses itself, before any route: 400 without a body.)
    for coding in [b"gzip, chunked", b"identity, chunked", b"gzip"]:
        answer, seconds = raw(server.port, head("/v1/map/%24User", extra=b"Transfer-Encoding: " + coding + b"\r\n")
                              + b"d\r\n{\"name\": \"a\"}\r\n0\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 400"), (coding, answer)
        assert b"Transfer-Encoding other than chunked" in answer and coding in answer, answer
        assert seconds < 3
    answer, _ = raw(server.port, head("/v1/map/%24User", extra=b"Transfer-Encoding: chunked\r\nConnection: close\r\n")
                    + b"d\r\n{\"name\": \"a\"}\r\n0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200"), answer


def test_many_maps_an_array_to_an_array(server):
    status, headers, body = server.request("POST", "/v1/map/%24User?many=true", '[{"name": "a"}, {"name": "b", "age": 7}]')
    assert status == 200, body
    assert json.loads(body) == [{"name": "a", "age": None}, {"name": "b", "age": 7}]
    status, _, body = server.request("POST", "/v1/map/%24Adult?many=1", '[{"name": "a", "age": 9}, {"name": "b", "age": 70}]')
    assert status == 200 and json.loads(body) == [{"name": "b", "age": 70}]
    status, _, body = server.request("POST", "/v1/map/%24User?many=true", '[{"name": "a"}, {"age": 3}, {"name": "c", "age": "x"}]')
    assert status == 422
    paths = [issue["path"] for issue in json.loads(body)["issues"]]
    assert paths == ["$[1].name", "$[2].age"], paths
    status, _, body = server.request("POST", "/v1/map/%24User?many=true", '{"name": "a"}')
    assert status == 422 and "not an object" in json.loads(body)["issues"][0]["message"]
    status, _, body = server.request("POST", "/v1/map/%24User?many=true", '[{"name": "a"} {"name": "b"}]')
    assert status == 400, body
    # Big numbers keep their digits, element by element.
    status, _, body = server.request("POST", "/v1/map/%24User?many=true", '[{"name": 123456789012345678901234567890}]')
    assert status == 200 and b"123456789012345678901234567890" in body
    # Without many, an array is one payload, as before.
    assert server.request("POST", "/v1/map/%24User", '[{"name": "a"}]')[0] == 422


def test_an_unknown_query_parameter_or_a_flag_of_another_value_is_400(server):
    status, _, body = server.request("POST", "/v1/map/%24User?omitNull=true", '{"name": "a"}')
    assert status == 400 and "omitNull" in json.loads(body)["error"] and "omitNulls" in json.loads(body)["help"]
    status, _, body = server.request("POST", "/v1/map/%24User?strict=yes", '{"name": "a"}')
    assert status == 400 and "true or false" in json.loads(body)["error"]
    status, _, body = server.request("POST", "/v1/map/%24User?omitNulls=false&strict=0", '{"name": "a"}')
    assert status == 200 and json.loads(body) == {"name": "a", "age": None}
    status, _, body = server.request("POST", "/v1/map/%24User?many=true", '{"name": "a"}\n', content_type="application/x-ndjson")
    assert status == 400


def test_a_query_parameter_given_twice_is_400_naming_it(server):
    for query, name in [("many=true&many=false", "many"), ("strict=1&strict=1", "strict"),
                        ("omitNulls&strict=0&omitNulls=true", "omitNulls")]:
        status, _, body = server.request("POST", "/v1/map/%24User?" + query, '[{"name": "a"}]')
        assert status == 400, (query, body)
        answer = json.loads(body)
        assert answer["error"] == f"the query parameter {name} is given more than once", answer
        assert answer["help"] == f"give ?{name} once"


def test_reloads_take_version_numbers_only_when_they_swap(server):
    contexts = server.root / "contexts" / "app.mappings"
    original = contexts.read_text()
    status, _, body = server.request("POST", "/v1/reload")
    assert status == 200 and json.loads(body) == {"result": "unchanged", "version": 1}
    contexts.write_text(original + "{")
    status, _, body = server.request("POST", "/v1/reload")
    assert status == 409 and json.loads(body)["version"] == 1 and "attempt" not in json.loads(body)
    status, _, body = server.request("POST", "/v1/reload")
    assert status == 409
    # Back to the files serving: unchanged.
    contexts.write_text(original)
    assert json.loads(server.request("POST", "/v1/reload")[2]) == {"result": "unchanged", "version": 1}
    contexts.write_text(original.replace('"$Adult"', '"$Grownup"'))
    assert json.loads(server.request("POST", "/v1/reload")[2]) == {"result": "swapped", "version": 2}
    metrics = server.metrics()
    assert metrics['mappings_reloads_total{result="unchanged"}'] == 2
    assert metrics['mappings_reloads_total{result="refused"}'] == 2
    assert metrics["mappings_catalog_version"] == 2


def test_a_refused_reload_is_logged_with_no_version_and_no_raw_control_characters(start):
    server = start()
    contexts = server.root / "contexts" / "app.mappings"
    contexts.write_text(contexts.read_text().replace('"@class": "User",\n        "@filter"', '"@class": "\\u001b]0;PWN\\u0007\\u001b[2J",\n        "@filter"'))
    status, _, _ = server.request("POST", "/v1/reload")
    assert status == 409
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=30) == 0
    log = server.process.stderr.read().decode()
    assert "a reload was refused, version 1 keeps serving" in log, log
    assert "version 2" not in log
    assert "\\u001b]0;PWN\\u0007\\u001b[2J" in log
    assert not any(ord(c) < 0x20 and c != "\n" for c in log), repr(log)


def test_every_metric_family_has_help_and_type(server):
    server.map("$User", {"name": "a"})
    _, _, data = server.request("GET", "/metrics")
    lines = data.decode().splitlines()
    families = [line.split()[2] for line in lines if line.startswith("# TYPE ")]
    helped = {line.split()[2] for line in lines if line.startswith("# HELP ")}
    assert len(families) >= 8 and set(families) == helped, (families, helped)
    for index, line in enumerate(lines):
        if line.startswith("# TYPE "):
            assert lines[index - 1].startswith("# HELP " + line.split()[2] + " ")


def test_draining_is_observable_for_the_drain_delay(start):
    server = start("--drain-delay", "3")
    assert server.request("GET", "/readyz")[0] == 200
    server.process.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    status, _, body = server.request("GET", "/readyz")
    assert status == 503 and body == b"draining\n"
    # Still answering meanwhile.
    assert server.map("$User", {"name": "a"})[0] == 200
    assert server.process.wait(timeout=30) == 0


def test_a_request_cut_at_the_drain_timeout_is_logged(start):
    server = start("--drain-timeout", "1")
    answers = {}

    def send():
        try:
            answers["answer"] = server.map("$Job", {"id": 1, "spin": 2_000_000_000})
        except (http.client.HTTPException, OSError) as error:
            answers["error"] = error  # cut: the connection closes with no answer

    thread = threading.Thread(target=send)
    thread.start()
    wait_in_flight(server, 1)
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=30) == 0
    log = server.process.stderr.read().decode()
    assert "mappings serve: cut at the drain timeout (--drain-timeout 1.0 seconds): POST /v1/map/%24Job after" in log, log
    thread.join(timeout=30)
    assert "error" in answers
