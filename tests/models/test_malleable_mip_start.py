"""The malleable MIP's start, caps and bound row (issue 14): every verified schedule is a point of
the model (so the start is valid and no row cuts off a schedule), the start reaches the solver, the
caps and the row leave the optimum where it was, and a hand-solved optimum."""

from __future__ import annotations

import numpy as np
import pytest

from schedrelax.algorithms import run
from schedrelax.instances import Flow, MalleableInstance
from schedrelax.instances import costs as c
from schedrelax.instances.generate import FLEX_COSTS, FLOWFLEX_COSTS, flex, flowflex
from schedrelax.models.malleable_mip import build_malleable_mip, completion_caps, malleable_mip_start
from schedrelax.rounding.exact import BIG_M_TOLERANCES
from schedrelax.rounding.flex import MALLEABLE_STARTS, _model_admits
from schedrelax.solvers import solve

REL = 1e-6


def _instances():
    """Small generated instances with DAGs, every cost kind, both objectives, and minima (flex)."""
    for k in range(6):
        yield flowflex(k, processors=4, n_flows=2, jobs_per_flow=(1, 3), cost=FLOWFLEX_COSTS[k],
                       objective="minimax" if k == 5 else "minisum")
    for k in range(3):
        yield flex(k, n_jobs=3, processors=6, cost=FLEX_COSTS[k + 6])
    # Releases: flow 1 arrives at 1.5 and flow 2 at 3 (the generators release everything at 0).
    yield MalleableInstance(3, (Flow([4.0, 2.0], [2, 3], edges=[(0, 1)], cost=c.completion(2.0)),
                                Flow([3.0], [3], release=1.5, cost=c.tardiness(4.0, 1.0)),
                                Flow([1.0, 1.0], [1, 1], release=3.0, cost=c.sla([4.0, 6.0], [1.0, 2.0]))))


@pytest.mark.parametrize("inst", list(_instances()))
def test_every_admitted_schedule_is_a_point_of_the_model(inst):
    # Fix the binaries to each algorithm's schedule (its event order) and solve what is left, an
    # LP: it must be feasible and cost at most the schedule, under the caps from that schedule's
    # own cost. A row that cut off a verified schedule (or a wrong mapping) fails here.
    checked = 0
    for name in MALLEABLE_STARTS:
        r = run(name, inst)
        if not _model_admits(inst, r.schedule, True):
            continue
        model = build_malleable_mip(inst, upper_bound=r.objective)
        assert malleable_mip_start(model, inst, r.schedule), name
        for var in (*model.c.values(), *model.rho.values(), *model.u.values()):
            var.fix()
        res = solve(model, "highs", **BIG_M_TOLERANCES)
        assert res.status.has_solution, (name, res.status, res.message)
        assert res.objective <= r.objective + REL * max(1.0, abs(r.objective)), name
        checked += 1
    assert checked >= 2


def test_start_reaches_the_solver():
    # 24 jobs: HiGHS proves nothing in a second, but with the start it holds an incumbent at
    # most the start's cost from the first moment (the start is completed by an LP first).
    inst = flowflex(0, processors=8, n_flows=7, jobs_per_flow=(2, 4))
    start = min((run(n, inst) for n in MALLEABLE_STARTS), key=lambda r: r.objective)
    model = build_malleable_mip(inst, upper_bound=start.objective)
    assert malleable_mip_start(model, inst, start.schedule)
    res = solve(model, "highs", time_limit=1.0, warm_start=True, **BIG_M_TOLERANCES)
    assert res.status.has_solution
    assert res.objective <= start.objective * (1 + REL)


def test_a_time_limited_run_returns_at_least_the_start():
    inst = flowflex(0, processors=8, n_flows=7, jobs_per_flow=(2, 4))
    res = run("mip", inst, time_limit=0.3, max_jobs=100)
    assert res.objective <= res.info["start_objective"] * (1 + REL)
    assert res.status == "feasible" and not res.info["optimal"]
    # The relaxation's bound is known before any solve: it is the flow LP's here.
    assert res.lower_bound >= res.info["relaxation_bound"] - 1e-9
    assert res.gap is not None and res.gap > 0


def test_completion_caps_by_hand():
    # Two flows, P = 1, sizes 1 and 2, weights 1 and 3, completion cost. Lower bounds: 1 and 2
    # (each alone on its one processor). With U = 10: flow 0 may cost 10 − 3·2 = 4, so C_0 <= 4;
    # flow 1 may cost 10 − 1 = 9, so C_1 <= 3. Minimax with U = 10: C_0 <= 10, C_1 <= 10/3.
    flows = (Flow([1.0], [1], cost=c.completion(1.0)), Flow([2.0], [1], cost=c.completion(3.0)))
    caps = completion_caps(MalleableInstance(1, flows), 10.0)
    assert caps == pytest.approx([4.0, 3.0], rel=1e-8)
    caps = completion_caps(MalleableInstance(1, flows, objective="minimax"), 10.0)
    assert caps == pytest.approx([10.0, 10.0 / 3.0], rel=1e-8)


def test_hand_solved_optimum():
    # P = 2. A: work 2, at most 2 processors, weight 2. B: work 2, at most 1 processor, weight 1.
    # Give A 2 processors for τ <= 1 first (B waits), then both run on one each: A ends at
    # τ + (2 − 2τ) = 2 − τ, B at τ + 2, cost 2(2 − τ) + τ + 2 = 6 − τ; τ = 1 gives 5 (A on [0, 1],
    # B on [1, 3]). Any schedule is of this form up to reordering B's idle time, which only delays
    # B, so OPT = 5. Both paths (start and bound row, or neither) must prove it.
    inst = MalleableInstance(2, (Flow([2.0], [2], cost=c.completion(2.0)), Flow([2.0], [1], cost=c.completion(1.0))))
    for params in ({}, {"warm_start": False, "bound_row": False}):
        res = run("mip", inst, **params)
        assert res.objective == pytest.approx(5.0, rel=1e-9)
        assert res.info["optimal"] and res.lower_bound == pytest.approx(5.0, rel=1e-6)


@pytest.mark.parametrize("k", range(8))
def test_start_and_bound_row_leave_the_optimum(k):
    # Second path: the plain model (no start, caps or bound row) proves the same optimum.
    inst = flowflex(100 + k, processors=4, n_flows=2, jobs_per_flow=(1, 3), cost=FLOWFLEX_COSTS[k],
                    objective="minimax" if k % 3 == 2 else "minisum")
    fast = run("mip", inst)
    plain = run("mip", inst, warm_start=False, bound_row=False)
    assert fast.info["optimal"] and plain.info["optimal"]
    assert fast.objective == pytest.approx(plain.objective, rel=REL, abs=REL)
    assert fast.info["warm_start"] and not plain.info["warm_start"]


def test_a_late_start_is_not_admitted_with_minima():
    # Job 1 (minimum 1) is ready at 0 but starts at 1: it respects its minimum while it runs, yet
    # the model runs every ready job on at least its minimum, so it does not contain this schedule.
    from schedrelax.schedules import POOLED, Schedule

    inst = MalleableInstance(2, (Flow([1.0], [1], min_processors=[1]), Flow([1.0], [1], min_processors=[1])))
    late = Schedule(np.array([0, 1]), np.zeros(2, dtype=np.int64), np.full(2, POOLED), np.array([0.0, 1.0]),
                    np.array([1.0, 2.0]), np.array([1.0, 1.0]), promises={"respects_minima"})
    on_time = Schedule(np.array([0, 1]), np.zeros(2, dtype=np.int64), np.full(2, POOLED), np.array([0.0, 0.0]),
                       np.array([1.0, 1.0]), np.array([1.0, 1.0]), promises={"respects_minima"})
    assert not _model_admits(inst, late, True)
    assert _model_admits(inst, late, False)
    assert _model_admits(inst, on_time, True)
