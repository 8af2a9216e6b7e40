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
from schedrelax.rounding.exact import exact_outcome
from schedrelax.schedulers.mapreduce_policies import ASRPTPolicy, FIFOPolicy
from schedrelax.schedulers.mapreduce_sim import model_description, resolve_model, simulate, srpt_relaxation
from schedrelax.schedules import evaluate


@register("mip", "mapreduce", "exact time-indexed MIP of eq. (1) / eq. (2) (tiny instances only)",
          uses_solver=True, paper="001 §III eqs. (1)-(2)")
def mip(instance: MapReduceInstance, *, solver: str = "highs", seed: int | None = None, time_limit: float = 60.0,
        model: str | None = None, preemptive: bool | None = None, horizon: int | None = None) -> Result:
    """The optimum under *model* (the policies' three models, see
    :func:`~schedrelax.schedulers.mapreduce_sim.resolve_model`), from the MIP of
    :func:`~schedrelax.models.mapreduce_mip.build_mapreduce_mip`: ``non-preemptive`` is paper 001
    §III eq. (2); ``preemptive-tasks`` is eq. (1) with each Reduce task on one machine per slot;
    ``paper-preemptive`` is eq. (1) itself (the same MIP, on an instance of unit Reduce tasks).

    The best of ASRPT and FIFO under the same model is a feasible flow time; it bounds every job's
    window (:func:`~schedrelax.models.mapreduce_mip.mip_windows`), which keeps the model small
    without cutting off any optimum. *horizon* caps the windows further (then the result is an
    optimum only if the cap cut nothing: ``info["windows_safe"]``). Raises NoOptimalSolutionError
    if the solver stops without any solution; a time limit with an incumbent returns it, with
    ``info["optimal"]`` False and the solver's bound in ``lower_bound``. The schedule read back is
    evaluated, and called optimal only when its own cost meets the proven bound
    (:func:`~schedrelax.rounding.exact.exact_outcome`; ``info["schedule_cost"]`` beside
    ``info["mip_objective"]``).
    """
    from schedrelax.models.mapreduce_mip import build_mapreduce_mip, mapreduce_mip_schedule, mip_size
    from schedrelax.solvers import solve

    model_name, preemptive = resolve_model(instance, model, preemptive)
    relax = srpt_relaxation(instance)
    incumbent = min(simulate(instance, policy, preemptive=preemptive).total_flow
                    for policy in (ASRPTPolicy(relax), FIFOPolicy()))
    t0 = time.perf_counter()
    milp = build_mapreduce_mip(instance, preemptive=preemptive, upper_bound=incumbent, horizon=horizon)
    build = time.perf_counter() - t0
    res = solve(milp, solver, time_limit=time_limit)
    if not res.status.has_solution:
        raise NoOptimalSolutionError(f"mapreduce MIP: solver {res.solver!r} ended with status {res.status.value!r} "
                                     f"and no solution ({res.message})")
    safe = milp.layout.safe
    schedule = mapreduce_mip_schedule(milp)
    cost = evaluate(instance, schedule).objective
    lower = relax.total
    if safe and res.best_bound is not None:
        lower = max(lower, float(math.ceil(res.best_bound - 1e-6)))  # flow times are whole slots
    # Capped windows (unsafe) make the model a restriction: its optimum proves nothing about OPT.
    outcome = exact_outcome(cost, res.objective, lower, res, exact=safe)
    return Result(
        algorithm="mip", schedule=schedule, lower_bound=lower,
        bound_kind=(f"max(SRPT bound, MIP dual bound ({res.solver}))" if safe and res.best_bound is not None
                    else "SRPT bound (paper 001 Lemma 1)"),
        guarantee=1.0 if outcome["optimal"] else None,
        timings={"build": build + res.build_seconds, "solve": res.solve_seconds},
        params={"model": model_name, "preemptive": preemptive, "time_limit": time_limit, "horizon": horizon},
        info={"model": model_description(instance, model_name), **outcome, "windows_safe": safe, "incumbent": incumbent,
              "window_ends": milp.layout.end.tolist(), **mip_size(milp)},
    )
