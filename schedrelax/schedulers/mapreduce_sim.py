"""The slotted MapReduce simulator of paper 001 §III, shared by every mapreduce policy, and the SRPT
relaxation of Lemma 1 (§VI) that gives the lower bound and drives ASRPT and DSRPT.

The engine (:func:`simulate`) walks the slots. At the start of slot t it admits the jobs that
arrive in t, releases the machines of non-preemptive Reduce tasks that ended, and asks the policy
for an allocation: machines for Map work and machines for Reduce tasks, per job. It checks the
allocation against the model and applies it:

* Map work is M_i unit tasks: a job gets at most its Map tasks left, each on one machine.
* Reduce work of job i may run only in slots after the one in which its last Map task ran.
* A Reduce task runs on at most one machine per slot (the core model, checked by ``verify``).
  Preemptive (eq. 1): a job given r machines runs its r unfinished Reduce tasks with the most work
  left (ties by index). Non-preemptive (eq. 2): a job given r machines starts its r largest
  unstarted Reduce tasks (ties by index), and each keeps its machine until it ends.

These within-job rules are ours: the paper fixes how many machines a job gets, not which of its
tasks use them. Most-work-left-first is the rule that minimises a job's own completion for the
machines it is given (no task is left as the long tail), so preemption is used to the full; the
non-preemptive rule starts the longest tasks first for the same reason. Every policy shares them,
so the policies differ only in how they share machines among jobs.

The engine is event-driven across idle gaps and does O(jobs served) work per slot; consecutive
slots with the same allocation become one piece (pooled machines, Map pieces with task
``MAP_TASK`` and rate = machines, Reduce pieces one per task with rate 1).
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from schedrelax.errors import AlgorithmError, InstanceError
from schedrelax.instances import MapReduceInstance, MapReduceJob
from schedrelax.schedules import MAP_TASK, POOLED, Schedule

MAX_BUSY_SLOTS = 10**6
"""Most slots with work the engine and the SRPT relaxation will walk. Both take one step per
busy slot (idle gaps are skipped), a few microseconds each and one row of output per served job,
so 10^6 slots is already tens of seconds for the slower policies; paper 001's own setup needs
about 500 and the full SWIM day about 1,500."""

MAX_UNIT_TASKS = 10**7
"""Most unit Reduce tasks :func:`unit_reduce_tasks` will create (each is a Python object)."""


def check_simulation_size(instance: MapReduceInstance) -> None:
    """InstanceError if every schedule of *instance* needs more than :data:`MAX_BUSY_SLOTS` busy slots.

    No schedule finishes in fewer busy slots than ceil(total work / N) (N machines do N units per
    slot) nor than the largest Reduce task's workload (a task runs on one machine per slot), so
    an instance above the limit by either count would make the slot-by-slot walk run that long.
    """
    N = instance.machines
    work = instance.map_work + instance.reduce_total
    total = sum(work.tolist())  # Python ints: many jobs near 2^53 units would overflow int64
    by_work = -(-total // N)
    longest = int(instance.reduce_work.max()) if len(instance.reduce_work) else 0
    if max(by_work, longest) <= MAX_BUSY_SLOTS:
        return
    if longest >= by_work:
        g = int(np.argmax(instance.reduce_work))
        j = int(instance.reduce_job[g])
        cause = (f"job {j}: reduce_tasks[{g - int(instance.reduce_offset[j])}] = {longest} needs {longest} slots "
                 f"(one machine per Reduce task)")
    else:
        j = int(np.argmax(work))
        cause = (f"job {j}: map_tasks {int(instance.map_work[j])} and Reduce work {int(instance.reduce_total[j])}: "
                 f"all jobs together, {total} units on {N} machines, need at least {by_work} slots")
    raise InstanceError(f"{cause}, beyond the limit of {MAX_BUSY_SLOTS:.0e} busy slots of the slotted MapReduce "
                        f"simulator (its work grows with the number of slots)")


# --------------------------------------------------------------------------------------------
# The SRPT relaxation of Lemma 1
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class SRPTRelaxation:
    """SRPT on the single-resource relaxation eq. (12) of paper 001 Lemma 1, slot by slot.

    ``slot``, ``job``, ``map_units``, ``reduce_units`` are the rows of the virtual schedule in the
    order SRPT serves them (within a slot, smallest remaining work first): in slot ``slot[r]`` job
    ``job[r]`` gets ``map_units[r] + reduce_units[r]`` machines, its Map units first. The rows
    ignore the Map→Reduce dependency and the one-machine-per-Reduce-task rule, so they are not a
    schedule of the instance. ``completion`` is per job (end of its last slot), ``flow`` =
    completion − arrival, and ``total`` = Σ flow is the lower bound.
    """

    slot: np.ndarray
    job: np.ndarray
    map_units: np.ndarray
    reduce_units: np.ndarray
    completion: np.ndarray
    flow: np.ndarray

    @property
    def total(self) -> float:
        return float(self.flow.sum())

    def rows_by_slot(self) -> dict[int, tuple[int, int]]:
        """slot -> (first row, end row) of the slots in which SRPT serves anybody."""
        slots, first = np.unique(self.slot, return_index=True)
        ends = np.r_[first[1:], len(self.slot)]
        return {int(s): (int(a), int(b)) for s, a, b in zip(slots, first, ends)}


def srpt_relaxation(instance: MapReduceInstance) -> SRPTRelaxation:
    """SRPT without the Map–Reduce dependency (paper 001 §VI, Lemma 1 and eq. (12)).

    Each job is one pile of M_i + R_i units. In every slot the N machines go to the jobs in order
    of least remaining work (ties: earlier arrival, lower index), each job taking as many machines
    as it has units left: the relaxation (12) puts no limit on a job's machines per slot, and
    neither does this SRPT. A job's Map units are served before its Reduce units, which makes
    every Reduce row of a job come in or after the slot of its last Map row (DSRPT needs that).

    Why the flow time of this schedule is a lower bound on every feasible schedule, preemptive or
    not:

    1. Relaxation. A schedule of eq. (1) or eq. (2) (whose constraints include eq. (1)'s) uses at
       most N machines per slot, none before the job's arrival, and gives each job M_i + R_i units
       in total; its flow time counts slots a_i..f_i^(r). Dropping every other constraint (the
       dependency, unit Map tasks, one machine per Reduce task, non-preemption) leaves eq. (12),
       so OPT(12) ≤ OPT(1) ≤ OPT(2).
    2. SRPT is optimal for eq. (12) in slotted time too (the paper cites [10]; here is the slotted
       argument). Compare SRPT with any schedule S of (12) through the remaining-work vectors
       (finished jobs count as 0) at each slot boundary: let P_k be the sum of the k smallest
       entries. Claim: P_k(SRPT) ≤ P_k(S) for every k. An arrival inserts the same value v in both
       vectors, and P_k(x ∪ {v}) = min(P_k(x), P_{k-1}(x) + v) keeps the order. A slot removes at
       most N units from S, so P_k(S) drops by at most N and stays ≥ 0; SRPT removes N units
       from the smallest entries, so P_k(SRPT) becomes max(0, P_k(SRPT) − N) (the partly served
       job stays the smallest). Hence the number of finished jobs (entries 0) is at least as large
       under SRPT at every boundary, and Σ completion, so Σ flow, is at most that of S.

    With a per-job cap on machines (e.g. its task count) the swap argument of step 2 breaks (a
    capped job cannot take all N units), SRPT is no longer known to be optimal and its flow time
    would prove nothing; so the bound uses eq. (12) exactly as the paper writes it.

    Raises InstanceError (see :func:`check_simulation_size`) for instances that need more busy
    slots than :data:`MAX_BUSY_SLOTS`.
    """
    check_simulation_size(instance)
    N = instance.machines
    n = instance.n_jobs
    arrival = instance.arrival.tolist()
    order = sorted(range(n), key=lambda j: (arrival[j], j))
    work = (instance.map_work + instance.reduce_total).tolist()
    map_left = instance.map_work.tolist()
    completion = np.zeros(n, dtype=np.int64)
    rows: list[tuple[int, int, int, int]] = []
    heap: list[tuple[int, int, int]] = []  # (remaining units, arrival, job)
    t, k = 0, 0
    while k < n or heap:
        if not heap:
            t = max(t, arrival[order[k]])
        while k < n and arrival[order[k]] <= t:
            j = order[k]
            heapq.heappush(heap, (work[j], arrival[j], j))
            k += 1
        d = N
        while d and heap:
            rem, a, j = heap[0]
            g = min(rem, d)
            m = min(map_left[j], g)
            map_left[j] -= m
            rows.append((t, j, m, g - m))
            d -= g
            if g == rem:
                heapq.heappop(heap)
                completion[j] = t + 1
            else:  # still the smallest: it stays at the top with less left
                heapq.heapreplace(heap, (rem - g, a, j))
        t += 1
    r = np.array(rows, dtype=np.int64).reshape(-1, 4)
    return SRPTRelaxation(r[:, 0], r[:, 1], r[:, 2], r[:, 3], completion, completion - instance.arrival)


def srpt_lower_bound(instance: MapReduceInstance) -> float:
    """The lower bound of paper 001 Lemma 1: total flow time of SRPT on eq. (12), valid for the
    preemptive and the non-preemptive problem (see :func:`srpt_relaxation` for the argument)."""
    return srpt_relaxation(instance).total


# --------------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------------

class Policy(Protocol):
    """A mapreduce policy: per slot, machines for Map and for Reduce, per job."""

    def allocate(self, sim: SlotSimulator) -> tuple[Mapping[int, int], Mapping[int, int]]:
        """(Map machines by job, Reduce machines by job) for slot ``sim.t``; at most ``sim.free``
        in all, Map at most ``sim.map_left[j]``, Reduce at most ``sim.reduce_schedulable(j)``."""
        ...


@dataclass(frozen=True, eq=False)
class Simulation:
    """What :func:`simulate` returns: the schedule, completion slot ends and flow time per job."""

    schedule: Schedule
    completion: np.ndarray
    flow: np.ndarray
    slots: int

    @property
    def total_flow(self) -> float:
        return float(self.flow.sum())


class SlotSimulator:
    """The state of the slotted system as policies see it at the start of slot ``t``.

    Read by policies, changed only by the engine. ``active`` holds the arrived, unfinished jobs in
    arrival order (ties by index); ``free`` the machines not held by running non-preemptive Reduce
    tasks; ``map_left[j]`` the Map tasks left; ``held[j]`` the machines job j's running
    non-preemptive Reduce tasks hold.
    """

    def __init__(self, instance: MapReduceInstance, preemptive: bool):
        check_simulation_size(instance)
        self.instance = instance
        self.preemptive = preemptive
        self.N = instance.machines
        n = instance.n_jobs
        self.arrival = instance.arrival.tolist()
        self.order = sorted(range(n), key=lambda j: (self.arrival[j], j))
        self.map_left = instance.map_work.tolist()
        # Slot in which job j's Map finished; a job without Map may reduce from its arrival.
        self.map_end = [a - 1 if m == 0 else -1 for a, m in zip(self.arrival, self.map_left)]
        self.offset = instance.reduce_offset.tolist()
        self.red_left = instance.reduce_work.tolist()
        self.red_job = instance.reduce_job.tolist()
        # Preemptive: the unfinished tasks; non-preemptive: the unstarted ones. Kept sorted by
        # (most work left, index), the order in which a job's machines go to its tasks.
        self.tasks = [sorted(range(self.offset[j], self.offset[j + 1]), key=self._task_key) for j in range(n)]
        self.red_rem = instance.reduce_total.tolist()  # Reduce units left outside running held tasks
        self.held = [0] * n
        self._held_end_sum = [0] * n
        self._held_heap: list[tuple[int, int]] = []  # (end slot, job)
        self.free = self.N
        self.done = [False] * n
        self.completion = np.zeros(n, dtype=np.int64)
        self.active: list[int] = []
        self.t = 0
        self._admitted = 0
        self._pieces: list[tuple[int, int, int, int, int]] = []  # (job, task, start, end, rate)
        self._open_map: dict[int, tuple[int, int]] = {}  # job -> (start, machines)
        self._open_red: dict[int, int] = {}  # global Reduce task -> start
        self.slots = 0

    def _task_key(self, g: int) -> tuple[int, int]:
        return (-self.red_left[g], g)

    # -- what policies read --------------------------------------------------------------------

    def reduce_ready(self, j: int) -> bool:
        """Job j's Map finished in an earlier slot, so its Reduce tasks may run now."""
        return self.map_left[j] == 0 and self.map_end[j] < self.t

    def reduce_schedulable(self, j: int) -> int:
        """Machines job j's Reduce can use this slot: its unfinished (preemptive) or unstarted
        (non-preemptive) Reduce tasks, one machine each; 0 while its Map is not done."""
        return len(self.tasks[j]) if self.reduce_ready(j) else 0

    def demand(self, j: int) -> tuple[int, int]:
        """(Map machines, Reduce machines) job j could use this slot; at most one is non-zero."""
        if self.map_left[j]:
            return self.map_left[j], 0
        return 0, self.reduce_schedulable(j)

    def reduce_remaining(self, j: int) -> int:
        """Reduce units job j has left, the running held tasks' remainders included."""
        return self.red_rem[j] + self._held_end_sum[j] - self.held[j] * self.t

    def remaining(self, j: int) -> int:
        """Map and Reduce units job j has left."""
        return self.map_left[j] + self.reduce_remaining(j)

    # -- the engine ------------------------------------------------------------------------------

    def _finish(self, j: int, at: int) -> None:
        self.done[j] = True
        self.completion[j] = at

    def _start_slot(self) -> None:
        t, n = self.t, len(self.order)
        finished = False
        heap = self._held_heap
        while heap and heap[0][0] <= t:
            end, j = heapq.heappop(heap)
            self.held[j] -= 1
            self._held_end_sum[j] -= end
            self.free += 1
            if self.held[j] == 0 and self.red_rem[j] == 0 and self.map_left[j] == 0:
                self._finish(j, end)
                finished = True
        if finished:
            self.active = [j for j in self.active if not self.done[j]]
        while self._admitted < n and self.arrival[self.order[self._admitted]] <= t:
            self.active.append(self.order[self._admitted])
            self._admitted += 1

    def _close_open(self, at: int, keep_map: Mapping, keep_red: Mapping) -> None:
        for j, (s, r) in self._open_map.items():
            if keep_map.get(j) != (s, r):
                self._pieces.append((j, MAP_TASK, s, at, r))
        for g, s in self._open_red.items():
            if g not in keep_red:
                j = self.red_job[g]
                self._pieces.append((j, g - self.offset[j], s, at, 1))

    def _apply(self, map_alloc: Mapping[int, int], red_alloc: Mapping[int, int]) -> None:
        t, free = self.t, self.free
        used = 0
        new_map: dict[int, tuple[int, int]] = {}
        new_red: dict[int, int] = {}
        touched = False
        for j, m in map_alloc.items():
            if m <= 0:
                continue
            if m > self.map_left[j] or self.done[j] or self.arrival[j] > t:
                raise RuntimeError(f"mapreduce policy bug: slot {t}, job {j}: {m} Map machines, "
                                   f"{self.map_left[j]} Map tasks left")
            used += m
            self.map_left[j] -= m
            prev = self._open_map.get(j)
            new_map[j] = prev if prev is not None and prev[1] == m else (t, m)
            if self.map_left[j] == 0:
                self.map_end[j] = t
                if self.red_rem[j] == 0:
                    self._finish(j, t + 1)
                    touched = True
        for j, r in red_alloc.items():
            if r <= 0:
                continue
            if r > self.reduce_schedulable(j):
                raise RuntimeError(f"mapreduce policy bug: slot {t}, job {j}: {r} Reduce machines, "
                                   f"{self.reduce_schedulable(j)} schedulable")
            used += r
            tasks = self.tasks[j]
            if self.preemptive:
                for g in tasks[:r]:
                    self.red_left[g] -= 1
                    new_red[g] = self._open_red.get(g, t)
                self.red_rem[j] -= r
                left = [g for g in tasks if self.red_left[g] > 0]
                if r < len(tasks):  # served tasks may now tie or trail the others: two sorted runs
                    left.sort(key=self._task_key)
                self.tasks[j] = left
                if self.red_rem[j] == 0:
                    self._finish(j, t + 1)
                    touched = True
            else:
                for g in tasks[:r]:
                    end = t + self.red_left[g]
                    self._pieces.append((j, g - self.offset[j], t, end, 1))
                    heapq.heappush(self._held_heap, (end, j))
                    self.red_rem[j] -= self.red_left[g]
                    self._held_end_sum[j] += end
                    self.red_left[g] = 0
                self.held[j] += r
                self.free -= r
                self.tasks[j] = tasks[r:]
        if used > free:
            raise RuntimeError(f"mapreduce policy bug: slot {t}: {used} machines allocated, {free} free")
        self._close_open(t, new_map, new_red)
        self._open_map, self._open_red = new_map, new_red
        if touched:
            self.active = [j for j in self.active if not self.done[j]]

    def run(self, policy: Policy, name: str = "") -> Simulation:
        """Run *policy* slot by slot until every job is done (paper 001 §III); see :func:`simulate`."""
        n = len(self.order)
        while True:
            self._start_slot()
            if not self.active:
                self._close_open(self.t, {}, {})
                self._open_map, self._open_red = {}, {}
                if self._admitted == n:
                    break
                self.t = self.arrival[self.order[self._admitted]]
                continue
            self.slots += 1
            map_alloc, red_alloc = policy.allocate(self)
            self._apply(map_alloc, red_alloc)
            self.t += 1
        rows = np.array(self._pieces, dtype=np.int64).reshape(-1, 5)
        schedule = Schedule(rows[:, 0], rows[:, 1], np.full(len(rows), POOLED), rows[:, 2], rows[:, 3],
                            rows[:, 4], promises=() if self.preemptive else {"non_preemptive"},
                            meta={"algorithm": name, "preemptive": self.preemptive})
        return Simulation(schedule, self.completion.copy(), self.completion - self.instance.arrival, self.slots)


def simulate(instance: MapReduceInstance, policy: Policy, *, preemptive: bool = True, name: str = "") -> Simulation:
    """Run *policy* slot by slot on *instance* (paper 001 §III; eq. (1) if *preemptive*, else
    eq. (2)) and return the schedule (its meta names the algorithm *name*) and the flow time of
    every job. See the module docstring."""
    return SlotSimulator(instance, preemptive).run(policy, name)


def unit_reduce_tasks(instance: MapReduceInstance) -> MapReduceInstance:
    """The instance with every Reduce task of workload R cut into R unit tasks: paper 001's own
    preemptive model (§III Definition 1, eq. (1)), where a job's Reduce workload may run on as many
    machines at once as it has units left, expressed in the core model, where a Reduce task runs
    on at most one machine per slot. Arrivals, Map tasks and every job's total work are kept.
    More than :data:`MAX_UNIT_TASKS` unit tasks in all is an InstanceError."""
    units = int(instance.reduce_total.sum())
    if units > MAX_UNIT_TASKS:
        j = int(np.argmax(instance.reduce_total))
        raise InstanceError(f"job {j}: Reduce work {int(instance.reduce_total[j])} (in all {units} units) exceeds the "
                            f"limit of {MAX_UNIT_TASKS:.0e} unit Reduce tasks; each is a Python object")
    jobs = tuple(MapReduceJob(int(a), int(m), [1] * int(r))
                 for a, m, r in zip(instance.arrival, instance.map_work, instance.reduce_total))
    return MapReduceInstance(instance.machines, jobs, name=f"{instance.name} (unit Reduce tasks)".strip())


# --------------------------------------------------------------------------------------------
# The three models a mapreduce algorithm runs under
# --------------------------------------------------------------------------------------------

MODELS = {
    "paper-preemptive": "paper 001 Definition 1, eq. (1): preemptive, a job's Reduce work on any number of machines "
                        "per slot (the instance's Reduce tasks are unit tasks)",
    "preemptive-tasks": "preemptive Reduce tasks, each on at most one machine per slot (eq. (1) with the instance's "
                        "tasks kept; stricter than paper 001 Definition 1)",
    "non-preemptive": "paper 001 eq. (2): non-preemptive, each Reduce task on one machine from start to end",
}
"""The models every mapreduce algorithm takes as ``model=`` (the names of the ``asrpt``
reproduction's scenarios, its ``preemptive`` being ``paper-preemptive`` here), with the one-line
description a Result carries in ``info["model"]``."""

DEFAULT_MODEL = "preemptive-tasks"
"""The model when neither ``model`` nor ``preemptive`` is given: the only preemptive one that
every instance can be scheduled under (see :func:`resolve_model`)."""


def resolve_model(instance: MapReduceInstance, model: str | None = None,
                  preemptive: bool | None = None) -> tuple[str, bool]:
    """The model an algorithm runs under, from its ``model`` and ``preemptive`` parameters, and the
    simulator's ``preemptive`` flag for it; AlgorithmError for an unknown name, a contradiction, or
    ``paper-preemptive`` on an instance with a Reduce task of workload above 1.

    ``preemptive=True`` alone is ``preemptive-tasks``, ``preemptive=False`` ``non-preemptive``.
    Paper 001's eq. (1) lets a job's Reduce work run on as many machines as it has units left;
    a schedule's Reduce pieces belong to the instance's tasks, one machine each per slot (the
    verifier's rule, checked against the instance the user gave), so that model's schedules are
    schedules of the instance whose Reduce tasks are unit tasks (:func:`unit_reduce_tasks`), and
    ``paper-preemptive`` asks for that instance rather than changing the user's one unseen.
    """
    if model is None:
        name = DEFAULT_MODEL if preemptive is None or preemptive else "non-preemptive"
    elif model not in MODELS:
        hint = (" ('preemptive' is ambiguous: paper 001's eq. (1) is 'paper-preemptive', interruptible tasks on one "
                "machine each are 'preemptive-tasks')" if model == "preemptive" else "")
        raise AlgorithmError(f"model must be one of {', '.join(MODELS)}, got {model!r}{hint}")
    else:
        name = model
        if preemptive is not None and preemptive != (name != "non-preemptive"):
            raise AlgorithmError(f"model {name!r} contradicts preemptive={preemptive}: give model alone")
    if name == "paper-preemptive" and len(instance.reduce_work) and int(instance.reduce_work.max()) > 1:
        g = int(np.argmax(instance.reduce_work))
        j = int(instance.reduce_job[g])
        raise AlgorithmError(
            f"model 'paper-preemptive' (paper 001 eq. (1): a job's Reduce work on any number of machines) needs "
            f"an instance whose Reduce tasks are unit tasks, since each Reduce task of a schedule runs on one "
            f"machine per slot; job {j}: reduce_tasks[{g - int(instance.reduce_offset[j])}] = "
            f"{int(instance.reduce_work[g])}. Make that instance with `schedrelax convert unit-reduce INSTANCE -o "
            f"OUT` (or `convert swim ... --unit-reduce-tasks`; in Python unit_reduce_tasks(instance)), or run "
            f"this one under 'preemptive-tasks'")
    return name, name != "non-preemptive"


def model_description(instance: MapReduceInstance, model: str) -> str:
    """The one-line description of *model* (:data:`MODELS`) for a Result's ``info["model"]``; under
    ``preemptive-tasks`` an instance of unit Reduce tasks is also paper 001's eq. (1), and it says so."""
    text = MODELS[model]
    if model == "preemptive-tasks" and len(instance.reduce_work) and int(instance.reduce_work.max()) == 1:
        text += "; every Reduce task here is a unit task, so this is also paper 001's eq. (1)"
    return text
