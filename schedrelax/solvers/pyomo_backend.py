"""Back ends reached through Pyomo's own solver plugins (``pyomo.environ.SolverFactory``).

glpk and cbc are the ones tested here; gurobi, cplex and scip use the same shell-plugin path
with their own option names. Every solve writes the model again (no persistence). Pyomo's
``appsi_highs`` is not offered: its legacy wrapper rejects ``logfile`` and reports no solver
time, and ``"highs"`` already reaches the same HiGHS directly.
"""

from __future__ import annotations

import logging
import math
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import pyomo.environ as pyo
from pyomo.common.log import LoggingIntercept
from pyomo.core.base.constraint import ConstraintData
from pyomo.opt import SolutionStatus, TerminationCondition

from schedrelax._log import logger, solver_log_enabled
from schedrelax.solvers.result import SolveResult, SolveStatus
from schedrelax.solvers.standard_form import active_objective

_LOG = logger(__name__)
_WARMSTART = frozenset({"cbc", "gurobi", "cplex"})
"""The plugins whose Pyomo interface takes ``warmstart=True`` (the variables' values as a start)."""

TC = TerminationCondition


@dataclass(frozen=True)
class PluginOptions:
    """How one Pyomo plugin spells schedrelax's limits; None means it has no such option."""

    time_limit: str
    mip_gap: str
    threads: str | None
    #: converts time_limit (seconds, float) to the value the plugin accepts
    seconds: Callable[[float], object] = float


PLUGIN_OPTIONS = {
    # glpsol's --tmlim takes whole seconds only ("Invalid time limit '0.5'")
    "glpk": PluginOptions("tmlim", "mipgap", None, seconds=lambda t: max(1, math.ceil(t))),
    "cbc": PluginOptions("sec", "ratioGap", "threads"),
    "gurobi": PluginOptions("TimeLimit", "MIPGap", "Threads"),
    "cplex": PluginOptions("timelimit", "mip_tolerances_mipgap", "threads"),
    "scip": PluginOptions("limits/time", "limits/gap", None),
}

_OPTIMAL = {TC.optimal, TC.globallyOptimal}
_FOUND = {TC.feasible, TC.locallyOptimal}
_LIMITS = {
    TC.maxTimeLimit,
    TC.maxIterations,
    TC.maxEvaluations,
    TC.minFunctionValue,
    TC.minStepLength,
    TC.userInterrupt,
    TC.resourceInterrupt,
    # cbc stopped by a limit holding only the LP relaxation's (fractional) point
    TC.intermediateNonInteger,
}
_NO_OPTIMUM = {
    TC.infeasible: SolveStatus.INFEASIBLE,
    TC.unbounded: SolveStatus.UNBOUNDED,
    TC.infeasibleOrUnbounded: SolveStatus.INFEASIBLE_OR_UNBOUNDED,
}
_SOLUTION = {
    SolutionStatus.optimal,
    SolutionStatus.feasible,
    SolutionStatus.stoppedByLimit,
    SolutionStatus.bestSoFar,
    SolutionStatus.globallyOptimal,
    SolutionStatus.locallyOptimal,
}

# GLPK 5 prints "LP HAS ..." where Pyomo's log parser expects GLPK 4's "PROBLEM HAS ...", so
# Pyomo reports an infeasible or unbounded LP solved by glpk as "other"; read the log instead.
_GLPK_LOG = (
    ("PROBLEM HAS NO INTEGER FEASIBLE SOLUTION", SolveStatus.INFEASIBLE),
    ("HAS NO PRIMAL FEASIBLE SOLUTION", SolveStatus.INFEASIBLE),
    ("PROBLEM HAS NO FEASIBLE SOLUTION", SolveStatus.INFEASIBLE),
    ("HAS UNBOUNDED PRIMAL SOLUTION", SolveStatus.UNBOUNDED),
    ("PROBLEM HAS UNBOUNDED SOLUTION", SolveStatus.UNBOUNDED),
    ("HAS NO DUAL FEASIBLE SOLUTION", SolveStatus.INFEASIBLE_OR_UNBOUNDED),
    ("HAS NO FEASIBLE PRIMAL/DUAL SOLUTION", SolveStatus.INFEASIBLE_OR_UNBOUNDED),
)


def plugin_available(name: str) -> bool:
    """True when Pyomo finds the plugin's solver (executable or Python package) here."""
    try:
        return bool(pyo.SolverFactory(name).available(exception_flag=False))
    except Exception:  # a plugin whose probe itself fails (broken install) is not available
        return False


def plugin_version(name: str) -> str:
    """The solver's version as Pyomo reports it, e.g. ``"5.0.0"`` for glpk."""
    version = pyo.SolverFactory(name).version()
    return ".".join(map(str, version[:3])) if version else "unknown"


def _has_integers(model: pyo.ConcreteModel) -> bool:
    return any(
        var.is_integer() and not var.fixed
        for var in model.component_data_objects(pyo.Var, descend_into=True)
    )


def _glpk_log_status(log: str) -> SolveStatus | None:
    for line in log.splitlines():
        for text, status in _GLPK_LOG:
            if text in line:
                return status
    return None


class PyomoPluginBackend:
    """One Pyomo solver plugin; not persistent: every solve writes the whole model again."""

    persistent = False

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
        self._mip_gap = mip_gap
        spelling = PLUGIN_OPTIONS[name]
        solver_options: dict[str, object] = {}
        for param, value, key in (
            ("time_limit", time_limit, spelling.time_limit),
            ("threads", threads, spelling.threads),
        ):
            if value is not None and key is None:
                raise ValueError(f"solver {name!r} has no {param} option; got {param}={value!r}")
        if time_limit is not None:
            solver_options[spelling.time_limit] = spelling.seconds(time_limit)
        if threads is not None:
            solver_options[spelling.threads] = threads
        # Without a requested gap ask for a proven optimum: gurobi, cplex and HiGHS stop at a
        # 1e-4 relative gap by default.
        solver_options[spelling.mip_gap] = 0.0 if mip_gap is None else mip_gap
        solver_options.update(options)
        self._options = solver_options
        self.version = plugin_version(name)

    def add_constraints(self, constraints: Iterable[ConstraintData]) -> None:
        """Nothing to do: the constraints are on the model, which the next solve writes again."""

    def use_start(self) -> None:
        """Pass the variables' current values as a MIP start (Pyomo's ``warmstart``) to the plugins
        that take one (cbc, gurobi, cplex); glpk and scip take none here, which is logged."""
        if self.name in _WARMSTART:
            self._warmstart = True
        else:
            _LOG.info("solver %s takes no MIP start here: it starts from scratch", self.name)

    def solve(self) -> SolveResult:
        """Write the model, run the solver, read back status, bound and values."""
        opt = pyo.SolverFactory(self.name)
        for key, value in self._options.items():
            opt.options[key] = value
        start = time.perf_counter()
        log = ""
        if self.name == "glpk":
            with tempfile.TemporaryDirectory(prefix="schedrelax-") as tmp:
                logfile = os.path.join(tmp, "glpk.log")
                results = opt.solve(self.model, load_solutions=False, logfile=logfile, tee=solver_log_enabled())
                with open(logfile, encoding="utf-8", errors="replace") as fh:
                    log = fh.read()
        else:
            extra = {"warmstart": True} if getattr(self, "_warmstart", False) else {}
            results = opt.solve(self.model, load_solutions=False, tee=solver_log_enabled(), **extra)
        wall = time.perf_counter() - start
        self.builds += 1

        condition = results.solver.termination_condition
        has_solution = (
            len(results.solution) > 0
            and results.solution(0).status in _SOLUTION
            and condition != TC.intermediateNonInteger
        )
        is_mip = _has_integers(self.model)
        status = self._status(condition, has_solution, is_mip, log)
        objective = best_bound = None
        if status.has_solution:
            # Pyomo logs a warning when loading a solution stopped by a limit; the status
            # says so already.
            with LoggingIntercept(level=logging.WARNING, module="pyomo.core"):
                self.model.solutions.load_from(results)
            goal = active_objective(self.model)
            objective = float(pyo.value(goal))
            maximize = goal.sense == pyo.maximize
            best_bound = self._best_bound(results, status, objective, is_mip, maximize)

        solver_time = getattr(results.solver, "time", None)
        solve_seconds = (
            float(solver_time)
            if isinstance(solver_time, (int, float)) and 0 <= solver_time <= wall
            else wall
        )
        message = getattr(results.solver, "termination_message", None)
        if not isinstance(message, str):
            message = str(condition)
        return SolveResult(
            status=status,
            objective=objective,
            best_bound=best_bound,
            build_seconds=wall - solve_seconds,
            solve_seconds=solve_seconds,
            solver=self.name,
            solver_version=self.version,
            message=message,
        )

    def _status(self, condition, has_solution: bool, is_mip: bool, log: str) -> SolveStatus:
        if has_solution:
            if condition in _OPTIMAL:
                return SolveStatus.OPTIMAL
            if condition in _FOUND or condition in _LIMITS:
                return SolveStatus.FEASIBLE
        status = _glpk_log_status(log) if self.name == "glpk" else None
        if status is None:
            if condition in _LIMITS:
                status = SolveStatus.LIMIT_NO_SOLUTION
            else:
                status = _NO_OPTIMUM.get(condition, SolveStatus.ERROR)
        if status is SolveStatus.UNBOUNDED and is_mip:
            # cbc and glpk only prove the LP relaxation unbounded (cbc says "unbounded" for
            # an integer-infeasible model whose relaxation is unbounded).
            return SolveStatus.INFEASIBLE_OR_UNBOUNDED
        return status

    def _best_bound(
        self, results, status: SolveStatus, objective: float, is_mip: bool, maximize: bool
    ) -> float | None:
        if status is SolveStatus.OPTIMAL and (not is_mip or self._mip_gap is None):
            return objective
        if not is_mip:
            return None
        problem = results.problem
        reported = problem.upper_bound if maximize else problem.lower_bound
        if not isinstance(reported, (int, float)) or not math.isfinite(reported):
            return None
        if self.name == "cbc" and maximize:
            # CBC logs a maximisation's bound in its internal minimisation sense and Pyomo
            # (for cbc >= 2.10.2) passes it on unnegated.
            reported = -reported
        tolerance = 1e-9 * max(1.0, abs(objective))
        consistent = (
            reported >= objective - tolerance if maximize else reported <= objective + tolerance
        )
        return float(reported) if consistent else None
