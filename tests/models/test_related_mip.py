"""Tests of schedrelax.models.related_mip: the exact MIP of paper 004 §II against brute-force
enumeration and by hand, and LP <= MIP optimum <= every algorithm on small random instances."""

import itertools

import numpy as np
import pytest
import pyomo.environ as pyo
from hypothesis import given, settings

from schedrelax.algorithms import run
from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.models.related_mip import build_related_mip, mip_horizon, related_mip_solution
from schedrelax.rounding.exact import exact_solver_options
from schedrelax.rounding.spc import solve_lp_schedule
from schedrelax.schedulers.related_list import semi_active_schedule
from schedrelax.schedules import evaluate, verify
from schedrelax.solvers import solve
from tests.strategies import related_instances

ALGORITHMS = ("spc", "fifo", "huwf", "tetris", "identical-machine", "map-only")
REL = 1e-6


def brute_force_optimum(inst):
    """Min Σ w C over every machine assignment and every global task order (each run semi-actively):
    every feasible schedule's tasks sorted by start are one such order, and running it semi-actively
    is never later, so this is the optimum."""
    best = np.inf
    T = inst.n_tasks
    for machines in itertools.product(range(inst.n_machines), repeat=T):
        for order in itertools.permutations(range(T)):
            try:
                s = semi_active_schedule(inst, order, machines)
            except ValueError:  # the order breaks a precedence
                continue
            best = min(best, evaluate(inst, s).objective)
    return best


def test_mip_by_hand_two_tasks_on_related_machines():
    # Speeds (2, 1); job 0 (weight 1) has tasks 2 and 2: both on the fast machine end at 2, split
    # they end at 1 and 2: C = 2 either way. Job 1 (weight 3, one task of 1) must follow job 0
    # (edge 0 -> 1): it starts at 2 and ends at 2.5 on the fast machine. Optimum 2 + 3 * 2.5 = 9.5.
    inst = RelatedInstance(speeds=[2.0, 1.0], jobs=(RelatedJob([2.0, 2.0], 1.0), RelatedJob([1.0], 3.0)),
                           edges=[(0, 1)])
    res = run("mip", inst)
    assert res.objective == pytest.approx(9.5)
    assert res.info["optimal"] and res.lower_bound == pytest.approx(9.5, rel=REL)
    assert brute_force_optimum(inst) == pytest.approx(9.5)


@pytest.mark.parametrize("seed", range(4))
def test_mip_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 3))
    jobs = tuple(RelatedJob(tasks=rng.integers(1, 5, int(rng.integers(1, 3))).astype(float),
                            weight=float(rng.integers(1, 4)), release=float(rng.integers(0, 3)))
                 for _ in range(3))
    edges = [(0, 2)] if seed % 2 else []
    inst = RelatedInstance(speeds=rng.choice([0.5, 1.0, 2.0], m), jobs=jobs, edges=edges)
    if inst.n_tasks > 5:
        jobs = tuple(RelatedJob(tasks=j.tasks[:1], weight=j.weight, release=j.release) for j in jobs)
        inst = RelatedInstance(speeds=inst.speeds, jobs=jobs, edges=edges)
    assert run("mip", inst).objective == pytest.approx(brute_force_optimum(inst), rel=REL)


def test_model_shape_and_reader():
    inst = RelatedInstance(speeds=[1.0, 2.0], jobs=(RelatedJob([1.0, 1.0]), RelatedJob([2.0], release=1.0)),
                           edges=[(0, 1)])
    m = build_related_mip(inst)
    # The two tasks of job 0 are unordered; job 1 follows job 0, so its task needs no disjunction.
    assert list(m.pairs) == [(0, 1)]
    assert m.s[2].lb == pytest.approx(1.0)
    assert mip_horizon(inst) == pytest.approx(1.0 + 4.0 / 1.0)
    solve(m).require_optimal()
    sol = related_mip_solution(m)
    assert sol.machine.shape == (3,) and sol.start.shape == (3,)
    assert sol.completion[1] >= sol.completion[0] + 1.0 - 1e-9


@settings(max_examples=15, deadline=None)
@given(related_instances(max_machines=3, max_jobs=3, max_tasks=2, releases=True))
def test_lp_below_mip_below_every_algorithm(inst):
    mip = run("mip", inst)
    assert mip.info["optimal"]
    lp = solve_lp_schedule(inst).solution.objective
    assert lp <= mip.objective * (1 + REL) + REL
    for name in ALGORITHMS:
        res = run(name, inst)
        verify(inst, res.schedule)
        assert mip.objective <= res.objective * (1 + REL) + REL, name


@settings(max_examples=60, deadline=None)
@given(related_instances(max_machines=3, max_jobs=4, max_tasks=2, releases=True))
def test_lp_schedule_is_below_the_mip_optimum(inst):
    # The LP is a true lower bound only if (2)-(4) hold for every feasible schedule: many tiny cases.
    mip = run("mip", inst)
    assert mip.info["optimal"]
    assert solve_lp_schedule(inst).solution.objective <= mip.objective * (1 + REL) + REL


@settings(max_examples=25, deadline=None)
@given(related_instances(max_machines=3, max_jobs=3, max_tasks=2, releases=True))
def test_the_start_the_narrowed_horizon_and_the_bound_row_keep_the_optimum(inst):
    # Second path: the plain model (the data's horizon, no start, no bound row) proves the same
    # optimum as `mip`, which narrows H from its start's cost and adds Σ w C >= LP-Schedule.
    plain = build_related_mip(inst)
    solve(plain, **exact_solver_options("highs")).require_optimal()
    mip = run("mip", inst)
    assert mip.info["optimal"] and mip.info["warm_start"]
    assert mip.objective == pytest.approx(pyo.value(plain.obj), rel=1e-6, abs=1e-9)
    assert mip.info["horizon"] <= mip_horizon(inst)


def test_a_time_limit_keeps_at_least_the_start():
    from schedrelax.instances.generate import generate

    inst = generate("related", None, seed=0)  # 8 jobs: not proven within 0.3 s
    res = run("mip", inst, time_limit=0.3)
    assert res.info["start"] is not None and res.objective <= res.info["start_objective"] * (1 + 1e-9)
    for name in ("spc", "fifo", "huwf", "tetris", "identical-machine"):  # the start is the cheapest of these
        assert res.info["start_objective"] <= run(name, inst).objective * (1 + 1e-12), name
    assert res.status in ("optimal", "feasible") and res.lower_bound <= res.objective * (1 + 1e-9)
