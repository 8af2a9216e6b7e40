"""The separable resource allocation problem of paper 002 §3.2 as a Pyomo MIP (a cross-check).

One binary ``x[j, s]`` per job and allowed number of slots s in ``[lower_j, upper_j]``: exactly one
per job, ``Σ_j Σ_s s·x[j, s] <= S``; minimise ``Σ_j Σ_s F_j(s)·x[j, s]`` (minisum) or a variable
``z >= Σ_s F_j(s)·x[j, s]`` for every j (minimax). Exact for any F; its size is Σ_j (upper_j −
lower_j + 1) binaries, so it is meant for small cases, as an independent check of the
combinatorial solvers in :mod:`schedrelax.schedulers.rap`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyomo.environ as pyo
from pyomo.core.expr.numeric_expr import LinearExpression

from schedrelax.schedulers.rap import SlotCost

__all__ = ["build_rap_mip", "rap_mip_solution"]


def _lin(coefs: Sequence[float], variables: Sequence) -> LinearExpression:
    return LinearExpression(constant=0.0, linear_coefs=[float(c) for c in coefs], linear_vars=list(variables))


def build_rap_mip(F: SlotCost, lower: Sequence[int], upper: Sequence[int], capacity: int,
                  objective: str = "minisum") -> pyo.ConcreteModel:
    """The RAP ``min Σ F_j(s_j)`` or ``min max F_j(s_j)`` s.t. ``Σ s_j <= S``, ``lower <= s <= upper``
    (paper 002 §3.2) as a Pyomo MIP; ``F(jobs, slots)`` is evaluated element-wise."""
    if objective not in ("minisum", "minimax"):
        raise ValueError(f"objective must be 'minisum' or 'minimax', got {objective!r}")
    lo = np.asarray(lower, dtype=np.int64)
    hi = np.minimum(np.asarray(upper, dtype=np.int64), int(capacity))
    if (hi < lo).any():
        j = int(np.flatnonzero(hi < lo)[0])
        raise ValueError(f"job {j}: lower bound {lo[j]} exceeds its upper bound or the capacity")
    pairs = [(j, s) for j in range(len(lo)) for s in range(int(lo[j]), int(hi[j]) + 1)]
    js = np.array([p[0] for p in pairs], dtype=np.int64)
    ss = np.array([p[1] for p in pairs], dtype=np.int64)
    values = np.asarray(F(js, ss), dtype=float)

    m = pyo.ConcreteModel(name="rap")
    m.J = pyo.RangeSet(0, len(lo) - 1)
    m.pairs = pyo.Set(initialize=pairs, dimen=2, ordered=True)
    m.x = pyo.Var(m.pairs, within=pyo.Binary)
    by_job: list[list[int]] = [[] for _ in range(len(lo))]
    for i, (j, _) in enumerate(pairs):
        by_job[j].append(i)
    m.one = pyo.Constraint(m.J, rule=lambda m, j: _lin([1.0] * len(by_job[j]),
                                                       [m.x[pairs[i]] for i in by_job[j]]) == 1)
    m.capacity = pyo.Constraint(expr=_lin(ss, [m.x[p] for p in pairs]) <= int(capacity))

    def job_cost(j: int) -> LinearExpression:
        return _lin(values[by_job[j]], [m.x[pairs[i]] for i in by_job[j]])

    if objective == "minisum":
        m.obj = pyo.Objective(expr=_lin(values, [m.x[p] for p in pairs]))
    else:
        m.z = pyo.Var()
        m.bottleneck = pyo.Constraint(m.J, rule=lambda m, j: m.z >= job_cost(j))
        m.obj = pyo.Objective(expr=m.z)
    return m


def rap_mip_solution(model: pyo.ConcreteModel) -> np.ndarray:
    """The allocation s_j read from a solved :func:`build_rap_mip` model."""
    n = len(model.J)
    slots = np.zeros(n, dtype=np.int64)
    for (j, s) in model.pairs:
        if pyo.value(model.x[j, s]) > 0.5:
            slots[j] = s
    return slots
