"""What a Python user expects of the package: `map` of a value already parsed (a dict, a
list, ...) encoded exactly, errors that are the built-in exceptions they mean (KeyError for an
unknown context, FileNotFoundError for a missing folder), and stubs that say what the values
are."""

import ast
import decimal
import errno
import json
import math
import os

import pytest

import mappings
from conftest import SHOP, order


def test_a_value_maps_as_its_json_text_does(shop):
    for payload in [order(7), [order(1), order(2)]]:
        assert shop.map("$Order", payload).value == shop.map("$Order", json.dumps(payload)).value
    assert shop.map("$Order", tuple([order(1)])).value == shop.map("$Order", [order(1)]).value
    # A str is JSON text, whatever it holds: "42" is the number 42, as the int is.
    assert shop.map("$Order", json.dumps(order(3))).ok
    text, number = shop.map("$Order", "42"), shop.map("$Order", 42)
    assert (text.status, text.issues, text.value) == (number.status, number.issues, number.value)


def test_numbers_and_text_are_encoded_exactly(shop):
    big = 10 ** 5000 - 1
    record = order(
        1,
        total=decimal.Decimal("12345678901234567890.123456789"),
        rate=0.1,
        extra={"huge": big, "negative": -big, "tiny": decimal.Decimal("1E-400"), "zero": -0.0, "float": 1e16,
               "text": 'Zoë "😀"\n\u0000\t'},
    )
    value = shop.map("$Order", record).value
    assert value["total"] == decimal.Decimal("12345678901234567890.123456789")
    assert value["rate"] == 0.1
    extra = value["extra"]
    assert extra["huge"] == big and extra["negative"] == -big
    assert extra["float"] == 1e16 and extra["text"] == 'Zoë "😀"\n\u0000\t'
    assert math.copysign(1, extra["zero"]) == -1
    assert extra["tiny"] == shop.map("$Order", json.dumps(order(1)).replace(
        '"extra": {', '"extra": {"tiny": 1E-400, ')).value["extra"]["tiny"]


@pytest.mark.parametrize(
    "extra, error, message",
    [
        ({"list": [1, float("nan")]}, ValueError, "$.extra.list[1]: nan is no JSON number"),
        ({"x": float("-inf")}, ValueError, "$.extra.x: -inf is no JSON number"),
        ({"d": decimal.Decimal("Infinity")}, ValueError, "$.extra.d: Decimal('Infinity') is no JSON number"),
        ({"a b": {1: "one"}}, TypeError, '$.extra["a b"]: a key is a str, not int (1)'),
        ({"s": "ok \udc80"}, ValueError, "$.extra.s: a str with a lone surrogate ('\\udc80' at 3)"),
        ({"set": {1, 2}}, TypeError, "$.extra.set: set is no JSON value"),
        ({"b": b"bytes"}, TypeError, "$.extra.b: bytes is no JSON value"),
    ],
)
def test_what_json_cannot_hold_is_refused_naming_its_path(shop, extra, error, message):
    with pytest.raises(error) as raised:
        shop.map("$Order", order(1, extra=extra))
    assert str(raised.value).startswith(message), str(raised.value)


def test_a_value_that_holds_itself_is_refused(shop):
    loop = order(1)
    loop["extra"] = {"again": [loop]}
    with pytest.raises(ValueError, match=r"^\$\.extra\.again\[0\]: the value holds itself"):
        shop.map("$Order", loop)
    with pytest.raises(TypeError, match=r"^\$: object is no JSON value"):
        shop.map("$Order", object())


def test_an_unknown_context_is_a_key_error_and_still_a_load_error(shop):
    for call in [lambda: shop.map("$Nope", {}), lambda: shop.map_lines("$Nope", []), lambda: shop.run_tests("$Nope")]:
        with pytest.raises(KeyError) as raised:
            call()
        error = raised.value
        assert isinstance(error, mappings.ContextNotFoundError) and isinstance(error, mappings.LoadError)
        # A message, not KeyError's quoted repr of one.
        assert "$Nope" in error.diagnostics and "$Nope" in str(error) and not str(error).startswith("'")


def test_a_missing_folder_is_file_not_found_and_still_a_load_error(tmp_path):
    missing = tmp_path / "nowhere"
    with pytest.raises(FileNotFoundError) as raised:
        mappings.load(missing)
    error = raised.value
    assert isinstance(error, mappings.MappingsFileNotFoundError) and isinstance(error, mappings.LoadError)
    assert error.errno == errno.ENOENT and error.filename == str(missing)
    assert error.diagnostics == f"error: no such file or folder: {missing}"
    with pytest.raises(mappings.LoadError):
        mappings.load(str(missing))


def _stub_annotations():
    """The installed stub's Result properties and their annotations, as written."""
    path = os.path.join(os.path.dirname(mappings.__file__), "__init__.pyi")
    with open(path) as file:
        tree = ast.parse(file.read())
    (result,) = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Result"]
    return tree, {node.name: ast.unparse(node.returns) for node in result.body if isinstance(node, ast.FunctionDef)}


def test_the_stubs_say_optional_values_and_the_statuses(shop):
    tree, annotations = _stub_annotations()
    assert annotations["value"] == "Optional[_Value]"
    assert annotations["input"] == "Optional[bytes]"
    status = ast.parse(annotations["status"], mode="eval").body
    assert isinstance(status, ast.Subscript) and ast.unparse(status.value) == "Literal"
    statuses = {element.value for element in status.slice.elts}
    assert statuses == {"clean", "warnings", "errors", "invalid", "filtered"}
    seen = {
        shop.map("$Order", order(1)).status,
        shop.map("$Order", order(1, placed_at="x")).status,
        shop.map("$Order", b"{").status,
        shop.map("$Order", order(1, test=True)).status,
    }
    assert seen == {"clean", "errors", "invalid", "filtered"} and seen <= statuses
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    assert classes >= {"LoadError", "ContextNotFoundError", "MappingsFileNotFoundError", "Result", "Catalog"}
    for name in classes:
        assert hasattr(mappings, name), name
    bases = {node.name: [ast.unparse(base) for base in node.bases] for node in tree.body if isinstance(node, ast.ClassDef)}
    assert bases["ContextNotFoundError"] == ["LoadError", "KeyError"]
    assert bases["MappingsFileNotFoundError"] == ["LoadError", "FileNotFoundError"]
