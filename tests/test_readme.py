"""The README stays true: its quickstart, and its algorithm table against the registry."""

from __future__ import annotations

import re
from pathlib import Path

from schedrelax import algorithms

README = Path(__file__).resolve().parents[1] / "README.md"


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
