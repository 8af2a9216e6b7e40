"""The rule every exact algorithm follows before it calls its schedule optimal (rounding/exact.py)."""

from __future__ import annotations

import pytest

from schedrelax.rounding.exact import exact_outcome, larger_bound
from schedrelax.solvers.result import SolveResult, SolveStatus


def _res(status: SolveStatus, objective: float, bound: float) -> SolveResult:
    return SolveResult(status=status, objective=objective, best_bound=bound, build_seconds=0.0, solve_seconds=0.0,
                       solver="highs", solver_version="test", message="")


def test_optimal_needs_the_returned_schedule_to_meet_the_bound():
    # The solver proved 0 for its own solution; the rebuilt schedule costs 8.566 (issue 13, item 2).
    out = exact_outcome(8.566, 0.0, 0.0, _res(SolveStatus.OPTIMAL, 0.0, 0.0))
    assert not out["optimal"] and out["status"] == "feasible" and out["solver_status"] == "optimal"
    assert not out["schedule_keeps_mip_objective"]
    out = exact_outcome(5.0, 5.0, 5.0 - 1e-9, _res(SolveStatus.OPTIMAL, 5.0, 5.0 - 1e-9))
    assert out["optimal"] and out["status"] == "optimal"


def test_a_time_limit_is_optimal_only_when_the_cost_meets_the_bound():
    limited = _res(SolveStatus.FEASIBLE, 10.0, 8.0)  # stopped by a limit with a gap
    out = exact_outcome(10.0, 10.0, 8.0, limited)
    assert not out["optimal"] and out["status"] == "feasible"
    # A schedule cheaper than the solver's incumbent that meets the bound is proven optimal.
    assert exact_outcome(8.0, 10.0, 8.0, limited)["optimal"]


def test_a_solver_without_a_solution_leaves_the_returned_start_feasible():
    # The time limit stopped the solver before it found anything; the exact algorithm returns its
    # verified start (cost 12) with the relaxation's bound 9: feasible, not the solver's "no solution".
    res = _res(SolveStatus.LIMIT_NO_SOLUTION, None, None)
    out = exact_outcome(12.0, float("inf"), 9.0, res)
    assert out["status"] == "feasible" and not out["optimal"]
    assert out["solver_status"] == SolveStatus.LIMIT_NO_SOLUTION.value
    # ... and optimal when the bound meets the start's cost.
    assert exact_outcome(12.0, float("inf"), 12.0, res)["status"] == "optimal"


@pytest.mark.parametrize("bound", [None, float("-inf")])
def test_no_bound_or_a_restricted_model_proves_nothing(bound):
    res = _res(SolveStatus.OPTIMAL, 3.0, 3.0)
    assert not exact_outcome(3.0, 3.0, bound, res)["optimal"]
    assert not exact_outcome(3.0, 3.0, 3.0, res, exact=False)["optimal"]


def test_a_solver_optimum_within_a_requested_gap_is_not_called_optimal():
    # mip_gap=0.1: the back end reports OPTIMAL with a 10 % gap; the schedule is not proven optimal.
    out = exact_outcome(11.0, 11.0, 10.0, _res(SolveStatus.OPTIMAL, 11.0, 10.0))
    assert not out["optimal"] and out["status"] == "feasible"


def test_the_larger_of_the_solver_and_relaxation_bounds_is_reported_with_its_name():
    from types import SimpleNamespace

    lp2 = SimpleNamespace(lower_bound=7.0, bound_kind="LP2 optimum (paper 003 §4)")
    assert larger_bound(_res(SolveStatus.FEASIBLE, 10.0, 6.5), lp2) == (7.0, "LP2 optimum (paper 003 §4)")
    assert larger_bound(_res(SolveStatus.FEASIBLE, 10.0, 8.0), lp2) == (8.0, "MIP dual bound (highs)")
    assert larger_bound(_res(SolveStatus.FEASIBLE, 10.0, 8.0), None) == (8.0, "MIP dual bound (highs)")
    no_bound = SolveResult(status=SolveStatus.LIMIT_NO_SOLUTION, objective=None, best_bound=None, build_seconds=0.0,
                           solve_seconds=0.0, solver="highs", solver_version="test", message="")
    assert larger_bound(no_bound, SimpleNamespace(lower_bound=None, bound_kind=None)) == (None, None)
