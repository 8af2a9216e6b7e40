"""The work that remains at a re-planning time, as an instance of its own family.

At time ``now`` the online simulator hands the offline algorithm a *sub-instance*: the jobs that
have arrived and are not finished, on a clock whose 0 is the *origin* (``now``, except for the
malleable case below): sub-instance time τ is original time origin + τ. What the instance says
about its machines (related ready times, packing reservations) and what was committed before
``now`` shape it, family by family:

* malleable (paper 000 §4.2: "the job sizes for FlowFlex change from epoch to epoch"): each job
  keeps its remaining work; finished jobs leave their flow, and so do the edges from them. Each
  flow's cost is re-based at ``now`` (:meth:`CostFunction.shifted`; the constant it drops changes
  no minisum decision; under minimax the plan ignores the flows' different sunk constants, a
  heuristic) and the origin is ``now``. A cost with no re-based form (``power``: w·(now + τ)^p is
  no w'·τ^p' + k) keeps the original clock instead: origin 0, every flow released at ``now``, every
  cost as given, so the plan optimises the true costs. Flows are preemptive, so nothing is reserved.
* packing: a task committed whole (non-preemptive plans) is gone from the sub-instance and, if it
  still runs at ``now``, holds its demand on its machine as a *reservation* until it ends; the
  instance's own reservations that still hold at ``now`` are kept beside those. A task cut at
  ``now`` (preemptive plans) keeps its remaining fraction f: its time on every machine of its
  placement set becomes f·p^i; with ``keep_machine`` (plans that promise no migration) its
  placement shrinks to the machine it ran on.
* related: tasks are never preempted, so a committed task is gone and its machine is *ready* at
  the later of the task's end and the machine's own ready time. A job whose predecessor is still
  running gets a release time (that end); a job whose predecessor has not arrived (or is itself
  held back) is held back until it can be planned.

A job counts as arrived when its release is within round-off of ``now``; its sub-instance release
is what is left of it (max(0, release − origin) and so on), never rounded down to the clock's 0.

:class:`Remaining` maps the plan of the sub-instance back to the original jobs, tasks and clock.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedrelax.errors import AlgorithmError
from schedrelax.instances import (
    Flow,
    Instance,
    MalleableInstance,
    PackingInstance,
    PackingJob,
    PackingTask,
    RelatedInstance,
    RelatedJob,
)
from schedrelax.instances.costs import CostFunction
from schedrelax.schedulers.related_list import topological_order
from schedrelax.schedules import Schedule, stamp_round_off

DONE_TOL = 1e-9
"""Remaining work, relative to the job's (or task's) own size, below which it counts as
finished (solver and float round-off of the plans; the verifier's own tolerance is 1e-6,
relative to the work too), plus for a malleable job the round-off of its pieces' time stamps
(:func:`schedrelax.schedules.stamp_round_off`, as the verifier). Never relative to max(1, size):
a job of 1e-9 work has not been done because less than 1e-9 of it is left before it ran."""


@dataclass(frozen=True)
class Committed:
    """The pieces committed so far, in the original instance's indices and clock."""

    job: np.ndarray
    task: np.ndarray
    machine: np.ndarray
    start: np.ndarray
    end: np.ndarray
    rate: np.ndarray

    @classmethod
    def empty(cls) -> Committed:
        z = np.zeros(0)
        i = np.zeros(0, dtype=np.int64)
        return cls(i, i, i, z, z, z)

    def extend(self, s: Schedule) -> Committed:
        return Committed(*(np.concatenate([getattr(self, c), getattr(s, c)])
                           for c in ("job", "task", "machine", "start", "end", "rate")))

    def schedule(self, promises=(), meta=None) -> Schedule:
        return Schedule(self.job, self.task, self.machine, self.start, self.end, self.rate,
                        promises=frozenset(promises), meta=dict(meta or {}))


@dataclass(frozen=True)
class Remaining:
    """A sub-instance at time ``now``: ``job_map[j']`` is the original job of sub-job j' (the
    global job index for malleable instances); ``task_map[g']`` the original global task of
    sub-task g' (packing, related; None for malleable); sub-instance time τ is original time
    ``origin`` + τ (module docstring)."""

    instance: Instance
    now: float
    job_map: np.ndarray
    task_map: np.ndarray | None
    origin: float

    def to_original(self, s: Schedule, original: Instance) -> Schedule:
        """The plan *s* of the sub-instance in the original instance's indices and clock."""
        if self.task_map is None:
            job, task = self.job_map[s.job], s.task
        else:
            g = self.task_map[self.instance.job_offset[s.job] + s.task]
            job = original.task_job[g]
            task = g - original.job_offset[job]
        start, end = s.start + self.origin, s.end + self.origin
        # A piece a few ulps long on the sub-instance's clock can round to zero length on the
        # original one, where it does no work at all: it is left out, not kept as an empty piece.
        # A job whose whole plan vanishes so is too short for the clock it runs on: say so.
        k = end > start
        lost = np.setdiff1d(job, job[k])
        if len(lost):
            j = int(lost[0])
            at = float(start[job == j].min())
            raise AlgorithmError(
                f"online re-planning: job {j} (planned work {self._work_left(s, j, original):.6g}) is "
                f"planned at time {at:.17g} of the original clock, where its pieces are shorter than "
                f"the floating-point spacing {np.spacing(at):.3g} and vanish: the plan cannot be followed")
        return Schedule(job[k], task[k], s.machine[k], start[k], end[k], s.rate[k],
                        promises=s.promises, meta=dict(s.meta))

    def _work_left(self, s: Schedule, job: int, original: Instance) -> float:
        """What the plan *s* does of original job *job* (in the sub-instance's own units)."""
        mine = (self.job_map[s.job] if self.task_map is None else
                original.task_job[self.task_map[self.instance.job_offset[s.job] + s.task]]) == job
        return float(np.sum(s.rate[mine] * (s.end[mine] - s.start[mine])))


def job_release(instance: Instance) -> np.ndarray:
    """Each job's arrival time (a malleable job arrives with its flow)."""
    if isinstance(instance, MalleableInstance):
        return instance.job_release
    return np.asarray(instance.release, dtype=float)


def remaining(instance: Instance, done: Committed, now: float, *, keep_machine: bool = False) -> Remaining | None:
    """The sub-instance at *now* given the committed pieces *done*; None if no arrived work is left."""
    if isinstance(instance, MalleableInstance):
        return _malleable(instance, done, now)
    if isinstance(instance, PackingInstance):
        return _packing(instance, done, now, keep_machine)
    if isinstance(instance, RelatedInstance):
        return _related(instance, done, now)
    raise TypeError(f"online re-planning has no rule for the {instance.family} family "
                    "(malleable, packing and related are supported)")


def _arrived(release: np.ndarray, now: float) -> np.ndarray:
    return release <= now + DONE_TOL * max(1.0, now)


def _malleable(inst: MalleableInstance, done: Committed, now: float) -> Remaining | None:
    work = np.bincount(done.job, weights=done.rate * (done.end - done.start), minlength=inst.n_jobs)
    # Work measured from time stamps carries their round-off, a few ulps of the clock per piece
    # (what the verifier allows too): a job of 2e-9 done at t = 1 may be 1e-7 of itself short.
    slack = np.bincount(done.job, weights=stamp_round_off(done.rate, done.start, done.end), minlength=inst.n_jobs)
    left = inst.size - work
    open_job = left > DONE_TOL * inst.size + slack
    arrived = _arrived(inst.flow_release, now)
    has_open = np.add.reduceat(open_job, inst.flow_offset[:-1]) > 0
    planned = np.flatnonzero(arrived & has_open).tolist()
    if not planned:
        return None
    costs, origin = _costs_on_sub_clock([inst.flows[f].cost for f in planned], now)
    flows, job_map = [], []
    for f, cost in zip(planned, costs):
        fl = inst.flows[f]
        lo, hi = inst.flow_offset[f], inst.flow_offset[f + 1]
        keep = np.flatnonzero(open_job[lo:hi])
        local = np.full(hi - lo, -1)
        local[keep] = np.arange(len(keep))
        edges = np.asarray(fl.edges, dtype=np.int64).reshape(-1, 2)
        edges = local[edges[(local[edges] >= 0).all(axis=1)]] if len(edges) else edges
        release = max(now, float(inst.flow_release[f])) - origin
        flows.append(Flow(sizes=left[lo + keep], max_processors=fl.max_processors[keep],
                          min_processors=fl.min_processors[keep], edges=edges, release=release, cost=cost))
        job_map.append(lo + keep)
    sub = MalleableInstance(processors=inst.processors, flows=tuple(flows), objective=inst.objective,
                            name=f"{inst.name} @ {now:g}")
    return Remaining(sub, now, np.concatenate(job_map), None, origin)


def _costs_on_sub_clock(costs: list[CostFunction], now: float) -> tuple[list[CostFunction], float]:
    """The flows' costs on the sub-instance's clock and that clock's origin: re-based at *now*
    when every cost can be, else the costs as given on the original clock (origin 0)."""
    try:
        return [c.shifted(now)[0] for c in costs], now
    except ValueError:
        # CostFunction.shifted raises ValueError for a kind with no g(τ) + k form (power): its
        # value depends on absolute time, which only the original clock keeps for every flow.
        return costs, 0.0


def _task_index(inst: PackingInstance | RelatedInstance, done: Committed) -> np.ndarray:
    return inst.job_offset[done.job] + done.task


def _packing(inst: PackingInstance, done: Committed, now: float, keep_machine: bool) -> Remaining | None:
    g = _task_index(inst, done)
    M = inst.n_machines
    keys = inst.place_task * M + inst.place_machine
    order = np.argsort(keys, kind="stable")
    ptime = inst.place_time[order[np.searchsorted(keys[order], g * M + done.machine)]]
    frac = np.bincount(g, weights=(done.end - done.start) / ptime, minlength=inst.n_tasks)
    last_machine = np.full(inst.n_tasks, -1)
    last_machine[g[np.argsort(done.start, kind="stable")]] = done.machine[np.argsort(done.start, kind="stable")]
    pending = frac < 1.0 - DONE_TOL
    arrived = _arrived(inst.release, now)
    # Whatever still holds room after now, however briefly, is reserved: the sub-plan may start
    # at its time 0, and any overlap with dropped room would be a real overload.
    held = inst.reserve_until > now
    running = done.end > now
    reservations = [(int(i), float(a), float(e - now)) for i, a, e in
                    zip(np.r_[inst.reserve_machine[held], done.machine[running]],
                        np.r_[inst.reserve_demand[held], done.rate[running]],
                        np.r_[inst.reserve_until[held], done.end[running]])]
    jobs, job_map, task_map = [], [], []
    for j in np.flatnonzero(arrived).tolist():
        lo, hi = inst.job_offset[j], inst.job_offset[j + 1]
        tasks = []
        for t in range(lo, hi):
            if not pending[t]:
                continue
            sl = slice(inst.place_offset[t], inst.place_offset[t + 1])
            place, times = inst.place_machine[sl], inst.place_time[sl]
            share = 1.0 - frac[t]
            if keep_machine and frac[t] > 0:
                k = int(np.flatnonzero(place == last_machine[t])[0])
                place, times = place[k:k + 1], times[k:k + 1]
            tasks.append(PackingTask(demand=float(inst.demand[t]), placement=place, processing_time=times * share))
            task_map.append(t)
        if tasks:
            jobs.append(PackingJob(tasks=tuple(tasks), weight=float(inst.weights[j]),
                                   release=max(0.0, float(inst.release[j]) - now)))
            job_map.append(j)
    if not jobs:
        return None
    sub = PackingInstance(capacities=inst.capacities, jobs=tuple(jobs), name=f"{inst.name} @ {now:g}",
                          reservations=reservations)
    return Remaining(sub, now, np.array(job_map, dtype=np.int64), np.array(task_map, dtype=np.int64), now)


def _related(inst: RelatedInstance, done: Committed, now: float) -> Remaining | None:
    n = inst.n_jobs
    g = _task_index(inst, done)
    committed = np.zeros(inst.n_tasks, dtype=bool)
    committed[g] = True
    pending = ~committed
    job_pending = np.bincount(inst.task_job, weights=pending, minlength=n) > 0
    job_end = np.full(n, -np.inf)
    np.maximum.at(job_end, done.job, done.end)
    ready = np.asarray(inst.ready, dtype=float) - now
    np.maximum.at(ready, done.machine, done.end - now)
    arrived = _arrived(inst.release, now)
    preds: list[list[int]] = [[] for _ in range(n)]
    for a, b in inst.edges.tolist():
        preds[b].append(a)
    # A job can be planned once every predecessor has arrived and is planned or fully committed.
    plannable = np.zeros(n, dtype=bool)
    release = np.zeros(n)
    for j in topological_order(n, inst.edges, np.zeros(n)).tolist():
        if not (arrived[j] and job_pending[j]):
            continue
        if all(arrived[a] and (plannable[a] or not job_pending[a]) for a in preds[j]):
            plannable[j] = True
            release[j] = max([0.0, float(inst.release[j]) - now, *(job_end[a] - now for a in preds[j])])
    chosen = np.flatnonzero(plannable)
    if not len(chosen):
        return None
    sub_index = np.full(n, -1)
    sub_index[chosen] = np.arange(len(chosen))
    jobs, task_map = [], []
    for j in chosen.tolist():
        tasks = [t for t in range(inst.job_offset[j], inst.job_offset[j + 1]) if pending[t]]
        jobs.append(RelatedJob(tasks=inst.task_size[tasks], weight=float(inst.weights[j]), release=float(release[j])))
        task_map.extend(tasks)
    edges = inst.edges[(sub_index[inst.edges] >= 0).all(axis=1)] if len(inst.edges) else inst.edges
    sub = RelatedInstance(speeds=inst.speeds, jobs=tuple(jobs), edges=sub_index[edges].reshape(-1, 2),
                          name=f"{inst.name} @ {now:g}", ready=np.maximum(ready, 0.0))
    return Remaining(sub, now, chosen, np.array(task_map, dtype=np.int64), now)
