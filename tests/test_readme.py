"""The README stays true: its quickstart, its algorithm table against the registry, its command
line reference against the argparse parser, and its Python code blocks, which are run.

``python tests/test_readme.py`` rewrites the generated command line reference in README.md.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import pytest

from schedrelax import algorithms
from schedrelax.cli import _parser

README = Path(__file__).resolve().parents[1] / "README.md"
CLI_BLOCK = re.compile(r"(<!-- cli:start -->\n)(.*?)(\n<!-- cli:end -->)", re.S)
CLI_MARKERS = re.compile(r"<!-- cli:start -->\n.*?<!-- cli:end -->", re.S)


def test_quickstart_is_exactly_the_two_commands_ci_runs():
    text = README.read_text()
    block = re.search(r"## Quickstart.*?```bash\n(.*?)```", text, re.S).group(1).strip().splitlines()
    assert block == ["pip install . && schedrelax demo", "pip install '.[test]' && pytest"]
    ci = (README.parent / ".ci" / "run").read_text()
    for command in block:
        assert command in ci


def test_algorithm_table_matches_the_registry():
    text = README.read_text()
    table = re.search(r"<!-- algorithms:start -->\n(.*?)\n<!-- algorithms:end -->", text, re.S).group(1)
    assert table == algorithms.markdown_table(), "regenerate with `schedrelax list --markdown`"


# ------------------------------------------------------------------------------------------------
# The command line reference
# ------------------------------------------------------------------------------------------------

def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def _help(parser: argparse.ArgumentParser, name: str) -> str:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return next(a.help for a in sub._choices_actions if a.dest == name)


def _usage(action: argparse.Action) -> str:
    """How an argument is written: ``instance``, ``--out OUT, -o OUT``, ``--quick``."""
    if not action.option_strings:
        name = action.metavar or action.dest
        return f"{name} ..." if action.nargs in ("*", "+") else name
    if action.nargs == 0:
        return ", ".join(action.option_strings)
    value = action.metavar or ("{" + ",".join(action.choices) + "}" if action.choices else action.dest.upper())
    return ", ".join(f"{o} {value}" for o in action.option_strings)


_COMMON = {"--debug", "--verbose", "--quiet", "--solver-log"}
"""The options every command takes (listed once, at the top of the reference)."""


def _arguments(parser: argparse.ArgumentParser, *, common: bool = True) -> list[argparse.Action]:
    return [a for a in parser._actions
            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
            and (common or not _COMMON & set(a.option_strings))]


def _has_subcommands(parser: argparse.ArgumentParser) -> bool:
    return any(isinstance(a, argparse._SubParsersAction) for a in parser._actions)


def _section(lines: list[str], prefix: str, parser: argparse.ArgumentParser, summary: str) -> None:
    """A command's heading, help and argument table, then its own subcommands' (``convert google``)."""
    lines += ["", f"#### `{prefix}`", "", f"{summary[0].upper()}{summary[1:]}."]
    own = _arguments(parser, common=False)
    if own:
        lines += ["", "| argument | what it does |", "|---|---|"]
        for action in own:
            # Escaped so that `online:<algorithm>` is not read as an HTML tag.
            text = (action.help or "-").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
            lines.append(f"| `{_usage(action)}` | {text} |")
    if _has_subcommands(parser):
        for name, sub in _subcommands(parser).items():
            _section(lines, f"{prefix} {name}", sub, _help(parser, name))


def cli_reference() -> str:
    """The command line reference in Markdown, from the parser itself: every subcommand (and its
    own subcommands) with its help and a table of its arguments."""
    parser = _parser()
    lines = ["`schedrelax [-v | -q] [--solver-log] [--debug] COMMAND ...` (or `python -m schedrelax`); "
             "`schedrelax COMMAND --help` prints the same. These options go before or after the command:", ""]
    for action in _arguments(parser):
        lines.append(f"- `{_usage(action)}`: {action.help}")
    for name, sub in _subcommands(parser).items():
        _section(lines, f"schedrelax {name}", sub, _help(parser, name))
    return "\n".join(lines)


def test_cli_reference_is_the_parser():
    text = README.read_text()
    block = CLI_BLOCK.search(text)
    assert block, "README.md has no <!-- cli:start --> ... <!-- cli:end --> block"
    assert block.group(2) == cli_reference(), "regenerate with `python tests/test_readme.py`"


def test_readme_names_every_subcommand_and_option():
    # Independent of the generated block's layout: every name a user can type appears.
    block = CLI_BLOCK.search(README.read_text()).group(2)
    def check(prefix: str, parser: argparse.ArgumentParser) -> None:
        for name, sub in _subcommands(parser).items():
            assert f"`{prefix} {name}`" in block, f"{prefix} {name}"
            for action in _arguments(sub):
                for option in action.option_strings or [action.metavar or action.dest]:
                    assert option in block, f"{prefix} {name} {option}"
            if _has_subcommands(sub):
                check(f"{prefix} {name}", sub)

    check("schedrelax", _parser())


# ------------------------------------------------------------------------------------------------
# The Python examples
# ------------------------------------------------------------------------------------------------

def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_the_api_and_backend_examples():
    blocks = _python_blocks()
    assert any("sr.run(" in b for b in blocks) and any("run_backend(" in b for b in blocks)


@pytest.mark.parametrize("k", range(len(_python_blocks())))
def test_python_example_runs(k, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    exec(compile(_python_blocks()[k], f"README.md python block {k}", "exec"), {"__name__": "readme"})


def _write() -> None:
    text = README.read_text()
    if not CLI_MARKERS.search(text):
        sys.exit("README.md has no <!-- cli:start --> ... <!-- cli:end --> block")
    README.write_text(CLI_MARKERS.sub(lambda m: f"<!-- cli:start -->\n{cli_reference()}\n<!-- cli:end -->", text))


if __name__ == "__main__":
    _write()
