"""The command line of ``compare`` (issue 16): a resume that refuses another grid's table, and
progress bars only on a terminal and never with ``-q`` (``reproduce``'s: tests/experiments/test_reproduce.py)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pandas as pd
import pytest

from schedrelax.cli import main
from schedrelax.instances.generate import generate


def _packing_grid(out: Path, *extra: str) -> list[str]:
    return ["compare", "--family", "packing", "--generate", "2", "--algorithms", "fifo", "--no-opt", "--workers", "1",
            "--out", str(out), *extra]


def test_the_readme_example_of_two_families_in_one_table_is_refused(tmp_path, capsys):
    out = tmp_path / "grid.csv"
    assert main(_packing_grid(out)) == 0
    before = out.read_text()
    folder = tmp_path / "instances"
    folder.mkdir()
    generate("related", None, seed=0, n_jobs=3, tasks_per_job=(1, 2), machines=2).save(folder / "r.json")
    capsys.readouterr()
    code = main(["compare", str(folder), "--algorithms", "fifo", "--no-opt", "--workers", "1", "--out", str(out),
                 "--resume"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(f"schedrelax compare: error: cannot resume {out}: it was made by "
                                                   "another grid (grid_grid.json): ")
    assert 'families: table ["packing"], this run ["related"]' in err
    assert "another --out" in err and "drop --resume" in err
    assert out.read_text() == before


def test_a_resume_of_the_same_grid_runs_only_what_is_missing(tmp_path, capsys):
    out = tmp_path / "grid.csv"
    assert main(_packing_grid(out)) == 0
    full = pd.read_csv(out)
    full.iloc[:1].to_csv(out, index=False)  # as if stopped after the first instance
    assert main(_packing_grid(out, "--resume")) == 0
    again = pd.read_csv(out)
    pd.testing.assert_frame_equal(again[["instance", "objective", "n_jobs", "n_tasks"]],
                                  full[["instance", "objective", "n_jobs", "n_tasks"]])
    assert again.loc[0, "total_s"] == full.loc[0, "total_s"]  # the kept row was not run again
    summary = capsys.readouterr().out
    assert summary.splitlines()[0].split()[:3] == ["family", "algorithm", "solver"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("quiet", [False, True])
def test_compare_draws_its_bar_on_a_terminal_unless_quiet(tmp_path, monkeypatch, quiet):
    stderr = _Terminal()
    monkeypatch.setattr(sys, "stderr", stderr)
    assert main(_packing_grid(tmp_path / "g.csv", *(["-q"] if quiet else []))) == 0
    drawn = "compare" in stderr.getvalue() and "2/2" in stderr.getvalue()
    assert drawn is not quiet, stderr.getvalue()
