"""The exact ``mip`` of the related family (paper 004 §II): the disjunctive MIP, or CP-SAT.

Apart from :mod:`schedrelax.rounding.spc` because it uses both S-PC (its LP-Schedule bound and
schedule start the search) and the CP-SAT model (:mod:`schedrelax.rounding.cpsat`), which itself
starts from S-PC's LP order: with the MIP in either module the two would import each other.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from schedrelax.instances import RelatedInstance
from schedrelax.models.related_mip import (
    build_related_mip,
    related_mip_solution,
    related_mip_start,
)
from schedrelax.result import Result
from schedrelax.rounding.cpsat import related_cpsat
from schedrelax.rounding.exact import (
    Budget,
    below,
    best_start,
    exact_outcome,
    exact_solver_options,
    keep_cheaper,
    larger_bound,
)
from schedrelax.schedulers.related_list import semi_active_schedule
from schedrelax.schedules import Schedule, evaluate, time_scale, unit_factor
from schedrelax.solvers import solve
from schedrelax.solvers.result import SolveStatus


RELATED_STARTS = ("fifo", "huwf", "tetris", "identical-machine")
"""The fast algorithms whose best schedule starts the related MIP; S-PC, which the MIP runs anyway
for its LP-Schedule bound, is a candidate too."""


def related_mip(instance: RelatedInstance, *, solver: str = "highs", seed: int | None = None,
                time_limit: float | None = None, threads: int | None = None,
                threshold_rows: bool | None = None) -> Result:
    """The optimum of paper 004's problem from :func:`schedrelax.models.related_mip.build_related_mip`.

    The schedule keeps the MIP's machines and per-machine order and starts each task as early as
    allowed (:func:`semi_active_schedule`), which removes the solver's round-off and is never
    later. ``lower_bound`` is the solver's proven bound (the optimum when the gap is closed);
    ``info["optimal"]`` says whether it was.

    ``solver="cpsat"``: a CP-SAT model instead (:func:`schedrelax.rounding.cpsat.related_cpsat`;
    ``seed`` and ``threads`` are CP-SAT's), with its completion-threshold rows unless
    ``threshold_rows=False`` (a CP-SAT option only: any other solver refuses it). ``threads`` goes
    to the solver (None: its default).
    """
    if threshold_rows is not None and not isinstance(threshold_rows, (bool, np.bool_)):
        raise ValueError(f"threshold_rows must be True or False, got {threshold_rows!r}")
    if solver == "cpsat":
        return related_cpsat(instance, time_limit=time_limit, threads=threads, seed=seed,
                             thresholds=True if threshold_rows is None else bool(threshold_rows))
    if threshold_rows is not None:
        raise ValueError(f"threshold_rows is an option of the CP-SAT model (solver 'cpsat'), not of solver "
                         f"{solver!r}'s disjunctive MIP; leave it out")
    # The registry's run verifies and evaluates S-PC's schedule; imported inside the call: the
    # registry names this module by a string and imports it when it runs.
    from schedrelax.algorithms import run

    budget = Budget(time_limit)  # the whole call: the starts, the build and the solve
    t0 = budget.t0
    relaxation = run("spc", instance, solver=solver)  # its LP-Schedule bound, and its schedule a candidate
    start = best_start(instance, RELATED_STARTS, solver=solver)
    if start is None or relaxation.objective < start.objective:
        start = relaxation
    lp_bound = relaxation.lower_bound
    # The model is solved in the instance's own unit (its shortest task about 1, by a power of 2,
    # which is exact): the solver's tolerances are absolute, and at durations of 1e-6 its big-M
    # rows' 1e-8 would be 1 % of a task ("optimal" above CP-SAT's proven optimum was measured).
    # Its origin moves to the earliest release, for the same reason (big-M rows span the horizon).
    f = unit_factor(time_scale(instance))
    o = float(np.min(instance.release))
    shift = o * float(np.sum(instance.weights))
    unit = instance.rescaled(f, o)
    model = build_related_mip(unit, upper_bound=(start.objective - shift) * f,
                              lower_bound=None if lp_bound is None else below((lp_bound - shift) * f))
    moved = start.schedule
    warm = related_mip_start(model, unit, Schedule(moved.job, moved.task, moved.machine, (moved.start - o) * f,
                                                   (moved.end - o) * f, moved.rate, promises=moved.promises))
    t1 = time.perf_counter()
    res = solve(model, solver, time_limit=budget.for_solve(), threads=threads, warm_start=warm,
                **exact_solver_options(solver))
    res = dataclasses.replace(res, objective=None if res.objective is None else res.objective / f + shift,
                              best_bound=None if res.best_bound is None else res.best_bound / f + shift)
    if not res.status.has_solution and res.status is not SolveStatus.LIMIT_NO_SOLUTION:
        res.require_optimal()  # infeasible with a feasible start in hand is a model error: raise
    solved = None
    if res.status.has_solution:
        sol = related_mip_solution(model)
        order = np.lexsort((np.arange(instance.n_tasks), sol.start))
        solved = semi_active_schedule(instance, order, sol.machine, meta={"algorithm": "mip"})
    schedule = keep_cheaper(instance, solved, start)
    bound, kind = larger_bound(res, relaxation)
    outcome = exact_outcome(evaluate(instance, schedule).objective,
                            res.objective if res.objective is not None else float("inf"), bound, res)
    outcome.update(start=start.algorithm, warm_start=warm, start_objective=start.objective,
                   relaxation_bound=lp_bound, horizon=model.horizon / f + o)
    return Result(algorithm="mip", schedule=schedule, lower_bound=bound, bound_kind=kind,
                  guarantee=1.0 if outcome["optimal"] else None,
                  timings={"start": t1 - t0, "solve": res.solve_seconds, "build": res.build_seconds},
                  info=outcome)
