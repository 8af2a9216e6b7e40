"""PersistentSolver and the cutting-plane driver on an exponential family we can enumerate.

The family is Queyranne's single-machine polyhedron: for every nonempty job set S,
``sum_{j in S} p_j C_j >= (p(S)^2 + sum_{j in S} p_j^2) / 2``. Its vertices are the completion
times of the permutation schedules, so ``min sum w_j C_j`` over it equals the value of Smith's
rule (order by p_j / w_j): a third check besides the full model with all 2^n - 1 rows.
"""

import itertools

import numpy as np
import pyomo.environ as pyo
import pytest

from schedrelax.solvers import PersistentSolver, SolveStatus, cutting_planes, solve
from schedrelax.solvers.cutting_planes import violation
from schedrelax.solvers.persistent import as_relational
from tests.solvers.conformance import require_backend

P = (3.0, 1.0, 4.0, 1.5, 5.0, 2.0, 2.5)
W = (2.0, 1.0, 1.0, 3.0, 2.5, 0.5, 1.5)
SUBSETS = [
    subset
    for size in range(1, len(P) + 1)
    for subset in itertools.combinations(range(len(P)), size)
]


def _rhs(subset):
    p = np.array([P[j] for j in subset])
    return 0.5 * (p.sum() ** 2 + (p**2).sum())


def single_machine_lp(all_rows=False):
    m = pyo.ConcreteModel()
    m.J = pyo.RangeSet(0, len(P) - 1)
    m.C = pyo.Var(m.J, within=pyo.NonNegativeReals)
    m.obj = pyo.Objective(expr=sum(W[j] * m.C[j] for j in m.J))
    if all_rows:
        m.family = pyo.Constraint(
            range(len(SUBSETS)),
            rule=lambda m, k: sum(P[j] * m.C[j] for j in SUBSETS[k]) >= _rhs(SUBSETS[k]),
        )
    return m


def brute_force_separation(model, most=3):
    """The `most` subsets whose inequality is most violated, as (expression, lower bound)."""
    C = [model.C[j].value for j in model.J]
    scored = sorted(
        ((_rhs(s) - sum(P[j] * C[j] for j in s), s) for s in SUBSETS), reverse=True
    )
    return [
        (sum(P[j] * model.C[j] for j in s), _rhs(s)) for gap, s in scored[:most] if gap > 0
    ]


def smith_rule_value():
    order = sorted(range(len(P)), key=lambda j: P[j] / W[j])
    completion = np.cumsum([P[j] for j in order])
    return float(sum(W[j] * c for j, c in zip(order, completion)))


@pytest.mark.parametrize("backend", ("highs", "glpk", "cbc", "cvxpy", "cvxpy:HIGHS"))
def test_cut_loop_reaches_the_full_model_optimum(backend):
    require_backend(backend)
    model = single_machine_lp()

    loop = cutting_planes(model, brute_force_separation, backend)

    assert loop.converged and loop.result.is_optimal
    full = single_machine_lp(all_rows=True)
    optimum = solve(full, backend).require_optimal().objective
    tol = 1e-5 if backend == "cvxpy" else 1e-6
    assert loop.result.objective == pytest.approx(optimum, rel=tol)
    assert optimum == pytest.approx(smith_rule_value(), rel=tol)
    C = [model.C[j].value for j in model.J]
    for subset in SUBSETS:
        lhs = sum(P[j] * C[j] for j in subset)
        assert lhs >= _rhs(subset) * (1 - tol) - tol, subset
    assert loop.rounds > 1
    assert loop.cuts_added == len(model.cuts) < len(SUBSETS)
    if backend == "highs":
        assert loop.builds == 1  # rows were added to the same HiGHS model
    else:
        assert loop.builds == loop.rounds


def test_persistent_highs_adds_columns_for_new_variables_with_their_integrality():
    # y appears in no row and not in the objective, so it is not a HiGHS column at first
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.y = pyo.Var(within=pyo.Integers, bounds=(0, 10))
    m.obj = pyo.Objective(expr=m.x)
    solver = PersistentSolver(m)
    assert solver.persistent
    assert solver.solve().objective == pytest.approx(0.0)

    solver.add_constraints([m.x + m.y >= 3, (-m.y, -2.5)])  # y <= 2.5, so y <= 2 and x >= 1
    result = solver.solve()

    assert result.is_optimal
    assert result.objective == pytest.approx(1.0)
    assert m.y.value == pytest.approx(2.0)
    assert solver.builds == 1
    assert [c.upper for c in m.cuts.values()] == [None, None]


def test_constraints_added_before_the_first_solve_are_loaded_with_the_model():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 5))
    m.obj = pyo.Objective(expr=m.x)
    solver = PersistentSolver(m, cut_list="lazy")
    added = solver.add_constraints([m.x >= 2])
    assert added[0] is m.lazy[1]
    assert solver.solve().objective == pytest.approx(2.0)
    assert solver.builds == 1


def test_non_persistent_back_end_rebuilds_each_solve():
    require_backend("cvxpy")
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 5))
    m.obj = pyo.Objective(expr=m.x)
    solver = PersistentSolver(m, "cvxpy:HIGHS")
    assert not solver.persistent
    solver.solve()
    solver.add_constraints([m.x >= 2])
    assert solver.solve().objective == pytest.approx(2.0)
    assert solver.builds == 2


def test_cut_list_name_taken_by_another_component():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.cuts = pyo.Param(initialize=1)
    m.obj = pyo.Objective(expr=m.x)
    with pytest.raises(ValueError, match="already has a component 'cuts' of type"):
        PersistentSolver(m)


def test_a_cut_must_be_relational_or_a_pair():
    m = pyo.ConcreteModel()
    m.x = pyo.Var()
    with pytest.raises(TypeError, match="relational expression"):
        as_relational(m.x + 1)
    pair = as_relational((m.x, 2))
    m.x.value = 1.5
    assert violation(pair) == pytest.approx(0.5)  # x >= 2 violated by 0.5


def test_violation_of_each_relation_kind():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(initialize=3.0)
    assert violation(m.x <= 1) == pytest.approx(2.0)
    assert violation(m.x >= 1) == pytest.approx(-2.0)
    assert violation(m.x == 5) == pytest.approx(2.0)
    assert violation(pyo.inequality(4, m.x, 6)) == pytest.approx(1.0)


def test_cuts_within_tolerance_end_the_loop():
    # C[0] = 0 at the first solve: C[0] >= 1e-7 is violated by 1e-7 only, less than tol
    loop = cutting_planes(single_machine_lp(), lambda m: [m.C[0] >= 1e-7], tol=1e-6)
    assert loop.converged and loop.rounds == 1 and loop.cuts_added == 0


def test_max_rounds_stops_an_unfinished_loop():
    loop = cutting_planes(single_machine_lp(), brute_force_separation, max_rounds=2)
    assert not loop.converged
    assert loop.rounds == 2
    assert loop.cuts_added > 0


def test_loop_stops_when_a_cut_makes_the_model_infeasible():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.obj = pyo.Objective(expr=m.x)
    loop = cutting_planes(m, lambda model: [model.x >= 2])
    assert loop.result.status is SolveStatus.INFEASIBLE
    assert not loop.converged and loop.rounds == 2


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"tol": -1.0}, "tol must be a number >= 0, got -1.0"),
        ({"max_rounds": 0}, "max_rounds must be a positive integer, got 0"),
    ],
)
def test_driver_arguments_are_checked(kwargs, message):
    with pytest.raises(ValueError, match=message):
        cutting_planes(single_machine_lp(), brute_force_separation, **kwargs)


def test_separation_must_be_callable():
    with pytest.raises(TypeError, match="separation must be callable"):
        cutting_planes(single_machine_lp(), [])
