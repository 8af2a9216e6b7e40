"""The exact baseline ``mip`` for the mapreduce family: paper 001's eq. (1) or eq. (2) solved as a
time-indexed MIP (:mod:`schedrelax.models.mapreduce_mip`), for tiny instances.

It joins a model, a solver and the simulator (for the incumbent that narrows the MIP's time
windows), which is the rounding layer's job (DESIGN.md); Pyomo is imported inside the call so
that importing the registry stays fast.
"""

from __future__ import annotations

import math
import time

from schedrelax.algorithms import Result, register
from schedrelax.errors import NoOptimalSolutionError
from schedrelax.instances import MapReduceInstance
from schedrelax.schedulers.mapreduce_policies import ASRPTPolicy, FIFOPolicy
from schedrelax.schedulers.mapreduce_sim import simulate, srpt_relaxation
from schedrelax.schedules import evaluate

_COST_MATCH = 1e-6
"""Relative agreement required between the schedule's evaluated cost and the MIP objective for the
result to be labelled optimal."""


@register("mip", "mapreduce", "exact time-indexed MIP of eq. (1) / eq. (2) (tiny instances only)",
          uses_solver=True, paper="001 §III eqs. (1)-(2)")
def mip(instance: MapReduceInstance, *, solver: str = "highs", seed: int | None = None, time_limit: float = 60.0,
        preemptive: bool = True, horizon: int | None = None) -> Result:
    """The optimum of paper 001 §III eq. (1) (``preemptive``) or eq. (2), from the MIP of
    :func:`~schedrelax.models.mapreduce_mip.build_mapreduce_mip`.

    The best of ASRPT and FIFO in the same scenario is a feasible flow time; it bounds every job's
    window (:func:`~schedrelax.models.mapreduce_mip.mip_windows`), which keeps the model small
    without cutting off any optimum. *horizon* caps the windows further (then the result is an
    optimum only if the cap cut nothing: ``info["windows_safe"]``). Raises NoOptimalSolutionError
    if the solver stops without any solution; a time limit with an incumbent returns it, with
    ``info["optimal"]`` False and the solver's bound in ``lower_bound``. The schedule read back is
    evaluated: unless its cost equals the MIP objective, it is not labelled optimal
    (``info["status"]`` ``"feasible"``, ``info["schedule_cost"]`` beside ``info["mip_objective"]``).
    """
    from schedrelax.models.mapreduce_mip import build_mapreduce_mip, mapreduce_mip_schedule, mip_size
    from schedrelax.solvers import solve

    relax = srpt_relaxation(instance)
    incumbent = min(simulate(instance, policy, preemptive=preemptive).total_flow
                    for policy in (ASRPTPolicy(relax), FIFOPolicy()))
    t0 = time.perf_counter()
    model = build_mapreduce_mip(instance, preemptive=preemptive, upper_bound=incumbent, horizon=horizon)
    build = time.perf_counter() - t0
    res = solve(model, solver, time_limit=time_limit)
    if not res.status.has_solution:
        raise NoOptimalSolutionError(f"mapreduce MIP: solver {res.solver!r} ended with status {res.status.value!r} "
                                     f"and no solution ({res.message})")
    safe = model.layout.safe
    schedule = mapreduce_mip_schedule(model)
    cost = evaluate(instance, schedule).objective
    # Optimal is said of the schedule returned: it must cost what the solver proved.
    kept = bool(abs(cost - res.objective) <= _COST_MATCH * max(1.0, abs(res.objective)))
    proven = res.is_optimal and safe and kept
    lower = relax.total
    if safe and res.best_bound is not None:
        lower = max(lower, float(math.ceil(res.best_bound - 1e-6)))  # flow times are whole slots
    return Result(
        algorithm="mip", schedule=schedule, lower_bound=lower,
        guarantee=1.0 if proven else None,
        timings={"build": build + res.build_seconds, "solve": res.solve_seconds},
        params={"preemptive": preemptive, "time_limit": time_limit, "horizon": horizon},
        info={"status": res.status.value if kept or not res.is_optimal else "feasible",
              "solver_status": res.status.value, "optimal": proven, "windows_safe": safe,
              "best_bound": res.best_bound, "mip_objective": res.objective, "schedule_cost": cost,
              "schedule_keeps_mip_objective": kept, "incumbent": incumbent,
              "window_ends": model.layout.end.tolist(), **mip_size(model)},
    )
