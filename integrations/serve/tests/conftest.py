"""A `mappings serve` on 127.0.0.1 with a free port, over a workspace of its own."""

import http.client
import json
import os
import pathlib
import re
import signal
import subprocess
import tempfile
import time

import pytest

REPOSITORY = pathlib.Path(__file__).resolve().parents[3]
MAPPINGS = os.environ.get("MAPPINGS_BINARY", str(REPOSITORY / ".build" / "debug" / "mappings"))

CONTEXTS = """\
{
    "@models": {
        "User": { "name": "String", "age": "Int?" },
        "Job": { "id": "Int", "result": "Int?" }
    },
    "$User": {
        "@class": "User",
        "name": "name",
        "age": { "@keyPath": "age", "@optional": true },
        "@tests": [ { "name": "a user", "input": { "name": "Ann" }, "output": { "name": "Ann", "age": null } } ]
    },
    "$Adult": {
        "@class": "User",
        "@filter": "value.age == nil or value.age >= 18",
        "name": "name",
        "age": { "@keyPath": "age", "@optional": true }
    },
    "$Job": {
        "@class": "Job",
        "id": "id",
        "result": { "@keyPath": "spin", "@optional": true, "@transformClass": "Slow", "@transformSelector": "spin:" }
    }
}
"""

SLOW_LUA = """\
local Slow = {}
-- Counts to the value: a call that takes as long as asked.
function Slow.spin(value)
    local n = 0
    for i = 1, value do n = n + 1 end
    return n
end
return Slow
"""


class Server:
    def __init__(self, root: pathlib.Path, *options: str):
        self.root = root
        self.process = subprocess.Popen(
            [MAPPINGS, "serve", "--listen", "127.0.0.1:0", "--lua-timeout", "20000", "--lua-budget", "2000000000", *options],
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.log: list[str] = []
        deadline = time.monotonic() + 60
        self.port = None
        while time.monotonic() < deadline:
            line = self.process.stderr.readline().decode()
            if not line:
                break
            self.log.append(line)
            found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if found:
                self.port = int(found.group(1))
                break
        assert self.port, "".join(self.log) + self.process.stderr.read().decode()

    def request(self, method: str, path: str, body: bytes | str | None = None, content_type: str | None = "application/json", headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        sent = dict(headers or {})
        if content_type is not None and body is not None:
            sent["Content-Type"] = content_type
        if isinstance(body, str):
            body = body.encode()
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response.status, dict(response.getheaders()), data

    def map(self, context: str, payload, **kwargs):
        return self.request("POST", "/v1/map/" + context.replace("$", "%24"), json.dumps(payload), **kwargs)

    def metrics(self) -> dict[str, float]:
        _, _, data = self.request("GET", "/metrics")
        values = {}
        for line in data.decode().splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                values[name] = float(value)
        return values

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=60)
        finally:
            self.process.stderr.close()
            self.process.stdout.close()


def workspace() -> pathlib.Path:
    root = pathlib.Path(tempfile.mkdtemp(prefix="mappings-serve-"))
    (root / "contexts").mkdir()
    (root / "scripts").mkdir()
    (root / "contexts" / "app.mappings").write_text(CONTEXTS)
    (root / "scripts" / "Slow.lua").write_text(SLOW_LUA)
    return root


@pytest.fixture
def server():
    running = Server(workspace())
    yield running
    running.stop()


@pytest.fixture
def start():
    started = []

    def make(*options, root=None):
        running = Server(root or workspace(), *options)
        started.append(running)
        return running

    yield make
    for running in started:
        running.stop()
