"""fair-paper: paper 000's Fair read as the Hadoop Fair Scheduler it cites (§1.3, §4): job-level
shares, minima first, then a water-line up to the maxima."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedrelax import algorithms
from schedrelax.instances import Flow, MalleableInstance
from schedrelax.instances.generate import flex, flowflex
from schedrelax.schedulers.malleable_fair import water_fill
from tests.strategies import malleable_instances


def test_job_level_and_flow_level_fair_differ_by_hand():
    # P = 4; flow 0 has three independent ready jobs of work 2, flow 1 one job of work 2; every
    # maximum is 4.
    # Job level (fair-paper): four ready jobs, one processor each; all end at 2: sum 2 + 2 = 4.
    # Flow level (fair): flows 2 + 2; flow 0's 2 go to its jobs a, b (1 each; c waits), d runs on 2
    # and ends at 1. Then flow 0 alone: a, b have 1 left, c 2; shares 2, 1, 1 (spare to a): a ends
    # at 1.5; b (0.5 left) and c (1.5 left) get 2 each: b ends at 1.75; c (1 left) on 4 ends at 2.
    # Flow completions 2 and 1: sum 3.
    inst = MalleableInstance(processors=4, flows=(Flow(sizes=[2.0, 2.0, 2.0], max_processors=[4, 4, 4]),
                                                  Flow(sizes=[2.0], max_processors=[4])))
    paper = algorithms.run("fair-paper", inst)
    ours = algorithms.run("fair", inst)
    assert paper.evaluation.completion.tolist() == pytest.approx([2.0, 2.0])
    assert paper.objective == pytest.approx(4.0)
    assert ours.evaluation.completion.tolist() == pytest.approx([2.0, 1.0])
    assert ours.objective == pytest.approx(3.0)


def test_minima_first_then_the_water_line_by_hand():
    # P = 7, single-job flows A (12 work, min 4, max 6), B (2, min 1), C (2, min 1), maxima 6.
    # Minima 4, 1, 1 leave 1 slot: B and C are the lowest (1), the spare goes to B (first):
    # 4, 2, 1. B ends at 1. Then A (8 left) and C (1 left): minima 4, 1, slack 2 to C: 4, 3; C
    # ends at 1 + 1/3. A has 8 - 4/3 = 20/3 left, alone on its maximum 6: ends at 4/3 + 10/9 = 22/9.
    inst = MalleableInstance(processors=7, flows=(
        Flow(sizes=[12.0], max_processors=[6], min_processors=[4]),
        Flow(sizes=[2.0], max_processors=[6], min_processors=[1]),
        Flow(sizes=[2.0], max_processors=[6], min_processors=[1])))
    r = algorithms.run("fair-paper", inst)
    assert r.evaluation.completion.tolist() == pytest.approx([22 / 9, 1.0, 4 / 3])
    assert "respects_minima" in r.schedule.promises


def test_water_fill_with_floor_by_hand():
    # Floors 4, 1, 1 of 7: 1 spare, to the first of the lowest (claimant 1).
    assert water_fill(np.array([6, 6, 6]), 7, np.array([4, 1, 1])).tolist() == [4, 2, 1]
    # Floors 0: the plain water-fill.
    assert water_fill(np.array([5, 1, 3]), 6, np.array([0, 0, 0])).tolist() == [3, 1, 2]
    # Enough for every demand.
    assert water_fill(np.array([2, 3]), 10, np.array([1, 1])).tolist() == [2, 3]
    with pytest.raises(ValueError, match="floor"):
        water_fill(np.array([2, 3]), 3, np.array([2, 2]))


@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=8), st.integers(0, 40))
def test_water_fill_with_floor_is_max_min_fair_above_the_floors(pairs, capacity):
    demand = np.array([max(a, b) for a, b in pairs])
    floor = np.array([min(a, b) for a, b in pairs])
    if floor.sum() > capacity:
        return
    alloc = water_fill(demand, capacity, floor)
    assert alloc.sum() == min(capacity, demand.sum())
    assert np.all((alloc >= floor) & (alloc <= demand))
    # A claimant above its floor and below its demand is within one of every other claimant that
    # is above its own floor.
    raised = alloc > floor
    short = raised & (alloc < demand)
    if short.any():
        assert alloc[short].min() >= alloc[raised].max() - 1


@pytest.mark.parametrize("seed", range(6))
def test_fair_paper_equals_fair_hfs_on_flex_instances(seed):
    # Two independent codes (the event loop here, paper 002's pack() with its water-line) for the
    # same allocation on single-job flows with minima.
    inst = flex(seed, n_jobs=8, processors=30)
    a = algorithms.run("fair-paper", inst)
    b = algorithms.run("fair-hfs", inst)
    assert a.evaluation.completion == pytest.approx(b.evaluation.completion, rel=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_fair_paper_equals_fair_hfs_on_flowflex_instances(seed):
    # DAG flows whose edges go from lower to higher index: fair-hfs's topological tie order is
    # then the job index order that fair-paper uses.
    inst = flowflex(seed, processors=20, n_flows=(3, 5), jobs_per_flow=(2, 6))
    a = algorithms.run("fair-paper", inst)
    b = algorithms.run("fair-hfs", inst)
    assert a.evaluation.completion == pytest.approx(b.evaluation.completion, rel=1e-9)


@settings(max_examples=60)
@given(malleable_instances(max_flows=4, max_jobs=4, max_processors=6, releases=True))
def test_fair_paper_verifies_and_is_work_conserving(inst):
    r = algorithms.run("fair-paper", inst)  # run() verifies the schedule
    s = r.schedule
    done = np.zeros(inst.n_jobs)
    np.maximum.at(done, s.job, s.end)
    preds = [[] for _ in range(inst.n_jobs)]
    for a, b in inst.edges.tolist():
        preds[b].append(a)
    release = inst.flow_release[inst.job_flow]
    # In the middle of every elementary interval: if some processor idles, every ready job (its
    # flow released, predecessors complete, itself unfinished) runs at its maximum.
    cuts = np.unique(np.r_[s.start, s.end])
    for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
        mid = (lo + hi) / 2
        on = (s.start <= mid) & (mid < s.end)
        rate = np.zeros(inst.n_jobs)
        np.add.at(rate, s.job[on], s.rate[on])
        if rate.sum() < inst.processors:
            for j in range(inst.n_jobs):
                if release[j] <= mid < done[j] and all(done[a] <= mid for a in preds[j]):
                    assert rate[j] == inst.max_procs[j]
