"""Mappings from Python: JSON payloads into typed values and Arrow tables, by `.mappings` files.

    import mappings
    catalog = mappings.load("contexts", scripts="scripts", traits={"apiVersion": "2"})
    r = catalog.map("$TweetModel", payload)          # bytes or str of JSON text
    r = catalog.map("$TweetModel", {"id": 1, "text": "hi"})   # or a value: dict, list, ...
    for r in catalog.map_lines("$TweetModel", lines, workers=2): ...
    table, rejects = catalog.to_arrow("$TweetModel", "tweets.ndjson")

The mapping runs in the Swift library this package carries (the same engine as the
`mappings` tool, its Lua sandbox included), with the GIL released; Python objects are built
from its typed values, no JSON is parsed in Python. docs/python.md.
"""

from __future__ import annotations

import decimal
import errno
import json
import logging
import operator
import os
import threading
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

from . import _encoding, _native
from ._native import LoadError, Result

__all__ = ["load", "Catalog", "Result", "LoadError", "ContextNotFoundError", "MappingsFileNotFoundError"]
__version__ = "0.1.0"


class ContextNotFoundError(LoadError, KeyError):
    """The catalog has no context of that identifier: a LoadError (whose `diagnostics` name it,
    with the closest ones) and a KeyError, as a missing key of a dict is."""

    # KeyError's str() is the repr of its argument; this one is a message.
    __str__ = LoadError.__str__


class MappingsFileNotFoundError(LoadError, FileNotFoundError):
    """load()'s `contexts` (a folder or a file) does not exist: a LoadError and a
    FileNotFoundError (errno ENOENT, `filename` the path given)."""

_logger = logging.getLogger("mappings")


def _log(line: str) -> None:
    # A script's log() or print(): `scripts/Geo.lua:12: message`, at INFO on the "mappings" logger.
    _logger.info(line.rstrip("\n"))


def _issues_type() -> Any:
    import pyarrow as pa

    fields = ["kind", "path", "property", "rule", "provenance", "value", "message", "severity"]
    return pa.list_(pa.struct([(name, pa.string()) for name in fields]))


# Lines are handed to the library in blocks of about this many bytes: to the lanes, and, with
# no workers, to the calling thread (smaller, so that a block's lines and results stay in the
# core's cache between the mapping and the making of the values).
_MAX_WORKERS = 64
_BLOCK_BYTES = 1 << 20
_HERE_BLOCK_BYTES = 1 << 17

# The ranges of load()'s Lua limits: the tool's --lua-* options' own (the library holds them).
_LUA_LIMITS: Dict[str, Tuple[int, int]] = {
    name: (low, high) for name, (low, high) in json.loads(_native.limits()).items()
}
_LUA_UNITS = {
    "lua_memory_mib": "MiB", "lua_budget": "instructions", "lua_timeout_ms": "ms", "lua_max_result_mib": "MiB"
}
# to_arrow's batch_rows: a batch has at least a row, and is handed over past 256 MiB whatever
# its rows; Arrow counts a batch's rows (and its offsets) in 32 bits.
_BATCH_ROWS = (1, (1 << 31) - 1)


def _integer(name: str, value: Any, bounds: Tuple[int, int], unit: str = "") -> int:
    """`value` as an int within `bounds`: TypeError for what is no integer (bool too), and
    ValueError naming the argument and its range otherwise."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{name} is an int, not {type(value).__name__}")
    value = operator.index(value)
    low, high = bounds
    if not low <= value <= high:
        unit = f" {unit}" if unit else ""
        raise ValueError(f"{name} must be between {low} and {high}{unit}, not {value}")
    return value


def _table(name: Any, given: Any) -> Dict[str, Any]:
    """A table of load(tables=...) as the library reads it: {"rows": [...]} or {"file": path},
    with "key", "columns" and "table" when given."""
    if isinstance(given, (str, os.PathLike)):
        return {"file": os.path.abspath(os.fspath(given))}
    if isinstance(given, Mapping):
        table = {key: given[key] for key in ("key", "columns", "table") if key in given}
        if isinstance(table.get("key"), str):
            table["key"] = [table["key"]]
        if "file" in given:
            table["file"] = os.path.abspath(os.fspath(given["file"]))
        elif "rows" in given:
            table["rows"] = list(given["rows"])
        else:
            raise TypeError(f"the table {name} gives \"rows\" or \"file\"")
        return table
    if isinstance(given, (bytes, bytearray)) or not hasattr(given, "__iter__"):
        raise TypeError(f"the table {name} is rows (a list of dicts), a path or a dict, not {type(given).__name__}")
    return {"rows": list(given)}


def load(
    contexts: Union[str, os.PathLike] = "contexts",
    scripts: Union[str, os.PathLike, None] = None,
    traits: Optional[Mapping[str, Union[str, bool, int, float]]] = None,
    *,
    lua_memory_mib: int = 64,
    lua_budget: int = 10_000_000,
    lua_timeout_ms: int = 1000,
    lua_max_result_mib: int = 8,
    tables: Optional[Mapping[str, Any]] = None,
    max_table_memory_mib: int = 512,
) -> "Catalog":
    """Loads the `.mappings` files of `contexts` (a folder, or one file) and the Lua scripts of
    `scripts` (default: the `scripts` folder beside `contexts`, as `mappings init` lays a
    project out). `traits` are what `@when` selectors test (the tool's --trait KEY=VALUE); the
    Lua limits are the tool's --lua-memory, --lua-budget, --lua-timeout and --lua-max-result,
    in the same ranges: a limit out of its range is ValueError (naming it and the range), one
    that is no int TypeError.

    `tables` gives lookup tables by name: rows (a list of dicts, column name to cell), a path
    (a CSV, JSON lines or SQLite file), or a dict of "rows" or "file" with "key" (a column or
    a list of them), "columns" (declared types, {"population": "Int"}) and for a database
    "table". A name that a `.mappings` file declares in "@tables" takes these rows or this file
    in place of its "file" (its key and columns hold unless given); any other needs "key".
    Together the tables take at most `max_table_memory_mib` (the tool's --max-table-memory).

    Raises LoadError, whose `diagnostics` is what `mappings check` prints — for a `contexts`
    that does not exist, MappingsFileNotFoundError, a LoadError and a FileNotFoundError; the
    warnings of a load that succeeds go to the "mappings" logger at WARNING."""
    contexts = os.fspath(contexts)
    if scripts is None:
        folder = os.path.dirname(os.path.abspath(contexts)) if os.path.isdir(contexts) else os.path.dirname(
            os.path.dirname(os.path.abspath(contexts)))
        scripts = os.path.join(folder, "scripts")
    limits = {name: _integer(name, value, _LUA_LIMITS[name], _LUA_UNITS[name]) for name, value in [
        ("lua_memory_mib", lua_memory_mib), ("lua_budget", lua_budget), ("lua_timeout_ms", lua_timeout_ms),
        ("lua_max_result_mib", lua_max_result_mib)]}
    limits["max_table_memory_mib"] = _integer("max_table_memory_mib", max_table_memory_mib, (1, 1_048_576), "MiB")
    options = {
        "tables": {str(name): _table(name, given) for name, given in (tables or {}).items()},
        "maxTableMemoryMiB": limits["max_table_memory_mib"],
        "traits": {str(key): (value if isinstance(value, (str, bool)) else str(value))
                   for key, value in (traits or {}).items()},
        "luaMemoryMiB": limits["lua_memory_mib"],
        "luaBudget": limits["lua_budget"],
        "luaTimeoutMs": limits["lua_timeout_ms"],
        "luaMaxResultMiB": limits["lua_max_result_mib"],
    }
    if not os.path.exists(contexts):
        error = MappingsFileNotFoundError(errno.ENOENT, "No such file or folder", contexts)
        error.diagnostics = f"error: no such file or folder: {contexts}"
        raise error
    native = _native.load(contexts, os.fspath(scripts), _encoding.encode(options).decode("utf-8"), _log)
    # The load's warnings, as the tool prints them on stderr: at WARNING on the "mappings" logger.
    warnings = native.warnings()
    if warnings:
        _logger.warning(warnings)
    return Catalog(native)


_Value = Union[Dict[str, Any], List[Any], Tuple[Any, ...], int, float, decimal.Decimal, bool, None]


def _payload_bytes(payload: Union[bytes, bytearray, memoryview, str, _Value]) -> bytes:
    """JSON text as it is (bytes, or a str); any other value encoded as JSON (_encoding)."""
    if isinstance(payload, str):
        return payload.encode("utf-8", "surrogatepass")
    if isinstance(payload, (bytearray, memoryview)):
        return bytes(payload)
    if isinstance(payload, bytes):
        return payload
    return _encoding.encode(payload)


def _feeder(
    session: Any,
    source: Union[str, os.PathLike, bytes, bytearray, memoryview, Iterable[Union[bytes, str]]],
    block: int,
) -> Callable[[], bool]:
    """A function that queues the next block of whole lines of NDJSON (about `block` bytes) on
    `session` and returns False once `source` ended: a path, bytes of NDJSON, or an iterable of
    lines (bytes or str; a line's own line feed is optional), whose lines the native module
    gathers (and copies once for the lanes; the calling thread reads `bytes` lines in place)."""
    if isinstance(source, (str, os.PathLike)):
        return _each(_file_blocks(source, block), session.submit)
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        return _each(_ranges(data, block), lambda cut: session.submit_range(data, *cut))
    lines = iter(source)
    return lambda: bool(session.submit_lines(lines, block))


def _each(items: Iterator[Any], submit: Callable[[Any], None]) -> Callable[[], bool]:
    """A feeder that submits the next of `items`, and returns False once there is none."""

    def feed() -> bool:
        item = next(items, None)
        if item is None:
            return False
        submit(item)
        return True

    return feed


def _ranges(data: bytes, block: int) -> Iterator[Tuple[int, int]]:
    """Where the blocks of whole lines of about `block` bytes of `data` start and end."""
    start = 0
    while start < len(data):
        end = min(len(data), start + block)
        if end < len(data):
            cut = data.find(b"\n", end)
            end = len(data) if cut < 0 else cut + 1
        yield start, end
        start = end


def _file_blocks(path: Union[str, os.PathLike], block: int) -> Iterator[bytes]:
    """Whole lines of the file at `path` in blocks of about `block` bytes."""
    with open(path, "rb") as file:
        # The start of a line that goes on past the chunks read so far (a long line is
        # joined once, not copied again at every chunk).
        rest: List[bytes] = []
        while True:
            chunk = file.read(block)
            if not chunk:
                break
            cut = chunk.rfind(b"\n") + 1
            if cut == 0:
                rest.append(chunk)
                continue
            yield b"".join(rest + [chunk[:cut]])
            rest = [chunk[cut:]] if cut < len(chunk) else []
        if rest:
            yield b"".join(rest)


def _workers(workers: int) -> int:
    """Threads to map on, at most _MAX_WORKERS (each has a stack of 8 MiB); 0: the calling
    thread maps, with the GIL released."""
    if isinstance(workers, bool):
        raise TypeError("workers is an int, not bool")
    workers = operator.index(workers)
    if workers < 0:
        raise ValueError(f"workers is 0 (the calling thread) or more, not {workers}")
    return min(_MAX_WORKERS, workers)


def _taken(session: Any, source: Any, workers: int) -> Iterator[List[Result]]:
    """Feeds a session the blocks of `source`, a few ahead of the one taken (so that its
    workers map while the caller builds values), and yields each block's results in order.
    With no workers, each block is mapped as it is fed, and taken at once."""
    ahead = 2 * workers + 1 if workers > 0 else 1
    feed = _feeder(session, source, _BLOCK_BYTES if workers > 0 else _HERE_BLOCK_BYTES)
    ended = False
    while True:
        while not ended and session.pending() < ahead:
            ended = not feed()
        results = session.take()
        if results is None:
            if ended:
                return
            continue
        yield results


def _results(native: Any, lines: Any, workers: int) -> Iterator[Result]:
    """The results of `lines` mapped with the context `native` on a session of its own."""
    session = native.lines(workers)
    for results in _taken(session, lines, workers):
        yield from results


class Catalog:
    """Loaded `.mappings` files: map payloads and NDJSON with their contexts. One catalog may be
    used by several threads at once."""

    def __init__(self, native: Any) -> None:
        self._native = native
        self._contexts: Dict[Tuple[str, bool], Any] = {}
        self._lock = threading.Lock()

    def _context(self, identifier: str, arrow: bool = False) -> Any:
        key = (identifier, arrow)
        context = self._contexts.get(key)
        if context is None:
            with self._lock:
                context = self._contexts.get(key)
                if context is None:
                    try:
                        context = self._native.context(identifier, arrow)
                    except LoadError as error:
                        # A context that is there but does not load stays a LoadError alone.
                        if identifier in self.contexts:
                            raise
                        missing = ContextNotFoundError(str(error))
                        missing.diagnostics = getattr(error, "diagnostics", str(error))
                        raise missing from None
                    self._contexts[key] = context
        return context

    @property
    def contexts(self) -> List[str]:
        """The identifiers of the catalog's contexts."""
        text = self._native.identifiers()
        return text.split("\n") if text else []

    def map(self, context: str, payload: Union[bytes, bytearray, memoryview, str, _Value]) -> Result:
        """Maps one payload (an object; an array maps each element, as `map --many`): JSON text
        as bytes or a str — a str is always JSON text, so `"42"` is the number 42 — or a value
        already parsed (a dict, a list, ...), encoded as JSON exactly: ints of any size, floats
        by their shortest repr, decimal.Decimal by its digits. A value JSON cannot hold is
        refused naming its path (`$.items[2].price`): TypeError for another type or a key that
        is no str, ValueError for NaN, infinities, a lone surrogate or a value that holds
        itself. An unknown context raises ContextNotFoundError (a LoadError and a KeyError)."""
        return self._context(context).map(_payload_bytes(payload))

    def map_lines(
        self,
        context: str,
        lines: Union[str, os.PathLike, bytes, Iterable[Union[bytes, str]]],
        workers: int = 1,
    ) -> Iterator[Result]:
        """Maps NDJSON on `workers` threads (0: on the calling thread, the GIL released: no
        hand-over between threads, the least CPU a record of `map_lines`) and yields each
        record's Result in input order (`line` is its line, from 1). Blank lines are no
        records; records the context's `@filter` drops are not yielded. `lines`: a path, bytes
        of NDJSON, or an iterable of lines (bytes or str). A wrong `workers` or an unknown
        context raises here, at the call; a line holding a line feed when its block is read.
        Ctrl-C is a KeyboardInterrupt from the iterator within about the record mapping then
        (its Lua deadline bounds it), the workers stopped."""
        workers = _workers(workers)
        return _results(self._context(context), lines, workers)

    def to_arrow(
        self,
        context: str,
        source: Union[str, os.PathLike, bytes, Iterable[Union[bytes, str]]],
        workers: int = 1,
        batch_rows: int = 65536,
    ) -> Tuple[Any, Any]:
        """Maps NDJSON into a pyarrow.Table of the context's Arrow schema (`mappings schema
        --format arrow`), built in record batches of about `batch_rows` rows by the library and
        handed over through the Arrow C Data Interface; and a table of the rejects: line, input
        and issues (a list of the issue's fields). `batch_rows` is 1 to 2**31 - 1 (ValueError
        otherwise); a batch is also handed over past 256 MiB. Ctrl-C is a KeyboardInterrupt, as
        for map_lines."""
        batch_rows = _integer("batch_rows", batch_rows, _BATCH_ROWS)
        import pyarrow as pa

        native = self._context(context, True)
        schema = native.arrow_schema(pa.Schema._import_from_c)
        workers = _workers(workers)
        session = native.lines(workers)
        batches = []
        reject_lines: List[int] = []
        reject_inputs: List[bytes] = []
        reject_issues: List[List[Dict[str, Any]]] = []
        importer = pa.RecordBatch._import_from_c
        for results in _taken(session, source, workers):
            for result in results:
                reject_lines.append(result.line)
                reject_inputs.append(result.input if result.input is not None else b"")
                reject_issues.append(result.issues)
            rows, held = session.arrow_rows()
            if rows >= batch_rows or held >= (256 << 20):
                batches.append(session.arrow_batch(importer))
        if session.arrow_rows()[0] > 0:
            batches.append(session.arrow_batch(importer))
        table = pa.Table.from_batches(batches, schema=schema)
        issues_type = _issues_type()
        rejects = pa.table(
            {
                "line": pa.array(reject_lines, pa.int64()),
                "input": pa.array([line.decode("utf-8", "replace") for line in reject_inputs], pa.string()),
                "issues": pa.array(reject_issues, issues_type),
            }
        )
        return table, rejects

    def run_tests(self, context: Optional[str] = None) -> List[Dict[str, Any]]:
        """Runs the contexts' `@tests` (those of `context` alone, when given), as `mappings test`
        does: one dict a test — context, number, title, passed, failures (what differed)."""
        if context is not None:
            self._context(context)  # LoadError when the catalog has no such context
        return self._native.tests(context)

    def arrow_schema(self, context: str) -> Any:
        """The context's Arrow schema (a pyarrow.Schema)."""
        import pyarrow as pa

        return self._context(context, True).arrow_schema(pa.Schema._import_from_c)
