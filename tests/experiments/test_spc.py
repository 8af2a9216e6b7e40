"""Tests of the paper 004 reproduction: one quick run through the CLI, its files checked against
Theorem 2 and the figures' layout, the helpers on hand-made records; the paper-size run is slow."""

import csv
from pathlib import Path

import pytest

from schedrelax.cli import main
from schedrelax.experiments.reproduce import available
from schedrelax.experiments.reproduce import read_side_by_side
from schedrelax.experiments.spc import (
    ALGORITHMS,
    COLUMNS,
    FIGURES,
    QUICK_CAUSE,
    RunRecord,
    figure_markdown,
    means,
    paper_fig7_twct,
    paper_rows,
    reproduce_spc,
)


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
    # 2 columns x 2 figures x 3 points x 2 seeds x 4 algorithms.
    assert len(rows) == 2 * 2 * 3 * 2 * len(ALGORITHMS)
    assert {r["role"] for r in rows} == set(ALGORITHMS)
    assert {r["algorithm"] for r in rows if r["column"] == "calibrated"} == {"spc", "huwf-paper", "tetris", "fifo"}
    assert {r["algorithm"] for r in rows if r["column"] == "default"} == {"spc", "huwf", "tetris", "fifo"}
    report = (quick_run / "spc.md").read_text()
    assert "## Fig. 7" in report and "## Fig. 8" in report and "spc_fig7.png" in report


def test_spc_runs_respect_their_lp_bound(quick_run):
    for r in _read(quick_run / "spc_runs.csv"):
        if r["role"] == "spc":
            assert float(r["lower_bound"]) <= float(r["objective"]) * (1 + 1e-9)
        else:
            assert r["lower_bound"] == ""


def test_figure_x_values_follow_the_paper():
    assert FIGURES["fig7"][2] == (600.0, 800.0, 1000.0, 1200.0, 1400.0)
    assert FIGURES["fig8"][2] == (2.0, 6.0, 10.0, 14.0, 18.0)


def test_quick_run_writes_the_side_by_side_table(quick_run):
    rows = read_side_by_side(quick_run / "spc_side_by_side.csv")
    assert {r.item for r in rows} == {"Fig. 7", "Fig. 8"}
    assert all(r.calibrated is not None and r.default is not None for r in rows)
    assert all(r.cause == QUICK_CAUSE for r in rows if r.flagged)


def test_paper_fig7_twct_from_the_stated_numbers():
    # S-PC: increase 44,680 is 20.98 % -> 44680 / 0.2098 = 212,964.7 at 600 MB, + 44,680 = 257,644.7 at 1400.
    low, high = paper_fig7_twct("spc")
    assert low == pytest.approx(212964.73, abs=0.01) and high == pytest.approx(257644.73, abs=0.01)


def _hand_records():
    # Calibrated column, both figures, two x values, one seed; S-PC 100 -> 120 (Fig. 7), 10 -> 110 (Fig. 8);
    # HUWF, Tetris, FIFO 1.1, 1.2, 1.5 times S-PC everywhere.
    recs = []
    for role, f in (("spc", 1.0), ("huwf", 1.1), ("tetris", 1.2), ("fifo", 1.5)):
        for fig, xs, vals in (("fig7", (600.0, 1400.0), (100.0, 120.0)), ("fig8", (2.0, 18.0), (10.0, 110.0))):
            for x, v in zip(xs, vals):
                recs.append(RunRecord(fig, x, 0, COLUMNS["calibrated"].algorithms[role], 1, 1, f * v, None, None, 0.0,
                                      "calibrated", role))
    return recs


def test_paper_rows_on_hand_records():
    rows = {(r.item, r.quantity): r for r in paper_rows(_hand_records(), quick=True)}
    spc_rel = rows["Fig. 7", "S-PC relative TWCT increase, 600 -> 1400 MB"]
    assert spc_rel.calibrated == pytest.approx(0.2) and spc_rel.default is None  # 120 / 100 - 1
    assert not spc_rel.flagged  # 20 % against 20.98 %: 0.98 points
    huwf_gain = rows["Fig. 7", "HUWF / S-PC - 1, mean over the x values (derived: at 600 and 1400 MB)"]
    assert huwf_gain.calibrated == pytest.approx(0.1)  # 10 % against the paper's 5.5-6.1 %: 3.9 points
    fifo_inc8 = rows["Fig. 8", "FIFO TWCT increase, W_max 2 -> 18"]
    assert fifo_inc8.calibrated == pytest.approx(150.0)  # 1.5 * 110 - 1.5 * 10
    assert fifo_inc8.flagged and fifo_inc8.cause == QUICK_CAUSE
    assert rows["Fig. 8", "Tetris's increase / S-PC's - 1 (derived)"].calibrated == pytest.approx(0.2)
    # At W_max = 2: S-PC 10, HUWF 11, Tetris 12 -> 12 / 10 - 1 = 20 %.
    assert rows["Fig. 8", "S-PC, HUWF, Tetris at W_max = 2: max / min - 1"].calibrated == pytest.approx(0.2)


def test_paper_scale_rows_without_a_measured_cause_say_unexplained():
    rows = paper_rows(_hand_records(), quick=False)
    flagged = [r for r in rows if r.flagged]
    assert flagged and all(r.cause for r in flagged)


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
