"""Tests of the exact MIPs of paper 001 eqs. (1)-(2): hand-checked optima, the chain SRPT bound ≤
OPT(1) ≤ OPT(2) and OPT ≤ every policy on tiny random instances, and the time windows."""

import pytest
from hypothesis import given, settings

from schedrelax.algorithms import run
from schedrelax.instances import MapReduceInstance, MapReduceJob
from schedrelax.models.mapreduce_mip import build_mapreduce_mip, job_flow_lower_bounds, mip_size, mip_windows
from schedrelax.schedulers.mapreduce_sim import srpt_lower_bound, unit_reduce_tasks
from tests.strategies import mapreduce_instances

POLICIES = ("asrpt", "dsrpt", "fifo", "fair", "lrpt")
TINY = {"max_jobs": 4, "max_machines": 3, "max_slots": 4, "max_map": 3, "max_reduce_tasks": 2, "max_reduce_work": 3}


def _mip(inst, preemptive, solver_name):
    res = run("mip", inst, solver=solver_name, params={"preemptive": preemptive, "time_limit": 60})
    assert res.info["optimal"], res.info
    return res


def test_hand_checked_optimum(solver_name):
    # N=2. Job 0 (slot 0): 3 Map tasks, Reduce [1, 1, 1]. Job 1 (slot 0): no Map, Reduce [4].
    # Job 1 needs 4 slots and job 0 at least 2 Map + 2 Reduce slots, so flow ≥ 8; 8 would need job 1
    # on a machine in slots 0-3 and job 0's 6 units on the other machine by slot 3: impossible.
    # 9 is reached: job 1 in slots 0-3, job 0's Map in slots 0-2 on the other machine, one Reduce
    # task in slot 3 and two in slot 4 (non-preemptive too). FIFO gets 10; the SRPT bound is 7
    # (slots 0-1 job 1 on 2 machines, slots 2-4 job 0 on 2 machines: 2 + 5).
    inst = MapReduceInstance(2, (MapReduceJob(0, 3, [1, 1, 1]), MapReduceJob(0, 0, [4])))
    for preemptive in (True, False):
        res = _mip(inst, preemptive, solver_name)
        assert res.objective == 9
        assert res.lower_bound == 9 and res.guarantee == 1.0
        assert res.schedule.promises == (frozenset() if preemptive else {"non_preemptive"})
    assert run("fifo", inst).objective == 10
    assert srpt_lower_bound(inst) == 7


def test_preemption_helps(solver_name):
    # N=1. Job A (slot 0): no Map, Reduce [3]. Job B (slot 1): 1 Map task. Preemptive: B runs in
    # slot 1 inside A's task: 4 + 1 = 5 (= the SRPT bound, so optimal). Non-preemptive: either A
    # waits for B (5 + 1) or B for A (3 + 3): 6.
    inst = MapReduceInstance(1, (MapReduceJob(0, 0, [3]), MapReduceJob(1, 1)))
    assert _mip(inst, True, solver_name).objective == 5 == srpt_lower_bound(inst)
    assert _mip(inst, False, solver_name).objective == 6


def _chain(inst, solver_name):
    # A MIP stopped by its time limit still gives a true bound (its dual bound, in lower_bound) and
    # a feasible incumbent, so every assertion below holds either way; the optimum's own checks
    # need a proven optimum.
    bound = srpt_lower_bound(inst)
    res = {p: run("mip", inst, solver=solver_name, params={"preemptive": p, "time_limit": 3}) for p in (True, False)}
    for preemptive, r in res.items():  # run() has verified the MIP's schedule
        assert bound <= r.lower_bound <= r.objective
        if r.info["optimal"]:
            assert r.lower_bound == r.objective
        for name in POLICIES:
            assert run(name, inst, params={"preemptive": preemptive}).objective >= r.lower_bound, name
    assert res[True].lower_bound <= res[False].objective  # OPT(1) <= OPT(2)
    if res[True].info["optimal"] and res[False].info["optimal"]:
        assert res[True].objective <= res[False].objective


# The random chains run on HiGHS, the default; the hand-checked optima above run on every solver.

@settings(max_examples=35, deadline=None)
@given(inst=mapreduce_instances(**TINY))
def test_bound_le_optimum_le_policies(inst):
    _chain(inst, "highs")


@settings(max_examples=20, deadline=None)
@given(inst=mapreduce_instances(**TINY))
def test_bound_le_optimum_le_policies_paper_preemptive_model(inst):
    # Unit Reduce tasks: the paper's own eq. (1), a job's Reduce work on any number of machines.
    _chain(unit_reduce_tasks(inst), "highs")


def test_windows():
    inst = MapReduceInstance(2, (MapReduceJob(0, 3, [1, 1, 1]), MapReduceJob(2, 0, [4])))
    assert job_flow_lower_bounds(inst).tolist() == [2 + 2, 4]
    # Safe without an incumbent: last arrival 2 + all 10 units.
    end, safe = mip_windows(inst)
    assert end.tolist() == [12, 12] and safe
    # An incumbent of flow 10: job 0 ends by 0 + 10 − 4, job 1 by 2 + 10 − 4.
    end, safe = mip_windows(inst, upper_bound=10)
    assert end.tolist() == [6, 8] and safe
    end, safe = mip_windows(inst, upper_bound=10, horizon=7)
    assert end.tolist() == [6, 7] and not safe
    with pytest.raises(ValueError, match="job 1 needs at least 4 slots"):
        build_mapreduce_mip(inst, horizon=5)


def test_model_size_and_unit_task_counts():
    # Unit Reduce tasks become one integer count per slot; a larger task one binary per slot.
    inst = MapReduceInstance(2, (MapReduceJob(0, 1, [1, 1, 3]),))
    m = build_mapreduce_mip(inst, upper_bound=4)  # window: slots 0-3
    assert len(m.ru) == 3 and len(m.red) == 3 and len(m.mp) == 3
    assert mip_size(m)["variables"] == len(m.mp) + len(m.ru) + len(m.red) + len(m.z) + len(m.u)
    non = build_mapreduce_mip(inst, preemptive=False, upper_bound=4)
    assert len(non.red) == 1  # the 3-unit task can only start in slot 1


def test_a_model_past_the_size_limit_is_refused_before_building():
    # 103 jobs over 500 slots: about 10^6 variables, which took 272 s to build and then more memory
    # than a 24 GiB machine had; the builder must refuse it at once.
    from schedrelax.errors import AlgorithmError
    from schedrelax.instances.generate import asrpt
    from schedrelax.models.mapreduce_mip import MAX_VARIABLES, build_mapreduce_mip

    inst = asrpt(0, slots=500, rate=0.2)
    with pytest.raises(AlgorithmError, match=f"more than the limit of {MAX_VARIABLES:,}"):
        build_mapreduce_mip(inst, preemptive=True)
