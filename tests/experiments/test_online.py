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
        if r["experiment"].startswith("fit-"):  # the calibrated runs skip the bound (LP time at 200 jobs)
            assert int(r["replans"]) >= 1
            continue
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


def test_side_by_side_and_queue_are_written(quick_run):
    from schedrelax.experiments.reproduce import read_side_by_side

    out, report = quick_run
    rows = read_side_by_side(out / "online_side_by_side.csv")
    assert all(r.cause.strip() for r in rows if r.flagged)
    # Fig. 6(a)'s one number: "up to 34 %" at the smallest m, beside ours in both columns.
    [fig6] = [r for r in rows if r.item == "004 Fig. 6(a)" and r.paper_low is not None]
    assert fig6.paper_low == fig6.paper_high == 0.34 and "m=5" in fig6.quantity
    assert fig6.calibrated is not None and fig6.default is not None
    # Fig. 5(a)/(b): one row per (baseline, weight type); §4.2: "at least 50 %" rows.
    assert sum(r.item.startswith("003 Fig. 5(a)") for r in rows) == 6
    assert sum(r.item.startswith("003 Fig. 5(b)") for r in rows) == 6
    assert any(r.paper_low == 0.5 and r.paper_high == float("inf") for r in rows)
    assert "mean jobs in system" in (out / "online_queue.md").read_text()
    assert "## Queues" in report.read_text()


def test_flow_time_and_completion_time_differ_by_the_same_release_term(quick_run):
    # Σ w C − Σ w F = Σ w r: the same for every policy on one instance (a check of the two metrics
    # against each other); and a calibrated run's queue is a count >= 1 job at its peak.
    out, _ = quick_run
    rows = list(csv.DictReader((out / "online_runs.csv").open()))
    by_instance: dict[tuple, set] = {}
    for r in rows:
        if r["experiment"].endswith("google"):
            continue
        diff = float(r["weighted_completion"]) - float(r["weighted_flow_time"])
        by_instance.setdefault((r["experiment"], r["setting"], r["seed"]), set()).add(round(diff, 6))
        assert float(r["max_jobs_in_system"]) >= 1
    assert all(len(v) == 1 for v in by_instance.values()), by_instance
    assert any(k[0].startswith("fit-") for k in by_instance)
