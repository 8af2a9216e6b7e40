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

Packing times on a grid stay on it: when every release, reservation end and processing time of the
instance is the float nearest some k/q (q <= 1000, the packing MIP's grid), a release or
reservation end x shifted to a clock origin ``now`` that is on the same grid is the float nearest
the exact difference (:func:`shift_clock`), not the float difference x − now, which can miss the
grid by an ulp of the operands (1.97 − 1.4 = 0.5700000000000001) and make the time-indexed MIP
refuse a sub-instance of an instance it accepts. With an epoch the grid covers the epoch too (its
multiples are re-planning times: data on halves and epoch 0.7 give tenths).

:class:`Remaining` maps the plan of the sub-instance back to the original jobs, tasks and clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from schedrelax.errors import AlgorithmError
from schedrelax.instances import (
    Flow,
    Instance,
    MalleableInstance,
    PackingInstance,
    RelatedInstance,
    RelatedJob,
)
from schedrelax.instances import _checks as ck
from schedrelax.instances.costs import CostFunction
from schedrelax.schedulers.related_list import topological_order
from schedrelax.schedules import Schedule, stamp_round_off

DONE_TOL = 1e-9
"""Remaining work, relative to the job's (or task's) own size, below which it counts as
finished (solver and float round-off of the plans; the verifier's own tolerance is 1e-6,
relative to the work too), plus for a malleable job the round-off of its pieces' time stamps
(:func:`schedrelax.schedules.stamp_round_off`, as the verifier). Never relative to max(1, size):
a job of 1e-9 work has not been done because less than 1e-9 of it is left before it ran."""


GRID_LIMIT = 10**6
"""The largest common denominator :func:`data_grid` reports."""


def grid_fraction(v: float) -> Fraction | None:
    """The fraction k/q (q at most the packing MIP's ``MAX_DENOMINATOR``) whose nearest float is
    *v*, or None if there is none."""
    from schedrelax.models.packing_mip import MAX_DENOMINATOR

    f = Fraction(v).limit_denominator(MAX_DENOMINATOR)
    return f if float(f) == v else None


def data_grid(values: np.ndarray) -> int | None:
    """The least Q <= :data:`GRID_LIMIT` such that every one of *values* is the float nearest some
    k/Q with each value's own denominator at most the packing MIP's ``MAX_DENOMINATOR``; None
    if there is none (data off every such grid)."""
    import math

    q = 1
    for v in np.unique(np.asarray(values, dtype=float)).tolist():
        f = grid_fraction(v)
        if f is None:
            return None
        q = math.lcm(q, f.denominator)
        if q > GRID_LIMIT:
            return None
    return q


def shift_clock(x: np.ndarray, now: float, grid: int | None) -> np.ndarray:
    """x − now, except that where both x and *now* are the floats nearest k/grid and k'/grid, the
    float nearest (k − k')/grid (the exact difference of the numbers the data stand for; it differs
    from the float difference by at most a few ulps of the operands)."""
    x = np.asarray(x, dtype=float)
    out = x - now
    if grid is None or not len(x):
        return out
    kn = round(now * grid)
    if kn / grid != now:
        return out
    kx = np.rint(x * grid)
    on = kx / grid == x
    out[on] = (kx[on] - kn) / grid
    return out


_COLUMNS = ("job", "task", "machine", "start", "end", "rate")


class Committed:
    """The pieces committed so far, in the original instance's indices and clock, in commit order.

    Pieces are appended to column buffers that grow by doubling, so adding a part costs its own
    size, not that of everything committed before it (re-concatenating at every event
    made 10,000 jobs quadratic). Kept up to date as parts are added: each job's latest committed
    end (``job_end[j]``, -inf for a job with none; the array may run past the last job committed)
    and the pieces that may still be running (:meth:`running`, the pieces as they were added).

    With *job_offset* (packing: the instance's ``job_offset``) a piece that continues its task's
    latest run, on the same machine at the same rate from the instant that run ends, is joined
    into it (the run's end moves) instead of being kept as a piece of its own: a preemptive plan
    cut at every re-plan and followed on by the next one is one run, as the task ran (online ``synchpack3`` at 1,000 arrivals committed 205,363 pieces for 2,974 tasks,
    3,754 runs, and the composed schedule, its check and its metrics took the run's peak memory).
    Without it (malleable flows and related jobs, whose remaining work is summed from the pieces)
    every piece is kept as it came.
    """

    def __init__(self, job_offset: np.ndarray | None = None) -> None:
        self._cols = _join([])
        self._size = 0
        self.job_end = np.full(0, -np.inf)
        self._live = _join([])
        self._fresh: list[Schedule] = []
        self._asked = -np.inf
        self._offset = None if job_offset is None else np.asarray(job_offset, dtype=np.int64)
        # Each task's latest run (its row), -1 for none: where a continuing piece is joined.
        self._run_row = None if job_offset is None else np.full(int(self._offset[-1]), -1, dtype=np.int64)

    @classmethod
    def empty(cls) -> Committed:
        return cls()

    def add(self, s: Schedule) -> None:
        """Append the pieces of *s* (after every piece added before)."""
        if not len(s):
            return
        top = int(s.job.max()) + 1
        if top > len(self.job_end):
            # Doubling: jobs arrive in index order, so growing by what is needed would copy the
            # whole array at nearly every event.
            grown = np.full(max(top, 2 * len(self.job_end)), -np.inf)
            grown[:len(self.job_end)] = self.job_end
            self.job_end = grown
        np.maximum.at(self.job_end, s.job, s.end)
        self._fresh.append(s)
        if self._offset is None:
            self._append({c: getattr(s, c) for c in _COLUMNS})
        else:
            self._join_runs(s)

    def _append(self, cols: dict[str, np.ndarray]) -> np.ndarray:
        """Write *cols* after the last row; their row numbers."""
        n = len(cols["job"])
        if self._size + n > len(self._cols["job"]):
            cap = max(self._size + n, 2 * len(self._cols["job"]), 64)
            for c, v in self._cols.items():
                grown = np.empty(cap, dtype=v.dtype)
                grown[:self._size] = v[:self._size]
                self._cols[c] = grown
        for c in _COLUMNS:
            self._cols[c][self._size:self._size + n] = cols[c]
        self._size += n
        return np.arange(self._size - n, self._size)

    def _join_runs(self, s: Schedule) -> None:
        """Add *s* joining each piece into the run it continues (class docstring): the same runs
        as taking the pieces one by one, in order."""
        g = self._offset[s.job] + s.task
        n = len(g)
        idx = np.arange(n)
        order = np.lexsort((idx, g))  # each task's pieces together, in commit order
        gs, start, end = g[order], s.start[order], s.end[order]
        machine, rate = s.machine[order], s.rate[order]
        first = np.r_[True, gs[1:] != gs[:-1]]
        # A piece continues the piece before it of its task, or (the task's first here) its run.
        touch = np.r_[False, (start[1:] == end[:-1]) & (machine[1:] == machine[:-1]) & (rate[1:] == rate[:-1])]
        touch &= ~first
        row = self._run_row[gs]
        old = first & (row >= 0)
        r = row[old]
        buf = self._cols
        touch[old] = (start[old] == buf["end"][r]) & (machine[old] == buf["machine"][r]) & (rate[old] == buf["rate"][r])
        group = np.maximum.accumulate(np.where(first, idx, 0))
        head = np.maximum.accumulate(np.where(~touch, idx, -1))  # the piece each run starts with
        stored = head < group  # the run began in an earlier part
        last = np.r_[~touch[1:] | first[1:], True]  # the last piece of its run
        # Runs that began earlier: their end moves.
        ext = last & stored
        buf["end"][self._run_row[gs[ext]]] = end[ext]
        # Runs that begin here: one row each, in the commit order of their first piece.
        heads = idx[~touch]
        run_end = np.empty(n)
        run_end[head[last & ~stored]] = end[last & ~stored]
        heads = heads[np.argsort(order[heads], kind="stable")]
        rows = self._append({"job": s.job[order[heads]], "task": s.task[order[heads]], "machine": machine[heads],
                             "start": start[heads], "end": run_end[heads], "rate": rate[heads]})
        row_of_head = np.empty(n, dtype=np.int64)
        row_of_head[heads] = rows
        # Each task's latest run: that of its last piece here.
        tail = np.r_[first[1:], True]
        self._run_row[gs[tail]] = np.where(stored[tail], self._run_row[gs[tail]], row_of_head[np.maximum(head[tail], 0)])

    def running(self, now: float) -> dict[str, np.ndarray]:
        """The columns of the pieces that end after *now*, in commit order. Pieces that end by
        *now* are dropped for good, so *now* must not decrease from one call to the next."""
        if now < self._asked:
            raise ValueError(f"Committed.running: now {now!r} is before the time asked before ({self._asked!r})")
        self._asked = now
        live = self._live
        if self._fresh:
            fresh = _join(self._fresh)
            live = {c: np.concatenate([live[c], fresh[c]]) for c in _COLUMNS}
            self._fresh = []
        on = live["end"] > now
        self._live = live if on.all() else {c: v[on] for c, v in live.items()}
        return self._live

    def _columns(self) -> dict[str, np.ndarray]:
        return {c: v[:self._size] for c, v in self._cols.items()}

    job = property(lambda self: self._columns()["job"])
    task = property(lambda self: self._columns()["task"])
    machine = property(lambda self: self._columns()["machine"])
    start = property(lambda self: self._columns()["start"])
    end = property(lambda self: self._columns()["end"])
    rate = property(lambda self: self._columns()["rate"])

    def schedule(self, promises=(), meta=None) -> Schedule:
        c = self._columns()
        return Schedule(*(c[k].copy() for k in _COLUMNS), promises=frozenset(promises), meta=dict(meta or {}))


def _join(parts: list[Schedule]) -> dict[str, np.ndarray]:
    if not parts:
        return {c: np.zeros(0, dtype=np.int64 if c in ("job", "task", "machine") else float) for c in _COLUMNS}
    return {c: np.concatenate([getattr(p, c) for p in parts]) for c in _COLUMNS}


@dataclass(frozen=True)
class Remaining:
    """A sub-instance at time ``now``: ``job_map[j']`` is the original job of sub-job j' (the
    global job index for malleable instances); ``task_map[g']`` the original global task of
    sub-task g' (packing, related; None for malleable); sub-instance time τ is original time
    ``origin`` + τ (module docstring), computed on the data's *grid* where there is one
    (:func:`shift_clock`, so a time on it goes there and back exactly)."""

    instance: Instance
    now: float
    job_map: np.ndarray
    task_map: np.ndarray | None
    origin: float
    grid: int | None = None

    def to_original(self, s: Schedule, original: Instance) -> Schedule:
        """The plan *s* of the sub-instance in the original instance's indices and clock."""
        if self.task_map is None:
            job, task = self.job_map[s.job], s.task
        else:
            g = self.task_map[self.instance.job_offset[s.job] + s.task]
            job = original.task_job[g]
            task = g - original.job_offset[job]
        start, end = shift_clock(s.start, -self.origin, self.grid), shift_clock(s.end, -self.origin, self.grid)
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
    work = RemainingWork(instance)
    work.commit(done.schedule())
    return work.at(now, keep_machine=keep_machine)


class RemainingWork:
    """:func:`remaining` kept up to date as parts are committed, for a simulation whose re-planning
    times never decrease.

    For packing instances each task's done fraction and last machine, each job's count of
    unfinished tasks and the set of arrived, unfinished jobs are updated as parts are committed,
    so :meth:`at` costs what the sub-instance holds (its tasks and the pieces still running), not
    what was committed before. Malleable and related sub-instances are still
    derived from all committed pieces at each call (:func:`_malleable`, :func:`_related`).
    """

    def __init__(self, instance: Instance, *, epoch: float | None = None) -> None:
        """*epoch*: the re-planning epoch, if any; its multiples are re-planning times, so the
        packing grid (:func:`data_grid`) covers it too when it can."""
        if not isinstance(instance, (MalleableInstance, PackingInstance, RelatedInstance)):
            raise TypeError(f"online re-planning has no rule for the {instance.family} family "
                            "(malleable, packing and related are supported)")
        self.instance = instance
        self.done = Committed(instance.job_offset if isinstance(instance, PackingInstance) else None)
        self._packing = _PackingWork(instance, epoch) if isinstance(instance, PackingInstance) else None

    def commit(self, part: Schedule) -> None:
        """Add the pieces of *part* (original indices and clock) to what is committed."""
        self.done.add(part)
        if self._packing is not None and len(part):
            self._packing.add(part)

    def at(self, now: float, *, keep_machine: bool = False) -> Remaining | None:
        """The sub-instance at *now* (no earlier than the last call's); None if no arrived work is left."""
        inst = self.instance
        if isinstance(inst, MalleableInstance):
            return _malleable(inst, self.done, now)
        if isinstance(inst, RelatedInstance):
            return _related(inst, self.done, now)
        return self._packing.at(now, self.done.running(now), keep_machine)


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
    with ck.derived_instances():  # a residue cut at *now* may be any fraction of its job
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


class _PackingWork:
    """Per-task state of a packing simulation (:class:`RemainingWork`)."""

    def __init__(self, inst: PackingInstance, epoch: float | None = None) -> None:
        self.inst = inst
        self.offset = inst.place_offset
        self.machine = inst.place_machine
        self.time = inst.place_time
        keys = inst.place_task * inst.n_machines + inst.place_machine
        self.key_order = np.argsort(keys, kind="stable")
        self.sorted_keys = keys[self.key_order]
        self.frac = np.zeros(inst.n_tasks)
        self.frac_round_off = np.zeros(inst.n_tasks)
        self.last_machine = np.full(inst.n_tasks, -1)
        self.last_start = np.full(inst.n_tasks, -np.inf)
        self.pending = np.ones(inst.n_tasks, dtype=bool)
        self.tasks_left = np.diff(inst.job_offset)
        self.by_release = np.argsort(inst.release, kind="stable")
        data = np.r_[inst.release, inst.reserve_until, inst.explicit_time,
                     inst.elsewhere_time[np.isfinite(inst.elsewhere_time)]]
        self.grid = data_grid(data)
        if epoch is not None:
            # Re-planning times are then multiples of the epoch as well as data times: 1.5 - 1.4
            # on the data's grid of halves is 0.10000000000000009, on tenths 0.1. An epoch off
            # every grid leaves the data's grid (its boundaries then shift as plain floats).
            self.grid = data_grid(np.r_[data, epoch]) or self.grid
        self.arrived = 0
        self.open: set[int] = set()
        self.asked = -np.inf

    def add(self, part: Schedule) -> None:
        inst = self.inst
        g = inst.job_offset[part.job] + part.task
        ptime = self.time[self.key_order[np.searchsorted(self.sorted_keys, g * inst.n_machines + part.machine)]]
        # In commit order, one piece after the other: the same sums, to the last bit, as adding up
        # every committed piece at once.
        np.add.at(self.frac, g, (part.end - part.start) / ptime)
        # The fractions carry their time stamps' round-off (as in _malleable, and as the verifier
        # allows): a task of 0.005 run at t = 1e6 may look 2e-8 of itself short when it is done.
        np.add.at(self.frac_round_off, g, stamp_round_off(1.0 / ptime, part.start, part.end))
        # A cut task resumes on the machine of its latest-starting piece (ties: the later piece).
        o = np.argsort(part.start, kind="stable")
        tasks, first = np.unique(g[o][::-1], return_index=True)
        last = len(o) - 1 - first
        start, machine = part.start[o][last], part.machine[o][last]
        later = start >= self.last_start[tasks]
        self.last_start[tasks[later]] = start[later]
        self.last_machine[tasks[later]] = machine[later]
        finished = tasks[self.pending[tasks] & ~(self.frac[tasks] < 1.0 - DONE_TOL - self.frac_round_off[tasks])]
        self.pending[finished] = False
        jobs = inst.task_job[finished]
        np.subtract.at(self.tasks_left, jobs, 1)
        self.open.difference_update(jobs[self.tasks_left[jobs] == 0].tolist())

    def at(self, now: float, running: dict[str, np.ndarray], keep_machine: bool) -> Remaining | None:
        if now < self.asked:
            raise ValueError(f"remaining work: now {now!r} is before the time asked before ({self.asked!r})")
        self.asked = now
        inst = self.inst
        release = inst.release
        while self.arrived < len(release) and _arrived(release[self.by_release[self.arrived]], now):
            j = int(self.by_release[self.arrived])
            if self.tasks_left[j]:
                self.open.add(j)
            self.arrived += 1
        if not self.open:
            return None
        return self.build(now, running, keep_machine)

    def build(self, now: float, running: dict[str, np.ndarray], keep_machine: bool) -> Remaining:
        """The sub-instance of the open jobs at *now* from the current state, in whole-array steps
        and through the trusted :meth:`PackingInstance._from_validated`: its values all come from
        the validated instance (per-task validation was most of a re-plan's
        simulator time). Equal, field by field, to the public constructor's instance of the same
        jobs (tests/online/test_trusted_instance.py)."""
        inst = self.inst
        # Whatever still holds room after now, however briefly, is reserved: the sub-plan may start
        # at its time 0, and any overlap with dropped room would be a real overload.
        held = inst.reserve_until > now
        r_machine = np.r_[inst.reserve_machine[held], running["machine"]].astype(np.int64)
        r_demand = np.r_[inst.reserve_demand[held], running["rate"]].astype(float)
        r_until = shift_clock(np.r_[inst.reserve_until[held], running["end"]], now, self.grid)
        job_map = np.array(sorted(self.open), dtype=np.int64)
        # The tasks of the open jobs, job by job, then the pending ones.
        owner, tasks = ck.flat_ranges(inst.job_offset[job_map], inst.job_offset[job_map + 1] - 1)
        keep = self.pending[tasks]
        task_map, owner = tasks[keep], owner[keep]
        job_offset = ck.offsets(np.bincount(owner, minlength=len(job_map)))
        # Their placement pairs; a task cut with keep_machine keeps only the machine it ran on.
        which, pairs = ck.flat_ranges(self.offset[task_map], self.offset[task_map + 1] - 1)
        frac = self.frac[task_map]
        if keep_machine:
            cut = frac[which] > 0
            pairs_keep = ~cut | (self.machine[pairs] == self.last_machine[task_map][which])
            pairs, which = pairs[pairs_keep], which[pairs_keep]
        share = 1.0 - frac
        place_offset = ck.offsets(np.bincount(which, minlength=len(task_map)))
        with ck.derived_instances():  # a preempted task's rest may be any fraction of it
            sub = PackingInstance._from_validated(
                inst.capacities, weights=inst.weights[job_map],
                release=np.maximum(0.0, shift_clock(inst.release[job_map], now, self.grid)) + 0.0,
                job_offset=job_offset, demand=inst.demand[task_map], place_offset=place_offset,
                place_machine=self.machine[pairs], place_time=self.time[pairs] * share[which],
                reserve_machine=r_machine, reserve_demand=r_demand, reserve_until=r_until,
                name=f"{inst.name} @ {now:g}")
        return Remaining(sub, now, job_map, task_map, now, self.grid)


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
