"""The default back end: HiGHS through highspy, fed from `standard_form.compile_linear_form`.

The model is passed to HiGHS as one `HighsLp` built from the compiled matrices: on a
5,000-variable transportation LP this measured 2-5x faster than Pyomo's own persistent HiGHS
interface (see benchmarks/test_solver_overhead.py). The HiGHS object is kept, so constraints
added later become new rows and HiGHS re-solves from its previous basis.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import replace

import highspy
import numpy as np
import pyomo.environ as pyo
from pyomo.core.base.constraint import ConstraintData
from pyomo.core.base.var import VarData
from pyomo.repn import generate_standard_repn

from schedrelax._log import solver_log_enabled
from schedrelax.errors import AlgorithmError
from schedrelax.solvers.result import SolveResult, SolveStatus
from schedrelax.solvers.standard_form import (
    column_data,
    compile_linear_form,
    dual_suffix,
    load_duals,
    load_values,
)

_STATUS = highspy.HighsModelStatus
_PROVEN = {
    _STATUS.kOptimal: SolveStatus.OPTIMAL,
    # An empty model (every variable fixed, no rows left) is trivially optimal.
    _STATUS.kModelEmpty: SolveStatus.OPTIMAL,
    _STATUS.kInfeasible: SolveStatus.INFEASIBLE,
    _STATUS.kUnbounded: SolveStatus.UNBOUNDED,
    _STATUS.kUnboundedOrInfeasible: SolveStatus.INFEASIBLE_OR_UNBOUNDED,
}
_LIMITS = {
    _STATUS.kTimeLimit,
    _STATUS.kIterationLimit,
    _STATUS.kSolutionLimit,
    _STATUS.kObjectiveBound,
    _STATUS.kObjectiveTarget,
    _STATUS.kInterrupt,
    _STATUS.kHighsInterrupt,
    _STATUS.kMemoryLimit,
}
_FEASIBLE_SOLUTION = 2  # HighsInfo.primal_solution_status: 0 none, 1 infeasible, 2 feasible


def new_highs() -> highspy.Highs:
    """A HiGHS object with its log off, made without the copyright banner.

    HiGHS prints its banner to the process's standard output (file descriptor 1, below Python's
    ``sys.stdout``) when the first object is made, before any option can be set; the banner would
    land in the middle of a command's table or a notebook's output. So the first construction runs
    with descriptor 1 pointed at the null device. The solver's log is a choice of the caller
    (``solve(..., output_flag=True)``, or the command's ``--solver-log``), not a side effect.
    """
    global _BANNER_SHOWN
    if _BANNER_SHOWN or solver_log_enabled():
        highs = highspy.Highs()
    else:
        with _stdout_fd_silenced():
            highs = highspy.Highs()
        _BANNER_SHOWN = True
    highs.setOptionValue("output_flag", solver_log_enabled())
    return highs


_BANNER_SHOWN = False


@contextlib.contextmanager
def _stdout_fd_silenced():
    try:
        sys.stdout.flush()
        fd = 1
        saved = os.dup(fd)
    except (OSError, ValueError):  # no descriptor 1 (closed, embedded): nothing to hide
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
        yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)
        os.close(devnull)


def highs_version() -> str:
    """The version of the HiGHS library highspy was built with, e.g. ``"1.15.1"``."""
    return new_highs().version()


OBJECTIVE_MATCH = 1e-6
"""Relative agreement (to max(1, |cost|)) required between HiGHS's reported MIP objective and the
cost of the solution it returns."""


def _same_objective(reported: float, computed: float) -> bool:
    return abs(reported - computed) <= OBJECTIVE_MATCH * max(1.0, abs(computed))


def _rejection_reason(highs: highspy.Highs, form) -> str:
    """Why HiGHS refuses a model in words the user can act on: the first number of *form* beyond
    the limits HiGHS checks when a model is passed (matrix values, costs, finite bounds)."""
    def largest(values) -> float:
        v = np.abs(np.asarray(values, dtype=float))
        v = v[np.isfinite(v)]
        return float(v.max()) if v.size else 0.0

    for what, values, option in (("a constraint coefficient", form.A.data, "large_matrix_value"),
                                 ("an objective coefficient", form.c, "infinite_cost"),
                                 ("a row bound", np.r_[form.row_lower, form.row_upper], "infinite_bound"),
                                 ("a variable bound", np.r_[form.col_lower, form.col_upper], "infinite_bound")):
        limit = float(highs.getOptionValue(option)[1])
        top = largest(values)
        if top >= limit:
            return (f"{what} of {top:.4g} is beyond HiGHS's limit {limit:.4g} ({option}): the instance's numbers "
                    f"(sizes, times, cost parameters) make this model's coefficients too large; rescale them to "
                    f"smaller units")
    return "HiGHS gave no reason this package can name (run with --solver-log to see HiGHS's own message)"


def _set_option(highs: highspy.Highs, name: str, value) -> None:
    if highs.setOptionValue(name, value) != highspy.HighsStatus.kOk:
        raise ValueError(f"HiGHS rejected option {name}={value!r} (unknown name or bad value)")


class HighsBackend:
    """HiGHS holding one model; persistent: added constraints become rows, the basis is kept."""

    persistent = True

    def __init__(
        self,
        model: pyo.ConcreteModel,
        name: str,
        *,
        time_limit: float | None,
        mip_gap: float | None,
        threads: int | None,
        options: Mapping[str, object],
    ):
        self.model = model
        self.name = name
        self.builds = 0
        self._threads = threads
        self._highs = new_highs()
        self.version = self._highs.version()
        _set_option(self._highs, "output_flag", solver_log_enabled())
        if time_limit is not None:
            _set_option(self._highs, "time_limit", float(time_limit))
        # HiGHS stops at a 1e-4 relative gap by default; without a requested gap we want the
        # MIP optimum proven, as the other back ends do by default.
        _set_option(self._highs, "mip_rel_gap", 0.0 if mip_gap is None else float(mip_gap))
        if threads is not None:
            _set_option(self._highs, "threads", int(threads))
        method = name.partition(":")[2]
        if method:  # "highs:ipm" etc.: HiGHS's own option is called "solver"
            _set_option(self._highs, "solver", method)
        for key, value in options.items():
            _set_option(self._highs, key, value)
        self._presolve = options.get("presolve", "choose")  # HiGHS's default
        self._pending_build_seconds = 0.0
        self._loaded = False
        self._started = False  # a MIP start was handed to HiGHS (use_start)
        self._cost = np.zeros(0)

    def _load(self) -> None:
        start = time.perf_counter()
        form = compile_linear_form(self.model)
        lp = highspy.HighsLp()
        lp.num_col_ = len(form.columns)
        lp.num_row_ = form.A.shape[0]
        lp.col_cost_ = form.c
        lp.offset_ = form.offset
        self._cost = np.asarray(form.c, dtype=float)
        lp.sense_ = highspy.ObjSense.kMaximize if form.maximize else highspy.ObjSense.kMinimize
        lp.col_lower_ = form.col_lower
        lp.col_upper_ = form.col_upper
        lp.row_lower_ = form.row_lower
        lp.row_upper_ = form.row_upper
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = form.A.indptr
        lp.a_matrix_.index_ = form.A.indices
        lp.a_matrix_.value_ = form.A.data
        if form.is_mip:
            kinds = (highspy.HighsVarType.kContinuous, highspy.HighsVarType.kInteger)
            lp.integrality_ = [kinds[flag] for flag in form.integer.tolist()]
        if self._highs.passModel(lp) == highspy.HighsStatus.kError:
            raise AlgorithmError(f"HiGHS rejected the model compiled from {self.model.name!r}: "
                                 f"{_rejection_reason(self._highs, form)}")
        self._columns = list(form.columns)
        self._column_of = {id(var): j for j, var in enumerate(self._columns)}
        self._rows = list(form.rows)
        self._is_mip = form.is_mip
        self._offset = form.offset
        self._loaded = True
        self.builds += 1
        self._pending_build_seconds += time.perf_counter() - start

    def _store(self, solution) -> None:
        """Put the solution's column values where the caller reads them: the model's variables."""
        load_values(self._columns, solution.col_value)

    def add_constraints(self, constraints: Iterable[ConstraintData]) -> None:
        """Append constraints (already on the model) as rows; HiGHS keeps its basis.

        Before the first solve there is nothing to do: loading the model compiles them.
        """
        if not self._loaded:
            return
        start = time.perf_counter()
        lower, upper, starts, indices, values = [], [], [], [], []
        for con in constraints:
            lb, body, ub = con.to_bounded_expression(evaluate_bounds=True)
            repn = generate_standard_repn(body, compute_values=True, quadratic=False)
            if not repn.is_linear():
                raise ValueError(f"constraint {con.name!r} is not linear")
            starts.append(len(indices))
            for coef, var in zip(repn.linear_coefs, repn.linear_vars):
                indices.append(self._column(var))
                values.append(float(coef))
            constant = float(repn.constant)
            lower.append(-np.inf if lb is None else lb - constant)
            upper.append(np.inf if ub is None else ub - constant)
            self._rows.append(con)
        if lower:
            self._highs.addRows(
                len(lower),
                np.array(lower, dtype=float),
                np.array(upper, dtype=float),
                len(indices),
                np.array(starts, dtype=np.int32),
                np.array(indices, dtype=np.int32),
                np.array(values, dtype=float),
            )
        self._pending_build_seconds += time.perf_counter() - start

    def _column(self, var: VarData) -> int:
        """The column of `var`, adding one for a variable the model had not used before."""
        j = self._column_of.get(id(var))
        if j is None:
            lb, ub, integer = column_data(var)
            self._highs.addVar(lb, ub)
            j = len(self._columns)
            if integer:
                self._highs.changeColIntegrality(j, highspy.HighsVarType.kInteger)
                self._is_mip = True
            self._columns.append(var)
            self._column_of[id(var)] = j
            self._cost = np.r_[self._cost, 0.0]  # a new variable is in no objective term (addVar: cost 0)
        return j

    def use_start(self) -> None:
        """Give HiGHS the model's current variable values as a MIP start (``setSolution``): all
        columns when every variable has a value, else the ones that have (HiGHS completes a
        partial start by a sub-MIP). Variables without a value are left to the solver.

        A MIP solved from a start is checked: if HiGHS's objective disagrees with its own
        solution's cost, the start is dropped and the model solved again (:meth:`solve`)."""
        if not self._loaded:
            self._load()
        self._started = True
        values = [var.value for var in self._columns]
        known = [j for j, v in enumerate(values) if v is not None]
        if not known:
            return
        if len(known) == len(values):
            solution = highspy.HighsSolution()
            solution.col_value = [float(v) for v in values]
            self._highs.setSolution(solution)
        else:
            index = np.array(known, dtype=np.int32)
            self._highs.setSolution(len(known), index, np.array([float(values[j]) for j in known], dtype=float))

    def _run(self) -> None:
        if self._threads is not None:
            # HiGHS runs on one scheduler per process, started with the first solve's thread
            # count; asking another count later makes run() fail unless it is reset.
            highspy.Highs.resetGlobalScheduler(True)
        self._highs.run()

    def solve(self) -> SolveResult:
        """Run HiGHS on the model (loading it on first use), load values and duals back."""
        if not self._loaded:
            self._load()
        highs = self._highs
        start = time.perf_counter()
        self._run()
        status = highs.getModelStatus()
        note = ""
        if status in (_STATUS.kUnboundedOrInfeasible, _STATUS.kInfeasible) and self._presolve != "off":
            # Presolve often stops at "infeasible or unbounded"; the simplex without presolve
            # tells the two apart on the models where it can. And presolve's "infeasible" is
            # checked the same way: HiGHS 1.13's presolve called SynchPack's LP1 infeasible on two
            # tasks of lengths 1e-7 and 1e4 (column bounds down to 1e-11); without presolve it
            # solves, to the optimum HiGHS 1.16 finds with presolve (tests/solvers/test_outcomes.py).
            _set_option(highs, "presolve", "off")
            self._run()
            _set_option(highs, "presolve", self._presolve)
            status = highs.getModelStatus()
            note = " (after a re-solve without presolve)"
        solve_seconds = time.perf_counter() - start

        start = time.perf_counter()
        info = highs.getInfo()
        has_solution = info.primal_solution_status == _FEASIBLE_SOLUTION
        if status in _PROVEN:
            outcome = _PROVEN[status]
        elif status in _LIMITS:
            outcome = SolveStatus.FEASIBLE if has_solution else SolveStatus.LIMIT_NO_SOLUTION
        else:
            outcome = SolveStatus.ERROR
        objective = best_bound = None
        if outcome.has_solution:
            solution = highs.getSolution()
            self._store(solution)
            # HiGHS reports 0 for an empty model, leaving out the offset
            objective = (
                self._offset
                if status == _STATUS.kModelEmpty
                else float(info.objective_function_value)
            )
            if self._is_mip:
                best_bound = float(info.mip_dual_bound)
                if not math.isfinite(best_bound):
                    best_bound = objective if outcome is SolveStatus.OPTIMAL else None
                computed = float(self._cost @ np.asarray(solution.col_value, dtype=float)) + self._offset
                if status != _STATUS.kModelEmpty and not _same_objective(objective, computed):
                    if self._started:
                        # Measured with HiGHS 1.16: after a MIP start its presolve reported 5 for
                        # a solution of cost 6 (two 2-task jobs in a chain on speeds 0.5 and 1),
                        # optimal with bound 5. Without the start it proves 6.
                        self._started = False
                        highs.clearSolver()
                        again = self.solve()
                        return replace(again, solve_seconds=again.solve_seconds + solve_seconds,
                                       message=f"{again.message} (re-solved without the MIP start: HiGHS "
                                               f"reported objective {objective!r} for a solution of cost "
                                               f"{computed!r})")
                    # The incumbent's value was wrong, so neither its optimality nor the bound
                    # it pruned by can be trusted: a feasible solution at its true cost, no bound.
                    note += (f" (HiGHS reported objective {objective!r} for a solution of cost {computed!r}: "
                             "its proof and bound are not used)")
                    outcome, objective, best_bound = SolveStatus.FEASIBLE, computed, None
            elif outcome is SolveStatus.OPTIMAL:
                best_bound = objective
            if (not self._is_mip and solution.dual_valid and self.model is not None
                    and dual_suffix(self.model) is not None):
                load_duals(self.model, self._rows, solution.row_dual)
        build_seconds = self._pending_build_seconds + time.perf_counter() - start
        self._pending_build_seconds = 0.0
        return SolveResult(
            status=outcome,
            objective=objective,
            best_bound=best_bound,
            build_seconds=build_seconds,
            solve_seconds=solve_seconds,
            solver=self.name,
            solver_version=self.version,
            message=highs.modelStatusToString(status) + note,
        )


class HighsProgramBackend(HighsBackend):
    """HiGHS on a :class:`schedrelax._matrix.MatrixProgram`: its arrays go to ``passModel`` as
    they are (row-wise), with no Pyomo model and no standard-form compile in between; the
    solution's column values are kept in ``x`` (same order as the program's columns).

    *basis* (column and row statuses in HiGHS's numbering, e.g. from
    :func:`schedrelax._matrix.vertex_statuses`) is handed to HiGHS as an *alien* basis before the
    first solve: HiGHS completes or repairs it (too few basics, a singular set), so any statuses
    are accepted, and its simplex starts there. It changes how fast, never what: the optimum is
    the same; where the LP has several optimal vertices, which one is returned may differ."""

    persistent = False

    def __init__(self, program, name: str, *, time_limit: float | None, mip_gap: float | None,
                 threads: int | None, options: Mapping[str, object],
                 basis: tuple[np.ndarray, np.ndarray] | None = None):
        super().__init__(None, name, time_limit=time_limit, mip_gap=mip_gap, threads=threads, options=options)
        self.program = program
        self.x: np.ndarray | None = None
        if basis is not None and (len(basis[0]) != program.n_cols or len(basis[1]) != program.n_rows):
            raise ValueError(f"the basis has {len(basis[0])} column and {len(basis[1])} row statuses; the "
                             f"program {program.name!r} has {program.n_cols} columns and {program.n_rows} rows")
        self._start_basis = basis

    def _load(self) -> None:
        start = time.perf_counter()
        prog = self.program
        A = prog.A
        lp = highspy.HighsLp()
        lp.num_col_ = prog.n_cols
        lp.num_row_ = prog.n_rows
        lp.col_cost_ = prog.c
        lp.offset_ = prog.offset
        lp.sense_ = highspy.ObjSense.kMinimize
        lp.col_lower_ = prog.col_lower
        lp.col_upper_ = prog.col_upper
        lp.row_lower_ = prog.row_lower
        lp.row_upper_ = prog.row_upper
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.num_col_ = prog.n_cols
        lp.a_matrix_.num_row_ = prog.n_rows
        lp.a_matrix_.start_ = A.indptr
        lp.a_matrix_.index_ = A.indices
        lp.a_matrix_.value_ = A.data
        if self._highs.passModel(lp) == highspy.HighsStatus.kError:
            raise ValueError(f"HiGHS rejected the program {prog.name!r}")
        if self._start_basis is not None:
            _write_basis(self._highs, *self._start_basis, "the start basis", alien=True)
        self._columns, self._rows = [], []
        self._is_mip = False
        self._offset = prog.offset
        self._loaded = True
        self.builds += 1
        self._pending_build_seconds += time.perf_counter() - start

    def _store(self, solution) -> None:
        self.x = np.asarray(solution.col_value, dtype=float)

    def add_constraints(self, constraints) -> None:
        raise TypeError("a HiGHS program back end takes no added constraints; build them into the program")

    def use_start(self) -> None:
        raise TypeError("a HiGHS program back end takes no MIP start (programs are LPs)")


_BASIC = int(highspy.HighsBasisStatus.kBasic)
_LOWER = int(highspy.HighsBasisStatus.kLower)
_STATUSES = [highspy.HighsBasisStatus(i) for i in range(5)]


def _read_basis(highs: highspy.Highs) -> tuple[np.ndarray, np.ndarray]:
    """The column and row statuses of HiGHS's basis as integer arrays (HiGHS's numbering)."""
    basis = highs.getBasis()
    col, row = basis.col_status, basis.row_status  # each access converts HiGHS's vector to a new list
    return (np.array([s.value for s in col], dtype=np.int64).reshape(-1),
            np.array([s.value for s in row], dtype=np.int64).reshape(-1))


def _write_basis(highs: highspy.Highs, col: np.ndarray, row: np.ndarray, what: str, *, alien: bool = False) -> None:
    """Hand HiGHS the basis *col*, *row* (HiGHS's numbering), by default as a valid, non-alien
    basis (an alien basis is re-factored and repaired first: 0.3 s at 200,000 rows); *alien* for
    statuses that need not be a basis (HiGHS completes them). RuntimeError naming *what* if HiGHS
    refuses it."""
    basis = highspy.HighsBasis()
    basis.col_status = [_STATUSES[v] for v in np.asarray(col).tolist()]
    basis.row_status = [_STATUSES[v] for v in np.asarray(row).tolist()]
    basis.valid = True
    basis.alien = alien
    if highs.setBasis(basis) != highspy.HighsStatus.kOk:
        raise RuntimeError(f"HiGHS refused {what}")


class HighsRowPool(HighsProgramBackend):
    """HiGHS on a :class:`schedrelax._matrix.MatrixProgram` plus cuts given as arrays (a *cut pool*):
    :meth:`add_cuts` appends a batch's new columns and rows (optionally with a warm basis),
    :meth:`prune` deletes the cuts idle for some rounds. The program's own rows are never deleted.

    A batch is duck-typed like :class:`schedrelax.models.queyranne.CutRows`. A *unit* the pool may
    delete is a whole group of a batch (its rows and columns) or a row with its ``pair`` column;
    it goes when each of its rows has had a zero dual for ``keep`` solves in a row and the basic
    rows and columns in it number as many as its rows, so the rest of the basis stays a basis
    (HiGHS marks a basis invalid after any deletion; the pool hands it back with ``setBasis``).
    """

    persistent = True

    def __init__(self, program, name: str, *, time_limit: float | None, mip_gap: float | None,
                 threads: int | None, options: Mapping[str, object]):
        super().__init__(program, name, time_limit=time_limit, mip_gap=mip_gap, threads=threads, options=options)
        m, k = program.n_rows, program.n_cols
        self._row_group = np.full(m, -1, dtype=np.int64)
        self._row_pair = np.full(m, -1, dtype=np.int64)
        self._row_age = np.zeros(m, dtype=np.int64)
        self._col_group = np.full(k, -1, dtype=np.int64)
        self._groups = 0
        self.deleted_rows = 0
        self._status = None  # (col, row) basis statuses since the last solve, when known
        self._unset = False  # _status not yet handed to HiGHS (after a deletion)

    @property
    def n_rows(self) -> int:
        return len(self._row_group)

    def solve(self) -> SolveResult:
        if self._unset:
            self._set_basis(*self._status)
        self._status = None
        return super().solve()

    def _basis_arrays(self):
        if self._status is not None:
            return self._status
        return _read_basis(self._highs)

    def _set_basis(self, col: np.ndarray, row: np.ndarray) -> None:
        _write_basis(self._highs, col, row, "the cut pool's basis")
        self._status = (col, row)
        self._unset = False

    def _basis_arrays_fresh(self, cols: int, rows: int):
        """The statuses of the first *cols* columns and *rows* rows, read from HiGHS."""
        col, row = _read_basis(self._highs)
        return col[:cols], row[:rows]

    def add_cuts(self, batch, *, warm: bool = True) -> None:
        """Append *batch*: its new columns (cost 0, no upper bound) then its rows."""
        if not self._loaded:
            self._load()
        start = time.perf_counter()
        h = self._highs
        first_col, first_row = len(self._col_group), len(self._row_group)
        k = len(batch.col_lower)
        n = self.program.n_cols
        if k:
            h.addVars(k, np.asarray(batch.col_lower, dtype=float), np.full(k, np.inf))
        A = batch.A.tocsr()
        # the batch numbers its new columns from n; here they start at first_col
        indices = np.where(A.indices >= n, A.indices - n + first_col, A.indices).astype(np.int32)
        q = A.shape[0]
        h.addRows(q, np.asarray(batch.row_lower, dtype=float), np.asarray(batch.row_upper, dtype=float), A.nnz,
                  A.indptr[:-1].astype(np.int32), indices, np.asarray(A.data, dtype=float))
        groups = 1 + int(max(batch.row_group.max(initial=-1), batch.col_group.max(initial=-1)))
        self._col_group = np.r_[self._col_group, batch.col_group + self._groups]
        self._row_group = np.r_[self._row_group, batch.row_group + self._groups]
        self._row_pair = np.r_[self._row_pair, np.where(batch.pair >= 0, batch.pair + first_col, -1)]
        self._row_age = np.r_[self._row_age, np.zeros(q, dtype=np.int64)]
        self._groups += groups
        if self._status is not None or (warm and len(batch.basic_cols)):
            # HiGHS's own extension: new columns nonbasic at their (finite) lower bound, new rows basic
            col, row = self._basis_arrays() if self._status is not None else self._basis_arrays_fresh(first_col, first_row)
            col = np.r_[col, np.full(k, _LOWER)]
            row = np.r_[row, np.full(q, _BASIC)]
            if warm:
                col[first_col + np.asarray(batch.basic_cols, dtype=np.int64)] = _BASIC
                row[first_row + np.asarray(batch.tight_rows, dtype=np.int64)] = _LOWER
            self._set_basis(col, row)
        self._pending_build_seconds += time.perf_counter() - start

    def prune(self, keep: int, dual_tol: float = 1e-10) -> int:
        """Delete the units idle (zero dual) for *keep* solves; returns the rows deleted."""
        h = self._highs
        dual = np.asarray(h.getSolution().row_dual, dtype=float)
        col, row = self._basis_arrays()
        scale = max(1.0, float(np.abs(dual).max(initial=0.0)))
        idle = np.abs(dual) <= dual_tol * scale
        self._row_age = np.where(idle, self._row_age + 1, 0)
        old = (self._row_age >= keep) & (self._row_group >= 0)
        rb, cb = row == _BASIC, col == _BASIC
        # whole groups: every row old, basic count = row count
        g = self._groups
        rg = np.where(self._row_group >= 0, self._row_group, g)
        cg = np.where(self._col_group >= 0, self._col_group, g)
        rows_in = np.bincount(rg, minlength=g + 1)
        old_in = np.bincount(rg, weights=old, minlength=g + 1)
        basic_in = np.bincount(rg, weights=rb, minlength=g + 1) + np.bincount(cg, weights=cb, minlength=g + 1)
        dead = (rows_in > 0) & (old_in == rows_in) & (basic_in == rows_in)
        dead[g] = False
        drow, dcol = dead[rg], dead[cg]
        # single rows with their pair column: one basic between the two
        pr = np.flatnonzero(old & ~drow & (self._row_pair >= 0))
        pc = self._row_pair[pr]
        ok = (rb[pr].astype(int) + cb[pc].astype(int)) == 1
        drow[pr[ok]] = True
        dcol[pc[ok]] = True
        dr, dc = np.flatnonzero(drow), np.flatnonzero(dcol)
        if not len(dr):
            return 0
        h.deleteRows(len(dr), dr.astype(np.int32))
        if len(dc):
            h.deleteCols(len(dc), dc.astype(np.int32))
        keep_r, keep_c = ~drow, ~dcol
        new_index = np.cumsum(keep_c) - 1
        pair = self._row_pair[keep_r]
        self._row_pair = np.where(pair >= 0, new_index[np.maximum(pair, 0)], -1)
        self._row_group, self._row_age = self._row_group[keep_r], self._row_age[keep_r]
        self._col_group = self._col_group[keep_c]
        row, col = row[keep_r], col[keep_c]
        self._status, self._unset = (col, row), True  # handed over with the next batch, or by solve
        self.deleted_rows += len(dr)
        return len(dr)


class HighsEditableLP(HighsProgramBackend):
    """HiGHS on a :class:`schedrelax._matrix.MatrixProgram` that a loop edits by
    :class:`schedrelax._matrix.LPEdit` s (deleted columns and rows, bound changes, new columns and
    rows), re-solving from the basis each edit carries (the dual simplex then starts where the
    last solve ended)."""

    persistent = True

    @property
    def n_rows(self) -> int:
        return int(self._highs.getNumRow())

    def _store(self, solution) -> None:
        super()._store(solution)
        self.row_dual = np.asarray(solution.row_dual, dtype=float)

    def basis(self) -> tuple[np.ndarray, np.ndarray]:
        """The statuses of every column and row after the last solve (HiGHS's numbering)."""
        return _read_basis(self._highs)

    def cold_start(self) -> None:
        """Forget the basis: the next solve starts from HiGHS's own start (a fallback after a warm
        solve that ended without a verdict)."""
        self._highs.clearSolver()

    def apply(self, edit) -> None:
        """Apply *edit* and hand HiGHS its basis."""
        start = time.perf_counter()
        h = self._highs
        held = (int(h.getNumCol()), int(h.getNumRow()))
        if held != (edit.n_cols, edit.n_rows):
            raise ValueError(f"the edit is for an LP of {edit.n_cols} columns and {edit.n_rows} rows; "
                             f"HiGHS holds {held[0]} and {held[1]}")
        # deletions first; the rest of the edit is in the numbering after them
        drop_cols = _drop_set(edit.drop_cols, held[0], "columns")
        drop_rows = _drop_set(edit.drop_rows, held[1], "rows")
        if len(drop_cols):
            h.deleteCols(len(drop_cols), drop_cols)
        if len(drop_rows):
            h.deleteRows(len(drop_rows), drop_rows)
        n_cols, n_rows = held[0] - len(drop_cols), held[1] - len(drop_rows)
        if len(edit.bound_cols):
            h.changeColsBounds(len(edit.bound_cols), np.asarray(edit.bound_cols, dtype=np.int32),
                               np.asarray(edit.bound_lower, dtype=float), np.asarray(edit.bound_upper, dtype=float))
        if len(edit.row_bound_rows):
            h.changeRowsBounds(len(edit.row_bound_rows), np.asarray(edit.row_bound_rows, dtype=np.int32),
                               np.asarray(edit.row_bound_lower, dtype=float),
                               np.asarray(edit.row_bound_upper, dtype=float))
        r, c, v = (np.asarray(a) for a in edit.entries)
        old_col = c < n_cols
        if np.any(old_col & (r < n_rows)):
            raise ValueError("an LPEdit may not change an existing row's entry on an existing column")
        q = len(edit.row_lower)
        if q:  # new rows, with their entries on existing columns
            rr, cc, vv = r[old_col] - n_rows, c[old_col], v[old_col]
            order = np.argsort(rr, kind="stable")
            starts = np.searchsorted(rr[order], np.arange(q)).astype(np.int32)
            h.addRows(q, np.asarray(edit.row_lower, dtype=float), np.asarray(edit.row_upper, dtype=float), len(rr),
                      starts, cc[order].astype(np.int32), vv[order].astype(float))
        k = len(edit.col_lower)
        if k:  # new columns, with all their entries (in existing and new rows)
            rr, cc, vv = r[~old_col], c[~old_col] - n_cols, v[~old_col]
            order = np.argsort(cc, kind="stable")
            starts = np.searchsorted(cc[order], np.arange(k)).astype(np.int32)
            h.addCols(k, np.zeros(k), np.asarray(edit.col_lower, dtype=float), np.asarray(edit.col_upper, dtype=float),
                      len(rr), starts, rr[order].astype(np.int32), vv[order].astype(float))
        _write_basis(h, edit.col_status, edit.row_status, "the edit's basis")
        self._pending_build_seconds += time.perf_counter() - start


def _drop_set(indices, count: int, what: str) -> np.ndarray:
    """*indices* sorted, as HiGHS's deletion takes them; ValueError unless they are distinct
    indices of the LP's *count* columns or rows."""
    drop = np.unique(np.asarray(indices, dtype=np.int64))
    if len(drop) != len(indices) or (len(drop) and (drop[0] < 0 or drop[-1] >= count)):
        raise ValueError(f"an LPEdit must delete distinct {what} the LP has (it has {count})")
    return drop.astype(np.int32)
