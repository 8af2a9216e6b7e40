"""The ASRPT (paper 001) declaration: its cell on instances small enough to schedule by hand, the
trace option, its paper quotes against the paper's text, and one quick engine run."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from schedrelax.experiments import engine
from schedrelax.experiments.reproductions import asrpt as A
from schedrelax.instances import MapReduceInstance, MapReduceJob

SHARED = Path(__file__).resolve().parents[3] / "shared"
PAPER = SHARED / "papers" / "001_cf2d8113d955a8e5.txt"
SWIM = SHARED / "data" / "swim" / "FB-2009_samples_24_times_1hr_0.tsv"


def _by_policy(records):
    return {r["algorithm"]: r for r in records}


def test_two_unit_jobs_on_one_machine_by_hand():
    # Two jobs at slot 0, each one Map unit then one Reduce unit, one machine: the best order
    # finishes one job at the end of slot 1 and the other at the end of slot 3 (flow 2 + 4 = 6);
    # SRPT on the total work (2 each, no dependency) gives the same 6, so ASRPT's ratio is 1.
    inst = MapReduceInstance(1, (MapReduceJob(0, 1, (1,)), MapReduceJob(0, 1, (1,))))
    rec = _by_policy(A.policy_records(inst, "preemptive"))
    assert rec["asrpt"]["srpt_bound"] == 6.0
    assert rec["asrpt"]["total_flow"] == 6.0 and rec["asrpt"]["ratio"] == 1.0
    # Little's law: 6 job-slots of flow over the 4 slots until the last completion
    assert rec["asrpt"]["jobs_in_system"] == pytest.approx(6 / 4)
    for r in rec.values():
        assert r["total_flow"] >= r["srpt_bound"] - 1e-9 and r["ratio"] == pytest.approx(r["total_flow"] / 6.0)


@pytest.mark.parametrize("scenario", A.SCENARIOS)
def test_synthetic_cell_against_the_bound_and_dsrpt(scenario):
    params = {**A.EXPERIMENT.params, **A.EXPERIMENT.quick, "scenario": scenario, "workload": "uniform-small-reduce"}
    rec = _by_policy(A.cell(3, **params))
    assert set(rec) == set(A.POLICIES)
    bound = rec["asrpt"]["srpt_bound"]
    for r in rec.values():
        # Lemma 1's bound holds for every policy and scenario
        assert r["total_flow"] >= bound - 1e-9 and r["srpt_bound"] == bound
        assert 0 <= r["within_100"] <= 1 and r["p95"] > 0
    assert rec["asrpt"]["over_dsrpt"] == pytest.approx(rec["asrpt"]["total_flow"] / rec["dsrpt"]["total_flow"])


def test_prefix_keeps_the_early_arrivals_only():
    from schedrelax.instances.generate import asrpt as generate

    inst = generate(1, machines=10, rate=0.2, slots=60)
    cut = A.prefix(inst, 30)
    assert cut.n_jobs == int((inst.arrival < 30).sum()) and cut.arrival.max() < 30
    rec = _by_policy(A.cell(1, **{**A.EXPERIMENT.params, **A.EXPERIMENT.quick, "scenario": "preemptive",
                                  "fraction": 0.5}))
    assert rec["asrpt"]["jobs"] == _by_policy(A.policy_records(A.prefix(inst, 30), "preemptive"))["asrpt"]["jobs"]


def test_swim_rows_run_only_with_a_trace():
    params = {**A.EXPERIMENT.params, "scenario": "preemptive", "kind": "swim"}
    assert A.cell(0, **params) == []
    p = engine.plan(A.EXPERIMENT, quick=True, overrides={"swim": str(SWIM)})
    assert all(dict(c.params)["swim"] == str(SWIM) for c in p.cells)
    with pytest.raises(ValueError, match="kind"):
        A.cell(0, **{**params, "kind": "nope"})
    with pytest.raises(ValueError, match="scenario"):
        A.cell(0, **{**A.EXPERIMENT.params, **A.EXPERIMENT.quick, "scenario": "nope"})


@pytest.mark.skipif(not SWIM.exists(), reason="the shared SWIM sample is not on this machine")
def test_swim_cell_on_the_first_hour_of_a_sample():
    rec = _by_policy(A.cell(0, **{**A.EXPERIMENT.params, "scenario": "preemptive", "kind": "swim",
                                  "swim": str(SWIM), "swim_hours": 1}))
    assert set(rec) == set(A.POLICIES)
    assert rec["asrpt"]["offered_load"] == pytest.approx(0.8, abs=0.1)
    assert all(r["total_flow"] >= r["srpt_bound"] - 1e-9 for r in rec.values())


@pytest.mark.skipif(not PAPER.exists(), reason="the papers' texts are beside the source checkout only")
def test_paper_quotes_are_the_papers():
    text = " ".join(PAPER.read_text().split())
    for quote in ("ASRPT is much smaller than all the other schedulers",
                  "not greater than 3 times of the lower bound given by Lemma 1 with probability 1",
                  "the total flow-time of ASRPT will not be greater than DSRPT",
                  "ASRPT performs better than other schedulers in both preemptive and non-preemptive scenarios",
                  "the fairness of the ASRPT scheduler is similar", "the LRPT scheduler has a long tail",
                  "We plot the CDF only for flow-time up to 100 units",
                  "also has a constant (maybe relative large) efficiency ratio"):
        assert quote in text, quote
    assert "$N = 100$ machines" in text and "$\\lambda = 2$" in text and "$T = 500$" in text
    assert A.PAPER_BOUND_FACTOR == 3.0 and A.CDF_LIMIT == 100


def test_quick_engine_run(tmp_path):
    out = engine.run(A.EXPERIMENT, tmp_path, quick=True, progress=False)
    assert out.failed_cells == 0
    ids = {r.row.id for r in out.results}
    assert not any(i.startswith("swim") for i in ids)
    for r in out.results:
        assert r.verdict in engine.VERDICTS
        assert r.estimate.ok and math.isfinite(r.estimate.low) and math.isfinite(r.estimate.high), r.row.id
    # a gain recomputed from the cells: mean(Fair) / mean(ASRPT) - 1 over the same seeds
    import pandas as pd

    cells = pd.read_csv(out.cells)
    sel = cells[(cells["setting"] == "main") & (cells["point"] == "exp-large-reduce")]
    fair = sel[sel["algorithm"] == "fair"].sort_values("seed")["total_flow"].to_numpy()
    ours = sel[sel["algorithm"] == "asrpt"].sort_values("seed")["total_flow"].to_numpy()
    row = next(r for r in out.results if r.row.id == "exp-large-reduce-main-vs-fair")
    assert row.estimate.value == pytest.approx(np.mean(fair) / np.mean(ours) - 1)
    assert sum(bool(r.row.claim) for r in out.results) >= 5


@pytest.mark.parametrize("Q", [1, 5])
def test_section_iv_against_its_closed_form(Q):
    # Work-conserving: job 0 holds the machine until 2Q + 2, each small job then needs 2 slots;
    # S_2 runs the small jobs as they come and job 0 last: 2(Q + 1)^2 against 6Q + 3 (for Q = 1
    # by hand: 4 + 4 = 8 against 2 + 7 = 9).
    rec = _by_policy(A.cell(0, **{**A.EXPERIMENT.params, "scenario": "non-preemptive", "kind": "section-iv", "Q": Q}))
    assert rec["s2"]["total_flow"] == 6 * Q + 3
    assert rec["asrpt"]["total_flow"] == 2 * (Q + 1) ** 2
    assert rec["asrpt"]["over_s2"] >= Q / 4
