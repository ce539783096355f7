"""Lookup tables given to load(tables=...): rows or a path, over a "@tables" declaration of
that name or on their own, read by entries and by Lua scripts, within max_table_memory_mib."""

import json
import os

import pytest

import mappings

DECLARED = """{ "@tables": { "countries": { "file": "tables/absent.csv", "key": "code",
                                       "columns": { "population": "Int" } } },
  "$C": { "name": { "@keyPath": "cc", "@lookup": "countries.name", "@optional": true },
          "population": { "@keyPath": "cc", "@lookup": "countries.population", "@optional": true },
          "upper": { "@keyPath": "cc", "@transformClass": "T", "@transformSelector": "upper", "@optional": true } } }"""

UNDECLARED = """{ "$C": { "name": { "@keyPath": "cc", "@lookup": "countries.name", "@optional": true } } }"""

SCRIPT = """local M = {}
function M.upper(code) local row = tables.countries[code]; return row and row.name:upper() end
return M
"""

ROWS = [{"code": "FR", "name": "France", "population": "67000000"}, {"code": "DE", "name": "Germany"}]


def project(tmp_path, mappings_text):
    (tmp_path / "contexts").mkdir()
    (tmp_path / "scripts").mkdir()
    (tmp_path / "contexts" / "main.mappings").write_text(mappings_text)
    (tmp_path / "scripts" / "T.lua").write_text(SCRIPT)
    return str(tmp_path / "contexts")


def test_rows_take_the_place_of_a_declared_tables_file_for_entries_and_scripts(tmp_path):
    catalog = mappings.load(project(tmp_path, DECLARED), tables={"countries": ROWS})
    assert catalog.map("$C", {"cc": "FR"}).value == {"name": "France", "population": 67000000, "upper": "FRANCE"}
    assert catalog.map("$C", {"cc": "DE"}).value == {"name": "Germany", "upper": "GERMANY"}
    assert catalog.map("$C", {"cc": "ES"}).value == {}


def test_a_path_takes_the_place_of_a_declared_tables_file(tmp_path):
    contexts = project(tmp_path, DECLARED)
    csv = tmp_path / "countries.csv"
    csv.write_text("code,name,population\nFR,France,67000000\n")
    catalog = mappings.load(contexts, tables={"countries": csv})
    assert catalog.map("$C", {"cc": "FR"}).value["population"] == 67000000


def test_a_table_no_file_declares_needs_its_key(tmp_path):
    contexts = project(tmp_path, UNDECLARED)
    catalog = mappings.load(contexts, tables={"countries": {"rows": ROWS, "key": "code"}})
    assert catalog.map("$C", json.dumps({"cc": "DE"})).value == {"name": "Germany"}
    with pytest.raises(mappings.LoadError) as raised:
        mappings.load(contexts, tables={"countries": ROWS})
    assert 'error: the table countries needs a key: no .mappings file declares it in "@tables"' in str(
        raised.value.diagnostics)
    with pytest.raises(TypeError):
        mappings.load(contexts, tables={"countries": 42})


def test_a_table_past_max_table_memory_is_a_load_error_naming_it(tmp_path):
    contexts = project(tmp_path, UNDECLARED)
    rows = [{"code": f"K{n}", "name": f"Name {n}"} for n in range(40_000)]
    mappings.load(contexts, tables={"countries": {"rows": rows, "key": ["code"]}})
    with pytest.raises(mappings.LoadError) as raised:
        mappings.load(contexts, tables={"countries": {"rows": rows, "key": ["code"]}}, max_table_memory_mib=1)
    assert "error: the table countries (<host>, 40000 rows) takes 1." in raised.value.diagnostics
    assert "past the tables' cap of 1.0 MiB (--max-table-memory)" in raised.value.diagnostics
    with pytest.raises(ValueError, match="max_table_memory_mib must be between 1 and 1048576"):
        mappings.load(contexts, max_table_memory_mib=0)
