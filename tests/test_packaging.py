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
