"""The dependency floors pyproject.toml states are the versions CI tests (.ci/floors.txt)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLOORS = ROOT / ".ci" / "floors.txt"


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~ \[;]", requirement, maxsplit=1)[0].lower()


@pytest.mark.skipif(not FLOORS.exists(), reason="no .ci/floors.txt beside this checkout")
def test_every_stated_floor_is_the_tested_one():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    stated = {}
    for dep in deps:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", dep.replace(" ", ""))
        assert m, f"pyproject.toml: {dep!r} must be a plain 'name>=version' floor"
        stated[m.group(1).lower()] = m.group(2)
    pinned = {}
    for line in FLOORS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pinned[name.strip().lower()] = version.strip()
    assert pinned == stated, "pyproject.toml's floors and .ci/floors.txt must name the same versions"
    assert {_name(d) for d in deps} == set(pinned)


# ------------------------------------------------------------------------------------------------
# One version, and the files that ship beside the code
# ------------------------------------------------------------------------------------------------

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _cff_field(text: str, key: str) -> str:
    """A top-level scalar of CITATION.cff (no YAML parser needed for these)."""
    m = re.search(rf"^{key}:\s*(.+?)\s*$", text, re.M)
    assert m, f"CITATION.cff has no top-level {key!r}"
    return m.group(1).strip("'\"")


def test_citation_states_the_pyproject_version_and_licence():
    text = (ROOT / "CITATION.cff").read_text()
    assert _cff_field(text, "cff-version") == "1.2.0"
    assert _cff_field(text, "version") == PYPROJECT["project"]["version"]
    assert _cff_field(text, "license") == PYPROJECT["project"]["license"]


def test_citation_lists_the_five_papers_and_the_readme_names_them():
    text = (ROOT / "CITATION.cff").read_text()
    refs = text.split("\nreferences:\n", 1)[1]
    titles = [t.strip().strip("'\"") for t in re.findall(r"^  - type: \S+\n    title: (.+)$", refs, re.M)]
    assert len(titles) == 5, titles
    readme = " ".join((ROOT / "README.md").read_text().split())   # titles may wrap across lines
    for title in titles:
        assert title in readme, f"README.md does not name the paper {title!r}"


def test_changelog_has_a_section_for_the_version():
    text = (ROOT / "CHANGELOG.md").read_text()
    version = PYPROJECT["project"]["version"]
    assert re.search(rf"^## \[{re.escape(version)}\] - \d{{4}}-\d\d-\d\d$", text, re.M), version
    assert re.search(r"^## \[Unreleased\]$", text, re.M)


def test_the_package_ships_py_typed_and_its_licence_file_exists():
    assert (ROOT / "schedrelax" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["schedrelax"]
    assert "Redistribution and use in source and binary forms" in (ROOT / "LICENSE").read_text()


def test_python_classifiers_name_only_versions_the_requirement_allows():
    low = re.fullmatch(r">=\s*3\.(\d+)", PYPROJECT["project"]["requires-python"].split("#")[0].strip())
    assert low
    stated = [int(c.rsplit(".", 1)[1]) for c in PYPROJECT["project"]["classifiers"]
              if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    assert stated and min(stated) >= int(low.group(1))


# ------------------------------------------------------------------------------------------------
# The teaching notebooks: goals, exercises with hidden solutions, no stored outputs
# ------------------------------------------------------------------------------------------------

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_has_goals_and_hidden_solutions_and_no_outputs(path):
    import json

    cells = json.loads(path.read_text())["cells"]
    text = lambda c: "".join(c["source"])  # noqa: E731
    assert any("**Learning goals.**" in text(c) for c in cells[:3] if c["cell_type"] == "markdown")
    solutions = [c for c in cells if "solution" in c["metadata"].get("tags", [])]
    assert len(solutions) >= 2, f"{path.name}: {len(solutions)} exercise solutions"
    for c in solutions:
        assert c["cell_type"] == "code" and c["metadata"].get("jupyter", {}).get("source_hidden") is True
        assert "assert" in text(c), f"{path.name}: a solution that asserts nothing checks nothing"
    exercises = [c for c in cells if c["cell_type"] == "markdown" and "**Exercise " in text(c)]
    assert len(exercises) == len(solutions)
    for c in cells:
        if c["cell_type"] == "code":
            assert c["outputs"] == [] and c["execution_count"] is None, f"{path.name}: outputs are not stored"
