"""Related-machine list scheduling (paper 004 §III-C, Algorithm 2) and the §VI-B baselines HUWF and
Tetris (paper 004, S-PC, Aggarwal et al.).

A list scheduler walks the jobs in a given order (a linear extension of the job DAG); each job's
tasks, largest first, go one by one to a machine, and every task starts as early as its machine,
its job's release time and its job's predecessors allow: idle time is inserted for precedence and
release, as §III-C says. Machines run their tasks in the order they were given them; a task never
goes into an idle gap left earlier on its machine (Algorithm 2 keeps only each machine's finish
time T_l), which starts at the machine's ready time (0 unless the instance says otherwise).
:func:`list_schedule` is shared by S-PC, Identical-machine and Map-only (in
:mod:`schedrelax.rounding.spc`) and by the two baselines registered here.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np

from schedrelax.result import Result
from schedrelax.instances import RelatedInstance
from schedrelax.schedules import Schedule, time_slack
from schedrelax.schedulers.fifo import _successors

ASSIGN_RULES = ("earliest_finish", "random", "first_free")
"""How :func:`list_schedule` picks a task's machine: Algorithm 2's earliest finish, uniformly at
random (Map-only's Reduce tasks, §VI-A), or the machine free first, blind to speeds (MarS, which
assumes identical machines, :func:`schedrelax.rounding.spc.mars`)."""


def topological_order(n: int, edges: np.ndarray, priority: Sequence[float]) -> np.ndarray:
    """The linear extension of the DAG that always lists, among the jobs whose predecessors are
    all listed, the one of smallest (priority, index). Equals the sort by priority whenever that
    sort already respects the DAG."""
    succ, indeg = _successors(n, edges)
    prio = np.asarray(priority, dtype=float).tolist()
    heap = [(prio[j], j) for j in range(n) if indeg[j] == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        _, j = heapq.heappop(heap)
        order.append(j)
        for s in succ[j]:
            indeg[s] -= 1
            if indeg[s] == 0:
                heapq.heappush(heap, (prio[s], s))
    return np.array(order, dtype=np.int64)


def _check_order(instance: RelatedInstance, order: Sequence[int]) -> np.ndarray:
    order = np.asarray(order, dtype=np.int64).ravel()
    n = instance.n_jobs
    if len(order) != n or not np.array_equal(np.sort(order), np.arange(n)):
        raise ValueError(f"order must list each of the {n} jobs exactly once, got {order.tolist()[:20]}")
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    E = instance.edges
    if len(E):
        bad = rank[E[:, 0]] > rank[E[:, 1]]
        if bad.any():
            a, b = E[int(np.flatnonzero(bad)[0])]
            raise ValueError(f"order lists job {b} before its predecessor job {a}")
    return order


def _tasks_largest_first(instance: RelatedInstance, j: int) -> np.ndarray:
    """Global indices of job j's tasks in non-increasing size, ties by index (paper 004 §II)."""
    lo, hi = instance.job_offset[j], instance.job_offset[j + 1]
    return lo + np.argsort(-instance.task_size[lo:hi], kind="stable")


def list_schedule(instance: RelatedInstance, order: Sequence[int], *, assign: str | Sequence[str] = "earliest_finish",
                  planning_speeds: Sequence[float] | None = None, seed: int | np.random.Generator | None = None,
                  meta: dict | None = None) -> Schedule:
    """Algorithm 1's loop with Algorithm 2 inside (paper 004 §III-C): jobs in *order*, each job's
    tasks largest first, each to the machine l minimising max(T_l, e_j) + p_{j,t}/v_l.

    e_j is job j's earliest start: its release time and its predecessors' completions (the
    paper's line 3 names only the release; the idle time §III-C inserts for precedence is the
    same thing). Ties go to the faster machine, then the lower index. ``assign`` is one rule of
    :data:`ASSIGN_RULES` or one per job (``"random"`` draws the machine with *seed*;
    ``"first_free"`` takes the machine minimising max(T_l, e_j) alone, ties to the lower index,
    never looking at speeds).

    ``planning_speeds`` are the speeds the assignment believes in (Identical-machine believes
    they are all equal); the schedule then runs the planned machine sequences at the true
    speeds, each task as early as its machine, release and predecessors allow
    (:func:`semi_active_schedule`).
    """
    order = _check_order(instance, order)
    m, n = instance.n_machines, instance.n_jobs
    rules = [assign] * n if isinstance(assign, str) else list(assign)
    if len(rules) != n or any(r not in ASSIGN_RULES for r in rules):
        raise ValueError(f"assign must be one of {', '.join(ASSIGN_RULES)} or one per job ({n}), got {assign!r}")
    speeds = np.asarray(instance.speeds if planning_speeds is None else planning_speeds, dtype=float)
    if speeds.shape != (m,) or not np.all(speeds > 0):
        raise ValueError(f"planning_speeds must be {m} positive speeds, got {planning_speeds!r}")
    # Ties in the earliest finish go to the faster (believed) machine, then the lower index.
    scale = float(np.min(instance.task_size)) / float(np.max(speeds)) if instance.n_tasks else 1.0
    tie_rank = np.empty(m)
    tie_rank[np.lexsort((np.arange(m), -speeds))] = np.arange(m)
    rng = np.random.default_rng(seed)
    size = instance.task_size
    release = instance.release
    preds: list[list[int]] = [[] for _ in range(n)]
    for a, b in instance.edges.tolist():
        preds[b].append(a)
    free = np.array(instance.ready, dtype=float)
    done = np.zeros(n)
    machine = np.empty(instance.n_tasks, dtype=np.int64)
    task_order = []
    for j in order.tolist():
        earliest = max([release[j], *(done[a] for a in preds[j])])
        finish_j = earliest
        for g in _tasks_largest_first(instance, j).tolist():
            if rules[j] == "random":
                i = int(rng.integers(m))
            elif rules[j] == "first_free":
                at = np.maximum(free, earliest)
                i = int(np.flatnonzero(at <= at.min() + time_slack(scale, at.min()))[0])  # the lowest index among ties
            else:
                finish = np.maximum(free, earliest) + size[g] / speeds
                # Finishes within the schedulers' slack tie: equal in exact arithmetic, they come
                # out an ulp apart in one unit and not in another (Identical-machine's equal
                # believed speeds: the unit-invariance fuzz).
                tied = np.flatnonzero(finish <= finish.min() + time_slack(scale, finish.min()))
                i = int(tied[np.argmin(tie_rank[tied])])
            free[i] = max(free[i], earliest) + size[g] / speeds[i]
            finish_j = max(finish_j, free[i])
            machine[g] = i
            task_order.append(g)
        done[j] = finish_j
    return semi_active_schedule(instance, task_order, machine, meta=meta)


def semi_active_schedule(instance: RelatedInstance, task_order: Sequence[int], machine: Sequence[int],
                         meta: dict | None = None) -> Schedule:
    """Run each task on its *machine* at the earliest time its machine (taking tasks in
    *task_order*, from its ready time), its job's release and its job's predecessors allow.

    *task_order* lists global task indices; every task of a job's predecessors must come before
    the job's first task (true of any list built job by job in a linear extension, and of any
    feasible schedule's tasks sorted by start time). No completion is later than in a feasible
    schedule with the same machine sequences.
    """
    task_order = np.asarray(task_order, dtype=np.int64).ravel()
    machine = np.asarray(machine, dtype=np.int64)
    T, n = instance.n_tasks, instance.n_jobs
    if len(task_order) != T or not np.array_equal(np.sort(task_order), np.arange(T)):
        raise ValueError(f"task_order must list each of the {T} tasks exactly once")
    if machine.shape != (T,) or np.any((machine < 0) | (machine >= instance.n_machines)):
        raise ValueError(f"machine must give each of the {T} tasks a machine in 0..{instance.n_machines - 1}")
    speeds = np.asarray(instance.speeds, dtype=float)
    size = instance.task_size.tolist()
    job_of = instance.task_job.tolist()
    first = instance.job_offset.tolist()
    left = np.diff(instance.job_offset).tolist()
    preds: list[list[int]] = [[] for _ in range(n)]
    for a, b in instance.edges.tolist():
        preds[b].append(a)
    release = instance.release.tolist()
    free = instance.ready.tolist()
    done = [0.0] * n
    rows = []
    for g in task_order.tolist():
        j = job_of[g]
        waiting = [a for a in preds[j] if left[a]]
        if waiting:
            raise ValueError(f"task_order puts a task of job {j} before every task of its predecessor job {waiting[0]}")
        i = int(machine[g])
        start = max([free[i], release[j], *(done[a] for a in preds[j])])
        end = start + size[g] / speeds[i]
        free[i] = end
        done[j] = max(done[j], end)
        left[j] -= 1
        rows.append((j, g - first[j], i, start, end, 1.0))
    return Schedule.from_pieces(rows, meta=meta or {})


# --------------------------------------------------------------------------------------------
# The §VI-B baselines: HUWF and Tetris order MapReduce jobs, Algorithm 2 places their tasks
# --------------------------------------------------------------------------------------------

def dag_components(instance: RelatedInstance) -> np.ndarray:
    """The weakly connected component of each job: the MapReduce job a map or reduce node
    belongs to in the ``spc`` setup (whose DAG links exactly a job's map node to its reduce node)."""
    parent = list(range(instance.n_jobs))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in instance.edges.tolist():
        parent[root(a)] = root(b)
    roots = np.array([root(j) for j in range(instance.n_jobs)])
    return np.unique(roots, return_inverse=True)[1]


def execution_times(instance: RelatedInstance, component: np.ndarray) -> np.ndarray:
    """Each component's execution time on an otherwise empty cluster, as a critical path: each
    job takes p_j/μ_j (its data on its q_j fastest machines), after its predecessors."""
    length = instance.p / instance.mu_j
    order = topological_order(instance.n_jobs, instance.edges, np.zeros(instance.n_jobs))
    start = np.zeros(instance.n_jobs)
    succ, _ = _successors(instance.n_jobs, instance.edges)
    for j in order.tolist():
        for s in succ[j]:
            start[s] = max(start[s], start[j] + length[j])
    out = np.zeros(component.max() + 1)
    np.maximum.at(out, component, start + length)
    return out


def _component_list(instance: RelatedInstance, key: np.ndarray, component: np.ndarray) -> np.ndarray:
    """Jobs component by component in increasing *key* (ties by the component's first job), each
    component's jobs in a topological order (ties by index)."""
    first_job = np.full(len(key), instance.n_jobs)
    np.minimum.at(first_job, component, np.arange(instance.n_jobs))
    rank = np.empty(len(key), dtype=np.int64)
    rank[np.lexsort((first_job, key))] = np.arange(len(key))
    n = instance.n_jobs
    return topological_order(n, instance.edges, rank[component] * n + np.arange(n))


def huwf(instance: RelatedInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """HUWF, the §VI-B baseline of paper 004: "Unit Weight (UW) of a job equals job's weight divided
    by job execution time. Jobs are sorted based on UW in descending order, and map and reduce
    tasks are scheduled one by one. A task is assigned to a machine that produces the earliest
    completion time."

    Choices: a "job" is a weakly connected component of the DAG (a MapReduce job: its map node
    and reduce node in the ``spc`` setup), its weight the sum of its nodes' weights, its execution
    time the critical path of :func:`execution_times`; within a job its nodes go in a topological
    order; tasks are placed by :func:`list_schedule` (Algorithm 2, no backfilling).
    """
    comp = dag_components(instance)
    weight = np.bincount(comp, weights=instance.weights)
    order = _component_list(instance, -weight / execution_times(instance, comp), comp)
    return Result(algorithm="huwf", schedule=list_schedule(instance, order, meta={"algorithm": "huwf"}))


def paper_execution_times(instance: RelatedInstance, component: np.ndarray) -> np.ndarray:
    """Each component's total data divided by the cluster's mean speed μ/m: the time one machine
    of average speed takes to process all of the job's tasks (the reading of :func:`huwf_paper`)."""
    data = np.bincount(component, weights=instance.p, minlength=component.max() + 1)
    return data / (instance.mu / instance.n_machines)


def huwf_paper(instance: RelatedInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """HUWF of paper 004 §VI-B with the job's "execution time" read as its total data over the mean
    machine speed: "Unit Weight (UW) of a job equals job's weight divided by job execution time.
    Jobs are sorted based on UW in descending order, and map and reduce tasks are scheduled one by
    one. A task is assigned to a machine that produces the earliest completion time."

    Which reading. The sentence does not say what a job's execution time is. :func:`huwf` (ours)
    takes its wall-clock span on an empty cluster (the critical path of :func:`execution_times`);
    this one takes the job's work, all its tasks' data p over the mean speed μ/m
    (:func:`paper_execution_times`). We call this the paper's reading because (a) "Unit Weight",
    weight per unit of execution time, is Smith's ratio w/p, the classic rule for weighted
    completion time, and the paper's §II-III measure a job by its data p_j; (b) it agrees better
    with the paper's numbers: §VI-B puts HUWF 5.5-6.1 % above S-PC in Fig. 7 (derived from the
    stated increases and percentages), and Fig. 8 "almost the same" at small weights, whereas the
    span reading makes big many-task jobs look short and goes first with them (measured on the
    ``spc`` setup at paper size, 4 seeds, 600 and 1400 MB: ``huwf`` +16.6 % and +16.4 % above S-PC,
    this reading -0.7 % and -1.1 %; the paper's gap lies between the two). The text also supports the
    other reading for Tetris ("number of tasks (machines) multiplied by job execution time" reads
    as a machine-time area, i.e. a span), so the choice is ours, made on (a) and (b). The mean
    speed is common to all jobs, so the order is by w/p alone.

    Jobs, weights, the order inside a job and the placement are as in :func:`huwf`.
    """
    comp = dag_components(instance)
    weight = np.bincount(comp, weights=instance.weights)
    order = _component_list(instance, -weight / paper_execution_times(instance, comp), comp)
    return Result(algorithm="huwf-paper", schedule=list_schedule(instance, order, meta={"algorithm": "huwf-paper"}))


def tetris(instance: RelatedInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """Tetris as paper 004 §VI-B describes it: "resource usage score of a job equals the number of
    tasks (machines) multiplied by job execution time. Jobs are sorted based on resource usage
    scores, and map and reduce tasks are scheduled one by one. A task is assigned to a machine
    that produces the earliest completion time."

    Choices: jobs as in :func:`huwf`; the score is the job's number of tasks times its critical
    path, and jobs go smallest score first (Tetris favours the jobs that free resources soonest;
    the paper does not give the direction).
    """
    comp = dag_components(instance)
    tasks = np.bincount(comp, weights=np.diff(instance.job_offset).astype(float))
    order = _component_list(instance, tasks * execution_times(instance, comp), comp)
    return Result(algorithm="tetris", schedule=list_schedule(instance, order, meta={"algorithm": "tetris"}))
