"""``solve(model, "cpsat")``: CP-SAT on Pyomo models that are linear over the integers. Optima
here are by hand or by enumeration; a model CP-SAT cannot take exactly is refused by name."""

from __future__ import annotations

import itertools

import pyomo.environ as pyo
import pytest

from schedrelax.errors import SolverError
from schedrelax.solvers import SolveStatus, solve
from tests.solvers.test_warm_start import CAPACITY, OPTIMUM, VALUES, WEIGHTS, _knapsack

pytest.importorskip("ortools")


def test_the_knapsack_optimum_and_its_values():
    m = _knapsack()
    res = solve(m, "cpsat")
    assert res.status is SolveStatus.OPTIMAL and res.objective == OPTIMUM and res.best_bound == OPTIMUM
    chosen = [i for i in m.x if round(m.x[i].value) == 1]
    assert sum(WEIGHTS[i] for i in chosen) <= CAPACITY and -sum(VALUES[i] for i in chosen) == OPTIMUM


def test_a_start_is_a_hint_and_never_changes_the_optimum():
    start = {i: float(i in (0, 1)) for i in range(len(WEIGHTS))}
    res = solve(_knapsack(start), "cpsat", warm_start=True)
    assert res.status is SolveStatus.OPTIMAL and res.objective == OPTIMUM


def _rounded_rows(sense=pyo.minimize):
    """min x + 2y + 0.25 (max: -x - 2y + 0.25) over integers 0..5 with x + y >= 2.5 and
    x - y <= 1.5, i.e. over the integers x + y >= 3 and x <= y + 1: the cheapest point is (2, 1),
    cost 4 (by enumeration in the test)."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.Integers, bounds=(0, 5))
    m.y = pyo.Var(domain=pyo.Integers, bounds=(0, 5))
    m.a = pyo.Constraint(expr=m.x + m.y >= 2.5)
    m.b = pyo.Constraint(expr=m.x - m.y <= 1.5)
    sign = 1 if sense == pyo.minimize else -1
    m.obj = pyo.Objective(expr=sign * (m.x + 2 * m.y) + 0.25, sense=sense)
    return m


@pytest.mark.parametrize("sense", [pyo.minimize, pyo.maximize])
def test_row_bounds_round_inward_and_the_constant_is_kept(sense):
    sign = 1 if sense == pyo.minimize else -1
    feasible = [(x, y) for x, y in itertools.product(range(6), repeat=2) if x + y >= 2.5 and x - y <= 1.5]
    best = min(x + 2 * y for x, y in feasible)  # x + y >= 3, x <= y + 1: (2, 1) gives 4
    assert best == 4
    m = _rounded_rows(sense)
    res = solve(m, "cpsat")
    assert res.status is SolveStatus.OPTIMAL
    assert res.objective == pytest.approx(sign * best + 0.25, abs=1e-12)
    assert (round(m.x.value), round(m.y.value)) == (2, 1)


def test_an_infeasible_integer_model():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.Integers, bounds=(0, 3))
    m.c = pyo.Constraint(expr=2 * m.x == 3)  # 1.5 is no integer
    m.obj = pyo.Objective(expr=m.x)
    assert solve(m, "cpsat").status is SolveStatus.INFEASIBLE


@pytest.mark.parametrize("case, message", [
    ("continuous", r"variable z is continuous.*'highs'"),
    ("unbounded", r"integer variable x has no finite bounds"),
    ("fractional_row", r"row c has a fractional coefficient"),
    ("fractional_objective", r"objective's coefficient of x is fractional"),
])
def test_what_cpsat_cannot_take_exactly_is_refused_by_name(case, message):
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.Integers, bounds=(None, 4) if case == "unbounded" else (0, 4))
    if case == "continuous":
        m.z = pyo.Var(bounds=(0, 1))
        m.c = pyo.Constraint(expr=m.x + m.z >= 1)
    else:
        m.c = pyo.Constraint(expr=(0.5 if case == "fractional_row" else 1) * m.x >= 1)
    m.obj = pyo.Objective(expr=(0.5 if case == "fractional_objective" else 1) * m.x)
    with pytest.raises(SolverError, match=message):
        solve(m, "cpsat")


def test_unknown_options_are_refused():
    with pytest.raises(ValueError, match="takes no option 'presolve'"):
        solve(_knapsack(), "cpsat", presolve="off")


@pytest.mark.parametrize("level", [0, 1, 2])
def test_every_linearization_level_reaches_the_knapsack_optimum(level):
    res = solve(_knapsack(), "cpsat", linearization_level=level)
    assert res.status is SolveStatus.OPTIMAL and res.objective == OPTIMUM


def spy_linearization(monkeypatch) -> list:
    """The ``linearization_level`` of every CP-SAT solve through the back end, in order (the
    solves still run)."""
    from schedrelax.solvers import cpsat_backend

    seen = []
    real = cpsat_backend.solve_cpsat

    def spy(model, **kwargs):
        seen.append(kwargs.get("linearization_level"))
        return real(model, **kwargs)

    monkeypatch.setattr(cpsat_backend, "solve_cpsat", spy)
    return seen


def test_the_linearization_level_reaches_cpsat(monkeypatch):
    seen = spy_linearization(monkeypatch)
    solve(_knapsack(), "cpsat", linearization_level=2)
    solve(_knapsack(), "cpsat")
    assert seen == [2, None]


@pytest.mark.parametrize("level", [3, -1, True, "2", 1.0])
def test_a_bad_linearization_level_is_refused_by_name(level):
    with pytest.raises(ValueError, match=r"linearization_level must be one of \(0, 1, 2\)"):
        solve(_knapsack(), "cpsat", linearization_level=level)
