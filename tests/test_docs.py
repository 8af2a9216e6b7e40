"""The documentation site cannot silently miss a notebook or a subpackage, and every page's
generated parts (``<!-- gen:NAME ARG -->``, expanded by docs/_ext/hooks.py) still find their
sources. The build itself (``mkdocs build --strict``, notebooks run) is CI's docs step, followed by
.ci/check_site.py, which opens the built pages in headless Chromium.

The command line reference on docs/guide/cli.md is generated from the parser and checked here;
``python tests/test_docs.py`` rewrites it. The Python code on the pages listed in RUN_PAGES is run.
"""

from __future__ import annotations

import argparse
import importlib.util
import pkgutil
import re
import sys
from pathlib import Path

import pytest

import schedrelax
from schedrelax.cli import _parser

ROOT = Path(__file__).resolve().parents[1]
MKDOCS = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
PAGES = sorted((ROOT / "docs").rglob("*.md"))
CLI_PAGE = ROOT / "docs" / "guide" / "cli.md"
CLI_BLOCK = re.compile(r"(<!-- cli:start -->\n)(.*?)(\n<!-- cli:end -->)", re.S)
CLI_MARKERS = re.compile(r"<!-- cli:start -->\n.*?<!-- cli:end -->", re.S)
RUN_PAGES = ("guide/solvers.md",)
"""Pages whose Python blocks are complete programs (the others show fragments)."""


def _nav_targets() -> set[str]:
    nav = MKDOCS[MKDOCS.index("\nnav:"):]
    return set(re.findall(r"^\s+- (?:[^:\n]+: )?(\S+\.(?:md|ipynb))\s*$", nav, re.M))


def test_every_notebook_is_a_page():
    notebooks = {f"notebooks/{p.name}" for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert notebooks, "no notebooks found"
    assert notebooks <= _nav_targets(), f"not in mkdocs.yml's nav: {sorted(notebooks - _nav_targets())}"


def test_every_subpackage_has_an_api_page():
    subpackages = {i.name for i in pkgutil.iter_modules(schedrelax.__path__) if i.ispkg} - {"schemas"}
    pages = {p.stem for p in (ROOT / "docs" / "api").glob("*.md")}
    assert subpackages <= pages, f"no docs/api page for {sorted(subpackages - pages)}"
    for name in subpackages:
        text = (ROOT / "docs" / "api" / f"{name}.md").read_text(encoding="utf-8")
        assert f"<!-- gen:api schedrelax.{name} -->" in text


def test_every_nav_page_exists():
    for target in _nav_targets():
        if not target.startswith("notebooks/0"):
            assert (ROOT / "docs" / target).exists(), target


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "_ext" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    return hooks


NEEDS_MKDOCS = pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None,
                                  reason="needs the docs extra: pip install '.[docs]'")


@NEEDS_MKDOCS
def test_notebook_pages_lose_the_cdn_mathjax_and_fold_their_solutions():
    # The shape nbconvert's lab template gives a tagged cell: two nested divs with the tag class.
    cell = ('<div class="jp-Cell jp-CodeCell celltag_solution"><div class="jp-Cell jp-CodeCell celltag_solution" '
            'id="x"><div class="jp-Cell-inputWrapper"><pre>answer = 42</pre></div>'
            '<div class="jp-Cell-outputWrapper"><pre>42</pre></div></div></div>')
    other = '<div class="jp-Cell jp-MarkdownCell"><p>Exercise 1: $x$?</p></div>'
    mathjax = '<!-- Load mathjax -->\n<script src="https://cdn/MathJax.js"></script>\n<!-- End of mathjax configuration -->'
    html = mathjax + other + cell + other

    class _Page:
        class file:
            src_uri = "notebooks/01.ipynb"

    out = _hooks().on_page_content(html, _Page, {}, None)
    assert "mathjax" not in out.lower()
    assert out == (other + '<details class="nb-solution"><summary>Solution</summary>\n' + cell + "\n</details>" + other)

    class _Markdown:
        class file:
            src_uri = "guide/cli.md"

    assert _hooks().on_page_content(html, _Markdown, {}, None) == html


@NEEDS_MKDOCS
@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT / "docs")))
def test_generated_parts_expand(page):
    hooks = _hooks()

    class _Page:
        class file:
            src_uri = str(page.relative_to(ROOT / "docs"))

    text = page.read_text(encoding="utf-8")
    out = hooks.on_page_markdown(text, _Page, {}, None)
    assert "<!-- gen:" not in out
    if "<!-- gen:algorithms -->" in text:
        from schedrelax.algorithms import markdown_table

        assert markdown_table() in out


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
    lines += ["", f"### `{prefix}`", "", f"{summary[0].upper()}{summary[1:]}."]
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
    text = CLI_PAGE.read_text(encoding="utf-8")
    block = CLI_BLOCK.search(text)
    assert block, "docs/guide/cli.md has no <!-- cli:start --> ... <!-- cli:end --> block"
    assert block.group(2) == cli_reference(), "regenerate with `python tests/test_docs.py`"


def test_cli_page_names_every_subcommand_and_option():
    # Independent of the generated block's layout: every name a user can type appears.
    block = CLI_BLOCK.search(CLI_PAGE.read_text(encoding="utf-8")).group(2)
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

def _python_blocks() -> list[tuple[str, int, str]]:
    out = []
    for page in RUN_PAGES:
        blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / page).read_text(encoding="utf-8"), re.S)
        out += [(page, k, block) for k, block in enumerate(blocks)]
    return out


def test_the_backend_example_is_run():
    assert any("run_backend(" in block for _, _, block in _python_blocks())


@pytest.mark.parametrize("page,k,block", _python_blocks(), ids=lambda v: v if isinstance(v, str) and v.endswith(".md") else None)
def test_python_example_runs(page, k, block, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    exec(compile(block, f"docs/{page} python block {k}", "exec"), {"__name__": "docs"})


def test_the_reproduce_example_runs_quick(tmp_path, monkeypatch):
    # the guide's example is a paper-scale run; its parameters and the names it reads are checked
    # here on the same declaration under --quick (the example once set a parameter synchpack lacks)
    from schedrelax.experiments import engine

    (block,) = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "guide" / "reproduce.md").read_text(encoding="utf-8"),
                          re.S)
    run = engine.run
    monkeypatch.setattr(engine, "run", lambda *a, **k: run(*a, **{**k, "quick": True, "workers": 1, "progress": False}))
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "docs/guide/reproduce.md python block", "exec"), {"__name__": "docs"})
    assert (tmp_path / "reports" / "sp16" / "synchpack.md").exists()


def _write() -> None:
    text = CLI_PAGE.read_text(encoding="utf-8")
    if not CLI_MARKERS.search(text):
        sys.exit("docs/guide/cli.md has no <!-- cli:start --> ... <!-- cli:end --> block")
    CLI_PAGE.write_text(CLI_MARKERS.sub(lambda m: f"<!-- cli:start -->\n{cli_reference()}\n<!-- cli:end -->", text),
                        encoding="utf-8")


if __name__ == "__main__":
    _write()
