"""Fair, the second baseline of paper 000 (FlowFlex, Nagarajan et al. 2019, §1.3 and §4):
"the idea in Fair was essentially to allocate the cluster resources as equally as possible among
all the current jobs" — for flows, processors divided equally among the flows present.

Event-driven: at time 0, at every flow release and at every job completion, the flows that are
released and unfinished and have a ready job (every predecessor complete) share the P processors
by an integer max-min fair split (water-filling): each flow can use at most the sum of the
maxima δ_i of its ready jobs, a flow that needs less than an equal share keeps only what it needs
and the rest is split again among the others (work-conserving: processors stay idle only when
every ready job is at its maximum). A flow's share is split the same way among its ready jobs.
Allocations are whole processors and constant between events.

Choices the paper leaves open: the equal split is over *flows* (the paper's unit of cost), then
over each flow's ready jobs; when P does not divide evenly the spare processors go one each to
the flows that arrived first (ties by index), and likewise to a flow's jobs by index.

``fair-paper`` (:func:`fair_paper`) is the other reading, the one the paper's citation supports:
§1.3 describes Fair [44] (Zaharia et al., the Hadoop Fair Scheduler) as allocating "the cluster
resources as equally as possible among *all* the current jobs", and §4.1 adds that Fair and
FIFO "focused also on singleton MapReduce jobs rather than flows". The Hadoop scheduler sees the
jobs submitted to it — in §4.2 "the experiment driver program submitted a job only when it was
*ready*" — so each ready job, whatever its flow, gets an equal share: its minimum first (HFS's
minimum share; 0 in paper 000's instances), then a water-line up to its maximum δ_i.
"""

from __future__ import annotations

import numpy as np

from schedrelax.result import Result
from schedrelax.instances import MalleableInstance
from schedrelax.schedulers.malleable_packing import normalise_minima
from schedrelax.schedules import POOLED, Schedule

__all__ = ["fair_malleable", "fair_paper", "water_fill"]

_FINISHED = 1e-9
"""Remaining work below this fraction of a job's size counts as done (floating-point dust)."""


def water_fill(demand: np.ndarray, capacity: int, floor: np.ndarray | None = None) -> np.ndarray:
    """Integer max-min fair split of ``capacity`` among claimants with integer ``demand``s.

    Every claimant gets min(demand, level) for the highest whole level the capacity reaches; what
    is left (less than one per unsatisfied claimant) goes one each to the first unsatisfied
    claimants in the given order. The result adds up to min(capacity, Σ demand).

    ``floor`` (optional, each at most its demand, Σ floor <= capacity): every claimant first gets
    its floor (the Hadoop Fair Scheduler's minimum share), then the rest is filled as above, so
    each ends with max(floor, min(demand, level)).
    """
    demand = np.asarray(demand, dtype=np.int64)
    alloc = np.zeros(len(demand), dtype=np.int64)
    left = int(capacity)
    if floor is not None:
        floor = np.asarray(floor, dtype=np.int64)
        if floor.shape != demand.shape or (floor < 0).any() or (floor > demand).any() or floor.sum() > left:
            raise ValueError(f"water_fill: floor must be 0 <= floor <= demand with sum <= capacity {left}, "
                             f"got floor {floor.tolist()} for demand {demand.tolist()}")
        return _water_fill_with_floor(demand, left, floor)
    want = demand.copy()
    while left > 0:
        open_ = np.flatnonzero(want > 0)
        if not len(open_):
            break
        share = left // len(open_)
        if share == 0:
            lucky = open_[:left]
            alloc[lucky] += 1
            break
        give = np.minimum(want[open_], share)
        alloc[open_] += give
        want[open_] -= give
        left -= int(give.sum())
    return alloc


def _water_fill_with_floor(demand: np.ndarray, capacity: int, floor: np.ndarray) -> np.ndarray:
    """:func:`water_fill` above floors: raise the lowest claimants level by level."""
    alloc = floor.copy()
    left = capacity - int(floor.sum())
    while left > 0:
        open_ = np.flatnonzero(alloc < demand)
        if not len(open_):
            break
        low = int(alloc[open_].min())
        at_low = open_[alloc[open_] == low]
        above = alloc[open_][alloc[open_] > low]
        # The next level: where a claimant at the lowest level is satisfied or meets the next one up.
        top = min(int(demand[at_low].min()), int(above.min()) if len(above) else np.iinfo(np.int64).max)
        need = (top - low) * len(at_low)
        if need <= left:
            alloc[at_low] = top
            left -= need
            continue
        rise, extra = divmod(left, len(at_low))
        alloc[at_low] += rise
        alloc[at_low[:extra]] += 1
        break
    return alloc


def fair_malleable(instance: MalleableInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """Fair for malleable flows (paper 000 §1.3, §4): max-min fair whole-processor shares among the
    flows present, then among each flow's ready jobs, recomputed at every release and completion.

    Pieces are pooled (machine −1), task 0, rate = processors; consecutive intervals at the same
    rate form one piece. Fair proves no lower bound and carries no guarantee.
    """
    return _fair_events(instance, "fair", by_job=False)


def fair_paper(instance: MalleableInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """Fair as paper 000 cites it (§1.3: "allocate the cluster resources as equally as possible
    among *all* the current jobs", Fair [44] being the Hadoop Fair Scheduler): job-level shares.

    At time 0 and at every release and completion, the ready jobs (flow released, predecessors
    complete) each get their minimum (HFS's minimum share; normalised as paper 002 §3.1 does if
    the minima exceed P, and the schedule then does not promise ``respects_minima``), then the
    rest by a whole-processor water-line up to their maxima δ_i (:func:`water_fill` with a floor).
    Spare processors that do not divide evenly go one each to the jobs of the earliest-released
    flows (ties by flow index, then job index). Where every flow has one ready job this is
    ``fair``; a flow with k ready jobs gets k shares here and one share in ``fair``. On paper
    002's single-job flows it is the same allocation as ``fair-hfs`` (computed independently).
    """
    return _fair_events(instance, "fair-paper", by_job=True)


def _fair_events(instance: MalleableInstance, name: str, *, by_job: bool) -> Result:
    """The event loop of :func:`fair_malleable` (flow-level shares) and :func:`fair_paper`
    (job-level shares with minima)."""
    P = instance.processors
    n = instance.n_jobs
    size = np.asarray(instance.size, dtype=float)
    maxp = np.asarray(instance.max_procs, dtype=np.int64)
    minp = np.asarray(instance.min_procs, dtype=np.int64)
    normalised = False
    job_flow = np.asarray(instance.job_flow)
    preds = np.bincount(instance.edges[:, 1], minlength=n) if len(instance.edges) else np.zeros(n, dtype=np.int64)
    succ: list[list[int]] = [[] for _ in range(n)]
    for a, b in instance.edges.tolist():
        succ[a].append(b)
    release = np.asarray(instance.flow_release, dtype=float)
    # Flow priority for the spare processors: arrival order, ties by index.
    flow_rank = np.empty(instance.n_flows, dtype=np.int64)
    flow_rank[np.lexsort((np.arange(instance.n_flows), release))] = np.arange(instance.n_flows)
    releases = np.unique(release)

    rem = size.copy()
    waiting = preds.copy()
    done = np.zeros(n, dtype=bool)
    rate = np.zeros(n, dtype=np.int64)
    piece_start = np.zeros(n)
    out_job, out_start, out_end, out_rate = [], [], [], []
    t, finished, events = 0.0, 0, 0
    while finished < n:
        events += 1
        ready = np.flatnonzero(~done & (waiting == 0) & (release[job_flow] <= t))
        later = releases[releases > t]
        next_release = float(later[0]) if len(later) else np.inf
        new = np.zeros(n, dtype=np.int64)
        if len(ready) and by_job:
            # Jobs by (flow arrival rank, job index): the order that gets the spare processors.
            ready = ready[np.argsort(flow_rank[job_flow[ready]], kind="stable")]
            floor = minp[ready]
            if int(floor.sum()) > P:
                floor = normalise_minima(floor, P)
                normalised = True
            new[ready] = water_fill(maxp[ready], P, floor)
        elif len(ready):
            flows, first = np.unique(job_flow[ready], return_index=True)
            flows = flows[np.argsort(flow_rank[flows], kind="stable")]
            first_of = dict(zip(job_flow[ready][first].tolist(), first.tolist()))
            counts = np.bincount(job_flow[ready], minlength=instance.n_flows)
            demand = np.array([maxp[ready[first_of[f]:first_of[f] + counts[f]]].sum() for f in flows.tolist()])
            share = water_fill(demand, P)
            for f, s in zip(flows.tolist(), share.tolist()):
                jobs = ready[first_of[f]:first_of[f] + counts[f]]  # ready is sorted: a flow's jobs are contiguous
                new[jobs] = water_fill(maxp[jobs], s)
        changed = np.flatnonzero(new != rate)
        stop = changed[rate[changed] > 0]
        if len(stop):
            out_job.append(stop)
            out_start.append(piece_start[stop])
            out_end.append(np.full(len(stop), t))
            out_rate.append(rate[stop])
        piece_start[changed] = t
        rate = new
        running = np.flatnonzero(rate > 0)
        if not len(running):
            t = next_release  # finite: an unfinished job waits for its flow's release
            continue
        # The next event as a time, not t plus a step: a release is reached exactly (t + (r − t)
        # can fall an ulp short of r, and r then comes again an ulp later), and a job whose
        # finish lies within an ulp of t ends at t (t + its time left rounds to t) instead of
        # never moving the clock.
        finish_at = t + rem[running] / rate[running]
        t_next = min(float(finish_at.min()), next_release)
        step = t_next - t
        rem[running] -= rate[running] * step
        ends = running[(rem[running] <= _FINISHED * size[running]) | (finish_at <= t_next)]
        t = t_next
        rem[ends] = 0.0
        done[ends] = True
        finished += len(ends)
        for j in ends.tolist():
            for s in succ[j]:
                waiting[s] -= 1
    # Close the pieces still open at the last completion.
    last = np.flatnonzero(rate > 0)
    if len(last):
        out_job.append(last)
        out_start.append(piece_start[last])
        out_end.append(np.full(len(last), t))
        out_rate.append(rate[last])
    job, start, end, rate = (np.concatenate(out_job), np.concatenate(out_start), np.concatenate(out_end),
                             np.concatenate(out_rate))
    # A share changed and changed back at one instant (events within an ulp of each other): a
    # piece of no length, which does no work.
    lasting = end > start
    job, start, end, rate = job[lasting], start[lasting], end[lasting], rate[lasting]
    schedule = Schedule(job, np.zeros(len(job), dtype=np.int64), np.full(len(job), POOLED), start, end, rate,
                        promises=frozenset({"respects_minima"}) if by_job and not normalised else frozenset(),
                        meta={"algorithm": name})
    info = {"events": events, **({"minima_normalised": normalised} if by_job else {})}
    return Result(algorithm=name, schedule=schedule, info=info)
