"""Fair, the second baseline of paper 000 (``papers/000_5822dddcf782b397.txt``, §1.3 and §4):
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
"""

from __future__ import annotations

import numpy as np

from schedrelax.algorithms import Result, register
from schedrelax.instances import MalleableInstance
from schedrelax.schedules import POOLED, Schedule

__all__ = ["fair_malleable", "water_fill"]

_FINISHED = 1e-9
"""Remaining work below this fraction of a job's size counts as done (floating-point dust)."""


def water_fill(demand: np.ndarray, capacity: int) -> np.ndarray:
    """Integer max-min fair split of ``capacity`` among claimants with integer ``demand``s.

    Every claimant gets min(demand, level) for the highest whole level the capacity reaches; what
    is left (less than one per unsatisfied claimant) goes one each to the first unsatisfied
    claimants in the given order. The result adds up to min(capacity, Σ demand).
    """
    demand = np.asarray(demand, dtype=np.int64)
    alloc = np.zeros(len(demand), dtype=np.int64)
    left = int(capacity)
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


@register("fair", "malleable", "processors split equally among the flows present, then among their ready jobs",
          paper="000 §1.3, §4")
def fair_malleable(instance: MalleableInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """Fair for malleable flows (paper 000 §1.3, §4): max-min fair whole-processor shares among the
    flows present, then among each flow's ready jobs, recomputed at every release and completion.

    Pieces are pooled (machine −1), task 0, rate = processors; consecutive intervals at the same
    rate form one piece. Fair proves no lower bound and carries no guarantee.
    """
    P = instance.processors
    n = instance.n_jobs
    size = np.asarray(instance.size, dtype=float)
    maxp = np.asarray(instance.max_procs, dtype=np.int64)
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
        if len(ready):
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
        finish_in = rem[running] / rate[running]
        step = min(float(finish_in.min()), next_release - t)
        rem[running] -= rate[running] * step
        ends = running[(rem[running] <= _FINISHED * size[running]) | (finish_in <= step)]
        t += step
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
    job = np.concatenate(out_job)
    schedule = Schedule(job, np.zeros(len(job), dtype=np.int64), np.full(len(job), POOLED),
                        np.concatenate(out_start), np.concatenate(out_end), np.concatenate(out_rate),
                        meta={"algorithm": "fair"})
    return Result(algorithm="fair", schedule=schedule, info={"events": events})
