"""Paper 004's pipeline (Aggarwal et al.): S-PC (§III-C, Algorithms 1 and 2), its
LP-based baselines Identical-machine and Map-only (§VI-A), and the exact MIP.

LP-Schedule (:mod:`schedrelax.models.queyranne`) is solved by Smith's rule where that is exact, and
otherwise by the cutting-plane loop of :func:`schedrelax.solvers.cutting_planes` on the persistent
solver; its completion times order the jobs (Algorithm 1), and
:func:`schedrelax.schedulers.related_list.list_schedule` places the tasks (Algorithm 2).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from schedrelax.result import Result
from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.models.queyranne import (
    LPScheduleSolution,
    QueyranneCuts,
    ScheduleLPData,
    build_lp_schedule,
    lp_schedule_program,
    lp_schedule_solution,
    lp_upper_bound,
    seed_chain_rows,
    smith_rule_lp,
)
from schedrelax.models.synchpack_lp import without_gc
from schedrelax.schedules import tie_classes, time_scale
from schedrelax.schedulers.related_list import (
    list_schedule,
    topological_order,
)
from schedrelax.solvers import cutting_planes
from schedrelax.solvers.cutting_planes import cutting_planes_edits, cutting_planes_rows

SEGMENTS_FROM = 1000
"""From this many jobs on, :func:`solve_lp_schedule`'s default loop writes the fluid cuts as segments
(``loop="segments"``); below, the cut pool (``loop="pool"``). See there for the measurements."""

SEGMENTS_CUTS = {"fluid_cuts": 30, "fluid_tol": None, "seed_chain": False}
"""What :func:`solve_lp_schedule`'s segments loop adds when the caller does not say: up to 30 fluid
cuts a round at every violated peak (``fluid_tol`` None: the stop tolerance ``tol`` itself), and no
seed chain (the first separation is at the bounds (3)-(4)). Measured on the benchmark's
``dag_instance`` (one process per run; before: 10 cuts, ``fluid_tol`` 1e-5 and the Smith seed
chain): 10,000 jobs 8.2 s -> 5.5 s, 20,000 jobs 59.2 s / 33 rounds -> 19.7 s / 14 rounds, 50,000
jobs 95.4 s, 100,000 jobs 397 s / 17 rounds (before: stopped after 24 rounds and 2,045 s, its
objective still rising, 1.5e-7 below the new one). Variants: 30 cuts with the seed chain 22.2 s at
20,000 jobs, 125.4 s at 50,000 and 586 s at 100,000; without it, 20 cuts 112.1 s and 50 cuts 92.1 s
at 50,000; 100 cuts with the seed chain 22.2 s at 20,000. Why: once the violations were below 1e-5
the old rule added chains only, and two thirds of the time (39 of 59 s) went to rounds that moved
the objective by 1.4e-7 (20,000 jobs, rounds 12-33), while one fluid cut covers every set whose mean
busy times straddle its time; the seed chain (Smith's order, blind to releases and precedence) cost
a first solve of about n iterations and left the second as far to go. On DAG jobs without release
times (where (2) binds over the whole horizon) neither rule was fast: 1,000 jobs 3.2 s (old rule
2.3 s), 2,000 jobs 22 s (17 s), 5,000 jobs 182 s (214 s); the columns of the fluid segments grew as
jobs × cuts, until their anchors were lifted (:meth:`~schedrelax.models.queyranne.FluidSegments.lift`:
5,000 jobs 266 s -> 30.7 s in one run under load)."""

OTHER_CUTS = {"fluid_cuts": 10, "fluid_tol": 1e-5, "seed_chain": True}
"""The same defaults for the pool and Pyomo loops, where a fluid cut costs a row per job (measured
at 10,000 jobs with the pool: 3 cuts and 1e-4 62 rounds, 10 and 1e-5 19 rounds, 20 the same)."""

DEVEX = {"simplex_dual_edge_weight_strategy": 1}
"""HiGHS option for the cutting-plane loop: Devex pricing instead of steepest edge, whose weights
HiGHS recomputes after rows are added; measured 3x faster per round on LP-Schedule (n = 1,000)."""


@dataclass(frozen=True, eq=False)
class LPScheduleResult:
    """LP-Schedule solved: the solution, how (``"smith"`` or ``"cutting planes"``), and the
    loop's statistics (rounds = solves; prefix and fluid cuts added; seconds in all and in the
    solver; ``converged`` False when a round limit or a non-optimal solve stopped the loop).

    ``relaxed`` says the last LP solved was a relaxation of LP-Schedule (a subset of (2)), so that
    its optimum ``solution.objective`` is a lower bound on LP-Schedule's (:attr:`lower_bound`);
    the segments loop stopped by its round limit may have held a restriction (columns it had not
    priced in yet), and then there is no bound. ``upper_bound`` is the cost of a point that meets
    all of (1)-(4) (:func:`~schedrelax.models.queyranne.lp_upper_bound`), so LP-Schedule's optimum
    lies in [lower_bound, upper_bound]; at the loop's 1e-6 tolerance the two are about 1e-6 apart.
    """

    solution: LPScheduleSolution
    method: str
    converged: bool
    rounds: int = 0
    prefix_cuts: int = 0
    fluid_cuts: int = 0
    seconds: float = 0.0
    solve_seconds: float = 0.0
    upper_bound: float | None = None
    relaxed: bool = True

    @property
    def lower_bound(self) -> float | None:
        """``solution.objective`` when it is a lower bound on LP-Schedule's optimum, else None."""
        return self.solution.objective if self.relaxed else None


def solve_lp_schedule(instance: RelatedInstance, solver: str = "highs", *, cuts: str = "fluid", tol: float = 1e-6,
                      fluid_cuts: int | None = None, fluid_tol: float | None = None, seed_chain: bool | None = None,
                      use_smith: bool = True,
                      max_rounds: int | None = None, time_limit: float | None = None, loop: str = "auto",
                      keep: int | None = 4, warm: bool = True, normalize: bool = True) -> LPScheduleResult:
    """Paper 004 §III-A/B: the optimum of LP-Schedule (1)-(4).

    With ``use_smith`` and an instance where Smith's rule is exact (:func:`smith_rule_lp`), that
    O(n log n) answer; otherwise the cutting-plane loop with :class:`QueyranneCuts` (``cuts`` one
    of :data:`CUT_MODES`, ``fluid_cuts`` and ``fluid_tol`` as there), stopped when no set of (2)
    is violated by more than ``tol`` relative to f(S). ``fluid_cuts``, ``fluid_tol`` and
    ``seed_chain`` (start from every prefix of Smith's order) left None take the loop's defaults:
    :data:`SEGMENTS_CUTS` for the segments loop, :data:`OTHER_CUTS` for the others; a
    ``fluid_tol`` of None there means ``tol``. ``max_rounds`` defaults to 10 n + 100 (the
    one-cut-per-round loop needs about 2 n); ``time_limit`` applies to each solve, and a solve that
    ends without an optimum raises NoOptimalSolutionError. HiGHS re-solves warm from its basis;
    other solvers rebuild the model each round.

    ``loop="pool"``: the same separation and cuts
    (:meth:`QueyranneCuts.cut_rows`) handed to HiGHS as arrays by
    :func:`schedrelax.solvers.cutting_planes.cutting_planes_rows`, with a warm basis for each
    batch (``warm``) and a cut pool deleting cuts idle for ``keep`` rounds (None: never).
    Measured on the benchmark's 10,000 jobs (``dag_instance``): the Pyomo loop 190 s, 2.1 GB; the
    pool with keep 2 / 4 / None 128 s / 57 s / 74 s, 1.43 / 1.32 / 1.66 GB (keep 2 re-adds cuts).
    ``loop="segments"``: the same separation and cuts of (2), with the fluid cuts written as one
    extended formulation (:class:`~schedrelax.models.queyranne.FluidSegments`: a row per job and
    two per cut instead of a row per job and cut; its columns created where they may be nonzero and
    the rest priced in at each round's duals) and applied as edits by
    :func:`schedrelax.solvers.cutting_planes.cutting_planes_edits` (warm basis, nothing deleted).
    With ``keep`` the segments loop also deletes the prefixes of (2) basic (zero dual) after ``keep``
    solves in a row (:meth:`~schedrelax.models.queyranne.QueyranneCuts.edit`), which keeps HiGHS's
    basis solves sparse. Measured on the benchmark's ``dag_instance`` (one process per run, same
    machine and session; segments vs pool): 1,000 jobs 0.2 s vs 0.6 s, 5,000 1.9 s / 247 MB vs
    11.3 s / 728 MB, 10,000 8.2 s / 322 MB vs 56.1 s / 1,365 MB (20,882 rows vs 540,456), 20,000
    55.7 s / 594 MB (without the deletion 22.0 s at 10,000 and 315 s at 20,000); the optima agree
    to 1.6e-8 relative. ``loop="auto"`` (the default) takes it from
    :data:`SEGMENTS_FROM` jobs on under HiGHS, the pool below (where both take well under a second
    and the pool's results are the ones the online reference test recorded).
    ``loop="pyomo"`` is the original loop (Pyomo rows, HiGHS's own basis extension, no
    deletion); other solvers always use it. Both stop on the oracle's verdict on the final point.

    ``normalize`` (default True): solve the LP of the instance with time in units of its shortest
    task at the fastest speed and weights over the largest, and read the solution back on the
    instance's clock (the same optimum; see the comment in the code for why).
    """
    from schedrelax.models.queyranne import CUT_MODES

    if cuts not in CUT_MODES:  # named as the caller knows it (QueyranneCuts calls it mode)
        raise ValueError(f"cuts must be one of {', '.join(CUT_MODES)}; got {cuts!r}")
    # Solved in the instance's own units: time over its shortest task at the fastest speed, weights
    # over the largest. The solver's tolerances are absolute (1e-7), and (2) is quadratic in time:
    # written in units of 1e-8 s its rows are 1e-16 and HiGHS stopped at points that are not
    # optimal (S-PC, MarS, Map-only and Identical-machine each gave another schedule at 1e-8 and
    # 1e-9 s: the unit-invariance fuzz). The solution is mapped back to the instance's clock; the
    # origin stays at 0 (the LP's rows are measured from it).
    unit = time_scale(instance)
    w = np.asarray(instance.weights, dtype=float)
    w_unit = float(w.max()) if len(w) else 1.0
    if normalize and (unit != 1.0 or w_unit != 1.0) and 0 < unit < np.inf and 0 < w_unit < np.inf:
        own = RelatedInstance(speeds=instance.speeds, edges=instance.edges, name=instance.name,
                              ready=np.asarray(instance.ready, dtype=float) / unit,
                              jobs=tuple(RelatedJob(tasks=np.asarray(job.tasks, dtype=float) / unit,
                                                    weight=job.weight / w_unit, release=job.release / unit)
                                         for job in instance.jobs))
        lp = solve_lp_schedule(own, solver, cuts=cuts, tol=tol, fluid_cuts=fluid_cuts, fluid_tol=fluid_tol,
                               seed_chain=seed_chain, use_smith=use_smith, max_rounds=max_rounds,
                               time_limit=time_limit, loop=loop, keep=keep, warm=warm, normalize=False)
        C = lp.solution.C * unit
        return dataclasses.replace(lp, solution=LPScheduleSolution(C, float(w @ C)),
                                   upper_bound=None if lp.upper_bound is None else lp.upper_bound * unit * w_unit)
    start = time.perf_counter()
    if use_smith and (exact := smith_rule_lp(instance)) is not None:
        return LPScheduleResult(exact, "smith", True, seconds=time.perf_counter() - start,
                                upper_bound=exact.objective)
    if loop not in ("auto", "pool", "pyomo", "segments"):
        raise ValueError(f"loop must be 'auto', 'pool', 'segments' or 'pyomo'; got {loop!r}")
    if loop == "auto":
        loop = "segments" if instance.n_jobs >= SEGMENTS_FROM else "pool"
    is_highs = solver.partition(":")[0] == "highs"
    options = DEVEX if is_highs else {}
    own = SEGMENTS_CUTS if loop == "segments" and is_highs else OTHER_CUTS
    fluid_cuts = own["fluid_cuts"] if fluid_cuts is None else fluid_cuts
    if fluid_tol is None:
        fluid_tol = tol if own["fluid_tol"] is None else own["fluid_tol"]
    seed_chain = own["seed_chain"] if seed_chain is None else seed_chain
    rounds_limit = max_rounds or 10 * instance.n_jobs + 100
    if loop in ("segments", "pool") and is_highs:
        data = ScheduleLPData.of(instance)
        separation = QueyranneCuts(data, cuts, tol=tol, fluid_cuts=fluid_cuts, fluid_tol=fluid_tol,
                                   keep=keep if loop == "segments" else None)
        program = lp_schedule_program(data)
        if loop == "segments":  # the seed chain goes into the first solve as part of the program
            whole = separation.edit_program(program, seed_chain)
            looped = cutting_planes_edits(whole, separation.edit, solver, max_rounds=rounds_limit,
                                          time_limit=time_limit, repair=separation.repair, **options)
        else:
            seed = [seed_chain_rows(data)] if seed_chain else []
            looped = cutting_planes_rows(program, separation.cut_rows, seed, solver, max_rounds=rounds_limit,
                                         keep=keep, warm=warm, time_limit=time_limit, **options)
        looped.result.require_optimal()
        # the segments loop's LP is a relaxation once nothing prices in, which its convergence says
        return _loop_result(data, looped.x[:data.n], looped, separation, start,
                            relaxed=loop == "pool" or looped.converged)
    # Each round adds thousands of Pyomo objects and frees none: the cyclic collector's passes
    # over them would cost more than building them.
    with without_gc():
        model = build_lp_schedule(instance, seed_chain=seed_chain)
        separation = QueyranneCuts(model, cuts, tol=tol, fluid_cuts=fluid_cuts, fluid_tol=fluid_tol)
        rowwise = cutting_planes(model, separation, solver, max_rounds=rounds_limit,
                                 time_limit=time_limit, filter_violated=False, **options)
    rowwise.result.require_optimal()
    return _loop_result(model.lp_data, lp_schedule_solution(model).C, rowwise, separation, start, relaxed=True)


def _loop_result(data: ScheduleLPData, C, looped, separation: QueyranneCuts, start: float, *,
                 relaxed: bool) -> LPScheduleResult:
    """A cutting-plane loop's :class:`LPScheduleResult`: its last point *C*, statistics and
    :func:`~schedrelax.models.queyranne.lp_upper_bound`. A separation that gave up (no progress
    after changing its cuts) returned no cut: the loop ended, but the point still violates (2) by
    ``separation.residual``, so it has not converged. The caller has checked the last solve is optimal."""
    C = np.asarray(C, dtype=float)
    return LPScheduleResult(LPScheduleSolution(C, float(data.weights @ C)), "cutting planes",
                            looped.converged and not separation.gave_up, looped.rounds, separation.prefix_cuts,
                            separation.fluid_cuts_added, time.perf_counter() - start, looped.solve_seconds,
                            lp_upper_bound(data, C)[0], relaxed)


def spc_guarantee(instance: RelatedInstance) -> float | None:
    """Theorem 2 of paper 004: 2(1 + (m−1)/D), plus 1 when some release time is positive; None
    when some machine has a positive ready time (the theorem assumes machines free at 0)."""
    if np.any(instance.ready > 0):
        return None
    bound = 2.0 * (1.0 + (instance.n_machines - 1) / instance.D)
    return bound + 1.0 if np.any(instance.release > 0) else bound


def lp_order(instance: RelatedInstance, C: np.ndarray) -> np.ndarray:
    """Algorithm 1, line 2: jobs by non-decreasing C^LP, ties by index. Constraint (4) makes
    every job's C^LP exceed its predecessors', so this is a linear extension of the DAG; it is
    built as one so that solver round-off can never list a job before its predecessor."""
    # C^LP an ulp apart in one unit may be equal in another: they tie, by index (tie_classes).
    return topological_order(instance.n_jobs, instance.edges, tie_classes(C, time_scale(instance)))


def _lp_info(lp: LPScheduleResult) -> dict:
    return {"lp_method": lp.method, "lp_converged": lp.converged, "lp_rounds": lp.rounds,
            "prefix_cuts": lp.prefix_cuts, "fluid_cuts": lp.fluid_cuts, "lp_seconds": lp.seconds,
            "lp_solver_seconds": lp.solve_seconds, "lp_upper_bound": lp.upper_bound}


def spc(instance: RelatedInstance, *, solver: str = "highs", seed: int | None = None, cuts: str = "fluid",
        tol: float = 1e-6, max_rounds: int | None = None, time_limit: float | None = None) -> Result:
    """S-PC, Algorithms 1 and 2 of paper 004 §III-C.

    Solve LP-Schedule (:func:`solve_lp_schedule`), list the jobs by C^LP (:func:`lp_order`), and
    place each job's tasks, largest first, on the machine that finishes each earliest, with idle
    time for release and precedence (:func:`list_schedule`). The Result's ``lower_bound`` is the
    LP optimum and ``guarantee`` Theorem 2's factor against it (:func:`spc_guarantee`; the proof
    bounds each Ĉ_j by that factor times C_j^LP); ``info`` has D and the loop's statistics. When
    the loop did not converge the order has no guarantee and ``guarantee`` is None.
    """
    lp = solve_lp_schedule(instance, solver, cuts=cuts, tol=tol, max_rounds=max_rounds, time_limit=time_limit)
    t0 = time.perf_counter()
    schedule = list_schedule(instance, lp_order(instance, lp.solution.C), meta={"algorithm": "spc"})
    return Result(algorithm="spc", schedule=schedule, lower_bound=lp.lower_bound,
                  bound_kind="LP-Schedule optimum (Queyranne cuts, paper 004 §III)" if lp.relaxed else None,
                  guarantee=spc_guarantee(instance) if lp.converged else None,
                  timings={"lp": lp.seconds, "schedule": time.perf_counter() - t0},
                  params={"cuts": cuts, "tol": tol},
                  info={"D": instance.D, "machines": instance.n_machines, **_lp_info(lp)})


def identical_machine(instance: RelatedInstance, *, solver: str = "highs", seed: int | None = None) -> Result:
    """Identical-machine, the §VI-A baseline of paper 004: "assumes all machines are identical, and
    applies Algorithm 1 to schedule jobs and tasks".

    Choices: the believed common speed is the mean μ/m (the cluster's true total rate); the LP
    and Algorithm 2's placement use it, and the planned machine sequences then run at the true
    speeds (which is how a job ends up waiting for its tasks on slow machines, as §VI-A says).
    The LP's value under the belief is no lower bound on the true problem, so none is reported.
    """
    speed = instance.mu / instance.n_machines
    believed = RelatedInstance(speeds=[speed] * instance.n_machines, jobs=instance.jobs, edges=instance.edges,
                               name=instance.name, ready=instance.ready)
    lp = solve_lp_schedule(believed, solver)
    schedule = list_schedule(instance, lp_order(believed, lp.solution.C), planning_speeds=believed.speeds,
                             meta={"algorithm": "identical-machine"})
    return Result(algorithm="identical-machine", schedule=schedule, timings={"lp": lp.seconds}, info=_lp_info(lp))


MARS_PLACEMENTS = ("first_free", "earliest_finish")
"""Where :func:`mars` puts a task: the machine free first (speed-blind, the default) or Algorithm 2's."""

MARS_BOUNDS = ("scaled", "lp-schedule", "none")
"""The lower bound :func:`mars` reports: its own LP divided by :func:`speed_ratio`, S-PC's LP, or none."""


def mean_speed_instance(instance: RelatedInstance) -> RelatedInstance:
    """*instance* with every machine at the mean speed μ/m (same total rate μ, jobs, DAG, ready times)."""
    speed = instance.mu / instance.n_machines
    return RelatedInstance(speeds=[speed] * instance.n_machines, jobs=instance.jobs, edges=instance.edges,
                           name=instance.name, ready=instance.ready)


def speed_ratio(instance: RelatedInstance) -> float:
    """ρ = max_j μ_j / (q_j μ/m) >= 1: how much faster a job's q_j fastest machines are than q_j
    machines of mean speed. LP-Schedule of the mean-speed instance is at most ρ times
    LP-Schedule of *instance* (see :func:`mars`), so its optimum over ρ is a lower bound here."""
    q = np.minimum(np.diff(instance.job_offset), instance.n_machines)
    return float(max(1.0, np.max(instance.mu_j / (q * instance.mu / instance.n_machines))))


def mars(instance: RelatedInstance, *, solver: str = "highs", seed: int | None = None,
         placement: str = "first_free", bound: str = "scaled") -> Result:
    """MarS, the scheduler paper 004 compares S-PC with in Fig. 6 (§VI-B): "an existing online
    scheduler, MarS [25], which considers joint map and reduce scheduling for the special case
    with identical machine speeds", and which S-PC beats "by up to 34%, when the system load is
    high". §I's Table I lists [14] (= [25], Yuan, Wang, Liu, INFOCOM 2014) for identical machines,
    bipartite (map -> reduce) graphs and arbitrary release times, and §VI-A cites it for the
    Identical-machine baseline. That is all paper 004 says about MarS; [25] itself is not in our
    papers, so this is our reading of "joint map and reduce scheduling" with "identical machine
    speeds": an LP relaxation on identical machines, its completion-time order, list scheduling.

    What we chose:

    * The LP is LP-Schedule (1)-(4) of paper 004 on the instance with every machine at the mean
      speed μ/m (:func:`mean_speed_instance`): on identical machines its constraints are the
      Queyranne-type ones of an identical-machine LP, and its precedence (4) joins each map phase
      to its reduce phase (and any DAG). Jobs go in non-decreasing C^LP (:func:`lp_order`).
    * ``placement="first_free"`` (default): each task, largest first, goes to the machine that is
      free first at the true speeds (an online scheduler on a real cluster sees when a machine
      frees up, but MarS has no notion of speed), ties to the lower index; this is what tells it
      apart from ``identical-machine``, which plans whole machine sequences at the believed speed.
      ``"earliest_finish"``: Algorithm 2 at the true speeds (MarS's order with S-PC's placement).

    Bound. The mean-speed LP is not a relaxation of this instance: its p_j/(q_j μ/m) exceeds
    p_j/μ_j, so its optimum can exceed the optimum here. But with ρ = :func:`speed_ratio`, any C
    feasible for LP-Schedule here gives ρC feasible for the mean-speed LP (μ is the same; ρ/μ_j >=
    1/(q_j μ/m) for every j, so every right-hand side of (2)-(4) scaled by ρ covers the mean-speed
    one, and ρ r_j >= r_j), hence LP_mean <= ρ LP <= ρ OPT. ``bound="scaled"`` (default) reports
    LP_mean / ρ; ``"lp-schedule"`` solves S-PC's LP-Schedule too and reports its optimum (tighter,
    one more LP); ``"none"`` reports nothing. No guarantee is claimed: [25]'s factor is for
    identical machines.
    """
    if placement not in MARS_PLACEMENTS:
        raise ValueError(f"placement must be one of {', '.join(MARS_PLACEMENTS)}; got {placement!r}")
    if bound not in MARS_BOUNDS:
        raise ValueError(f"bound must be one of {', '.join(MARS_BOUNDS)}; got {bound!r}")
    believed = mean_speed_instance(instance)
    lp = solve_lp_schedule(believed, solver)
    t0 = time.perf_counter()
    schedule = list_schedule(instance, lp_order(believed, lp.solution.C), assign=placement,
                             meta={"algorithm": "mars"})
    timings = {"lp": lp.seconds, "schedule": time.perf_counter() - t0}
    rho = speed_ratio(instance)
    lower, kind = None, None
    if bound == "scaled":
        lower = None if lp.lower_bound is None else lp.lower_bound / rho
        kind = "mean-speed LP-Schedule optimum / ρ (ρ = max_j μ_j/(q_j μ/m), proof in mars's docstring)"
    elif bound == "lp-schedule":
        true_lp = solve_lp_schedule(instance, solver)
        lower, kind = true_lp.lower_bound, "LP-Schedule optimum (Queyranne cuts, paper 004 §III)"
        timings["bound_lp"] = true_lp.seconds
    return Result(algorithm="mars", schedule=schedule, lower_bound=lower,
                  bound_kind=kind if lower is not None else None, timings=timings,
                  params={"placement": placement, "bound": bound},
                  info={"speed_ratio": rho, "mean_speed_lp": lp.solution.objective, **_lp_info(lp)})


def map_phase(instance: RelatedInstance) -> tuple[np.ndarray, RelatedInstance]:
    """The sources of the job DAG (the map nodes of MapReduce jobs) as an instance of their own.

    Each source carries its own weight plus its share of every later job's weight (a job reached
    from k sources gives each 1/k): in the ``spc`` setup a map node (weight 0) gets its reduce
    node's weight, the MapReduce job's. Returns the source indices and the instance (no edges).
    """
    n = instance.n_jobs
    order = topological_order(n, instance.edges, np.zeros(n))
    reached: list[set[int]] = [set() for _ in range(n)]
    has_pred = np.zeros(n, dtype=bool)
    has_pred[instance.edges[:, 1]] = True
    succ: list[list[int]] = [[] for _ in range(n)]
    for a, b in instance.edges.tolist():
        succ[a].append(b)
    for j in order.tolist():
        if not has_pred[j]:
            reached[j].add(j)
        for s in succ[j]:
            reached[s] |= reached[j]
    sources = np.flatnonzero(~has_pred)
    weight = dict.fromkeys(sources.tolist(), 0.0)
    for j in range(n):
        for s in reached[j]:
            weight[s] += float(instance.weights[j]) / len(reached[j])
    jobs = tuple(RelatedJob(tasks=instance.jobs[s].tasks, weight=weight[s], release=float(instance.release[s]))
                 for s in sources.tolist())
    return sources, RelatedInstance(speeds=instance.speeds, jobs=jobs, name=instance.name, ready=instance.ready)


def map_only(instance: RelatedInstance, *, solver: str = "highs", seed: int | None = 0) -> Result:
    """Map-only, the §VI-A baseline of paper 004: it "considers the map phase is the most critical,
    and employs Algorithm 1 to schedule jobs and tasks without considering the reduce phase"
    (and, §VI-A, schedules reduce tasks "to random machines").

    Choices: the map phase is the DAG's sources, weighted as in :func:`map_phase`; LP-Schedule
    on them orders them; every other job is listed as soon as its predecessors are (right after
    its map node in the ``spc`` setup), and its tasks go to machines drawn uniformly with *seed*;
    map tasks are placed by Algorithm 2.
    """
    sources, phase = map_phase(instance)
    lp = solve_lp_schedule(phase, solver)
    n = instance.n_jobs
    priority = np.full(n, np.inf)
    priority[sources[lp_order(phase, lp.solution.C)]] = np.arange(len(sources))
    # A later job inherits its latest predecessor's rank, so it is listed as soon as it is ready,
    # before the next source.
    for j in topological_order(n, instance.edges, np.zeros(n)).tolist():
        preds = instance.edges[instance.edges[:, 1] == j, 0]
        if len(preds):
            priority[j] = priority[preds].max()
    order = topological_order(n, instance.edges, priority)
    is_source = np.zeros(n, dtype=bool)
    is_source[sources] = True
    schedule = list_schedule(instance, order, assign=np.where(is_source, "earliest_finish", "random").tolist(),
                             seed=seed, meta={"algorithm": "map-only"})
    return Result(algorithm="map-only", schedule=schedule, timings={"lp": lp.seconds}, info=_lp_info(lp))
