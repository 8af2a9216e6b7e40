"""SynchPack-1, -2 and -3 (paper 003 §3.2, §4.2, §5.2): solve the relaxation, round, pack.

* ``synchpack1`` — LP1, greedy list packing of task fractions by interval with the placement rule
  and preemption (§3.2 Step 2), Slow-Motion (Step 3), optional shift-back. Preemptive, migrating.
  Theorem 1: Σ w_j C_j <= 6(1+ε)·LP1 when λ is derandomised.
* ``synchpack2`` — LP2, Slow-Motion by eq. (15), tasks matched to machine-interval copies
  (substep 3.1, Lemma 6), greedy non-preemptive packing interval by interval (substep 3.2),
  optional shift-back. Theorem 2: Σ w_j C_j <= 24·LP2 with the derandomised λ.
* ``synchpack3`` — LP3, jobs ordered by their LP3 completion times, preemptive list scheduling on
  each machine (§5.2). Theorem 3: Σ w_j C_j <= 4·LP3.
* ``mip`` — the exact time-indexed MIPs of :mod:`schedrelax.models.packing_mip`, the optima the
  others are compared with.

The guarantees are the papers' for the offline problem (all releases 0) and an optimal LP; a
``Result`` carries ``guarantee`` only then, and ``lower_bound`` only when the LP was solved to
optimality (a time limit that stops the solver early gives a schedule but no bound). The
intermediate objects each lemma speaks of (τ_l of Lemma 2, the mapped volumes of Lemma 7, the
block completion times of Lemma 10) are returned by the ``*_round`` functions.
"""

from __future__ import annotations

import dataclasses
import math
import time
from functools import partial
from dataclasses import dataclass

import numpy as np

from schedrelax.result import Result
from schedrelax.errors import NoOptimalSolutionError, SolverError
from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from schedrelax.models.packing_mip import (
    MIP_BUILD_TERMS_PER_SECOND,
    build_nonpreemptive_mip,
    build_preemptive_mip,
    build_terms,
    check_grid,
    packing_mip_schedule,
    packing_mip_start,
    time_grid,
)
from schedrelax.models.synchpack_lp import (
    IntervalLPSolution,
    LP3Basis,
    LP3Solution,
    dedicated_machine,
    dedicated_placement,
    interval_lp_solution,
    lp1_program,
    lp2_program,
    lp3_program,
    lp3_solution,
    spread_pools,
)
from schedrelax.rounding.exact import (
    Budget,
    below,
    best_start,
    exact_outcome,
    keep_cheaper,
    gap_options,
    larger_bound,
)
from schedrelax.rounding.matching import (
    CopyGraph,
    cover_matching,
    interval_copy_graph,
    matched_pair,
)
from schedrelax.rounding.slow_motion import (
    Timeline,
    best_stretch,
    draw_stretch,
    stretch_bound_candidates,
    stretch_fractions,
    stretch_pieces,
)
from schedrelax.schedulers.fifo import fifo_packing
from schedrelax.schedulers.list_packing import (
    Pieces,
    Reservations,
    earliest_finish_machines,
    fastest_machine,
    interval_fraction_packing,
    left_shift,
    nonpreemptive_list_packing,
    packing_schedule,
    preemptive_list_packing,
)
from schedrelax.schedules import Schedule, evaluate, tie_order, time_scale
from schedrelax.solvers import solve, solve_program
from schedrelax.solvers.registry import highs_method
from schedrelax.solvers.result import SolveResult, SolveStatus

SLOW_MOTION_MODES = ("task", "machine")
FRACTION_ZERO = 1e-9
"""LP fractions below this are solver round-off; each task's fractions are rescaled to sum to 1."""


def _solve(program, solver: str, time_limit: float | None, basis=None):
    """Solve an LP's arrays (HiGHS takes them as they are; another solver gets the Pyomo model
    the ``build_lp*`` functions return, the same rows: tests/test_matrix.py); *basis*: statuses
    to start from (:func:`~schedrelax.solvers.solve_program`)."""
    solved = solve_program(program, solver, time_limit=time_limit, basis=basis)
    res = solved.result
    if not res.status.has_solution:
        raise NoOptimalSolutionError(f"{program.name}: solver {res.solver!r} ended with status {res.status.value!r} "
                                     f"and no solution ({res.message})")
    return res, solved


AGGREGATE_MODES = (False, True, "auto")
"""``aggregate`` of SynchPack-1/2: False, the written-out LP; True, machine classes pooled
(:func:`~schedrelax.models.synchpack_lp.interval_columns`); "auto" (default), pooled exactly when
the instance has elsewhere rules (compressed placement: written out, LP1 on 300 Google jobs over
5,000 machines needs more than 6 GB)."""


def _interval_lp(instance: PackingInstance, build, solver: str, time_limit: float | None, aggregate):
    """LP1 or LP2 (*build* is ``lp1_program``/``lp2_program`` with its options bound) solved, as a
    solution over real machines: pooled per machine class when *aggregate* says so and the pooled
    solution spreads back over the machines (:func:`~schedrelax.models.synchpack_lp.spread_pools`,
    a certificate that it is optimal for the written-out LP); otherwise, or when the spread
    fails, the written-out LP. Returns (solve result, solution, seconds to build, how it went)."""
    if aggregate not in AGGREGATE_MODES:
        raise ValueError(f"aggregate must be one of {AGGREGATE_MODES}; got {aggregate!r}")
    pooled = instance.compressed if aggregate == "auto" else bool(aggregate)
    t0 = time.perf_counter()
    if pooled:
        program = build(aggregate=True)
        built = time.perf_counter() - t0
        res, solved = _solve(program, solver, time_limit)
        try:
            return res, spread_pools(instance, interval_lp_solution(solved)), built, "pooled"
        except ValueError as exc:
            # The pooled LP is below the written-out one here: its optimum is still a lower
            # bound, but the rounding needs an optimal solution over real machines.
            how = f"written out (the pooled solution did not spread: {exc})"
        t0 = time.perf_counter()
    else:
        how = "written out"
    program = build(aggregate=False)
    built = time.perf_counter() - t0
    res, solved = _solve(program, solver, time_limit)
    return res, interval_lp_solution(solved), built, how


def _clean_fractions(z: np.ndarray, pair_task: np.ndarray, n_tasks: int) -> np.ndarray:
    z = np.where(z > FRACTION_ZERO, z, 0.0)
    per_task = np.bincount(pair_task, weights=z.sum(axis=1), minlength=n_tasks)
    return z / per_task[pair_task][:, None]


def _check_mode(mode: str) -> None:
    if mode not in SLOW_MOTION_MODES:
        raise ValueError(f"slow_motion must be one of {', '.join(SLOW_MOTION_MODES)}; got {mode!r}")


def _stretch_choice(lam, seed) -> float | None:
    """None for the derandomised choice, else the λ to use ("random": drawn with density 2λ)."""
    if lam is None:
        return None
    if lam == "random":
        return draw_stretch(np.random.default_rng(seed))
    if isinstance(lam, str) or not isinstance(lam, (int, float, np.integer, np.floating)):
        raise ValueError(f"lam must be in (0, 1], None (derandomised) or 'random'; got {lam!r}")
    lam = float(lam)
    if not 0 < lam <= 1:
        raise ValueError(f"lam must be in (0, 1], None (derandomised) or 'random'; got {lam!r}")
    return lam


def _offline(instance: PackingInstance) -> bool:
    """All releases 0 and no reservations: the setting the theorems' guarantees are proved in (the
    LPs ignore reservations, so with them the LP stays a lower bound but the proofs do not hold)."""
    return not np.asarray(instance.release).any() and not instance.reservations


# --------------------------------------------------------------------------------------------
# SynchPack-1
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SynchPack1Run:
    """One rounding of LP1: the fraction list (items in list order), schedule S of Step 2, τ_l of
    Lemma 2 (completion in S of every fraction of intervals <= l; NaN where none), λ, and the
    final schedule (S̄, shifted back if asked)."""

    item_pair: np.ndarray
    item_interval: np.ndarray
    packing: Pieces
    tau: np.ndarray
    lam: float
    schedule: Schedule


def synchpack1_round(instance: PackingInstance, sol: IntervalLPSolution, *, lam: float | None = None,
                     mode: str = "task", shift_back: bool = True) -> SynchPack1Run:
    """Steps 2 and 3 of SynchPack-1 (paper 003 §3.2) on an LP1 solution; ``lam=None`` picks the λ
    minimising Σ w_j C̄_j over every breakpoint (:func:`~schedrelax.rounding.slow_motion.best_stretch`).

    The fraction list is ordered by interval, then (our choice for "arbitrarily") by the job's LP
    completion time, task and machine.
    """
    _check_mode(mode)
    z = _clean_fractions(sol.z, sol.pair_task, instance.n_tasks)
    q, l = np.nonzero(z)
    task = sol.pair_task[q]
    job = instance.task_job[task]
    order = np.lexsort((sol.pair_machine[q], task, sol.completion[job], l))
    q, l, task, job = q[order], l[order], task[order], job[order]
    caps = np.asarray(instance.capacities, dtype=float)
    S = interval_fraction_packing(sol.pair_machine[q], z[q, l] * sol.pair_time[q], instance.demand[task], task, l,
                                  instance.release[job], caps, Reservations.of(instance))
    tau = np.full(sol.grid.L + 1, np.nan)
    np.fmax.at(tau, l, S.finish)
    tau = np.fmax.accumulate(tau)

    piece_pair = q[S.item]
    amount = (S.end - S.start) / sol.pair_time[piece_pair]
    if mode == "task":
        unit, total = sol.pair_task[piece_pair], np.ones(instance.n_tasks)
        unit_job = instance.task_job
    else:
        unit, total = piece_pair, z.sum(axis=1)
        unit_job = instance.task_job[sol.pair_task]
    tl = Timeline.build(unit, S.start, S.end, amount, total, unit_job)
    if lam is None:
        lam, _ = best_stretch(tl, instance.weights)
    kept, start, end = stretch_pieces(tl, lam)
    machine = S.machine[kept]
    ptask = sol.pair_task[piece_pair[kept]]
    if shift_back:
        start, end = _shift(instance, machine, start, end, ptask)
    schedule = packing_schedule(instance, ptask, machine, start, end, meta={"algorithm": "synchpack1"})
    return SynchPack1Run(item_pair=q, item_interval=l, packing=S, tau=tau, lam=float(lam), schedule=schedule)


def _shift(instance, machine, start, end, task):
    new = left_shift(machine, start, end, task, instance.demand[task], instance.release[instance.task_job[task]],
                     instance.capacities, Reservations.of(instance))
    return new, new + (end - start)


def synchpack1(instance: PackingInstance, *, solver: str = "highs", seed: int | None = 0, eps: float = 1.0,
               lam: float | str | None = None, slow_motion: str = "task", shift_back: bool = True,
               time_limit: float | None = None, aggregate: bool | str = "auto") -> Result:
    """SynchPack-1 (paper 003 §3.2) for PRP|mgr|Σ w_j C_j: LP1 with geometric ratio 1+``eps``,
    Steps 2-3 by :func:`synchpack1_round`. ``lam``: None (derandomised, Theorem 1's 6(1+ε) holds
    deterministically), ``"random"`` (drawn from density 2λ with ``seed``; the bound then holds in
    expectation only) or a number in (0, 1].

    ``aggregate`` (:data:`AGGREGATE_MODES`; default "auto": on instances with elsewhere rules):
    LP1 with each machine class's elsewhere machines pooled
    (:func:`~schedrelax.models.synchpack_lp.interval_columns`), its solution spread back over real
    machines (:func:`~schedrelax.models.synchpack_lp.spread_pools`). A spread that succeeds
    (always, on symmetric classes) is an optimal LP1 solution, so the bound and the guarantee
    stand; when it fails the written-out LP is solved instead (``info["lp_form"]`` says which).
    The pooled LP may reach another optimal vertex than the written-out one, hence possibly
    another schedule of the same guarantee."""
    res, sol, built, how = _interval_lp(instance, partial(lp1_program, instance, eps=eps, normalized=True), solver,
                                        time_limit, aggregate)
    t2 = time.perf_counter()
    choice = _stretch_choice(lam, seed)
    run = synchpack1_round(instance, sol, lam=choice, mode=slow_motion, shift_back=shift_back)
    t3 = time.perf_counter()
    proven = res.is_optimal
    guarantee = 6 * (1 + eps) if proven and lam is None and slow_motion == "task" and _offline(instance) else None
    return Result(
        algorithm="synchpack1", schedule=run.schedule, lower_bound=sol.objective if proven else None,
        bound_kind="LP1 optimum (paper 003 §3.1)" if proven else None,
        guarantee=guarantee,
        timings={"build": built + res.build_seconds, "solve": res.solve_seconds, "round": t3 - t2},
        params={"eps": eps, "lam": lam, "slow_motion": slow_motion, "shift_back": shift_back, "time_limit": time_limit,
                "aggregate": aggregate},
        info={"lp_form": how, "lp_status": res.status.value, "lp_objective": sol.objective, "lambda": run.lam,
              "intervals": sol.grid.L + 1, "fractions": len(run.item_pair), "pieces_in_S": len(run.packing.item)})


# --------------------------------------------------------------------------------------------
# SynchPack-2
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SynchPack2Run:
    """One rounding of LP2 at stretch λ: the stretched fractions z̄ (eq. 15), graph G and the
    matching (substep 3.1), each task's machine and interval, the volume mapped to each
    machine-interval with Lemma 7's bound d̄_l m_i + Σ v z̄, the completion times of the packing of
    substep 3.2 before any shift-back (Lemma 10: <= 6 d̄_l), the final schedule and its objective."""

    lam: float
    zbar: np.ndarray
    graph: CopyGraph
    task_machine: np.ndarray
    task_interval: np.ndarray
    mapped_volume: np.ndarray
    volume_bound: np.ndarray
    packed_completion: np.ndarray
    schedule: Schedule
    objective: float


def synchpack2_round(instance: PackingInstance, sol: IntervalLPSolution, lam: float, *, mode: str = "task",
                     shift_back: bool = True) -> SynchPack2Run:
    """Steps 2 and 3 of SynchPack-2 (paper 003 §4.2) on an LP2 solution for one λ.

    Within a machine-interval the "arbitrary ordered list" of substep 3.2 is ours: jobs by LP
    completion time, then task index. Interval l of machine i starts when its interval l-1 has
    completed (the machine is empty), as the analysis of Lemma 10 adds the intervals' lengths.
    """
    _check_mode(mode)
    nT = instance.n_tasks
    z = _clean_fractions(sol.z, sol.pair_task, nT)
    unit = sol.pair_task if mode == "task" else np.arange(len(sol.pair_task))
    zbar = _clean_fractions(stretch_fractions(z, lam, unit), sol.pair_task, nT)
    volume = instance.demand[sol.pair_task] * sol.pair_time
    graph = interval_copy_graph(zbar, sol.pair_task, sol.pair_machine, volume, nT)
    match = cover_matching(graph)
    pair = matched_pair(graph, match)
    interval = graph.copy_interval[match]
    machine = sol.pair_machine[pair]
    ptime = sol.pair_time[pair]
    M, L1 = instance.n_machines, sol.grid.L + 1
    caps = np.asarray(instance.capacities, dtype=float)
    mapped = np.zeros((M, L1))
    np.add.at(mapped, (machine, interval), instance.demand * ptime)
    frac_volume = np.zeros((M, L1))
    np.add.at(frac_volume, sol.pair_machine, volume[:, None] * zbar)
    dbar = sol.grid.d / lam
    bound = dbar[None, :] * caps[:, None] + frac_volume

    job = instance.task_job
    rank = np.lexsort((np.arange(nT), sol.completion[job]))
    position = np.empty(nT, dtype=np.int64)
    position[rank] = np.arange(nT)
    start = np.zeros(nT)
    block_start = np.zeros(M)
    for lv in range(L1):
        items = np.flatnonzero(interval == lv)
        if not len(items):
            continue
        rel = np.maximum(instance.release[job[items]], block_start[machine[items]])
        packed = nonpreemptive_list_packing(machine[items], ptime[items], instance.demand[items], position[items], rel,
                                            caps, Reservations.of(instance))
        start[items[packed.item]] = packed.start
        np.maximum.at(block_start, machine[items], packed.finish)
    end = start + ptime
    packed_completion = end.copy()
    if shift_back:
        start, end = _shift(instance, machine, start, end, np.arange(nT))
    schedule = packing_schedule(instance, np.arange(nT), machine, start, end,
                                promises={"non_preemptive", "no_migration"}, meta={"algorithm": "synchpack2"})
    objective = float(evaluate(instance, schedule).objective)
    return SynchPack2Run(lam=float(lam), zbar=zbar, graph=graph, task_machine=machine, task_interval=interval,
                         mapped_volume=mapped, volume_bound=bound, packed_completion=packed_completion,
                         schedule=schedule, objective=objective)


def synchpack2(instance: PackingInstance, *, solver: str = "highs", seed: int | None = 0,
               lam: float | str | None = None, tries: int = 4, slow_motion: str = "task", shift_back: bool = True,
               time_limit: float | None = None, aggregate: bool | str = "auto") -> Result:
    """SynchPack-2 (paper 003 §4.2) for PRP||Σ w_j C_j (and PRP|pmtn|Σ w_j C_j, Corollary 1).

    ``lam=None`` derandomises: the λ are ranked by the bound Σ_j w_j·6·d_{l_j(λ)}/λ that Lemma 10
    and eq. (18) give (:func:`~schedrelax.rounding.slow_motion.stretch_bound_candidates`), whose
    minimum is at most its expectation, 24·LP2; the ``tries`` best are rounded and the best
    schedule is kept, so Theorem 2's 24·LP2 holds deterministically. ``"random"`` draws one λ with
    density 2λ from ``seed``; a number uses that λ.

    ``shift_back`` (default True): after the interval-by-interval packing, move every task as early
    as capacity, releases and its own other runs allow (:func:`~schedrelax.schedulers.list_packing.
    left_shift`; no task ends later), the step §4.2 substep 3.2 makes optional: "We may also shift
    back future tasks' schedules as far as the machine capacity allows." Theorem 2's 24·LP2 holds
    either way (the packing's completion times only decrease). The paper does not say whether its
    §7 runs shifted back; measured on the synthetic §7 instances, SynchPack-2/LP2 is close to
    Table 1's 2.87-2.98 without it and well below with it, so the ``synchpack`` reproduction's
    calibrated column runs ``shift_back=False`` and reports both.

    ``aggregate``: as in :func:`synchpack1`, for LP2.
    """
    res, sol, built, how = _interval_lp(instance, partial(lp2_program, instance, normalized=True), solver, time_limit,
                                        aggregate)
    t2 = time.perf_counter()
    _check_mode(slow_motion)
    choice = _stretch_choice(lam, seed)
    bound = None
    if choice is None:
        z = _clean_fractions(sol.z, sol.pair_task, instance.n_tasks)
        unit = sol.pair_task if slow_motion == "task" else np.arange(len(sol.pair_task))
        unit_job = instance.task_job[sol.pair_task if slow_motion == "machine" else np.arange(instance.n_tasks)]
        ranked = stretch_bound_candidates(z, unit, unit_job, instance.weights, sol.grid.d)
        lams = ranked.lam[:max(1, int(tries))].tolist()
        bound = float(ranked.bound[0])
    else:
        lams = [choice]
    runs = [synchpack2_round(instance, sol, lv, mode=slow_motion, shift_back=shift_back) for lv in lams]
    best = min(runs, key=lambda r: r.objective)
    t3 = time.perf_counter()
    proven = res.is_optimal
    guarantee = 24.0 if proven and lam is None and slow_motion == "task" and _offline(instance) else None
    return Result(
        algorithm="synchpack2", schedule=best.schedule, lower_bound=sol.objective if proven else None,
        bound_kind="LP2 optimum (paper 003 §4)" if proven else None,
        guarantee=guarantee,
        timings={"build": built + res.build_seconds, "solve": res.solve_seconds, "round": t3 - t2},
        params={"lam": lam, "tries": tries, "slow_motion": slow_motion, "shift_back": shift_back,
                "time_limit": time_limit, "aggregate": aggregate},
        info={"lp_form": how, "lp_status": res.status.value, "lp_objective": sol.objective, "lambda": best.lam,
              "lambdas_tried": [r.lam for r in runs], "objectives_tried": [r.objective for r in runs],
              "lemma10_bound": bound, "intervals": sol.grid.L + 1, "copies": best.graph.n_copies})


# --------------------------------------------------------------------------------------------
# SynchPack-3
# --------------------------------------------------------------------------------------------

def dedicated_instance(instance: PackingInstance) -> tuple[PackingInstance, bool]:
    """The instance itself if every task has one usable machine (PDP), else a copy in which each
    task keeps only its fastest usable machine; the flag says whether it was already dedicated."""
    if dedicated_machine(instance) is not None:
        return instance, True
    machine, ptime = fastest_machine(instance)
    jobs = tuple(PackingJob(tasks=tuple(PackingTask(demand=float(instance.demand[t]), placement=[int(machine[t])],
                                                    processing_time=float(ptime[t]))
                                        for t in range(instance.job_offset[j], instance.job_offset[j + 1])),
                            weight=float(instance.weights[j]), release=float(instance.release[j]))
                 for j in range(instance.n_jobs))
    return PackingInstance(capacities=instance.capacities, jobs=jobs, name=f"{instance.name} (fastest machines)",
                           reservations=instance.reservations), False


def lp3_rank(instance: PackingInstance, sol: LP3Solution) -> np.ndarray:
    """Each task's list position of Step 2 (paper 003 §5.2): jobs in non-decreasing LP3
    completion time (ties by index, eq. 21), a job's tasks by index.

    Completion times within :func:`~schedrelax.schedules.time_tolerance` (1e-9 of the shortest
    processing time, plus the stamps' round-off) of the one before them tie: the LP's C_j come
    back through a change of unit and origin, and two that are equal in one unit may differ by
    an ulp in another (a tie broken by an ulp at 1e-9 s cost 27 % on a fuzzed instance)."""
    job_rank = np.empty(instance.n_jobs, dtype=np.int64)
    job_rank[tie_order(sol.completion, time_scale(instance))] = np.arange(instance.n_jobs)
    return job_rank[instance.task_job] * instance.n_tasks + np.arange(instance.n_tasks)


def synchpack3_round(instance: PackingInstance, sol: LP3Solution) -> Schedule:
    """Step 2 of SynchPack-3 (paper 003 §5.2): jobs in non-decreasing LP3 completion time (ties by
    index, eq. 21); on each machine its tasks in that order (a job's tasks by index), packed by
    preemptive list scheduling.

    On a dedicated instance (PDP, one usable machine per task) each task runs on its machine, the
    paper's algorithm. Otherwise (our extension) each task's machine is chosen as it is
    list-scheduled, in the same order: the usable machine where it finishes earliest
    (:func:`~schedrelax.schedulers.list_packing.earliest_finish_machines`)."""
    rank = lp3_rank(instance, sol)
    placed = dedicated_placement(instance)
    machine, ptime = placed if placed is not None else earliest_finish_machines(instance, rank)
    packed = preemptive_list_packing(machine, ptime, instance.demand, rank, instance.release[instance.task_job],
                                     instance.capacities, Reservations.of(instance))
    return packing_schedule(instance, packed.item, packed.machine, packed.start, packed.end,
                            promises={"no_migration"}, meta={"algorithm": "synchpack3"})


LP3_IPM_NONZEROS = 10_000
"""From this many nonzeros on, LP3 under the default solver ``"highs"`` is solved by HiGHS's
interior-point method (with its crossover, so the solution is a vertex, as the simplex gives).
Measured over 48 generated LP3s (10-200 jobs, 10-100 machines; ``synchpack`` generator): below
10^4 nonzeros HiGHS's default (dual simplex) never took more than 0.02 s and the IPM up to 2.5x
that; above, the simplex stalled on some (100 jobs x 10 tasks on 50 machines 3.8 s, 200 jobs 88 s)
where the IPM took 0.22 s and 1.07 s, and lost by at most 0.08 s elsewhere. Both reach the same
optimum (relative difference <= 7e-11)."""


def lp3_method(program, solver: str, warm: bool = False) -> str:
    """The solver name LP3's *program* is solved with: see :data:`LP3_IPM_NONZEROS`; from a start
    basis (*warm*) the dual simplex, which starts from it where the IPM would not."""
    if warm:
        return highs_method(solver, "simplex")
    return highs_method(solver, "ipm") if program.A.nnz >= LP3_IPM_NONZEROS else solver


def synchpack3(instance: PackingInstance, *, solver: str = "highs", seed: int | None = 0,
               time_limit: float | None = None, lp_basis: LP3Basis | None = None) -> Result:
    """SynchPack-3 (paper 003 §5.2) for PDP|pmtn|Σ w_j C_j.

    What Theorem 3 covers: "a four-approximation algorithm for the problem of parallel-task jobs
    scheduling with packing and single-machine placement constraints" — dedicated machines, all
    releases 0. Only there are ``lower_bound`` (LP3) and ``guarantee`` (4) reported.

    On an instance whose tasks may use several machines (our extension; §7 runs SynchPack-3 only
    on the trace's single-machine placement), Step 1 solves LP3 on the restriction in which each
    task keeps its fastest usable machine (ties to the lowest index) only to get the job order;
    Step 2 then chooses each task's machine as it is list-scheduled, in that order: the usable
    machine where it finishes earliest given the tasks placed before it (ties to the least
    loaded machine). Pinning every task to its fastest machine instead (the former rule) puts
    all tasks of a cluster of identical machines on machine 0. The LP3 of the restriction is not
    a bound for the flexible problem and the schedule is not the one Theorem 3 analyses, so no
    lower bound and no guarantee are reported there (``info["dedicated"]`` is False).

    Under the default ``solver="highs"`` a large LP3 is solved by HiGHS's interior-point method
    (:data:`LP3_IPM_NONZEROS`); ``info["lp_solver"]`` names the solver and method used.

    *lp_basis*: an :class:`~schedrelax.models.synchpack_lp.LP3Basis` (in this instance's job
    numbers) to start LP3's simplex from; the online simulator passes the previous re-plan's
    (4.4x fewer simplex iterations on 39 consecutive 300-job sub-instances).
    The LP3 optimum is the same; where LP3 has several optimal solutions the one found, and so
    the job order, may differ. ``info["lp_basis"]`` is this solution's, for the next re-plan.
    """
    dedicated, was = dedicated_instance(instance)
    t0 = time.perf_counter()
    program = lp3_program(dedicated, normalized=True)
    start = None if lp_basis is None else lp_basis.statuses(program)
    t1 = time.perf_counter()
    res, solved = _solve(program, lp3_method(program, solver, warm=start is not None), time_limit, start)
    sol = lp3_solution(solved)
    t2 = time.perf_counter()
    schedule = synchpack3_round(instance, sol)
    t3 = time.perf_counter()
    proven = res.is_optimal and was
    return Result(
        algorithm="synchpack3", schedule=schedule, lower_bound=sol.objective if proven else None,
        bound_kind="LP3 optimum (paper 003 §5)" if proven else None,
        guarantee=4.0 if proven and _offline(instance) else None,
        timings={"build": t1 - t0 + res.build_seconds, "solve": res.solve_seconds, "round": t3 - t2},
        params={"time_limit": time_limit},
        info={"lp_status": res.status.value, "lp_objective": sol.objective, "lp_solver": res.solver, "dedicated": was,
              "lp_basis": LP3Basis.of(program, solved.x), "lp_warm_start": start is not None,
              "machine_choice": "dedicated" if was else "earliest finish in LP3 order",
              "guarantee_applies_to": "dedicated machines (one usable machine per task), all releases 0, "
                                      "no reservations (paper 003 Theorem 3)"})


# --------------------------------------------------------------------------------------------
# exact MIP
# --------------------------------------------------------------------------------------------

PACKING_STARTS = ("fifo", "psrs", "jsq-mw", "tetris-np")
"""The fast algorithms whose best non-preemptive schedule starts the non-preemptive packing MIP
(psrs may preempt: its schedule is a candidate only when it did not)."""


def mip(instance: PackingInstance, *, solver: str = "highs", seed: int | None = None, preemptive: bool = False,
        time_limit: float = 60.0, threads: int | None = None) -> Result:
    """The optimum of :func:`~schedrelax.models.packing_mip.build_nonpreemptive_mip` or, with
    ``preemptive=True``, :func:`~schedrelax.models.packing_mip.build_preemptive_mip`.

    The FIFO schedule's cost caps every job's slots. Non-preemptive: the MIP is exact, so its
    proven bound is the lower bound and the guarantee is 1 when solved to optimality. Preemptive:
    exact for the slotted model only (continuous-time preemption may beat it), so no lower bound
    or guarantee is claimed; ``info["slotted_optimum"]`` says whether the slotted optimum was
    proven. A time limit with an incumbent returns it (``info["optimal"]`` False); no incumbent
    raises NoOptimalSolutionError.

    ``time_limit`` covers the whole call: the starts and LP2, the build (a model whose terms,
    :func:`~schedrelax.models.packing_mip.build_terms`, would not go through Pyomo in the time left
    at :data:`~schedrelax.models.packing_mip.MIP_BUILD_TERMS_PER_SECOND` is not built, and the best
    start is returned with LP2's bound) and the solver, which gets what is left.

    ``solver="cpsat"``: the non-preemptive problem as a CP-SAT model instead
    (:func:`schedrelax.rounding.cpsat.packing_cpsat`: continuous time, no slots; ``seed`` and
    ``threads`` are CP-SAT's). ``threads`` goes to the solver (None: its default).
    """
    if solver == "cpsat":
        if preemptive:
            raise SolverError("solver 'cpsat' solves the non-preemptive packing MIP only, got preemptive=True; "
                              "use a MIP solver such as 'highs' for the slotted preemptive MIP")
        from schedrelax.rounding.cpsat import packing_cpsat

        return packing_cpsat(instance, time_limit=time_limit, threads=threads, seed=seed)
    check_grid(instance)  # a refusal before the starts and the relaxation, not after them
    budget = Budget(time_limit)
    t0 = budget.t0
    incumbent = evaluate(instance, fifo_packing(instance).schedule).objective
    start = relaxation = None
    if not preemptive:
        start = best_start(instance, PACKING_STARTS, solver=solver, promises=frozenset({"non_preemptive"}))
        relaxation = synchpack2(instance, solver=solver)  # LP2 holds for every schedule, preemptive or not
        if start is not None:
            incumbent = min(incumbent, start.objective)
    lp_bound = relaxation.lower_bound if relaxation is not None else None
    # The build counts against the time limit: a model whose terms would not go through Pyomo in
    # the time left is not built (600 k binaries took 25 s to build and compile under a 3 s limit).
    terms = build_terms(instance, upper_bound=incumbent, preemptive=preemptive)
    model = warm = None
    if terms <= MIP_BUILD_TERMS_PER_SECOND * budget.remaining():
        if preemptive:
            model = build_preemptive_mip(instance, upper_bound=incumbent)
        else:
            model = build_nonpreemptive_mip(instance, upper_bound=incumbent, lower_bound=below(lp_bound))
        warm = start is not None and packing_mip_start(model, start.schedule)
    t1 = time.perf_counter()
    if model is not None and not budget.spent():
        options = gap_options(solver)
        if model.layout.form == "step" and solver.partition(":")[0] == "highs":
            # HiGHS 1.16's presolve crashed the process (a segfault) on a step model of 99,406
            # binaries from the unit-invariance fuzz, and without it the step form solved 10-75x
            # faster where it is chosen (models.packing_mip.STEP_RATIO). Its symmetry detection
            # took 15 s of that model's 3 s limit before the first node (it does not poll the
            # clock): without it, 0.7 s.
            options = {**options, "presolve": "off", "mip_detect_symmetry": False}
        res = solve(model, solver, time_limit=budget.for_solve(), threads=threads, warm_start=warm, **options)
    else:
        res = SolveResult(status=SolveStatus.LIMIT_NO_SOLUTION, objective=None, best_bound=None,
                          build_seconds=0.0, solve_seconds=0.0, solver=solver, solver_version="",
                          message=f"time limit {time_limit:g} s reached before the solver ran (the model: about "
                                  f"{terms:,} terms, {'built' if model is not None else 'not built'})")
    if not res.status.has_solution and (start is None or res.status is not SolveStatus.LIMIT_NO_SOLUTION):
        raise NoOptimalSolutionError(f"packing MIP: solver {res.solver!r} ended with status {res.status.value!r} "
                                     f"and no solution ({res.message})")
    schedule = keep_cheaper(instance, packing_mip_schedule(model) if res.status.has_solution else None, start)
    # The model's times run from its grid's origin: its objective and bound in the instance's terms.
    grid, w = time_grid(instance), instance.weights
    res = dataclasses.replace(
        res, objective=None if res.objective is None else grid.cost(res.objective, w),
        best_bound=None if res.best_bound is None or not math.isfinite(res.best_bound) else grid.bound(res.best_bound, w))
    # Slotted preemption is a restriction of continuous-time preemption: no bound on OPT from it.
    bound, kind = (None, None) if preemptive else larger_bound(res, relaxation)
    outcome = exact_outcome(evaluate(instance, schedule).objective,
                            res.objective if res.objective is not None else float("inf"), bound, res,
                            exact=not preemptive)
    return Result(
        algorithm="mip", schedule=schedule, lower_bound=bound, bound_kind=kind,
        guarantee=1.0 if outcome["optimal"] else None,
        timings={"start": t1 - t0, "build": res.build_seconds, "solve": res.solve_seconds},
        params={"preemptive": preemptive, "time_limit": time_limit},
        info={**outcome, "slotted_optimum": preemptive and res.is_optimal and outcome["schedule_keeps_mip_objective"],
              "incumbent": incumbent, "start": start.algorithm if start is not None else None,
              "warm_start": warm, "relaxation_bound": lp_bound, "unit": grid.unit, "model_terms": terms,
              "variables": model.nvariables() if model is not None else None})
