"""MIP starts: ``solve(..., warm_start=True)`` hands the variables' current values to the back ends
that take a start, and never changes the answer."""

from __future__ import annotations

import logging

import pyomo.environ as pyo
import pytest

from schedrelax.solvers import available_solvers, solve
from schedrelax.solvers.result import SolveStatus

WEIGHTS = [12, 7, 11, 8, 9, 13, 5, 6, 14, 10]
VALUES = [24, 13, 23, 15, 16, 27, 9, 11, 29, 19]
CAPACITY = 37.5
OPTIMUM = -76.0
"""By enumeration of the 2^10 subsets (below): the best value within the capacity is 76."""

NO_SEARCH = {"mip_max_nodes": 0, "mip_heuristic_effort": 0.0, "presolve": "off"}
"""HiGHS without branching, heuristics or presolve: it can only report a solution it is given."""


def _knapsack(start: dict[int, float] | None = None) -> pyo.ConcreteModel:
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(len(WEIGHTS)), domain=pyo.Binary)
    m.cap = pyo.Constraint(expr=sum(w * m.x[i] for i, w in enumerate(WEIGHTS)) <= CAPACITY)
    m.obj = pyo.Objective(expr=-sum(v * m.x[i] for i, v in enumerate(VALUES)))
    for i, value in (start or {}).items():
        m.x[i].value = value
    return m


def test_the_stated_optimum_by_enumeration():
    best = 0
    for mask in range(1 << len(WEIGHTS)):
        chosen = [i for i in range(len(WEIGHTS)) if mask >> i & 1]
        if sum(WEIGHTS[i] for i in chosen) <= CAPACITY:
            best = max(best, sum(VALUES[i] for i in chosen))
    assert -best == OPTIMUM


def test_highs_takes_a_complete_start_as_its_incumbent():
    # items 0 and 1: weight 19, value 37
    start = {i: float(i in (0, 1)) for i in range(len(WEIGHTS))}
    cold = solve(_knapsack(start), **NO_SEARCH)
    assert cold.status is SolveStatus.LIMIT_NO_SOLUTION  # without the start HiGHS has nothing to report
    warm = solve(_knapsack(start), warm_start=True, **NO_SEARCH)
    assert warm.status is SolveStatus.FEASIBLE and warm.objective == -37.0


@pytest.mark.parametrize("solver", [s.name for s in available_solvers()
                                    if s.available and "integers" in s.features and s.name in
                                    ("highs", "cbc", "glpk", "cvxpy")])
def test_a_start_never_changes_the_optimum(solver, caplog):
    start = {i: float(i in (0, 1)) for i in range(len(WEIGHTS))}
    with caplog.at_level(logging.INFO, logger="schedrelax"):
        res = solve(_knapsack(start), solver, warm_start=True)
    assert res.status is SolveStatus.OPTIMAL and res.objective == pytest.approx(OPTIMUM)
    ignored = "takes no MIP start" in caplog.text
    assert ignored == (solver in ("glpk", "cvxpy")), caplog.text  # said where it is ignored, only there


def test_highs_is_asked_again_without_the_start_when_its_objective_is_not_its_solutions(monkeypatch):
    """HiGHS 1.16 after a MIP start: objective 5 "optimal" for a solution of cost 6 (below). The
    back end compares the reported objective with the returned solution's cost; on a mismatch it
    drops the start and solves again, and if that disagrees too it keeps the solution at its own
    cost as merely feasible, with no bound. Both branches, by making the comparison fail."""
    import schedrelax.solvers.highs_backend as hb

    start = {i: float(i in (0, 1)) for i in range(len(WEIGHTS))}
    calls = []

    def once(reported, computed):
        calls.append((reported, computed))
        return len(calls) > 1

    monkeypatch.setattr(hb, "_same_objective", once)
    res = solve(_knapsack(start), warm_start=True)
    assert res.status is SolveStatus.OPTIMAL and res.objective == pytest.approx(OPTIMUM)
    assert "re-solved without the MIP start" in res.message and len(calls) == 2

    monkeypatch.setattr(hb, "_same_objective", lambda reported, computed: False)
    res = solve(_knapsack(start), warm_start=True)
    assert res.status is SolveStatus.FEASIBLE and res.best_bound is None
    assert res.objective == pytest.approx(OPTIMUM)  # the solution's own cost
    assert "its proof and bound are not used" in res.message


def test_the_related_mip_case_where_highs_misreported_its_objective_is_proven_at_the_hand_optimum():
    """Two jobs of two unit tasks, job 0 before job 1, speeds 0.5 and 1, non-preemptive. By hand:
    job 0's tasks take 1 on the fast machine and 2 on the slow one, so job 0 ends at 2 at best
    (both on the fast machine, or one on each); job 1 starts at 2 and ends at 4 at best: the
    optimum is 2 + 4 = 6. With HiGHS 1.16 the MIP from FIFO's start came back "optimal" at 5."""
    import numpy as np

    from schedrelax.algorithms import run
    from schedrelax.instances import RelatedInstance, RelatedJob

    inst = RelatedInstance(speeds=np.array([0.5, 1.0]), jobs=(RelatedJob(tasks=np.array([1.0, 1.0])),
                                                              RelatedJob(tasks=np.array([1.0, 1.0]))), edges=[(0, 1)])
    res = run("mip", inst)
    assert res.objective == pytest.approx(6.0, abs=1e-9)
    assert res.status == "optimal" and 6.0 - 1e-6 <= res.lower_bound <= 6.0 + 1e-9
