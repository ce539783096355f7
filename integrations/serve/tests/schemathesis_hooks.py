"""Schemathesis hooks for docs/serve.openapi.yaml (SCHEMATHESIS_HOOKS=schemathesis_hooks): NDJSON
bodies, which it has no serializer of its own for, go as the text generated for them."""

import json

import schemathesis


@schemathesis.serializer("application/x-ndjson")
def ndjson(ctx, value):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    return (json.dumps(value) + "\n").encode()
