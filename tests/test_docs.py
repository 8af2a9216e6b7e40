"""The documentation site cannot silently miss a notebook or a subpackage, and every page's
generated parts (``<!-- gen:NAME ARG -->``, expanded by docs/_ext/hooks.py) still find their
sources. The build itself (``mkdocs build --strict``, notebooks run) is CI's docs step."""

from __future__ import annotations

import importlib.util
import pkgutil
import re
from pathlib import Path

import pytest

import schedrelax

ROOT = Path(__file__).resolve().parents[1]
MKDOCS = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
PAGES = sorted((ROOT / "docs").rglob("*.md"))


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


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None, reason="needs the docs extra: pip install '.[docs]'")
@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT / "docs")))
def test_generated_parts_expand(page):
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "_ext" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)

    class _Page:
        class file:
            src_uri = str(page.relative_to(ROOT / "docs"))

    text = page.read_text(encoding="utf-8")
    out = hooks.on_page_markdown(text, _Page, {}, None)
    assert "<!-- gen:" not in out
    if "<!-- gen:algorithms -->" in text:
        from schedrelax.algorithms import markdown_table

        assert markdown_table() in out
