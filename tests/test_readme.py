"""The README stays true and short: its quickstart is what CI runs, every command it shows parses
with the real command line parser, its Python example runs, and its links to the docs resolve.

The generated parts that used to live here (the algorithm table, the command line reference) are
on the docs pages now; tests/test_docs.py keeps them equal to their sources.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from schedrelax.cli import _parser

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def test_quickstart_is_exactly_the_two_commands_ci_runs():
    text = README.read_text()
    block = re.search(r"## Quickstart.*?```bash\n(.*?)```", text, re.S).group(1).strip().splitlines()
    assert block == ["pip install . && schedrelax demo", "pip install '.[test]' && pytest"]
    ci = (ROOT / ".ci" / "run").read_text()
    for command in block:
        assert command in ci


def test_readme_is_short():
    # A README for users (issue 33): measurements and design notes live on the docs pages.
    assert len(README.read_text().splitlines()) < 300


def _commands() -> list[list[str]]:
    """Every ``schedrelax ...`` command of the README's bash blocks, as argv after ``schedrelax``
    (shell comments dropped, ``$s`` of a loop read as 1, ``&&`` / ``;`` separating commands)."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", README.read_text(), re.S):
        for line in block.splitlines():
            words = shlex.split(line.replace("$s", "1"), comments=True)
            command: list[str] = []
            for word in words + [";"]:
                if word in ("&&", ";", "do", "done") or word.endswith(";"):
                    if word.endswith(";") and word != ";":
                        command.append(word[:-1])
                    if command[:1] == ["schedrelax"]:
                        out.append(command[1:])
                    command = []
                else:
                    command.append(word)
    return out


def test_the_readme_shows_the_main_commands():
    shown = {argv[0] for argv in _commands() if argv}
    assert {"demo", "list", "generate", "solve", "verify", "compare", "reproduce", "convert", "schema"} <= shown


@pytest.mark.parametrize("argv", _commands(), ids=lambda a: " ".join(a)[:60])
def test_every_readme_command_parses(argv):
    # The parser, not a run: an option the command does not take or a missing argument exits 2.
    _parser().parse_args(argv)


def test_the_compare_folder_example_writes_its_folder_first():
    # A clone has no instances/ folder: the README's loop writes it before compare reads it.
    commands = [" ".join(a) for a in _commands()]
    first_read = next(i for i, c in enumerate(commands) if c.startswith("compare instances/"))
    assert any(c.startswith("generate") and "-o instances/" in c for c in commands[:first_read])


def test_readme_links_to_docs_resolve():
    links = re.findall(r"\]\(((?:docs/)[^)#]+)", README.read_text())
    assert links
    for link in links:
        assert (ROOT / link).is_file(), link


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_the_api_example():
    assert any("sr.run(" in b for b in _python_blocks())


@pytest.mark.parametrize("k", range(len(_python_blocks())))
def test_python_example_runs(k, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    exec(compile(_python_blocks()[k], f"README.md python block {k}", "exec"), {"__name__": "readme"})
