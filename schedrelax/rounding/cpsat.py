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
   :func:`~schedrelax.models.cpsat_related.relaxed_related_instance`: the instance itself, from
   its earliest release, when the model is exact; a bound of the instance would not be one of a
   rounded-down model). Like the model it counts time from the earliest release o (its windows
   capped by the start's cost less o·Σ w_j); it becomes the objective's lower limit, and plus
   o·Σ w_j the reported ``lp_bound``.
3. The model (:mod:`~schedrelax.models.cpsat_packing` / :mod:`~schedrelax.models.cpsat_related`),
   solved by :func:`schedrelax.solvers.cpsat_backend.solve_cpsat`.
4. The schedule is rebuilt on the instance's numbers from the solver's machine assignment and
   start order: a serial list schedule on each chosen machine for packing
   (:func:`~schedrelax.models.cpsat_packing.serial_packing`), the semi-active schedule for related
   (:func:`~schedrelax.schedulers.related_list.semi_active_schedule`). With an exact model no task
   ends later than in the solver's solution; with a rounded-down one the real (longer) times are
   honoured. The start schedule is returned instead if it is cheaper. Either is verified.

``lower_bound`` is CP-SAT's best bound over the scaling factors plus o·Σ w_j (a valid lower bound
in both cases, rounded down); the result is ``optimal`` only when the returned schedule's own cost
meets it (:func:`schedrelax.rounding.exact.meets_bound`).
"""

from __future__ import annotations

import os
import time

import numpy as np

from schedrelax.result import Result
from schedrelax.errors import AlgorithmError, SolverError
from schedrelax.instances import PackingInstance, RelatedInstance
from schedrelax.rounding.exact import Budget, exact_outcome
from schedrelax.schedules import Schedule, evaluate, verify
from schedrelax.solvers.result import SolveStatus

START_ALGORITHMS = {"packing": ("fifo", "tetris-np", "jsq-mw"), "related": ("fifo", "huwf", "tetris")}
"""The fast non-preemptive schedulers whose best schedule starts CP-SAT (no LP, no Pyomo)."""

FIT_TOL = 1e-9
"""Relative slack of the float rebuild's capacity test (sums of float demands), as list packing's."""


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it, else the
    machine's count): CP-SAT's workers when ``threads`` is None."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no sched_getaffinity (macOS, Windows)
        return max(1, os.cpu_count() or 1)


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
    """CP-SAT's workers: *threads*, or every available core when None (:func:`available_cores`;
    a second worker at packing 40 found schedules 14-17 % cheaper in the same 60 s). ``threads=1`` is deterministic for a given seed."""
    if threads is None:
        return available_cores()
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
    return int(threads)


LP_MIN_TASKS = {"packing": 35, "related": 0}
"""With ``use_lp=None`` the LP bound (and, for related, S-PC's start) is computed only on
instances of at least this many tasks. Measured with one worker, 60 s, on the reach benchmark's
instances (seeds 0-4, the 2-core machine shared): packing 10-20 jobs (10-32 tasks) were proven
by CP-SAT alone in 0.05-0.17 s at 10-15 jobs (0.6-4.1 s with the LP, which took 0.6-3.3 s) and
in 0.4-23 s at 20 jobs (3.3-31 s with it): 15 of 15 faster without. At 30 jobs (38-46 tasks)
nothing is proven in 30 s and the LP raises the bound (seed 1: 266 against 254). Related:
LP-Schedule takes 0.03-0.16 s and the proofs at n_jobs 3-4 were as fast with it as without
(0.4-7.3 s against 0.4-5.8 s, noise both ways), so it stays."""

INTERLEAVE_ONE_WORKER = True
"""On packing instances large enough for the LP bound (:data:`LP_MIN_TASKS`), one CP-SAT worker
runs CP-SAT's whole portfolio in turns (``interleave_search``) rather than its one default
strategy. Measured with one worker, 60 s brackets, the reach benchmark's packing 40 (seeds 0-2):
best schedules 509, 440, 481 against 568-590, 446, 483 (widths 9.2, 2.6, 2.8 % against 21.9, 4.0,
3.2 %; a second run: 505, 442, 486). Not below: on packing 15-20 it proves 1.2-8 times slower
(20 jobs seed 0: 22.9 s against 2.9 s). Not on related: at n_jobs 8 (one worker, 60 s) it found
the best schedules two workers find (722.7, 629.8, 1137.6 against 726.3, 630.7, 1139.7), but at
n_jobs 5-6 (20 s) it proved 4 of 10 seeds against 5 and left wider brackets on four others.
From :data:`LNS_ONE_WORKER_MIN_TASKS` tasks the one worker runs neighbourhood searches alone."""

LNS_ONE_WORKER_MIN_TASKS = 50
"""From this many tasks, one CP-SAT worker on a packing instance that gets the LP bound runs
CP-SAT's large-neighbourhood searches alone (``use_lns_only``), each in turn (with
:data:`INTERLEAVE_ONE_WORKER`; without interleaving one worker ran a single one and found 568 and
446 on seeds 0 and 1 below), instead of the whole interleaved portfolio: at these sizes the
complete searches proved nothing in 60 s with one worker or two (reach benchmark, packing 40-100
jobs, 51-104 tasks), the bound is the LP's, and the schedules are what the time buys. Measured
with one worker, 60 s brackets, seeds 0-2: packing 40 497, 441, 481-482 against 505, 442, 486
interleaved (widths 6.7, 2.8, 2.8-3.0 % against 8.4, 3.0, 3.9 %), packing 70 1133, 936, 1044
against 1180, 953, 1108 (5.4, 6.0, 5.8 % against 9.8, 7.9, 12.3 %; two workers: 6.3 % median).
Below (packing 30 jobs: 38-46 tasks) the interleaved portfolio keeps its proofs."""

LP_SHARE = 0.5
"""Most of the time left that the LP bound may take (its solver's time limit): the rest is
CP-SAT's, which also raises the bound."""


def _given_start(instance, start: Result) -> tuple[str, Schedule, float, dict[str, float]]:
    """A caller's start Result as :func:`best_start`'s tuple, verified on *instance* and costed
    afresh (a packing start must promise ``non_preemptive``: the model's schedules do)."""
    if instance.family == "packing" and "non_preemptive" not in start.schedule.promises:
        raise ValueError(f"cpsat: the start schedule of {start.algorithm!r} is preemptive; the CP-SAT packing model "
                         "is non-preemptive, so it needs a schedule that promises non_preemptive")
    verify(instance, start.schedule)
    cost = evaluate(instance, start.schedule).objective
    return start.algorithm, start.schedule, cost, {start.algorithm: cost}


BOUND_TERMS_PER_SECOND = 100_000
"""The time-indexed LP bound is built only if its capacity rows hold at most this many terms per
second of its time share (:data:`LP_SHARE` of the time left); otherwise LP2 (and LP3) give the
bound. Built as arrays and solved by HiGHS's simplex (:func:`~schedrelax.models.packing_ti_lp.
ti_lp_program`), 0.55 M terms (packing 30 jobs) took 3-9 s and 1.05 M (40 jobs) 15-32 s on the
shared 2-core machine at load 9; IPM took 32 and 84 s. No time limit: no such cap."""


LP_MAX_TERMS = 600_000
"""Above this many capacity terms the time-indexed bound comes from the Lagrangian
(:func:`~schedrelax.models.packing_lagrangian.lagrangian_bound`) instead of the LP: on the shared
2-core machine at load 9-17, packing 30 jobs (0.55 M terms) gave the LP 317.02 in 3-13 s and the
Lagrangian 317.05 in 10 s; packing 40 (1.05 M terms) did not finish its LP in 28 s (15-32 s when it
did: 465.71), while the Lagrangian, a valid bound at every step, reached 465.02 in 20 s."""


def _packing_lp_bound(instance: PackingInstance, upper_bound: float,
                      time_limit: float | None) -> tuple[float | None, str | None]:
    """A lower bound on *instance*'s optimum and its name: the time-indexed MIP's LP relaxation
    (:func:`~schedrelax.models.packing_ti_lp.ti_lp_program`, windows capped by *upper_bound*, the
    cost of a feasible schedule), measured several times stronger than LP2 on the synchpack setup,
    up to :data:`LP_MAX_TERMS` capacity terms (and :data:`BOUND_TERMS_PER_SECOND` a second of
    *time_limit*); above, the Lagrangian bound of the same model in *time_limit*
    (:func:`~schedrelax.models.packing_lagrangian.lagrangian_bound`, lowered by
    :data:`~schedrelax.rounding.exact.BOUND_SLACK` for its float sums). Where neither gives a
    bound (times off a small grid, too many slots, no time), LP2's optimum and LP3's when every
    task has one usable machine. (None, None) if none solved."""
    from schedrelax.models.packing_lagrangian import lagrangian_bound
    from schedrelax.models.packing_mip import time_grid
    from schedrelax.models.packing_ti_lp import capacity_terms, ti_lp_program
    from schedrelax.models.synchpack_lp import (
        dedicated_machine,
        interval_lp_solution,
        lp2_program,
        lp3_program,
        lp3_solution,
    )
    from schedrelax.rounding.exact import below
    from schedrelax.solvers import solve_program

    try:
        terms = capacity_terms(instance, upper_bound)
    except AlgorithmError:
        terms = None
    if terms is not None and terms <= LP_MAX_TERMS:
        try:
            program = ti_lp_program(instance, upper_bound=upper_bound, max_terms=None if time_limit is None
                                    else int(BOUND_TERMS_PER_SECOND * time_limit))
        except AlgorithmError:
            program = None
        if program is not None:
            res = solve_program(program, "highs", time_limit=time_limit).result
            if res.is_optimal:
                return (time_grid(instance).bound(float(res.objective), instance.weights),
                        "time-indexed MIP's LP relaxation (paper 003 §2)")
    found: list[tuple[float, str]] = []
    if terms is not None and terms > LP_MAX_TERMS:
        t0 = time.perf_counter()
        lagr = lagrangian_bound(instance, upper_bound, time_limit=LAGRANGIAN_SECONDS if time_limit is None
                                else time_limit)
        kind = f"Lagrangian bound of the time-indexed MIP (capacity rows priced, {lagr.iterations} subgradient steps)"
        found.append((below(lagr.bound), kind))
        if time_limit is not None:
            time_limit = max(0.05, time_limit - (time.perf_counter() - t0))
    solved = solve_program(lp2_program(instance, normalized=True), "highs", time_limit=time_limit)
    if solved.result.is_optimal:  # read on the instance's clock, as LP3 below
        found.append((interval_lp_solution(solved).objective, "LP2 optimum (paper 003 §4)"))
    if dedicated_machine(instance) is not None:
        solved = solve_program(lp3_program(instance, normalized=True), "highs", time_limit=time_limit)
        if solved.result.is_optimal:  # the solver's objective is in LP3's own units
            found.append((lp3_solution(solved).objective, "LP3 optimum (paper 003 §5)"))
    if not found:
        return None, None
    return max(found)


RELATED_TI_MIN_TASKS = 12
"""The related time-indexed LP bound (:mod:`schedrelax.models.related_ti_lp`) is tried on instances
of at least this many tasks: below, CP-SAT proves the optimum in about a second (reach benchmark,
n_jobs 3: 1.2 s) and a bound is not what is missing."""

RELATED_TI_SHARE = 0.45
"""Most of the time left that the related time-indexed LP bound may take; CP-SAT gets the rest.
At related n_jobs 8 (one worker, 60 s) 0.3 stopped two of three seeds a grid short (bounds 678.2
and 1099.0 against 690.5 and 1107.3 at 0.45), and CP-SAT's best schedules were the same with the
smaller share (it finds them early: 300 s alone found nothing better)."""

RELATED_TI_K = (4, 9)
"""The grid widths tried by the related time-indexed LP bound: 2^-k of the longest task at its
fastest speed, k from the first to the second number, finer while the next one is predicted to fit
its time (a finer grid is a tighter bound: the floor of a duration loses less). On the reach
benchmark's ``spc`` n_jobs 8 (26 tasks, 6 machines): k = 5, 6, 7 gave 1082.8, 1090.1 and 1094.4
(seed 2) in 0.4, 1.5 and 7.2 s; each step has about 4 times the capacity terms."""

RELATED_TI_MAX_TERMS = 8_000_000
"""The related time-indexed LP is not built past this many capacity terms (memory), and its first
grid not past :data:`BOUND_TERMS_PER_SECOND` a second of its time (speeds that differ by decades
make even the first grid that large); finer grids are started by :data:`RELATED_TI_GROWTH`."""

RELATED_TI_GROWTH = 5.0
"""The time of the next finer grid predicted as this many times the last one's (measured 4.5-4.6
times from 1/64 to 1/128 of the longest task with the precedence rows found lazily, build
included; 3.5-8.5 times with them all built), so that the next grid is only started when it should
fit. A grid that does not fit after all is stopped by HiGHS's clock at the time left, and its last
optimal round still counts (:class:`~schedrelax.models.related_ti_lp.SlotPrecedenceSeparation`)."""

RELATED_TI_ROUNDS = 50
"""Most LP solves of one grid's cutting-plane loop (precedence slot by slot found lazily); related
n_jobs 8 converged in 3-6."""


def _related_ti_bound(instance: RelatedInstance, upper_bound: float,
                      time_limit: float | None) -> tuple[float | None, str | None]:
    """The related time-indexed LP bound (:mod:`schedrelax.models.related_ti_lp`, pulse form, windows
    capped by *upper_bound*, precedence slot by slot added as cuts) on the finest grid of
    :data:`RELATED_TI_K` that fits *time_limit* (every grid's optimum, and every round's of its
    cutting-plane loop, is a valid bound; the largest is kept, lowered by
    :data:`~schedrelax.rounding.exact.BOUND_SLACK` for the solver's tolerance). (None, None) when no
    grid was solved."""
    from schedrelax.models.related_ti_lp import (
        SlotPrecedenceSeparation,
        default_delta,
        related_ti_lp_program,
        slot_layout,
    )
    from schedrelax.rounding.exact import below
    from schedrelax.solvers.cutting_planes import cutting_planes_rows

    budget = Budget(time_limit)
    best = kind = None
    last_seconds = 0.0
    for k in range(RELATED_TI_K[0], RELATED_TI_K[1] + 1):
        left = budget.left()
        if left is not None and (left <= 0 or last_seconds * RELATED_TI_GROWTH > left):
            break
        t = time.perf_counter()
        try:
            layout = slot_layout(instance, default_delta(instance, k), upper_bound)
        except AlgorithmError:
            break
        if not len(layout.jobs):  # no weighted job: the optimum is 0, nothing to bound
            break
        terms = layout.terms("pulse")
        if terms > RELATED_TI_MAX_TERMS or (left is not None and best is None
                                            and terms > BOUND_TERMS_PER_SECOND * left):
            break
        program = related_ti_lp_program(layout, "pulse", strong_precedence=False)
        looped = cutting_planes_rows(program, SlotPrecedenceSeparation(program), solver="highs", keep=None,
                                     warm=False, max_rounds=RELATED_TI_ROUNDS, time_limit=budget.left())
        last_seconds = time.perf_counter() - t
        res = looped.last_optimal
        if res is None:
            break
        value = below(layout.grid.bound(float(res.objective)))
        if best is None or value > best:
            best = value
            kind = f"time-indexed LP on a grid of 1/{2**k} of the longest task (durations rounded down)"
    return best, kind


LAGRANGIAN_SECONDS = 60.0
"""The Lagrangian's time without a time limit (it stops earlier once its steps stall)."""


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
    mip_objective = scaling.objective_out(res.objective) if res.objective is not None else float("nan")
    kind = "CP-SAT best bound" + ("" if scaling.exact else " of the rounded-down model (scaled back)")
    if built.lower_limit is not None and res.best_bound is not None and res.best_bound <= built.lower_limit:
        kind += f", from {extra.get('lp_bound_kind') or 'the relaxation'}"
    lp_bound = extra.get("lp_bound")
    if lp_bound is not None and (bound is None or lp_bound > bound):
        # CP-SAT stopped before its bound reached the relaxation's (a budget the start and the LP
        # used up: measured at related n_jobs 8, bound 0 after 9.6 s at load 17); both are valid.
        bound, kind = lp_bound, extra.get("lp_bound_kind") or "the relaxation's optimum"
    outcome = exact_outcome(cost, mip_objective, bound, res)
    return Result(
        algorithm="mip", schedule=schedule, lower_bound=bound, bound_kind=kind if bound is not None else None,
        guarantee=1.0 if outcome["optimal"] else None, timings=timings, params=params,
        info={**outcome, "engine": engine_name(), "solver_message": res.message, "scaling": scaling.as_dict(),
              "model_exact": scaling.exact, "start_algorithm": start_name, "start_cost": start_cost,
              "start_costs": start[3], "schedule_from": source, "hinted": built.hinted,
              "objective_upper_limit": built.upper_limit, "objective_lower_limit": built.lower_limit, **extra})


def packing_cpsat(instance: PackingInstance, *, time_limit: float | None = 60.0, threads: int | None = None,
                  seed: int | None = None, use_lp: bool | None = None, start: Result | None = None) -> Result:
    """The packing ``mip`` with CP-SAT (non-preemptive PRP||Σ w_j C_j; see the module docstring).

    *time_limit* bounds the whole call (start, LP bound, build, solve:
    :class:`~schedrelax.rounding.exact.Budget`).
    *use_lp* None decides by size (:data:`LP_MIN_TASKS`), False skips the LP bound, True keeps it.
    *start*, a verified non-preemptive Result, replaces the start schedulers' best (:func:`sr.bracket
    <schedrelax.bracket.bracket>` passes the best schedule it found)."""
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
    budget = Budget(time_limit)
    t0 = budget.t0
    start = _given_start(instance, start) if start is not None else best_start(instance, seed)
    t1 = time.perf_counter()
    data = packing_int_data(instance, start[2])
    lp_bound = lp_kind = None
    with_lp = instance.n_tasks >= LP_MIN_TASKS["packing"] if use_lp is None else bool(use_lp)
    relaxed = relaxed_packing_instance(instance, data) if with_lp else None
    if relaxed is not None:
        # the relaxed instance counts time from the model's origin: so do its bound and its cap
        lp_bound, lp_kind = _packing_lp_bound(relaxed, data.scaling.cost_in(start[2], instance.n_jobs),
                                              budget.left(LP_SHARE))
    t2 = time.perf_counter()
    built = build_cpsat_packing(instance, data=data, start_schedule=start[1], cost_bound=start[2],
                                lower_limit=model_lower_limit(lp_bound, data.scaling))
    lp_bound = data.scaling.bound_out(lp_bound)
    t3 = time.perf_counter()
    lns_only = workers == 1 and with_lp and instance.n_tasks >= LNS_ONE_WORKER_MIN_TASKS
    interleave = INTERLEAVE_ONE_WORKER and workers == 1 and with_lp
    run = solve_cpsat(built.model, time_limit=budget.for_solve(), threads=workers, seed=seed, build_seconds=t3 - t2,
                      interleave=interleave, lns_only=lns_only)
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
                    {"lp_bound": lp_bound, "lp_bound_kind": lp_kind, "lp_used": with_lp,
                     "search": "lns only, interleaved" if lns_only else "interleaved" if interleave else "portfolio"})


RELATED_LINEARIZATION = 2
"""CP-SAT's ``linearization_level`` for the related model: 2 (its LP also holds cuts), with which
the completion-threshold rows (:func:`~schedrelax.models.cpsat_related.completion_threshold_rows`)
raise its bound further. Measured on the reach benchmark's ``spc`` instances (one worker, 60 s,
with the rows): n_jobs 6 proven on 3 of 5 seeds at level 2 against 2 of 5 at level 1, and the
unproven seeds' bounds higher (seed 0: 420.8 against 408.7; seed 1: 401.7 against 384.5)."""


def related_cpsat(instance: RelatedInstance, *, time_limit: float | None = None, threads: int | None = None,
                  seed: int | None = None, use_lp: bool | None = None, thresholds: bool = True,
                  start: Result | None = None) -> Result:
    """The related ``mip`` with CP-SAT (see the module docstring). *time_limit* bounds the whole
    call (:class:`~schedrelax.rounding.exact.Budget`). *use_lp* False skips LP-Schedule (its bound
    and S-PC's start), None decides by size (:data:`LP_MIN_TASKS`); *thresholds* False leaves out
    the completion-threshold rows (for measuring what they bring); *start*, a verified Result,
    replaces the start schedulers' best. CP-SAT runs at :data:`RELATED_LINEARIZATION`."""
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
    budget = Budget(time_limit)
    t0 = budget.t0
    start = _given_start(instance, start) if start is not None else best_start(instance, seed)
    t1 = time.perf_counter()
    lp_bound = lp_kind = None
    use_lp = instance.n_tasks >= LP_MIN_TASKS["related"] if use_lp is None else bool(use_lp)
    if use_lp:
        lp = solve_lp_schedule(instance, "highs", time_limit=budget.left(LP_SHARE))
        spc_schedule = list_schedule(instance, lp_order(instance, lp.solution.C), meta={"algorithm": "spc"})
        verify(instance, spc_schedule)
        spc_cost = evaluate(instance, spc_schedule).objective
        start[3]["spc"] = spc_cost
        if spc_cost < start[2]:
            start = ("spc", spc_schedule, spc_cost, start[3])
    data = related_int_data(instance, start[2])
    relaxed = relaxed_related_instance(instance, data) if use_lp else None
    if relaxed is not None:
        # the relaxed instance counts time from the model's origin: so do its bounds and the cap
        lp_bound = solve_lp_schedule(relaxed, "highs", time_limit=budget.left(LP_SHARE)).lower_bound
        lp_kind = None if lp_bound is None else "LP-Schedule optimum (paper 004 §III)"
        if instance.n_tasks >= RELATED_TI_MIN_TASKS:
            # on the relaxed instance too: its bound is then also one of the rounded model's
            ti_bound, ti_kind = _related_ti_bound(relaxed, data.scaling.cost_in(start[2], instance.n_jobs),
                                                  budget.left(RELATED_TI_SHARE))
            if ti_bound is not None and (lp_bound is None or ti_bound > lp_bound):
                lp_bound, lp_kind = ti_bound, ti_kind
    t2 = time.perf_counter()
    built = build_cpsat_related(instance, data=data, start_schedule=start[1], cost_bound=start[2],
                                lower_limit=model_lower_limit(lp_bound, data.scaling), thresholds=thresholds)
    lp_bound = data.scaling.bound_out(lp_bound)
    t3 = time.perf_counter()
    run = solve_cpsat(built.model, time_limit=budget.for_solve(), threads=workers, seed=seed, build_seconds=t3 - t2,
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
                    {"lp_bound": lp_bound, "lp_bound_kind": lp_kind, "lp_used": use_lp,
                     "linearization_level": RELATED_LINEARIZATION,
                     "threshold_literals": built.threshold_literals, "threshold_rows": built.threshold_rows})
