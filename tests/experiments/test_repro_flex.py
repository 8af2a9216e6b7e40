"""The FLEX (paper 002) declaration: its cell checked against brute force on tiny instances, its
paper numbers against the paper's text, and one quick engine run."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from schedrelax.experiments import engine
from schedrelax.experiments.reproductions import flex as F

SHARED = Path(__file__).resolve().parents[3] / "shared"
PAPER = SHARED / "papers" / "002_5f5d81b4ed12ab90.txt"
TINY = {**F.EXPERIMENT.params, "n_jobs": 4, "processors": 10, "work_per_job": 10.0}


def _by_role(records):
    return {r["algorithm"]: r for r in records}


def _brute_force_best_mps(seed: int) -> float:
    """The best MPS schedule over every ordering, by enumerating the 4! orderings."""
    from schedrelax.schedulers.malleable_packing import malleable_packing
    from schedrelax.schedules import evaluate

    inst = F._instance(seed, n_jobs=4, processors=10, small_fraction=0.8, slack=0.75, cost="completion",
                       objective="minisum", work_per_job=10.0, small_count="exact")
    return min(evaluate(inst, malleable_packing(inst, np.array(order)).schedule()).objective
               for order in itertools.permutations(range(inst.n_flows)))


@pytest.mark.parametrize("seed", [3, 11])
def test_point_cell_ratios_are_over_the_brute_force_optimum(seed):
    rec = _by_role(F.cell(seed, **TINY))
    best = _brute_force_best_mps(seed)
    assert rec["optimum"]["cost"] == pytest.approx(best, rel=1e-9)
    for role in F.ROLES:
        assert rec[role]["ratio"] == pytest.approx(rec[role]["cost"] / best, rel=1e-9)
    # FLEX is an MPS schedule with the minima: never below the best one
    assert rec["FLEX"]["ratio"] >= 1 - 1e-9


def test_fifo_variants_by_their_definitions():
    seed = 5
    base = _by_role(F.cell(seed, **TINY))
    minima = _by_role(F.cell(seed, **{**TINY, "fifo": "mps-minima"}))
    free = _by_role(F.cell(seed, **{**TINY, "optimum": "without-minima"}))
    # FIFO obeying the minima is MPS in one ordering: at least the best ordering
    assert minima["FIFO"]["ratio"] >= 1 - 1e-9
    assert minima["FAIR"] == base["FAIR"]
    # dropping the minima can only lower the optimum, so every ratio over it is at least as large
    for role in F.ROLES:
        assert free[role]["ratio"] >= base[role]["ratio"] - 1e-9


def test_non_positive_optimum_leaves_the_ratio_out():
    # average lateness: the optimum is negative on these instances (§4.1 ignores them)
    rec = _by_role(F.cell(2, **{**TINY, "cost": "lateness"}))
    if rec["optimum"]["cost"] <= 0:
        assert all(math.isnan(rec[r]["ratio"]) for r in (*F.ROLES, "optimum"))
    else:
        assert rec["FLEX"]["ratio"] >= 1 - 1e-9


def test_many_cell_records_both_and_arrivals_queue():
    rec = _by_role(F.cell(1, **{**TINY, "kind": "many", "job_factor": 2, "arrivals": True}))
    assert set(rec) == {"FLEX", "FAIR"}
    for r in rec.values():
        assert r["mean_response"] > 0 and r["jobs_in_system"] > 0 and r["offered_load"] > 0
    # Little's law on one machine class: mean jobs in system over the makespan is at most the count
    assert all(r["jobs_in_system"] <= 8 + 1e-9 for r in rec.values())


def test_unknown_choices_raise_naming_the_field():
    with pytest.raises(ValueError, match="kind"):
        F.cell(1, **{**TINY, "kind": "nope"})
    with pytest.raises(ValueError, match="fifo"):
        F.cell(1, **{**TINY, "fifo": "nope"})
    with pytest.raises(ValueError, match="small_count"):
        F.cell(1, **{**TINY, "small_count": "nope"})


@pytest.mark.skipif(not PAPER.exists(), reason="the papers' texts are beside the source checkout only")
def test_paper_numbers_are_the_papers():
    text = " ".join(PAPER.read_text().split())
    assert "207% of optimal, and worst case performance which is 324% of optimal" in text
    assert "For FAIR the numbers are 154% and 161%" in text
    assert "worst case performance less than .1% higher" in text
    assert "in 100 simulations" in text and F.PAPER_COUNT == 100
    assert "FLEX continues to outperform FAIR by almost 20%" in text
    assert "uniformly about 50% higher" in text
    assert F.PAPER_BASE == {"FIFO": (2.07, 3.24), "FAIR": (1.54, 1.61)}
    rows = {r.id: r for r in F.EXPERIMENT.rows}
    assert rows["base-fifo-average"].paper.low == 2.07 and rows["base-fair-worst"].paper.low == 1.61


def test_fit_is_declared_apart_from_the_evaluation_seeds():
    fit = F.EXPERIMENT.fit
    assert fit.targets[:2] == ("base-fair-average", "base-fair-worst") and fit.seeds == tuple(range(100))
    p = engine.plan(F.EXPERIMENT)
    assert not set(p.eval_seeds) & set(fit.seeds)
    assert {c.seed for c in p.cells if c.setting == "fit"} == set(range(100))


def test_quick_engine_run(tmp_path):
    out = engine.run(F.EXPERIMENT, tmp_path, quick=True, progress=False)
    assert out.failed_cells == 0
    assert out.results
    for r in out.results:
        assert r.verdict in engine.VERDICTS
        assert r.estimate.ok and math.isfinite(r.estimate.low) and math.isfinite(r.estimate.high), r.row.id
    verdicts = {r.row.id: r.verdict for r in out.results}
    assert verdicts["base-fair-average"] == verdicts["base-fair-worst"] == "fitted"
    assert any(r.row.claim for r in out.results)


def test_heterogeneous_sizes_by_the_papers_words():
    rng = np.random.default_rng(0)
    same = F.heterogeneous_sizes(rng, 10, 0.0)
    assert np.allclose(same, same[0])
    wide = F.heterogeneous_sizes(rng, 10, 4.0)
    # σ is the standard deviation of the sizes; at σ = 4 the smallest is a tenth of the largest
    assert wide.std() == pytest.approx(4.0) and wide.min() / wide.max() == pytest.approx(0.1)
    with pytest.raises(ValueError, match="sigma"):
        F.heterogeneous_sizes(rng, 10, -1.0)


def test_cluster_cell_with_gaps_records_load_and_queue():
    rec = _by_role(F.cell(4, **{**TINY, "kind": "cluster", "gap_minutes": 9.0, "sigma": 2.0}))
    assert set(rec) == {"FLEX", "FAIR"}
    # the mean gap is 9/45 of the work's time on all slots: 4 jobs arrive over about 3/5 of it
    assert all(r["offered_load"] > 1 and r["mean_response"] > 0 for r in rec.values())
