"""``highs:METHOD`` chooses HiGHS's LP algorithm by name."""

import pyomo.environ as pyo
import pytest

from schedrelax.errors import SolverNotAvailableError
from schedrelax.solvers import solve


def _lp() -> pyo.ConcreteModel:
    # min x + y s.t. x + 2y >= 4, 3x + y >= 6, x, y >= 0. Vertices of the feasible region:
    # (0, 6) -> 6, (8/5, 6/5) -> 14/5, (4, 0) -> 4; the optimum is 14/5 at (1.6, 1.2).
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, None))
    m.y = pyo.Var(bounds=(0, None))
    m.a = pyo.Constraint(expr=m.x + 2 * m.y >= 4)
    m.b = pyo.Constraint(expr=3 * m.x + m.y >= 6)
    m.obj = pyo.Objective(expr=m.x + m.y)
    return m


@pytest.mark.parametrize("name", ["highs:simplex", "highs:ipm", "highs:pdlp", "highs:choose"])
def test_every_method_reaches_the_hand_optimum(name):
    m = _lp()
    res = solve(m, solver=name)
    assert res.is_optimal
    tol = 1e-4 if name == "highs:pdlp" else 1e-7  # PDLP is a first-order method
    assert res.objective == pytest.approx(2.8, rel=tol)
    assert pyo.value(m.x) == pytest.approx(1.6, abs=10 * tol)


def test_an_unknown_method_is_an_unknown_solver():
    with pytest.raises(SolverNotAvailableError, match="unknown solver 'highs:barrier'"):
        solve(_lp(), solver="highs:barrier")
