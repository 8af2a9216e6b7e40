"""The Malleable Packing Scheme and FAIR's water-line (paper 002, FLEX, Wolf et al. 2010).

* :func:`malleable_packing` is Fig. 3 (§3.1): every active job gets its minimum, the slack goes to
  the jobs in priority order up to their maxima, and the allocation holds until the next job
  completes. Its output is the interval list ``(s_{i,1..J}, T_{i-1}, T_i)`` of §2.2, an
  :class:`IntervalPlan`, which :meth:`IntervalPlan.schedule` turns into a :class:`Schedule`.
* :func:`water_line_slots` is FAIR, the allocation layer of the Hadoop Fair Scheduler (§1): minima
  first, then the slack shared by a water-line. :func:`fair_hfs` runs it event by event.
* :func:`normalise_minima` scales minima down when they exceed the slots (§3.1, "the minima are
  simply normalized if necessary").
* :func:`epoch_simulation` is the epoch-based scheduler of §2.2: jobs arrive over time, at every
  epoch ``eT`` an allocator re-plans from the remaining work and its plan is enforced until
  ``(e+1)T``. Any allocator fits (:func:`mps_allocator`, :func:`fair_allocator`, FLEX's in
  :mod:`schedrelax.rounding.flex`).
* :func:`whole_processor_pieces` turns per-interval work whose average rates are fractional into
  pieces on whole processors; with :func:`fit_interval_rates` (rates inside the bounds that do
  every job's work) and :func:`cut_at_work` (a job stops once its work is done) it reads an exact
  MIP's solution back as a schedule.

Paper 002's jobs are the single-job flows of a :class:`MalleableInstance`. The code also accepts
flows of several jobs, releases and DAG precedence, which the paper does not have: a priority
order is then an order of the flows, each flow's jobs following one another in a topological
order, and only *ready* jobs (released, every predecessor complete) are active. With one job per
flow released at time 0 this is exactly Fig. 3.

Choices where the paper is silent:

* Jobs completing at the same time (within a relative ``1e-9`` of their work) leave together; the
  paper's zero-length intervals for ties are dropped, so a plan has at most J intervals (plus one
  per release).
* Normalisation (:func:`normalise_minima`) is proportional with the largest-remainder rule, ties
  by job index (not by priority, so that the normalised minima never depend on the ordering); it
  is applied per interval to the minima of the active jobs. A schedule made with normalised
  minima does not promise ``respects_minima``.
* FAIR's water-line gives whole slots: the highest whole level the slack reaches, then one more
  slot to the first jobs in arrival order that can still take one.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from schedrelax.result import Result
from schedrelax.instances import MalleableInstance
from schedrelax.instances.costs import CostFunction
from schedrelax.schedules import POOLED, Schedule

__all__ = [
    "Allocator",
    "DONE_FRACTION",
    "CostVector",
    "EpochRun",
    "EpochView",
    "IntervalPlan",
    "arrival_order",
    "cut_at_work",
    "epoch_simulation",
    "fair_allocator",
    "fair_hfs",
    "fit_interval_rates",
    "job_priority",
    "malleable_packing",
    "mps_allocator",
    "mps_slots",
    "normalise_minima",
    "pack",
    "pack_completion",
    "pack_view",
    "topological_rank",
    "water_line_slots",
    "whole_processor_pieces",
]

DONE_FRACTION = 1e-9
"""Remaining work at most this fraction of a job's work counts as done (floating-point dust)."""

SlotRule = Callable[[np.ndarray, np.ndarray, int], np.ndarray]
"""``rule(minima, maxima, S) -> slots`` over the active jobs in priority order."""


# --------------------------------------------------------------------------------------------
# Allocation rules for one interval
# --------------------------------------------------------------------------------------------

def normalise_minima(minima: np.ndarray, slots: int) -> np.ndarray:
    """The minima scaled to fit ``slots`` (paper 002 §3.1: "normalized if necessary").

    Unchanged when they fit. Otherwise each minimum becomes ``floor(m_j S / Σm)`` and the slots
    still free go one each to the largest remainders, ties to the lower index: the result sums to
    exactly S and never exceeds the original minima.
    """
    minima = np.asarray(minima, dtype=np.int64)
    total = int(minima.sum())
    if total <= slots:
        return minima
    exact = minima * (slots / total)
    base = np.floor(exact).astype(np.int64)
    short = slots - int(base.sum())
    if short > 0:
        base[np.argsort(-(exact - base), kind="stable")[:short]] += 1
    return base


def mps_slots(minima: np.ndarray, maxima: np.ndarray, slots: int) -> np.ndarray:
    """One interval of the Malleable Packing Scheme (paper 002 Fig. 3, lines 4-11).

    ``minima`` and ``maxima`` of the active jobs in priority order; minima must fit the slots.
    Each job gets its minimum; the slack goes to the jobs in order, each up to its maximum.
    """
    room = maxima - minima
    slack = slots - int(minima.sum())
    before = np.cumsum(room) - room
    return minima + np.clip(slack - before, 0, room)


def water_line_slots(minima: np.ndarray, maxima: np.ndarray, slots: int) -> np.ndarray:
    """FAIR's allocation (paper 002 §1: minima, then the slack by a water-line), in whole slots.

    Every job gets ``clip(L, m_j, M_j)`` for the highest whole level L that fits the slots; the
    slots left over (fewer than the jobs that could rise to L + 1) go one each to the first such
    jobs in the given (arrival) order. Minima must fit the slots.
    """
    if int(maxima.sum()) <= slots:
        return maxima.copy()
    lo, hi = 0, int(maxima.max())  # f(lo) <= slots < f(hi), f(L) = Σ clip(L, m, M) non-decreasing
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if int(np.clip(mid, minima, maxima).sum()) <= slots:
            lo = mid
        else:
            hi = mid
    got = np.clip(lo, minima, maxima)
    left = slots - int(got.sum())
    can_rise = np.flatnonzero((minima <= lo) & (lo < maxima))
    got[can_rise[:left]] += 1
    return got


# --------------------------------------------------------------------------------------------
# The interval plan (§2.2) and the event-driven packing engine
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class IntervalPlan:
    """An allocation over consecutive intervals (paper 002 §2.2): ``(s_{i,1..J}, T_{i-1}, T_i)``.

    ``jobs`` are the global job indices of the columns; ``times`` is ``T_0 < T_1 < ... < T_I``;
    ``slots[i - 1, j]`` is s_{i,j}, the whole slots of ``jobs[j]`` over ``[T_{i-1}, T_i)``;
    ``completion[j]`` is when ``jobs[j]`` finishes; ``normalised`` says whether some interval ran
    on minima scaled down by :func:`normalise_minima`.
    """

    jobs: np.ndarray
    times: np.ndarray
    slots: np.ndarray
    completion: np.ndarray
    normalised: bool

    @property
    def intervals(self) -> list[tuple[np.ndarray, float, float]]:
        """The paper's list: ``(s_{i,·}, T_{i-1}, T_i)`` for i = 1..I."""
        return [(self.slots[i], float(self.times[i]), float(self.times[i + 1])) for i in range(len(self.slots))]

    def pieces(self, until: float = math.inf) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(job, start, end, rate)`` of the plan cut at time ``until``; equal rates in consecutive
        intervals form one piece."""
        times = np.minimum(self.times, until)
        n_int = int(np.count_nonzero(self.times[:-1] < until))  # intervals that start before until
        slots = self.slots[:n_int]
        n = len(self.jobs)
        if n_int == 0 or n == 0:
            empty = np.zeros(0)
            return empty.astype(np.int64), empty, empty, empty
        by_job = slots.T  # (n, I): each job's slots over time
        new = np.ones(by_job.shape, dtype=bool)
        new[:, 1:] = by_job[:, 1:] != by_job[:, :-1]
        starts = np.flatnonzero(new.ravel())
        ends = np.r_[starts[1:], by_job.size]
        rate = by_job.ravel()[starts]
        keep = rate > 0
        starts, ends, rate = starts[keep], ends[keep], rate[keep]
        col, i0 = np.divmod(starts, n_int)
        i1 = (ends - 1) % n_int + 1  # a run never crosses into the next job's row: new[:, 0] is True
        start, end = times[i0], times[i1]
        ok = end > start
        return self.jobs[col[ok]], start[ok], end[ok], rate[ok].astype(float)

    def schedule(self, *, promises: Sequence[str] = (), meta: dict | None = None) -> Schedule:
        """The plan as pooled pieces (task 0, machine -1, rate = slots)."""
        job, start, end, rate = self.pieces()
        return Schedule(job, np.zeros(len(job), dtype=np.int64), np.full(len(job), POOLED), start, end, rate,
                        promises=frozenset(promises), meta=dict(meta or {}))


def _run(processors: int, work: np.ndarray, max_procs: np.ndarray, min_procs: np.ndarray,
         priority: np.ndarray | None, rule: SlotRule, release: np.ndarray | None,
         edges: np.ndarray | None, start: float, record: bool):
    """The event loop shared by :func:`pack` and :func:`pack_completion` (see :func:`pack`)."""
    S = int(processors)
    work = np.asarray(work, dtype=float)
    n = len(work)
    order = np.arange(n) if priority is None else np.asarray(priority, dtype=np.int64)
    if sorted(order.tolist()) != list(range(n)):
        raise ValueError(f"priority must be a permutation of 0..{n - 1}, got {order.tolist()}")
    # Everything is kept in priority order: the active jobs are then a mask, already sorted.
    w = work[order].copy()
    tol = DONE_FRACTION * w
    M = np.asarray(max_procs, dtype=np.int64)[order]
    m = np.asarray(min_procs, dtype=np.int64)[order]
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    waiting = np.zeros(n, dtype=np.int64)
    succ: list[list[int]] = [[] for _ in range(n)]
    if edges is not None and len(edges):
        e = rank[np.asarray(edges, dtype=np.int64).reshape(-1, 2)]
        waiting = np.bincount(e[:, 1], minlength=n)
        for a, b in e.tolist():
            succ[a].append(b)
    if release is None:
        released = np.ones(n, dtype=bool)
        rel = np.full(n, start)
        pending = np.zeros(0)
    else:
        rel = np.asarray(release, dtype=float)[order]
        released = rel <= start
        pending = np.unique(rel[~released])
    ready = released & (waiting == 0)
    completion = np.full(n, np.nan)
    t, left, next_rel, normalised = float(start), n, 0, False
    times = [t]
    rec_row: list[np.ndarray] = []
    rec_job: list[np.ndarray] = []
    rec_slots: list[np.ndarray] = []
    # The active jobs (rank indices, ascending = priority order) and their data, kept compact:
    # filtered when jobs finish, merged when jobs become ready.
    act = np.flatnonzero(ready)
    wa, Ma, ma, tola = w[act], M[act], m[act], tol[act]
    while left:
        release_at = float(pending[next_rel]) if next_rel < len(pending) else math.inf
        done = None
        if not len(act):
            if release_at == math.inf:
                raise RuntimeError("malleable packing: unfinished jobs that can never become ready")
            t_new = release_at  # an unfinished job is waiting for its release
        else:
            mins = ma
            if int(mins.sum()) > S:
                # Normalise in job-index order, so that ties never depend on the priority order.
                by_index = np.argsort(order[act])
                mins = np.empty_like(ma)
                mins[by_index] = normalise_minima(ma[by_index], S)
                normalised = True
            s = rule(mins, Ma, S)
            fin = np.divide(wa, s, out=np.full(len(s), math.inf), where=s > 0)
            k = int(np.argmin(fin))
            if fin[k] == math.inf:
                raise RuntimeError("malleable packing: active jobs but no slots allocated (a rule bug)")
            t_fin = t + float(fin[k])
            t_new = min(t_fin, release_at)
            wa -= s * (t_new - t)
            if t_new == t_fin:
                wa[k] = 0.0  # the job that set the event ends exactly, whatever the rounding
            done = wa <= tola
            if record and t_new > t:
                run = s > 0
                rec_row.append(np.full(int(run.sum()), len(times) - 1))
                rec_job.append(act[run])
                rec_slots.append(s[run])
        if t_new > t:
            times.append(t_new)
        t = t_new
        fresh: list[int] = []
        if done is not None and done.any():
            finished = act[done]
            completion[finished] = t
            left -= len(finished)
            keep = ~done
            act, wa, Ma, ma, tola = act[keep], wa[keep], Ma[keep], ma[keep], tola[keep]
            for j in finished.tolist():
                for b in succ[j]:
                    waiting[b] -= 1
                    if waiting[b] == 0 and released[b]:
                        fresh.append(b)
        while next_rel < len(pending) and pending[next_rel] <= t:
            now_in = ~released & (rel <= t)
            released |= now_in
            fresh.extend(np.flatnonzero(now_in & (waiting == 0)).tolist())
            next_rel += 1
        if fresh:
            new = np.sort(np.asarray(fresh, dtype=np.int64))
            at = np.searchsorted(act, new)
            act = np.insert(act, at, new)
            wa, Ma = np.insert(wa, at, w[new]), np.insert(Ma, at, M[new])
            ma, tola = np.insert(ma, at, m[new]), np.insert(tola, at, tol[new])
    comp = np.empty(n)
    comp[order] = completion
    if not record:
        return comp, normalised
    slots = np.zeros((len(times) - 1, n), dtype=np.int64)
    if rec_row:
        slots[np.concatenate(rec_row), order[np.concatenate(rec_job)]] = np.concatenate(rec_slots)
    return np.asarray(times), slots, comp, normalised


def pack(processors: int, work: Sequence[float], max_procs: Sequence[int], min_procs: Sequence[int],
         priority: Sequence[int] | None = None, *, rule: SlotRule = mps_slots,
         release: Sequence[float] | None = None, edges: np.ndarray | None = None, start: float = 0.0,
         ids: Sequence[int] | None = None) -> IntervalPlan:
    """Allocate slots interval by interval until every job is done (paper 002 Fig. 3's loop).

    Jobs are 0..n-1 with remaining ``work``, whole-slot bounds and optional ``release`` times and
    precedence ``edges`` (pairs ``(a, b)``: b is ready once a completes). From ``start``, at every
    completion and release, the *active* jobs (released, every predecessor done, unfinished) in
    ``priority`` order (highest first; default index order) get ``rule(minima, maxima, S)``
    slots, their minima first normalised if they exceed the slots. ``rule`` is :func:`mps_slots`
    (MPS) or :func:`water_line_slots` (FAIR). ``ids`` name the jobs in the plan (default 0..n-1).
    """
    n = len(work)
    times, slots, comp, normalised = _run(processors, np.asarray(work, dtype=float), np.asarray(max_procs),
                                          np.asarray(min_procs), None if priority is None else np.asarray(priority),
                                          rule, None if release is None else np.asarray(release, dtype=float),
                                          edges, float(start), True)
    jobs = np.arange(n) if ids is None else np.asarray(ids, dtype=np.int64)
    return IntervalPlan(jobs, times, slots, comp, normalised)


def pack_completion(processors: int, work: np.ndarray, max_procs: np.ndarray, min_procs: np.ndarray,
                    priority: np.ndarray | None = None, *, rule: SlotRule = mps_slots,
                    release: np.ndarray | None = None, edges: np.ndarray | None = None,
                    start: float = 0.0) -> tuple[np.ndarray, bool]:
    """Completion times (and the normalised flag) of :func:`pack`, without recording the plan:
    what an ordering search needs to score an order."""
    return _run(processors, work, max_procs, min_procs, priority, rule, release, edges, float(start), False)


# --------------------------------------------------------------------------------------------
# Flows: priorities, costs, the MPS and FAIR schedules of an instance
# --------------------------------------------------------------------------------------------

def arrival_order(instance: MalleableInstance) -> np.ndarray:
    """The flows by release time, ties by index (FIFO's and FAIR's order, paper 002 §4)."""
    return np.lexsort((np.arange(instance.n_flows), instance.flow_release))


def topological_rank(instance: MalleableInstance) -> np.ndarray:
    """Each job's position in a topological order of its flow (Kahn, smallest index first)."""
    n = instance.n_jobs
    pos = np.zeros(n, dtype=np.int64)
    if not len(instance.edges):
        return np.arange(n) - instance.flow_offset[instance.job_flow]
    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = np.bincount(instance.edges[:, 1], minlength=n)
    for a, b in instance.edges.tolist():
        succ[a].append(b)
    off = instance.flow_offset
    for f in range(instance.n_flows):
        heap = [j for j in range(off[f], off[f + 1]) if indeg[j] == 0]
        heapq.heapify(heap)
        k = 0
        while heap:
            j = heapq.heappop(heap)
            pos[j] = k
            k += 1
            for b in succ[j]:
                indeg[b] -= 1
                if indeg[b] == 0:
                    heapq.heappush(heap, b)
    return pos


def job_priority(instance: MalleableInstance, order: Sequence[int] | None = None) -> np.ndarray:
    """Global job indices, highest priority first, for a priority ``order`` of the flows (default
    index order): each flow's jobs together, in a topological order of its DAG."""
    F = instance.n_flows
    order = np.arange(F) if order is None else np.asarray(order, dtype=np.int64)
    if sorted(order.tolist()) != list(range(F)):
        raise ValueError(f"order must be a permutation of the flows 0..{F - 1}, got {order.tolist()}")
    if instance.n_jobs == F:
        return order
    flow_rank = np.empty(F, dtype=np.int64)
    flow_rank[order] = np.arange(F)
    return np.lexsort((np.arange(instance.n_jobs), topological_rank(instance), flow_rank[instance.job_flow]))


def malleable_packing(instance: MalleableInstance, order: Sequence[int] | None = None, *,
                      minima: bool = True, rule: SlotRule = mps_slots) -> IntervalPlan:
    """The Malleable Packing Scheme of paper 002 §3.1 (Fig. 3) for a priority ``order`` of the flows.

    Returns the interval list of §2.2. ``minima=False`` runs it with minima 0, which in arrival
    order is paper 002 §4's FIFO. Releases and DAGs are handled as the module docstring says.
    """
    mins = instance.min_procs if minima else np.zeros(instance.n_jobs, dtype=np.int64)
    release = instance.job_release if instance.flow_release.any() else None
    return pack(instance.processors, instance.size, instance.max_procs, mins, job_priority(instance, order),
                rule=rule, release=release, edges=instance.edges)


class CostVector:
    """The flows' penalty functions (paper 002 §2.1) evaluated together: ``cost_f(t_f)`` for arrays.

    Kinds whose parameters are all numbers are evaluated by one call of their own formula on
    arrays of the parameters (the formulas broadcast), so scoring an order of a thousand jobs
    costs a few numpy operations instead of a thousand calls; SLA costs, whose parameters are
    lists, are called one by one.
    """

    def __init__(self, costs: Sequence[CostFunction]):
        self.costs = tuple(costs)
        n = len(self.costs)
        self._groups: list[tuple[type, np.ndarray, SimpleNamespace | None]] = []
        self._group_of = np.zeros(n, dtype=np.int64)
        self._slot = np.zeros(n, dtype=np.int64)
        by_kind: dict[type, list[int]] = {}
        for f, c in enumerate(self.costs):
            by_kind.setdefault(type(c), []).append(f)
        for g, (cls, members) in enumerate(by_kind.items()):
            idx = np.asarray(members, dtype=np.int64)
            self._group_of[idx] = g
            self._slot[idx] = np.arange(len(idx))
            fields = [fl.name for fl in dataclasses.fields(cls)]
            scalar = all(isinstance(getattr(self.costs[members[0]], name), float) for name in fields)
            params = SimpleNamespace(**{name: np.array([getattr(self.costs[f], name) for f in members])
                                        for name in fields}) if scalar else None
            self._groups.append((cls, idx, params))

    def __len__(self) -> int:
        return len(self.costs)

    def __call__(self, t: np.ndarray, which: np.ndarray | None = None) -> np.ndarray:
        """``cost_{which[k]}(t[k])`` for every k (``which`` defaults to all flows in order)."""
        t = np.asarray(t, dtype=float)
        if which is None and t.shape == (len(self.costs),):
            out = np.empty(len(self.costs))
            for cls, idx, params in self._groups:
                if params is None:
                    out[idx] = [self.costs[f](x) for f, x in zip(idx.tolist(), t[idx].tolist())]
                else:
                    out[idx] = cls._evaluate(params, t[idx])
            return out
        which = np.arange(len(self.costs)) if which is None else np.asarray(which, dtype=np.int64)
        out = np.empty(np.broadcast_shapes(t.shape, which.shape))
        t = np.broadcast_to(t, out.shape)
        which = np.broadcast_to(which, out.shape)
        group = self._group_of[which]
        for g, (cls, _, params) in enumerate(self._groups):
            sel = group == g
            if not sel.any():
                continue
            if params is None:
                out[sel] = [self.costs[f](x) for f, x in zip(which[sel].tolist(), t[sel].tolist())]
            else:
                slot = self._slot[which[sel]]
                args = SimpleNamespace(**{k: v[slot] for k, v in vars(params).items()})
                out[sel] = cls._evaluate(args, t[sel])
        return out


# --------------------------------------------------------------------------------------------
# FAIR
# --------------------------------------------------------------------------------------------

def fair_hfs(instance: MalleableInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """FAIR, the allocation layer of the Hadoop Fair Scheduler (paper 002 §1 and §4).

    At time 0 and at every completion and release, every active job gets its minimum (normalised
    if the minima exceed the slots, §3.1) and the slack is shared by :func:`water_line_slots`, the
    leftover whole slots going to the earliest arrivals. Jobs have equal weight: FAIR knows no
    metric. The schedule promises ``respects_minima`` unless some interval had to normalise.
    """
    mins = instance.min_procs
    release = instance.job_release if instance.flow_release.any() else None
    plan = pack(instance.processors, instance.size, instance.max_procs, mins,
                job_priority(instance, arrival_order(instance)), rule=water_line_slots, release=release,
                edges=instance.edges)
    promises = () if plan.normalised else ("respects_minima",)
    schedule = plan.schedule(promises=promises, meta={"algorithm": "fair-hfs"})
    return Result(algorithm="fair-hfs", schedule=schedule,
                  info={"intervals": len(plan.slots), "minima_normalised": plan.normalised})


# --------------------------------------------------------------------------------------------
# The epoch simulator (§2.2)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class EpochView:
    """What an allocator is handed at the start of an epoch (paper 002 §2.2): the time ``now``,
    the released unfinished jobs (global indices, ascending) and their remaining work."""

    instance: MalleableInstance
    now: float
    jobs: np.ndarray
    remaining: np.ndarray

    @property
    def flows(self) -> np.ndarray:
        """The flows these jobs belong to, ascending, each once."""
        return np.unique(self.instance.job_flow[self.jobs])


Allocator = Callable[[EpochView], IntervalPlan]
"""An allocation scheme: the view at ``now`` -> a plan starting at ``now`` (its jobs are the view's)."""


def pack_view(view: EpochView, order: Sequence[int] | None = None, *, minima: bool = True,
              rule: SlotRule = mps_slots) -> IntervalPlan:
    """:func:`pack` on an epoch view: its jobs, remaining work and the DAG edges among them, with
    the flows in priority ``order`` (the view's flows, default ascending)."""
    inst = view.instance
    jobs = view.jobs
    flows = view.flows if order is None else np.asarray(order, dtype=np.int64)
    rank_of_flow = np.full(inst.n_flows, len(flows))
    rank_of_flow[flows] = np.arange(len(flows))
    topo = topological_rank(inst)[jobs] if inst.n_jobs != inst.n_flows else np.zeros(len(jobs), dtype=np.int64)
    priority = np.lexsort((jobs, topo, rank_of_flow[inst.job_flow[jobs]]))
    edges = None
    if len(inst.edges):
        local = np.full(inst.n_jobs, -1)
        local[jobs] = np.arange(len(jobs))
        e = local[inst.edges]
        edges = e[(e >= 0).all(axis=1)]
    mins = inst.min_procs[jobs] if minima else np.zeros(len(jobs), dtype=np.int64)
    return pack(inst.processors, view.remaining, inst.max_procs[jobs], mins, priority, rule=rule, edges=edges,
                start=view.now, ids=jobs)


def mps_allocator(order: Callable[[EpochView], Sequence[int]] | None = None, *, minima: bool = True) -> Allocator:
    """An allocator that runs MPS on the view, the flows in ``order(view)`` (default: arrival
    order, which with ``minima=False`` is paper 002's FIFO)."""
    def allocate(view: EpochView) -> IntervalPlan:
        flows = view.flows
        chosen = order(view) if order is not None else flows[np.lexsort((flows, view.instance.flow_release[flows]))]
        return pack_view(view, chosen, minima=minima)
    return allocate


def fair_allocator(view: EpochView) -> IntervalPlan:
    """FAIR as an epoch allocator: water-line allocations, ties to earlier arrivals."""
    flows = view.flows
    return pack_view(view, flows[np.lexsort((flows, view.instance.flow_release[flows]))], rule=water_line_slots)


@dataclass(frozen=True, eq=False)
class EpochRun:
    """The outcome of :func:`epoch_simulation`: the enforced schedule, the number of plans made,
    whether any plan normalised minima, and the seconds spent in the allocator."""

    schedule: Schedule
    epochs: int
    normalised: bool
    allocator_seconds: float


def _merge_pieces(job, start, end, rate) -> tuple[np.ndarray, ...]:
    """Join pieces of one job that meet end-to-start at the same rate."""
    if not len(job):
        return job, start, end, rate
    order = np.lexsort((start, job))
    job, start, end, rate = job[order], start[order], end[order], rate[order]
    cont = np.r_[False, (job[1:] == job[:-1]) & (start[1:] == end[:-1]) & (rate[1:] == rate[:-1])]
    head = np.flatnonzero(~cont)
    last = np.r_[head[1:], len(job)] - 1
    return job[head], start[head], end[last], rate[head]


def epoch_simulation(instance: MalleableInstance, allocator: Allocator, epoch: float, *,
                     respects_minima: bool = False) -> EpochRun:
    """The epoch-based scheduler of paper 002 §2.2.

    Time is cut into epochs ``[eT, (e+1)T)``. At each epoch start the allocator is handed the
    flows released by then (their unfinished jobs and remaining work) and returns a plan; the plan
    is enforced until the next epoch start and the rest of it is discarded. A flow released during
    an epoch waits for the next epoch start (the allocation layer only re-plans at epochs); when
    nothing is left to run, the clock jumps to the first epoch start at or after the next release.
    ``respects_minima``: the allocator gives active jobs their minima; the schedule then makes the
    promise unless some plan normalised them.
    """
    if not (epoch > 0 and math.isfinite(epoch)):
        raise ValueError(f"epoch length must be a positive number, got {epoch!r}")
    n = instance.n_jobs
    rem = np.asarray(instance.size, dtype=float).copy()
    done = np.zeros(n, dtype=bool)
    released_at = instance.job_release
    parts: list[tuple[np.ndarray, ...]] = []
    e, epochs, normalised, spent = 0, 0, False, 0.0
    while not done.all():
        t = e * epoch  # not a running sum, which would drift from the epoch starts
        # A flow is visible from the first epoch start at or after its release.
        visible = ~done & (released_at <= t)
        if not visible.any():
            e = max(e + 1, math.ceil(float(released_at[~done].min()) / epoch))
            continue
        jobs = np.flatnonzero(visible)
        t0 = time.perf_counter()
        plan = allocator(EpochView(instance, t, jobs, rem[jobs].copy()))
        spent += time.perf_counter() - t0
        epochs += 1
        normalised |= plan.normalised
        until = (e + 1) * epoch
        job, start, end, rate = plan.pieces(until)
        parts.append((job, start, end, rate))
        # A completion a rounding error after the epoch's end is in it (what is cut off is dust).
        finished = plan.jobs[plan.completion <= until + DONE_FRACTION * max(1.0, until)]
        rem -= np.bincount(job, weights=rate * (end - start), minlength=n)
        rem[finished] = 0.0
        done[finished] = True
        e += 1
    job, start, end, rate = (np.concatenate(c) for c in zip(*parts))
    job, start, end, rate = _merge_pieces(job, start, end, rate)
    promises = ("respects_minima",) if respects_minima and not normalised else ()
    schedule = Schedule(job, np.zeros(len(job), dtype=np.int64), np.full(len(job), POOLED), start, end, rate,
                        promises=frozenset(promises), meta={"epoch": epoch})
    return EpochRun(schedule, epochs, normalised, spent)


# --------------------------------------------------------------------------------------------
# Fractional average rates -> whole processors
# --------------------------------------------------------------------------------------------

def whole_processor_pieces(times: np.ndarray, work: np.ndarray, processors: int, maxima: np.ndarray,
                           minima: np.ndarray | None = None, jobs: np.ndarray | None = None,
                           snap: float = 1e-12) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pieces on whole processors doing ``work[k, j]`` in interval ``[times[k], times[k+1])``.

    The average rate y = work / length may be fractional. When ``minima[k, j] <= y_j <= maxima[j]``
    (whole bounds) and ``Σ y <= P``, every job runs on ``floor(y_j)`` processors plus one more
    during a fraction ``y_j - floor(y_j)`` of the interval, the extra processors placed by
    McNaughton's wrap-around rule so that at most ``ceil(Σ fractions)`` run at once: the bounds and
    P hold at every instant. The work is expected to meet the bounds already (an exact MIP's
    through :func:`fit_interval_rates`): the clip into them (and the trim of a total above P from
    the jobs above their minima) only removes floating-point round-off, and so does taking a
    rate within ``snap`` (relative) of a whole number >= 1 as that number. ``snap`` is kept at
    round-off size: taking 1 − 1e-9 as 1 beside a rate 1e-9 puts 2 jobs on one processor. A
    positive rate is never taken as 0, however small: that would drop the job's work. Returns
    ``(job, start, end, rate)``.
    """
    times = np.asarray(times, dtype=float)
    work = np.asarray(work, dtype=float)
    n = work.shape[1]
    jobs = np.arange(n) if jobs is None else np.asarray(jobs, dtype=np.int64)
    upper = np.asarray(maxima, dtype=float)
    lower_all = np.zeros(work.shape) if minima is None else np.asarray(minima, dtype=float)
    out_job, out_start, out_end, out_rate = [], [], [], []
    for k in range(len(times) - 1):
        a, b = float(times[k]), float(times[k + 1])
        if b <= a:
            continue
        lower = lower_all[k]
        y = np.clip(work[k] / (b - a), lower, upper)
        over = y.sum() - processors
        if over > 0:
            room = y - lower
            y -= over * room / room.sum()
        near = (np.abs(y - np.round(y)) <= snap * np.maximum(1.0, y)) & (np.round(y) >= 1)
        y = np.where(near, np.round(y), y)
        base = np.floor(y)
        frac = y - base
        pos = 0.0
        for j in np.flatnonzero(y > 0).tolist():
            plus: list[tuple[float, float]] = []
            if frac[j] > 0:
                lo = pos - math.floor(pos)
                hi = lo + frac[j]
                # A wrap by less than ``snap`` is round-off of a sum of fractions that is whole.
                plus.extend([(lo, min(hi, 1.0))] if hi <= 1.0 + snap else [(0.0, hi - 1.0), (lo, 1.0)])
                pos += frac[j]
            cuts = sorted({0.0, 1.0, *(x for seg in plus for x in seg)})
            for u, v in zip(cuts[:-1], cuts[1:]):
                r = base[j] + (1 if any(lo <= u and v <= hi for lo, hi in plus) else 0)
                s, e = a + u * (b - a), a + v * (b - a)
                if r > 0 and e > s:
                    out_job.append(jobs[j])
                    out_start.append(s)
                    out_end.append(e)
                    out_rate.append(r)
    return _merge_pieces(np.asarray(out_job, dtype=np.int64), np.asarray(out_start, dtype=float),
                         np.asarray(out_end, dtype=float), np.asarray(out_rate, dtype=float))


_WORK_ROUND_OFF = DONE_FRACTION
"""Missing work up to this fraction of a job's size is round-off: the job is done, as every
malleable packer here counts a job within :data:`DONE_FRACTION` of its work (the verifier forgives
1e-6). It was 1e-12, the round-off of the sums alone; an exact MIP's work meets its sizes only to
the solver's tolerance, and a job 2.5e-10 short of its size at an SLA deadline got a tail past
the deadline, a step more, and "feasible" where the same instance in other units was proven
optimal (the unit fuzz, malleable-costs)."""


def fit_interval_rates(times: np.ndarray, work: np.ndarray, ready: np.ndarray, size: np.ndarray, processors: int,
                       maxima: np.ndarray, minima: np.ndarray | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Average rates per interval that lie inside the bounds exactly and do at least every job's
    work: the read-back of an exact MIP's solution, whose values meet its constraints only to the
    solver's tolerances.

    Interval k is ``[times[k], times[k+1])``; ``work[k, j]`` is what the solution gives job j in
    it, and job j may run in it only where ``ready[k, j]``, then on at most ``maxima[j]`` and (when
    ``minima`` is given) at least ``minima[j]`` processors, all jobs on at most P. Steps:

    1. rates y = work / length, clipped into ``[minimum, maximum]`` of the ready jobs (0
       elsewhere and in zero-length intervals), a total above P trimmed from the jobs above their
       minima in proportion to that room — first from the jobs ready in a later interval (they
       take the work back there, and their completion does not move), then from the others:
       every interval's rates now meet every bound;
    2. a job left short of its size (clipped at its maximum, trimmed, or its work in a
       zero-length interval) is raised in its ready intervals, latest first, into the room under
       its maximum and P — no time added;
    3. what is still missing is done in a *tail*: the job's last ready interval is lengthened
       by a segment in which it runs on ``min(maximum, P − the other ready jobs' minima)``
       processors and the other ready jobs on their minima; every later time moves back by the
       tail's length (cost may rise: the caller re-evaluates).

    Step 1 can give a job *more* than its size (clipped up to its minimum); :func:`cut_at_work`
    then ends it once its work is done, which keeps every bound (a job with a minimum runs on at
    least it until it stops). Returns the segment boundaries (the given times, shifted by the
    tails before them), each segment's rates and lower bounds. Raises ValueError when the
    solution cannot be read back: a job ready nowhere, the minima of jobs ready together above
    P, or a job that can get no processor in any interval it is ready in.
    """
    times = np.asarray(times, dtype=float)
    work = np.asarray(work, dtype=float)
    ready = np.asarray(ready, dtype=bool)
    size = np.asarray(size, dtype=float)
    P = float(processors)
    K, n = work.shape
    length = np.diff(times)
    upper = np.where(ready, np.asarray(maxima, dtype=float)[None, :], 0.0)
    lower = np.zeros((K, n)) if minima is None else np.where(ready, np.asarray(minima, dtype=float)[None, :], 0.0)
    nowhere = np.flatnonzero(~ready.any(axis=0))
    if len(nowhere):
        raise ValueError(f"job {int(nowhere[0])} is ready in no interval of the solution")
    crowded = np.flatnonzero(lower.sum(axis=1) > P)
    if len(crowded):
        k = int(crowded[0])
        raise ValueError(f"interval {k + 1}: the minima of the jobs ready in it add up to "
                         f"{lower[k].sum():g}, more than the {processors} processors")

    timed = length > 0
    y = np.zeros((K, n))
    y[timed] = np.clip(work[timed] / length[timed, None], lower[timed], upper[timed])
    # Jobs ready in a later interval of positive length can take trimmed work back there (step 2)
    # without moving their completion; a job that ends here would end later, past a deadline it met.
    later = np.zeros((K, n), dtype=bool)
    for k in range(K - 2, -1, -1):
        later[k] = later[k + 1] | (ready[k + 1] & timed[k + 1])
    everyone = np.ones(n, dtype=bool)
    for k in np.flatnonzero(timed):
        for pool in (later[k], everyone):
            over = y[k].sum() - P
            room = np.where(pool, y[k] - lower[k], 0.0)
            total = room.sum()
            if over <= 0:
                break
            if total > 0:
                y[k] = np.maximum(lower[k], y[k] - min(over, total) * room / total)

    need = size - (y * length[:, None]).sum(axis=0)
    tails: list[tuple[int, float, np.ndarray]] = []
    for j in np.flatnonzero(need > _WORK_ROUND_OFF * size).tolist():
        for k in np.flatnonzero(ready[:, j] & timed)[::-1].tolist():
            add = min(upper[k, j] - y[k, j], P - y[k].sum(), need[j] / length[k])
            if add > 0:
                y[k, j] += add
                need[j] -= add * length[k]
            if need[j] <= _WORK_ROUND_OFF * size[j]:
                break
        if need[j] <= _WORK_ROUND_OFF * size[j]:
            continue
        for k in np.flatnonzero(ready[:, j])[::-1].tolist():
            z = lower[k].copy()
            z[j] = 0.0
            rate = min(float(maxima[j]), P - z.sum())
            if rate > 0:
                z[j] = rate
                tails.append((k, need[j] / rate, z))
                break
        else:
            raise ValueError(f"job {j}: the minima of the jobs ready with it leave it no processor in any "
                             f"interval it is ready in")

    bounds, rates, lows = [times[0]], [], []
    shift = 0.0
    for k in range(K):
        bounds.append(times[k + 1] + shift)
        rates.append(y[k])
        lows.append(lower[k])
        for kk, extra, z in tails:
            if kk == k:
                shift += extra
                bounds.append(times[k + 1] + shift)
                rates.append(z)
                lows.append(lower[k])
    return np.array(bounds), np.array(rates).reshape(-1, n), np.array(lows).reshape(-1, n)


def cut_at_work(job: np.ndarray, start: np.ndarray, end: np.ndarray, rate: np.ndarray,
                size: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The pieces with each job stopped as soon as it has done ``size[job]`` work: its pieces in
    time order up to that point, the last one ending where the work is complete (an excess
    within DONE_FRACTION (1e-9) of the size is round-off and left as it is). Pieces of one
    job must not overlap (as :func:`whole_processor_pieces` makes them). Stopping early only
    lowers the processors in use, so every bound the pieces met still holds."""
    job, start, end, rate = (np.asarray(job, dtype=np.int64), np.asarray(start, dtype=float),
                             np.asarray(end, dtype=float), np.asarray(rate, dtype=float))
    size = np.asarray(size, dtype=float)
    order = np.lexsort((start, job))
    job, start, end, rate = job[order], start[order], end[order].copy(), rate[order]
    work = rate * (end - start)
    keep = np.ones(len(job), dtype=bool)
    done = np.zeros(len(size))
    for i in range(len(job)):
        j = job[i]
        left = size[j] - done[j]
        if left <= 0:
            keep[i] = False
        elif work[i] - left > _WORK_ROUND_OFF * size[j]:
            # An excess within round-off keeps the end the times gave (it may be a deadline).
            end[i] = start[i] + left / rate[i]
            keep[i] = end[i] > start[i]
        done[j] += work[i]
    return job[keep], start[keep], end[keep], rate[keep]
