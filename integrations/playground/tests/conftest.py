"""A `mappings playground` on 127.0.0.1 with a free port, over a workspace of its own."""

import http.client
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import time

import pytest

REPOSITORY = pathlib.Path(__file__).resolve().parents[3]
MAPPINGS = os.environ.get("MAPPINGS_BINARY", str(REPOSITORY / ".build" / "debug" / "mappings"))


class Playground:
    def __init__(self, root: pathlib.Path, *options: str):
        self.root = root
        self.process = subprocess.Popen(
            [MAPPINGS, "playground", "--listen", "127.0.0.1:0", *options],
            cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self.log: list[str] = []
        self.port = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.process.stderr.readline().decode()
            if not line:
                break
            self.log.append(line)
            found = re.search(r"mappings playground: http://127\.0\.0\.1:(\d+)/", line)
            if found:
                self.port = int(found.group(1))
                break
        assert self.port, "".join(self.log) + self.process.stderr.read().decode()
        self.url = "http://127.0.0.1:%d/" % self.port

    def request(self, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        sent = dict(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent.setdefault("Content-Type", "application/json")
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        text = response.read()
        connection.close()
        return response.status, dict(response.getheaders()), text

    def json(self, method, path, body=None, headers=None):
        status, headers, text = self.request(method, path, body, headers)
        return status, json.loads(text)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def workspace(tmp_path):
    """The Twitter example: the shipped contexts and scripts, copied, so that writes stay here."""
    shutil.copytree(REPOSITORY / "contexts", tmp_path / "contexts")
    shutil.copytree(REPOSITORY / "scripts", tmp_path / "scripts")
    shutil.copytree(REPOSITORY / "Examples" / "twitter", tmp_path / "twitter")
    return tmp_path


@pytest.fixture
def playground(workspace):
    started = []

    def start(*options):
        server = Playground(workspace, *options)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
