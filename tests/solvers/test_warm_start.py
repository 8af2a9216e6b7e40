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
