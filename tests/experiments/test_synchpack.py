"""Tests of the paper 003 reproduction: one quick run through the CLI, the tables it writes
checked against the theorems and the paper's layout, and the helpers on hand-made records; the
full-size run is marked slow."""

import csv
from pathlib import Path

import pytest

from schedrelax.cli import main
from schedrelax.experiments.reproduce import available, read_side_by_side
from schedrelax.experiments.synchpack import (
    ALPHAS,
    CONFIGS,
    PANELS,
    PAPER_GAINS,
    PAPER_PANELS,
    PAPER_TABLE1,
    TABLE1_EXTRA,
    RunRecord,
    fig4,
    reproduce_synchpack,
    side_by_side_rows,
    sizes,
    table1,
)
from schedrelax.instances.generate import PACKING_WEIGHTS

BOUND = {"synchpack2": 24.0, "synchpack2-no-shift": 24.0, "synchpack3": 4.0}


def _read(path: Path) -> list[dict]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("synchpack")
    assert main(["reproduce", "synchpack", "--quick", "--out", str(out)]) == 0
    return out


def test_registered():
    assert "synchpack" in available()


def test_quick_run_writes_every_file(quick_run):
    for name in ("synchpack.md", "synchpack_runs.csv", "synchpack_table1.md", "synchpack_fig4.md",
                 "synchpack_fig4.png", "synchpack_fig4_calibrated.png", "synchpack_side_by_side.csv",
                 "synchpack_vs_paper.md", "synchpack_differences.md"):
        assert (quick_run / name).stat().st_size > 0, name
    report = (quick_run / "synchpack.md").read_text()
    assert "Table 1" in report and "Fig. 4" in report


def test_runs_cover_every_panel(quick_run):
    rows = _read(quick_run / "synchpack_runs.csv")
    # per configuration and weight type: 3 algorithms on (a) and 3 + the other shift-back setting
    # on (b); per α: 3 on (c); one seed with --quick
    assert len(rows) == len(CONFIGS) * (len(PACKING_WEIGHTS) * 7 + len(ALPHAS) * 3)
    for r in rows:
        panels = PAPER_PANELS if r["config"] == "calibrated" else PANELS
        assert r["algorithm"] in panels[r["panel"]] or (r["panel"] == "b" and r["algorithm"] == TABLE1_EXTRA[r["config"]])
        assert float(r["objective"]) > 0
    assert {r["algorithm"] for r in rows if r["config"] == "calibrated"} >= {"psrs-paper", "jsq-mw-paper"}


def test_side_by_side_has_every_paper_number(quick_run):
    rows = read_side_by_side(quick_run / "synchpack_side_by_side.csv")
    # Table 1: SynchPack-2 with shift-back off and on, SynchPack-3, per weight type; Fig. 4: two ends per panel
    assert len(rows) == 3 * len(PACKING_WEIGHTS) + 2 * len(PAPER_GAINS)
    for r in rows:
        assert r.calibrated is not None and r.default is not None
        assert not r.flagged or r.cause.strip()
    values = {(r.item, r.paper_low) for r in rows}
    for by_weight in PAPER_TABLE1.values():
        for v in by_weight.values():
            assert ("Table 1", v) in values
    for panel, (lo, hi) in PAPER_GAINS.items():
        assert (f"Fig. 4({panel})", lo) in values and (f"Fig. 4({panel})", hi) in values


def test_calibrated_sizes_come_from_the_paper_fit_setup():
    from schedrelax.instances.generate import SETUPS

    assert sizes(False, "calibrated") == dict(SETUPS["synchpack-paper-fit"].paper_sizes)
    assert sizes(True, "calibrated") == dict(SETUPS["synchpack-paper-fit"].small_sizes)
    with pytest.raises(ValueError, match="config"):
        sizes(False, "paper")


def test_table1_ratios_lie_within_the_theorems(quick_run):
    rows = _read(quick_run / "synchpack_runs.csv")
    for r in rows:
        if r["algorithm"] in BOUND and r["ratio"]:
            assert 1.0 - 1e-9 <= float(r["ratio"]) <= BOUND[r["algorithm"]], r
    table = (quick_run / "synchpack_table1.md").read_text()
    for by_weight in PAPER_TABLE1.values():
        for value in by_weight.values():
            assert f"{value:.2f}" in table  # the paper's value beside ours


def test_helpers_on_hand_made_records():
    # Panel (b), equal weights, one seed: SynchPack-2 10 (LP 5 -> ratio 2), Tetris-np 15, JSQ-MW 20:
    # gains (15 - 10)/10 = 50 % and 100 %.
    # A calibrated run of SynchPack-2 without shift-back (20, LP 5 -> 4) is in another configuration
    # and is no baseline of the default panel: neither the default Table 1 nor its gains see it.
    recs = [RunRecord("b", "default", "equal", 2.0, 0, "synchpack2", 2, 3, 20.0, 10.0, 10.0, 2.0, 0.1),
            RunRecord("b", "default", "equal", 2.0, 0, "tetris-np", 2, 3, 30.0, 15.0, None, None, 0.1),
            RunRecord("b", "default", "equal", 2.0, 0, "jsq-mw", 2, 3, 40.0, 20.0, None, None, 0.1),
            RunRecord("b", "calibrated", "equal", 2.0, 0, "synchpack2-no-shift", 2, 3, 20.0, 10.0, 5.0, 4.0, 0.1)]
    t1 = {(r["algorithm"], r["weights"]): r for r in table1(recs)}
    assert t1["synchpack2", "equal"]["ratio"] == 2.0 and t1["synchpack2", "equal"]["paper"] == 2.87
    assert t1["synchpack3", "equal"]["runs"] == 0 and t1["synchpack2-no-shift", "equal"]["runs"] == 0
    cal = {(r["algorithm"], r["weights"]): r for r in table1(recs, "calibrated")}
    assert cal["synchpack2-no-shift", "equal"]["ratio"] == 4.0
    gains = {r["algorithm"]: r["gain_of_synchpack"] for r in fig4(recs)}
    assert gains == {"synchpack2": None, "tetris-np": pytest.approx(0.5), "jsq-mw": pytest.approx(1.0)}
    # Side by side: the calibrated shift-back-off ratio 4 is 39 % above the paper's 2.87, flagged
    # with a cause; the default column holds the default run's 2.0 only where it ran.
    rows = {(r.item, r.quantity): r for r in side_by_side_rows(recs)}
    off = rows["Table 1", "SynchPack-2 / LP2, shift-back off, equal weights"]
    assert off.calibrated == 4.0 and off.default is None and off.flagged and off.cause
    on = rows["Table 1", "SynchPack-2 / LP2, shift-back on, equal weights"]
    assert on.calibrated is None and on.default == 2.0


@pytest.mark.slow
def test_full_size_run(tmp_path):
    report = reproduce_synchpack(tmp_path, quick=False)
    rows = _read(tmp_path / "synchpack_runs.csv")
    for r in rows:
        if r["algorithm"] in BOUND and r["ratio"]:
            assert float(r["ratio"]) <= BOUND[r["algorithm"]], r
    assert report.exists()
