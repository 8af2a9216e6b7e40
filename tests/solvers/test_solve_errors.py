"""Argument checks of solve(): each error names the thing that is wrong."""

import math

import pyomo.environ as pyo
import pytest

from schedrelax.errors import NoOptimalSolutionError, SolverError, SolverNotAvailableError
from schedrelax.solvers import available_solvers, solve
from tests.solvers.conformance import lp_infeasible, lp_max_vertices, mip_knapsack, require_backend


def test_unknown_solver_lists_the_installed_names_and_counts_the_others():
    with pytest.raises(SolverNotAvailableError) as error:
        solve(lp_max_vertices(), "hihgs")
    message = str(error.value)
    assert "'hihgs'" in message
    infos = [info for info in available_solvers() if ":" not in info.name]
    installed = [info.name for info in infos if info.available]
    assert f"installed here: {', '.join(installed[:1])}" in message
    for name in installed:
        assert name in message
    for info in infos:
        if not info.available:
            assert f"{info.name}," not in message and f" {info.name} " not in message
    assert f"({len(infos) - len(installed)} other known solvers are not installed" in message


def test_unknown_cvxpy_solver_is_unknown():
    with pytest.raises(SolverNotAvailableError, match="unknown solver 'cvxpy:NOPE'"):
        solve(lp_max_vertices(), "cvxpy:NOPE")


def test_known_but_missing_solver_says_how_to_install_it():
    missing = [info for info in available_solvers() if not info.available]
    if not missing:
        pytest.skip("every known solver is installed here")
    info = missing[0]
    with pytest.raises(SolverNotAvailableError) as error:
        solve(lp_max_vertices(), info.name)
    assert f"{info.name!r} is known but not installed" in str(error.value)
    assert info.install in str(error.value)


def test_glpk_install_hint_names_the_package():
    info = next(info for info in available_solvers() if info.name == "glpk")
    assert "apt-get install glpk-utils" in info.install


@pytest.mark.parametrize(
    "param, value",
    [
        ("time_limit", 0),
        ("time_limit", -1.5),
        ("time_limit", math.inf),
        ("time_limit", math.nan),
        ("time_limit", "10"),
        ("time_limit", True),
        ("mip_gap", -0.01),
        ("mip_gap", "small"),
        ("threads", 0),
        ("threads", 1.5),
        ("threads", True),
    ],
)
def test_bad_limit_names_parameter_and_value(param, value):
    with pytest.raises(ValueError) as error:
        solve(lp_max_vertices(), **{param: value})
    assert param in str(error.value)
    assert repr(value) in str(error.value)


def test_zero_mip_gap_is_allowed():
    assert solve(mip_knapsack(), mip_gap=0).is_optimal


def test_solver_name_is_checked_before_the_limits():
    with pytest.raises(SolverNotAvailableError):
        solve(lp_max_vertices(), "nope", time_limit=-1)


def test_model_without_objective():
    model = lp_max_vertices()
    model.obj.deactivate()
    with pytest.raises(ValueError, match="exactly one active objective, found 0"):
        solve(model)


def test_model_with_two_objectives_names_them():
    model = lp_max_vertices()
    model.second = pyo.Objective(expr=model.x)
    with pytest.raises(ValueError, match=r"found 2 \(obj, second\)"):
        solve(model)


def test_not_a_model():
    with pytest.raises(TypeError, match="ConcreteModel"):
        solve("model.lp")


def test_nonlinear_model_is_rejected_by_name():
    model = lp_max_vertices()
    model.curve = pyo.Constraint(expr=model.x * model.y <= 2)
    with pytest.raises(ValueError, match="curve"):
        solve(model)


def test_unknown_highs_option_is_named():
    with pytest.raises(ValueError, match="no_such_option"):
        solve(lp_max_vertices(), no_such_option=3)


def test_glpk_has_no_threads_option():
    require_backend("glpk")
    with pytest.raises(ValueError, match="'glpk' has no threads option; got threads=2"):
        solve(lp_max_vertices(), "glpk", threads=2)


def test_lp_only_cvxpy_solver_refuses_integers():
    require_backend("cvxpy:CLARABEL")
    with pytest.raises(SolverError, match="'cvxpy:CLARABEL' cannot handle integer variables"):
        solve(mip_knapsack(), "cvxpy:CLARABEL")


def test_require_optimal_names_solver_and_status():
    result = solve(lp_infeasible())
    with pytest.raises(NoOptimalSolutionError, match="'highs' ended with status 'infeasible'"):
        result.require_optimal()


def test_require_optimal_returns_the_result_when_optimal():
    result = solve(lp_max_vertices())
    assert result.require_optimal() is result
