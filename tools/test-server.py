#!/usr/bin/env python3
"""A small HTTP server on 127.0.0.1 for the fetch tests and the fetch example.

    tools/test-server.py ROOT      prints "port N" on its first line, then serves until killed

GET /files/PATH       the file ROOT/PATH (application/json for .json files, text/plain otherwise)
    ?status=N         answer with status N instead of 200 (the body stays the file, or a JSON error)
    ?type=T           answer with content type T
GET|POST /echo        a JSON object: method, path, query (name -> list of values), body (text), content type
anything else         404 with a JSON error body
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet: the tests read stdout and stderr
        pass

    def answer(self, status, body, content_type):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def handle_any(self):
        url = urlsplit(self.path)
        query = parse_qs(url.query, keep_blank_values=True)
        length = int(self.headers.get("Content-Length") or 0)
        request_body = self.rfile.read(length) if length else b""
        if url.path == "/echo":
            body = json.dumps({
                "method": self.command, "path": url.path, "query": query,
                "body": request_body.decode("utf-8", "replace"),
                "contentType": self.headers.get("Content-Type"),
            }).encode()
            return self.answer(200, body, "application/json")
        status = int(query.get("status", ["200"])[0])
        if url.path.startswith("/files/"):
            path = os.path.normpath(os.path.join(ROOT, url.path[len("/files/"):]))
            if path.startswith(ROOT + os.sep) and os.path.isfile(path):
                with open(path, "rb") as handle:
                    body = handle.read()
                kind = "application/json; charset=utf-8" if path.endswith(".json") else "text/plain"
                return self.answer(status, body, query.get("type", [kind])[0])
        body = json.dumps({"error": "not found", "path": url.path}).encode()
        return self.answer(404, body, "application/json")

    do_GET = handle_any
    do_POST = handle_any


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"port {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
