"""The event-driven online simulator: re-run a registered offline algorithm as jobs arrive.

At each re-planning time ``now`` the work that remains (:func:`~schedrelax.online.remaining.remaining`:
arrived, unfinished jobs, remaining sizes, machines as the instance's own ready times and
reservations and the committed work leave them, ``now`` shifted to 0 unless a cost needs the
original clock) goes to the offline algorithm through :func:`schedrelax.algorithms.run`, so every
plan is itself verified against its sub-instance, and the composed schedule against the original
instance. The plan, back on the original clock, is followed exactly
until the next re-planning time T: preemptive plans (malleable flows; packing plans that do not
promise ``non_preemptive``) are cut at T, the rest re-planned; in non-preemptive plans (related
machines; packing plans that promise it) every task that starts before T is committed whole on its
machine, and the next sub-instance sees its machine as busy (packing reservations, related ready
times) — a committed task is never moved.

When to re-plan. Plans are deterministic and followed exactly, so only an *arrival* brings new
information: by default (``replan_on="arrivals"``) the simulator re-plans at every arrival time
(paper 003 §7.2's online SynchPack). ``replan_on="events"`` also re-plans at every planned job
completion (paper 004 §VI-B: S-PC "re-optimises at each arrival and departure"), which can change
the plan because the offline algorithms are not time-consistent. With ``epoch`` (paper 000 §4.2,
paper 002 §2.2) events are rounded up to the next multiple of ``epoch``: the simulator re-plans at
an epoch boundary when something happened in the epoch before it, and a job arriving inside an
epoch waits for its end. With every arrival at 0 there is one plan, at 0, and it is followed to
the end: ``online:X`` then gives exactly X's schedule.

Reuse across re-plans: an algorithm that takes an ``lp_basis`` parameter (``synchpack3``) gets
the basis of the LP it solved at the previous re-plan, keyed by job and renumbered to the new
sub-instance's jobs (``info["lp_basis"]``, an object with ``renumber(old_to_new)``, e.g.
:class:`~schedrelax.models.synchpack_lp.LP3Basis`), and starts its simplex there: consecutive
sub-instances share most jobs, so the last optimal basis is a few pivots from the next one (LP3
on 39 consecutive 300-job re-plans: 5,423 simplex iterations against 24,014 from scratch, issue
17 item 3). The LP's optimum is the same; where the LP has several optimal solutions another may
be found, and with it another plan: ``reuse_basis=False`` solves every re-plan's LP from scratch
(as the offline algorithm alone would). Nothing else is carried: a solver or a cut pool stays
inside one run (S-PC's persistent HiGHS model within its cutting-plane loop).

Cost per event. The committed pieces are kept as a list of parts and joined
once, at the end; packing sub-instances come from per-task state updated as parts are committed
(:class:`~schedrelax.online.remaining.RemainingWork`), so the simulator's own work at an event
grows with the sub-instance, not with the number of events before it; a packing sub-instance is
built in whole-array steps through the trusted ``PackingInstance._from_validated`` (its values
all come from the validated instance), not re-validated task by task. Every plan is still
verified against its sub-instance (inside ``run``): that check costs what the plan holds (about
3% of an event for ``synchpack3`` at 1,000 jobs) and names the algorithm and the re-planning time
of a bad plan, where the final ``verify`` of the composed schedule against the original instance
(``run("online:...")``) could only name a piece of it.
"""

from __future__ import annotations

import functools
import inspect
import math
import time
from typing import Any

import numpy as np

from schedrelax.algorithms import ONLINE_PREFIX, Result, get, run
from schedrelax.errors import AlgorithmError
from schedrelax.instances import Instance, MalleableInstance, RelatedInstance
from schedrelax.instances._checks import positions
from schedrelax.online.bounds import online_lower_bound
from schedrelax.online.metrics import online_metrics
from schedrelax.online.remaining import (
    Committed,
    RemainingWork,
    grid_fraction,
    job_release,
)
from schedrelax.schedules import Schedule

FAMILIES = ("malleable", "packing", "related")
REPLAN_ON = ("arrivals", "events")
_TIME_TOL = 1e-9


def check_inner_algorithm(algorithm: object, shown: str) -> None:
    """AlgorithmError unless *algorithm* can be re-planned online: a non-empty name that is not
    itself ``online:...`` (re-planning a re-planner has no meaning: the inner run would see only
    its sub-instance's arrivals, all at 0). *shown* is the name as the user gave it."""
    if not isinstance(algorithm, str):
        raise AlgorithmError(f"algorithm {shown!r}: online re-planning needs an algorithm name (a string), "
                             f"got {type(algorithm).__name__}")
    if not algorithm:
        raise AlgorithmError(f"algorithm {shown!r}: online re-planning needs an offline algorithm to re-run, "
                             f"got no algorithm name (write {ONLINE_PREFIX}<algorithm>)")
    if algorithm.startswith(ONLINE_PREFIX):
        raise AlgorithmError(f"algorithm {shown!r}: nested online re-planning is not supported; name the "
                             f"offline algorithm after a single {ONLINE_PREFIX!r}")


def _epoch_ceil(t: float, epoch: float | None) -> float:
    """The first re-planning time at or after *t*: t itself, or the next multiple of *epoch*.

    The k-th multiple of an epoch that is the float nearest p/q (q <= 1000: 0.7 is 7/10) is the
    float nearest k·p/q, the number the user means (3 × 0.7 is 2.0999999999999996, off every
    grid the data may lie on; see remaining.shift_clock); other epochs are multiplied as floats."""
    if epoch is None or not math.isfinite(t):
        return t
    k = math.ceil(t / epoch - _TIME_TOL)
    p, q = _epoch_fraction(epoch)
    return k * p / q if q else k * epoch


@functools.lru_cache(maxsize=16)
def _epoch_fraction(epoch: float) -> tuple[int, int]:
    """(p, q) with *epoch* the float nearest p/q, q <= 1000 (:func:`grid_fraction`); (0, 0) if
    there is none."""
    f = grid_fraction(epoch)
    return (0, 0) if f is None else (f.numerator, f.denominator)


def _commit(plan: Schedule, until: float, whole: bool) -> Schedule:
    """The part of *plan* followed before *until*: pieces starting before it, whole or cut at it."""
    if not math.isfinite(until):
        return plan
    keep = plan.start < until - _TIME_TOL * max(1.0, until)
    end = plan.end[keep] if whole else np.minimum(plan.end[keep], until)
    return Schedule(plan.job[keep], plan.task[keep], plan.machine[keep], plan.start[keep], end, plan.rate[keep],
                    promises=plan.promises)


def _first_completion(plan: Schedule, done: Committed, running: np.ndarray, now: float) -> float:
    """The earliest time after *now* at which a job completes, following the plan (committed work
    still running included). *running*: the jobs of the committed pieces that end after *now*;
    any other job with nothing in the plan is complete by *now*."""
    jobs = np.union1d(plan.job, running)
    if not len(jobs):
        return math.inf
    last = np.full(len(jobs), -np.inf)
    np.maximum.at(last, np.searchsorted(jobs, plan.job), plan.end)
    known = jobs < len(done.job_end)
    last[known] = np.maximum(last[known], done.job_end[jobs[known]])
    later = last[last > now + _TIME_TOL * max(1.0, now)]
    return float(later.min()) if len(later) else math.inf


def simulate(instance: Instance, algorithm: str, *, epoch: float | None = None, replan_on: str = "arrivals",
             solver: str = "highs", seed: int | None = 0, bound: bool = True, trace: bool = False,
             reuse_basis: bool = True, **params: Any) -> Result:
    """Run *algorithm* online on *instance* (see the module docstring); returns the composed Result.

    ``params`` go to the offline algorithm at every re-plan. ``bound`` computes the lower bound of
    :func:`~schedrelax.online.bounds.online_lower_bound` (``Result.lower_bound``). ``reuse_basis``
    starts each re-plan's LP from the previous one's basis where the algorithm takes one
    (module docstring; ``info["lp_warm_starts"]`` counts them). ``trace`` keeps
    every plan, in the original clock, with its time and the time it was followed until, in
    ``info["plans"]``. ``info`` also holds the number of re-plans, planning seconds (total, per
    event, largest; and the process's CPU seconds in planning, steadier than wall time on a shared
    machine), the mean number of jobs in a sub-instance and the online metrics
    (:func:`~schedrelax.online.metrics.online_metrics`).
    """
    check_inner_algorithm(algorithm, algorithm)
    if instance.family not in FAMILIES:
        raise AlgorithmError(f"online:{algorithm}: online re-planning supports {', '.join(FAMILIES)} instances, "
                             f"not {instance.family}")
    spec = get(algorithm, instance.family)  # an unknown name fails before anything runs
    if "lp_basis" in params:
        raise AlgorithmError(f"online:{algorithm}: lp_basis is the simulator's to pass (the previous re-plan's "
                             "basis); use reuse_basis=False to solve every re-plan from scratch")
    if not isinstance(reuse_basis, (bool, np.bool_)):
        raise ValueError(f"reuse_basis must be True or False, got {reuse_basis!r}")
    takes_basis = reuse_basis and "lp_basis" in inspect.signature(spec.fn).parameters
    basis, basis_jobs, warm_starts = None, None, 0
    if replan_on not in REPLAN_ON:
        raise ValueError(f"replan_on must be one of {', '.join(REPLAN_ON)}, got {replan_on!r}")
    if epoch is not None:
        epoch = float(epoch)
        if not (math.isfinite(epoch) and epoch > 0):
            raise ValueError(f"epoch must be a finite number > 0, got {epoch!r}")
    t_start = time.perf_counter()
    release = job_release(instance)
    arrivals = np.unique([_epoch_ceil(float(r), epoch) for r in release])
    work = RemainingWork(instance, epoch=epoch)
    now = float(arrivals[0])
    plan_seconds: list[float] = []
    plan_cpu = 0.0
    plan_times: list[float] = []
    sub_jobs: list[int] = []
    plans: list[dict[str, Any]] = []
    promises: frozenset[str] | None = None
    keep_machine = False
    while True:
        # The re-planning times only increase: the first arrival after now is found by bisection.
        k = int(np.searchsorted(arrivals, now + _TIME_TOL * max(1.0, now), side="right"))
        next_arrival = float(arrivals[k]) if k < len(arrivals) else math.inf
        rem = work.at(now, keep_machine=keep_machine)
        if rem is None:
            if not math.isfinite(next_arrival):
                break
            now = next_arrival
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        call = params
        if basis is not None:
            call = {**params, "lp_basis": basis.renumber(positions(rem.job_map, basis_jobs))}
            warm_starts += 1
        res = run(algorithm, rem.instance, solver=solver, seed=seed, params=call)
        if takes_basis:
            basis, basis_jobs = res.info.get("lp_basis"), rem.job_map
        plan_seconds.append(time.perf_counter() - t0)
        plan_cpu += time.process_time() - c0
        plan_times.append(now)
        sub_jobs.append(rem.instance.n_jobs)
        plan = rem.to_original(res.schedule, instance)
        promises = plan.promises if promises is None else promises & plan.promises
        # A task cut by a re-plan resumes on its machine when the algorithm promises no migration.
        keep_machine = "no_migration" in plan.promises
        whole = isinstance(instance, RelatedInstance) or (
            not isinstance(instance, MalleableInstance) and "non_preemptive" in plan.promises)
        until = next_arrival
        if replan_on == "events":
            running = work.done.running(now)["job"]
            completion = _epoch_ceil(_first_completion(plan, work.done, running, now), epoch)
            if completion <= now + _TIME_TOL * max(1.0, now):
                completion = _epoch_ceil(now + epoch, epoch) if epoch else now
            until = min(until, completion)
        part = _commit(plan, until, whole)
        if trace:
            plans.append({"time": now, "until": until, "plan": plan, "committed": part})
        work.commit(part)
        if not math.isfinite(until):
            break
        now = until
    schedule_promises = _final_promises(instance, promises or frozenset())
    schedule = work.done.schedule(schedule_promises, meta={"algorithm": f"online:{algorithm}"})
    lower, what, bound_seconds = (online_lower_bound(instance, solver) if bound else (None, None, 0.0))
    per_event = float(np.mean(plan_seconds)) if plan_seconds else 0.0
    info: dict[str, Any] = {
        "replans": len(plan_seconds),
        "planning_seconds": float(sum(plan_seconds)),
        "planning_seconds_per_event": per_event,
        "planning_seconds_max": float(max(plan_seconds, default=0.0)),
        "planning_cpu_seconds": plan_cpu,
        "replan_times": plan_times,
        "sub_instance_jobs_mean": float(np.mean(sub_jobs)) if sub_jobs else 0.0,
        "lp_warm_starts": warm_starts,
        "metrics": online_metrics(instance, schedule),
        "lower_bound_method": what,
    }
    if trace:
        info["plans"] = plans
    return Result(algorithm=f"online:{algorithm}", schedule=schedule, lower_bound=lower, bound_kind=what,
                  guarantee=None,
                  timings={"planning": float(sum(plan_seconds)), "bound": bound_seconds,
                           "simulation": time.perf_counter() - t_start},
                  params={"algorithm": algorithm, "epoch": epoch, "replan_on": replan_on, "bound": bound,
                          "reuse_basis": reuse_basis, **params},
                  info=info)


def _final_promises(instance: Instance, promises: frozenset[str]) -> frozenset[str]:
    """What the composed schedule still promises: in packing, non-preemption when every plan made
    it (tasks are then committed whole) and no migration when every plan made it (cut tasks
    resume on their machine); nothing for malleable flows (cuts may break minima)."""
    if isinstance(instance, MalleableInstance):
        return frozenset()
    return promises & {"non_preemptive", "no_migration"}

