"""``schedrelax reproduce online --quick``: files written, every policy above its lower bound,
and the Google part skipped cleanly when the data folder is absent."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import schedrelax.experiments.reproduce as rep  # where the Google trace is looked for
from schedrelax.experiments.reproduce import available, reproduce


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("online")
    mp = pytest.MonkeyPatch()
    mp.setattr(rep, "GOOGLE", Path(out) / "no-such-folder")  # a user's clone has no ../shared
    mp.delenv(rep.GOOGLE_ENV, raising=False)
    try:
        [report] = reproduce("online", out, quick=True, seed=0)
    finally:
        mp.undo()
    return out, report


def test_registered():
    assert "online" in available()


def test_quick_run_writes_tables_and_plots(quick_run):
    out, report = quick_run
    for name in ("online_runs.csv", "online_synchpack.md", "online_spc.md", "online_flowflex.md",
                 "online_synchpack.png", "online_spc.png", "online_spc_accumulation.png", "online_flowflex.png"):
        assert (out / name).stat().st_size > 0, name
    text = report.read_text()
    # Skipped, saying why and where the trace is obtained.
    assert "Google 2011 trace part skipped: no Google trace given (no --google, SCHEDRELAX_GOOGLE_TRACE not set" in text
    assert '"clusterdata-2011-2"' in text and "task_events" in text and "--google FILE" in text
    assert "the run on a trace part was skipped" in (out / "online_differences.md").read_text()
    assert "| m=5 |" in text and "| m=15 |" in text
    assert "paper Table 4" in text and "tetris 11%-27%" in text


def test_every_policy_is_above_its_lower_bound(quick_run):
    out, _ = quick_run
    rows = list(csv.DictReader((out / "online_runs.csv").open()))
    experiments = {r["experiment"] for r in rows}
    assert {"synchpack-a", "synchpack-b", "synchpack-c", "spc-fig6", "flowflex-4.2"} <= experiments
    for r in rows:
        assert r["lower_bound"], r
        assert float(r["lower_bound"]) <= float(r["objective"]) * (1 + 1e-9), r
        assert int(r["replans"]) >= 1
        assert float(r["average_stretch"]) >= 1 - 1e-9  # stretch is over a lower bound on the time alone


def _part(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("0,,1,0,,0,u,0,0,0.1,0.1,0,0\n")
    return path


def test_google_trace_is_found_by_option_then_variable_then_source_tree(tmp_path, monkeypatch):
    tree = tmp_path / "tree"
    monkeypatch.setattr(rep, "GOOGLE", tree)
    monkeypatch.delenv(rep.GOOGLE_ENV, raising=False)
    assert rep.google_trace() == (None, "no Google trace given (no --google, SCHEDRELAX_GOOGLE_TRACE not set, "
                                               "and no trace part beside the source checkout)")
    in_tree = _part(tree / "task_events-part-00001-of-00500.csv.gz")
    assert rep.google_trace() == (in_tree, f"the source checkout's {tree}")
    by_env = _part(tmp_path / "env" / "task_events" / "part-00000-of-00500.csv.gz")  # the bucket's layout
    monkeypatch.setenv(rep.GOOGLE_ENV, str(by_env.parent))
    assert rep.google_trace() == (by_env, f"SCHEDRELAX_GOOGLE_TRACE={by_env.parent}")
    by_option = _part(tmp_path / "opt.csv")
    assert rep.google_trace(by_option) == (by_option, f"--google {by_option}")


@pytest.mark.parametrize("where", ["option", "variable"])
def test_a_google_path_leading_nowhere_is_an_error(tmp_path, monkeypatch, where):
    missing, empty = tmp_path / "missing.csv.gz", tmp_path / "empty"
    empty.mkdir()
    for path, what in ((missing, "no such file or folder"), (empty, "a folder without a task_events file")):
        if where == "option":
            monkeypatch.delenv(rep.GOOGLE_ENV, raising=False)
            label, call = f"--google {path}", lambda p=path: rep.google_trace(p)
        else:
            monkeypatch.setenv(rep.GOOGLE_ENV, str(path))
            label, call = f"SCHEDRELAX_GOOGLE_TRACE={path}", rep.google_trace
        with pytest.raises(ValueError) as err:
            call()
        assert str(err.value).startswith(f"{label}: {what}; expected a task_events part of ")
        assert "clusterdata-2011-2" in str(err.value)
