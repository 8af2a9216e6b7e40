"""Tests of the paper 004 §VI-C reproduction (stochastic task times, LATE): the instances against
the paper's numbers, one point's runs, the side-by-side rows; the --quick run is slow."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from schedrelax.experiments.reproduce import available, read_side_by_side
from schedrelax.experiments.spc_stochastic import (
    ALGORITHMS,
    FAST_SPEED,
    PAPER_UP_TO,
    RunRecord,
    improvements,
    instance,
    paper_rows,
    run_point,
    up_to,
)


def test_registered():
    assert "spc-stochastic" in available()


def test_fig10_sort_instance_matches_the_text():
    inst = instance(0, "fig10", "Sort")
    # 20 jobs -> 40 nodes; 2 GB / 64 MB = 32 map tasks; Sort: 4 reduce tasks of 2048*1.0/4 = 512 MB.
    assert inst.n_jobs == 40 and len(inst.edges) == 20
    assert [len(inst.jobs[j].tasks) for j in (0, 1)] == [32, 4]
    assert inst.jobs[1].tasks.tolist() == [512.0] * 4
    # 12 machines, speed ratio 8; weights U[1, 5] on the reduce nodes, 0 on the map nodes.
    assert sorted(set(np.round(inst.speeds, 9))) == [round(FAST_SPEED / 8, 9), round(FAST_SPEED, 9)]
    assert inst.n_machines == 12
    assert np.all(inst.weights[0::2] == 0) and np.all((inst.weights[1::2] >= 1) & (inst.weights[1::2] <= 5))
    # two release groups of 10 jobs, 60 s apart
    assert sorted(inst.release[0::2].tolist()) == [0.0] * 10 + [60.0] * 10


def test_fig11_and_fig13_mixes():
    inst = instance(1, "fig11", "WordCount")
    maps = sorted(len(inst.jobs[j].tasks) for j in range(0, inst.n_jobs, 2))
    # 12 x 2048/64 = 32 maps, 4 x 1024/32 = 32, 4 x 4096/128 = 32
    assert maps == [32] * 20
    sizes = sorted({float(inst.jobs[j].tasks[0]) for j in range(0, inst.n_jobs, 2)})
    assert sizes == [32.0, 64.0, 128.0]
    f13 = instance(2, "fig13", 6)
    # 6 large jobs (4096/128 = 32 maps) and 12 small (1024/128 = 8 maps)
    assert sorted(len(f13.jobs[j].tasks) for j in range(0, f13.n_jobs, 2)) == [8] * 12 + [32] * 6
    with pytest.raises(ValueError, match="benchmark"):
        instance(0, "fig10", "Grep")
    with pytest.raises(ValueError, match="figure"):
        instance(0, "fig7", "Sort")


def test_one_point_runs_every_policy_verified():
    recs = run_point("fig10", "WordMean", 0)
    # 2 settings x 6 algorithms + 3 ablation runs; each simulate() result passed verify inside run_point.
    assert len(recs) == 2 * len(ALGORITHMS) + 3
    by = {(r.setting, r.algorithm): r for r in recs}
    # speculation only where LATE is on
    assert all(r.backups == 0 for r in recs if "LATE" not in r.algorithm)
    # calibrated FIFO/LATE hold machines with early reduce tasks; the default ones never do
    assert by[("calibrated", "FIFO")].held_seconds > 0
    assert by[("default", "FIFO")].held_seconds == 0
    # the calibrated factor's range is at most 24 % of the mean (uniform on [0.88, 1.12])
    assert by[("calibrated", "S-PC")].factor_range <= 0.24 / 0.88 + 1e-9


def _rec(fig, x, setting, algo, twct):
    return RunRecord(fig, x, 0, setting, algo, twct, twct, 0, 0, 0.0, 0.0, 0.0, 0.0)


def test_up_to_is_the_largest_gain_over_the_points():
    recs = [_rec("fig10", "A", "calibrated", "S-PC", 6.0), _rec("fig10", "A", "calibrated", "FIFO", 10.0),
            _rec("fig10", "B", "calibrated", "S-PC", 5.0), _rec("fig10", "B", "calibrated", "FIFO", 20.0)]
    # A: 1 - 6/10 = 40 %, B: 1 - 5/20 = 75 %: up to 75 %
    assert improvements(recs, "fig10", "calibrated", "FIFO") == pytest.approx({"A": 0.4, "B": 0.75})
    assert up_to(recs, "fig10", "calibrated", "FIFO") == pytest.approx(0.75)
    assert up_to(recs, "fig10", "calibrated", "LATE") is None


def test_paper_rows_cover_every_stated_number():
    recs = []
    for fig in PAPER_UP_TO:
        for setting in ("calibrated", "default", "ablation"):
            for algo in (*ALGORITHMS, "Identical-machine (pull)"):
                recs.append(_rec(fig, "x", setting, algo, 1.0 if algo == "S-PC" else 2.0))
    rows = paper_rows(recs)
    assert len(rows) == sum(len(v) for v in PAPER_UP_TO.values()) + 2
    # every gain is 1 - 1/2 = 50 %; rows more than 10 points off carry a cause
    for r in rows[:-2]:
        assert r.calibrated == pytest.approx(0.5)
        assert not r.flagged or r.cause


@pytest.mark.slow
def test_quick_run_writes_everything(tmp_path):
    from schedrelax.cli import main

    assert main(["reproduce", "spc-stochastic", "--quick", "--out", str(tmp_path)]) == 0
    for suffix in (".md", "_vs_paper.md", "_differences.md", "_side_by_side.csv", "_runs.csv", "_fig10.png",
                   "_fig13.png"):
        assert (tmp_path / f"spc-stochastic{suffix}").stat().st_size > 0
    rows = read_side_by_side(tmp_path / "spc-stochastic_side_by_side.csv")
    assert all(r.cause for r in rows if r.flagged)
    with (tmp_path / "spc-stochastic_runs.csv").open() as fh:
        runs = list(csv.DictReader(fh))
    # 11 points x 2 seeds x (12 + 3) runs
    assert len(runs) == 11 * 2 * 15
