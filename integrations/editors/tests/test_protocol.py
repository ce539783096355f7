"""The wire itself: frames that are not messages, requests out of order, and the way out."""

import json
import subprocess

from conftest import MAPPINGS, make_workspace


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def message(**fields) -> bytes:
    return frame(json.dumps({"jsonrpc": "2.0", **fields}).encode())


def responses(output: bytes) -> list[dict]:
    found = []
    while output:
        header, _, rest = output.partition(b"\r\n\r\n")
        length = int(header.split(b":")[1])
        found.append(json.loads(rest[:length]))
        output = rest[length:]
    return found


def run(stdin: bytes) -> tuple[int, list[dict]]:
    result = subprocess.run(
        [MAPPINGS, "lsp"], input=stdin, capture_output=True, timeout=60, cwd=make_workspace(), check=False
    )
    return result.returncode, responses(result.stdout)


def test_garbage_is_answered_and_the_server_goes_on():
    stdin = (
        message(id=1, method="textDocument/hover", params={})
        + frame(b"{not json")
        + message(id=2, method="initialize", params={"capabilities": {}})
        + frame(b'"just a string"')
        + message(id=3, method="no/suchMethod", params={})
        + message(id=4, method="textDocument/hover", params={"position": "nowhere"})
        + message(id=5, method="textDocument/definition", params={"textDocument": {"uri": 7}})
        + message(id=6, method="shutdown")
        + message(id=7, method="textDocument/hover", params={})
        + message(method="exit")
    )
    status, answers = run(stdin)
    assert status == 0
    by_id = {a.get("id"): a for a in answers if "id" in a}
    assert by_id[1]["error"]["code"] == -32002  # before initialize
    assert any(a.get("error", {}).get("code") == -32700 for a in answers)  # not JSON
    assert "capabilities" in by_id[2]["result"]
    assert by_id[3]["error"]["code"] == -32601
    assert by_id[4]["result"] is None and by_id[5]["result"] is None
    assert by_id[6]["result"] is None
    assert by_id[7]["error"]["code"] == -32600  # after shutdown


def test_exit_without_shutdown_is_status_1_and_a_closed_stream_ends_it():
    init = message(id=1, method="initialize", params={"capabilities": {}})
    status, _ = run(init + message(method="exit"))
    assert status == 1
    status, answers = run(init)
    assert status == 1 and answers[0]["id"] == 1


def test_utf8_positions_when_the_editor_offers_them():
    status, answers = run(
        message(id=1, method="initialize", params={"capabilities": {"general": {"positionEncodings": ["utf-8", "utf-16"]}}})
        + message(id=2, method="shutdown")
        + message(method="exit")
    )
    assert status == 0
    assert answers[0]["result"]["capabilities"]["positionEncoding"] == "utf-8"
