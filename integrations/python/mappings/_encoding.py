"""A Python value as the JSON text `Catalog.map` hands to the library, exactly: what the value
is, no more and no less — ints of any size by their digits, floats by their shortest repr
(which reads back as the same float), `decimal.Decimal` by its own digits, strings by their
characters. What JSON cannot say is refused, naming where it is in the value:
TypeError for a type JSON has no word for and for a key that is no str; ValueError for NaN
and infinities, a str with a lone surrogate (no UTF-8 holds it) and a container that holds
itself."""

import decimal
import json
import re
from typing import Any, List, Set

# A key that can follow a dot in a path; other keys are written in brackets, as JSON strings.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Python refuses to print ints of more digits than this (sys.get_int_max_str_digits, 3.11 and
# later, 4300 by default); a longer one is printed in halves below it.
_SAFE_DIGITS = 4000


def encode(value: Any) -> bytes:
    """The UTF-8 JSON text of `value` (dict, list, tuple, str, int, float, decimal.Decimal,
    bool, None, nested)."""
    parts: List[str] = []
    _write(value, "$", parts, set())
    return "".join(parts).encode("utf-8")


def _key_path(path: str, key: str) -> str:
    return f"{path}.{key}" if _NAME.match(key) else f"{path}[{json.dumps(key)}]"


def _string(text: str, path: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"{path}: a str with a lone surrogate ({text[error.start]!r} at {error.start}) "
                         f"is no Unicode text JSON can hold") from None
    return json.dumps(text, ensure_ascii=False)


def _digits(number: int) -> str:
    """`number`'s decimal digits, however many (halving until Python prints them)."""
    if -(10 ** _SAFE_DIGITS) < number < 10 ** _SAFE_DIGITS:
        return int.__repr__(number)
    if number < 0:
        return "-" + _digits(-number)
    half = (number.bit_length() * 30103 // 100000) // 2  # about half its digits (log10 2 ≈ .30103)
    high, low = divmod(number, 10 ** half)
    return _digits(high) + _digits(low).rjust(half, "0")


def _write(value: Any, path: str, parts: List[str], open_containers: Set[int]) -> None:
    if value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, str):
        parts.append(_string(value, path))
    elif isinstance(value, int):
        parts.append(_digits(value))
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{path}: {float.__repr__(value)} is no JSON number")
        parts.append(float.__repr__(value))
    elif isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise ValueError(f"{path}: Decimal('{value}') is no JSON number")
        parts.append(str(value))
    elif isinstance(value, (dict, list, tuple)):
        if id(value) in open_containers:
            raise ValueError(f"{path}: the value holds itself")
        open_containers.add(id(value))
        if isinstance(value, dict):
            parts.append("{")
            for index, (key, item) in enumerate(value.items()):
                if not isinstance(key, str):
                    raise TypeError(f"{path}: a key is a str, not {type(key).__name__} ({key!r})")
                if index:
                    parts.append(",")
                parts.append(_string(key, path))
                parts.append(":")
                _write(item, _key_path(path, key), parts, open_containers)
            parts.append("}")
        else:
            parts.append("[")
            for index, item in enumerate(value):
                if index:
                    parts.append(",")
                _write(item, f"{path}[{index}]", parts, open_containers)
            parts.append("]")
        open_containers.discard(id(value))
    else:
        raise TypeError(f"{path}: {type(value).__name__} is no JSON value (dict, list, tuple, str, int, float, "
                        f"decimal.Decimal, bool or None)")
