"""Tests of the paper 004 reproduction: one quick run through the CLI, its files checked against
Theorem 2 and the figures' layout, the helpers on hand-made records; the paper-size run is slow."""

import csv
from pathlib import Path

import pytest

from schedrelax.cli import main
from schedrelax.experiments.reproduce import available
from schedrelax.experiments.spc import ALGORITHMS, FIGURES, RunRecord, figure_markdown, means, reproduce_spc


def _read(path: Path) -> list[dict]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("spc")
    assert main(["reproduce", "spc", "--quick", "--out", str(out)]) == 0
    return out


def test_registered():
    assert "spc" in available()


def test_quick_run_writes_runs_figures_and_report(quick_run):
    for name in ("spc_runs.csv", "spc_fig7.png", "spc_fig8.png", "spc.md"):
        assert (quick_run / name).stat().st_size > 0
    rows = _read(quick_run / "spc_runs.csv")
    # 2 figures x 3 points x 2 seeds x 4 algorithms.
    assert len(rows) == 2 * 3 * 2 * len(ALGORITHMS)
    assert {r["algorithm"] for r in rows} == set(ALGORITHMS)
    report = (quick_run / "spc.md").read_text()
    assert "## Fig. 7" in report and "## Fig. 8" in report and "spc_fig7.png" in report


def test_spc_runs_respect_their_lp_bound(quick_run):
    for r in _read(quick_run / "spc_runs.csv"):
        if r["algorithm"] == "spc":
            assert float(r["lower_bound"]) <= float(r["objective"]) * (1 + 1e-9)
        else:
            assert r["lower_bound"] == ""


def test_figure_x_values_follow_the_paper():
    assert FIGURES["fig7"][2] == (600.0, 800.0, 1000.0, 1200.0, 1400.0)
    assert FIGURES["fig8"][2] == (2.0, 6.0, 10.0, 14.0, 18.0)


def test_means_and_increases_on_hand_records():
    recs = [RunRecord("fig7", x, s, a, 2, 3, v, None, None, 0.0)
            for a in ALGORITHMS for x, vals in ((600.0, (10.0, 20.0)), (1400.0, (30.0, 50.0)))
            for s, v in enumerate(vals)]
    assert means(recs, "fig7")["spc"] == {600.0: 15.0, 1400.0: 40.0}
    assert "| spc | 15 | 40 | 25 (166.67%) |" in figure_markdown(recs, "fig7")


@pytest.mark.slow
def test_paper_size_run(tmp_path):
    report = reproduce_spc(tmp_path, quick=False, seed=0).read_text()
    assert "20 seed(s)" in report
