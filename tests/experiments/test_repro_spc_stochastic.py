"""The S-PC §VI-C declaration (paper 004 Figs 10-13, stochastic task times) and §VI-A's (Figs 4-5,
simulated): the instances against the paper's numbers, one cell's runs, the "up to" statistic
recomputed by hand, the paper's numbers against its text, and engine runs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from schedrelax.experiments import engine
from schedrelax.experiments.reproductions import spc_stochastic as S

SHARED = Path(__file__).resolve().parents[3] / "shared"
PAPER = SHARED / "papers" / "004_b4873590af578e8a.txt"
SHAPE = {"fast": 6, "speed_ratio": 8.0, "ratio_wordcount": 0.2, "ratio_wordmean": 0.01, "ratio_sort": 1.0}
PARAMS = {**SHAPE, "times": "uniform", "spread": 0.12, "slowstart": 0.05, "identical_placement": "plan"}


def test_fig10_sort_instance_matches_the_text():
    inst = S.instance(0, "fig10", "Sort", **SHAPE)
    # 20 jobs -> 40 nodes; 2 GB / 64 MB = 32 map tasks; Sort: 4 reduce tasks of 2048 * 1.0 / 4 = 512 MB
    assert inst.n_jobs == 40 and len(inst.edges) == 20
    assert [len(inst.jobs[j].tasks) for j in (0, 1)] == [32, 4]
    assert inst.jobs[1].tasks.tolist() == [512.0] * 4
    fast = 128.0 / 28.0
    assert sorted(np.round(inst.speeds, 9).tolist()) == [round(fast / 8, 9)] * 6 + [round(fast, 9)] * 6
    assert np.all(inst.weights[0::2] == 0) and np.all((inst.weights[1::2] >= 1) & (inst.weights[1::2] <= 5))
    assert sorted(inst.release[0::2].tolist()) == [0.0] * 10 + [60.0] * 10


def test_mixes_split_and_bad_values():
    inst = S.instance(1, "fig11", "WordCount", **{**SHAPE, "fast": 10, "ratio_wordcount": 0.05})
    # 12 x 2048/64, 4 x 1024/32, 4 x 4096/128: 32 maps each; one reduce task of 0.05 x the input
    assert sorted(len(inst.jobs[j].tasks) for j in range(0, inst.n_jobs, 2)) == [32] * 20
    assert sorted({float(inst.jobs[j].tasks[0]) for j in range(1, inst.n_jobs, 2)}) == [51.2, 102.4, 204.8]
    assert int(np.sum(inst.speeds == inst.speeds.max())) == 10
    f13 = S.instance(2, "fig13", 6, **SHAPE)
    assert sorted(len(f13.jobs[j].tasks) for j in range(0, f13.n_jobs, 2)) == [8] * 12 + [32] * 6
    # Fig. 5: 6 elephants of 2 GB and 12 mice of 0.5 GB, 64 MB tasks, TeraSort: 4 reduce tasks
    f5 = S.instance(2, "fig5", 6, **SHAPE)
    assert sorted(len(f5.jobs[j].tasks) for j in range(0, f5.n_jobs, 2)) == [8] * 12 + [32] * 6
    assert {len(f5.jobs[j].tasks) for j in range(1, f5.n_jobs, 2)} == {4}
    with pytest.raises(ValueError, match="benchmark"):
        S.instance(0, "fig10", "Grep", **SHAPE)
    with pytest.raises(ValueError, match="benchmark"):
        S.instance(0, "fig10", "TeraSort", **SHAPE)
    with pytest.raises(ValueError, match="fast"):
        S.instance(0, "fig10", "Sort", **{**SHAPE, "fast": 12})
    with pytest.raises(ValueError, match="ratio_sort"):
        S.instance(0, "fig10", "Sort", **{**SHAPE, "ratio_sort": 0.0})


def test_one_cell_runs_every_policy():
    recs = {r["algorithm"]: r for r in S.cell(0, figure="fig10", x="WordMean", job_scale=0.1, **PARAMS)}
    assert list(recs) == list(S.ALGORITHMS)
    assert all(r["backups"] == 0 for name, r in recs.items() if name != "LATE")
    # FIFO's reduce tasks launched after 5 % of the maps hold machines; planned policies never do
    assert recs["FIFO"]["held_seconds"] > 0 and recs["S-PC"]["held_seconds"] == 0
    # uniform factor on [0.88, 1.12]: range at most 0.24 / 0.88 of the mean
    assert 0 < recs["S-PC"]["factor_range"] <= 0.24 / 0.88 + 1e-9
    pull = {r["algorithm"]: r for r in S.cell(0, figure="fig10", x="WordMean", job_scale=0.1,
                                                **{**PARAMS, "identical_placement": "pull", "slowstart": 1.0})}
    assert pull["FIFO"]["held_seconds"] == 0
    assert pull["S-PC"]["twct"] == pytest.approx(recs["S-PC"]["twct"])  # same draws, same plan


def test_up_to_recomputed_from_the_means():
    stat = S.up_to("fig10", "Map-only")
    assert [m.point for m in stat.metrics()] == ["fig10-WordCount"] * 2 + ["fig10-WordMean"] * 2 + ["fig10-Sort"] * 2
    # per seed (S-PC, Map-only) at the three points; means (10, 11), (10, 10), (10, 20)
    values = np.array([[9.0, 10.0, 10.0, 10.0, 10.0, 18.0], [11.0, 12.0, 10.0, 10.0, 10.0, 22.0]])
    assert stat.estimate(values) == pytest.approx(0.5)  # 1 - 10 / 20 at Sort
    assert S.at_least("fig10", "Map-only").estimate(values) == pytest.approx(0.0)  # 1 - 10 / 10 at WordMean


@pytest.mark.skipif(not PAPER.exists(), reason="the papers' texts are beside the source checkout only")
def test_paper_numbers_as_the_text_states_them():
    text = " ".join(PAPER.read_text().split())
    assert "S-PC outperforms FIFO, LATE, Identical-machine, and Map-only by up to 37%, 38%, 28%, and 16%" in text
    assert "S-PC outperforms FIFO, LATE, Identical-machine, and Map-only by up to 35%, 36%, 40%, and 18%" in text
    assert "Maponly by up to 60%, 50%, 37%, and 20%" in text
    assert S.PAPER_UP_TO["fig13"] == {"FIFO": 0.60, "LATE": 0.50, "Identical-machine": 0.37, "Map-only": 0.20}
    assert "it is 24% of the mean" in text and S.FIG9_RANGE == 0.24
    assert "by up to 62%, 68%, and 45%" in text and "by up to 80%, 65%, and 52%" in text
    assert "by up to 82\\%, 66\\%, and 61\\%" in text and "by at least 36%" in text
    assert S.PAPER_HADOOP["fig5"] == {"FIFO": 0.82, "Identical-machine": 0.66, "Map-only": 0.61}
    assert S.PAPER_HADOOP["fig4a"]["Identical-machine"] == 0.68 and S.PAPER_FIFO_AT_LEAST == 0.36
    claims = {r.id for r in S.EXPERIMENT.rows if r.claim}
    assert claims == {"fig10-map-only-up-to", "fig11-map-only-up-to", "fig10-identical-machine-up-to",
                      "fig11-identical-machine-up-to"}


def _check_outcome(out, exp):
    assert out.failed_cells == 0
    assert len(out.results) == len(engine.rows_run(exp, True))
    for r in out.results:
        assert r.verdict in engine.VERDICTS
        assert r.estimate.ok and np.isfinite(r.estimate.low) and np.isfinite(r.estimate.high), r.row.id


@pytest.mark.parametrize("name", ["spc-stochastic", "spc-hadoop"])
def test_quick_engine_run_trimmed(tmp_path, name):
    """The declaration without its variations and bands: the engine path in a default-pass time."""
    full = S.EXPERIMENTS[name]
    exp = engine.with_params(full, variations=(), bands=(),
                             rows=tuple(dataclasses.replace(r, variations=()) for r in full.rows))
    _check_outcome(engine.run(exp, tmp_path, quick=True, progress=False), exp)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["spc-stochastic", "spc-hadoop"])
def test_quick_engine_run(tmp_path, name):
    exp = S.EXPERIMENTS[name]
    out = engine.run(exp, tmp_path, quick=True, progress=False)
    _check_outcome(out, exp)
    banded = [r for r in out.results if r.band is not None]
    assert banded and all(r.effects for r in banded)
