"""Tests of schedrelax.models.packing_mip and the registered ``mip``: optima derived by hand, the
time unit, what each MIP is exact for, verified schedules, and MIP <= every algorithm of its class
on random tiny instances."""

import json

import numpy as np
import pytest
from pyomo.core.expr.visitor import identify_variables
from hypothesis import HealthCheck, given, settings

from schedrelax.algorithms import run
from schedrelax.errors import AlgorithmError, InfeasibleScheduleError
from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from schedrelax.models.packing_mip import (
    build_nonpreemptive_mip,
    build_preemptive_mip,
    packing_mip_schedule,
    packing_mip_start,
    time_unit,
)
from schedrelax.schedules import Schedule, evaluate, verify
from schedrelax.solvers import solve
from tests.strategies import packing_instances

REL = 1e-6


def job(*tasks, weight=1.0, release=0.0):
    return PackingJob(tasks=tuple(PackingTask(a, place, p) for a, place, p in tasks), weight=weight, release=release)


def optimum(build, inst, **kw):
    model = build(inst, **kw)
    res = solve(model)
    assert res.is_optimal
    schedule = packing_mip_schedule(model)
    verify(inst, schedule)
    cost = model.layout.grid.cost(res.objective, inst.weights)  # the model counts slots from its origin
    assert evaluate(inst, schedule).objective == pytest.approx(cost, rel=REL)
    return cost, schedule


def test_time_unit():
    halves = PackingInstance([1.0], (job((1.0, [0], 1.5)), job((1.0, [0], 2.0), release=1.0)))
    assert time_unit(halves) == 0.5
    thirds = PackingInstance([1.0], (job((1.0, [0], 2 / 3)), job((1.0, [0], 1.0))))
    assert time_unit(thirds) == pytest.approx(1 / 3)
    whole = PackingInstance([1.0], (job((1.0, [0], 4.0)), job((1.0, [0], 6.0))))
    assert time_unit(whole) == 2.0
    # A time alone is one slot of itself in any unit (issue 31); sqrt(2) beside 1 is on no grid.
    assert time_unit(PackingInstance([1.0], (job((1.0, [0], 2 ** 0.5)),))) == pytest.approx(2 ** 0.5, rel=1e-15)
    odd = PackingInstance([1.0], (job((1.0, [0], 1.0)), job((1.0, [0], 2 ** 0.5))))
    with pytest.raises(AlgorithmError, match=r"task 0's processing time on machine 0 is 1\.0, on no time grid .* longest processing time "
                       r"\(task 1's processing time on machine 0, 1\.414213562373095"):
        time_unit(odd)


def test_a_release_off_every_grid_is_refused_not_rounded():
    # Issue 13: an online packing instance's releases are arbitrary floats; rounding 0.7316 to 0.731
    # would let the job start before it is released. Since issue 31 the grid is relative to the
    # data (a bound on denominators in absolute units changed the verdict with the unit): 0.7316 =
    # 1829/2500 is on the grid 1/2500, never rounded. That grid (6,829 slots) was refused by size
    # until the heuristics' cost 3 also capped each job by the other's least completion: windows of
    # 2,500 slots. By hand: job 0 on [0, 1], job 1 on [1, 2] (its release 0.7316 kept): cost 3.
    inst = PackingInstance([1.0], (job((1.0, [0], 1.0)), job((1.0, [0], 1.0), release=0.7316)))
    assert time_unit(inst) == pytest.approx(0.0004, rel=1e-12)
    res = run("mip", inst)
    assert res.status == "optimal" and res.objective == pytest.approx(3.0, rel=REL)
    assert res.schedule.start[res.schedule.job == 1].min() >= 0.7316
    # A float within 1e-9 of a grid point is not on it either (it used to be taken as 1/2).
    near = PackingInstance([1.0], (job((1.0, [0], 1.0)), job((1.0, [0], 1.0), release=0.5 + 1e-10)))
    with pytest.raises(AlgorithmError, match="job 1's release"):
        time_unit(near)


def test_a_release_on_a_fine_grid_is_exact():
    # Releases 0.25 and 0.7 share the grid 1/20: the MIP keeps them exactly. By hand: one machine
    # of capacity 1, job 0 (p = 1, released 0.25) then job 1 (p = 1, released 0.7, weight 1):
    # job 0 runs [0.25, 1.25), job 1 [1.25, 2.25): cost 1.25 + 2.25 = 3.5 (job 1 first: 1.7 + 2.7).
    inst = PackingInstance([1.0], (job((1.0, [0], 1.0), release=0.25), job((1.0, [0], 1.0), release=0.7)))
    assert time_unit(inst) == pytest.approx(0.05)
    res = run("mip", inst)
    assert res.objective == pytest.approx(3.5, rel=REL) and res.lower_bound == pytest.approx(3.5, rel=REL)


def test_three_unit_tasks_on_a_double_machine():
    # Capacity 2, three jobs of one task (a = 1, p = 1): two run in [0, 1), the third in [1, 2).
    # Σ C = 1 + 1 + 2 = 4 whether or not preemption is allowed.
    inst = PackingInstance([2.0], tuple(job((1.0, [0], 1.0)) for _ in range(3)))
    assert optimum(build_nonpreemptive_mip, inst)[0] == pytest.approx(4.0)
    assert optimum(build_preemptive_mip, inst)[0] == pytest.approx(4.0)


def test_preemption_helps_a_heavy_late_job():
    # Capacity 1. A: a = 1, p = 3, w = 1, released at 0. B: a = 1, p = 1, w = 10, released at 1.
    # Non-preemptive: A first gives 3 + 10·4 = 43, waiting for B gives B [1, 2), A [2, 5): 5 + 20 = 25.
    # Preemptive: A [0, 1), B [1, 2), A [2, 4): 4 + 20 = 24.
    inst = PackingInstance([1.0], (job((1.0, [0], 3.0)), job((1.0, [0], 1.0), weight=10.0, release=1.0)))
    value, schedule = optimum(build_nonpreemptive_mip, inst)
    assert value == pytest.approx(25.0)
    assert len(schedule) == 2
    value, schedule = optimum(build_preemptive_mip, inst)
    assert value == pytest.approx(24.0)
    assert len(schedule) == 3  # A is split around B


def test_placement_picks_the_better_machine():
    # One task may run on machine 0 (time 4) or machine 1 (time 1, but capacity 0.5 < demand 1:
    # unusable) or machine 2 (time 2): the MIPs use machine 2 and C = 2.
    inst = PackingInstance([1.0, 0.5, 1.0], (job((1.0, [0, 1, 2], [4.0, 1.0, 2.0])),))
    for build in (build_nonpreemptive_mip, build_preemptive_mip):
        value, schedule = optimum(build, inst)
        assert value == pytest.approx(2.0)
        assert schedule.machine.tolist() == [2]


def test_synchronisation_is_the_last_task():
    # One job with tasks of lengths 1 and 3 on two machines: C = 3; a second job (p = 1, w = 1)
    # on machine 0 with the first task: capacity 1 each, a = 1. Best: job 1's task at [0, 1), job
    # 0's short task at [1, 2) (it does not delay job 0, done at 3 anyway): Σ C = 3 + 1 = 4.
    inst = PackingInstance([1.0, 1.0], (job((1.0, [0], 1.0), (1.0, [1], 3.0)), job((1.0, [0], 1.0))))
    for build in (build_nonpreemptive_mip, build_preemptive_mip):
        assert optimum(build, inst)[0] == pytest.approx(4.0)


def test_slotted_preemption_is_not_continuous_preemption():
    # Three tasks of one job, a = 1/2, p = 1, on capacity 1. With preemption at any time each task
    # can run in two halves so that two run at once throughout [0, 1.5): C = 1.5. Slotted (whole
    # units) two run in [0, 1) and the third in [1, 2): C = 2 — the preemptive MIP's optimum is the
    # slotted one, and the registered mip claims no lower bound for it.
    inst = PackingInstance([1.0], (job(*[(0.5, [0], 1.0)] * 3),))
    assert optimum(build_preemptive_mip, inst)[0] == pytest.approx(2.0)
    continuous = Schedule.from_pieces([(0, 0, 0, 0.0, 1.0, 0.5), (0, 1, 0, 0.0, 0.5, 0.5), (0, 1, 0, 1.0, 1.5, 0.5),
                                       (0, 2, 0, 0.5, 1.5, 0.5)])
    verify(inst, continuous)
    assert evaluate(inst, continuous).objective == pytest.approx(1.5)
    res = run("mip", inst, params={"preemptive": True})
    assert res.objective == pytest.approx(2.0)
    assert res.lower_bound is None and res.guarantee is None and res.info["slotted_optimum"]


def test_registered_mip_reports_its_bound():
    inst = PackingInstance([1.0], (job((1.0, [0], 3.0)), job((1.0, [0], 1.0), weight=10.0, release=1.0)))
    res = run("mip", inst)
    assert res.objective == pytest.approx(25.0)
    assert res.lower_bound == pytest.approx(25.0, rel=REL)
    assert res.guarantee == 1.0 and res.info["optimal"]
    assert "non_preemptive" in res.schedule.promises


def test_non_preemptive_mip_schedule_keeps_its_promise():
    inst = PackingInstance([1.0], (job((1.0, [0], 3.0)), job((1.0, [0], 1.0), weight=10.0, release=1.0)))
    model = build_preemptive_mip(inst)
    solve(model)
    split = packing_mip_schedule(model)
    with pytest.raises(InfeasibleScheduleError, match="no preemption"):
        verify(inst, Schedule(split.job, split.task, split.machine, split.start, split.end, split.rate,
                              promises={"non_preemptive"}))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(packing_instances(max_machines=2, max_jobs=3, max_tasks=2, releases=True))
def test_optima_below_the_algorithms_of_their_class(inst):
    # Non-preemptive algorithms are feasible for PRP||ΣwC; the preemptive list schedules preempt
    # only at completions and releases, which lie on the MIP's unit grid, so they are slotted.
    non_preemptive = run("mip", inst)
    assert non_preemptive.info["optimal"]
    for name in ("synchpack2", "tetris-np", "jsq-mw", "fifo"):
        assert non_preemptive.objective <= run(name, inst).objective * (1 + REL), name
    preemptive = run("mip", inst, params={"preemptive": True})
    # Optimal for the slotted model only: continuous-time preemption may beat it, so the result
    # must not call itself optimal for the instance.
    assert preemptive.info["slotted_optimum"] and not preemptive.info["optimal"]
    for name in ("synchpack3", "psrs", "tetris"):
        assert preemptive.objective <= run(name, inst).objective * (1 + REL), name


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(packing_instances(max_machines=2, max_jobs=3, max_tasks=2, releases=True))
def test_the_step_and_pulse_forms_are_the_same_model(inst):
    # y = cumulative sums of x is a unimodular change of variables: the LP relaxations have the same
    # optimum (the solver's tolerance apart) and the MIPs the same optimum, each read back to a
    # verified schedule of that cost; a start set in either form is read back unchanged.
    from schedrelax.models.packing_ti_lp import ti_lp_program
    from schedrelax.solvers import solve_program

    lp = {f: solve_program(ti_lp_program(inst, form=f), "highs").result for f in ("pulse", "step")}
    assert lp["pulse"].is_optimal and lp["step"].is_optimal
    assert lp["step"].objective == pytest.approx(lp["pulse"].objective, rel=1e-7, abs=1e-7)
    best = {f: optimum(build_nonpreemptive_mip, inst, form=f) for f in ("pulse", "step")}
    assert best["step"][0] == pytest.approx(best["pulse"][0], rel=REL)
    for f in ("pulse", "step"):
        model = build_nonpreemptive_mip(inst, form=f)
        assert packing_mip_start(model, best["pulse"][1])
        again = packing_mip_schedule(model)
        assert evaluate(inst, again).objective == pytest.approx(best["pulse"][0], rel=REL)
        assert sorted(again.start.tolist()) == pytest.approx(sorted(best["pulse"][1].start.tolist()))


@pytest.mark.parametrize("preemptive", [False, True])
def test_a_grid_too_fine_for_a_time_indexed_mip_is_refused_before_building(preemptive):
    # Times 300.0001 and 250.0003 put the grid at 1/10,000: 1.2 x 10^7 slots on each machine
    # (a build of gigabytes and a presolve that ran past its time limit).
    inst = PackingInstance(capacities=[1.0, 1.0], jobs=tuple(
        PackingJob(tasks=(PackingTask(0.5, [0, 1], [300.0001, 250.0003]),), release=0.007 * j) for j in range(4)))
    with pytest.raises(AlgorithmError, match=r"24,000,428 cells, more than the limit of 10,000,000"):
        run("mip", inst, params={"preemptive": preemptive, "time_limit": 3.0})


def test_a_model_that_would_not_be_built_in_the_time_left_is_not_built():
    # At 1/1000 the non-preemptive model is within the size limits (600 k binaries, 5.8 M terms)
    # but took 25 s to build and compile: under a 3 s limit it is not built and the call returns
    # the best start, verified, with LP2's bound, and says why. The preemptive model's 4.2 M
    # binaries are past the size limit.
    from schedrelax.models.packing_mip import MIP_BUILD_TERMS_PER_SECOND, build_terms

    inst = PackingInstance(capacities=[1.0, 1.0], jobs=tuple(
        PackingJob(tasks=(PackingTask(0.5, [0, 1], [300.001, 250.003]),), release=0.007 * j) for j in range(4)))
    r = run("mip", inst, params={"time_limit": 3.0})
    assert r.info["model_terms"] == build_terms(inst, upper_bound=r.info["incumbent"])
    assert r.info["model_terms"] > 3.0 * MIP_BUILD_TERMS_PER_SECOND
    assert r.info["variables"] is None and "not built" in r.info["solver_message"]
    assert r.status == "feasible" and not r.info["optimal"]
    assert r.objective == run(r.info["start"], inst).objective
    assert r.lower_bound == run("synchpack2", inst).lower_bound
    with pytest.raises(AlgorithmError, match="4,200,030 binary variables .* more than the limit of 1,000,000"):
        run("mip", inst, params={"preemptive": True, "time_limit": 3.0})


# From the unit-invariance fuzz (seed 51): 10 tasks in thousandths, a step model of 99,406 binaries.
SEGFAULT_INSTANCE = '{"family": "packing", "schema_version": 1, "capacities": [0.5, 0.8, 0.8], "jobs": [{"tasks": [{"demand": 0.206, "placement": [0], "processing_time": [7.0]}, {"demand": 0.135, "placement": [0, 1, 2], "processing_time": [3.049, 8.5, 8.093]}, {"demand": 0.419, "placement": [0], "processing_time": [5.85]}], "weight": 1.0, "release": 0.0}, {"tasks": [{"demand": 0.764, "placement": [1], "processing_time": [1.0]}, {"demand": 0.639, "placement": [1], "processing_time": [0.56]}, {"demand": 0.191, "placement": [0, 1, 2], "processing_time": [7.0, 3.8, 9.6]}], "weight": 4.121, "release": 3.243}, {"tasks": [{"demand": 0.246, "placement": [1, 2], "processing_time": [6.0, 8.0]}], "weight": 3.9, "release": 0.0}, {"tasks": [{"demand": 0.144, "placement": [0, 1], "processing_time": [9.139, 2.2]}, {"demand": 0.734, "placement": [1, 2], "processing_time": [6.0, 3.0]}], "weight": 2.0, "release": 0.0}]}'


def test_the_step_model_runs_without_the_highs_presolve_that_crashed_on_it():
    # HiGHS 1.16's presolve segfaulted on this model (the whole process died); its symmetry
    # detection took 15 s before the first node. The engine turns both off for step models. Run
    # in a child process, so that a crash fails this test and not the whole session.
    import subprocess
    import sys

    code = (
        "import json, sys\n"
        "from schedrelax.algorithms import run\n"
        "from schedrelax.instances.base import from_dict\n"
        "inst = from_dict(json.loads(sys.argv[1]))\n"
        "r = run('mip', inst, params={'time_limit': 8.0})\n"
        "print(json.dumps([r.status, r.info['variables'], r.info['solver_status']]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, SEGFAULT_INSTANCE], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    status, variables, solver_status = json.loads(out.stdout.strip().splitlines()[-1])
    assert variables == 99_406  # built (in step variables) and solved
    assert status in ("optimal", "feasible") and solver_status in ("optimal", "feasible")


def test_a_long_task_is_in_few_capacity_rows_per_start():
    # The fuzz run that reached 24 GB: few binaries, but in the start-variable model each start of
    # a task p slots long sat in p capacity rows (a task of 30,000 slots: 3.2e8 terms). In step
    # variables a pair with n starts of a task p slots long is in n + p - 1 rows, twice in n - 1.
    from schedrelax.models.packing_mip import build_nonpreemptive_mip, build_terms
    from schedrelax.models.packing_ti_lp import capacity_terms

    # A unit of 10: 7 slots. Task of 3 slots: starts 0..4, rows 0..6, the minus term in rows 3..6:
    # 11 terms; task of 4 slots: starts 0..3, rows 0..6, minus in 4..6: 10 terms.
    small = PackingInstance(capacities=[1.0], jobs=(
        PackingJob(tasks=(PackingTask(0.5, [0], 30.0), PackingTask(0.5, [0], 40.0))),))
    m = build_nonpreemptive_mip(small, max_terms=21, form="step")
    assert sum(len(list(identify_variables(c.body))) for c in m.capacity.values()) == 21
    assert capacity_terms(small, form="step") == 21
    with pytest.raises(AlgorithmError, match="21 terms .* step variables.* limit of 20;"):
        build_nonpreemptive_mip(small, max_terms=20, form="step")
    # The start form: 5 starts x 3 slots + 4 starts x 4 slots = 31 terms; it is the one chosen
    # (31 is not over STEP_RATIO x 21), with two terms per binary besides.
    m = build_nonpreemptive_mip(small, max_terms=31)
    assert m.layout.form == "pulse"
    assert sum(len(list(identify_variables(c.body))) for c in m.capacity.values()) == 31
    assert capacity_terms(small) == 31 and build_terms(small) == 31 + 2 * 9
    with pytest.raises(AlgorithmError, match="31 terms .* pulse variables.* limit of 30;"):
        build_nonpreemptive_mip(small, max_terms=30)
    big = PackingInstance(capacities=[613.0], jobs=(
        PackingJob(tasks=(PackingTask(324.89, [0], 425.0),), weight=77.5),
        PackingJob(tasks=(PackingTask(441.36, [0], 3980.0), PackingTask(613.0, [0], 978.0),
                          PackingTask(134.86, [0], 30000.0)), weight=3.53)))
    # unit 1, horizon 35,383 slots: each task starts anywhere up to 35,383 - p
    starts = [35383 - p + 1 for p in (425, 3980, 978, 30000)]
    assert capacity_terms(big, form="step") == sum(2 * (n - 1) + p for n, p in zip(starts, (425, 3980, 978, 30000)))
    assert capacity_terms(big) == sum(n * p for n, p in zip(starts, (425, 3980, 978, 30000)))  # 3.2e8
    assert build_terms(big) == capacity_terms(big, form="step") + 4 * sum(starts)  # the step form is chosen


def test_cpsat_bound_without_the_time_indexed_lp_when_it_would_not_fit():
    # Two tasks of 12,300 and 157 slots (rounded down to whole units for CP-SAT): 3.9 M capacity
    # terms, more than rounding.cpsat.LP_MAX_TERMS: no time-indexed LP; the Lagrangian bound of the
    # same model (valid at every step) and LP2/LP3 give the bound instead. Two tasks are under
    # LP_MIN_TASKS, so the bound is asked for.
    pytest.importorskip("ortools")
    from schedrelax.rounding.cpsat import packing_cpsat

    inst = PackingInstance(capacities=[0.01, 0.01], jobs=(PackingJob(tasks=(
        PackingTask(0.0001, [0], 12300.0), PackingTask(0.0001, [0], 157.00000000000003)), weight=0.1),))
    res = run("mip", inst, solver="cpsat", time_limit=3.0)
    assert res.info["lp_used"] is False  # 2 tasks: CP-SAT alone
    direct = packing_cpsat(inst, time_limit=3.0, use_lp=True)
    # the larger of the Lagrangian bound and LP2/LP3 (here LP3 is exact: 1,230, the Lagrangian a
    # hair below it after the float slack)
    assert direct.info["lp_bound_kind"].startswith(("Lagrangian bound", "LP2 optimum", "LP3 optimum"))
    assert direct.info["lp_bound"] == pytest.approx(1230.0, rel=1e-6)
    # One machine, both tasks on it at demand 1e-4 of 0.01: they run side by side; the job ends
    # with the longer one at 12,300, weight 0.1: 1,230, which is also every schedule's least cost.
    assert direct.info["lp_bound"] <= 1230.0 + 1e-6
    verify(inst, direct.schedule)
    assert direct.info["optimal"] and direct.info["schedule_cost"] == pytest.approx(1230.0)
    verify(inst, res.schedule)
    assert res.objective == pytest.approx(1230.0) and res.info["status"] == "optimal"


# ------------------------------------------------- issue 31: the same grid in any unit, from any origin

def _two_jobs(scale: float, offset: float) -> PackingInstance:
    # One machine of capacity 1, demands 0.6 (never side by side): job 0 (p = 2, released 0,
    # weight 1), job 1 (p = 1, released 0.5, weight 3), written with every time times *scale*
    # and every release plus *offset*, as a user with another unit or clock would.
    return PackingInstance([1.0], (job((0.6, [0], 2.0 * scale), release=0.0 * scale + offset),
                                   job((0.6, [0], 1.0 * scale), weight=3.0, release=0.5 * scale + offset)))


COPIES = [(1.0, 0.0), (1e-3, 0.0), (1.0, 1e6), (1e-3, 1e6), (1e3, 12345.678), (1e-6, 1.0)]


@pytest.mark.parametrize("scale, offset", COPIES)
def test_the_grid_is_the_same_in_any_unit_and_from_any_origin(scale, offset):
    from schedrelax.models.packing_mip import time_grid

    grid = time_grid(_two_jobs(scale, offset))
    # slots of 0.5 (times scale) from the earliest release: before, 1e-3 was off every grid k/q
    # with q <= 1000 and offset 1e6 made 10^9 slots from time 0
    assert grid.origin == offset and grid.unit == pytest.approx(0.5 * scale, rel=1e-15)
    assert grid.release_slots.tolist() == [0, 1] and grid.pair_slots.tolist() == [4, 2]
    # only the round-off of the rewritten data is taken up: 4 ulps of a stamp, 4 of a duration
    assert 0 <= grid.shift <= 4 * np.spacing(0.5 * scale + offset)
    assert 0 <= grid.stretch <= 4 * np.finfo(float).eps


@pytest.mark.parametrize("scale, offset", COPIES)
def test_the_mip_gives_the_same_verdict_in_any_unit_and_from_any_origin(scale, offset):
    # By hand at scale 1, offset 0: job 0 first ends at 2, job 1 at 3: 2 + 9 = 11; job 1 first
    # (waiting for it from 0 to 0.5) runs [0.5, 1.5), job 0 [1.5, 3.5): 4.5 + 3.5 = 8, the
    # optimum. A copy's optimum is c' = scale·c + offset·Σw = 8·scale + 4·offset. Preemptive
    # (slots of 0.5): job 0 [0, 0.5), job 1 [0.5, 1.5), job 0 [1.5, 3): 4.5 + 3 = 7.5 (job 1 cannot
    # end before 1.5, job 0 not before 3, the machine's work).
    inst = _two_jobs(scale, offset)
    res = run("mip", inst)
    verify(inst, res.schedule)
    assert res.status == "optimal" and res.info["optimal"] and res.guarantee == 1.0
    assert res.info["warm_start"]  # FIFO's starts, a few ulps off the grid at 10^6, still start it
    assert res.objective == pytest.approx(8.0 * scale + 4.0 * offset, rel=1e-12)
    assert res.lower_bound <= res.objective and res.lower_bound == pytest.approx(res.objective, rel=1e-9)
    pre = run("mip", inst, params={"preemptive": True})
    verify(inst, pre.schedule)
    assert pre.info["slotted_optimum"]
    assert pre.objective == pytest.approx(7.5 * scale + 4.0 * offset, rel=1e-12)


@pytest.mark.parametrize("scale, offset", [(1.0, 0.0), (1e-3, 0.0), (1e3, 0.0), (1.0, 1.0)])
def test_a_time_truly_off_the_grid_is_refused_in_every_unit(scale, offset):
    # 1e-10 after the grid point 0.5 is 10^5 times the round-off allowed there: not on the grid
    # of 1/2 (nor on any of at most 10^7 slots in the longest time), in any unit: refused, in one
    # line naming the release, not rounded.
    inst = PackingInstance([1.0], (job((1.0, [0], 1.0 * scale), release=offset),
                                   job((1.0, [0], 1.0 * scale), release=(0.5 + 1e-10) * scale + offset)))
    with pytest.raises(AlgorithmError, match=r"job 1's release is .*, on no time grid the MIP can use") as exc:
        run("mip", inst)
    assert "\n" not in str(exc.value)


def test_the_bound_gives_back_what_the_grid_moved():
    # The model's bound B' (slots from the origin) is a bound on the instance only after taking
    # off what putting times on the grid moved: (u·B' − shift·Σw) / (1 + stretch) + origin·Σw.
    from fractions import Fraction

    from schedrelax.models.packing_mip import TimeGrid

    grid = TimeGrid(origin=10.0, exact_unit=Fraction(1, 2), release_slots=np.zeros(1, dtype=np.int64),
                    reserve_slots=np.zeros(0, dtype=np.int64), pair_slots=np.ones(1, dtype=np.int64),
                    shift=Fraction(1, 4), stretch=Fraction(1, 9), finest="")
    # weights 1 and 3: (0.5·20 − 0.25·4) / (10/9) + 10·4 = 9·0.9 + 40 = 48.1
    assert grid.bound(20.0, [1.0, 3.0]) <= 48.1 and grid.bound(20.0, [1.0, 3.0]) == pytest.approx(48.1, rel=1e-15)
    assert grid.cost(20.0, [1.0, 3.0]) == 50.0  # 0.5·20 + 10·4


def test_the_heuristics_cap_gives_the_same_model_from_any_origin():
    # From the unit-invariance fuzz: at offset 1,000 (or 1 at 1e-8 s) every job's cap
    # upper_bound / w_j lay past the horizon, the model grew to 6,170,251 capacity terms and was
    # refused, while the same instance at 0 was built. The cap now subtracts the other jobs' least
    # completions: the same windows from any origin, and optimal in each (mapped back, one cost).
    from tests.fuzz.units import transform
    from schedrelax.instances import from_dict

    doc = {"family": "packing", "schema_version": 1, "capacities": [0.5, 0.5, 0.5], "jobs": [
        {"tasks": [{"demand": 0.332, "placement": [0, 1, 2], "processing_time": [2.7, 3.74, 3.91]},
                   {"demand": 0.19, "placement": [0, 2], "processing_time": [5.0, 3.9]},
                   {"demand": 0.191, "placement": [0, 1, 2], "processing_time": [5.0, 7.5, 3.8]}],
         "weight": 1.0, "release": 2.99},
        {"tasks": [{"demand": 0.133, "placement": [0, 1, 2], "processing_time": [1.27, 1.0, 3.0]}],
         "weight": 4.18, "release": 1.4}]}
    costs = []
    for scale, offset in ((1.0, 0.0), (1.0, 1000.0), (1e-8, 1.0)):
        res = run("mip", from_dict(transform(doc, scale, offset)), params={"time_limit": 20.0})
        assert res.status == "optimal", (scale, offset)
        costs.append((res.objective - offset * 5.18) / scale)
    assert costs == pytest.approx([costs[0]] * 3, rel=1e-6)
