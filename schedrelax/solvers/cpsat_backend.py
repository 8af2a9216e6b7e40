"""The CP-SAT back end (Google OR-Tools): solve a ``CpModel`` and report it as a `SolveResult`.

Two ways in: :func:`solve_cpsat` solves the constraint models of
:mod:`schedrelax.models.cpsat_packing` and :mod:`schedrelax.models.cpsat_related`, which the exact
``mip`` algorithms build when given ``solver="cpsat"`` (the objective and bound of its
`SolveResult` are in the CP model's own integer units; the caller scales them back); and
:class:`CpSatBackend` is ``solve(model, "cpsat")`` for a Pyomo model that is linear over the
integers (its results are in the model's own units), refusing any other with a message naming
the variable or row. OR-Tools is imported lazily, so this module loads without it;
:func:`cpsat_version` is None when it is not installed.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import scipy.sparse

from schedrelax._log import solver_log_enabled
from schedrelax._ortools import cp_model_module, cpsat_version
from schedrelax.errors import SolverError
from schedrelax.solvers.limits import check_limits
from schedrelax.solvers.result import SolveResult, SolveStatus
from schedrelax.solvers.standard_form import compile_linear_form, load_values

SOLVER_NAME = "cpsat"

DEFAULT_THREADS = 1
"""CP-SAT workers when ``threads`` is None. One worker is deterministic for a given seed (the reach
numbers reproduce) and does not oversubscribe ``compare``, which already runs one process per CPU.
Measured on the shared 2-core box (benchmarks/exact_reach.py, related n_jobs 4 and packing n_jobs
20, seeds 0-2): with the other core idle, 2 workers proved 1.3-2.3x faster (related seed 0: 8.2 s
against 18.4 s); with the other core busy, 1 worker was faster (related seed 0: 18.7 s against no
proof in 20 s; packing seed 0: 4.2 s against 7.5 s). On a quiet machine pass ``threads=2``."""


def engine_name() -> str:
    """``"cpsat (OR-Tools X.Y)"``: the ``info["engine"]`` of a result solved here."""
    version = cpsat_version()
    return f"cpsat (OR-Tools {version})" if version else "cpsat (OR-Tools not installed)"


@dataclass(frozen=True, eq=False)
class CpSatSolve:
    """A finished CP-SAT run: the `SolveResult` (objective and best bound in the model's integer
    units) and the values of the model's variables when there is a solution."""

    result: SolveResult
    _solver: Any

    def value(self, var) -> int:
        """The value of an integer or Boolean variable (or linear expression) in the solution."""
        if not self.result.status.has_solution:
            raise ValueError(f"CP-SAT ended with status {self.result.status.value!r}: no solution to read")
        return int(self._solver.Value(var))

    def values(self, variables: Sequence) -> np.ndarray:
        """The values of *variables*, as an int64 array."""
        return np.array([self.value(v) for v in variables], dtype=np.int64)


LINEARIZATION_LEVELS = (0, 1, 2)
"""CP-SAT's ``linearization_level``: how much of the model its LP relaxation holds (0 none, 1 its
default, 2 also the constraints' cuts)."""


def _whole(value: object) -> bool:
    """An integer (Python or numpy), not a bool."""
    return not isinstance(value, bool) and isinstance(value, (int, np.integer))


def _check_linearization(level: object) -> None:
    if level is not None and not (_whole(level) and level in LINEARIZATION_LEVELS):
        raise ValueError(f"linearization_level must be one of {LINEARIZATION_LEVELS} or None, got {level!r}")


def _check_seed(seed: object) -> None:
    if seed is not None and not (_whole(seed) and seed >= 0):
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")


def solve_cpsat(model, *, time_limit: float | None = None, threads: int | None = None, seed: int | None = None,
                build_seconds: float = 0.0, gap: float | None = None,
                linearization_level: int | None = None, interleave: bool = False,
                lns_only: bool = False) -> CpSatSolve:
    """Solve the CP-SAT *model* to a proven optimum (zero relative and absolute gap) unless
    *time_limit* (seconds) stops it first; *threads* is CP-SAT's ``num_workers`` (None: its own
    default, every core), *seed* its ``random_seed``, *gap* its relative gap limit (None: 0),
    *linearization_level* its ``linearization_level`` (None: its own default, 1); *interleave*
    sets ``interleave_search``: every search strategy of CP-SAT's portfolio (LNS included) takes
    turns on the *threads* given, deterministically, where one thread otherwise runs one strategy;
    *lns_only* sets ``use_lns_only``: the threads run CP-SAT's large-neighbourhood searches from the
    first solution (the hint) on, no complete search (it still ends optimal when a solution meets
    the objective's lower limit, else at the time limit).
    *build_seconds* (the caller's time to build the model) is passed through to the result.

    Status: OPTIMAL (proven), FEASIBLE (a solution, not proven optimal), INFEASIBLE,
    LIMIT_NO_SOLUTION (a limit before any solution), ERROR (an invalid model; the message is
    CP-SAT's validation error).
    """
    check_limits(time_limit, None, threads)
    _check_seed(seed)
    _check_linearization(linearization_level)
    cp_model = cp_model_module()
    solver = cp_model.CpSolver()
    p = solver.parameters
    if time_limit is not None:
        p.max_time_in_seconds = float(time_limit)
    if threads is not None:
        p.num_workers = int(threads)
    if interleave:
        p.interleave_search = True
    if lns_only:
        p.use_lns_only = True
    if seed is not None:
        p.random_seed = int(seed) % (2**31)
    if linearization_level is not None:
        p.linearization_level = int(linearization_level)
    # A proven optimum, never one within CP-SAT's default absolute gap (1e-4 is below one unit
    # of an integer objective anyway; set for clarity), unless a relative *gap* is asked for.
    p.relative_gap_limit = 0.0 if gap is None else float(gap)
    p.absolute_gap_limit = 0.0
    p.log_search_progress = solver_log_enabled()
    invalid = model.Validate()
    version = cpsat_version() or ""
    if invalid:
        return CpSatSolve(SolveResult(SolveStatus.ERROR, None, None, build_seconds, 0.0, SOLVER_NAME, version,
                                      f"invalid CP-SAT model: {invalid}"), None)
    t0 = time.perf_counter()
    code = solver.Solve(model)
    seconds = time.perf_counter() - t0
    status = {
        cp_model.OPTIMAL: SolveStatus.OPTIMAL,
        cp_model.FEASIBLE: SolveStatus.FEASIBLE,
        cp_model.INFEASIBLE: SolveStatus.INFEASIBLE,
        cp_model.MODEL_INVALID: SolveStatus.ERROR,
        cp_model.UNKNOWN: SolveStatus.LIMIT_NO_SOLUTION,
    }[code]
    objective = float(solver.ObjectiveValue()) if status.has_solution else None
    bound = None
    if status.has_solution or status is SolveStatus.LIMIT_NO_SOLUTION:
        b = float(solver.BestObjectiveBound())
        bound = b if math.isfinite(b) else None
    if status is SolveStatus.OPTIMAL:
        bound = objective  # proven: CP-SAT's bound equals its objective then
    message = f"CP-SAT {solver.StatusName(code)}; {solver.NumBranches()} branches, {solver.NumConflicts()} conflicts"
    return CpSatSolve(SolveResult(status, objective, bound, build_seconds, seconds, SOLVER_NAME, version, message),
                      solver)


class CpSatBackend:
    """CP-SAT on a linear Pyomo model whose every variable is integer (``solve(model, "cpsat")``).

    CP-SAT works on integers only, so it takes a model exactly when the model means the same
    over the integers: every column integer with finite bounds, every coefficient of the rows
    and the objective a whole number. A row's bounds are then rounded inward (``x + y >= 2.5``
    is ``x + y >= 3`` for integers: exact, not an approximation); the objective's constant may
    be any number. Anything else is a :class:`~schedrelax.errors.SolverError` naming the first
    variable or row that breaks the rule (continuous variables: use a MIP solver such as
    ``"highs"``). ``mip_gap`` is CP-SAT's relative gap limit (None: a proven optimum);
    ``options`` may hold ``seed`` and ``linearization_level`` (see :func:`solve_cpsat`);
    ``threads`` None is :data:`DEFAULT_THREADS`. A MIP start
    (:meth:`use_start`) becomes CP-SAT's solution hint. Not persistent: each solve builds the
    CP-SAT model from the Pyomo model as it is then.
    """

    persistent = False

    def __init__(self, model, name: str, *, time_limit: float | None, mip_gap: float | None,
                 threads: int | None, options: Mapping[str, object]):
        unknown = sorted(set(options) - {"seed", "linearization_level"})
        if unknown:
            raise ValueError(f"solver 'cpsat' takes no option {unknown[0]!r} here (its options: seed, "
                             f"linearization_level)")
        _check_seed(options.get("seed"))
        _check_linearization(options.get("linearization_level"))
        self.model, self.name = model, name
        self.builds = 0
        self.version = cpsat_version() or ""
        self._time_limit, self._mip_gap = time_limit, mip_gap
        self._threads = DEFAULT_THREADS if threads is None else threads
        self._seed = options.get("seed")
        self._linearization = options.get("linearization_level")
        self._hint = False

    def add_constraints(self, constraints) -> None:
        """Nothing to do: each :meth:`solve` builds the CP-SAT model from the Pyomo model."""

    def use_start(self) -> None:
        """Hand CP-SAT the variables' current values as a hint at the next solve."""
        self._hint = True

    def _build(self):
        t0 = time.perf_counter()
        form = compile_linear_form(self.model)
        name = str(getattr(self.model, "name", None) or "model").strip("'")

        def refuse(what: str) -> SolverError:
            return SolverError(f"solver 'cpsat' solves linear models over the integers only; in {name!r} {what}. "
                               "Use a MIP solver such as 'highs' for this model")

        for j, var in enumerate(form.columns):
            if not form.integer[j]:
                raise refuse(f"variable {var.name} is continuous")
            lo, hi = form.col_lower[j], form.col_upper[j]
            if not (math.isfinite(lo) and math.isfinite(hi)):
                raise refuse(f"integer variable {var.name} has no finite bounds ({lo}, {hi})")
        A = scipy.sparse.csr_array(form.A)
        if not np.all(A.data == np.round(A.data)):
            r = int(np.searchsorted(A.indptr, np.flatnonzero(A.data != np.round(A.data))[0], side="right") - 1)
            raise refuse(f"row {form.rows[r].name} has a fractional coefficient")
        if not np.all(form.c == np.round(form.c)):
            j = int(np.flatnonzero(form.c != np.round(form.c))[0])
            raise refuse(f"the objective's coefficient of {form.columns[j].name} is fractional")
        cp_model = cp_model_module()
        cp = cp_model.CpModel()
        x = [cp.NewIntVar(math.ceil(lo), math.floor(hi), var.name)
             for var, lo, hi in zip(form.columns, form.col_lower.tolist(), form.col_upper.tolist())]
        data, indices, indptr = A.data.astype(np.int64).tolist(), A.indices.tolist(), A.indptr.tolist()
        for r, (lo, hi) in enumerate(zip(form.row_lower.tolist(), form.row_upper.tolist())):
            a, b = indptr[r], indptr[r + 1]
            expr = cp_model.LinearExpr.WeightedSum([x[k] for k in indices[a:b]], data[a:b])
            if math.isfinite(lo):
                cp.Add(expr >= math.ceil(lo))
            if math.isfinite(hi):
                cp.Add(expr <= math.floor(hi))
        nz = np.flatnonzero(form.c).tolist()
        objective = cp_model.LinearExpr.WeightedSum([x[k] for k in nz], [int(form.c[k]) for k in nz])
        if form.maximize:
            cp.Maximize(objective)
        else:
            cp.Minimize(objective)
        if self._hint:
            for var, v in zip(form.columns, x):
                if var.value is not None:
                    cp.AddHint(v, int(round(var.value)))
        self.builds += 1
        return cp, x, form, time.perf_counter() - t0

    def solve(self) -> SolveResult:
        """Build the CP-SAT model, solve it, and load the values into the model's variables."""
        cp, x, form, built = self._build()
        done = solve_cpsat(cp, time_limit=self._time_limit, threads=self._threads, seed=self._seed,
                           build_seconds=built, gap=self._mip_gap, linearization_level=self._linearization)
        res = done.result
        if res.status.has_solution:
            load_values(form.columns, done.values(x).astype(float))
        shift = form.offset
        return replace(res, solver=self.name,
                       objective=None if res.objective is None else res.objective + shift,
                       best_bound=None if res.best_bound is None else res.best_bound + shift)
