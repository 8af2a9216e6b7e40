"""Stochastic task times and speculative execution (LATE) on related machines: paper 004 §VI-C
(S-PC, Aggarwal et al.), "Stochastic Task Execution Times", Figs 9-13.

§VI-C applies S-PC "with respect to mean task size p̄_{j,t} = E[p_{j,t}]" and runs the schedule
while the true task times vary. This module is that run: a discrete-event simulator in which

* the instance's task sizes are the EXPECTED sizes p̄ (what every policy plans with);
* each task's realised size is drawn at run time: p̄ · X_t · S_c, with X_t the task's own factor
  (its data content, the spread of Fig. 9; the same for every copy of the task) and S_c a factor
  of the copy (a straggler: a copy that runs slow for reasons of its own, which is what a backup
  copy can escape); both have mean 1, so E[size] = p̄ (:class:`TaskTimes`);
* a policy decides order and machine from the expected sizes only: a :class:`QueuePlan` gives
  each machine its own task sequence (S-PC, Identical-machine, Map-only: the machines and
  per-machine order of their schedule on the expected instance, :func:`queue_plan`), a
  :class:`GreedyPlan` keeps one job list and lets whichever machine is free take the first task it
  may launch (Hadoop's FIFO, "tasks are scheduled to the first available container", §VI-A);
* a machine takes its next task when it is free, and the task runs once its job is released and
  its job's predecessors have completed (a task launched earlier, as Hadoop launches reduce tasks
  after a fraction ``slowstart`` of the map tasks, holds its machine idle until then: §VI-C "LATE
  might schedule reduce tasks soon after the job is scheduled ... reduce tasks might occupy
  containers on fast machines");
* with :class:`Late`, a machine with nothing of its own to run asks for a speculative task by the
  rule of LATE (Zaharia et al., OSDI'08, the paper's [33]): a backup copy of the running task
  with the Longest Approximate Time to End among those whose progress rate is below
  SlowTaskThreshold, unless the asking node is below SlowNodeThreshold or SpeculativeCap backups
  already run. A task finishes when its first copy does; the other copy is killed then.

Each run yields the realised schedule (:class:`StochasticRun`): the winning copy of every task,
as a schedule of a :class:`~schedrelax.instances.RelatedInstance` whose task sizes are the
realised ones, which :func:`schedrelax.schedules.verify` checks like any other; and every copy that
ran, killed ones included, whose machine occupancy is checked twice: by ``verify`` on an
occupancy instance (one task per copy, sized by the time it held its machine, no precedence) and
by an independent per-machine sweep (:meth:`StochasticRun.check_machines`). Everything random is
drawn up front from the seed, per task and copy, so every policy run on one seed sees the same
task times (common random numbers) and a run is reproducible.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.schedulers.related_list import topological_order
from schedrelax.schedules import Schedule, evaluate, verify

DISTRIBUTIONS = ("fixed", "uniform", "lognormal")
"""The task factor X's distribution, mean 1: none, uniform on [1 - spread, 1 + spread], or
lognormal with coefficient of variation ``spread``."""


@dataclass(frozen=True)
class TaskTimes:
    """The stochastic model of task sizes: realised size = p̄ · X_t · S_c.

    X_t (per task, shared by its copies): ``distribution`` of :data:`DISTRIBUTIONS` with
    ``spread``. S_c (per copy): ``straggler_factor`` with probability ``straggler_prob``, else 1,
    divided by its mean 1 + q (s - 1) so that E[S] = 1. Paper 004 §VI-C gives only Fig. 9's
    spread ("a mean of 28 seconds and a standard deviation of 7 seconds, or 25% of the mean, in
    the aggregate distribution"; on the Facebook data of the experiments "the difference between
    maximum task execution time and minimum task execution time is 8 sec, and it is 24% of the
    mean"), not its shape, and says nothing of stragglers: the default is the aggregate (lognormal,
    CV 0.25) and no stragglers.
    """

    distribution: str = "lognormal"
    spread: float = 0.25
    straggler_prob: float = 0.0
    straggler_factor: float = 1.0

    def __post_init__(self) -> None:
        if self.distribution not in DISTRIBUTIONS:
            raise ValueError(f"distribution must be one of {', '.join(DISTRIBUTIONS)}, got {self.distribution!r}")
        if not (math.isfinite(self.spread) and self.spread >= 0):
            raise ValueError(f"spread must be a finite number >= 0, got {self.spread!r}")
        if self.distribution == "uniform" and self.spread >= 1:
            raise ValueError(f"spread must be < 1 for the uniform distribution (sizes stay positive), got {self.spread!r}")
        if not (0 <= self.straggler_prob <= 1):
            raise ValueError(f"straggler_prob must be in [0, 1], got {self.straggler_prob!r}")
        if not (math.isfinite(self.straggler_factor) and self.straggler_factor > 0):
            raise ValueError(f"straggler_factor must be a finite number > 0, got {self.straggler_factor!r}")

    @property
    def copy_mean(self) -> float:
        """E of the unnormalised copy factor: 1 + q (s - 1)."""
        return 1.0 + self.straggler_prob * (self.straggler_factor - 1.0)

    def draw(self, n_tasks: int, rng: np.random.Generator) -> Draws:
        """Every factor a run can need: X per task, S for a task's original and its backup copy."""
        if self.distribution == "fixed" or self.spread == 0:
            x = np.ones(n_tasks)
        elif self.distribution == "uniform":
            x = rng.uniform(1.0 - self.spread, 1.0 + self.spread, n_tasks)
        else:
            sigma2 = math.log1p(self.spread ** 2)
            x = rng.lognormal(-sigma2 / 2.0, math.sqrt(sigma2), n_tasks)
        slow = rng.random((n_tasks, 2)) < self.straggler_prob
        s = np.where(slow, self.straggler_factor, 1.0) / self.copy_mean
        return Draws(x, s)


@dataclass(frozen=True, eq=False)
class Draws:
    """The random factors of one run: ``task`` (T,) the X_t, ``copy`` (T, 2) the S_c of each
    task's original (column 0) and backup copy (column 1). Given by hand in tests."""

    task: np.ndarray
    copy: np.ndarray

    def __post_init__(self) -> None:
        x = np.asarray(self.task, dtype=float)
        s = np.asarray(self.copy, dtype=float)
        if x.ndim != 1 or s.shape != (len(x), 2):
            raise ValueError(f"draws: task must have shape (T,) and copy (T, 2), got {x.shape} and {s.shape}")
        for name, a in (("task", x), ("copy", s)):
            if not np.all(np.isfinite(a) & (a > 0)):
                raise ValueError(f"draws: every {name} factor must be finite and > 0, got {a.ravel()[~(np.isfinite(a.ravel()) & (a.ravel() > 0))][:3].tolist()}")
        object.__setattr__(self, "task", x)
        object.__setattr__(self, "copy", s)


@dataclass(frozen=True)
class Late:
    """LATE's speculation rule and parameters (Zaharia et al., OSDI'08, §4; paper 004's [33]).

    "If a node asks for a new task and there are fewer than SpeculativeCap speculative tasks
    running: ignore the request if the node's total progress is below SlowNodeThreshold; rank
    currently running tasks that are not currently being speculated by estimated time left;
    launch a copy of the highest-ranked task with progress rate below SlowTaskThreshold."
    LATE's values: SpeculativeCap 10 % of the task slots (``speculative_cap``, at least one
    backup), SlowNodeThreshold and SlowTaskThreshold the 25th percentiles of the nodes' total
    progress and of the running tasks' progress rates. Paper 004 gives none of them and we keep
    LATE's.

    Our readings: progress is linear in time (progress score = elapsed / duration, which the
    estimator of paper 004 §V aims at), so a copy's progress rate is 1 / its duration and its
    time left its true remaining time; a node's total progress is its succeeded copies (1 each)
    plus its running copy's score; rates and percentiles are over the copies processing now,
    backups included (numpy's linear-interpolation percentile), "below" is strict; a task has at
    most one backup; a copy must have run ``min_run`` (> 0) before it is ranked. A node "asks" when
    it is free with nothing of its own to run, at every event and, while it stays idle and some
    copy runs, every ``heartbeat`` seconds (Hadoop's 3 s; None: only at events).
    """

    speculative_cap: float = 0.1
    slow_node_percentile: float = 25.0
    slow_task_percentile: float = 25.0
    min_run: float = 0.0
    heartbeat: float | None = 3.0

    def __post_init__(self) -> None:
        if not (0 <= self.speculative_cap <= 1):
            raise ValueError(f"speculative_cap must be a fraction of the machines in [0, 1], got {self.speculative_cap!r}")
        for name in ("slow_node_percentile", "slow_task_percentile"):
            v = getattr(self, name)
            if not (0 <= v <= 100):
                raise ValueError(f"{name} must be in [0, 100], got {v!r}")
        if not (math.isfinite(self.min_run) and self.min_run >= 0):
            raise ValueError(f"min_run must be a finite number >= 0, got {self.min_run!r}")
        if self.heartbeat is not None and not (math.isfinite(self.heartbeat) and self.heartbeat > 0):
            raise ValueError(f"heartbeat must be a finite number > 0 or None, got {self.heartbeat!r}")

    def cap(self, machines: int) -> int:
        """SpeculativeCap as a number of concurrent backups: ⌊cap · machines⌋, at least 1."""
        return max(1, int(self.speculative_cap * machines))


@dataclass(frozen=True)
class QueuePlan:
    """Each machine's sequence of global task indices; every task in exactly one queue."""

    queues: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class GreedyPlan:
    """One job list (a linear extension of the DAG); a free machine takes the first task, in
    that order and each job's tasks largest first, that it may launch: its job released, every
    task of each predecessor job launched and at least a fraction ``slowstart`` of them completed
    (1: all, the package's FIFO; Hadoop's reduce slow-start default is 0.05). Requiring the
    predecessors' tasks launched is ours: without it (slowstart 0, a predecessor not yet
    released) early reduce tasks could hold every machine and the run could never finish."""

    order: tuple[int, ...]
    slowstart: float = 1.0

    def __post_init__(self) -> None:
        if not (0 <= self.slowstart <= 1):
            raise ValueError(f"slowstart must be in [0, 1], got {self.slowstart!r}")


def queue_plan(instance: RelatedInstance, schedule: Schedule) -> QueuePlan:
    """The machines and per-machine order (by start, ties by task index) of a schedule of
    *instance*: what a planned policy (S-PC, Identical-machine, Map-only) decided from the expected
    sizes. Raises ValueError unless the schedule runs every task exactly once."""
    g = instance.job_offset[schedule.job] + schedule.task
    if len(g) != instance.n_tasks or not np.array_equal(np.sort(g), np.arange(instance.n_tasks)):
        raise ValueError(f"schedule must run each of the {instance.n_tasks} tasks exactly once")
    queues = []
    for i in range(instance.n_machines):
        on = np.flatnonzero(schedule.machine == i)
        on = on[np.lexsort((g[on], schedule.start[on]))]
        queues.append(tuple(int(t) for t in g[on]))
    return QueuePlan(tuple(queues))


def fifo_plan(instance: RelatedInstance, slowstart: float = 1.0) -> GreedyPlan:
    """Hadoop's FIFO (paper 004 §VI-A: "FIFO schedules jobs based on the jobs' releasing order"):
    jobs by (release, index) in a linear extension of the DAG."""
    n = instance.n_jobs
    rank = np.empty(n)
    rank[np.lexsort((np.arange(n), instance.release))] = np.arange(n)
    return GreedyPlan(tuple(topological_order(n, instance.edges, rank).tolist()), slowstart)


@dataclass(frozen=True)
class CopyRecord:
    """One copy that ran: global ``task``, its ``job`` and index ``k`` in the job, ``machine``;
    held the machine from ``launch``, processed from ``start`` (later than launch only while its
    job's predecessors were unfinished) to ``end`` (its finish, or when it was killed);
    ``speculative`` for a backup; ``won`` for the copy that finished the task."""

    task: int
    job: int
    k: int
    machine: int
    launch: float
    start: float
    end: float
    speculative: bool
    won: bool


@dataclass(frozen=True, eq=False)
class StochasticRun:
    """One simulated run: the ``expected`` instance the policy planned with, the ``realised``
    instance (each task's size that of its winning copy), the realised ``schedule`` (the winning
    copies) and every copy that ran."""

    expected: RelatedInstance
    realised: RelatedInstance
    schedule: Schedule
    copies: tuple[CopyRecord, ...]
    objective: float = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "objective", float(evaluate(self.realised, self.schedule).objective))

    @property
    def backups(self) -> int:
        """Backup copies launched."""
        return sum(c.speculative for c in self.copies)

    @property
    def backups_won(self) -> int:
        """Backup copies that finished their task first."""
        return sum(c.speculative and c.won for c in self.copies)

    @property
    def killed_seconds(self) -> float:
        """Machine time spent on copies that were killed."""
        return float(sum(c.end - c.launch for c in self.copies if not c.won))

    @property
    def held_seconds(self) -> float:
        """Machine time winning copies held their machine before they could process."""
        return float(sum(c.start - c.launch for c in self.copies if c.won))

    def occupancy(self) -> tuple[RelatedInstance, Schedule]:
        """Every copy, killed and holding time included, as a schedule of an instance without
        precedence: job j's tasks are its copies, each sized (end - launch) x its machine's speed.
        ``verify`` on it checks that no machine runs two copies at once and that nothing starts
        before its job's release."""
        speeds = np.asarray(self.expected.speeds, dtype=float)
        per_job: list[list[CopyRecord]] = [[] for _ in range(self.expected.n_jobs)]
        for c in self.copies:
            per_job[c.job].append(c)
        jobs, rows = [], []
        for j, cs in enumerate(per_job):
            jobs.append(RelatedJob(tasks=[(c.end - c.launch) * speeds[c.machine] for c in cs],
                                   weight=float(self.expected.weights[j]), release=float(self.expected.release[j])))
            rows += [(j, k, c.machine, c.launch, c.end, 1.0) for k, c in enumerate(cs)]
        inst = RelatedInstance(speeds=speeds, jobs=tuple(jobs), name=f"{self.expected.name} occupancy")
        return inst, Schedule.from_pieces(rows, meta={"occupancy": True})

    def check_machines(self) -> None:
        """Independent of ``verify``: on every machine, sorted by launch, each copy is launched
        no earlier than the previous one ended (killed copies included). Raises AssertionError."""
        by_machine: dict[int, list[CopyRecord]] = {}
        for c in self.copies:
            if not (c.launch <= c.start < c.end):
                raise AssertionError(f"copy of task {c.task} on machine {c.machine}: launch {c.launch}, "
                                     f"start {c.start}, end {c.end} are out of order")
            by_machine.setdefault(c.machine, []).append(c)
        for i, cs in by_machine.items():
            cs.sort(key=lambda c: (c.launch, c.end))
            for a, b in itertools.pairwise(cs):
                if b.launch < a.end - 1e-9 * max(1.0, abs(a.end)):
                    raise AssertionError(f"machine {i}: task {b.task} launched at {b.launch} while task {a.task} "
                                         f"holds it until {a.end}")

    def verify(self) -> None:
        """``verify`` the realised schedule and the occupancy schedule, and :meth:`check_machines`."""
        verify(self.realised, self.schedule)
        verify(*self.occupancy())
        self.check_machines()


class _Copy:
    __slots__ = ("alive", "dur", "end", "launch", "machine", "spec", "start", "task", "won")

    def __init__(self, task: int, machine: int, launch: float, dur: float, spec: bool):
        self.task, self.machine, self.launch, self.dur, self.spec = task, machine, launch, dur, spec
        self.start = math.nan  # nan while holding the machine before its job may process
        self.end = math.nan
        self.alive = True
        self.won = False


def simulate(instance: RelatedInstance, plan: QueuePlan | GreedyPlan, times: TaskTimes | None = None, *,
             late: Late | None = None, seed: int | np.random.Generator | None = 0,
             draws: Draws | None = None) -> StochasticRun:
    """Run *plan* on *instance* (task sizes = expected sizes p̄) with sizes drawn from *times*
    (default :class:`TaskTimes`) under *seed*, or the given *draws*; *late* turns on LATE's
    speculation. See the module docstring for the rules; :meth:`StochasticRun.verify` checks the
    result. Event order: at one instant, releases and finishes first, then free machines choose,
    fastest first (ties by index)."""
    if not isinstance(instance, RelatedInstance):
        raise TypeError(f"instance must be a RelatedInstance, got {type(instance).__name__}")
    times = TaskTimes() if times is None else times
    T, n, m = instance.n_tasks, instance.n_jobs, instance.n_machines
    if draws is None:
        draws = times.draw(T, np.random.default_rng(seed))
    elif draws.task.shape != (T,):
        raise ValueError(f"draws: task has {len(draws.task)} factors, the instance has {T} tasks")
    speeds = np.asarray(instance.speeds, dtype=float)
    size = instance.task_size
    job_of = instance.task_job.tolist()
    offset = instance.job_offset.tolist()
    n_tasks = np.diff(instance.job_offset).tolist()
    release = instance.release.tolist()
    preds: list[list[int]] = [[] for _ in range(n)]
    succ: list[list[int]] = [[] for _ in range(n)]
    for a, b in instance.edges.tolist():
        preds[b].append(a)
        succ[a].append(b)
    if np.any(instance.ready > 0):
        raise ValueError("instance: machine ready times must be 0 for the stochastic simulator, got "
                         f"{instance.ready.tolist()}")

    greedy = isinstance(plan, GreedyPlan)
    if greedy:
        order = list(plan.order)
        if sorted(order) != list(range(n)):
            raise ValueError(f"plan.order must list each of the {n} jobs exactly once")
        rank = {j: r for r, j in enumerate(order)}
        for a, b in instance.edges.tolist():
            if rank[a] > rank[b]:
                raise ValueError(f"plan.order lists job {b} before its predecessor job {a}")
        # each job's tasks largest first, ties by index
        pending = [[offset[j] + int(k) for k in np.argsort(-size[offset[j]:offset[j + 1]], kind="stable")]
                   for j in range(n)]
        nxt = [0] * n
        need = [[math.ceil(plan.slowstart * n_tasks[a] - 1e-9) for a in preds[j]] for j in range(n)]
    elif isinstance(plan, QueuePlan):
        queues = [list(q) for q in plan.queues]
        flat = sorted(t for q in queues for t in q)
        if len(queues) != m or flat != list(range(T)):
            raise ValueError(f"plan.queues must be {m} queues holding each of the {T} tasks exactly once")
        qpos = [0] * m
    else:
        raise TypeError(f"plan must be a QueuePlan or a GreedyPlan, got {type(plan).__name__}")

    released = [False] * n
    done_count = [0] * n
    job_done = [False] * n
    preds_left = [len(p) for p in preds]
    task_done = [False] * T
    speculated = [False] * T
    task_copies: list[list[_Copy]] = [[] for _ in range(T)]
    holding: list[list[_Copy]] = [[] for _ in range(n)]
    on_machine: list[_Copy | None] = [None] * m
    node_done = [0.0] * m
    copies: list[_Copy] = []
    winner: list[_Copy | None] = [None] * T
    machine_order = sorted(range(m), key=lambda i: (-speeds[i], i))
    cap = late.cap(m) if late else 0
    heap: list[tuple[float, int, int, int]] = []  # (time, kind, seq, payload); kind 0 release, 1 finish, 2 beat
    seq = 0

    def push(t: float, kind: int, payload: int) -> None:
        nonlocal seq
        heapq.heappush(heap, (t, kind, seq, payload))
        seq += 1

    def begin(c: _Copy, t: float) -> None:
        c.start = t
        c.end = t + c.dur
        push(c.end, 1, id_of[c])

    id_of: dict[_Copy, int] = {}

    def launch(g: int, i: int, t: float, spec: bool) -> None:
        dur = float(size[g] * draws.task[g] * draws.copy[g, 1 if spec else 0] / speeds[i])
        c = _Copy(g, i, t, dur, spec)
        id_of[c] = len(copies)
        copies.append(c)
        task_copies[g].append(c)
        on_machine[i] = c
        if preds_left[job_of[g]] == 0:
            begin(c, t)
        else:
            holding[job_of[g]].append(c)

    def own_task(i: int) -> int | None:
        if greedy:
            for j in order:
                if not released[j] or nxt[j] == n_tasks[j]:
                    continue
                if all(nxt[a] == n_tasks[a] and done_count[a] >= k for a, k in zip(preds[j], need[j], strict=True)):
                    g = pending[j][nxt[j]]
                    nxt[j] += 1
                    return g
            return None
        if qpos[i] == len(queues[i]):
            return None
        g = queues[i][qpos[i]]
        j = job_of[g]
        if released[j] and preds_left[j] == 0:
            qpos[i] += 1
            return g
        return None

    def speculate(i: int, t: float) -> bool:
        assert late is not None
        if sum(c.spec for c in on_machine if c is not None) >= cap:
            return False
        running = [c for c in on_machine if c is not None and not math.isnan(c.start) and t > c.start]
        if not running:
            return False
        progress = [node_done[k] + ((t - c.start) / c.dur if (c := on_machine[k]) is not None
                                    and not math.isnan(c.start) else 0.0) for k in range(m)]
        if progress[i] < float(np.percentile(progress, late.slow_node_percentile)):
            return False
        slow_rate = float(np.percentile([1.0 / c.dur for c in running], late.slow_task_percentile))
        cands = [c for c in running if not c.spec and not speculated[c.task]
                 and t - c.start >= late.min_run and 1.0 / c.dur < slow_rate]
        if not cands:
            return False
        best = max(cands, key=lambda c: (c.end - t, -c.task))
        speculated[best.task] = True
        launch(best.task, i, t, True)
        return True

    def dispatch(t: float) -> None:
        for i in machine_order:
            if on_machine[i] is not None:
                continue
            g = own_task(i)
            if g is not None:
                launch(g, i, t, False)
            elif late is not None:
                speculate(i, t)
        if (late is not None and late.heartbeat is not None and not beat_pending[0]
                and any(c is None for c in on_machine) and any(c is not None for c in on_machine)):
            beat_pending[0] = True
            push(t + late.heartbeat, 2, 0)

    beat_pending = [False]

    def finish(c: _Copy, t: float) -> None:
        g = c.task
        c.won = True
        winner[g] = c
        task_done[g] = True
        for other in task_copies[g]:
            other.alive = False
            if other is not c:
                other.end = t
            on_machine[other.machine] = None
        node_done[c.machine] += 1.0
        j = job_of[g]
        done_count[j] += 1
        if done_count[j] == n_tasks[j]:
            job_done[j] = True
            for s in succ[j]:
                preds_left[s] -= 1
                if preds_left[s] == 0:
                    for h in holding[s]:
                        begin(h, t)
                    holding[s].clear()

    for j in range(n):
        push(release[j], 0, j)
    finished = 0
    while finished < T:
        if not heap:
            raise RuntimeError("stochastic simulation stalled with tasks left: the plan cannot finish them")
        t = heap[0][0]
        while heap and heap[0][0] == t:
            _, kind, _, payload = heapq.heappop(heap)
            if kind == 0:
                released[payload] = True
            elif kind == 1:
                c = copies[payload]
                if c.alive:
                    finish(c, t)
                    finished += 1
            else:
                beat_pending[0] = False
        dispatch(t)

    records = tuple(CopyRecord(c.task, job_of[c.task], c.task - offset[job_of[c.task]], c.machine, c.launch,
                               c.start, c.end, c.spec, c.won) for c in copies)
    real = np.array([size[g] * draws.task[g] * draws.copy[g, 1 if winner[g].spec else 0] for g in range(T)])
    jobs = tuple(RelatedJob(tasks=real[offset[j]:offset[j + 1]], weight=float(instance.weights[j]),
                            release=release[j]) for j in range(n))
    realised = RelatedInstance(speeds=speeds, jobs=jobs, edges=instance.edges, name=f"{instance.name} realised")
    rows = [(job_of[g], g - offset[job_of[g]], w.machine, w.start, w.end, 1.0) for g, w in enumerate(winner)]
    schedule = Schedule.from_pieces(rows, promises=("non_preemptive",), meta={"stochastic": True})
    return StochasticRun(instance, realised, schedule, records)

