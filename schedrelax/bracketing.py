"""The bracket around an instance's optimum: the largest lower bound the package proves
and the cheapest verified schedule it finds within one time budget, each with its source.

:func:`bracket` runs, in this order and all inside ``time_limit``:

1. every fast algorithm of the family (the registry, less the exact ``mip`` and ``exhaustive``,
   and less those that cannot move the bracket, :data:`NO_PART`), through
   :func:`schedrelax.algorithms.run` (so every schedule is verified and every bound
   that its own schedule refutes is dropped). Their schedules are the upper-bound candidates,
   their ``lower_bound`` values (the papers' relaxations: LP1, LP2, LP-Schedule, the flow LP,
   the SRPT bound ...) the first lower bounds;
2. the family's exact engine started from the best schedule so far, with the time that is left:
   CP-SAT for packing and related (:func:`schedrelax.rounding.cpsat.packing_cpsat`,
   :func:`~schedrelax.rounding.cpsat.related_cpsat`: the time-indexed LP or LP-Schedule where it
   pays, then CP-SAT's proven bound and its schedules), the mapreduce MIP on CP-SAT, the
   malleable MIP on HiGHS (up to :data:`MALLEABLE_MAX_JOBS` jobs);
3. on small packing instances, where that engine is CP-SAT alone, the LP-based fast algorithms
   (:data:`DEFERRED`) after it instead of before, and only when it did not prove the optimum.

Every lower bound bounds the same optimum from below, so the largest is one. The optimum bracketed
is that of the problem the family's ``mip`` solves (:data:`PROBLEMS`): for packing the
non-preemptive one, so a preemptive algorithm's schedule is logged but is no upper bound of it;
for malleable the one without per-job minima (the comparison's OPT column: a value no verified
schedule can beat); for mapreduce the default model of the policies.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from schedrelax.errors import SchedrelaxError
from schedrelax.schedules import Schedule, evaluate, verify

PROBLEMS = {
    "packing": "non-preemptive PRP||Σ w_j C_j (paper 003 §2, §4): the packing mip's problem",
    "related": "paper 004 §II: non-preemptive tasks on related machines",
    "malleable": "malleable flows without per-job minima (papers 000, 002): the comparison's OPT",
    "mapreduce": "paper 001 §III under the policies' default model",
}
"""The problem whose optimum :func:`bracket` brackets, per family."""

SKIPPED = frozenset({"mip", "exhaustive"})
"""Algorithms the first phase does not run: the exact engine runs in the second phase, and
``exhaustive`` enumerates orders (it is exact only on tiny instances)."""

NO_PART = {"packing": frozenset({"psrs", "psrs-paper", "synchpack3", "tetris"})}
"""Per family, fast algorithms that cannot move the bracket, logged as skipped: packing's
preemptive schedules are no upper bound of the non-preemptive optimum, and these four return no
lower bound (``synchpack1`` returns LP1 and is run). At 10 jobs they were 22 ms of a 74 ms
bracket, whose exact engine proved the optimum in 19 ms (a test keeps the list true)."""

HEAVY = {"flex": 0.4}
"""Algorithms started only when the time left holds this many seconds per job of the instance:
FLEX's local search took 0.33 s at 3 flows (9 jobs), 3.4 s at 10 flows (31 jobs) and 7.6 s at 20
(60 jobs) on the 2-core machine, and one 10-flow call took 15 s at load 17 (a 10 s bracket ran
15.8 s with it), so 0.4 s a job leaves a margin of about 3; every other fast algorithm took under
0.4 s at the benchmark's largest sizes."""

MALLEABLE_MAX_JOBS = 20
"""The malleable MIP runs on instances of at most this many jobs (its event model grows as jobs^2
and HiGHS proves 5 flows of 2-4 jobs, not 7, in 60 s)."""

MALLEABLE_SOLVE_SHARE = 0.5
"""The malleable MIP's ``time_limit`` covers each of its HiGHS solves, not its build: it gets this
share of what is left after its start algorithms."""

DEFERRED = {"packing": frozenset({"synchpack1", "synchpack2"})}
"""Per family, fast algorithms that run after the exact engine, and only when it did not prove the
optimum, on instances where the engine runs CP-SAT alone (packing under
:data:`~schedrelax.rounding.cpsat.LP_MIN_TASKS` tasks): their LPs (LP1, LP2) took 25 ms of a
bracket whose CP-SAT proved 10 jobs in 10-20 ms (reach benchmark, seeds 0-4). They keep
:data:`DEFERRED_SHARE` of the time limit."""

DEFERRED_SHARE = 0.05
"""The share of the time limit the engine leaves to the :data:`DEFERRED` algorithms."""

RESERVE = 0.03
"""Share of the time limit kept after the exact engine, for verifying its schedule and the
bookkeeping, so that the call ends inside its limit."""

MIN_ENGINE_SECONDS = 0.2
"""The exact engine is not started with less time than this left."""


@dataclass(frozen=True)
class Attempt:
    """One source tried by :func:`bracket`: an algorithm or a bound, what it gave, how long it took.

    ``upper_bound`` is the verified cost of its schedule when that schedule belongs to the
    bracketed problem (None otherwise, ``note`` says why); ``lower_bound`` its proven bound, with
    ``bound_kind``; ``note`` also holds an error or a skip."""

    name: str
    seconds: float
    lower_bound: float | None = None
    bound_kind: str | None = None
    upper_bound: float | None = None
    note: str = ""


@dataclass(frozen=True)
class Bracket:
    """[lower_bound, upper_bound] around OPT of :data:`PROBLEMS`' problem for the instance.

    ``lower_bound`` (None if no source proved one) and its ``lower_bound_kind`` (which bound,
    from which source); ``upper_bound`` the verified cost of ``schedule``, found by the algorithm
    ``upper_bound_kind``; ``log`` every source tried; ``elapsed`` the call's wall time in seconds
    against ``time_limit``."""

    lower_bound: float | None
    lower_bound_kind: str | None
    upper_bound: float
    upper_bound_kind: str
    schedule: Schedule
    problem: str
    time_limit: float
    elapsed: float
    log: tuple[Attempt, ...]

    @property
    def gap(self) -> float | None:
        """(upper − lower) / upper, as :attr:`schedrelax.algorithms.Result.gap`; None without a
        lower bound or with a non-positive upper bound."""
        if self.lower_bound is None or not self.upper_bound > 0:
            return None
        return max(0.0, (self.upper_bound - self.lower_bound) / self.upper_bound)

    @property
    def width(self) -> float | None:
        """upper / lower − 1 (the bracket's width), None without a positive lower bound."""
        if self.lower_bound is None or not self.lower_bound > 0:
            return None
        return max(0.0, self.upper_bound / self.lower_bound - 1.0)

    @property
    def optimal(self) -> bool:
        """The schedule is proven optimal: its cost meets the lower bound within the package's
        tolerance (:func:`schedrelax.rounding.exact.meets_bound`)."""
        from schedrelax.rounding.exact import meets_bound

        return meets_bound(self.upper_bound, self.lower_bound)

    def status_line(self) -> str:
        """One line for people: optimal (proven), or the bracket and its width."""
        if self.optimal:
            return f"optimal (proven: the schedule's cost {self.upper_bound:.6g} meets the lower bound)"
        if self.lower_bound is None:
            return f"upper bound {self.upper_bound:.6g}, no lower bound proven"
        return (f"OPT in [{self.lower_bound:.6g}, {self.upper_bound:.6g}], not proven optimal; "
                f"width UB/LB - 1 = {100 * self.width:.3g} %" if self.width is not None else
                f"OPT in [{self.lower_bound:.6g}, {self.upper_bound:.6g}], not proven optimal")


def _check(time_limit: object, threads: object) -> None:
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not (
            math.isfinite(time_limit) and time_limit > 0):
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")


def _fits(instance, result) -> tuple[bool, str]:
    """Whether *result*'s schedule is one of the bracketed problem's, and why not."""
    if instance.family == "packing" and "non_preemptive" not in result.schedule.promises:
        return False, "preemptive schedule: no upper bound of the non-preemptive optimum"
    return True, ""


def _family_params(instance) -> dict:
    if instance.family == "mapreduce":
        from schedrelax.schedulers.mapreduce_sim import resolve_model

        return {"model": resolve_model(instance)[0]}
    return {}


MAPREDUCE_VARIABLES_PER_SECOND = 600
"""How fast the mapreduce MIP is built and handed to CP-SAT (Pyomo model, then its CP-SAT
compilation), in variables a second: 590-620 measured at 60 and 100 slots with the shared 2-core
machine at load 8-10 (a quiet machine is faster, so this errs towards leaving time unused). The
engine's own ``time_limit`` covers its solve only, so the bracket gives it what is left after the
predicted build, and skips it when the build alone would take over :data:`MAX_BUILD_SHARE` of
what is left."""

BUILD_SAFETY = 1.2
"""Factor on the predicted build time: the same build took 7.4-10.9 s at 20-60 slots from one run
to the next on the loaded machine."""

MAX_BUILD_SHARE = 0.7
"""The largest share of the time left that a predicted model build may take (mapreduce)."""


def mapreduce_mip_variables(instance, upper_bound: float) -> int:
    """About how many variables the mapreduce MIP of *instance* has with its windows capped by a
    schedule of flow time *upper_bound*: per job, its window's slots times (3 + its Reduce tasks),
    an over-estimate by 3-23 % of the built model at 20-100 slots."""
    import numpy as np

    from schedrelax.models.mapreduce_mip import mip_windows

    end, _ = mip_windows(instance, upper_bound=upper_bound)
    return int(((end - instance.arrival) * (3 + np.diff(instance.reduce_offset))).sum())


def _load_cpsat() -> None:
    """Load CP-SAT's extension now (1-4 s on its first use in a process), so that the time left
    for the engine is measured after it and its build predictions hold."""
    from schedrelax.errors import SolverNotAvailableError

    try:
        from schedrelax._ortools import cp_model_module

        cp_model_module().CpModel()
    except SolverNotAvailableError:
        return


def _engine(instance, best, left: float, threads: int | None, seed: int, spent: float):
    """The family's exact engine from the *best* Result, with *left* seconds of wall time
    (*spent*: what the fast algorithms took, which the mapreduce and malleable MIPs run again for
    their starts): a Result; a SchedrelaxError or ValueError says why the engine does not run."""
    from schedrelax.algorithms import run

    if instance.family == "packing":
        from schedrelax.rounding.cpsat import packing_cpsat

        start = best if best is not None and "non_preemptive" in best.schedule.promises else None
        return run_verified(instance, packing_cpsat(instance, time_limit=left, threads=threads, seed=seed,
                                                    start=start))
    if instance.family == "related":
        from schedrelax.rounding.cpsat import related_cpsat

        return run_verified(instance, related_cpsat(instance, time_limit=left, threads=threads, seed=seed,
                                                    start=best))
    if instance.family == "mapreduce":
        build = BUILD_SAFETY * mapreduce_mip_variables(instance, best.objective) / MAPREDUCE_VARIABLES_PER_SECOND
        if build > MAX_BUILD_SHARE * left or left - build - spent < MIN_ENGINE_SECONDS:
            raise ValueError(f"skipped: its model would take about {build:.1f} s to build and its starts "
                             f"{spent:.1f} s, of the {left:.1f} s left")
        # its own start policies are the bracket's (all of them): it starts from the best
        from schedrelax.rounding.cpsat import available_cores

        # the mip's own default is one worker (solvers.cpsat_backend): the bracket's is every core
        return run("mip", instance, solver="cpsat", seed=seed, time_limit=left - build - spent,
                   params={**_family_params(instance), "threads": threads or available_cores()})
    if instance.n_jobs > MALLEABLE_MAX_JOBS:
        raise ValueError(f"the malleable MIP is run on at most {MALLEABLE_MAX_JOBS} jobs, this instance has "
                         f"{instance.n_jobs}")
    if left - spent < MIN_ENGINE_SECONDS:
        raise ValueError(f"skipped: its start algorithms took {spent:.1f} s, {left:.1f} s are left")
    return run("mip", instance, solver="highs", seed=seed, time_limit=MALLEABLE_SOLVE_SHARE * (left - spent),
               params={"minima": False, "max_jobs": MALLEABLE_MAX_JOBS})


def _engine_alone(instance) -> bool:
    """Whether the family's exact engine runs CP-SAT without an LP bound on *instance*."""
    from schedrelax.rounding.cpsat import LP_MIN_TASKS

    return instance.family in LP_MIN_TASKS and instance.n_tasks < LP_MIN_TASKS[instance.family]


def _run_fast(name: str, instance, seed: int, params: dict, log: list, schedules: list) -> None:
    """Run the fast algorithm *name* through the registry (verified) and log it; its Result joins
    *schedules* when its schedule is one of the bracketed problem's."""
    from schedrelax.algorithms import run

    t = time.perf_counter()
    try:
        res = run(name, instance, seed=seed, params=params)
    except SchedrelaxError as exc:
        log.append(Attempt(name, time.perf_counter() - t, note=f"refused: {exc}".splitlines()[0]))
        return
    fits, why = _fits(instance, res)
    if fits:
        schedules.append(res)
    log.append(Attempt(name, time.perf_counter() - t, res.lower_bound, res.bound_kind,
                       res.objective if fits else None, why))


def run_verified(instance, result):
    """*result* (from an engine called directly, not through :func:`schedrelax.algorithms.run`)
    with its schedule verified and its objective evaluated."""
    from dataclasses import replace

    verify(instance, result.schedule)
    ev = evaluate(instance, result.schedule)
    return replace(result, objective=ev.objective, evaluation=ev)


def bracket(instance, time_limit: float = 60.0, threads: int | None = None, *, seed: int = 0,
            exact: bool = True) -> Bracket:
    """The largest proven lower bound and the cheapest verified schedule of *instance* the
    package finds in *time_limit* seconds of wall time (see the module docstring).

    *threads*: CP-SAT's workers (None: every available core). *exact* False stops after the
    fast algorithms (the bracket of the papers' relaxations and heuristics alone). Raises
    ValueError for a bad *time_limit* or *threads*, SchedrelaxError when no algorithm of the
    family gives a schedule of the bracketed problem.
    """
    t0 = time.perf_counter()  # the imports below are part of the call's time on its first use
    _check(time_limit, threads)
    from schedrelax.algorithms import available
    from schedrelax.rounding.exact import COST_MATCH

    deadline = t0 + time_limit
    log: list[Attempt] = []
    schedules: list = []  # Results whose schedules belong to the problem
    specs = [s for s in available(instance.family) if s.name not in SKIPPED]
    specs.sort(key=lambda s: s.name in HEAVY)
    params = _family_params(instance)
    idle = NO_PART.get(instance.family, frozenset())
    later = [s for s in specs if s.name in DEFERRED.get(instance.family, ()) and _engine_alone(instance)] \
        if exact else []
    for spec in specs:
        if spec.name in idle:
            log.append(Attempt(spec.name, 0.0, note="skipped: a preemptive schedule and no lower bound, which "
                                                     "cannot move the non-preemptive bracket"))
            continue
        if spec in later:
            continue
        per_job = HEAVY.get(spec.name)
        # the light algorithms always run (0.4 s together at the benchmark's largest sizes): a
        # bracket needs a schedule, even when the first call's imports took the budget
        if per_job is not None and deadline - time.perf_counter() <= per_job * instance.n_jobs + MIN_ENGINE_SECONDS:
            log.append(Attempt(spec.name, 0.0, note="skipped: too little of the budget left"))
            continue
        _run_fast(spec.name, instance, seed, params, log, schedules)
    best = min(schedules, key=lambda r: r.objective) if schedules else None
    proven = False  # the engine's schedule meets its proven bound
    if exact:
        if instance.family != "malleable":
            _load_cpsat()
        spent = sum(a.seconds for a in log)  # what the mapreduce and malleable MIPs' starts take again
        left = deadline - time.perf_counter() - (RESERVE + (DEFERRED_SHARE if later else 0.0)) * time_limit
        if left < MIN_ENGINE_SECONDS:
            log.append(Attempt("mip", 0.0, note="skipped: too little of the budget left"))
        else:
            t = time.perf_counter()
            try:
                res = _engine(instance, best, left, threads, seed, spent=spent)
            except (SchedrelaxError, ValueError) as exc:
                text = str(exc).splitlines()[0]
                log.append(Attempt("mip", time.perf_counter() - t,
                                   note=text if text.startswith("skipped") else f"refused: {text}"))
            else:
                seconds = time.perf_counter() - t
                lp = res.info.get("lp_bound")
                if lp is not None:
                    log.append(Attempt("mip: LP bound", res.timings.get("lp", math.nan), lp,
                                       res.info.get("lp_bound_kind")))
                fits, why = _fits(instance, res)
                if fits:
                    schedules.append(res)
                    proven = res.status == "optimal"
                engine = res.info.get("engine") or res.params.get("solver") or "mip"
                log.append(Attempt("mip", seconds, res.lower_bound, res.bound_kind and f"{res.bound_kind} ({engine})",
                                   res.objective if fits else None, why or f"status {res.status}"))
    for spec in later:
        if proven:
            log.append(Attempt(spec.name, 0.0, note="skipped: the exact engine proved the optimum first"))
        else:
            _run_fast(spec.name, instance, seed, params, log, schedules)
    if not schedules:
        raise SchedrelaxError(f"bracket: no algorithm gave a schedule of the {instance.family} problem "
                              f"({PROBLEMS[instance.family]})")
    best = min(schedules, key=lambda r: r.objective)
    ub = best.objective
    bounds = [(a.lower_bound, a) for a in log if a.lower_bound is not None and math.isfinite(a.lower_bound)]
    # A bound above a verified schedule's cost is refuted (a solver's wrong proof): never the bracket's.
    valid = [(b, a) for b, a in bounds if b - ub <= COST_MATCH * max(1.0, abs(ub))]
    lb, lb_kind = None, None
    if valid:
        lb, source = max(valid, key=lambda ba: ba[0])
        lb_kind = f"{source.bound_kind} [{source.name}]"
    return Bracket(lower_bound=lb, lower_bound_kind=lb_kind, upper_bound=ub, upper_bound_kind=best.algorithm,
                   schedule=best.schedule, problem=PROBLEMS[instance.family], time_limit=float(time_limit),
                   elapsed=time.perf_counter() - t0, log=tuple(log))
