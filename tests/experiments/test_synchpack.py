"""Tests of the paper 003 reproduction: one quick run through the CLI, the tables it writes
checked against the theorems and the paper's layout, and the helpers on hand-made records; the
full-size run is marked slow."""

import csv
from pathlib import Path

import pytest

from schedrelax.cli import main
from schedrelax.experiments.reproduce import available
from schedrelax.experiments.synchpack import (
    ALPHAS,
    PANELS,
    PAPER_TABLE1,
    RunRecord,
    fig4,
    reproduce_synchpack,
    table1,
)
from schedrelax.instances.generate import PACKING_WEIGHTS

BOUND = {"synchpack2": 24.0, "synchpack3": 4.0}


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
                 "synchpack_fig4.png"):
        assert (quick_run / name).stat().st_size > 0, name
    report = (quick_run / "synchpack.md").read_text()
    assert "Table 1" in report and "Fig. 4" in report


def test_runs_cover_every_panel(quick_run):
    rows = _read(quick_run / "synchpack_runs.csv")
    # per weight type: 3 algorithms on (a) and 3 on (b); per α: 3 on (c); one seed with --quick
    assert len(rows) == len(PACKING_WEIGHTS) * 6 + len(ALPHAS) * 3
    for r in rows:
        assert r["algorithm"] in PANELS[r["panel"]]
        assert float(r["objective"]) > 0


def test_table1_ratios_lie_within_the_theorems(quick_run):
    rows = _read(quick_run / "synchpack_runs.csv")
    for r in rows:
        if r["algorithm"] in BOUND and r["ratio"]:
            assert 1.0 - 1e-9 <= float(r["ratio"]) <= BOUND[r["algorithm"]], r
    table = (quick_run / "synchpack_table1.md").read_text()
    for name, by_weight in PAPER_TABLE1.items():
        for value in by_weight.values():
            assert f"{value:.2f}" in table  # the paper's value beside ours


def test_helpers_on_hand_made_records():
    # Panel (b), equal weights, one seed: SynchPack-2 10 (LP 5 -> ratio 2), Tetris-np 15, JSQ-MW 20:
    # gains (15 - 10)/10 = 50 % and 100 %.
    recs = [RunRecord("b", "equal", 2.0, 0, "synchpack2", 2, 3, 20.0, 10.0, 10.0, 2.0, 0.1),
            RunRecord("b", "equal", 2.0, 0, "tetris-np", 2, 3, 30.0, 15.0, None, None, 0.1),
            RunRecord("b", "equal", 2.0, 0, "jsq-mw", 2, 3, 40.0, 20.0, None, None, 0.1)]
    t1 = {(r["algorithm"], r["weights"]): r for r in table1(recs)}
    assert t1["synchpack2", "equal"]["ratio"] == 2.0 and t1["synchpack2", "equal"]["paper"] == 2.87
    assert t1["synchpack3", "equal"]["runs"] == 0
    gains = {r["algorithm"]: r["gain_of_synchpack"] for r in fig4(recs)}
    assert gains == {"synchpack2": None, "tetris-np": pytest.approx(0.5), "jsq-mw": pytest.approx(1.0)}


@pytest.mark.slow
def test_full_size_run(tmp_path):
    report = reproduce_synchpack(tmp_path, quick=False)
    rows = _read(tmp_path / "synchpack_runs.csv")
    for r in rows:
        if r["algorithm"] in BOUND and r["ratio"]:
            assert float(r["ratio"]) <= BOUND[r["algorithm"]], r
    assert report.exists()
