"""The server against docs/serve.openapi.yaml: every answer schemathesis provokes has a status,
content type, headers and body the document allows, and none is a server error."""

import os
import pathlib
import subprocess
import sys

from conftest import REPOSITORY, Server


def test_the_server_keeps_to_its_openapi_document():
    server = Server(REPOSITORY)
    try:
        schemathesis = pathlib.Path(sys.executable).parent / "schemathesis"
        result = subprocess.run(
            [
                str(schemathesis), "run", str(REPOSITORY / "docs" / "serve.openapi.yaml"),
                "--url", f"http://127.0.0.1:{server.port}",
                "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,"
                "response_schema_conformance,response_headers_conformance",
                "--max-examples", "40", "--seed", "7",
            ],
            capture_output=True, text=True, timeout=600, check=False,
            cwd=pathlib.Path(__file__).parent,
            env={**os.environ, "SCHEMATHESIS_HOOKS": "schemathesis_hooks", "PYTHONPATH": str(pathlib.Path(__file__).parent)},
        )
        assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
        assert "passed" in result.stdout
    finally:
        assert server.stop() == 0
