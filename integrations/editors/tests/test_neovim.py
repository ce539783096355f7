"""A real editor: Neovim, headless, with docs/editors.md's setup, opening a file of the examples."""

import os
import re
import shutil
import subprocess

import pytest

from conftest import MAPPINGS, REPOSITORY

NVIM = shutil.which("nvim")

SCRIPT = """
local setup = dofile(REPOSITORY .. "/integrations/editors/nvim/mappings.lua")
setup.setup({ cmd = { BINARY, "lsp" } })
vim.cmd("edit " .. FILE)
vim.wait(60000, function() return #vim.diagnostic.get(0) >= EXPECTED end, 50)
local lines = { vim.bo.filetype }
for _, d in ipairs(vim.diagnostic.get(0)) do
  lines[#lines + 1] = string.format("%d:%d %s", d.lnum + 1, d.col + 1, (d.message:gsub("\\n", " | ")))
end
vim.fn.writefile(lines, OUTPUT)
vim.cmd("qa!")
"""


@pytest.mark.skipif(NVIM is None and os.environ.get("CI") != "true", reason="nvim is not installed")
def test_neovim_opens_an_example_and_shows_the_diagnostics_check_prints(tmp_path):
    example = "Examples/language/broken.mappings"
    printed = subprocess.run(
        [MAPPINGS, "check", "--mappings", example], cwd=REPOSITORY, capture_output=True, text=True, check=False
    ).stderr
    # The place of each problem (a note's place is not a problem of its own).
    expected = re.findall(r"^error: .*\n\s*--> " + re.escape(example) + r":(\d+):(\d+)", printed, re.M)
    assert len(expected) == 4, printed
    script = tmp_path / "test.lua"
    output = tmp_path / "diagnostics.txt"
    script.write_text(
        "\n".join(
            [
                f"REPOSITORY = {str(REPOSITORY)!r}",
                f"BINARY = {MAPPINGS!r}",
                f"FILE = {str(REPOSITORY / example)!r}",
                f"OUTPUT = {str(output)!r}",
                f"EXPECTED = {len(expected)}",
            ]
        )
        + SCRIPT
    )
    subprocess.run(
        [NVIM or "nvim", "--headless", "--clean", "-c", f"luafile {script}"],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
        check=True,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    lines = output.read_text().splitlines()
    assert lines[0] == "mappings"
    shown = {tuple(line.split(" ", 1)[0].split(":")) for line in lines[1:]}
    assert shown == set(expected), lines
    assert any('unknown keyword "@optinal" in an entry | help: did you mean "@optional"?' in line for line in lines)
