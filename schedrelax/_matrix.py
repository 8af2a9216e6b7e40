"""A linear program as arrays: the form the relaxation builders assemble before any modelling layer.

The builders of :mod:`schedrelax.models` compute their rows as sparse matrices anyway; a
:class:`MatrixProgram` keeps them (objective, rows, column bounds) with the names of the variable
and constraint blocks, so that

* :func:`to_pyomo` turns it into the Pyomo model a user prints, edits and hands to any solver
  (``build_lp2`` etc. return that model: the one definition), and
* :func:`schedrelax.solvers.solve_program` can hand the same arrays straight to HiGHS, skipping
  the build of Pyomo objects and Pyomo's standard-form compiler, which cost more than the solve
  (0.14 s + 0.18 s around a 0.19 s solve of a 50,000-column LP2).

A test (``tests/test_matrix.py``) compiles the Pyomo model back with Pyomo's own standard-form
compiler and checks that matrix, bounds and objective equal the program's, for every builder.

Neutral module: numpy and SciPy at import; Pyomo only inside :func:`to_pyomo`. Models and solvers
both import it (like :mod:`schedrelax._ortools`), so neither imports the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True, eq=False)
class MatrixProgram:
    """``min c @ x + offset  s.t.  row_lower <= A @ x <= row_upper,  col_lower <= x <= col_upper``.

    ``var_blocks[name] = (first, count)``: the columns of the Pyomo variable *name* (indexed
    0..count-1), in order; ``row_blocks[name] = (first, count)``: the rows of the Pyomo constraint
    *name*. ``±inf`` marks a missing bound. ``meta`` carries what a solution reader needs (e.g. the
    layout of an interval LP); it becomes the Pyomo model's ``layout`` attribute.
    """

    name: str
    c: np.ndarray
    offset: float
    A: sp.csr_array
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    var_blocks: Mapping[str, tuple[int, int]]
    row_blocks: Mapping[str, tuple[int, int]]
    meta: Any = None

    @property
    def n_cols(self) -> int:
        return len(self.c)

    @property
    def n_rows(self) -> int:
        return self.A.shape[0]

    def block(self, x: np.ndarray, name: str) -> np.ndarray:
        """The values of variable block *name* in a solution *x* of all columns."""
        first, count = self.var_blocks[name]
        return np.asarray(x[first:first + count], dtype=float)


@dataclass
class ProgramBuilder:
    """Collects variable blocks, row blocks and the objective of a :class:`MatrixProgram`.

    ``var`` returns the block's first column; rows are given as sparse matrices over all columns
    declared so far (a later block's columns must not appear), or over ``n_cols`` given at
    :meth:`finish` time when ``width`` is left to it.
    """

    name: str
    _lower: list = field(default_factory=list)
    _upper: list = field(default_factory=list)
    _vars: dict = field(default_factory=dict)
    _rows: list = field(default_factory=list)
    _row_blocks: dict = field(default_factory=dict)
    _n: int = 0
    _m: int = 0
    _c: list = field(default_factory=list)
    _offset: float = 0.0

    def var(self, name: str, count: int, lower=-np.inf, upper=np.inf) -> int:
        """Declare variable block *name* of *count* columns with bounds (scalars or arrays)."""
        if name in self._vars:
            raise ValueError(f"variable block {name!r} declared twice")
        first = self._n
        self._vars[name] = (first, int(count))
        self._lower.append(np.broadcast_to(np.asarray(lower, dtype=float), (count,)).copy())
        self._upper.append(np.broadcast_to(np.asarray(upper, dtype=float), (count,)).copy())
        self._n += int(count)
        return first

    def rows(self, name: str, A, lower, upper) -> None:
        """Add row block *name*: ``lower <= A @ x <= upper`` (A over the columns declared so far,
        or fewer: it is widened with empty columns)."""
        if name in self._row_blocks:
            raise ValueError(f"row block {name!r} added twice")
        A = sp.csr_array(A)
        if A.shape[1] > self._n:
            raise ValueError(f"row block {name!r} has {A.shape[1]} columns; only {self._n} are declared")
        k = A.shape[0]
        lo = np.broadcast_to(np.asarray(lower, dtype=float), (k,)).copy()
        hi = np.broadcast_to(np.asarray(upper, dtype=float), (k,)).copy()
        self._row_blocks[name] = (self._m, k)
        self._rows.append((A, lo, hi))
        self._m += k

    def objective(self, columns: np.ndarray, coefs: np.ndarray, offset: float = 0.0) -> None:
        """Add ``Σ coefs[k] x[columns[k]] + offset`` to the objective (minimised)."""
        columns = np.asarray(columns, dtype=np.int64)
        self._c.append((columns, np.broadcast_to(np.asarray(coefs, dtype=float), columns.shape)))
        self._offset += float(offset)

    def finish(self, meta: Any = None) -> MatrixProgram:
        n = self._n
        c = np.zeros(n)
        for idx, coefs in self._c:
            np.add.at(c, idx, coefs)
        blocks = [sp.csr_array((A.data, A.indices, A.indptr), shape=(A.shape[0], n)) for A, _, _ in self._rows]
        A = sp.csr_array(sp.vstack(blocks, format="csr")) if blocks else sp.csr_array((0, n))
        A.sum_duplicates()
        empty = np.zeros(0)
        return MatrixProgram(
            name=self.name, c=c, offset=self._offset, A=A,
            row_lower=np.concatenate([lo for _, lo, _ in self._rows]) if self._rows else empty,
            row_upper=np.concatenate([hi for _, _, hi in self._rows]) if self._rows else empty,
            col_lower=np.concatenate(self._lower) if self._lower else empty,
            col_upper=np.concatenate(self._upper) if self._upper else empty,
            var_blocks=dict(self._vars), row_blocks=dict(self._row_blocks), meta=meta)


def to_pyomo(program: MatrixProgram):
    """The Pyomo model of *program*: one ``Var`` per variable block (indexed 0..count-1, with the
    program's bounds), one ``Constraint`` per row block (an equality where lower == upper), and
    ``objective`` (minimise). Rows are built straight from the CSR arrays as LinearExpressions;
    a coefficient of exactly 1 enters as the bare variable (Pyomo's monomial objects cost
    microseconds each). ``model.layout`` is the program's ``meta``."""
    import pyomo.environ as pyo
    from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression

    m = pyo.ConcreteModel(name=program.name)
    lo = [None if not np.isfinite(v) else float(v) for v in program.col_lower]
    hi = [None if not np.isfinite(v) else float(v) for v in program.col_upper]
    columns: list = []
    for name, (first, count) in program.var_blocks.items():
        var = pyo.Var(range(count), bounds=lambda _, k, f=first: (lo[f + k], hi[f + k]))
        m.add_component(name, var)
        columns.extend(var.values())
    A = program.A
    ptr, ind, val = A.indptr.tolist(), A.indices.tolist(), A.data.tolist()
    terms = [columns[k] if v == 1.0 else MonomialTermExpression((v, columns[k])) for k, v in zip(ind, val)]
    rlo = [None if not np.isfinite(v) else float(v) for v in program.row_lower]
    rhi = [None if not np.isfinite(v) else float(v) for v in program.row_upper]
    for name, (first, count) in program.row_blocks.items():
        def rule(_, r, f=first):
            body = LinearExpression(args=terms[ptr[f + r]:ptr[f + r + 1]])
            if rlo[f + r] is not None and rlo[f + r] == rhi[f + r]:
                return (body, rlo[f + r])
            return (rlo[f + r], body, rhi[f + r])
        m.add_component(name, pyo.Constraint(range(count), rule=rule))
    nz = np.flatnonzero(program.c)
    m.objective = pyo.Objective(expr=LinearExpression(constant=float(program.offset),
                                                      linear_coefs=program.c[nz].tolist(),
                                                      linear_vars=[columns[k] for k in nz.tolist()]))
    m.layout = program.meta
    return m


AT_LOWER, BASIC, AT_UPPER = 0, 1, 2
"""Basis statuses in an :class:`LPEdit` (HiGHS's numbering): nonbasic at the lower bound, basic,
nonbasic at the upper bound."""


@dataclass(frozen=True, eq=False)
class LPEdit:
    """Changes to an LP a solver loop holds: deletions, then bound changes and additions.

    Before the edit the LP has ``n_cols`` columns and ``n_rows`` rows. The edit first deletes the
    columns ``drop_cols`` and rows ``drop_rows`` (indices before the edit; the rest keep their
    order and are renumbered from 0, and every other index of the edit is in that numbering); it
    then changes the bounds of existing columns ``bound_cols`` to ``bound_lower``/``bound_upper``
    and of existing rows ``row_bound_rows`` to ``row_bound_lower``/``row_bound_upper``, appends columns
    (``col_lower``/``col_upper``, cost 0) and rows (``row_lower``/``row_upper``), and the
    nonzeros ``entries = (row, col, value)`` in the indices after the edit; each entry lies in a
    new row or a new column (existing entries are never changed). ``col_status``/``row_status``
    are a basis of the edited LP (:data:`BASIC`, :data:`AT_LOWER`, :data:`AT_UPPER` for every
    column and row), built from the solver's basis before the edit so that the edited LP's dual
    simplex starts where the last solve ended; ``cuts`` counts the cuts the edit adds.
    """

    n_cols: int
    n_rows: int
    bound_cols: np.ndarray
    bound_lower: np.ndarray
    bound_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    entries: tuple[np.ndarray, np.ndarray, np.ndarray]
    col_status: np.ndarray
    row_status: np.ndarray
    cuts: int = 0
    drop_cols: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    drop_rows: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    row_bound_rows: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    row_bound_lower: np.ndarray = field(default_factory=lambda: np.empty(0))
    row_bound_upper: np.ndarray = field(default_factory=lambda: np.empty(0))


def vertex_statuses(program: MatrixProgram, x: np.ndarray, tol: float = 1e-9) -> tuple[np.ndarray, np.ndarray]:
    """Basis statuses read off a point *x* of *program* (a warm-start hint for a later, similar LP).

    A column strictly inside its bounds is :data:`BASIC`, one on a bound (within *tol*, relative
    to the bound's size) is nonbasic there; a row's activity ``A @ x`` likewise (a row at neither
    bound is basic: its slack is). At a nondegenerate vertex this is the vertex's basis, with as
    many basics as rows; at a degenerate one it has fewer, and a solver given it as an *alien*
    basis (HiGHS) completes it. Reading it costs a matrix-vector product, not a call into the
    solver: on LP3 of a 300-job online sub-instance (650 rows, 6,300 columns) HiGHS's own
    ``getBasis`` took 1.6 ms against a 4 ms warm solve, and the statuses read off the vertex gave
    the same simplex iteration counts (5,423 over 39 consecutive re-plans).
    """
    x = np.asarray(x, dtype=float)
    if x.shape != (program.n_cols,):
        raise ValueError(f"x has shape {x.shape}; the program has {program.n_cols} columns")
    return (_statuses(x, program.col_lower, program.col_upper, tol),
            _statuses(program.A @ x, program.row_lower, program.row_upper, tol))


def _statuses(value: np.ndarray, lower: np.ndarray, upper: np.ndarray, tol: float) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        at_lower = value <= lower + tol * np.maximum(1.0, np.abs(lower))
        at_upper = value >= upper - tol * np.maximum(1.0, np.abs(upper))
    return np.where(at_lower, AT_LOWER, np.where(at_upper, AT_UPPER, BASIC)).astype(np.int64)
