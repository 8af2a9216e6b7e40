"""Tests of the CP-SAT models (schedrelax/models/cpsat_packing.py, cpsat_related.py): the integer
scaling, the hint, the redundant rows, and the rounded-down model's relaxation argument checked on
schedules found by the HiGHS MIP (an independent engine)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

pytest.importorskip("ortools.sat.python.cp_model")

from ortools.sat.python import cp_model

from schedrelax.algorithms import run
from schedrelax.instances import (
    PackingInstance,
    PackingJob,
    PackingTask,
    RelatedInstance,
    RelatedJob,
)
from schedrelax.instances.generate import spc, synchpack
from schedrelax.models import cpsat_packing as cpp
from schedrelax.models.cpsat_packing import (
    as_rational,
    build_cpsat_packing,
    choose_scaling,
    packing_int_data,
    relaxed_packing_instance,
    serial_packing,
)
from schedrelax.models.cpsat_related import (
    build_cpsat_related,
    relaxed_related_instance,
    start_order,
    twin_span,
)


def _solve(model, fix_hint: bool = False):
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 30
    solver.parameters.fix_variables_to_their_hinted_value = fix_hint
    return solver, solver.Solve(model)


# ------------------------------------------------------------------------------------- scaling

def test_numbers_on_a_small_grid_are_read_as_the_fractions_they_stand_for():
    assert as_rational(0.1) == (Fraction(1, 10), True)
    assert as_rational(1 / 3) == (Fraction(1, 3), True)
    f, on_grid = as_rational(math.pi)
    assert not on_grid and f == Fraction(math.pi)  # the float's own binary value


def test_exact_scaling_is_the_lcm_and_rounded_scaling_resolves_the_objective():
    half, three = as_rational(0.5), as_rational(3.0)
    sc = choose_scaling([half, three, as_rational(1 / 3)], [as_rational(2.0)], n_tasks=2, n_jobs=1,
                        horizon=Fraction(4), cost_bound=10.0)
    assert (sc.time, sc.weight, sc.exact) == (6, 1, True)
    sc = choose_scaling([as_rational(math.pi), three], [as_rational(math.e)], n_tasks=2, n_jobs=1,
                        horizon=Fraction(7), cost_bound=30.0)
    assert not sc.time_exact and not sc.weight_exact
    # By hand: rounding times moves Σ w C by < (tasks + 1)·Σw / s = 3e / s, rounding the weight by
    # < min(30 / e, 1 job × horizon 7) / w = 7 / w; half of PRECISION × 30 each, and no finer.
    half_target = cpp.PRECISION * 30 / 2
    assert 3 * math.e / sc.time <= half_target < 3 * math.e / (sc.time - 1)
    assert 7 / sc.weight <= half_target < 7 / (sc.weight - 1)


def test_scaling_shrinks_instead_of_overflowing_and_then_is_no_longer_exact():
    sc = choose_scaling([as_rational(math.pi)], [as_rational(math.e)], n_tasks=1, n_jobs=1,
                        horizon=Fraction(10**6), cost_bound=1e9)
    assert sc.time * sc.weight * 1e9 * 4 <= cpp.INT_LIMIT
    assert not sc.exact


def test_bounds_go_back_to_instance_units_rounded_down():
    sc = cpp.Scaling(time=3, weight=1)
    # 10 / 3 is not a float: the bound returned must not exceed it.
    assert Fraction(sc.to_instance(10.0)) <= Fraction(10, 3)
    assert sc.to_instance(9.0) == 3.0


def test_twin_span_by_hand():
    # three equal tasks taking 2 and 3 on two machines: by 3 only 1 + 1 fit, by 4 two and one
    assert twin_span([2, 3], 3) == 4
    assert twin_span([5], 2) == 10
    assert twin_span([0, 3], 4) == 0


def test_serial_packing_by_hand():
    # capacity 10: items of demand 6 (length 2), 6 (length 1), 4 (length 3); order 1, 0, 2.
    # Item 1 at 0; item 0 cannot join it (12 > 10): at 1, when item 1 ends; item 2 fits beside
    # both (6 + 4 = 10) from 0.
    starts = serial_packing([1, 0, 2], [0, 0, 0], [2, 1, 3], [6, 6, 4], [0, 0, 0], [10])
    assert starts == [1, 0, 0]
    # a reservation of 5 until 4 pushes the 6-demand items past it
    assert serial_packing([0], [0], [1], [6], [0], [10], [(0, 5, 4)]) == [4]


# --------------------------------------------------------------------------------- instances

def _packing_exact(seed: int) -> PackingInstance:
    rng = np.random.default_rng(seed)
    caps = [1.0, 0.5]
    jobs = []
    for _ in range(3):
        tasks = []
        for _ in range(int(rng.integers(1, 3))):
            place = sorted(rng.choice(2, size=int(rng.integers(1, 3)), replace=False).tolist())
            demand = float(rng.choice([0.25, 0.5])) if 1 in place else float(rng.choice([0.25, 0.5, 0.75]))
            tasks.append(PackingTask(demand=demand, placement=place,
                                     processing_time=[float(rng.integers(1, 7)) / 2 for _ in place]))
        jobs.append(PackingJob(tasks=tuple(tasks), weight=float(rng.integers(1, 4)), release=float(rng.integers(0, 3))))
    reservations = [(0, 0.25, 1.5)] if seed % 2 else []
    return PackingInstance(capacities=caps, jobs=tuple(jobs), reservations=reservations)


def _related_exact(seed: int) -> RelatedInstance:
    rng = np.random.default_rng(seed)
    speeds = rng.choice([0.5, 1.0, 2.0, 3.0], size=2).tolist()
    jobs = tuple(RelatedJob(tasks=rng.integers(1, 5, int(rng.integers(1, 3))).astype(float).tolist(),
                            weight=float(rng.integers(0, 4)), release=float(rng.integers(0, 3))) for _ in range(3))
    edges = [(0, 2)] if seed % 2 else []
    ready = [0.0, 1.0] if seed % 3 == 0 else None
    return RelatedInstance(speeds=speeds, jobs=jobs, edges=edges, ready=ready)


def _task_index(inst, schedule):
    return inst.job_offset[schedule.job] + schedule.task


@pytest.mark.parametrize("seed", range(4))
def test_the_hint_is_a_feasible_model_solution_at_the_objective_cap(seed):
    for inst, build in ((_packing_exact(seed), build_cpsat_packing), (_related_exact(seed), build_cpsat_related)):
        start = run("fifo", inst)
        built = build(inst, start_schedule=start.schedule, cost_bound=start.objective)
        assert built.hinted and built.data.scaling.exact
        solver, status = _solve(built.model, fix_hint=True)
        assert status == cp_model.OPTIMAL
        assert solver.ObjectiveValue() == built.upper_limit
        # exact model, semi-active start: the hint costs no more than the start schedule itself
        assert built.upper_limit <= start.objective * built.data.scaling.objective_factor * (1 + 1e-9)


# ------------------------------------------- the relaxation argument, on the HiGHS optimum

def _exact_semi_active(inst: RelatedInstance, order, machine):
    """Rational starts of the semi-active schedule with these machines and order: the instance's
    numbers read as cpsat_packing.as_rational does, so no float round-off enters the check."""
    size = [as_rational(v)[0] for v in inst.task_size.tolist()]
    speed = [as_rational(v)[0] for v in np.asarray(inst.speeds).tolist()]
    rel = [as_rational(v)[0] for v in inst.release.tolist()]
    free = [as_rational(v)[0] for v in inst.ready.tolist()]
    preds = {j: [a for a, b in inst.edges.tolist() if b == j] for j in range(inst.n_jobs)}
    done = [Fraction(0)] * inst.n_jobs
    start = [None] * inst.n_tasks
    for t in order:
        j, i = int(inst.task_job[t]), int(machine[t])
        s = max([free[i], rel[j], *(done[a] for a in preds[j])])
        free[i] = s + size[t] / speed[i]
        done[j] = max(done[j], free[i])
        start[t] = s
    C = [max(start[t] + size[t] / speed[int(machine[t])] for t in range(inst.job_offset[j], inst.job_offset[j + 1]))
         for j in range(inst.n_jobs)]
    return start, sum(as_rational(float(w))[0] * c for w, c in zip(inst.weights.tolist(), C))


def _relabel_twins(groups, start, machine):
    """Interchangeable tasks (equal data, one job) swap places so that starts increase with the
    index, as the models' symmetry rows ask: same schedule, same cost."""
    for g in groups:
        slots = sorted((start[t], int(machine[t])) for t in g)
        for t, (s, i) in zip(g, slots):
            start[t], machine[t] = s, i


@pytest.mark.parametrize("coarse", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_rounded_related_model_admits_the_highs_optimum_at_no_larger_cost(seed, coarse, monkeypatch):
    # Normal(50, 10) speeds: durations off every grid, so the model is rounded down. Coarse: a
    # resolution of 1 unit per shortest time, where floors change the data a lot.
    if coarse:
        monkeypatch.setattr(cpp, "PRECISION", 1.0)
    inst = spc(seed, n_jobs=2, tasks_per_job=(1, 2), machines=2)
    opt = run("mip", inst, solver="highs")
    assert opt.info["optimal"]
    task = _task_index(inst, opt.schedule)
    machine = np.empty(inst.n_tasks, dtype=np.int64)
    machine[task] = opt.schedule.machine
    starts_f = np.empty(inst.n_tasks)
    starts_f[task] = opt.schedule.start
    start, cost = _exact_semi_active(inst, start_order(inst, starts_f).tolist(), machine)
    _relabel_twins([[t for t in range(inst.job_offset[j], inst.job_offset[j + 1]) if inst.task_size[t] == v]
                    for j in range(inst.n_jobs) for v in set(inst.task_size[inst.job_offset[j]:inst.job_offset[j + 1]])],
                   start, machine)
    built = build_cpsat_related(inst)
    sc = built.data.scaling
    assert not sc.exact
    for t in range(inst.n_tasks):
        built.model.add_hint(built.start[t], math.floor((start[t] - sc.origin) * sc.time))
        for i in range(inst.n_machines):
            built.model.add_hint(built.presence[t][i], i == machine[t])
    solver, status = _solve(built.model, fix_hint=True)
    assert status == cp_model.OPTIMAL  # the mapped schedule is feasible in the model
    assert solver.ObjectiveValue() <= cost * sc.objective_factor
    # and the relaxed instance really is below the model: its LP bound is below OPT too
    relaxed = relaxed_related_instance(inst, built.data)
    if relaxed is not None:
        assert run("spc", relaxed).lower_bound <= opt.objective * (1 + 1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_rounded_packing_model_admits_the_highs_optimum_at_no_larger_cost(seed, monkeypatch):
    # Lognormal demands (off every grid) rounded down to 8 units per capacity 1, releases in halves
    # read at 1 unit per time unit (rounded down too).
    monkeypatch.setattr(cpp, "DEMAND_LIMIT", 8)
    monkeypatch.setattr(cpp, "EXACT_SCALE_LIMIT", 1)
    monkeypatch.setattr(cpp, "PRECISION", 100.0)
    base = synchpack(seed, machines=2, n_jobs=3, tasks_per_job=(1, 2), weights="random")
    jobs = tuple(PackingJob(tasks=job.tasks, weight=job.weight, release=0.5 * (j % 2)) for j, job in enumerate(base.jobs))
    inst = PackingInstance(capacities=base.capacities, jobs=jobs)
    opt = run("mip", inst, solver="highs")
    assert opt.info["optimal"]
    data = packing_int_data(inst, opt.objective)
    sc = data.scaling
    assert sc.time == 1 and not sc.time_exact and not sc.demand_exact and sc.demand == 8
    built = build_cpsat_packing(inst, data=data)
    task = _task_index(inst, opt.schedule)
    start = [0] * inst.n_tasks
    machine = [0] * inst.n_tasks
    for k, t in enumerate(task.tolist()):
        start[t] = math.floor(Fraction(float(opt.schedule.start[k])) * sc.time)
        machine[t] = int(opt.schedule.machine[k])
    pairs = [tuple(zip(data.pair_machine[data.pair_task == t].tolist(), data.pair_time[data.pair_task == t].tolist()))
             for t in range(inst.n_tasks)]
    _relabel_twins([[t for t in range(inst.job_offset[j], inst.job_offset[j + 1])
                     if (data.demand[t], pairs[t]) == key]
                    for j in range(inst.n_jobs)
                    for key in {(data.demand[t], pairs[t]) for t in range(inst.job_offset[j], inst.job_offset[j + 1])}],
                   start, machine)
    for t in range(inst.n_tasks):
        built.model.add_hint(built.start[t], start[t])
        for q in np.flatnonzero(data.pair_task == t).tolist():
            built.model.add_hint(built.presence[q], int(data.pair_machine[q]) == machine[t])
    solver, status = _solve(built.model, fix_hint=True)
    assert status == cp_model.OPTIMAL
    assert solver.ObjectiveValue() <= Fraction(opt.objective) * sc.objective_factor * (1 + 1e-12)
    relaxed = relaxed_packing_instance(inst, data)
    assert relaxed is not None
    lp1 = run("synchpack1", relaxed)
    assert lp1.lower_bound <= opt.objective * (1 + 1e-9)


# --------------------------------------------------------------- frame and factors (issue 31)

def test_bounds_out_of_a_shifted_frame_add_the_offset_rounded_down():
    sc = cpp.Scaling(time=3, weight=1, origin=Fraction(1, 10), cost_offset=Fraction(7, 10))
    # 10 / 3 + 7 / 10 is not a float: neither bound may exceed it
    assert Fraction(sc.to_instance(10.0)) <= Fraction(10, 3) + Fraction(7, 10)
    assert Fraction(37, 10) - Fraction(1, 10**15) <= Fraction(sc.to_instance(9.0)) <= Fraction(37, 10)
    assert Fraction(sc.bound_out(0.1)) <= Fraction(0.1) + Fraction(7, 10)
    assert sc.bound_out(None) is None
    assert sc.objective_out(9.0) == pytest.approx(3.7)


def _doc_related() -> dict:
    from tests.rounding.test_cpsat import UNITS_RELATED
    return UNITS_RELATED


def _doc_packing() -> dict:
    from tests.rounding.test_cpsat import UNITS_PACKING
    return UNITS_PACKING


@pytest.mark.parametrize("offset", [1.0, 1e3, 449516.0, 1e6])
@pytest.mark.parametrize("family", ["related", "packing"])
def test_shifting_the_time_origin_leaves_the_model_unchanged(family, offset):
    # Every time counts from the earliest release: a copy shifted by a whole offset (its data on
    # the same grid) gives the very same integers and factors, and its objective offset is offset · Σ w.
    from schedrelax.instances.base import from_dict
    from schedrelax.models.cpsat_related import related_int_data
    from tests.fuzz.units import transform

    doc = _doc_related() if family == "related" else _doc_packing()
    make = related_int_data if family == "related" else packing_int_data
    a, b = make(from_dict(doc)), make(from_dict(transform(doc, 1.0, offset)))
    fields = ("duration", "release", "ready", "weight") if family == "related" else (
        "pair_time", "task_release", "demand", "capacity", "reserve_until", "weight")
    for name in fields:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.horizon == b.horizon
    assert (a.scaling.time, a.scaling.weight, a.scaling.exact) == (b.scaling.time, b.scaling.weight, b.scaling.exact)
    weights = sum(Fraction(str(job["weight"])) for job in doc["jobs"])
    assert b.scaling.origin == offset and b.scaling.cost_offset == Fraction(offset) * weights


@pytest.mark.parametrize(("scale", "offset"), [(1.0, 0.0), (1e-6, 0.0), (1e5, 1.0), (1e-2, 1e6), (0.1, 449516.0),
                                               (1e6, 1.0), (1e-4, 1e3)])
def test_factors_resolve_the_objective_and_fit_64_bits_in_any_unit(scale, offset):
    # By hand, from the instance and the docstring of choose_scaling: measured from the earliest
    # release o, rounding times down by < 1/s moves a semi-active schedule's Σ w C by
    # < (tasks + 1) Σ w / s, rounding weights by < 1/w moves it by < min(K / min w, jobs × H) / w,
    # K the known schedule's cost less o Σ w, H the horizon from o. Together they must stay within
    # PRECISION · K, and the model's sums within 64 bits.
    from schedrelax.instances.base import from_dict
    from schedrelax.models.cpsat_related import related_int_data
    from tests.fuzz.units import transform

    inst = from_dict(transform(_doc_related(), scale, offset))
    cost = run("fifo", inst).objective
    sc = related_int_data(inst, cost).scaling
    q = [as_rational(v)[0] for v in inst.release.tolist()]
    o = min(q)
    w = [as_rational(v)[0] for v in inst.weights.tolist()]
    W = sum(w)
    K = float(Fraction(cost) - o * W)
    size = [as_rational(v)[0] for v in inst.task_size.tolist()]
    speed = [as_rational(v)[0] for v in np.asarray(inst.speeds).tolist()]
    H = float(max(q) - o + sum(p / min(speed) for p in size))
    n = inst.n_tasks
    time_error = 0.0 if sc.time_exact else (n + 1) * float(W) / sc.time
    weight_error = 0.0 if sc.weight_exact else min(K / float(min(w)), inst.n_jobs * H) / sc.weight
    assert time_error + weight_error <= cpp.PRECISION * K * (1 + 1e-6)
    assert 4 * inst.n_jobs * sc.time * sc.weight * K <= cpp.INT_LIMIT * (1 + 1e-6)
    assert 4 * (n + 1) * H * sc.time <= cpp.INT_LIMIT
