"""A workspace of contexts and scripts for each test, and a `mappings lsp` to talk to about it."""

import os
import pathlib
import tempfile

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

REPOSITORY = pathlib.Path(__file__).resolve().parents[3]
MAPPINGS = os.environ.get("MAPPINGS_BINARY", str(REPOSITORY / ".build" / "debug" / "mappings"))

MODELS = """\
// The models.
{
    "@models": {
        "UserModel": { "name": "String", "email": "String?", "status": "Status" },
        "Status": ["active", "suspended"],
        "TweetModel": { "message": "String", "user": "UserModel", "shout": "String?" }
    }
}
"""

APP = """\
{
    "@import": "models",
    "$User": {
        "@class": "UserModel",
        "name": "name",
        "status": { "@keyPath": "state", "@defaultValue": "active" },
        "@tests": [
            { "name": "a user", "input": { "name": "Ann", "state": "active", "profile": { "city": "Oslo" } },
              "output": { "name": "Ann", "email": null, "status": "active" } }
        ]
    },
    "$Tweet": {
        "@class": "TweetModel",
        "message": "text",
        "user": { "@keyPath": "user", "@object": { "@mappings": "$User" } },
        "shout": {
            "@keyPath": "text",
            "@optional": true,
            "@transformClass": "Text",
            "@transformSelector": "upper:"
        }
    }
}
"""

MORE = """\
{
    "$Retweet": {
        "@inherits": "$Tweet",
        "user": { "@keyPath": "retweeted_by", "@object": { "@mappings": "$User" } }
    }
}
"""

TEXT_LUA = """\
local Text = {}

-- Upper-cases a string.
-- Anything else is an error.
function Text.upper(value)
    if type(value) ~= "string" then return nil, "expected a string" end
    return string.upper(value)
end

return Text
"""


def make_workspace() -> pathlib.Path:
    root = pathlib.Path(tempfile.mkdtemp(prefix="mappings-lsp-"))
    (root / "contexts").mkdir()
    (root / "scripts").mkdir()
    (root / "contexts" / "models.mappings").write_text(MODELS)
    (root / "contexts" / "app.mappings").write_text(APP)
    (root / "contexts" / "more.mappings").write_text(MORE)
    (root / "scripts" / "Text.lua").write_text(TEXT_LUA)
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[MAPPINGS, "lsp", "--debounce", "50"]))
async def client(lsp_client: LanguageClient):
    root = make_workspace()
    lsp_client.workspace_root = root
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="test")],
        )
    )
    yield
    await lsp_client.shutdown_session()
