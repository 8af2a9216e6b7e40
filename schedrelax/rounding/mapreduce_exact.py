"""The exact baseline ``mip`` for the mapreduce family: paper 001's eq. (1) or eq. (2) solved as a
time-indexed MIP (:mod:`schedrelax.models.mapreduce_mip`), for tiny instances.

It joins a model, a solver and the registered policies (for the start that narrows the MIP's time
windows and the SRPT bound), which is the rounding layer's job (DESIGN.md); Pyomo is imported
inside the call so that importing the registry stays fast.
"""

from __future__ import annotations

import math
import time

from schedrelax.result import Result
from schedrelax.errors import NoOptimalSolutionError
from schedrelax.instances import MapReduceInstance
from schedrelax.rounding.exact import (
    Budget,
    cheapest,
    exact_outcome,
    keep_cheaper,
    run_candidates,
    strongest_bound,
)
from schedrelax.schedulers.mapreduce_sim import model_description, resolve_model
from schedrelax.schedules import evaluate
from schedrelax.solvers.result import SolveStatus

MAPREDUCE_STARTS = ("asrpt", "dsrpt", "fifo", "fair", "lrpt")
"""The policies ``mip`` runs first, under its own model: the cheapest schedule starts the MIP and
bounds its windows; their SRPT bound (paper 001 Lemma 1) is the MIP's objective row."""


CPSAT_LINEARIZATION = 2
"""CP-SAT's ``linearization_level`` for the mapreduce MIP: 2 (its LP also holds cuts) in place of its
default 1. Measured on the reach benchmark's ``asrpt`` instances at 60 slots (one worker, 60 s):
the 12-job seed was proven in 59 s at level 2 and not at all at level 1 (best bound 244 against
the optimum 257; HiGHS reached 253), seeds 0, 2 and 3 were proven at both (0.3-4 s)."""

WHOLE_GAP = 0.99
"""HiGHS's ``mip_abs_gap`` for the mapreduce MIP: its objective (a flow time) is a whole number, so a
gap below 1 leaves no better whole value; 0.99, not 1, keeps a margin for the solver's round-off."""


def mip(instance: MapReduceInstance, *, solver: str = "highs", seed: int | None = None, time_limit: float = 60.0,
        model: str | None = None, preemptive: bool | None = None, horizon: int | None = None,
        warm_start: bool = True, bound_row: bool = True, threads: int | None = None) -> Result:
    """The optimum under *model* (the policies' three models, see
    :func:`~schedrelax.schedulers.mapreduce_sim.resolve_model`), from the MIP of
    :func:`~schedrelax.models.mapreduce_mip.build_mapreduce_mip`: ``non-preemptive`` is paper 001
    §III eq. (2); ``preemptive-tasks`` is eq. (1) with each Reduce task on one machine per slot;
    ``paper-preemptive`` is eq. (1) itself (the same MIP, on an instance of unit Reduce tasks).

    The policies of :data:`MAPREDUCE_STARTS` run first under the same model (through
    :func:`~schedrelax.algorithms.run`: verified). The cheapest one's flow time bounds every job's
    window (:func:`~schedrelax.models.mapreduce_mip.mip_windows`), which keeps the model small
    without cutting off any optimum, and with ``warm_start`` its schedule is the MIP's start
    (:func:`~schedrelax.models.mapreduce_mip.mapreduce_mip_start`). With ``bound_row`` the SRPT
    bound is the row Σ u >= ⌈bound⌉. *horizon* caps the windows further (then the result is an
    optimum only if the cap cut nothing: ``info["windows_safe"]``). The lower bound is the larger
    of the SRPT bound and, with safe windows, the solver's bound rounded up (flow times are whole).

    Every variable of the MIP is integer and every coefficient whole, so ``solver="cpsat"`` solves
    this same model with CP-SAT (:class:`~schedrelax.solvers.cpsat_backend.CpSatBackend`; the start
    becomes its hint; it runs one worker unless *threads* says more, at linearization level
    :data:`CPSAT_LINEARIZATION`). *threads* goes to the solver (None: its default).

    A time limit returns the solver's incumbent or, if it has none or a worse one, the start
    (status "feasible", the solver's in ``info["solver_status"]``), with the bound and gap;
    NoOptimalSolutionError only when the solver ends with no solution and no policy gave a start
    the model contains. The schedule returned is evaluated, and called optimal only when its own
    cost meets the proven bound
    (:func:`~schedrelax.rounding.exact.exact_outcome`; ``info["schedule_cost"]`` beside
    ``info["mip_objective"]``).
    """
    from schedrelax.models.mapreduce_mip import (
        build_mapreduce_mip,
        mapreduce_mip_schedule,
        mapreduce_mip_start,
        mip_size,
    )
    from schedrelax.solvers import solve

    model_name, preemptive = resolve_model(instance, model, preemptive)
    budget = Budget(time_limit)  # the whole call: the starts, the build and the solve
    t0 = budget.t0
    candidates = run_candidates(instance, MAPREDUCE_STARTS, seed=0 if seed is None else seed,
                                params={name: {"model": model_name} for name in MAPREDUCE_STARTS})
    start = cheapest(candidates, frozenset() if preemptive else frozenset({"non_preemptive"}))
    relaxation = strongest_bound(candidates)
    incumbent = None if start is None else start.objective
    t1 = time.perf_counter()
    milp = build_mapreduce_mip(instance, preemptive=preemptive, upper_bound=incumbent, horizon=horizon,
                               lower_bound=relaxation.lower_bound if bound_row and relaxation is not None else None)
    warm = warm_start and start is not None and mapreduce_mip_start(milp, start.schedule)
    build = time.perf_counter() - t1
    # The flow time is a whole number, so an incumbent less than 1 above the bound is optimal:
    # HiGHS may stop there (the bound is rounded up below, and the proof checked by exact_outcome).
    if solver.partition(":")[0] == "highs":
        options = {"mip_abs_gap": WHOLE_GAP}
    else:
        options = {"linearization_level": CPSAT_LINEARIZATION} if solver == "cpsat" else {}
    res = solve(milp, solver, time_limit=budget.for_solve(), threads=threads, warm_start=warm, **options)
    safe = milp.layout.safe
    if not res.status.has_solution and (start is None or res.status is not SolveStatus.LIMIT_NO_SOLUTION):
        raise NoOptimalSolutionError(f"mapreduce MIP: solver {res.solver!r} ended with status {res.status.value!r} "
                                     f"and no solution ({res.message})")
    solved = mapreduce_mip_schedule(milp) if res.status.has_solution else None
    schedule = keep_cheaper(instance, solved, start)
    cost = evaluate(instance, schedule).objective
    lower = relaxation.lower_bound if relaxation is not None else None
    kind = relaxation.bound_kind if relaxation is not None else None
    if safe and res.best_bound is not None and math.isfinite(res.best_bound):
        mip_bound = float(math.ceil(res.best_bound - 1e-6))  # flow times are whole slots
        if lower is None or mip_bound > lower:
            lower, kind = mip_bound, f"MIP dual bound ({res.solver}), rounded up to a whole flow time"
    # Capped windows (unsafe) make the model a restriction: its optimum proves nothing about OPT.
    outcome = exact_outcome(cost, res.objective if res.objective is not None else float("inf"), lower, res,
                            exact=safe)
    return Result(
        algorithm="mip", schedule=schedule, lower_bound=lower, bound_kind=kind,
        guarantee=1.0 if outcome["optimal"] else None,
        timings={"start": t1 - t0, "build": build + res.build_seconds, "solve": res.solve_seconds},
        params={"model": model_name, "preemptive": preemptive, "time_limit": time_limit, "horizon": horizon,
                "warm_start": warm_start, "bound_row": bound_row, "threads": threads},
        info={"model": model_description(instance, model_name), **outcome, "windows_safe": safe, "incumbent": incumbent,
              "start": None if start is None else start.algorithm, "warm_start": warm,
              "returned_instead": None if schedule is solved else start.algorithm,
              "window_ends": milp.layout.end.tolist(), **mip_size(milp)},
    )
