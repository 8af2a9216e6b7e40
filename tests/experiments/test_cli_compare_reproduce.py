"""The command line of ``compare`` and ``reproduce`` (issue 16): a resume that refuses another
grid's table, progress bars only on a terminal and never with ``-q``, and ``--google``."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pandas as pd
import pytest

from schedrelax.cli import main
from schedrelax.experiments import reproduce as rep
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


@pytest.fixture
def fakes(monkeypatch):
    """Only fake reproductions: one with the google option that takes progress, one with neither."""
    monkeypatch.setattr(rep, "REPRODUCTIONS", {})
    monkeypatch.setattr(rep, "_load_builtin", lambda: None)
    got: list[dict] = []

    @rep.register_reproduction("traced", "takes a trace", options=("google",))
    def _traced(out_dir: Path, *, quick: bool, seed: int, google: str | None = None,
                progress: bool | None = None) -> Path:
        got.append({"google": google, "progress": progress})
        (out_dir / "traced.md").write_text("# traced\n")
        return out_dir / "traced.md"

    @rep.register_reproduction("plain", "takes nothing")
    def _plain(out_dir: Path, *, quick: bool, seed: int) -> Path:
        (out_dir / "plain.md").write_text("# plain\n")
        return out_dir / "plain.md"

    return got


def test_google_and_quiet_reach_the_reproduction(tmp_path, fakes, capsys):
    trace = tmp_path / "task_events-part-00000-of-00500.csv.gz"
    trace.write_text("")
    assert main(["reproduce", "traced", "--google", str(trace), "--out", str(tmp_path)]) == 0
    assert main(["reproduce", "traced", "-q", "--out", str(tmp_path)]) == 0
    assert fakes == [{"google": str(trace), "progress": None}, {"google": None, "progress": False}]
    assert main(["reproduce", "plain", "--google", str(trace), "--out", str(tmp_path)]) == 2
    assert "reproduction 'plain' has no option 'google'" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["online", "all"])
@pytest.mark.parametrize("via", ["option", "variable"])
def test_a_google_path_leading_nowhere_fails_before_any_run(tmp_path, monkeypatch, capsys, name, via):
    missing = tmp_path / "nowhere.csv.gz"
    out = tmp_path / "out"
    if via == "option":
        monkeypatch.delenv(rep.GOOGLE_ENV, raising=False)
        argv, label = ["--google", str(missing)], f"--google {missing}"
    else:
        monkeypatch.setenv(rep.GOOGLE_ENV, str(missing))
        argv, label = [], f"SCHEDRELAX_GOOGLE_TRACE={missing}"
    assert main(["reproduce", name, "--quick", "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"schedrelax reproduce: error: {label}: no such file or folder; expected a task_events "
                          'part of the Google cluster-data 2011 trace ("clusterdata-2011-2"')
    assert not out.exists()  # nothing ran
