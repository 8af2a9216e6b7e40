"""The CP-SAT back end (Google OR-Tools): solve a ``CpModel`` and report it as a `SolveResult`.

CP-SAT is not a Pyomo back end: it solves the constraint models of
:mod:`schedrelax.models.cpsat_packing` and :mod:`schedrelax.models.cpsat_related`, which the exact
``mip`` algorithms build when given ``solver="cpsat"``; `solve` (Pyomo models) refuses the name
with an error saying so (see :mod:`schedrelax.solvers.registry`). OR-Tools is imported lazily, so
this module loads without it; :func:`cpsat_version` is None when it is not installed.

The objective and bound of the `SolveResult` are in the CP model's own integer units; the caller
scales them back to the instance's.
"""

from __future__ import annotations

import importlib.util
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from schedrelax._log import solver_log_enabled
from schedrelax._ortools import cp_model_module
from schedrelax.solvers.result import SolveResult, SolveStatus

SOLVER_NAME = "cpsat"


def cpsat_version() -> str | None:
    """OR-Tools' version (e.g. ``"9.15.6755"``), or None when ``ortools`` does not import or has
    no CP-SAT. Cheap: the CP-SAT extension itself (about a second to load) loads at the first solve."""
    try:
        import ortools
    except ImportError:
        return None
    if importlib.util.find_spec("ortools.sat.python.cp_model") is None:
        return None
    return str(ortools.__version__)


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


def _check_seed(seed: object) -> None:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")


def solve_cpsat(model, *, time_limit: float | None = None, threads: int | None = None, seed: int | None = None,
                build_seconds: float = 0.0) -> CpSatSolve:
    """Solve the CP-SAT *model* to a proven optimum (zero relative and absolute gap) unless
    *time_limit* (seconds) stops it first; *threads* is CP-SAT's ``num_workers`` (None: its own
    default, every core), *seed* its ``random_seed``. *build_seconds* (the caller's time to build
    the model) is passed through to the result.

    Status: OPTIMAL (proven), FEASIBLE (a solution, not proven optimal), INFEASIBLE,
    LIMIT_NO_SOLUTION (a limit before any solution), ERROR (an invalid model; the message is
    CP-SAT's validation error).
    """
    # lazy: the registry imports this module
    from schedrelax.solvers.registry import check_limits

    check_limits(time_limit, None, threads)
    _check_seed(seed)
    cp_model = cp_model_module()
    solver = cp_model.CpSolver()
    p = solver.parameters
    if time_limit is not None:
        p.max_time_in_seconds = float(time_limit)
    if threads is not None:
        p.num_workers = int(threads)
    if seed is not None:
        p.random_seed = int(seed) % (2**31)
    # A proven optimum, never one within CP-SAT's default absolute gap (1e-4 is below one unit
    # of an integer objective anyway; set for clarity).
    p.relative_gap_limit = 0.0
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
