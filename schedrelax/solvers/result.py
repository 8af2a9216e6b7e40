"""The outcome of one solve: `SolveStatus` and the frozen `SolveResult` every back end returns."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from schedrelax.errors import NoOptimalSolutionError


class SolveStatus(enum.StrEnum):
    """How a solve ended, the same for every back end; also what an algorithm's
    :class:`~schedrelax.result.Result` proves (``Result.status``; :data:`Status` is this type).

    A ``str`` enum: ``status == "optimal"`` and ``f"{status}"`` read as its value.

    Only ``OPTIMAL`` is a proven optimum: for a MIP, optimal within ``mip_gap`` when one was given
    (with ``mip_gap=None`` schedrelax asks every back end for a zero relative gap); for the
    interior-point back ends of cvxpy (e.g. ``cvxpy:CLARABEL``), optimal to the solver's tolerance.
    ``HEURISTIC`` is an algorithm's verified schedule with no optimality claim (no solve ends so).
    """

    OPTIMAL = "optimal"
    #: A limit (time, iterations, ...) stopped the solver with a solution not proven optimal,
    #: or the back end reports the optimum only to reduced accuracy.
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    #: The back end proved that no optimum exists but not which of the two cases holds.
    INFEASIBLE_OR_UNBOUNDED = "infeasible or unbounded"
    #: A limit stopped the solver before it found any feasible solution.
    LIMIT_NO_SOLUTION = "limit reached, no solution"
    ERROR = "error"
    #: A Result's verified schedule from an approximation or baseline: no optimality claim.
    HEURISTIC = "heuristic"

    @property
    def has_solution(self) -> bool:
        """True when variable values were loaded into the model (OPTIMAL or FEASIBLE)."""
        return self in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)


Status = SolveStatus
"""The one status type of solves and of algorithms' results."""


@dataclass(frozen=True)
class SolveResult:
    """What a solve produced; the variable values themselves are loaded into the Pyomo model.

    Attributes
    ----------
    status:
        How the solve ended (see `SolveStatus`).
    objective:
        The objective value of the loaded solution (constant offset included), or None when
        there is no solution.
    best_bound:
        The best proven bound on the optimum in the objective's own sense (a lower bound when
        minimising): the dual bound for a MIP, the objective itself for an LP solved to
        optimality; None when the back end proved none.
    build_seconds:
        Wall time the interface spent outside the solver's own run: translating the model (or
        the constraints added since the last solve) into the back end's form and reading the
        answer back into the model (for file-based back ends, writing and reading the files).
    solve_seconds:
        Wall time of the solver's own run.
    solver:
        The solver name as the caller gave it (e.g. ``"highs"``, ``"cvxpy:CLARABEL"``).
    solver_version:
        The back end's version string.
    message:
        The back end's own termination message (plus what schedrelax concluded from it).
    """

    status: SolveStatus
    objective: float | None
    best_bound: float | None
    build_seconds: float
    solve_seconds: float
    solver: str
    solver_version: str
    message: str

    @property
    def is_optimal(self) -> bool:
        """True when the solve ended with a proven optimum."""
        return self.status is SolveStatus.OPTIMAL

    def require_optimal(self) -> SolveResult:
        """Return this result if it is optimal, else raise `NoOptimalSolutionError`.

        The error names the solver, the status and the solver's message, so a caller that needs
        an optimum (e.g. to report a relaxation's lower bound) fails loudly instead of reading
        stale or missing values.
        """
        if self.is_optimal:
            return self
        detail = f"; best bound {self.best_bound:g}" if self.best_bound is not None else ""
        incumbent = f"; incumbent {self.objective:g}" if self.objective is not None else ""
        raise NoOptimalSolutionError(
            f"solver {self.solver!r} ended with status {self.status.value!r}, not optimal"
            f"{incumbent}{detail} ({self.message})"
        )
