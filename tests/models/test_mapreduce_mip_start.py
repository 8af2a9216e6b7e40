"""The mapreduce MIP's start and SRPT bound row (issue 14): every policy's schedule is a point of the
model with its own flow time as the objective (so the start is valid and exact), the start reaches
the solver, a time-limited run returns at least it, and the optimum is the plain model's."""

from __future__ import annotations

import random

import numpy as np
import pytest

from schedrelax.algorithms import run
from schedrelax.instances import MapReduceInstance, MapReduceJob
from schedrelax.instances.generate import asrpt
from schedrelax.models.mapreduce_mip import build_mapreduce_mip, mapreduce_mip_start
from schedrelax.rounding.mapreduce_exact import MAPREDUCE_STARTS
from schedrelax.schedulers.mapreduce_sim import unit_reduce_tasks
from schedrelax.solvers import solve

WORKLOADS = ((("exp", 2.0), ("exp", 4.0)), (("uniform", 1, 3), ("uniform", 2, 7)))


def _instances():
    for k in range(6):
        rng = random.Random(k)
        yield asrpt(k, machines=rng.randint(1, 3), rate=0.7, slots=3, workload=WORKLOADS[k % 2], max_reduce_tasks=3)
    # Identical Reduce tasks (the model orders them), a job with no Map, a late arrival.
    yield MapReduceInstance(2, (MapReduceJob(0, 3, [2, 2, 2, 1]), MapReduceJob(0, 0, [3, 3]), MapReduceJob(2, 2, [2])))


def _cases():
    for inst in _instances():
        yield inst, "preemptive-tasks"
        yield inst, "non-preemptive"
        yield unit_reduce_tasks(inst), "paper-preemptive"


@pytest.mark.parametrize(("inst", "model"), list(_cases()))
def test_every_policy_schedule_is_a_point_of_the_model(inst, model):
    # Fix every variable to the policy's schedule and solve: nothing is left to choose, so the
    # model must be feasible with objective exactly the schedule's flow time (windows from its
    # own flow time, bound row from the SRPT bound, which every schedule meets).
    # A schedule that idles can end past a_max + W, the window every optimum fits in (DSRPT waits
    # a slot before Reduce): the model does not contain it and the mapping must say so.
    preemptive = model != "non-preemptive"
    mapped = 0
    for name in MAPREDUCE_STARTS:
        r = run(name, inst, model=model)
        milp = build_mapreduce_mip(inst, preemptive=preemptive, upper_bound=r.objective, lower_bound=r.lower_bound)
        ends = np.zeros(inst.n_jobs)
        np.maximum.at(ends, r.schedule.job, r.schedule.end)
        if np.any(ends > milp.layout.end):
            assert not mapreduce_mip_start(milp, r.schedule), name
            continue
        assert mapreduce_mip_start(milp, r.schedule), name
        mapped += 1
        for var in (*milp.mp.values(), *milp.ru.values(), *milp.red.values(), *milp.z.values(), *milp.u.values()):
            var.fix()
        res = solve(milp, "highs")
        assert res.status.has_solution, (name, res.status, res.message)
        assert res.objective == pytest.approx(r.objective, abs=1e-6), name
    assert mapped >= 3


def test_a_preemptive_schedule_is_no_start_for_eq_2():
    # N = 1. A Reduce task of 3 units, and a job of one Map task arriving at slot 1: the
    # preemptive optimum runs the Map inside the task (paper 001 eq. (1)), which eq. (2) forbids.
    inst = MapReduceInstance(1, (MapReduceJob(0, 0, [3]), MapReduceJob(1, 1)))
    pre = run("mip", inst, model="preemptive-tasks")
    milp = build_mapreduce_mip(inst, preemptive=False)
    assert not mapreduce_mip_start(milp, pre.schedule)
    assert all(v.value is None for v in milp.red.values())  # nothing was set


def test_start_reaches_the_solver_and_a_time_limit_returns_it():
    # 9 jobs over 40 slots: not proven in seconds. The start's flow time (the best policy's)
    # is an upper bound on what comes back, with the SRPT bound or better below it.
    inst = asrpt(0, machines=10, rate=0.2, slots=40)
    res = run("mip", inst, time_limit=0.5)
    assert res.info["warm_start"]
    assert res.objective <= res.info["incumbent"]
    assert res.status == "feasible" and not res.info["optimal"]
    assert res.lower_bound >= run("asrpt", inst).lower_bound and res.gap > 0


@pytest.mark.parametrize("k", range(6))
def test_start_and_bound_row_leave_the_optimum(k):
    # Second path: the model without start or bound row proves the same optimum.
    rng = random.Random(50 + k)
    inst = asrpt(50 + k, machines=rng.randint(1, 3), rate=0.5, slots=3, workload=WORKLOADS[0], max_reduce_tasks=2)
    model = "non-preemptive" if k % 2 else "preemptive-tasks"
    fast = run("mip", inst, model=model)
    plain = run("mip", inst, model=model, warm_start=False, bound_row=False)
    assert fast.info["optimal"] and plain.info["optimal"]
    assert fast.objective == plain.objective


def test_hand_solved_optimum_meets_the_srpt_row():
    # N = 1. Job A (slot 0): no Map, Reduce [3]. Job B (slot 1): one Map task. Preemptive: B runs
    # in slot 1 inside A's task: flow 4 + 1 = 5, which is the SRPT bound (so the row is tight).
    # Non-preemptive: A then B (3 + 3) or B waits... either way 6 (tests/models/test_mapreduce_mip).
    inst = MapReduceInstance(1, (MapReduceJob(0, 0, [3]), MapReduceJob(1, 1)))
    for model, opt in (("preemptive-tasks", 5), ("non-preemptive", 6)):
        for params in ({}, {"warm_start": False, "bound_row": False}):
            res = run("mip", inst, model=model, **params)
            assert res.objective == opt and res.lower_bound == opt and res.info["optimal"]
