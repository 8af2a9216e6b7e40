"""Every back end against the conformance suite, plus checks of the suite's own optima."""

import itertools

import numpy as np
import pyomo.environ as pyo
import pytest

from schedrelax.solvers import solve
from tests.solvers.conformance import (
    BACKENDS,
    CASES,
    KNAPSACK_CAPACITY,
    KNAPSACK_VALUES,
    KNAPSACK_WEIGHTS,
    require_backend,
    tolerance,
)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
@pytest.mark.parametrize("backend", BACKENDS)
def test_case(backend, case):
    require_backend(backend, mip=case.mip)
    model = case.build()

    result = solve(model, backend)

    assert result.status is case.status, result.message
    assert result.solver == backend
    if case.objective is None:
        assert result.objective is None
        assert result.best_bound is None
        return
    tol = tolerance(backend)
    assert result.objective == pytest.approx(case.objective, rel=tol, abs=tol)
    assert result.best_bound == pytest.approx(case.objective, rel=tol, abs=tol)
    assert pyo.value(model.obj) == pytest.approx(case.objective, rel=tol, abs=tol)
    for name, expected in case.values.items():
        assert model.find_component(name).value == pytest.approx(expected, abs=10 * tol)


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.duals], ids=lambda case: case.name
)
@pytest.mark.parametrize("backend", BACKENDS)
def test_duals_are_shadow_prices(backend, case):
    require_backend(backend)
    model = case.build()
    model.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)

    solve(model, backend).require_optimal()

    for name, expected in case.duals.items():
        dual = model.dual[model.find_component(name)]
        assert dual == pytest.approx(expected, abs=10 * tolerance(backend))


def test_lp_max_vertices_optimum_is_its_best_vertex():
    # x + y <= 4, x + 3y <= 7, x <= 3, -x <= 0, -y <= 0: every vertex is where two rows meet
    A = np.array([[1, 1], [1, 3], [1, 0], [-1, 0], [0, -1]], dtype=float)
    b = np.array([4, 7, 3, 0, 0], dtype=float)
    best = -np.inf
    for i, j in itertools.combinations(range(len(b)), 2):
        sub = A[[i, j]]
        if abs(np.linalg.det(sub)) < 1e-12:
            continue
        point = np.linalg.solve(sub, b[[i, j]])
        if np.all(A @ point <= b + 1e-9):
            best = max(best, 3 * point[0] + 2 * point[1])
    case = next(c for c in CASES if c.name == "lp_max_vertices")
    assert best == pytest.approx(case.objective)


def test_knapsack_optimum_by_enumeration_and_relaxation_is_fractional():
    best = max(
        sum(v for v, t in zip(KNAPSACK_VALUES, take) if t)
        for take in itertools.product((0, 1), repeat=len(KNAPSACK_VALUES))
        if sum(w for w, t in zip(KNAPSACK_WEIGHTS, take) if t) <= KNAPSACK_CAPACITY
    )
    case = next(c for c in CASES if c.name == "mip_knapsack")
    assert best == case.objective

    relaxed = case.build()
    pyo.TransformationFactory("core.relax_integer_vars").apply_to(relaxed)
    assert solve(relaxed).require_optimal().objective == pytest.approx(23.5)


def test_general_integer_optimum_by_enumeration_and_relaxation_is_fractional():
    best = max(
        3 * x + 2 * y
        for x, y in itertools.product(range(-2, 10), repeat=2)
        if 2 * x + 3 * y <= 12.5 and 4 * x + y <= 10.2
    )
    case = next(c for c in CASES if c.name == "mip_general_integers")
    assert best == case.objective

    relaxed = case.build()
    pyo.TransformationFactory("core.relax_integer_vars").apply_to(relaxed)
    assert solve(relaxed).require_optimal().objective == pytest.approx(11.35)


def _transportation_lp(seed=3, sources=8, sinks=12):
    rng = np.random.default_rng(seed)
    supply = rng.integers(20, 60, sources).astype(float)
    demand = rng.uniform(5, 30, sinks)
    demand *= 0.8 * supply.sum() / demand.sum()
    cost = rng.uniform(1, 20, (sources, sinks))
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(sources), range(sinks), within=pyo.NonNegativeReals)
    m.supply = pyo.Constraint(
        range(sources), rule=lambda m, i: sum(m.x[i, j] for j in range(sinks)) <= supply[i]
    )
    m.demand = pyo.Constraint(
        range(sinks), rule=lambda m, j: sum(m.x[i, j] for i in range(sources)) >= demand[j]
    )
    m.obj = pyo.Objective(
        expr=sum(cost[i, j] * m.x[i, j] for i in range(sources) for j in range(sinks))
    )
    return m


def test_one_lp_same_optimum_with_highs_glpk_cbc_and_cvxpy():
    objectives = {}
    for backend in ("highs", "glpk", "cbc", "cvxpy"):
        require_backend(backend)
        objectives[backend] = solve(_transportation_lp(), backend).require_optimal().objective
    for backend, objective in objectives.items():
        assert objective == pytest.approx(objectives["highs"], rel=1e-6), backend
