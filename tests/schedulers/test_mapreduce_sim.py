"""Tests of the slotted MapReduce engine and the policies of paper 001: the SRPT relaxation of
Lemma 1, hand-checked schedules of ASRPT's three priority groups, DSRPT, Fair, and properties
every policy must have on random instances (verified schedules, the SRPT bound, work
conservation)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from schedrelax import algorithms
from schedrelax.algorithms import run
from schedrelax.errors import InstanceError
from schedrelax.instances import MapReduceInstance, MapReduceJob
from schedrelax.schedulers.mapreduce_policies import (
    ASRPTPolicy,
    DSRPTPolicy,
    FairPolicy,
    FIFOPolicy,
    LRPTPolicy,
    water_fill,
)
from schedrelax.schedulers.mapreduce_sim import (
    MAX_BUSY_SLOTS,
    MAX_UNIT_TASKS,
    SlotSimulator,
    simulate,
    srpt_lower_bound,
    srpt_relaxation,
    unit_reduce_tasks,
)
from schedrelax.schedules import MAP_TASK
from tests.strategies import mapreduce_instances

POLICIES = ("asrpt", "dsrpt", "fifo", "fair", "lrpt")
SETTINGS = settings(max_examples=40, deadline=None)


def _rows(schedule):
    s = schedule
    return sorted(zip(s.job.tolist(), s.task.tolist(), s.start.tolist(), s.end.tolist(), s.rate.tolist()))


def _job(arrival, maps, reduce=()):
    return MapReduceJob(arrival, maps, list(reduce))


def test_registered_with_a_preemptive_parameter():
    names = {spec.name for spec in algorithms.available("mapreduce")}
    assert set(POLICIES) | {"mip"} <= names
    assert "srpt-bound" not in names  # a bound, not a feasible schedule: see srpt_lower_bound
    inst = MapReduceInstance(3, (_job(0, 1, [2]),))
    for name in POLICIES:
        for preemptive in (True, False):
            res = run(name, inst, params={"preemptive": preemptive})
            assert res.params["preemptive"] is preemptive
            assert res.lower_bound == srpt_lower_bound(inst) == 1  # all 3 units in slot 0
            assert res.guarantee is None


# ------------------------------------------------------------------------- the SRPT relaxation

def test_srpt_relaxation_by_hand():
    # N=2. Job 0 (slot 0): 3 Map tasks, Reduce [1] (4 units). Job 1 (slot 0): Reduce [1] (1 unit).
    # Slot 0: job 1 (least work) 1 unit, job 0 1 Map unit. Slot 1: job 0 2 Map units. Slot 2:
    # job 0's Reduce unit. Flows 3 + 1 = 4 — ignoring that the real job 0 needs 2 Map slots and
    # a later Reduce slot.
    inst = MapReduceInstance(2, (_job(0, 3, [1]), _job(0, 0, [1])))
    rel = srpt_relaxation(inst)
    rows = list(zip(rel.slot.tolist(), rel.job.tolist(), rel.map_units.tolist(), rel.reduce_units.tolist()))
    assert rows == [(0, 1, 0, 1), (0, 0, 1, 0), (1, 0, 2, 0), (2, 0, 0, 1)]
    assert rel.flow.tolist() == [3, 1]
    assert srpt_lower_bound(inst) == 4


def test_srpt_uses_no_per_job_cap_and_skips_idle_gaps():
    # N=4: a job of 1 Map task and Reduce [5] takes 4 machines in slot 10 and 2 in slot 11 (the
    # relaxation lets one job use every machine); nothing runs in slots 0-9.
    inst = MapReduceInstance(4, (_job(10, 1, [5]),))
    rel = srpt_relaxation(inst)
    assert rel.slot.tolist() == [10, 11]
    assert (rel.map_units + rel.reduce_units).tolist() == [4, 2]
    assert rel.total == 2


@SETTINGS
@given(mapreduce_instances(max_jobs=6, max_machines=4))
def test_srpt_bound_below_simple_bounds_and_policies(inst):
    # A job of W units needs ceil(W/N) slots even alone: the SRPT bound is at least their sum;
    # and it is below every policy in both scenarios (the MIP tests compare it with optima).
    W = inst.map_work + inst.reduce_total
    bound = srpt_lower_bound(inst)
    assert bound >= (-(-W // inst.machines)).sum()
    for name in POLICIES:
        for preemptive in (True, False):
            assert run(name, inst, params={"preemptive": preemptive}).objective >= bound


def test_unit_reduce_tasks_keeps_the_work():
    inst = MapReduceInstance(3, (_job(0, 2, [3, 1]), _job(4, 0, [2])))
    unit = unit_reduce_tasks(inst)
    assert unit.reduce_work.tolist() == [1] * 6
    assert unit.reduce_total.tolist() == inst.reduce_total.tolist()
    assert unit.map_work.tolist() == inst.map_work.tolist()
    assert unit.arrival.tolist() == inst.arrival.tolist()
    assert srpt_lower_bound(unit) == srpt_lower_bound(inst)


# -------------------------------------------------------------------- ASRPT's priority groups

def test_asrpt_srpt_map_load_outranks_available_reduce():
    # Group 1 before group 2. N=2. Job Y (slot 0): 1 Map task, Reduce [1, 1]. Job X (slot 1): 2 Map
    # tasks, Reduce [3].
    # SRPT: slot 0 Y takes 2 units (Map 1, Reduce 1); slot 1 Y's last unit, X 1 Map unit; slot 2
    #   X Map 1 + Reduce 1; slot 3 X Reduce 2.
    # ASRPT slot 0: Y's Map (SRPT load 1); Y's Reduce must wait a slot: 1 machine idles.
    # Slot 1: J = (Y: 2 left, X: 5 left), but X's SRPT Map load (1) is served first, then Y's
    #   Reduce gets the other machine (one task). Slot 2: X's last Map task (SRPT load 1), Y's
    #   second task: Y completes at 3. Slots 3-5: X's Reduce task: X completes at 6.
    # Flow 3 + 5 = 8. (FIFO serves Y's two tasks in slot 1 and X's Map in slot 2: 2 + 5 = 7.)
    inst = MapReduceInstance(2, (_job(0, 1, [1, 1]), _job(1, 2, [3])))
    res = run("asrpt", inst)
    assert res.evaluation.completion.tolist() == [3, 6]
    assert res.objective == 8
    assert _rows(res.schedule) == [(0, MAP_TASK, 0, 1, 1), (0, 0, 1, 2, 1), (0, 1, 2, 3, 1),
                                   (1, MAP_TASK, 1, 3, 1), (1, 0, 3, 6, 1)]
    assert run("fifo", inst).objective == 7


def test_asrpt_available_reduce_before_unscheduled_map():
    # Groups 2 and 3. N=2. Job A (slot 0): no Map, Reduce [2]. Job C (slot 0): 2 Map tasks,
    # Reduce [10]. SRPT serves A first (2 units < 12), so C has no SRPT Map load in slot 0.
    # ASRPT slot 0: A's available Reduce task (group 2) gets a machine before C's Map (group 3),
    #   which takes the other one. Slot 1: C's SRPT Map load is 2, it has 1 task left (group 1);
    #   A's task runs on. A completes at 2; C's Reduce runs slots 2-11: completes at 12.
    inst = MapReduceInstance(2, (_job(0, 0, [2]), _job(0, 2, [10])))
    res = run("asrpt", inst)
    assert _rows(res.schedule) == [(0, 0, 0, 2, 1), (1, MAP_TASK, 0, 2, 1), (1, 0, 2, 12, 1)]
    assert res.objective == 2 + 12


def test_asrpt_non_preemptive_keeps_running_reduce_tasks():
    # N=1. Job A (slot 0): no Map, Reduce [3]. Job B (slot 1): 1 Map task, no Reduce.
    # Preemptive: SRPT serves B in slot 1 (1 unit < A's 2), so ASRPT's group 1 gives B the machine
    #   in slot 1 and A resumes: A completes at 4, B at 2: flow 4 + 1 = 5 = the SRPT bound.
    # Non-preemptive: A's task keeps the machine (lines 4-7 of Algorithm 1): A completes at 3, B
    #   runs in slot 3: flow 3 + 3 = 6.
    inst = MapReduceInstance(1, (_job(0, 0, [3]), _job(1, 1)))
    pre = run("asrpt", inst)
    assert pre.objective == 5 == pre.lower_bound
    assert _rows(pre.schedule) == [(0, 0, 0, 1, 1), (0, 0, 2, 4, 1), (1, MAP_TASK, 1, 2, 1)]
    non = run("asrpt", inst, params={"preemptive": False})
    assert non.objective == 6
    assert _rows(non.schedule) == [(0, 0, 0, 3, 1), (1, MAP_TASK, 3, 4, 1)]
    assert non.schedule.promises == {"non_preemptive"}


def test_asrpt_non_preemptive_map_load_capped_by_free_machines():
    # N=2. Job A (slot 0): no Map, Reduce [3, 3]: both tasks start in slot 0 and hold both
    # machines until slot 3. Job B (slot 1, 1 Map task, Reduce [1]) has an SRPT Map load in slot
    # 1 but no machine is free (line 11-15: at most d); its Map runs in slot 3, Reduce in slot 4.
    inst = MapReduceInstance(2, (_job(0, 0, [3, 3]), _job(1, 1, [1])))
    res = run("asrpt", inst, params={"preemptive": False})
    assert res.evaluation.completion.tolist() == [3, 5]


# --------------------------------------------------------------------------- DSRPT and the rest

def test_dsrpt_delays_reduce_by_one_slot():
    # N=2. Job A (slot 0): no Map, Reduce [1, 1, 1, 1]. Job B (slot 0): no Map, Reduce [1].
    # SRPT: slot 0 B 1 unit, A 1 unit; slot 1 A 2; slot 2 A 1. Flows 1 + 3 = 4.
    # DSRPT runs SRPT's Reduce work one slot later, first come first served: slot 0 idles; slot 1
    #   B, A; slot 2 A, A; slot 3 A. Flows 2 + 4 = 6.
    # ASRPT runs the available Reduce work at once: the SRPT schedule itself, flow 4.
    inst = MapReduceInstance(2, (_job(0, 0, [1, 1, 1, 1]), _job(0, 0, [1])))
    assert run("dsrpt", inst).evaluation.completion.tolist() == [4, 2]
    assert run("asrpt", inst).objective == 4 == srpt_lower_bound(inst)


def test_dsrpt_follows_srpt_map_schedule():
    # The first hand case of ASRPT: DSRPT's Map is SRPT's (Y slot 0, X slots 1 and 2), Y's Reduce
    # units follow SRPT's slots 0 and 1 a slot later (slots 1, 2), X's SRPT Reduce units (slots
    # 2, 3, 3) come in slots 3, 4, 5: the same completions 3 and 6 as ASRPT.
    inst = MapReduceInstance(2, (_job(0, 1, [1, 1]), _job(1, 2, [3])))
    res = run("dsrpt", inst)
    assert _rows(res.schedule) == [(0, MAP_TASK, 0, 1, 1), (0, 0, 1, 2, 1), (0, 1, 2, 3, 1),
                                   (1, MAP_TASK, 1, 3, 1), (1, 0, 3, 6, 1)]


def test_fair_fifo_lrpt_by_hand():
    # N=3, three jobs in slot 0 without Map: A Reduce [1, 1, 1, 1], B [2], C [1, 1].
    # Fair: slot 0 one machine each (A 4 tasks, B 1, C 2 want more than 1); slot 1 again one each:
    #   B and C complete at 2; slot 2 A's last 2 tasks: A completes at 3. Flow 3 + 2 + 2 = 7.
    # FIFO (A, B, C): slot 0 A takes all 3 machines; slot 1 A's last task, B, one of C's tasks;
    #   slot 2 B's second unit, C's second task. Flow 2 + 3 + 3 = 8.
    # LRPT: slot 0 A (4 units) takes all 3; slot 1 B and C (2 units each) before A (1): B 1, C 2,
    #   C completes; slot 2 A and B. Flow 3 + 3 + 2 = 8.
    inst = MapReduceInstance(3, (_job(0, 0, [1, 1, 1, 1]), _job(0, 0, [2]), _job(0, 0, [1, 1])))
    assert run("fair", inst).evaluation.completion.tolist() == [3, 2, 2]
    assert run("fifo", inst).evaluation.completion.tolist() == [2, 3, 3]
    assert run("lrpt", inst).evaluation.completion.tolist() == [3, 3, 2]


def test_lrpt_serves_the_largest_first():
    # N=1, two jobs in slot 0 without Map: Reduce [1] and [2]. LRPT: slot 0 job 1 (2 units left);
    # slot 1 both have 1 left, the tie goes to job 0; slot 2 job 1. Completions 2 and 3, where
    # ASRPT (shortest first) has 1 and 3.
    inst = MapReduceInstance(1, (_job(0, 0, [1]), _job(0, 0, [2])))
    assert run("lrpt", inst).evaluation.completion.tolist() == [2, 3]
    assert run("asrpt", inst).evaluation.completion.tolist() == [1, 3]


def test_water_fill():
    # base (held) 0, 2, 0; caps 5, 5, 1; 4 machines. Level 2: 2 + 0 + 1 = 3 machines; the 4th goes
    # to the first job that can rise to level 3 (job 0).
    assert water_fill(np.array([0, 2, 0]), np.array([5, 5, 1]), 4).tolist() == [3, 0, 1]
    assert water_fill(np.array([0, 0]), np.array([1, 2]), 10).tolist() == [1, 2]
    assert water_fill(np.array([0, 0, 0]), np.array([4, 4, 4]), 7).tolist() == [3, 2, 2]


def test_fair_counts_held_machines_toward_the_share():
    # N=3, non-preemptive, no Map anywhere. Slot 0: A (Reduce [4, 4, 4, 4]) and C ([1]) arrive;
    # water-filling gives A 2 machines, C 1. Slot 1: C is done; B ([1, 1]) arrives; A holds 2 and
    # wants 2 more, B holds none: the free machine goes to B (without counting held machines the
    # tie would go to the earlier A). Slot 2: the same again: B completes at 3. Slots 3 and 4: A
    # starts its last two tasks as machines free up (ends 7 and 8).
    inst = MapReduceInstance(3, (_job(0, 0, [4, 4, 4, 4]), _job(0, 0, [1]), _job(1, 0, [1, 1])))
    res = run("fair", inst, params={"preemptive": False})
    assert res.evaluation.completion.tolist() == [8, 1, 3]


# ---------------------------------------------------------------------------------- properties

class _Checked:
    """Wraps a policy: after each allocation, either no machine is left or every job got all it
    could use (work conservation); and Map/Reduce are never both given to a job in one slot."""

    def __init__(self, policy):
        self.policy = policy

    def allocate(self, sim: SlotSimulator):
        mp, rd = self.policy.allocate(sim)
        used = sum(mp.values()) + sum(rd.values())
        assert not set(mp) & set(rd)
        if used < sim.free:
            for j in sim.active:
                m, r = sim.demand(j)
                assert mp.get(j, 0) == m and rd.get(j, 0) == r, f"slot {sim.t}: job {j} left idle machines"
        return mp, rd


@SETTINGS
@given(mapreduce_instances(max_jobs=6, max_machines=4), st.booleans())
def test_work_conserving_policies(inst, preemptive):
    rel = srpt_relaxation(inst)
    for policy in (ASRPTPolicy(rel), FIFOPolicy(), FairPolicy(), LRPTPolicy()):
        simulate(inst, _Checked(policy), preemptive=preemptive)


@SETTINGS
@given(mapreduce_instances(max_jobs=6, max_machines=4), st.booleans())
def test_every_policy_verified_and_flows_consistent(inst, preemptive):
    rel = srpt_relaxation(inst)
    policies = {"asrpt": ASRPTPolicy(rel), "dsrpt": DSRPTPolicy(rel, inst.n_jobs, preemptive), "fifo": FIFOPolicy(),
                "fair": FairPolicy(), "lrpt": LRPTPolicy()}
    for name, policy in policies.items():
        sim = simulate(inst, policy, preemptive=preemptive, name=name)
        res = run(name, inst, params={"preemptive": preemptive})  # verify() inside, with the promise
        assert res.evaluation.completion.tolist() == sim.completion.tolist()
        assert res.objective == sim.total_flow
        assert res.schedule.meta["algorithm"] == name
        if not preemptive:
            red = res.schedule.task != MAP_TASK
            assert len(np.unique(res.schedule.job[red] * 100 + res.schedule.task[red])) == red.sum()


def test_paper_scale_every_policy():
    # The §VII-A setting (N = 100, λ = 2, T = 500): a smoke run, not a timed assertion (the
    # benchmarks time it); the paper's ordering ASRPT < FIFO < LRPT holds by a wide margin here.
    from schedrelax.instances.generate import asrpt as setting

    inst = unit_reduce_tasks(setting(1, workload="uniform-large-reduce"))
    flows = {name: run(name, inst).objective for name in POLICIES}
    assert flows["asrpt"] < flows["fifo"] < flows["lrpt"]
    assert min(flows.values()) >= srpt_lower_bound(inst)


# ---- instances too large for the slot-by-slot walk (issue 13, item 6) ----------------------------

@pytest.mark.parametrize("name", POLICIES)
@pytest.mark.parametrize("jobs, machines, field", [
    # 10^9 unit Map tasks on 1 machine: at least 10^9 + 3 busy slots (before: fifo ran for minutes).
    ((MapReduceJob(0, 10**9, [3]),), 1, "map_tasks 1000000000"),
    # One Reduce task of 2 * 10^6 units runs on one machine per slot: 2 * 10^6 slots on any N.
    ((MapReduceJob(0, 1, [2 * 10**6]),), 1000, r"reduce_tasks\[0\] = 2000000"),
])
def test_too_many_busy_slots_is_an_instance_error(name, jobs, machines, field):
    inst = MapReduceInstance(machines, jobs)
    with pytest.raises(InstanceError, match=f"job 0: {field}.*limit of 1e\\+06 busy slots"):
        run(name, inst)


def test_busy_slot_limit_is_exact_at_the_boundary():
    # 10^6 units on 1 machine need exactly 10^6 slots: allowed (srpt_relaxation would take a few
    # seconds, so only the check is run); one more unit is refused.
    from schedrelax.schedulers.mapreduce_sim import check_simulation_size

    check_simulation_size(MapReduceInstance(1, (MapReduceJob(0, MAX_BUSY_SLOTS - 2, [2]),)))
    with pytest.raises(InstanceError, match=f"need at least {MAX_BUSY_SLOTS + 1} slots"):
        check_simulation_size(MapReduceInstance(1, (MapReduceJob(0, MAX_BUSY_SLOTS - 1, [2]),)))


def test_unit_reduce_tasks_refuses_more_than_its_limit():
    inst = MapReduceInstance(10**4, (MapReduceJob(0, 1, [MAX_UNIT_TASKS // 2 + 1, MAX_UNIT_TASKS // 2]),))
    with pytest.raises(InstanceError, match="job 0: Reduce work 10000001.*limit of 1e\\+07 unit Reduce tasks"):
        unit_reduce_tasks(inst)
