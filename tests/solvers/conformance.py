"""A conformance suite of tiny LPs and MIPs with hand-checked optima, run against every back end
(as cvxpy's StandardTestLPs is): each case builds a fresh model and states what every back end
must report. The derivations are in the builders' docstrings; test_conformance.py re-derives the
MIP optima by enumeration and the LP optimum of `lp_max_vertices` from its vertices.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pyomo.environ as pyo
import pytest

from schedrelax.solvers import SolveStatus, available_solvers

#: every back end the suite runs against, when installed
BACKENDS = ("highs", "glpk", "cbc", "cvxpy", "cvxpy:CLARABEL", "cvxpy:HIGHS", "cvxpy:SCIPY")
#: back ends whose LP optimum is an interior-point approximation (plain "cvxpy" uses CLARABEL)
INTERIOR_POINT = {"cvxpy", "cvxpy:CLARABEL"}

_INFO = {info.name: info for info in available_solvers()}


def require_backend(name: str, mip: bool = False) -> None:
    """Skip the calling test when back end `name` is missing here or cannot solve MIPs."""
    info = _INFO[name]
    if not info.available:
        pytest.skip(f"solver {name!r} is not installed here ({info.install})")
    if mip and "integers" not in info.features:
        pytest.skip(f"solver {name!r} solves LPs only")


def tolerance(name: str) -> float:
    """Relative tolerance on objectives (and absolute on values) for back end `name`."""
    return 1e-5 if name in INTERIOR_POINT else 1e-6


@dataclass(frozen=True)
class Case:
    """One tiny problem and the outcome every back end must report."""

    build: Callable[[], pyo.ConcreteModel]
    status: SolveStatus
    mip: bool = False
    objective: float | None = None
    #: variable name -> value, for variables whose optimal value is unique
    values: dict[str, float] = field(default_factory=dict)
    #: constraint name -> shadow price, for LPs whose duals are unique
    duals: dict[str, float] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.build.__name__


def lp_equality_free() -> pyo.ConcreteModel:
    """min x + 2y + 3z; x + y + z == 4; x - y == 2; x, y free; z >= 0.

    By hand: x = y + 2 and z = 2 - 2y, so the objective is 8 - 3y, decreasing in y; z >= 0 caps
    y at 1: x = 3, y = 1, z = 0, objective 5. Duals: with z at its bound, x and y free,
    l1 + l2 = 1 and l1 - l2 = 2 give l1 = 1.5, l2 = -0.5 (objective = 1.5 b1 - 0.5 b2).
    """
    m = pyo.ConcreteModel()
    m.x = pyo.Var(within=pyo.Reals)
    m.y = pyo.Var(within=pyo.Reals)
    m.z = pyo.Var(within=pyo.NonNegativeReals)
    m.total = pyo.Constraint(expr=m.x + m.y + m.z == 4)
    m.difference = pyo.Constraint(expr=m.x - m.y == 2)
    m.obj = pyo.Objective(expr=m.x + 2 * m.y + 3 * m.z)
    return m


def lp_max_vertices() -> pyo.ConcreteModel:
    """max 3x + 2y; x + y <= 4; x + 3y <= 7; x <= 3; x, y >= 0.

    Vertices: (0,0) 0; (3,0) 9; (3,1) 11; (2.5,1.5) 10.5; (0,7/3) 14/3: the optimum is 11 at
    (3, 1), where x + y <= 4 and x <= 3 are tight. Duals: u1 = 2 (the y coefficient),
    u1 + u3 = 3 gives u3 = 1, and the slack row has u2 = 0.
    """
    m = pyo.ConcreteModel()
    m.x = pyo.Var(within=pyo.NonNegativeReals)
    m.y = pyo.Var(within=pyo.NonNegativeReals)
    m.c1 = pyo.Constraint(expr=m.x + m.y <= 4)
    m.c2 = pyo.Constraint(expr=m.x + 3 * m.y <= 7)
    m.c3 = pyo.Constraint(expr=m.x <= 3)
    m.obj = pyo.Objective(expr=3 * m.x + 2 * m.y, sense=pyo.maximize)
    return m


def lp_offset_negative_bounds() -> pyo.ConcreteModel:
    """min 2x + y + 10; -4 <= x + y <= 6 (one ranged row); x in [-3, 5]; y in [-2, 4].

    The bounds' corner (-3, -2) has x + y = -5 < -4, so the row is tight: y = -4 - x and the
    objective is x + 6, least at the smallest x allowed, x = -3 (y = -1 is within [-2, 4]):
    objective 3, the constant 10 included. Moving the row's lower bound to b gives y = b + 3 and
    objective b + 7: its dual is 1.
    """
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(-3, 5))
    m.y = pyo.Var(bounds=(-2, 4))
    m.row = pyo.Constraint(expr=pyo.inequality(-4, m.x + m.y, 6))
    m.obj = pyo.Objective(expr=2 * m.x + m.y + 10)
    return m


KNAPSACK_VALUES = (10, 13, 7, 8)
KNAPSACK_WEIGHTS = (4, 6, 3, 5)
KNAPSACK_CAPACITY = 10


def mip_knapsack() -> pyo.ConcreteModel:
    """0-1 knapsack: values (10, 13, 7, 8), weights (4, 6, 3, 5), capacity 10.

    The LP relaxation takes items by value/weight (2.5, 2.33, 2.17, 1.6): items 0 and 2 and half
    of item 1, worth 23.5. Among the feasible sets {0,1} = 23, {1,2} = 20, {0,3} = 18, {0,2} = 17,
    {2,3} = 15 (every set of 3 items weighs more than 10) the optimum is 23: items 0 and 1.
    """
    m = pyo.ConcreteModel()
    m.ITEMS = pyo.RangeSet(0, 3)
    m.take = pyo.Var(m.ITEMS, within=pyo.Binary)
    m.capacity = pyo.Constraint(
        expr=sum(w * m.take[i] for i, w in enumerate(KNAPSACK_WEIGHTS)) <= KNAPSACK_CAPACITY
    )
    m.obj = pyo.Objective(
        expr=sum(v * m.take[i] for i, v in enumerate(KNAPSACK_VALUES)), sense=pyo.maximize
    )
    return m


def mip_general_integers() -> pyo.ConcreteModel:
    """max 3x + 2y; 2x + 3y <= 12.5; 4x + y <= 10.2; x, y integer >= -2.

    LP optimum at the crossing x = 1.81, y = 2.96: 11.35. Integers, by x: x = 0, y <= 4: 8;
    x = 1, y <= 3: 9; x = 2, y <= 2: 10; x = 3, y <= -1.8 so y = -2: 5; x >= 4 forces y < -2.
    The optimum is 10 at (2, 2).
    """
    m = pyo.ConcreteModel()
    m.x = pyo.Var(within=pyo.Integers, bounds=(-2, None))
    m.y = pyo.Var(within=pyo.Integers, bounds=(-2, None))
    m.c1 = pyo.Constraint(expr=2 * m.x + 3 * m.y <= 12.5)
    m.c2 = pyo.Constraint(expr=4 * m.x + m.y <= 10.2)
    m.obj = pyo.Objective(expr=3 * m.x + 2 * m.y, sense=pyo.maximize)
    return m


def lp_infeasible() -> pyo.ConcreteModel:
    """x + y <= 1 and x + 2y >= 3 with 0 <= x, y <= 1: x + 2y <= 1 + y <= 2 < 3."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.y = pyo.Var(bounds=(0, 1))
    m.c1 = pyo.Constraint(expr=m.x + m.y <= 1)
    m.c2 = pyo.Constraint(expr=m.x + 2 * m.y >= 3)
    m.obj = pyo.Objective(expr=m.x)
    return m


def lp_unbounded() -> pyo.ConcreteModel:
    """max x + y; x - y <= 1; x, y >= 0: feasible at 0 and (t, t) is feasible for every t."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(within=pyo.NonNegativeReals)
    m.y = pyo.Var(within=pyo.NonNegativeReals)
    m.c = pyo.Constraint(expr=m.x - m.y <= 1)
    m.obj = pyo.Objective(expr=m.x + m.y, sense=pyo.maximize)
    return m


def lp_all_fixed() -> pyo.ConcreteModel:
    """Both variables fixed to 1: nothing is left to optimise, the objective is 1 + 5 = 6."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var([1, 2], bounds=(0, 1))
    m.x.fix(1)
    m.c = pyo.Constraint(expr=m.x[1] + m.x[2] >= 1)
    m.obj = pyo.Objective(expr=m.x[1] + 5)
    return m


CASES = (
    Case(
        lp_equality_free,
        SolveStatus.OPTIMAL,
        objective=5.0,
        values={"x": 3.0, "y": 1.0, "z": 0.0},
        duals={"total": 1.5, "difference": -0.5},
    ),
    Case(
        lp_max_vertices,
        SolveStatus.OPTIMAL,
        objective=11.0,
        values={"x": 3.0, "y": 1.0},
        duals={"c1": 2.0, "c2": 0.0, "c3": 1.0},
    ),
    Case(
        lp_offset_negative_bounds,
        SolveStatus.OPTIMAL,
        objective=3.0,
        values={"x": -3.0, "y": -1.0},
        duals={"row": 1.0},
    ),
    Case(
        mip_knapsack,
        SolveStatus.OPTIMAL,
        mip=True,
        objective=23.0,
        values={"take[0]": 1, "take[1]": 1, "take[2]": 0, "take[3]": 0},
    ),
    Case(
        mip_general_integers,
        SolveStatus.OPTIMAL,
        mip=True,
        objective=10.0,
        values={"x": 2, "y": 2},
    ),
    Case(lp_infeasible, SolveStatus.INFEASIBLE),
    Case(lp_unbounded, SolveStatus.UNBOUNDED),
    Case(lp_all_fixed, SolveStatus.OPTIMAL, objective=6.0),
)
