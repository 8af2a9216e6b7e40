"""Outcomes other than a plain optimum: limits, MIPs without optimum, degenerate models, and
what a SolveResult carries."""

import dataclasses

import highspy
import numpy as np
import pyomo.environ as pyo
import pytest

from schedrelax.errors import NoOptimalSolutionError
from schedrelax.solvers import SolveResult, SolveStatus, solve
from tests.solvers.conformance import lp_max_vertices, mip_knapsack, require_backend

MIP_BACKENDS = ("highs", "glpk", "cbc", "cvxpy", "cvxpy:HIGHS", "cvxpy:SCIPY")


def hard_knapsack(items=60, dimensions=5, seed=1):
    """A 60-item, 5-dimensional 0-1 knapsack with profits close to the summed weights, so
    every item is about as good as any other: HiGHS has not proved it optimal after 2 s."""
    rng = np.random.default_rng(seed)
    weights = rng.integers(20, 100, (dimensions, items))
    profits = weights.sum(axis=0) + rng.integers(-5, 6, items)
    m = pyo.ConcreteModel()
    m.take = pyo.Var(range(items), within=pyo.Binary)
    m.capacity = pyo.Constraint(
        range(dimensions),
        rule=lambda m, d: sum(int(weights[d, j]) * m.take[j] for j in range(items))
        <= int(weights[d].sum() // 2),
    )
    m.obj = pyo.Objective(
        expr=sum(int(profits[j]) * m.take[j] for j in range(items)), sense=pyo.maximize
    )
    return m, weights


@pytest.mark.parametrize("backend", MIP_BACKENDS)
def test_time_limit_is_never_reported_optimal(backend):
    # glpk only takes whole seconds, so it runs for 1 s here
    require_backend(backend, mip=True)
    model, weights = hard_knapsack()

    result = solve(model, backend, time_limit=0.01)

    assert result.status in (SolveStatus.FEASIBLE, SolveStatus.LIMIT_NO_SOLUTION), result.message
    if result.status is SolveStatus.FEASIBLE:
        take = np.array([model.take[j].value for j in range(weights.shape[1])])
        assert np.all(weights @ take <= weights.sum(axis=1) // 2 + 1e-6)
        assert result.objective == pytest.approx(pyo.value(model.obj))
        if result.best_bound is not None:  # a maximisation: the bound is above the incumbent
            assert result.best_bound >= result.objective - 1e-6
    else:
        assert result.objective is None


def integer_infeasible_unbounded_relaxation():
    """2x - 2y == 1 has no integer solution, while its relaxation is unbounded for max x + y."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(within=pyo.Integers)
    m.y = pyo.Var(within=pyo.Integers)
    m.odd = pyo.Constraint(expr=2 * m.x - 2 * m.y == 1)
    m.obj = pyo.Objective(expr=m.x + m.y, sense=pyo.maximize)
    return m


@pytest.mark.parametrize("backend", MIP_BACKENDS)
def test_mip_with_unbounded_relaxation_but_no_integer_point_is_not_unbounded(backend):
    # cbc itself calls this model "unbounded": it proved only the relaxation unbounded
    require_backend(backend, mip=True)
    result = solve(integer_infeasible_unbounded_relaxation(), backend)
    assert result.status in (SolveStatus.INFEASIBLE, SolveStatus.INFEASIBLE_OR_UNBOUNDED)


def unbounded_mip():
    """max x + y, x - y <= 1, x, y >= 0 integer: (t, t) for every integer t."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(within=pyo.NonNegativeIntegers)
    m.y = pyo.Var(within=pyo.NonNegativeIntegers)
    m.c = pyo.Constraint(expr=m.x - m.y <= 1)
    m.obj = pyo.Objective(expr=m.x + m.y, sense=pyo.maximize)
    return m


@pytest.mark.parametrize("backend", MIP_BACKENDS)
def test_unbounded_mip_has_no_optimum(backend):
    require_backend(backend, mip=True)
    result = solve(unbounded_mip(), backend)
    if backend == "cvxpy:SCIPY":
        # scipy.optimize.milp fails (status 4) on it; cvxpy raises and we report ERROR
        assert result.status is SolveStatus.ERROR
    else:
        assert result.status in (SolveStatus.UNBOUNDED, SolveStatus.INFEASIBLE_OR_UNBOUNDED)
    assert result.objective is None


@pytest.mark.parametrize("backend", ("highs", "glpk", "cbc", "cvxpy"))
def test_constraint_left_violated_by_fixed_variables_is_infeasible(backend):
    require_backend(backend)
    m = pyo.ConcreteModel()
    m.x = pyo.Var([1, 2], bounds=(0, 1))
    m.x.fix(1)
    m.c = pyo.Constraint(expr=m.x[1] + m.x[2] >= 3)
    m.obj = pyo.Objective(expr=m.x[1])
    assert solve(m, backend).status is SolveStatus.INFEASIBLE


def test_highs_thread_count_can_change_between_solves():
    # HiGHS keeps one scheduler per process; without a reset, a second thread count fails
    for threads in (1, 2, 1):
        assert solve(lp_max_vertices(), threads=threads).is_optimal


def test_highs_mip_gap_default_proves_the_optimum():
    result = solve(mip_knapsack())
    assert result.best_bound == pytest.approx(result.objective, abs=1e-6)


def test_result_carries_timings_and_version():
    result = solve(lp_max_vertices())
    assert result.solver == "highs"
    assert result.solver_version == highspy.Highs().version()
    assert result.build_seconds >= 0 and result.solve_seconds >= 0
    assert result.message == "Optimal"


def test_result_is_frozen():
    result = solve(lp_max_vertices())
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.objective = 0.0


def test_status_has_solution_only_for_optimal_and_feasible():
    with_solution = {status for status in SolveStatus if status.has_solution}
    assert with_solution == {SolveStatus.OPTIMAL, SolveStatus.FEASIBLE}


def test_feasible_result_is_not_optimal():
    result = SolveResult(SolveStatus.FEASIBLE, 10.0, 12.0, 0.0, 0.0, "highs", "1", "limit")
    assert not result.is_optimal
    with pytest.raises(NoOptimalSolutionError, match="incumbent 10; best bound 12"):
        result.require_optimal()


def test_presolve_infeasible_on_a_feasible_lp_is_checked_without_presolve():
    # SynchPack's LP1 (feasible: any schedule is a solution) on two tasks of lengths 1e-7 and 1e4,
    # an online sub-instance's residue beside a long task. Its column bounds reach 1e-11, and
    # HiGHS 1.13's presolve called it infeasible (CI, 2026-11-28); HiGHS 1.16's presolve solves it.
    # The answer must be the optimum, equal to a second solver's on the Pyomo model of the same rows.
    from schedrelax.instances import PackingInstance, PackingJob, PackingTask
    from schedrelax.instances._checks import derived_instances
    from schedrelax.models.synchpack_lp import build_lp1, lp1_program
    from schedrelax.solvers import solve_program

    with derived_instances():  # 1e-7 beside 1e4 is below the loader's resolution for a user's file
        inst = PackingInstance(capacities=[1.0], jobs=(PackingJob(tasks=(PackingTask(1.0, [0], 1e-7),)),
                                                       PackingJob(tasks=(PackingTask(1.0, [0], 1e4),))))
    highs = solve_program(lp1_program(inst), "highs").result
    assert highs.is_optimal, highs.message
    require_backend("cvxpy:CLARABEL")
    other = solve(build_lp1(inst), "cvxpy:CLARABEL")
    assert other.is_optimal
    assert highs.objective == pytest.approx(other.objective, rel=1e-6)
