"""CP-SAT as the exact engine of the packing (paper 003 §2, PRP||Σ w_j C_j) and related (paper 004
§II) ``mip`` algorithms (``--solver cpsat``): start, build, solve, and map the solution back to a
schedule of the instance's own numbers.

1. A start: the best verified non-preemptive schedule of the family's fast schedulers
   (:data:`START_ALGORITHMS`; for the related family also S-PC's list schedule, from the
   LP-Schedule this module solves anyway). It is CP-SAT's complete hint, and its cost caps the
   objective.
2. A relaxation bound valid for the model: the time-indexed MIP's LP relaxation (else LP2, and
   LP3 when every task has one usable machine) for packing, LP-Schedule (Queyranne cuts) for related, solved by HiGHS on the model's numbers
   over its factors (:func:`~schedrelax.models.cpsat_packing.relaxed_packing_instance`,
   :func:`~schedrelax.models.cpsat_related.relaxed_related_instance`: the instance itself when the
   model is exact; a bound of the instance would not be one of a rounded-down model). It becomes
   the objective's lower limit.
3. The model (:mod:`~schedrelax.models.cpsat_packing` / :mod:`~schedrelax.models.cpsat_related`),
   solved by :func:`schedrelax.solvers.cpsat_backend.solve_cpsat`.
4. The schedule is rebuilt on the instance's numbers from the solver's machine assignment and
   start order: a serial list schedule on each chosen machine for packing
   (:func:`~schedrelax.models.cpsat_packing.serial_packing`), the semi-active schedule for related
   (:func:`~schedrelax.schedulers.related_list.semi_active_schedule`). With an exact model no task
   ends later than in the solver's solution; with a rounded-down one the real (longer) times are
   honoured. The start schedule is returned instead if it is cheaper. Either is verified.

``lower_bound`` is CP-SAT's best bound over the scaling factors (a valid lower bound in both
cases); the result is ``optimal`` only when the returned schedule's own cost meets it
(:func:`schedrelax.rounding.exact.meets_bound`).
"""

from __future__ import annotations

import time

import numpy as np

from schedrelax.result import Result
from schedrelax.errors import AlgorithmError, SolverError
from schedrelax.instances import PackingInstance, RelatedInstance
from schedrelax.rounding.exact import exact_outcome
from schedrelax.schedules import Schedule, evaluate, verify
from schedrelax.solvers.cpsat_backend import DEFAULT_THREADS
from schedrelax.solvers.result import SolveStatus

START_ALGORITHMS = {"packing": ("fifo", "tetris-np", "jsq-mw"), "related": ("fifo", "huwf", "tetris")}
"""The fast non-preemptive schedulers whose best schedule starts CP-SAT (no LP, no Pyomo)."""

FIT_TOL = 1e-9
"""Relative slack of the float rebuild's capacity test (sums of float demands), as list packing's."""


def best_start(instance, seed: int | None = 0) -> tuple[str, Schedule, float, dict[str, float]]:
    """The cheapest verified non-preemptive schedule among :data:`START_ALGORITHMS` of the
    instance's family (:func:`schedrelax.rounding.exact.best_start`): (algorithm, schedule, cost,
    cost of each algorithm tried). Related schedules are non-preemptive by the family's rules;
    packing ones must promise it."""
    from schedrelax.rounding.exact import best_start as cheapest

    tried: dict[str, float] = {}
    promises = frozenset({"non_preemptive"}) if instance.family == "packing" else frozenset()
    best = cheapest(instance, START_ALGORITHMS[instance.family], promises=promises,
                    seed=0 if seed is None else seed, tried=tried)
    if best is None:
        raise AlgorithmError(f"cpsat: none of {', '.join(START_ALGORITHMS[instance.family])} gave a "
                             f"non-preemptive schedule to start from")
    return best.algorithm, best.schedule, best.objective, tried


def _check_threads(threads: object) -> int:
    if threads is None:
        return DEFAULT_THREADS
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
    return int(threads)


BOUND_TERMS_PER_SECOND = 250_000
"""The time-indexed LP bound is built only if its capacity rows hold at most this many terms per
second of the time limit: Pyomo builds and compiles about 10^6 terms a second on a 2-core machine
(3.9 M terms: 1.5 s to build, 2.3 s to compile, 1.0 s to solve), so the bound takes at most about
a quarter of the budget; otherwise LP2 (and LP3) give the bound. No time limit: no such cap."""


def _packing_lp_bound(instance: PackingInstance, upper_bound: float,
                      time_limit: float | None) -> tuple[float | None, str | None]:
    """A lower bound on *instance*'s optimum and its name: the LP relaxation of the exact
    time-indexed MIP (:func:`~schedrelax.models.packing_mip.build_nonpreemptive_mip`, capped by
    *upper_bound*, the cost of a feasible schedule), measured several times stronger than LP2 on
    the synchpack setup; where that model cannot be built (times off a small grid, too many slots,
    more capacity terms than :data:`BOUND_TERMS_PER_SECOND` allows in *time_limit*),
    LP2's optimum and LP3's when every task has one usable machine. (None, None) if none solved."""
    import pyomo.environ as pyo

    from schedrelax.models.packing_mip import build_nonpreemptive_mip
    from schedrelax.models.synchpack_lp import dedicated_machine, lp2_program, lp3_program
    from schedrelax.solvers import solve, solve_program

    try:
        model = build_nonpreemptive_mip(instance, upper_bound=upper_bound, max_terms=None if time_limit is None
                                        else int(BOUND_TERMS_PER_SECOND * time_limit))
    except AlgorithmError:
        model = None
    if model is not None:
        pyo.TransformationFactory("core.relax_integer_vars").apply_to(model)
        res = solve(model, "highs", time_limit=time_limit)
        if res.is_optimal:
            return float(res.objective), "time-indexed MIP's LP relaxation (paper 003 §2)"
    found: list[tuple[float, str]] = []
    res = solve_program(lp2_program(instance), "highs", time_limit=time_limit).result
    if res.is_optimal:
        found.append((float(res.objective), "LP2 optimum (paper 003 §4)"))
    if dedicated_machine(instance) is not None:
        res = solve_program(lp3_program(instance), "highs", time_limit=time_limit).result
        if res.is_optimal:
            found.append((float(res.objective), "LP3 optimum (paper 003 §5)"))
    if not found:
        return None, None
    return max(found)


def _outcome(instance, schedule: Schedule, start: tuple, built, run, timings: dict, params: dict,
             extra: dict) -> Result:
    from schedrelax.solvers.cpsat_backend import engine_name

    res = run.result
    if res.status in (SolveStatus.INFEASIBLE, SolveStatus.ERROR):
        # The start schedule maps to a feasible model solution: this is a modelling bug, not an outcome.
        raise SolverError(f"cpsat: CP-SAT ended {res.status.value!r} on a model the start schedule satisfies "
                          f"({res.message})")
    scaling = built.data.scaling
    verify(instance, schedule)
    cost = evaluate(instance, schedule).objective
    start_name, start_schedule, start_cost = start[:3]
    source = "cpsat"
    if start_cost < cost:
        schedule, cost, source = start_schedule, start_cost, f"start ({start_name})"
    bound = scaling.to_instance(res.best_bound) if res.best_bound is not None else None
    mip_objective = res.objective / scaling.objective_factor if res.objective is not None else float("nan")
    outcome = exact_outcome(cost, mip_objective, bound, res)
    kind = "CP-SAT best bound" + ("" if scaling.exact else " of the rounded-down model (scaled back)")
    if built.lower_limit is not None and res.best_bound is not None and res.best_bound <= built.lower_limit:
        kind += f", from {extra.get('lp_bound_kind') or 'the relaxation'}"
    return Result(
        algorithm="mip", schedule=schedule, lower_bound=bound, bound_kind=kind if bound is not None else None,
        guarantee=1.0 if outcome["optimal"] else None, timings=timings, params=params,
        info={**outcome, "engine": engine_name(), "solver_message": res.message, "scaling": scaling.as_dict(),
              "model_exact": scaling.exact, "start_algorithm": start_name, "start_cost": start_cost,
              "start_costs": start[3], "schedule_from": source, "hinted": built.hinted,
              "objective_upper_limit": built.upper_limit, "objective_lower_limit": built.lower_limit, **extra})


def packing_cpsat(instance: PackingInstance, *, time_limit: float | None = 60.0, threads: int | None = None,
                  seed: int | None = None, use_lp: bool = True) -> Result:
    """The packing ``mip`` with CP-SAT (non-preemptive PRP||Σ w_j C_j; see the module docstring).
    *use_lp* False skips the LP bound (for measuring what it brings)."""
    from schedrelax.models.cpsat_packing import (
        build_cpsat_packing,
        job_order_by_start,
        model_lower_limit,
        packing_int_data,
        relaxed_packing_instance,
        serial_packing,
    )
    from schedrelax.models.synchpack_lp import usable_pairs
    from schedrelax.schedulers.list_packing import packing_schedule
    from schedrelax.solvers.cpsat_backend import solve_cpsat

    workers = _check_threads(threads)
    t0 = time.perf_counter()
    start = best_start(instance, seed)
    t1 = time.perf_counter()
    data = packing_int_data(instance, start[2])
    lp_bound = lp_kind = None
    relaxed = relaxed_packing_instance(instance, data) if use_lp else None
    if relaxed is not None:
        lp_bound, lp_kind = _packing_lp_bound(relaxed, start[2], time_limit)
    t2 = time.perf_counter()
    built = build_cpsat_packing(instance, data=data, start_schedule=start[1], cost_bound=start[2],
                                lower_limit=model_lower_limit(lp_bound, data.scaling))
    t3 = time.perf_counter()
    run = solve_cpsat(built.model, time_limit=time_limit, threads=workers, seed=seed, build_seconds=t3 - t2)
    t4 = time.perf_counter()
    if run.result.status.has_solution:
        # data's pairs are usable_pairs(instance) in order
        chosen = np.array([i for i, lit in enumerate(built.presence) if run.value(lit)], dtype=np.int64)
        pair = np.empty(instance.n_tasks, dtype=np.int64)
        pair[built.data.pair_task[chosen]] = chosen
        model_start = run.values(built.start)
        order = job_order_by_start(model_start, np.zeros(instance.n_tasks)).tolist()
        real_pairs = usable_pairs(instance)[pair]
        machine = instance.place_machine[real_pairs]
        duration = instance.place_time[real_pairs]
        release = instance.release[instance.task_job]
        res = list(zip(instance.reserve_machine.tolist(), instance.reserve_demand.tolist(),
                       instance.reserve_until.tolist()))
        s = np.array(serial_packing(order, machine.tolist(), duration.tolist(), instance.demand.tolist(),
                                    release.tolist(), np.asarray(instance.capacities).tolist(), res, FIT_TOL))
        schedule = packing_schedule(instance, np.arange(instance.n_tasks), machine, s, s + duration,
                                    promises={"non_preemptive", "no_migration"}, meta={"algorithm": "mip"})
    else:
        schedule = start[1]
    t5 = time.perf_counter()
    timings = {"start": t1 - t0, "lp": t2 - t1, "build": t3 - t2, "solve": run.result.solve_seconds,
               "rebuild": t5 - t4}
    return _outcome(instance, schedule, start, built, run, timings,
                    {"time_limit": time_limit, "threads": workers, "seed": seed},
                    {"lp_bound": lp_bound, "lp_bound_kind": lp_kind})


RELATED_LINEARIZATION = 2
"""CP-SAT's ``linearization_level`` for the related model: 2 (its LP also holds cuts), with which
the completion-threshold rows (:func:`~schedrelax.models.cpsat_related.completion_threshold_rows`)
raise its bound further. Measured on the reach benchmark's ``spc`` instances (one worker, 60 s,
with the rows): n_jobs 6 proven on 3 of 5 seeds at level 2 against 2 of 5 at level 1, and the
unproven seeds' bounds higher (seed 0: 420.8 against 408.7; seed 1: 401.7 against 384.5)."""


def related_cpsat(instance: RelatedInstance, *, time_limit: float | None = None, threads: int | None = None,
                  seed: int | None = None, use_lp: bool = True, thresholds: bool = True) -> Result:
    """The related ``mip`` with CP-SAT (see the module docstring). *use_lp* False skips
    LP-Schedule (its bound and S-PC's start); *thresholds* False leaves out the completion-threshold
    rows (for measuring what they bring). CP-SAT runs at :data:`RELATED_LINEARIZATION`."""
    from schedrelax.models.cpsat_packing import model_lower_limit
    from schedrelax.models.cpsat_related import (
        build_cpsat_related,
        related_int_data,
        relaxed_related_instance,
        start_order,
    )
    from schedrelax.rounding.spc import lp_order, solve_lp_schedule
    from schedrelax.schedulers.related_list import list_schedule, semi_active_schedule
    from schedrelax.solvers.cpsat_backend import solve_cpsat

    workers = _check_threads(threads)
    t0 = time.perf_counter()
    start = best_start(instance, seed)
    t1 = time.perf_counter()
    lp_bound = lp_kind = None
    if use_lp:
        lp = solve_lp_schedule(instance, "highs", time_limit=time_limit)
        spc_schedule = list_schedule(instance, lp_order(instance, lp.solution.C), meta={"algorithm": "spc"})
        verify(instance, spc_schedule)
        spc_cost = evaluate(instance, spc_schedule).objective
        start[3]["spc"] = spc_cost
        if spc_cost < start[2]:
            start = ("spc", spc_schedule, spc_cost, start[3])
    data = related_int_data(instance, start[2])
    relaxed = relaxed_related_instance(instance, data) if use_lp else None
    if relaxed is not None:
        lp_bound = solve_lp_schedule(relaxed, "highs", time_limit=time_limit).lower_bound
        lp_kind = None if lp_bound is None else "LP-Schedule optimum (paper 004 §III)"
    t2 = time.perf_counter()
    built = build_cpsat_related(instance, data=data, start_schedule=start[1], cost_bound=start[2],
                                lower_limit=model_lower_limit(lp_bound, data.scaling), thresholds=thresholds)
    t3 = time.perf_counter()
    run = solve_cpsat(built.model, time_limit=time_limit, threads=workers, seed=seed, build_seconds=t3 - t2,
                      linearization_level=RELATED_LINEARIZATION)
    t4 = time.perf_counter()
    if run.result.status.has_solution:
        machine = np.array([int(np.argmax([run.value(x) for x in row])) for row in built.presence], dtype=np.int64)
        order = start_order(instance, run.values(built.start))
        schedule = semi_active_schedule(instance, order, machine, meta={"algorithm": "mip"})
    else:
        schedule = start[1]
    t5 = time.perf_counter()
    timings = {"start": t1 - t0, "lp": t2 - t1, "build": t3 - t2, "solve": run.result.solve_seconds,
               "rebuild": t5 - t4}
    return _outcome(instance, schedule, start, built, run, timings,
                    {"time_limit": time_limit, "threads": workers, "seed": seed, "thresholds": thresholds},
                    {"lp_bound": lp_bound, "lp_bound_kind": lp_kind, "linearization_level": RELATED_LINEARIZATION,
                     "threshold_literals": built.threshold_literals, "threshold_rows": built.threshold_rows})
