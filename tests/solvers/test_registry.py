"""available_solvers() and the matrix bridge every non-Pyomo back end is fed from."""

import highspy
import numpy as np
import pyomo.environ as pyo
import pytest

from schedrelax.errors import SolverError
from schedrelax.solvers import available_solvers, solve
from schedrelax.solvers.standard_form import compile_linear_form, max_violation
from tests.solvers.conformance import lp_offset_negative_bounds, mip_knapsack


def test_available_solvers_lists_highs_with_its_features_and_version():
    infos = {info.name: info for info in available_solvers()}
    highs = infos["highs"]
    assert highs.available
    assert highs.version == highspy.Highs().version()
    assert highs.features == {"integers", "duals", "persistent"}
    for name in ("glpk", "cbc", "gurobi", "cplex", "scip", "cvxpy"):
        assert name in infos
        assert "persistent" not in infos[name].features
    if infos["cvxpy"].available:
        assert "integers" not in infos["cvxpy:CLARABEL"].features
        assert "integers" in infos["cvxpy:HIGHS"].features


def test_unavailable_solvers_have_no_version_but_an_install_hint():
    for info in available_solvers():
        assert info.install
        if not info.available:
            assert info.version is None


def test_every_listed_available_solver_solves_a_tiny_lp():
    # what `schedrelax list` calls available must really work
    for info in available_solvers():
        if info.available and "integer_only" in info.features:
            # an integer engine (cpsat) refuses a model with continuous variables, saying what it solves
            with pytest.raises(SolverError, match="over the integers only"):
                solve(lp_offset_negative_bounds(), info.name)
        elif info.available:
            assert solve(lp_offset_negative_bounds(), info.name).objective == pytest.approx(
                3.0, rel=1e-3
            ), info.name


def test_compiled_form_keeps_sense_offset_bounds_and_ranged_rows():
    form = compile_linear_form(lp_offset_negative_bounds())
    assert not form.maximize and not form.is_mip
    assert form.offset == 10.0
    assert list(form.c) == [2.0, 1.0]
    assert list(form.col_lower) == [-3.0, -2.0] and list(form.col_upper) == [5.0, 4.0]
    # the ranged row -4 <= x + y <= 6 becomes one upper and one lower row
    assert sorted(zip(form.row_lower, form.row_upper)) == [(-np.inf, 6.0), (-4.0, np.inf)]
    assert [con.name for con in form.rows] == ["row", "row"]


def test_compiled_form_of_a_maximising_mip():
    form = compile_linear_form(mip_knapsack())
    assert form.maximize and form.is_mip
    assert list(form.c) == [10.0, 13.0, 7.0, 8.0]  # the model's own sense, not negated
    assert list(form.col_lower) == [0.0] * 4 and list(form.col_upper) == [1.0] * 4


def test_domain_that_is_neither_continuous_nor_integer_is_rejected():
    m = pyo.ConcreteModel()
    m.even = pyo.Var(within=pyo.RangeSet(0, 10, 2))
    m.c = pyo.Constraint(expr=m.even >= 3)
    m.obj = pyo.Objective(expr=m.even)
    with pytest.raises(ValueError, match="'even' has domain"):
        solve(m)


def test_max_violation_scales_rows_bounds_and_integrality():
    form = compile_linear_form(mip_knapsack())  # weights 4,6,3,5 <= 10, binaries
    assert max_violation(form, np.array([1.0, 1.0, 0.0, 0.0])) == 0.0
    # weight 13 against capacity 10: (13 - 10) / (1 + 10)
    assert max_violation(form, np.array([1.0, 1.0, 1.0, 0.0])) == pytest.approx(3 / 11)
    assert max_violation(form, np.array([0.5, 0.0, 0.0, 0.0])) == pytest.approx(0.5)
    assert max_violation(form, np.array([0.0, 0.0, 0.0, 2.0])) == pytest.approx(0.5)


def test_compiled_columns_come_in_declaration_order_with_fixed_variables_folded():
    # Declared y, x[0], x[1], x[2], u; used first x[2], x[0], x[1] (fixed at 3), y; u nowhere.
    # The rows: x2 + x0 + 2 x1 + y >= 5 with x1 = 3 is x2 + x0 + y >= -1. Pyomo's own
    # column_order=True listed x[0] twice here (pyomo 6.10); our ordering must not.
    from schedrelax.solvers.standard_form import compile_linear_form

    m = pyo.ConcreteModel()
    m.y = pyo.Var(bounds=(0, 1))
    m.x = pyo.Var([0, 1, 2], bounds=(0, 10))
    m.x[1].fix(3)
    m.u = pyo.Var(within=pyo.Integers)
    m.c = pyo.Constraint(expr=m.x[2] + m.x[0] + 2 * m.x[1] + m.y >= 5)
    m.o = pyo.Objective(expr=m.x[0] + 3 * m.x[2])
    f = compile_linear_form(m)
    assert [v.name for v in f.columns] == ["y", "x[0]", "x[2]"]
    assert f.c.tolist() == [0.0, 1.0, 3.0]
    assert f.A.toarray().tolist() == [[1.0, 1.0, 1.0]] and f.row_lower.tolist() == [-1.0]
