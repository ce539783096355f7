import datetime
import decimal
import os
from typing import Any, Dict, Iterable, Iterator, List, Literal, Mapping, Optional, Tuple, Union

import pyarrow

__version__: str

# JSON text (bytes, or a str: a str is always JSON text), or a value encoded as JSON exactly.
_Payload = Union[
    bytes, bytearray, memoryview, str, Dict[str, Any], List[Any], Tuple[Any, ...], int, float, decimal.Decimal,
    bool, None,
]
_Lines = Union[str, os.PathLike[str], bytes, Iterable[Union[bytes, str]]]
# What a mapped value is made of: objects, lists, text, numbers (decimal.Decimal for decimals,
# exactly), booleans and dates; None is spelt Optional where a value may be missing.
_Value = Union[Dict[str, Any], List[Any], str, int, float, decimal.Decimal, bool, datetime.datetime]

class LoadError(Exception):
    """The files (or a context) could not be loaded."""

    diagnostics: str

class ContextNotFoundError(LoadError, KeyError):
    """The catalog has no context of that identifier."""

class MappingsFileNotFoundError(LoadError, FileNotFoundError):
    """load()'s `contexts` does not exist."""

class Result:
    """One record's result."""

    @property
    def value(self) -> Optional[_Value]: ...
    @property
    def issues(self) -> List[Dict[str, str]]: ...
    @property
    def ok(self) -> bool: ...
    @property
    def line(self) -> int: ...
    @property
    def status(self) -> Literal["clean", "warnings", "errors", "invalid", "filtered"]: ...
    @property
    def input(self) -> Optional[bytes]: ...

class Catalog:
    @property
    def contexts(self) -> List[str]: ...
    def map(self, context: str, payload: _Payload) -> Result: ...
    def map_lines(self, context: str, lines: _Lines, workers: int = 1) -> Iterator[Result]: ...
    # batch_rows: 1 to 2**31 - 1 (ValueError otherwise; TypeError for a bool or a float).
    def to_arrow(
        self, context: str, source: _Lines, workers: int = 1, batch_rows: int = 65536
    ) -> Tuple[pyarrow.Table, pyarrow.Table]: ...
    def arrow_schema(self, context: str) -> pyarrow.Schema: ...
    def run_tests(self, context: Optional[str] = None) -> List[Dict[str, Any]]: ...

def load(
    contexts: Union[str, os.PathLike[str]] = "contexts",
    scripts: Union[str, os.PathLike[str], None] = None,
    traits: Optional[Mapping[str, Union[str, bool, int, float]]] = None,
    *,
    # The tool's ranges (ValueError outside them; TypeError for a bool or a float):
    # lua_memory_mib 1..1048576, lua_budget 1000..2**63-1, lua_timeout_ms 1..3600000,
    # lua_max_result_mib 1..1024.
    lua_memory_mib: int = 64,
    lua_budget: int = 10_000_000,
    lua_timeout_ms: int = 1000,
    lua_max_result_mib: int = 8,
    # Lookup tables by name: rows (a list of dicts), a path, or a dict of "rows" or "file"
    # with "key", "columns" and "table"; max_table_memory_mib 1..1048576.
    tables: Optional[Mapping[str, Any]] = None,
    max_table_memory_mib: int = 512,
) -> Catalog: ...
