"""``schedrelax reproduce online --quick``: files written, every policy above its lower bound,
and the Google part skipped cleanly when the data folder is absent."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import schedrelax.experiments.online as online_exp
from schedrelax.experiments.reproduce import available, reproduce


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("online")
    mp = pytest.MonkeyPatch()
    mp.setattr(online_exp, "GOOGLE", Path(out) / "no-such-folder")  # a user's clone has no ../shared
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
    assert "Google 2011 trace part not present: skipped." in text
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
