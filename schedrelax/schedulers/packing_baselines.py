"""The baselines of paper 003 §7: PSRS, Tetris preemptive and not, JSQ-MW.

The paper runs each baseline "combined with reasonable heuristics to enforce all the constraints"
and describes them in an online appendix we do not have. The rules below are the published ones
adapted to capacitated machines, jobs of several tasks and placement sets; every choice is stated
in the function's docstring. All of them respect packing (capacity), synchronisation (a job is
done with its last task), placement (a task runs only on its usable machines, one at a time) and
release times, and the instance's reservations (reserved room is not free); none proves a bound.

Remote and local: a task's *local* machines are the usable machines with its shortest processing
time (the three data-local machines of the §7 setup, whose other machines take α times longer).
"""

from __future__ import annotations

import heapq

import numpy as np

from schedrelax.algorithms import Result, register
from schedrelax.instances import PackingInstance
from schedrelax.schedulers.list_packing import (
    FIT_TOL,
    Reservations,
    earliest_finish_machines,
    fastest_machine,
    packing_schedule,
    preemptive_list_packing,
)


def _usable(instance: PackingInstance):
    q = np.flatnonzero(instance.demand[instance.place_task] <= instance.capacities[instance.place_machine])
    return instance.place_task[q], instance.place_machine[q], instance.place_time[q]


# --------------------------------------------------------------------------------------------
# PSRS
# --------------------------------------------------------------------------------------------

def smith_rank(instance: PackingInstance, machine: np.ndarray, ptime: np.ndarray) -> np.ndarray:
    """Each task's position when jobs are listed by non-increasing modified Smith ratio
    w_j / Σ_{tasks of j} a·p/m_i (weight over normalised volume), ties by job index, a job's tasks
    by index."""
    caps = np.asarray(instance.capacities, dtype=float)
    volume = np.bincount(instance.task_job, weights=instance.demand * ptime / caps[machine], minlength=instance.n_jobs)
    ratio = np.asarray(instance.weights, dtype=float) / volume
    job_order = np.lexsort((np.arange(instance.n_jobs), -ratio))
    job_rank = np.empty(instance.n_jobs, dtype=np.int64)
    job_rank[job_order] = np.arange(instance.n_jobs)
    return job_rank[instance.task_job] * instance.n_tasks + np.arange(instance.n_tasks)


def task_smith_rank(instance: PackingInstance, machine: np.ndarray, ptime: np.ndarray) -> np.ndarray:
    """Each task's position when the TASKS are listed by non-increasing Smith ratio
    w_j / (a·p/m_i) of each task alone (its job's weight over its own normalised volume), ties by
    task index: PSRS with every task a job of its own."""
    caps = np.asarray(instance.capacities, dtype=float)
    ratio = np.asarray(instance.weights, dtype=float)[instance.task_job] / (instance.demand * ptime / caps[machine])
    order = np.lexsort((np.arange(instance.n_tasks), -ratio))
    rank = np.empty(instance.n_tasks, dtype=np.int64)
    rank[order] = np.arange(instance.n_tasks)
    return rank


def _psrs(instance: PackingInstance, name: str, rank_of) -> Result:
    fast, fast_time = fastest_machine(instance)
    rank = rank_of(instance, fast, fast_time)
    machine, ptime = earliest_finish_machines(instance, rank)
    packed = preemptive_list_packing(machine, ptime, instance.demand, rank, instance.release[instance.task_job],
                                     instance.capacities, Reservations.of(instance))
    schedule = packing_schedule(instance, packed.item, packed.machine, packed.start, packed.end,
                                promises={"no_migration"}, meta={"algorithm": name})
    return Result(algorithm=name, schedule=schedule)


@register("psrs", "packing", "PSRS, ours: JOB-level modified Smith ratio shared by a job's tasks, preemptive "
          "greedy packing per machine (synchronisation-aware)", paper="003 §7 (Schwiegelshohn 2004)")
def psrs(instance: PackingInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """PSRS, Preemptive Smith Ratio Scheduling (Schwiegelshohn 2004), per machine as paper 003 §7
    runs it on the trace's single-machine placement — our synchronisation-aware variant; the
    paper's per-task reading is :func:`psrs_paper`.

    Published rule, for parallel jobs on one machine: list the jobs by non-increasing modified
    Smith ratio w_j / (a_j p_j) and schedule greedily, preempting lower-ratio work so that a
    higher-ratio job (in particular a wide one, a_j > m/2) starts as soon as it is at the head of
    the list. Ours: a job's ratio is its weight over the normalised volume of all its tasks (the
    tasks of a job share one priority, the synchronisation heuristic that makes this PSRS the same
    list packer as SynchPack-3's Step 2 with another job order); on every machine, at each
    completion or release the machine is re-packed from the top of the list
    (:func:`~schedrelax.schedulers.list_packing.preemptive_list_packing`), so a task never waits
    for a lower-ratio one that holds room it needs. No migration. A task that may use several
    machines gets, in list order, the one where it finishes earliest
    (:func:`~schedrelax.schedulers.list_packing.earliest_finish_machines`; the volume in the ratio
    uses its fastest time).
    """
    return _psrs(instance, "psrs", smith_rank)


@register("psrs-paper", "packing", "PSRS, paper's reading: per-TASK Smith ratio w_j/(a p), tasks of a job "
          "not synchronised, preemptive greedy packing per machine", paper="003 §7, §1.1 (Schwiegelshohn 2004)")
def psrs_paper(instance: PackingInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """PSRS as paper 003 §7 compares against it: "PSRS is a preemptive algorithm for the parallel
    task scheduling problem (see Section 1.1) on a single machine", a problem in which "each job
    is only a single task" (§1.1). Run per machine, every task is a PTS job of its own: tasks are
    listed by non-increasing Smith ratio w_j / (a_kj p_kj / m_i) — the task carries its job's
    weight, and nothing ties it to its job's other tasks (the paper lists PSRS among the
    algorithms that "do not consider all aspects of packing, synchronization, and data locality",
    §1.2) — then packed as in :func:`psrs` (preemptive, re-packed from the top at every event).

    Where the two differ: a job of many small tasks and a job of one large task. Job-level PSRS
    ranks the many-task job by its total volume; task-level PSRS runs each small task first, so
    the job's tasks overtake the other job on every machine they share and its completion is no
    earlier while the other job waits (see the tests' hand-solved case).
    """
    return _psrs(instance, "psrs-paper", task_smith_rank)


# --------------------------------------------------------------------------------------------
# Tetris
# --------------------------------------------------------------------------------------------

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


def _tetris_result(instance: PackingInstance, name: str, preemptive: bool, remote_penalty: float,
                   srpt_weight: float) -> Result:
    rows = tetris_packing(instance, preemptive=preemptive, remote_penalty=remote_penalty, srpt_weight=srpt_weight)
    t, i, s, e = (np.array(c) for c in zip(*rows))
    promises = {"no_migration"} if preemptive else {"non_preemptive", "no_migration"}
    schedule = packing_schedule(instance, t, i, s, e, promises=promises, meta={"algorithm": name})
    return Result(algorithm=name, schedule=schedule,
                  params={"remote_penalty": remote_penalty, "srpt_weight": srpt_weight})


@register("tetris", "packing", "Tetris-p: alignment + weighted SRPT score, re-packed at every event (preemptive)",
          paper="003 §7 (Grandl et al. 2014)")
def tetris(instance: PackingInstance, *, solver: str | None = None, seed: int | None = None,
           remote_penalty: float = 0.1, srpt_weight: float = 1.0) -> Result:
    """Tetris-p of paper 003 §7: :func:`tetris_packing` with preemption (no migration)."""
    return _tetris_result(instance, "tetris", True, remote_penalty, srpt_weight)


@register("tetris-np", "packing", "Tetris-np: alignment + weighted SRPT score, non-preemptive",
          paper="003 §7 (Grandl et al. 2014)")
def tetris_np(instance: PackingInstance, *, solver: str | None = None, seed: int | None = None,
              remote_penalty: float = 0.1, srpt_weight: float = 1.0) -> Result:
    """Tetris-np of paper 003 §7: :func:`tetris_packing` without preemption."""
    return _tetris_result(instance, "tetris-np", False, remote_penalty, srpt_weight)


# --------------------------------------------------------------------------------------------
# JSQ-MW
# --------------------------------------------------------------------------------------------

def jsq_maxweight(instance: PackingInstance, order: np.ndarray, name: str) -> Result:
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
    return Result(algorithm=name, schedule=schedule)


@register("jsq-mw", "packing", "JSQ-MaxWeight, ours: queues filled in job Smith-ratio order, shortest local queue, "
          "idle room serves the max-weight queue (non-preemptive)", paper="003 §7 (Wang et al. 2016)")
def jsq_mw(instance: PackingInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """JSQ-MaxWeight (Wang et al. 2016) as paper 003 §7 runs it: non-preemptive, with packing —
    our variant, whose queues are ordered by priority; the paper's FIFO queues are
    :func:`jsq_mw_paper`.

    Published rule, for single-task jobs and unit servers: an arriving task joins the shortest of
    its local servers' queues (JSQ); a server that becomes free serves the queue with the largest
    (queue length × its service rate for that queue's tasks), local rate 1 and remote rate 1/α
    (MaxWeight). Ours: jobs are taken at release in non-increasing w_j / (normalised volume)
    (ties by index), their tasks by index, so every queue is in that priority order; the rest is
    :func:`jsq_maxweight`.
    """
    machine, ptime = fastest_machine(instance)
    return jsq_maxweight(instance, np.argsort(smith_rank(instance, machine, ptime)), "jsq-mw")


@register("jsq-mw-paper", "packing", "JSQ-MaxWeight, paper's reading: FIFO queues (arrival order), shortest "
          "local queue, idle room serves the max-weight queue (non-preemptive)",
          paper="003 §7, §1.1 (Wang et al. 2016)")
def jsq_mw_paper(instance: PackingInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """JSQ-MaxWeight as paper 003 cites it (Wang et al. 2016, "algorithms based on join-the-shortest-
    queue and max-weight (JSQ-MW) to incorporate data locality in load balancing", §1.1): a model
    of single-task jobs in which each server's queue is first-in first-out — the rule knows no
    weights and no jobs. Tasks join queues in arrival order: by release, ties by job index (the
    trace's order), a job's tasks by index; each queue is served in that order, the first task that
    fits the machine's free capacity (skipping one that does not fit is the packing heuristic the
    paper adds, "combined with reasonable heuristics to enforce all the constraints", §1.2).
    Routing and service are :func:`jsq_maxweight`.
    """
    job_order = np.lexsort((np.arange(instance.n_jobs), instance.release))
    job_pos = np.empty(instance.n_jobs, dtype=np.int64)
    job_pos[job_order] = np.arange(instance.n_jobs)
    order = np.lexsort((np.arange(instance.n_tasks), job_pos[instance.task_job]))
    return jsq_maxweight(instance, order, "jsq-mw-paper")
