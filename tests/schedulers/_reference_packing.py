"""The packing schedulers as they were before compressed placement (issue 17 item 4), kept verbatim
as references: the class-aware versions must give the same schedules. Only the registration
decorators and Result wrapping are dropped; each returns its schedule."""

from __future__ import annotations

import heapq

import numpy as np

from schedrelax.instances import PackingInstance
from schedrelax.schedulers.list_packing import (
    FIT_TOL,
    Pieces,
    Reservations,
    _merge_runs,
    _pieces,
    _Profile,
    packing_schedule,
)
from schedrelax.schedules import Schedule


def fifo_packing(instance: PackingInstance) -> Schedule:
    """FIFO for capacitated packing (paper 003 §2 is the model; the paper has no FIFO, so this is
    the natural one): non-preemptive greedy list scheduling in job release order (ties by job
    index), the tasks of a job in index order.

    Event-driven: at the first release, every later release and every task completion, the
    waiting tasks of the released jobs are scanned in that order and each is started *now* on the machine of its
    placement set that has enough free capacity and finishes it earliest (the shortest processing
    time; ties to the lowest machine index), if there is one. Backfilling: a task that does not
    fit anywhere keeps its place in the list but does not block later tasks, which may start
    before it. Tasks run to completion on one machine: the schedule promises ``non_preemptive``
    and ``no_migration``. Reserved room (instance reservations) is not free until it ends, and
    each end is a decision time.
    """
    caps = np.asarray(instance.capacities, dtype=float)
    fit_tol = 1e-9 * np.maximum(1.0, caps)
    demand = instance.demand.tolist()
    n_tasks = instance.n_tasks
    # Each task's machines, fastest first (ties by index): the first that fits is the choice.
    cand: list[np.ndarray] = []
    ctime: list[np.ndarray] = []
    for t in range(n_tasks):
        sl = slice(instance.place_offset[t], instance.place_offset[t + 1])
        mach, ptime = instance.place_machine[sl], instance.place_time[sl]
        o = np.lexsort((mach, ptime))
        usable = caps[mach[o]] >= demand[t] - fit_tol[mach[o]]
        cand.append(mach[o][usable])
        ctime.append(ptime[o][usable])
    release = instance.release
    job_order = np.lexsort((np.arange(instance.n_jobs), release)).tolist()
    job_offset = instance.job_offset.tolist()
    task_job = instance.task_job.tolist()

    busy = np.zeros(len(caps), dtype=np.int64)
    running: list[tuple[float, int, int]] = []  # (end, machine, task), a heap
    waiting: list[int] = []
    rows: list[tuple[int, int, int, float, float, float]] = []
    released, now, events = 0, float(release[job_order[0]]), 0
    ends = instance.reservation_ends()
    taken = instance.reserved_at(now)
    free = caps - taken
    while True:
        events += 1
        while running and running[0][0] <= now:
            _, m, g = heapq.heappop(running)
            busy[m] -= 1
            free[m] = caps[m] - taken[m] if busy[m] == 0 else free[m] + demand[g]  # an idle machine sheds rounding
        now_taken = instance.reserved_at(now)
        free += taken - now_taken
        taken = now_taken
        while released < len(job_order) and release[job_order[released]] <= now:
            j = job_order[released]
            waiting.extend(range(job_offset[j], job_offset[j + 1]))
            released += 1
        most = float(free.max())
        still: list[int] = []
        for g in waiting:
            d = demand[g]
            if d > most + 1e-9 * max(1.0, most):
                still.append(g)
                continue
            ok = free[cand[g]] >= d - fit_tol[cand[g]]
            if not ok.any():
                still.append(g)
                continue
            q = int(np.argmax(ok))
            m, p = int(cand[g][q]), float(ctime[g][q])
            j = task_job[g]
            rows.append((j, g - job_offset[j], m, now, now + p, d))
            heapq.heappush(running, (now + p, m, g))
            free[m] -= d
            busy[m] += 1
            most = float(free.max())
        waiting = still
        if not waiting and released == len(job_order):
            break
        nxt = [running[0][0]] if running else []
        if released < len(job_order):
            nxt.append(float(release[job_order[released]]))
        nxt.extend(ends[ends > now][:1].tolist())
        if not nxt:
            raise RuntimeError("fifo packing: tasks wait on idle machines (a bug: every task fits one)")
        now = min(nxt)

    schedule = Schedule(*zip(*rows), promises={"non_preemptive", "no_migration"}, meta={"algorithm": "fifo"})
    return schedule


def earliest_finish_machines(instance: PackingInstance, rank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each task's machine chosen when it is list-scheduled: tasks are taken in the order of
    ``rank`` (ties by index) and each goes to the usable machine of its placement set on which
    it would finish earliest under :func:`preemptive_list_packing`, given the tasks already
    placed. Returns (machine, processing time there) per task, for
    :func:`preemptive_list_packing` with the same ``rank``.

    On one machine, preemptive list packing gives a task exactly the room its higher-ranked tasks
    leave (they are scanned first and never see it), and every task placed before it ranks
    higher. So its run is known when it is placed: it runs whenever the machine's free room
    (capacity, less reservations and the higher tasks' runs) holds its demand, from its release
    until its processing time is done; that finish time is what is compared. Ties (several
    machines finish it equally early, e.g. all empty) go to the machine with the least volume
    placed on it so far relative to capacity, then to the lowest index — not to the lowest index
    alone, which piles every task of an idle cluster with identical machines onto machine 0.
    """
    caps = np.asarray(instance.capacities, dtype=float)
    M, nT = len(caps), instance.n_tasks
    usable = np.flatnonzero(instance.demand[instance.place_task] <= caps[instance.place_machine])
    pt, pm, pp = instance.place_task[usable], instance.place_machine[usable], instance.place_time[usable]
    bounds = np.searchsorted(pt, np.arange(nT + 1))  # place_task is sorted (rows grouped by task)
    release = instance.release[instance.task_job]
    demand = instance.demand
    profiles = [_Profile() for _ in range(M)]
    busy_until = np.zeros(M)
    reserved = Reservations.of(instance)
    for i, d, u in zip(reserved.machine.tolist(), reserved.demand.tolist(), reserved.until.tolist()):
        profiles[i].add(0.0, u, d)
        busy_until[i] = max(busy_until[i], u)
    load = np.zeros(M)
    machine = np.empty(nT, dtype=np.int64)
    ptime = np.empty(nT)
    for t in np.lexsort((np.arange(nT), np.asarray(rank))).tolist():
        ms, ps = pm[bounds[t]:bounds[t + 1]], pp[bounds[t]:bounds[t + 1]]
        if not len(ms):
            raise ValueError(f"task {t} fits no machine of its placement set")
        r, a = float(release[t]), float(demand[t])
        finish = r + ps  # exact where the machine is free from r on, a lower bound elsewhere
        exact = busy_until[ms] <= r
        best = float(finish[exact].min()) if exact.any() else np.inf
        for k in np.flatnonzero(~exact).tolist():
            if finish[k] <= best * (1 + FIT_TOL):
                finish[k] = profiles[ms[k]].finish(r, float(ps[k]), caps[ms[k]] - a + FIT_TOL * max(1.0, caps[ms[k]]))
                best = min(best, float(finish[k]))
            else:
                finish[k] = np.inf  # cannot beat the best: its lower bound is already later
        near = np.flatnonzero(finish <= best + FIT_TOL * max(1.0, best))
        k = int(near[np.lexsort((ms[near], load[ms[near]]))[0]])
        i = int(ms[k])
        machine[t], ptime[t] = i, ps[k]
        for s, e in profiles[i].runs(r, float(ps[k]), caps[i] - a + FIT_TOL * max(1.0, caps[i])):
            profiles[i].add(s, e, a)
        busy_until[i] = max(busy_until[i], float(finish[k]))
        load[i] += a * ps[k] / caps[i]
    return machine, ptime


def _usable(instance: PackingInstance):
    q = np.flatnonzero(instance.demand[instance.place_task] <= instance.capacities[instance.place_machine])
    return instance.place_task[q], instance.place_machine[q], instance.place_time[q]


def tetris_packing(instance: PackingInstance, *, preemptive: bool, remote_penalty: float = 0.1,
                   srpt_weight: float = 1.0):
    """Tetris (Grandl et al. 2014) as paper 003 §7 runs it: returns (task, machine, start, end) runs.

    At every decision time (first release, every completion and release) and while some waiting
    task fits some machine, the (task, machine) pair with the highest score starts:

        score = alignment - ε·q_j,   alignment = (a/m_i)·(free_i/m_i)·(1 - remote_penalty if remote),

    the dot product of demand and free resources normalised by capacity (one resource here), with
    Tetris's remote penalty (10 % by default) for a machine that is not local for the task;
    q_j = (remaining volume of job j)/w_j is the shortest-remaining-time term, weighted for Σ w_j C_j;
    ε = srpt_weight·ā/q̄ with ā and q̄ the means over the current candidates, Tetris's choice of
    ε = ā/p̄ that puts both terms on one scale. Ties go to the lowest task, then machine, index.

    ``preemptive=True`` (Tetris-p): at every decision time all running tasks are preempted and the
    machines refilled by score; a task resumes only on the machine where it first ran (no
    migration), with its remaining time. ``preemptive=False`` (Tetris-np): tasks run to completion.
    """
    pt, pm, pp = _usable(instance)
    nT = instance.n_tasks
    best = np.full(nT, np.inf)
    np.minimum.at(best, pt, pp)
    remote = pp > best[pt] * (1 + 1e-12)
    caps = np.asarray(instance.capacities, dtype=float)
    demand = instance.demand
    job = instance.task_job
    w = np.asarray(instance.weights, dtype=float)
    release = instance.release[job]
    rem = np.ones(nT)  # remaining share of each task
    done = np.zeros(nT, dtype=bool)
    home = np.full(nT, -1)  # machine a preempted task must resume on
    run_machine = np.full(nT, -1)
    run_start = np.zeros(nT)
    run_time = np.zeros(nT)  # processing time on the running machine
    rows: list[tuple[int, int, float, float]] = []
    releases = np.union1d(instance.release, instance.reservation_ends())
    now = float(instance.release.min())
    taken = instance.reserved_at(now)
    free = caps - taken

    def stop(t: int, at: float) -> None:
        i = int(run_machine[t])
        rows.append((t, i, float(run_start[t]), at))
        rem[t] -= (at - run_start[t]) / run_time[t]
        free[i] += demand[t]
        run_machine[t] = -1

    while not done.all():
        running = np.flatnonzero(run_machine >= 0)
        for t in running[run_start[running] + rem[running] * run_time[running] <= now + FIT_TOL * max(1.0, now)]:
            stop(int(t), now)
            done[t] = True
        if preemptive:
            for t in np.flatnonzero(run_machine >= 0).tolist():
                stop(t, now)
        now_taken = instance.reserved_at(now)
        free += taken - now_taken
        taken = now_taken
        idle = np.bincount(run_machine[run_machine >= 0], minlength=len(caps)) == 0
        free[idle] = caps[idle] - taken[idle]
        left = np.bincount(job, weights=np.where(done, 0.0, demand * rem * best), minlength=instance.n_jobs) / w
        while True:
            ok = (~done[pt]) & (run_machine[pt] < 0) & (release[pt] <= now) & ((home[pt] < 0) | (home[pt] == pm))
            ok &= demand[pt] <= free[pm] + FIT_TOL * np.maximum(1.0, caps[pm])
            cand = np.flatnonzero(ok)
            if not len(cand):
                break
            t, i = pt[cand], pm[cand]
            align = demand[t] / caps[i] * free[i] / caps[i] * np.where(remote[cand], 1 - remote_penalty, 1.0)
            qj = left[job[t]]
            eps = srpt_weight * align.mean() / qj.mean() if qj.mean() > 0 else 0.0
            k = cand[int(np.argmax(align - eps * qj))]
            t, i = int(pt[k]), int(pm[k])
            run_machine[t], run_start[t], run_time[t] = i, now, pp[k]
            home[t] = i
            free[i] -= demand[t]
        if done.all():
            break
        running = np.flatnonzero(run_machine >= 0)
        nxt = float((run_start[running] + rem[running] * run_time[running]).min()) if len(running) else np.inf
        later = releases[releases > now]
        now = min(nxt, float(later[0]) if len(later) else np.inf)
        if not np.isfinite(now):
            raise RuntimeError("tetris: tasks wait on idle machines (a bug: every task fits one)")
    return rows


def jsq_maxweight(instance: PackingInstance, order: np.ndarray, name: str) -> Schedule:
    """JSQ-MaxWeight with packing (Wang et al. 2016, as paper 003 §7 runs it); tasks join their
    queues in ``order`` (at their release) and each queue is served in the order tasks joined it.

    Routing (JSQ): a task joins the queue of the local machine (shortest usable time) whose queued
    work Σ a·p/m_i is least, ties to the lowest index. Service (MaxWeight): at every decision
    time (first release, completions, releases, ends of reservations) a machine repeatedly takes
    from the queue that maximises (queued work) × rate, rate = (task's local time)/(its time on
    this machine), the first task of that queue that fits its free capacity and may run on it,
    until no queue offers one; ties to the machine's own queue, then the lowest index.

    The decision time is one instant for all machines, so it runs in two rounds: first every
    machine, in index order, serves only tasks that are local to it (rate 1); then every machine
    with room left serves any queue, remote tasks included. A task is thus sent to a remote
    machine only when none of its local machines can start it at that instant. Serving machines in
    index order in one round (the former rule) let the low-index machines take other machines'
    tasks at remote speed while those machines sat idle: at time 0 on the Google part with
    ``local`` placement every task went remote and Σ w_j C_j doubled (α = 2).
    """
    pt, pm, pp = _usable(instance)
    nT, M = instance.n_tasks, instance.n_machines
    caps = np.asarray(instance.capacities, dtype=float)
    demand = instance.demand
    job = instance.task_job
    time_on = {(int(t), int(i)): float(p) for t, i, p in zip(pt, pm, pp)}
    best = np.full(nT, np.inf)
    np.minimum.at(best, pt, pp)
    local = [[] for _ in range(nT)]
    for t, i, p in zip(pt.tolist(), pm.tolist(), pp.tolist()):
        if p <= best[t] * (1 + 1e-12):
            local[t].append(i)
    queues: list[list[int]] = [[] for _ in range(M)]
    work = np.zeros(M)
    running: list[tuple[float, int, int]] = []
    rows: list[tuple[int, int, float, float]] = []
    release = instance.release[job]
    times = np.union1d(instance.release, instance.reservation_ends())
    joined = np.zeros(nT, dtype=bool)
    started = 0
    now = float(instance.release.min())
    taken = instance.reserved_at(now)
    free = caps - taken
    while started < nT:
        while running and running[0][0] <= now + FIT_TOL * max(1.0, now):
            _, i, t = heapq.heappop(running)
            free[i] = caps[i] - taken[i] if not any(r[1] == i for r in running) else free[i] + demand[t]
        now_taken = instance.reserved_at(now)
        free += taken - now_taken
        taken = now_taken
        for t in order[(release[order] <= now) & ~joined[order]].tolist():
            i = min(local[t], key=lambda i: (work[i] / caps[i], i))
            queues[i].append(t)
            work[i] += demand[t] * best[t] / caps[i]
            joined[t] = True
        for remote_ok in (False, True):
            for i in range(M):
                while True:
                    choice = None
                    for n in [i] + [n for n in range(M) if n != i]:
                        pick = next((t for t in queues[n] if (t, i) in time_on
                                     and (remote_ok or time_on[t, i] <= best[t] * (1 + 1e-12))
                                     and demand[t] <= free[i] + FIT_TOL * max(1.0, caps[i])), None)
                        if pick is None:
                            continue
                        weight = work[n] * best[pick] / time_on[pick, i]
                        if choice is None or weight > choice[0]:
                            choice = (weight, n, pick)
                    if choice is None:
                        break
                    _, n, t = choice
                    queues[n].remove(t)
                    work[n] -= demand[t] * best[t] / caps[n]
                    p = time_on[t, i]
                    rows.append((t, i, now, now + p))
                    heapq.heappush(running, (now + p, i, t))
                    free[i] -= demand[t]
                    started += 1
        if started == nT:
            break
        later = times[times > now]
        now = min(running[0][0] if running else np.inf, float(later[0]) if len(later) else np.inf)
        if not np.isfinite(now):
            raise RuntimeError(f"{name}: tasks wait on idle machines (a bug: every task fits one)")
    t, i, s, e = (np.array(c) for c in zip(*rows))
    schedule = packing_schedule(instance, t, i, s, e, promises={"non_preemptive", "no_migration"},
                                meta={"algorithm": name})
    return schedule


def interval_fraction_packing(machine: np.ndarray, duration: np.ndarray, demand: np.ndarray, task: np.ndarray,
                              interval: np.ndarray, release: np.ndarray, capacities: np.ndarray,
                              reserved: Reservations | None = None) -> Pieces:
    """Greedy list scheduling of task fractions, paper 003 §3.2 Step 2 (SynchPack-1).

    Items are fractions (k, j, i, l) in list order (the caller sorts them by interval l first).
    At each decision time (the first release, every release and every fraction completion): if a
    released, unscheduled fraction of interval l_min waits anywhere, the running fractions of
    intervals > l_min are preempted on all machines (the paper's rule on completions; we apply it
    at releases too); then the list is scanned from the top and fraction (k, j, i, l) starts on
    machine i if no fraction of task (k, j) is running (placement rule ii) and
    h_i(t) + a_kj <= m_i (h_i counting *reserved* room). A preempted fraction keeps its remaining
    duration and its place.
    """
    n = len(machine)
    caps = np.asarray(capacities, dtype=float)
    rem = np.asarray(duration, dtype=float).copy()
    demand = np.asarray(demand, dtype=float)
    machine = np.asarray(machine, dtype=np.int64)
    task = np.asarray(task, dtype=np.int64)
    interval = np.asarray(interval)
    release = np.asarray(release, dtype=float)
    reserved = reserved or Reservations.none()
    busy = np.zeros(int(task.max()) + 1 if n else 0, dtype=bool)
    running = np.zeros(n, dtype=bool)
    done = np.zeros(n, dtype=bool)
    began = np.zeros(n)
    releases = np.unique(release)
    rows: list[tuple[int, int, float, float]] = []
    now = float(releases[0]) if n else 0.0
    taken = reserved.held(now, len(caps))
    free = caps - taken
    events = np.union1d(releases, reserved.ends())

    slack = FIT_TOL * np.maximum(1.0, caps)
    was_held = np.zeros(n, dtype=bool)

    def release_room(k: int) -> None:
        running[k] = False
        busy[task[k]] = False
        free[machine[k]] += demand[k]

    def close(k: int, at: float) -> None:
        rows.append((k, int(machine[k]), float(began[k]), at))
        rem[k] -= at - began[k]

    while n and not done.all():
        run = np.flatnonzero(running)
        for k in run[began[run] + rem[run] <= now + FIT_TOL * max(1.0, now)].tolist():
            close(k, now)
            release_room(k)
            done[k] = True
        now_taken = reserved.held(now, len(caps))
        free += taken - now_taken
        taken = now_taken
        idle = np.bincount(machine[running], minlength=len(caps)) == 0
        free[idle] = caps[idle] - taken[idle]  # an empty machine sheds accumulated rounding
        waiting = (release <= now) & ~running & ~done
        if waiting.any():
            # Preempted fractions give their room back but keep running without a break if the
            # scan (in list order) picks them again at once; only the others are cut here.
            held = np.flatnonzero(running & (interval > interval[waiting].min()))
            running[held] = False
            busy[task[held]] = False
            np.add.at(free, machine[held], demand[held])
            was_held[held] = True
            fits = demand <= free[machine] + slack[machine]
            candidates = np.flatnonzero((waiting | was_held) & fits & ~busy[task])
            for k in candidates.tolist():
                i = machine[k]
                if not busy[task[k]] and demand[k] <= free[i] + slack[i]:
                    if not was_held[k]:
                        began[k] = now
                    running[k] = True
                    busy[task[k]] = True
                    free[i] -= demand[k]
            for k in held[~running[held]].tolist():
                close(k, now)
            was_held[held] = False
        if done.all():
            break
        run = np.flatnonzero(running)
        upcoming = events[events > now]
        nxt = float((began[run] + rem[run]).min()) if len(run) else np.inf
        if len(upcoming):
            nxt = min(nxt, float(upcoming[0]))
        if not np.isfinite(nxt):
            raise RuntimeError("interval_fraction_packing: fractions wait on idle machines (a fraction larger "
                               "than its machine?)")
        now = nxt
    return _pieces(_merge_runs(rows), n)
