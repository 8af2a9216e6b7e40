"""The MapReduce policies of paper 001 on the shared slotted engine: ASRPT (Algorithm 1), DSRPT
(§VI-B), and the baselines FIFO, Fair and LRPT of §VII-A.

Each is registered for the ``mapreduce`` family with a ``model`` parameter naming the model it
runs under (:data:`~schedrelax.schedulers.mapreduce_sim.MODELS`, the ``asrpt`` reproduction's
scenarios):

* ``paper-preemptive`` — paper 001's own preemptive model (Definition 1, eq. (1)): a job's Reduce
  work may run on as many machines at once as it has units left. A Reduce task of a schedule runs
  on one machine per slot, so this model takes an instance whose Reduce tasks are unit tasks
  (``schedrelax convert unit-reduce``, :func:`~schedrelax.schedulers.mapreduce_sim.unit_reduce_tasks`)
  and refuses any other with an error saying so;
* ``preemptive-tasks`` (the default) — the instance's tasks, interruptible, each on at most one
  machine per slot: stricter than eq. (1), so its optimum is no lower than eq. (1)'s;
* ``non-preemptive`` — eq. (2): a started Reduce task keeps its machine until it ends, and the
  schedule promises ``non_preemptive``.

The older ``preemptive`` flag still works: True is ``preemptive-tasks``, False ``non-preemptive``
(with ``model`` too, the two must agree). The Result records the model's name in
``params["model"]`` and its one-line description in ``info["model"]``. Every Result carries
``lower_bound`` = the SRPT bound of Lemma 1
(:func:`~schedrelax.schedulers.mapreduce_sim.srpt_lower_bound`), true under all three models; that
bound is not itself registered as an algorithm, because the SRPT schedule behind it is not a
feasible schedule of the instance. No policy carries a per-instance ``guarantee``: the paper's
factor 2 for ASRPT and DSRPT (Theorem 4, Corollary 2) is an efficiency ratio, a limit as T → ∞
with probability 1, not a bound on one instance.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from schedrelax.result import Result
from schedrelax.instances import MapReduceInstance
from schedrelax.schedulers.mapreduce_sim import (
    SlotSimulator,
    SRPTRelaxation,
    model_description,
    resolve_model,
    simulate,
    srpt_relaxation,
)

Allocation = tuple[dict[int, int], dict[int, int]]

_BOUND_NOTE = "lower_bound: SRPT on the relaxation eq. (12), paper 001 Lemma 1"
_BOUND_KIND = "SRPT bound (paper 001 Lemma 1, eq. (12))"


def _greedy(sim: SlotSimulator, jobs: list[int], reduce_allowed: Callable[[int], bool] | None = None) -> Allocation:
    """Each job in turn gets all the machines it can use this slot, while machines last; a job's
    Reduce work only where ``reduce_allowed(job)`` (default: everywhere)."""
    d = sim.free
    mp: dict[int, int] = {}
    rd: dict[int, int] = {}
    for j in jobs:
        if d == 0:
            break
        m, r = sim.demand(j)
        if m:
            mp[j] = g = min(m, d)
        elif r and (reduce_allowed is None or reduce_allowed(j)):
            rd[j] = g = min(r, d)
        else:
            continue
        d -= g
    return mp, rd


class FIFOPolicy:
    """Paper 001 §VII-A FIFO: jobs in arrival order (ties by index), each as many machines as it
    can use; a job whose Map ends in this slot gets no Reduce machines in it and blocks nobody."""

    def allocate(self, sim: SlotSimulator) -> Allocation:
        """Slot ``sim.t`` of FIFO (paper 001 §VII-A): the active jobs greedily, in arrival order."""
        return _greedy(sim, sim.active)


class LRPTPolicy:
    """Paper 001 §VII-A LRPT: the job with the most unfinished work (Map and Reduce) first (ties by
    arrival, index), each as many machines as it can use."""

    def allocate(self, sim: SlotSimulator) -> Allocation:
        """Slot ``sim.t`` of LRPT (paper 001 §VII-A): the active jobs greedily, most remaining work first."""
        rem, arr = sim.remaining, sim.arrival
        return _greedy(sim, sorted(sim.active, key=lambda j: (-rem(j), arr[j], j)))


def water_fill(base: np.ndarray, cap: np.ndarray, d: int) -> np.ndarray:
    """Max-min fair split of *d* whole machines: job k gets ``a_k ≤ cap_k`` on top of the ``base_k``
    it holds, maximising the smallest ``base_k + a_k`` among jobs still below their cap, and so on.

    The level L is the largest with Σ clip(L − base, 0, cap) ≤ d; the machines left after filling
    to L (fewer than the jobs that could rise to L + 1) go one each to the first such jobs in the
    given order. All of *d* is used unless every cap is met (work-conserving).
    """
    cap = np.asarray(cap, dtype=np.int64)
    if cap.sum() <= d:
        return cap.copy()
    base = np.asarray(base, dtype=np.int64)
    lo, hi = 0, int((base + cap).max())  # total(lo) = 0 <= d < cap.sum() = total(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if np.clip(mid - base, 0, cap).sum() <= d:
            lo = mid
        else:
            hi = mid
    alloc = np.clip(lo - base, 0, cap)
    rise = np.flatnonzero(np.clip(lo + 1 - base, 0, cap) > alloc)
    alloc[rise[: d - int(alloc.sum())]] += 1
    return alloc


class FairPolicy:
    """Paper 001 §VII-A Fair: the machines are shared equally among the waiting jobs, and a job that
    needs fewer than its share leaves the rest to the others (work-conserving).

    Max-min fair by :func:`water_fill` over each job's demand this slot (its Map tasks left, or
    its schedulable Reduce tasks). Without preemption the machines a job's running Reduce tasks
    hold count toward its share (they are the job's machines as much as new ones). Leftover single
    machines go to the earliest arrivals.
    """

    def allocate(self, sim: SlotSimulator) -> Allocation:
        """Slot ``sim.t`` of Fair (paper 001 §VII-A): max-min fair shares of the free machines."""
        jobs, maps, dem, base = [], [], [], []
        for j in sim.active:
            m, r = sim.demand(j)
            if m or r:
                jobs.append(j)
                maps.append(bool(m))
                dem.append(m or r)
                base.append(sim.held[j])
        if not jobs:
            return {}, {}
        alloc = water_fill(np.array(base), np.array(dem), sim.free).tolist()
        mp = {j: a for j, is_map, a in zip(jobs, maps, alloc) if is_map and a}
        rd = {j: a for j, is_map, a in zip(jobs, maps, alloc) if not is_map and a}
        return mp, rd


class _SRPTRows:
    """The virtual SRPT schedule of :func:`srpt_relaxation` as per-slot row lists."""

    def __init__(self, relax: SRPTRelaxation):
        self.span = relax.rows_by_slot()
        self.job = relax.job.tolist()
        self.map_units = relax.map_units.tolist()
        self.reduce_units = relax.reduce_units.tolist()

    def rows(self, t: int) -> range:
        a, b = self.span.get(t, (0, 0))
        return range(a, b)


class ASRPTPolicy:
    """Paper 001 §VI-A, Algorithm 1 (ASRPT), one slot.

    The list J is the active jobs in non-decreasing order of available workload (Map and Reduce
    units left while Map is unfinished, else Reduce units left — i.e. all the job's remaining
    work; ties by arrival, index), fixed for the slot (line 2). The running non-preemptive Reduce
    tasks keep their machines (lines 4-7: the engine has taken them out of ``sim.free``). Then
    three greedy passes over J (lines 8-52):

    1. the Map tasks the virtual SRPT schedule serves in this slot: min(S(i).MapLoad, Map tasks
       left, machines left);
    2. the available Reduce tasks of jobs whose Map ended in an earlier slot: as many as the job
       has schedulable tasks (unfinished ones when preemptive — the paper's "unfinished workload",
       capped at one machine per task by the model — unstarted ones when not);
    3. the Map tasks still left: as many as the job has.

    A job whose Map ends in pass 1 or 3 gets no Reduce machines in this slot (the dependency).
    """

    def __init__(self, relax: SRPTRelaxation):
        self.srpt = _SRPTRows(relax)

    def allocate(self, sim: SlotSimulator) -> Allocation:
        """Slot ``sim.t`` of ASRPT, paper 001 §VI-A Algorithm 1 lines 3-52 (see the class docstring)."""
        srpt = self.srpt
        load = {srpt.job[r]: srpt.map_units[r] for r in srpt.rows(sim.t) if srpt.map_units[r]}
        rem, arr = sim.remaining, sim.arrival
        J = sorted(sim.active, key=lambda j: (rem(j), arr[j], j))
        d = sim.free
        mp: dict[int, int] = {}
        rd: dict[int, int] = {}
        if load:
            for j in J:
                if d == 0:
                    break
                g = min(load.get(j, 0), sim.map_left[j], d)
                if g:
                    mp[j] = g
                    d -= g
        for j in J:
            if d == 0:
                break
            g = min(sim.reduce_schedulable(j), d)
            if g:
                rd[j] = g
                d -= g
        for j in J:
            if d == 0:
                break
            g = min(sim.map_left[j] - mp.get(j, 0), d)
            if g:
                mp[j] = mp.get(j, 0) + g
                d -= g
        return mp, rd


class DSRPTPolicy:
    """Paper 001 §VI-B DSRPT: SRPT's Map schedule, and SRPT's Reduce work one slot later, first come
    first served.

    Map: the Map units the virtual SRPT schedule serves in slot t are served in slot t. Reduce: the
    Reduce units SRPT serves in slot t − 1 join a FIFO queue at slot t, in SRPT's order; each slot
    the queue is served from its head with the machines Map leaves (N − M_t^S in the paper's
    proof). SRPT's dependency-free rows serve a job's Map before its Reduce, so a queued unit's
    Map is done.

    Our additions where the model is stricter than the paper's proof: a queue entry of job i gets
    at most the machines job i's tasks can still use this slot (one per task), and the rest of the
    capacity goes on down the queue. Without preemption (the paper defines DSRPT for the
    preemptive case only): running tasks keep their machines first, so Map may lag SRPT — the
    units owed are served as soon as machines free up, earliest-owed job first; a queue entry
    starts whole tasks, and the later slots of a started task pay off the job's next queue
    entries (a debit), so the queue still meters each job's Reduce work in SRPT's order.
    """

    def __init__(self, relax: SRPTRelaxation, n_jobs: int, preemptive: bool):
        self.srpt = _SRPTRows(relax)
        self.preemptive = preemptive
        self.owed_map: dict[int, int] = {}  # job -> SRPT's Map units not yet served (insertion order)
        self.queue: list[list[int]] = []  # [job, Reduce units] first come first served
        self.debit = [0] * n_jobs  # non-preemptive: units held tasks ran ahead of the job's entries

    def allocate(self, sim: SlotSimulator) -> Allocation:
        """Slot ``sim.t`` of DSRPT (paper 001 §VI-B): SRPT's Map units of this slot, then the delayed
        Reduce work first come first served."""
        srpt, t = self.srpt, sim.t
        for r in srpt.rows(t):
            if srpt.map_units[r]:
                j = srpt.job[r]
                self.owed_map[j] = self.owed_map.get(j, 0) + srpt.map_units[r]
        self.queue.extend([srpt.job[r], srpt.reduce_units[r]] for r in srpt.rows(t - 1) if srpt.reduce_units[r])
        if not self.preemptive:
            for j in sim.active:
                self.debit[j] += sim.held[j]  # each running task does one unit of its job this slot
        d = sim.free
        mp: dict[int, int] = {}
        for j in list(self.owed_map):
            if d == 0:
                break
            g = min(self.owed_map[j], d)
            mp[j] = g
            d -= g
            self.owed_map[j] -= g
            if not self.owed_map[j]:
                del self.owed_map[j]
        rd: dict[int, int] = {}
        for entry in self.queue:
            j, u = entry
            if self.debit[j]:
                x = min(u, self.debit[j])
                u -= x
                self.debit[j] -= x
            if u and d:
                g = min(u, sim.reduce_schedulable(j) - rd.get(j, 0), d)
                if g > 0:
                    rd[j] = rd.get(j, 0) + g
                    u -= g
                    d -= g
            entry[1] = u
        self.queue = [e for e in self.queue if e[1] and not sim.done[e[0]]]
        return mp, rd


# --------------------------------------------------------------------------------------------
# Registered algorithms
# --------------------------------------------------------------------------------------------

def _run(name: str, instance: MapReduceInstance, make_policy, model: str | None, preemptive: bool | None) -> Result:
    """Simulate the policy ``make_policy(relax, preemptive)`` under the model the parameters name
    (:func:`~schedrelax.schedulers.mapreduce_sim.resolve_model`); the Result records the model."""
    model, preemptive = resolve_model(instance, model, preemptive)
    relax = srpt_relaxation(instance)
    sim = simulate(instance, make_policy(relax, preemptive), preemptive=preemptive, name=name)
    return Result(algorithm=name, schedule=sim.schedule, lower_bound=relax.total, bound_kind=_BOUND_KIND,
                  params={"model": model, "preemptive": preemptive},
                  info={"model": model_description(instance, model), "slots_simulated": sim.slots, "note": _BOUND_NOTE})


def asrpt(instance: MapReduceInstance, *, solver: str | None = None, seed: int | None = None,
          model: str | None = None, preemptive: bool | None = None) -> Result:
    """ASRPT, paper 001 §VI-A Algorithm 1 (see :class:`ASRPTPolicy`); efficiency ratio 2 in the
    paper's preemptive scenario (Corollary 2, as T → ∞ w.p. 1). *model*: see the module docstring."""
    return _run("asrpt", instance, lambda relax, _: ASRPTPolicy(relax), model, preemptive)


def dsrpt(instance: MapReduceInstance, *, solver: str | None = None, seed: int | None = None,
          model: str | None = None, preemptive: bool | None = None) -> Result:
    """DSRPT, paper 001 §VI-B (see :class:`DSRPTPolicy`); efficiency ratio 2 in the paper's
    preemptive scenario (Theorem 4, as T → ∞ w.p. 1). *model*: see the module docstring."""
    return _run("dsrpt", instance, lambda relax, pre: DSRPTPolicy(relax, instance.n_jobs, pre), model, preemptive)


def fifo(instance: MapReduceInstance, *, solver: str | None = None, seed: int | None = None,
         model: str | None = None, preemptive: bool | None = None) -> Result:
    """FIFO, paper 001 §VII-A ("All the jobs are scheduled in their order of arrival"; the model is
    §III): see :class:`FIFOPolicy`. *model*: see the module docstring."""
    return _run("fifo", instance, lambda relax, _: FIFOPolicy(), model, preemptive)


def fair(instance: MapReduceInstance, *, solver: str | None = None, seed: int | None = None,
         model: str | None = None, preemptive: bool | None = None) -> Result:
    """The Fair scheduler of paper 001 §VII-A: see :class:`FairPolicy`. *model*: see the module docstring."""
    return _run("fair", instance, lambda relax, _: FairPolicy(), model, preemptive)


def lrpt(instance: MapReduceInstance, *, solver: str | None = None, seed: int | None = None,
         model: str | None = None, preemptive: bool | None = None) -> Result:
    """LRPT, paper 001 §VII-A ("Jobs with larger unfinished workload are always scheduled first"):
    see :class:`LRPTPolicy`. *model*: see the module docstring."""
    return _run("lrpt", instance, lambda relax, _: LRPTPolicy(), model, preemptive)
