"""What an exact algorithm may say about the schedule it returns (every family's ``mip``: paper
000 §1.1 and 002 §2-3 malleable, paper 001 §III eqs. (1)-(2), paper 003 §2, paper 004 §II).

A MIP solver proves a bound and an objective for *its own* solution: values of variables, event
times, slots. The schedule an exact algorithm returns is rebuilt from that solution (times put on
the data's breakpoints, starts made semi-active, rates made whole) and re-evaluated from its
pieces, so its cost can differ from the solver's objective by the rebuild. The word *optimal* is
said of the returned schedule, so it needs a proof for that schedule's own cost: the cost meets
the proven lower bound within :data:`COST_MATCH`. The solver's own status is kept beside it.
"""

from __future__ import annotations

import math
import time
from typing import Any

from schedrelax.result import COST_MATCH, cost_gap_ok, meets_bound, refutes  # noqa: F401 - re-exported
from schedrelax.solvers.result import SolveResult

SOLVE_RESERVE = 0.02
"""Share of the time limit kept after an exact engine's solve for mapping its solution back to a
schedule and verifying it, so the whole call ends within the limit."""

MIN_SOLVE_SECONDS = 0.05
"""A solver's time limit when the starts, the bound and the build have used the budget up: it
still maps the start into the model and reports a bound."""


class Budget:
    """The time limit of a whole exact call: start schedules, LP bound, build, solve and read-back
    count against it (CP-SAT's LP phase used to come on top of its limit, and 60 s calls ran 64-73
    s; the HiGHS engines gave their solver the whole limit after the starts and the build, and the
    malleable MIP each of its tangent rounds). None: no limit."""

    def __init__(self, time_limit: float | None):
        self.t0 = time.perf_counter()
        self.time_limit = time_limit

    def left(self, share: float = 1.0) -> float | None:
        """*share* of the seconds left (at least :data:`MIN_SOLVE_SECONDS`), None without a limit."""
        if self.time_limit is None:
            return None
        return max(MIN_SOLVE_SECONDS, share * (self.t0 + self.time_limit - time.perf_counter()))

    def for_solve(self) -> float | None:
        """A solver's time limit: what is left less :data:`SOLVE_RESERVE` of the limit."""
        if self.time_limit is None:
            return None
        end = self.t0 + self.time_limit * (1.0 - SOLVE_RESERVE)
        return max(MIN_SOLVE_SECONDS, end - time.perf_counter())

    def remaining(self) -> float:
        """The seconds left (negative past the limit; inf without one)."""
        if self.time_limit is None:
            return math.inf
        return self.t0 + self.time_limit - time.perf_counter()

    def spent(self) -> bool:
        """True once the limit has passed (never without one)."""
        return self.time_limit is not None and time.perf_counter() >= self.t0 + self.time_limit


BIG_M_TOLERANCES = {"mip_feasibility_tolerance": 1e-8, "mip_abs_gap": 0.0}
"""HiGHS options for the exact models with big-M rows (malleable event times, related disjunctions).
With HiGHS 1.16's default mip_feasibility_tolerance (1e-6) a row ``C <= d + H u`` with H = 20001 was
met by a solution HiGHS then called optimal at twice the true optimum (a bound above OPT): measured
on P = 2, works 20000, 0.1 and 1 with SLA steps. 1e-7 and tighter prove the true optimum; 1e-8
keeps a margin, and 1e-9 is not used because HiGHS 1.12 ends a two-task related MIP with
"Solve error" at 1e-9.

``mip_abs_gap`` 0: HiGHS's default (1e-6) stops a search whose gap is below 1e-6 in the
objective's own unit, which is most of the cost for an instance written in small units (issue
31: "optimal" 1.34962e-05 with a bound 1.32033e-05, a 2 % gap); the relative gap (0 here) is
the one rule."""


def gap_options(solver: str) -> dict[str, Any]:
    """Options that make a MIP's "optimal" mean a relative gap of 0 with *solver*: HiGHS's
    ``mip_abs_gap`` 0 (see :data:`BIG_M_TOLERANCES`); nothing for other back ends."""
    return {"mip_abs_gap": 0.0} if solver == "highs" or solver.startswith("highs:") else {}


def exact_solver_options(solver: str) -> dict[str, Any]:
    """Options that keep a big-M MIP's proof sound with *solver*: :data:`BIG_M_TOLERANCES` for
    HiGHS (``highs`` and ``highs:METHOD``); nothing for the other back ends, whose own defaults
    are kept (their option names differ)."""
    return dict(BIG_M_TOLERANCES) if solver == "highs" or solver.startswith("highs:") else {}


def exact_outcome(cost: float, mip_objective: float, bound: float | None, res: SolveResult, *,
                  exact: bool = True) -> dict[str, Any]:
    """The ``info`` fields of an exact algorithm's Result, from the returned schedule's evaluated
    *cost*, the solver's *mip_objective* for its own solution, the proven lower *bound* valid for
    the instance (None if there is none) and the solve's result *res*.

    ``optimal`` is True only when the model is *exact* for the instance (not a slotted or capped
    version of it), a bound is known, and the schedule's cost meets it within :data:`COST_MATCH`.
    ``status`` is ``"optimal"`` then; ``"feasible"`` when the solver claimed an optimum that the
    returned schedule does not keep, or found no solution of its own and the schedule returned is
    the start (verified, so feasible; the solver's status stays in ``solver_status``); otherwise
    the solver's own status (e.g. a time limit with an unproven solution).
    """
    kept = bool(cost <= mip_objective or cost_gap_ok(cost, mip_objective))
    optimal = exact and meets_bound(cost, bound)
    if optimal:
        status = "optimal"
    elif res.is_optimal or not res.status.has_solution:
        status = "feasible"
    else:
        status = res.status.value
    return {"status": status, "optimal": optimal, "solver_status": res.status.value,
            "solver_message": res.message, "best_bound": bound,
            "mip_objective": mip_objective, "schedule_cost": cost, "schedule_keeps_mip_objective": kept}


BOUND_SLACK = 1e-9
"""Relative room left below a relaxation's value when it becomes a row of an exact model
(Σ w C >= bound): the relaxation was solved to the solver's tolerance, and an optimum that
equals it must not be cut off by the last digit."""


def below(bound: float | None) -> float | None:
    """*bound* lowered by :data:`BOUND_SLACK` relative to |bound|, None stays None."""
    if bound is None or not math.isfinite(bound):
        return None
    return bound - BOUND_SLACK * abs(bound)


def run_candidates(instance, names, *, solver: str = "highs", seed: int | None = 0, params=None) -> list:
    """The verified Results of the registered algorithms *names* on *instance*, in that order (an
    exact search's starts and relaxation bounds); an algorithm that refuses the instance (a typed
    schedrelax error) is left out. *params*, if given, maps a name to its parameters."""
    from schedrelax.algorithms import run
    from schedrelax.errors import SchedrelaxError

    found = []
    for name in names:
        try:
            found.append(run(name, instance, solver=solver, seed=seed, params=(params or {}).get(name)))
        except SchedrelaxError:
            continue
    return found


def cheapest(results, promises: frozenset[str] = frozenset()):
    """The Result of least objective among *results* whose schedule keeps the *promises* the exact
    model makes (e.g. ``non_preemptive``: a preemptive schedule is no start for a non-preemptive
    model, and may cost less than its optimum); None if there is none."""
    kept = [r for r in results if promises <= r.schedule.promises]
    return min(kept, key=lambda r: r.objective) if kept else None


def strongest_bound(results):
    """The Result with the largest lower bound among *results* (None if none has one): every
    algorithm's ``lower_bound`` bounds OPT from below, so the largest is the one to use."""
    bounded = [r for r in results if r.lower_bound is not None]
    return max(bounded, key=lambda r: r.lower_bound) if bounded else None


def best_start(instance, names, *, solver: str = "highs", promises: frozenset[str] = frozenset(),
               seed: int | None = 0, tried: dict[str, float] | None = None):
    """The verified Result of least objective among the registered algorithms *names* on
    *instance* (the start of an exact search), None if none of them runs on it. An algorithm that
    refuses the instance (a typed schedrelax error) is skipped, and so is a schedule that does not
    keep the *promises* the exact model makes (:func:`cheapest`). *tried*, if given, receives
    each algorithm's cost."""
    results = run_candidates(instance, names, solver=solver, seed=seed)
    if tried is not None:
        tried.update((r.algorithm, r.objective) for r in results)
    return cheapest(results, promises)


def keep_cheaper(instance, schedule, start):
    """The schedule an exact algorithm returns: the solver's *schedule* (None when it found none)
    or the *start* Result (None without one), whichever costs less; raises nothing, and returns
    None only when both are None. A solver may drop or not reach the start it was given."""
    from schedrelax.schedules import evaluate

    if start is None:
        return schedule
    if schedule is None or start.objective < evaluate(instance, schedule).objective:
        return start.schedule
    return schedule


def larger_bound(res: SolveResult, relaxation) -> tuple[float | None, str | None]:
    """The larger of the solver's proven bound and the *relaxation* Result's lower bound (either
    may be missing), with what it is: both bound OPT from below, so the larger is reported."""
    found = []
    if res.best_bound is not None:
        found.append((res.best_bound, f"MIP dual bound ({res.solver})"))
    if relaxation is not None and relaxation.lower_bound is not None:
        found.append((relaxation.lower_bound, relaxation.bound_kind))
    return max(found, key=lambda bk: bk[0]) if found else (None, None)
