"""docs/python.md's Python blocks, run in order in one namespace from the repository's root
(as a reader pastes them): what the guide shows stays what the package does."""

import contextlib
import io
import os
import re

from conftest import ROOT


def test_the_guides_python_blocks_run():
    with open(os.path.join(ROOT, "docs", "python.md")) as file:
        blocks = re.findall(r"```python\n(.*?)```", file.read(), re.S)
    assert len(blocks) >= 2
    namespace = {}
    printed = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(printed):
            for block in blocks:
                exec(compile(block, "docs/python.md", "exec"), namespace)
    finally:
        os.chdir(cwd)
    lines = printed.getvalue().splitlines()
    assert lines[0] == "['$Issue', '$User', '$Label', '$Reactions']"
    assert lines[1] == "Found a bug 2024-04-22 13:33:48+00:00"
    assert lines[2] == "True []"
    assert lines[3].startswith('3 expected a date in the format "@iso8601"')
    assert lines[4] == "2 [3]"
    assert lines[5] == "['Found a bug', 'Docs are out of date']"
    assert lines[6] == "[(1347, 'octocat'), (1348, 'hubot')]"
