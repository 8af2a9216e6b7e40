"""Fair, paper 000's second baseline (§1.3, §4): equal whole-processor shares among the flows."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedrelax import algorithms
from schedrelax.instances import Flow, MalleableInstance
from schedrelax.schedulers.malleable_fair import water_fill
from tests.strategies import malleable_instances


def test_water_fill_by_hand():
    # Level 2 first: [2, 1, 2] uses 5 of 6; the last processor goes to the first unsatisfied.
    assert water_fill(np.array([5, 1, 3]), 6).tolist() == [3, 1, 2]
    # Enough for everybody: each gets its demand.
    assert water_fill(np.array([2, 3]), 10).tolist() == [2, 3]
    # Fewer processors than claimants: one each, in order.
    assert water_fill(np.array([4, 4, 4]), 2).tolist() == [1, 1, 0]


@given(st.lists(st.integers(0, 9), min_size=1, max_size=8), st.integers(0, 30))
def test_water_fill_is_max_min_fair(demand, capacity):
    alloc = water_fill(np.array(demand), capacity)
    d = np.array(demand)
    assert alloc.sum() == min(capacity, d.sum())
    assert np.all((alloc >= 0) & (alloc <= d))
    # Max-min fairness with whole units: a claimant held below its demand has at least the
    # allocation of every other claimant minus one.
    short = alloc < d
    if short.any():
        assert alloc[short].min() >= alloc.max() - 1


def test_processor_sharing_by_hand():
    # P = 4, two one-job flows of 4 and 8 work, each able to use all 4 processors. Fair gives
    # 2 + 2: the first is done at 2; the second has 4 left and takes all 4: done at 3.
    inst = MalleableInstance(processors=4, flows=(Flow(sizes=[4.0], max_processors=[4]),
                                                  Flow(sizes=[8.0], max_processors=[4])))
    r = algorithms.run("fair", inst)
    assert r.evaluation.completion.tolist() == pytest.approx([2.0, 3.0])


def test_a_flow_that_needs_less_leaves_the_rest_to_the_others():
    # P = 5: flow 0 can use 1 processor, flow 1 up to 5: shares 1 and 4 (work-conserving).
    # At 1 flow 2 (1 work on 1 processor) arrives: shares 1, 3, 1 over [1, 2), when flows 0
    # (2 work) and 2 end. Flow 1 (12 work) has done 4 + 3 by then; its last 5 take [2, 3) on 5.
    inst = MalleableInstance(processors=5, flows=(Flow(sizes=[2.0], max_processors=[1]),
                                                  Flow(sizes=[12.0], max_processors=[5]),
                                                  Flow(sizes=[1.0], max_processors=[1], release=1.0)))
    r = algorithms.run("fair", inst)
    assert r.evaluation.completion.tolist() == pytest.approx([2.0, 3.0, 2.0])


@settings(max_examples=60)
@given(malleable_instances(max_flows=4, max_jobs=4, max_processors=6, releases=True))
def test_fair_schedules_verify_and_keep_processors_busy(inst):
    r = algorithms.run("fair", inst)  # run() verifies the schedule
    s = r.schedule
    # Work-conserving: while some flow is unfinished and released, processors are busy unless
    # every ready job is at its maximum; in particular the schedule never idles completely
    # between the first release and the makespan except while waiting for a release.
    times = np.unique(np.r_[s.start, s.end])
    released = np.sort(inst.flow_release)
    for a, b in zip(times[:-1], times[1:]):
        mid = 0.5 * (a + b)
        busy = s.rate[(s.start <= mid) & (mid < s.end)].sum()
        if busy == 0:
            assert np.any((released > a - 1e-9) & (released <= b + 1e-9))
