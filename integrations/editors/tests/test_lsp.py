"""`mappings lsp` driven as an editor drives it, through pytest-lsp's client."""

import asyncio
import pathlib
import subprocess

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from conftest import MAPPINGS


def position(text: str, needle: str, offset: int = 0) -> types.Position:
    index = text.index(needle) + offset
    line = text.count("\n", 0, index)
    character = index - (text.rfind("\n", 0, index) + 1)
    return types.Position(line=line, character=character)


def doc(client: LanguageClient, name: str) -> tuple[str, str]:
    path = client.workspace_root / name
    return path.as_uri(), path.read_text()


def open_document(client: LanguageClient, name: str, text: str | None = None) -> tuple[str, str]:
    uri, saved = doc(client, name)
    text = saved if text is None else text
    language = "lua" if name.endswith(".lua") else "mappings"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
        )
    )
    return uri, text


def change(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def diagnostics(client: LanguageClient, uri: str, until, timeout: float = 20.0):
    """The diagnostics of `uri` once `until` holds for them."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        found = client.diagnostics.get(uri)
        if found is not None and until(found):
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"no diagnostics for {uri} as expected; last: {client.diagnostics.get(uri)}")


def check(root: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [MAPPINGS, "check"], cwd=root, capture_output=True, text=True, timeout=120, check=False
    )


async def test_a_typo_is_a_diagnostic_at_its_range_and_the_fix_clears_it(client: LanguageClient):
    uri, text = open_document(client, "contexts/app.mappings")
    broken = text.replace('"@optional": true', '"@optinal": true')
    change(client, uri, broken, 2)
    found = await diagnostics(client, uri, lambda d: len(d) > 0)
    assert len(found) == 1
    typo = found[0]
    assert 'unknown keyword "@optinal"' in typo.message
    assert 'help: did you mean "@optional"?' in typo.message
    assert typo.severity == types.DiagnosticSeverity.Error
    assert typo.range.start == position(broken, '"@optinal"')
    assert typo.range.end == position(broken, '"@optinal"', len('"@optinal"'))
    # The same message `mappings check` prints, at the same place.
    (client.workspace_root / "contexts" / "app.mappings").write_text(broken)
    printed = check(client.workspace_root).stderr
    assert f"app.mappings:{typo.range.start.line + 1}:{typo.range.start.character + 1}" in printed
    assert 'unknown keyword "@optinal"' in printed
    change(client, uri, text, 3)
    await diagnostics(client, uri, lambda d: len(d) == 0)


async def test_a_two_place_error_relates_the_other_place(client: LanguageClient):
    uri, _ = open_document(client, "contexts/more.mappings")
    text = '{\n    "$User": { "@class": "UserModel", "name": "login" }\n}\n'
    change(client, uri, text, 2)
    found = await diagnostics(client, uri, lambda d: len(d) > 0)
    duplicate = next(d for d in found if "declared in 2 files" in d.message)
    assert duplicate.range.start == position(text, '"$User"')
    assert duplicate.related_information, duplicate
    other = duplicate.related_information[0]
    assert other.location.uri.endswith("/contexts/app.mappings")
    assert other.message == "also declared here"
    app_uri, _ = doc(client, "contexts/app.mappings")
    # The other file's reference to the name no longer resolves: it has its own diagnostic.
    await diagnostics(client, app_uri, lambda d: any('"$User" names no context' in x.message for x in d))


async def test_a_change_rechecks_the_files_that_depend_on_it(client: LanguageClient):
    models_uri, text = open_document(client, "contexts/models.mappings")
    change(client, models_uri, text.replace('"status": "Status" ', ""), 2)
    app_uri, app = doc(client, "contexts/app.mappings")
    found = await diagnostics(client, app_uri, lambda d: len(d) > 0)
    assert any("status" in d.message for d in found), found
    change(client, models_uri, text, 3)
    await diagnostics(client, app_uri, lambda d: len(d) == 0)


async def test_lua_scripts_have_diagnostics_too(client: LanguageClient):
    uri, text = open_document(client, "scripts/Text.lua")
    broken = text.replace("return string.upper(value)", "return string.upper(value")
    change(client, uri, broken, 2)
    found = await diagnostics(client, uri, lambda d: len(d) > 0)
    assert found[0].range.start.line == broken.splitlines().index("end")
    assert "does not load" in found[0].message
    # An entry asking for a function the script does not have: at the entry.
    app_uri, app = open_document(client, "contexts/app.mappings")
    change(client, uri, text, 3)
    change(client, app_uri, app.replace('"upper:"', '"uper:"'), 2)
    at_entry = await diagnostics(client, app_uri, lambda d: len(d) > 0)
    assert 'has no function "uper"' in at_entry[0].message
    assert 'did you mean "upper"' in at_entry[0].message


async def test_a_failing_test_example_is_a_diagnostic(client: LanguageClient):
    uri, text = open_document(client, "contexts/app.mappings")
    change(client, uri, text.replace('"output": { "name": "Ann"', '"output": { "name": "Bob"'), 2)
    found = await diagnostics(client, uri, lambda d: len(d) > 0)
    assert found[0].message.startswith("test failed: $User test 1")
    assert found[0].range.start == position(text, '{ "name": "a user"')


async def hover(client: LanguageClient, uri: str, at: types.Position) -> str:
    result = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)
    )
    assert result is not None
    return result.contents.value


async def test_hover(client: LanguageClient):
    uri, text = open_document(client, "contexts/app.mappings")
    keyword = await hover(client, uri, position(text, '"@keyPath"', 3))
    assert "`@keyPath`" in keyword and "docs/language.md" in keyword
    prop = await hover(client, uri, position(text, '"name": "name"', 2))
    assert "UserModel.name: String" in prop
    context = await hover(client, uri, position(text, '"$User" }', 2))
    assert "context `$User`" in context and "`UserModel`" in context and "used 2 times in 2 files" in context
    model = await hover(client, uri, position(text, '"TweetModel"', 2))
    assert "model TweetModel" in model and "user: UserModel" in model
    function = await hover(client, uri, position(text, '"upper:"', 2))
    assert "function Text.upper(value)" in function and "Upper-cases a string." in function


async def complete(client: LanguageClient, uri: str, at: types.Position) -> list[types.CompletionItem]:
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)
    )
    return result.items if isinstance(result, types.CompletionList) else result


async def test_completion(client: LanguageClient):
    uri, text = open_document(client, "contexts/app.mappings")
    # A half-typed key in $User: the context's keywords and the model's unmapped property.
    typing = text.replace('"name": "name",', '"name": "name",\n        "e', 1)
    change(client, uri, typing, 2)
    labels = [i.label for i in await complete(client, uri, position(typing, '"e', 2))]
    assert "email" in labels and "@keyStyle" in labels and "name" not in labels
    item = next(i for i in await complete(client, uri, position(typing, '"e', 2)) if i.label == "email")
    assert item.text_edit.new_text == "email"
    assert item.text_edit.range.start == position(typing, '"e', 1)
    # Context names at @mappings, model names at @class, scripts, functions, enum values, key paths.
    change(client, uri, text, 3)
    assert "$Tweet" in [i.label for i in await complete(client, uri, position(text, '"$User" }', 1))]
    assert "TweetModel" in [i.label for i in await complete(client, uri, position(text, '"TweetModel"', 1))]
    assert [i.label for i in await complete(client, uri, position(text, '"Text"', 1))] == ["Text"]
    assert "upper" in [i.label for i in await complete(client, uri, position(text, '"upper:"', 1))]
    assert {"active", "suspended"} <= {i.label for i in await complete(client, uri, position(text, '"active" }', 1))}
    paths = [i.label for i in await complete(client, uri, position(text, '"state"', 1))]
    assert "profile.city" in paths and "name" in paths
    # Keywords of an entry, at a key of a long-form entry.
    entry = [i.label for i in await complete(client, uri, position(text, '"@optional"', 1))]
    assert "@transformUserData" in entry and "@class" not in entry


async def definition(client: LanguageClient, uri: str, at: types.Position):
    result = await client.text_document_definition_async(
        types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)
    )
    assert result, f"no definition at {at}"
    return result[0] if isinstance(result, list) else result


async def test_definition_of_each_kind(client: LanguageClient):
    uri, text = open_document(client, "contexts/app.mappings")
    models_uri, models = doc(client, "contexts/models.mappings")
    script_uri, script = doc(client, "scripts/Text.lua")
    found = await definition(client, uri, position(text, '"$User" }', 2))
    assert found.uri == uri and found.range.start == position(text, '"$User"', 1)
    found = await definition(client, uri, position(text, '"TweetModel"', 2))
    assert found.uri == models_uri and found.range.start == position(models, '"TweetModel"', 1)
    found = await definition(client, uri, position(text, '"models"', 2))
    assert found.uri == models_uri and found.range.start.line == 0
    found = await definition(client, uri, position(text, '"Text"', 2))
    assert found.uri == script_uri
    found = await definition(client, uri, position(text, '"upper:"', 2))
    assert found.uri == script_uri and found.range.start == position(script, "upper(value)")
    more_uri, more = open_document(client, "contexts/more.mappings")
    found = await definition(client, more_uri, position(more, '"$Tweet"', 2))
    assert found.uri == uri and found.range.start == position(text, '"$Tweet"', 1)
    # A type in a model names another model.
    found = await definition(client, models_uri, position(models, '"user": "UserModel"', 10))
    assert found.range.start == position(models, '"UserModel"', 1)


async def test_references_and_rename_across_files(client: LanguageClient):
    uri, text = open_document(client, "contexts/app.mappings")
    at = position(text, '"$User"', 2)
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=at,
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert sorted(r.uri.rsplit("/", 1)[1] for r in refs) == ["app.mappings", "app.mappings", "more.mappings"]
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at, new_name="$Person")
    )
    assert len(edit.changes[uri]) == 2
    for name in ["contexts/app.mappings", "contexts/more.mappings"]:
        file_uri, original = doc(client, name)
        (client.workspace_root / name).write_text(apply(original, edit.changes.get(file_uri, [])))
    renamed = (client.workspace_root / "contexts/more.mappings").read_text()
    assert '"@mappings": "$Person"' in renamed
    result = check(client.workspace_root)
    assert result.returncode == 0, result.stderr
    # A model too, and names that cannot be one are refused.
    models_uri, models = doc(client, "contexts/models.mappings")
    edit = await client.text_document_rename_async(
        types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=models_uri),
            position=position(models, '"UserModel"', 2),
            new_name="Account",
        )
    )
    assert sorted(len(e) for e in edit.changes.values()) == [1, 2]
    with pytest.raises(Exception, match="cannot name a model"):
        await client.text_document_rename_async(
            types.RenameParams(
                text_document=types.TextDocumentIdentifier(uri=models_uri),
                position=position(models, '"UserModel"', 2),
                new_name="2Fast",
            )
        )


def apply(text: str, edits) -> str:
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start = offsets[edit.range.start.line] + edit.range.start.character
        end = offsets[edit.range.end.line] + edit.range.end.character
        text = text[:start] + edit.new_text + text[end:]
    return text


async def test_document_symbols(client: LanguageClient):
    uri, _ = open_document(client, "contexts/app.mappings")
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert [(s.name, s.detail) for s in symbols] == [("$User", "UserModel"), ("$Tweet", "TweetModel")]
    assert [c.name for c in symbols[1].children] == ["message", "user", "shout"]
    assert symbols[1].children[2].detail == "text"
    models_uri, _ = open_document(client, "contexts/models.mappings")
    models = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=models_uri))
    )
    assert [(s.name, s.kind) for s in models] == [
        ("UserModel", types.SymbolKind.Struct),
        ("Status", types.SymbolKind.Enum),
        ("TweetModel", types.SymbolKind.Struct),
    ]


async def test_formatting_is_fmt_and_idempotent_with_comments_kept(client: LanguageClient):
    messy = '// Kept.\n{"$User":{"@class":"UserModel", // the model\n"name":"name",},\n"@import":"models"}\n'
    uri, _ = open_document(client, "contexts/app.mappings", messy)
    options = types.FormattingOptions(tab_size=4, insert_spaces=True)
    edits = await client.text_document_formatting_async(
        types.DocumentFormattingParams(text_document=types.TextDocumentIdentifier(uri=uri), options=options)
    )
    formatted = apply(messy, edits)
    path = client.workspace_root / "contexts" / "app.mappings"
    path.write_text(messy)
    subprocess.run([MAPPINGS, "fmt", str(path)], check=True, capture_output=True)
    assert formatted == path.read_text()
    assert "// Kept." in formatted and "// the model" in formatted
    change(client, uri, formatted, 2)
    again = await client.text_document_formatting_async(
        types.DocumentFormattingParams(text_document=types.TextDocumentIdentifier(uri=uri), options=options)
    )
    assert again is not None and len(again) == 0


async def test_broken_text_while_typing_never_stops_the_server(client: LanguageClient):
    uri, text = open_document(client, "contexts/app.mappings")
    for cut in range(0, len(text), 37):
        change(client, uri, text[:cut], cut + 2)
        at = position(text[:cut] + "\n", "\n", 0) if cut else types.Position(line=0, character=0)
        await complete(client, uri, at)
        await client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)
        )
        await client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
    change(client, uri, text[: len(text) // 2], 10_000)
    found = await diagnostics(client, uri, lambda d: any("unexpected end of file" in x.message for x in d))
    assert found
    # Positions past the end, and garbage positions, are answered.
    far = types.Position(line=10_000, character=10_000)
    await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=far)
    )
    await complete(client, uri, far)
