"""The one bridge from a linear Pyomo model to matrix form, shared by the HiGHS and cvxpy back ends.

Pyomo's `LinearStandardFormCompiler` (mixed form) gives the objective, the constraint matrix in
CSC and one row per constraint side; this module adds what the compiler leaves out (column bounds
and integrality, read from the variables) and writes solutions back into the variables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo
import scipy.sparse
from pyomo.core.base.constraint import ConstraintData
from pyomo.core.base.objective import ObjectiveData
from pyomo.core.base.var import VarData
from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler


@dataclass(frozen=True)
class LinearForm:
    """A linear (mixed-integer) program ``opt c @ x + offset, row_lower <= A x <= row_upper,
    col_lower <= x <= col_upper, x[integer] integral`` in the model's own objective sense.

    ``rows[i]`` is the Pyomo constraint of row i; a ranged constraint gives two one-sided rows.
    Variables that appear in no active constraint and not in the objective are not columns.
    """

    columns: list[VarData]
    c: np.ndarray
    offset: float
    maximize: bool
    A: scipy.sparse.csc_array
    row_lower: np.ndarray
    row_upper: np.ndarray
    rows: list[ConstraintData]
    col_lower: np.ndarray
    col_upper: np.ndarray
    integer: np.ndarray

    @property
    def is_mip(self) -> bool:
        """True when some column must take integer values."""
        return bool(self.integer.any())


def active_objective(model: pyo.ConcreteModel) -> ObjectiveData:
    """The model's single active objective; a ValueError names what is wrong otherwise."""
    objectives = list(model.component_data_objects(pyo.Objective, active=True))
    if len(objectives) != 1:
        names = ", ".join(o.name for o in objectives) or "none"
        raise ValueError(
            f"model {model.name!r} must have exactly one active objective, "
            f"found {len(objectives)} ({names})"
        )
    return objectives[0]


def column_data(var: VarData) -> tuple[float, float, bool]:
    """Bounds (+-inf when absent) and integrality of one variable, from its domain and bounds."""
    interval = var.domain.get_interval()
    if interval is None or interval[2] not in (0, 1):
        raise ValueError(
            f"variable {var.name!r} has domain {var.domain}, which is neither continuous "
            "nor integer; a linear solver cannot represent it"
        )
    lb, ub = var.bounds
    return (
        -np.inf if lb is None else float(lb),
        np.inf if ub is None else float(ub),
        interval[2] == 1,
    )


def compile_linear_form(model: pyo.ConcreteModel) -> LinearForm:
    """Compile a linear Pyomo model with one active objective into a `LinearForm`.

    Fixed variables are folded into the right-hand sides by the compiler. A nonlinear model
    raises Pyomo's InvalidExpressionError/InvalidConstraintError (both ValueErrors) naming the
    offending component; a constraint that is constant and violated raises Pyomo's
    InfeasibleConstraintException.
    """
    objective = active_objective(model)
    # set_sense=None keeps the objective's own sense, so objective values and bounds need no
    # sign flip on the way back.
    info = LinearStandardFormCompiler().write(model, mixed_form=True, set_sense=None)
    n = len(info.columns)
    # Columns in the variables' declaration order (the compiler orders them by first use): a
    # model built from arrays (schedrelax._matrix.to_pyomo) then reaches HiGHS exactly as the
    # arrays do, and HiGHS returns the same vertex of a degenerate LP on both routes. (Pyomo's own
    # column_order=True lists a variable twice when another is fixed: not used.)
    position = {id(v): k for k, v in enumerate(model.component_data_objects(pyo.Var, descend_into=True))}
    order = np.argsort([position[id(v)] for v in info.columns], kind="stable")
    columns = [info.columns[k] for k in order]
    A = scipy.sparse.csc_array(info.A)[:, order] if n else info.A
    c = info.c.toarray().ravel()[order] if n else np.zeros(0)
    bound_type = np.fromiter((row.bound_type for row in info.rows), dtype=np.int8)
    rhs = np.asarray(info.rhs, dtype=float)
    # mixed form: bound_type 0 is an equality row, 1 an upper (<=) row, -1 a lower (>=) row
    row_lower = np.where(bound_type <= 0, rhs, -np.inf)
    row_upper = np.where(bound_type >= 0, rhs, np.inf)
    col_lower = np.empty(n)
    col_upper = np.empty(n)
    integer = np.zeros(n, dtype=bool)
    for j, var in enumerate(columns):
        col_lower[j], col_upper[j], integer[j] = column_data(var)
    return LinearForm(
        columns=columns,
        c=c,
        offset=float(info.c_offset[0]),
        maximize=objective.sense == pyo.maximize,
        A=A,
        row_lower=row_lower,
        row_upper=row_upper,
        rows=[row.constraint for row in info.rows],
        col_lower=col_lower,
        col_upper=col_upper,
        integer=integer,
    )


def max_violation(form: LinearForm, x: np.ndarray) -> float:
    """The largest violation by `x` of a row, a column bound or integrality, each scaled by
    ``1 + |bound|``; for checking a point a back end returns without vouching for it."""
    activity = form.A @ x
    with np.errstate(invalid="ignore"):  # inf - inf on absent bounds gives nan, ignored below
        parts = [
            (form.row_lower - activity) / (1 + np.abs(form.row_lower)),
            (activity - form.row_upper) / (1 + np.abs(form.row_upper)),
            (form.col_lower - x) / (1 + np.abs(form.col_lower)),
            (x - form.col_upper) / (1 + np.abs(form.col_upper)),
            np.where(form.integer, np.abs(x - np.round(x)), 0.0),
        ]
    violations = np.concatenate([np.nan_to_num(p, nan=0.0, neginf=0.0) for p in parts])
    return float(violations.max(initial=0.0))


def load_values(columns: list[VarData], values) -> None:
    """Write solver values into the Pyomo variables, as the solver gave them.

    Integer columns keep the solver's value (within its integrality tolerance, e.g.
    0.9999999); readers should round.
    """
    for var, val in zip(columns, values):
        var.set_value(float(val), skip_validation=True)


def dual_suffix(model: pyo.ConcreteModel) -> pyo.Suffix | None:
    """The model's ``dual`` import Suffix, if the caller declared one to receive duals."""
    suffix = model.component("dual")
    if isinstance(suffix, pyo.Suffix) and suffix.import_enabled():
        return suffix
    return None


def load_duals(model: pyo.ConcreteModel, rows: list[ConstraintData], row_duals) -> None:
    """Store row duals into the model's ``dual`` Suffix (if any), one value per constraint.

    The two rows of a ranged constraint are summed: at most one of them is active.
    """
    suffix = dual_suffix(model)
    if suffix is None:
        return
    suffix.clear()
    for con, y in zip(rows, row_duals):
        suffix[con] = suffix.get(con, 0.0) + float(y)
