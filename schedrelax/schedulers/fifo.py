"""FIFO, the arrival-order baseline of every paper, one scheduler per instance family.

Each function is registered as ``"fifo"`` for its family, so ``algorithms.run("fifo", instance)``
works on any instance. FIFO proves no lower bound and carries no guarantee; the papers use it as
the default Hadoop scheduler to beat. Orders are by release (arrival) time, ties by index.
The mapreduce FIFO lives in :mod:`~schedrelax.schedulers.mapreduce_policies`, on the slotted engine
it shares with the other policies of paper 001.
"""

from __future__ import annotations

import heapq

import numpy as np

from schedrelax.result import Result
from schedrelax.instances import MalleableInstance, PackingInstance, RelatedInstance
from schedrelax.instances._checks import offsets
from schedrelax.schedulers.list_packing import MaxTree
from schedrelax.schedules import POOLED, Schedule, stamp_round_off, time_scale, time_slack

_FINISHED = 1e-9
"""Remaining work below this fraction of a job's size counts as done (floating-point dust)."""


def _successors(n: int, edges: np.ndarray) -> tuple[list[list[int]], np.ndarray]:
    """Successor lists and in-degrees of a DAG given as (E, 2) edges over 0..n-1."""
    succ: list[list[int]] = [[] for _ in range(n)]
    for a, b in np.asarray(edges, dtype=np.int64).reshape(-1, 2).tolist():
        succ[a].append(b)
    indeg = np.bincount(np.asarray(edges, dtype=np.int64).reshape(-1, 2)[:, 1], minlength=n)
    return succ, indeg


def _merge(ready: np.ndarray, new: np.ndarray) -> np.ndarray:
    """The sorted array *ready* with the values *new* inserted in place."""
    new = np.sort(new)
    return np.insert(ready, np.searchsorted(ready, new), new)


# --------------------------------------------------------------------------------------------
# malleable
# --------------------------------------------------------------------------------------------

def fifo_malleable(instance: MalleableInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """FIFO for malleable flows (paper 000 §1.3, §4: flows in arrival order; paper 002 §4: the
    Malleable Packing Scheme of §3.1 in arrival order, with minima 0 and maxima kept).

    An event-driven list scheduler. At time 0 and at every job completion or flow release the
    ready jobs (flow released, every predecessor in its DAG completed) are taken in the order
    (flow release, flow index, job index) and each in turn gets min(max_processors, processors
    left) whole processors; allocations are constant between events. Choices: a job whose
    predecessors complete mid-way joins the list at that event, in its priority place (so it may
    take processors from a later flow); minima are ignored, as in paper 002's baseline, so the
    schedule makes no ``respects_minima`` promise. Pieces are pooled (machine -1), task 0, rate =
    processors; consecutive intervals at the same rate form one piece.
    """
    P = instance.processors
    n = instance.n_jobs
    size = np.asarray(instance.size, dtype=float)
    maxp = np.asarray(instance.max_procs, dtype=np.int64)
    release = np.asarray(instance.job_release, dtype=float)
    # Global job indices already run flow by flow, job by job: the priority is (release, index).
    priority = np.lexsort((np.arange(n), release))
    rank = np.empty(n, dtype=np.int64)
    rank[priority] = np.arange(n)
    succ, waiting_preds = _successors(n, instance.edges)
    flow_order = np.argsort(instance.flow_release, kind="stable")
    flow_release = instance.flow_release[flow_order]
    offset = instance.flow_offset

    rem = size.copy()
    rate = np.zeros(n, dtype=np.int64)
    piece_start = np.zeros(n)
    ready = np.zeros(0, dtype=np.int64)  # ranks of the ready jobs, sorted
    running = np.zeros(0, dtype=np.int64)  # jobs with processors since the last event
    out_job, out_start, out_end, out_rate = [], [], [], []
    t, next_flow, done, events = 0.0, 0, 0, 0

    def close(jobs: np.ndarray, at: float, rates: np.ndarray) -> None:
        out_job.append(jobs)
        out_start.append(piece_start[jobs])
        out_end.append(np.full(len(jobs), at))
        out_rate.append(rates)

    while done < n:
        events += 1
        fresh = []
        while next_flow < len(flow_order) and flow_release[next_flow] <= t:
            f = flow_order[next_flow]
            jobs = np.arange(offset[f], offset[f + 1])
            fresh.append(jobs[waiting_preds[jobs] == 0])
            next_flow += 1
        if fresh:
            ready = _merge(ready, rank[np.concatenate(fresh)])
        next_release = flow_release[next_flow] if next_flow < len(flow_order) else np.inf
        if not len(ready):
            t = float(next_release)  # finite: an unfinished job waits for its flow's release
            continue

        jobs = priority[ready[:P]]  # every job gets at least one processor or none: P jobs at most
        cap = maxp[jobs]
        alloc = np.minimum(cap, np.maximum(P - (np.cumsum(cap) - cap), 0))
        k = int(np.count_nonzero(alloc))  # the allocated jobs are a prefix of the ready list
        run, give = jobs[:k], alloc[:k]

        # A piece ends where its job's rate changes; equal rates run on in the same piece.
        old_run, old_running = rate[run], rate[running]
        rate[running] = 0
        rate[run] = give
        stop = rate[running] != old_running
        if stop.any():
            close(running[stop], t, old_running[stop])
        piece_start[run[give != old_run]] = t
        running = run

        finish_in = rem[run] / give
        first = int(np.argmin(finish_in))
        t_next = min(t + float(finish_in[first]), float(next_release))
        rem[run] -= give * (t_next - t)
        if t_next == t + float(finish_in[first]):
            rem[run[first]] = 0.0  # the job that set the event ends exactly, whatever the rounding
        # Dust also includes what the clock cannot resolve: the rate times a few ulps of t (the
        # verifier's allowance too). Otherwise a job of 1.1e-9 left with 1e-18 of work gets a
        # next piece shorter than the clock's spacing: a zero-length piece.
        over = rem[run] <= _FINISHED * size[run] + stamp_round_off(give, t_next, t_next)
        t = t_next
        if over.any():
            finished = run[over]
            rem[finished] = 0.0
            close(finished, t, rate[finished])
            rate[finished] = 0
            running = run[~over]
            done += len(finished)
            ready = np.delete(ready, np.flatnonzero(over))  # run is the head of the ready list
            unlocked = []
            for j in finished.tolist():
                for s in succ[j]:
                    waiting_preds[s] -= 1
                    if waiting_preds[s] == 0:
                        unlocked.append(s)
            if unlocked:
                ready = _merge(ready, rank[unlocked])

    job = np.concatenate(out_job)
    schedule = Schedule(job, np.zeros(len(job), dtype=np.int64), np.full(len(job), POOLED),
                        np.concatenate(out_start), np.concatenate(out_end), np.concatenate(out_rate),
                        meta={"algorithm": "fifo"})
    return Result(algorithm="fifo", schedule=schedule, info={"events": events})


# --------------------------------------------------------------------------------------------
# packing
# --------------------------------------------------------------------------------------------

def fifo_packing(instance: PackingInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """FIFO for capacitated packing (paper 003 §2 is the model; the paper has no FIFO, so this is
    the natural one): non-preemptive greedy list scheduling in job release order (ties by job
    index), the tasks of a job in index order.

    Event-driven: at the first release, every later release and every task completion, the
    waiting tasks of the released jobs are scanned in that order and each is started *now* on the machine of its
    placement set that has enough free capacity and finishes it earliest (the shortest processing
    time; ties to the lowest machine index), if there is one. Backfilling: a task that does not
    fit anywhere keeps its place in the list but does not block later tasks, which may start
    before it. Tasks run to completion on one machine: the schedule promises ``non_preemptive``
    and ``no_migration``. A task's elsewhere machines (compressed placement) are searched in a
    segment tree of free capacity (:class:`~schedrelax.schedulers.list_packing.MaxTree`), so
    a choice among thousands of machines costs O(log M), with the written-out placement's order. Reserved room (instance reservations) is not free until it ends, and
    each end is a decision time.

    Cost: a decision time does not rescan every waiting task. A task that did
    not fit at the last scan can fit now only on a machine that got room back since (a completion
    or a reservation end); each machine's waiting tasks sit in a segment tree over list order
    (negated demands), so the scan visits, in list order, only the new tasks and those a machine
    with new room may take — the same decisions, float for float, as the full scan
    (tests/schedulers/test_fifo_reference.py against the former code). Tasks with an elsewhere
    rule are still visited at every decision time.
    """
    caps = np.asarray(instance.capacities, dtype=float)
    fit_tol = 1e-9 * np.maximum(1.0, caps)
    # A lower threshold than any machine's own: the tree finds candidates, each is then checked
    # with its machine's tolerance.
    loose = float(fit_tol.max()) * (1 + 1e-9)
    demand = instance.demand.tolist()
    n_tasks = instance.n_tasks
    # Each task's explicit machines, fastest first (ties by index): the first that fits is the
    # choice. Its elsewhere machines (compressed placement) all take ``elsewhere`` time; in the
    # written-out order they sit among the explicit ones of that time, by index. One sort of all
    # pairs by (task, time, machine) gives every task's order at once.
    elsewhere = instance.elsewhere_time.tolist()
    o = np.lexsort((instance.explicit_machine, instance.explicit_time, instance.explicit_task))
    pm, pt, pk = instance.explicit_machine[o], instance.explicit_time[o], instance.explicit_task[o]
    usable = caps[pm] >= instance.demand[pk] - fit_tol[pm]
    pm, pt, pk = pm[usable], pt[usable], pk[usable]
    bounds = offsets(np.bincount(pk, minlength=n_tasks)).tolist()
    cand = [pm[bounds[t]:bounds[t + 1]] for t in range(n_tasks)]
    cand_l = [c.tolist() for c in cand]
    ctime = [pt[bounds[t]:bounds[t + 1]] for t in range(n_tasks)]
    ctime_l = [c.tolist() for c in ctime]
    split = [(len(c), len(c)) if e == np.inf else
             (int(np.searchsorted(ct, e, side="left")), int(np.searchsorted(ct, e, side="right")))
             for c, ct, e in zip(cand_l, ctime, elsewhere)]
    release = instance.release
    job_order = np.lexsort((np.arange(instance.n_jobs), release)).tolist()
    job_offset = instance.job_offset.tolist()
    task_job = instance.task_job.tolist()
    # The waiting list in its fixed order: position p holds task order[p] (jobs by release, tasks
    # by index). Each machine keeps the tasks that name it (usable explicit machines) in list
    # order, with a segment tree of their negated demands (-inf once started or not yet
    # released): the first task of its list from a position on that might fit its free room is
    # found in O(log n).
    order = [g for j in job_order for g in range(job_offset[j], job_offset[j + 1])]
    pos = [0] * n_tasks
    for p, g in enumerate(order):
        pos[g] = p
    M = len(caps)
    on_machine: list[list[int]] = [[] for _ in range(M)]
    slots: list[list[tuple[int, int]]] = [[] for _ in range(n_tasks)]
    for p, g in enumerate(order):
        for m in cand_l[g]:
            slots[g].append((m, len(on_machine[m])))
            on_machine[m].append(p)
    named = [MaxTree(np.full(len(tasks), -np.inf)) if tasks else None for tasks in on_machine]
    tol = fit_tol.tolist()
    # A superset of "free[m] >= d - fit_tol[m]": what the tree lets through is then checked exactly.
    reach = (2 * fit_tol).tolist()

    busy = [0] * M
    running: list[tuple[float, int, int]] = []  # (end, machine, task), a heap
    n_waiting = 0
    # Positions always checked at a decision time: tasks with an elsewhere rule (their machines
    # are not in the per-machine lists), and tasks the ``most`` shortcut skipped although a
    # named machine had room within tolerance (so that they never depend on that machine's list).
    always: set[int] = set()
    rows: list[tuple[int, int, int, float, float, float]] = []
    released, now, events = 0, float(release[job_order[0]]), 0
    ends = instance.reservation_ends().tolist()
    # Reserved room per machine, summed as np.bincount sums it (in reservation order, from 0), and
    # re-summed only on the machines where a reservation ends.
    res_on: list[list[tuple[float, float]]] = [[] for _ in range(M)]
    for i, a, u in zip(instance.reserve_machine.tolist(), instance.reserve_demand.tolist(),
                       instance.reserve_until.tolist()):
        res_on[i].append((u, a))
    res_by_end = sorted(zip(instance.reserve_until.tolist(), instance.reserve_machine.tolist()))
    taken = instance.reserved_at(now).tolist()
    gone = next_end = 0
    while gone < len(res_by_end) and res_by_end[gone][0] <= now:
        gone += 1
    cap_l = caps.tolist()
    free = [c - h for c, h in zip(cap_l, taken)]
    room = MaxTree(np.array(free))

    def elsewhere_machine(g: int, d: float) -> int:
        """The lowest-index machine of task g's elsewhere rule with room for d now, or -1."""
        named = cand[g]
        i = room.first_at_least(d - loose)
        while i >= 0 and (free[i] < d - tol[i] or cap_l[i] < d or (named == i).any()):
            i = room.first_at_least(d - loose, i + 1)
        return i

    def query(m: int, k: int) -> int:
        """The first task of machine m's list from local index k on whose demand may fit, or -1."""
        return named[m].first_at_least(-(free[m] + reach[m]), k)

    def fits_somewhere(g: int, d: float) -> bool:
        return any(free[m] >= d - tol[m] for m in cand_l[g])

    dirty: set[int] = set()
    scale = time_scale(instance)
    while True:
        events += 1
        # Events within the schedulers' slack of each other are one decision time, at the latest of
        # them (nothing then starts before a completion or a release it waits for): a release at
        # 1.4 and a completion at 1 + 0.3 + 0.1 = 1.4000000000000001 are the same instant, as they
        # are in another unit (where the order of the two came out the other way and FIFO put a
        # task on another machine: the unit-invariance fuzz).
        within = now + time_slack(scale, now)
        while running and running[0][0] <= within:
            end, m, g = heapq.heappop(running)
            now = max(now, end)
            busy[m] -= 1
            free[m] = cap_l[m] - taken[m] if busy[m] == 0 else free[m] + demand[g]  # an idle machine sheds rounding
            room.set(m, free[m])
            dirty.add(m)
        if gone < len(res_by_end) and res_by_end[gone][0] <= within:
            ending = set()
            while gone < len(res_by_end) and res_by_end[gone][0] <= within:
                ending.add(res_by_end[gone][1])
                now = max(now, res_by_end[gone][0])
                gone += 1
            for m in sorted(ending):
                held = 0.0
                for u, a in res_on[m]:
                    if u > within:
                        held += a
                if held != taken[m]:
                    free[m] += taken[m] - held
                    taken[m] = held
                    room.set(m, free[m])  # the same tree as one rebuilt from free
                    dirty.add(m)
        # The scan of the original algorithm, over the waiting tasks in list order, only visits
        # tasks that can pass its test. A task that failed it at an earlier decision time found
        # no named machine with room; free room only shrinks during a scan and only a completion
        # or a reservation end (a *dirty* machine) gives some back, so it can pass now only
        # through a dirty machine's list, or if it is new, or in ``always``. Free room only
        # shrinks during this scan too, so a machine's next candidate, looked up after each
        # visit, is a superset of what will pass.
        heap: list[tuple[int, int, int]] = []
        while released < len(job_order) and release[job_order[released]] <= within:
            j = job_order[released]
            now = max(now, float(release[j]))  # before the scan below starts anything at now
            for g in range(job_offset[j], job_offset[j + 1]):
                for m, k in slots[g]:
                    named[m].set(k, -demand[g])
                if elsewhere[g] < np.inf:
                    always.add(pos[g])
                heap.append((pos[g], -1, -1))
                n_waiting += 1
            released += 1
        for m in dirty:
            if named[m] is not None:
                k = query(m, 0)
                if k >= 0:
                    heap.append((on_machine[m][k], m, k))
        dirty.clear()
        heap.extend((p, -1, -1) for p in always)
        heapq.heapify(heap)
        most = room.max()
        last = -1
        while heap:
            p, m, k = heapq.heappop(heap)
            if m >= 0:
                k = query(m, k + 1)
                if k >= 0:
                    heapq.heappush(heap, (on_machine[m][k], m, k))
            if p == last:
                continue
            last = p
            g = order[p]
            d = demand[g]
            if d > most + 1e-9 * max(1.0, most):
                if fits_somewhere(g, d):
                    always.add(p)
                continue
            if elsewhere[g] == np.inf:
                # The first machine of the list with room (the written-out rule of the general case).
                q = next((q for q, i in enumerate(cand_l[g]) if free[i] >= d - tol[i]), -1)
                if q < 0:
                    continue
                m, p_time = cand_l[g][q], ctime_l[g][q]
            else:
                ok = np.array([free[i] >= d - tol[i] for i in cand_l[g]], dtype=bool)
                lo, hi = split[g]
                q = int(np.argmax(ok[:lo])) if ok[:lo].any() else -1
                m = -1
                if q < 0:
                    m = elsewhere_machine(g, d)
                    tie = np.flatnonzero(ok[lo:hi])
                    if len(tie) and (m < 0 or cand[g][lo + tie[0]] < m):
                        q, m = lo + int(tie[0]), -1
                    elif m < 0 and ok[hi:].any():
                        q = hi + int(np.argmax(ok[hi:]))
                if q < 0 and m < 0:
                    continue
                m, p_time = (cand_l[g][q], ctime_l[g][q]) if m < 0 else (m, elsewhere[g])
            j = task_job[g]
            rows.append((j, g - job_offset[j], m, now, now + p_time, d))
            heapq.heappush(running, (now + p_time, m, g))
            free[m] -= d
            room.set(m, free[m])
            busy[m] += 1
            most = room.max()
            n_waiting -= 1
            always.discard(p)
            for i, k in slots[g]:
                named[i].set(k, -np.inf)
        if not n_waiting and released == len(job_order):
            break
        nxt = [running[0][0]] if running else []
        if released < len(job_order):
            nxt.append(float(release[job_order[released]]))
        while next_end < len(ends) and ends[next_end] <= now:
            next_end += 1
        if next_end < len(ends):
            nxt.append(ends[next_end])
        if not nxt:
            raise RuntimeError("fifo packing: tasks wait on idle machines (a bug: every task fits one)")
        now = min(nxt)

    schedule = Schedule(*zip(*rows), promises={"non_preemptive", "no_migration"}, meta={"algorithm": "fifo"})
    return Result(algorithm="fifo", schedule=schedule, info={"events": events})


# --------------------------------------------------------------------------------------------
# related
# --------------------------------------------------------------------------------------------

def fifo_related(instance: RelatedInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """FIFO for related machines (paper 004 §VI-B: "FIFO sorts jobs and schedules tasks one by
    one to the first available machine"; the model is §II).

    Jobs are listed in a topological order of the precedence DAG that prefers the smallest
    (release, index) among the jobs whose predecessors are listed. Each job's tasks, largest
    first (ties by index), go one by one to the first available machine: the task can start on
    machine i at max(machine i free, job release, latest completion of its predecessor jobs),
    and the machine where that is earliest wins; ties (e.g. several machines idle since before
    the release) go to the faster machine, then the lower index. Never preemptive. Machine i is
    free from its ready time ``instance.ready[i]``.
    """
    n = instance.n_jobs
    speeds = np.asarray(instance.speeds, dtype=float)
    release = instance.release.tolist()
    size = instance.task_size
    scale = time_scale(instance)
    offset = instance.job_offset.tolist()
    succ, waiting_preds = _successors(n, instance.edges)
    heap = [(release[j], j) for j in range(n) if waiting_preds[j] == 0]
    heapq.heapify(heap)
    free = np.array(instance.ready, dtype=float)
    preds_done = [0.0] * n
    rows: list[tuple[int, int, int, float, float, float]] = []
    while heap:
        _, j = heapq.heappop(heap)
        earliest = max(release[j], preds_done[j])
        sizes = size[offset[j]:offset[j + 1]]
        done = earliest
        for k in np.argsort(-sizes, kind="stable").tolist():
            avail = np.maximum(free, earliest)
            # Machines free within the schedulers' slack of the first tie (an ulp apart in one
            # unit, equal in another); the task starts when the chosen one is free.
            tied = np.flatnonzero(avail <= avail.min() + time_slack(scale, avail.min()))
            m = int(tied[np.argmax(speeds[tied])])
            at = avail[m]
            end = float(at) + float(sizes[k]) / speeds[m]
            rows.append((j, k, m, float(at), end, 1.0))
            free[m] = end
            done = max(done, end)
        for s in succ[j]:
            preds_done[s] = max(preds_done[s], done)
            waiting_preds[s] -= 1
            if waiting_preds[s] == 0:
                heapq.heappush(heap, (release[s], s))

    schedule = Schedule(*zip(*rows), meta={"algorithm": "fifo"})
    return Result(algorithm="fifo", schedule=schedule, info={})
