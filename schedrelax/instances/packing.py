"""The packing family of paper 003 §2: capacitated machines, jobs of tasks, placement sets.

Machine i has capacity m_i > 0. Job j has weight w_j > 0, a release time r_j ≥ 0 (0 in the
offline problem) and a set of tasks; task (k, j) needs a_kj > 0 of the resource for as long as it
runs, may run only on the machines of its placement set M_kj, and takes p_kj^i > 0 time units on
machine i ∈ M_kj. A job completes when its last task does (synchronisation, eq. 1).

A task may list a machine too small for it (the Google-trace setups allow every machine with a
remote penalty); such a machine can simply never run it, and ``verify`` rejects a schedule that
tries. A task larger than *every* machine of its placement set can never run: that is an error.

Compressed placement (for clusters of thousands of machines): besides its explicit (machine,
time) pairs a task may carry an *elsewhere* rule, ``elsewhere_time`` e: every machine that is not
in its explicit list and whose capacity is at least its demand runs it in time e. The task's
placement set is then the explicit list followed by those machines in index order
(:meth:`PackingInstance.expand_placement` writes that out); a machine too small for the task is
never covered by the rule. Machines of equal capacity without reservations are interchangeable
for every task that names none of them explicitly; they form the instance's machine *classes*
(``machine_class``, ``class_capacity``, ``class_offset``/``class_member``).

Reservations (the online layer's "machines as they are", not in paper 003): a reservation
(machine i, demand a, until u) holds a of machine i's capacity over [0, u) — the room a task
committed earlier, and still running at the re-planning time 0, keeps. Every schedule of the
instance must fit in what is left; ``verify`` counts reserved demand in its capacity sweep.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedrelax.errors import InstanceError
from schedrelax.instances import _checks as ck
from schedrelax.instances.base import Instance


@dataclass(frozen=True, eq=False)
class PackingTask:
    """A task: its resource demand, its explicit placement list, and its processing time on each
    machine of the list (one number for all of them, or one per machine, in the list's order);
    ``elsewhere_time`` (optional) is its time on every other machine that fits its demand (see
    the module docstring). The list may be empty only when ``elsewhere_time`` is given."""

    demand: float
    placement: Sequence[int]
    processing_time: float | Sequence[float]
    elsewhere_time: float | None = None


@dataclass(frozen=True, eq=False)
class PackingJob:
    """A job: its tasks, weight and release time."""

    tasks: Sequence[PackingTask]
    weight: float = 1.0
    release: float = 0.0


@dataclass(frozen=True)
class Reservation:
    """Capacity ``demand`` of ``machine`` in use over [0, ``until``) by work outside the instance."""

    machine: int
    demand: float
    until: float


RESERVATION_TOL = 1e-6
"""Relative slack of the check that reservations fit their machine (the verifier's tolerance)."""


def _check_reservations(raw: Any, caps: np.ndarray) -> tuple[tuple[Reservation, ...], np.ndarray, np.ndarray,
                                                             np.ndarray]:
    """Validated reservations and their (machine, demand, until) arrays."""
    if isinstance(raw, (str, bytes)) or not hasattr(raw, "__iter__"):
        raise InstanceError(f"instance: reservations must be a list of (machine, demand, until), got {raw!r:.80}")
    out = []
    M = len(caps)
    for r, item in enumerate(raw):
        where = f"reservation {r}"
        if isinstance(item, Reservation):
            values = (item.machine, item.demand, item.until)
        elif isinstance(item, Mapping):
            ck.check_keys(item, ("machine", "demand", "until"), (), where)
            values = (item["machine"], item["demand"], item["until"])
        elif isinstance(item, (list, tuple)) and len(item) == 3:
            values = tuple(item)
        else:
            raise InstanceError(f"{where}: expected (machine, demand, until), got {item!r:.80}")
        machine = ck.check_scalar(values[0], "machine", where, integral=True, minimum=0)
        if machine >= M:
            raise InstanceError(f"{where}: machine must be in [0, {M - 1}], got {machine}")
        demand = ck.check_scalar(values[1], "demand", where, positive=True)
        until = ck.check_scalar(values[2], "until", where, positive=True)
        out.append(Reservation(machine, demand, until))
    machine = np.array([r.machine for r in out], dtype=np.int64)
    demand = np.array([r.demand for r in out], dtype=float)
    until = np.array([r.until for r in out], dtype=float)
    # Every reservation holds its room at time 0, so their sum per machine is the peak.
    held = np.bincount(machine, weights=demand, minlength=M)
    # Relative to the capacity, as schedrelax.schedules.verify compares levels: an instance this
    # check accepts must be one that verify can accept a schedule for.
    over = held > caps * (1.0 + RESERVATION_TOL)
    if over.any():
        i = int(np.flatnonzero(over)[0])
        raise InstanceError(f"machine {i}: reservations hold {held[i]:g} of the resource at time 0, more than its "
                            f"capacity {caps[i]:g}")
    return tuple(out), ck.readonly(machine), ck.readonly(demand), ck.readonly(until)


def _machine_classes(caps: np.ndarray, reserved: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(machine_class, class_capacity, class_offset, class_member): machines of equal capacity and
    no reservation share a class, a machine with reservations is a class of its own; classes are
    numbered by their lowest member, members listed in index order."""
    M = len(caps)
    key = np.empty(M, dtype=np.int64)
    _, cap_rank = np.unique(caps, return_inverse=True)
    key[:] = cap_rank
    # Reserved machines get keys past every capacity rank: one class each.
    key[reserved] = cap_rank.max() + 1 + np.flatnonzero(reserved)
    _, first, label = np.unique(key, return_index=True, return_inverse=True)
    renumber = np.empty(len(first), dtype=np.int64)
    renumber[np.argsort(first, kind="stable")] = np.arange(len(first))
    machine_class = renumber[label.ravel()]
    member = np.argsort(machine_class, kind="stable")
    offset = ck.offsets(np.bincount(machine_class, minlength=len(first)))
    return machine_class, caps[member[offset[:-1]]], offset, member


def _set_machine_classes(instance: PackingInstance, caps: np.ndarray, reserved_machines: np.ndarray) -> None:
    """Set *instance*'s machine classes (:func:`_machine_classes`; a machine listed in
    *reserved_machines* is a class of its own); shared by both constructors."""
    reserved = np.zeros(len(caps), dtype=bool)
    reserved[reserved_machines] = True
    for name, value in zip(("machine_class", "class_capacity", "class_offset", "class_member"),
                           _machine_classes(caps, reserved)):
        object.__setattr__(instance, name, ck.readonly(value))


@dataclass(frozen=True, eq=False)
class PackingInstance(Instance):
    """Machines with capacities and a tuple of jobs; see the module docstring.

    Derived arrays (global task index t in job order): ``task_job``, ``demand``, ``weights``,
    ``release``, ``job_offset`` (tasks of job j are ``job_offset[j]:job_offset[j+1]``).

    Placement, compressed: the explicit (task, machine) pairs of task t are
    ``explicit_machine[explicit_offset[t]:explicit_offset[t+1]]`` with times ``explicit_time[...]``
    (``explicit_task`` repeats t); ``elsewhere_time[t]`` is the task's time on every other machine
    of capacity >= its demand, +inf where the task has no such rule or no such machine exists
    (``elsewhere_count[t]`` machines are covered). Machine classes: ``machine_class``,
    ``class_capacity``, members of class c ``class_member[class_offset[c]:class_offset[c+1]]``.

    Placement, written out: ``place_offset``, ``place_task``, ``place_machine``, ``place_time``
    hold every allowed pair (the explicit ones, then the elsewhere machines in index order). On an
    instance without elsewhere rules they are the explicit arrays; otherwise they are built on
    first use, tasks × machines in size: code meant for large clusters reads the compressed form.

    ``reservations`` (optional, see the module docstring) as arrays: ``reserve_machine``,
    ``reserve_demand``, ``reserve_until``.
    """

    family = "packing"

    capacities: Sequence[float]
    jobs: tuple[PackingJob, ...]
    name: str = ""
    reservations: Sequence[Reservation] = ()

    reserve_machine: np.ndarray = field(init=False, repr=False)
    reserve_demand: np.ndarray = field(init=False, repr=False)
    reserve_until: np.ndarray = field(init=False, repr=False)
    weights: np.ndarray = field(init=False, repr=False)
    release: np.ndarray = field(init=False, repr=False)
    task_job: np.ndarray = field(init=False, repr=False)
    demand: np.ndarray = field(init=False, repr=False)
    job_offset: np.ndarray = field(init=False, repr=False)
    explicit_offset: np.ndarray = field(init=False, repr=False)
    explicit_task: np.ndarray = field(init=False, repr=False)
    explicit_machine: np.ndarray = field(init=False, repr=False)
    explicit_time: np.ndarray = field(init=False, repr=False)
    elsewhere_time: np.ndarray = field(init=False, repr=False)
    elsewhere_count: np.ndarray = field(init=False, repr=False)
    machine_class: np.ndarray = field(init=False, repr=False)
    class_capacity: np.ndarray = field(init=False, repr=False)
    class_offset: np.ndarray = field(init=False, repr=False)
    class_member: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        caps = ck.as_array(self.capacities, "capacities", "instance")
        if len(caps) == 0:
            raise InstanceError("instance: capacities must not be empty (at least one machine)")
        ck.check_array(caps, "capacity", lambda i: f"machine {i}", positive=True)
        object.__setattr__(self, "capacities", caps)
        M = len(caps)
        sorted_caps = np.sort(caps)
        res, rm, rd, ru = _check_reservations(self.reservations, caps)
        object.__setattr__(self, "reservations", res)
        object.__setattr__(self, "reserve_machine", rm)
        object.__setattr__(self, "reserve_demand", rd)
        object.__setattr__(self, "reserve_until", ru)
        jobs = tuple(self.jobs)
        if not jobs:
            raise InstanceError("instance: jobs must not be empty")
        weights, release, counts = [], [], []
        demand, machines, times, nplace, elsewhere, else_count = [], [], [], [], [], []
        for j, job in enumerate(jobs):
            where = f"job {j}"
            if not isinstance(job, PackingJob):
                raise InstanceError(f"{where}: expected a PackingJob, got {type(job).__name__}")
            weights.append(ck.check_scalar(job.weight, "weight", where, positive=True))
            release.append(ck.check_scalar(job.release, "release", where, minimum=0))
            tasks = tuple(job.tasks)
            if not tasks:
                raise InstanceError(f"{where}: tasks must not be empty (a job has at least one task)")
            object.__setattr__(job, "tasks", tasks)
            counts.append(len(tasks))
            for k, task in enumerate(tasks):
                tw = f"job {j}, task {k}"
                if not isinstance(task, PackingTask):
                    raise InstanceError(f"{tw}: expected a PackingTask, got {type(task).__name__}")
                a = ck.check_scalar(task.demand, "demand", tw, positive=True)
                rule = task.elsewhere_time
                if rule is not None:
                    rule = ck.check_scalar(rule, "elsewhere_time", tw, positive=True)
                place = ck.as_array(task.placement, "placement", tw)
                if len(place) == 0 and rule is None:
                    raise InstanceError(f"{tw}: placement must not be empty (the task could run nowhere) unless "
                                        f"elsewhere_time is given")
                ck.check_array(place, "placement", lambda q, tw=tw: f"{tw}, placement[{q}]", integral=True,
                               low=0, high=M - 1)
                place = ck.readonly(place.astype(np.int64))
                if len(np.unique(place)) != len(place):
                    raise InstanceError(f"{tw}: placement lists a machine twice: {place.tolist()}")
                p = task.processing_time
                # np.ndim would raise numpy's own ValueError on a ragged list: ask the type instead.
                if not isinstance(p, (list, tuple, np.ndarray)):
                    ck.check_scalar(p, "processing_time", tw, positive=True)
                    p = np.full(len(place), float(p))
                else:
                    p = ck.as_array(p, "processing_time", tw)
                    if len(p) != len(place):
                        raise InstanceError(
                            f"{tw}: processing_time has {len(p)} entries but placement has {len(place)}"
                        )
                    ck.check_array(p, "processing_time", lambda q, tw=tw, place=place: f"{tw}, machine {place[q]}",
                                   positive=True)
                # Machines the rule covers: all that fit the demand, less the explicit ones that do.
                covered = 0
                if rule is not None:
                    covered = M - int(np.searchsorted(sorted_caps, a, side="left")) - int(np.sum(caps[place] >= a))
                if (a > caps[place]).all() and covered == 0:
                    raise InstanceError(
                        f"{tw}: demand {a:g} is larger than every machine it may use "
                        f"(capacities {caps[place].tolist()} of machines {place.tolist()}"
                        + (f", and elsewhere_time {rule:g} covers no other machine: the largest capacity is "
                           f"{sorted_caps[-1]:g})" if rule is not None else ")")
                    )
                object.__setattr__(task, "placement", place)
                object.__setattr__(task, "processing_time", ck.readonly(np.asarray(p, dtype=float)))
                object.__setattr__(task, "elsewhere_time", rule)
                demand.append(a)
                machines.append(place)
                times.append(np.asarray(p, dtype=float))
                nplace.append(len(place))
                elsewhere.append(rule if covered else np.inf)
                else_count.append(covered)
        sets = object.__setattr__
        sets(self, "jobs", jobs)
        sets(self, "weights", ck.readonly(np.array(weights)))
        sets(self, "release", ck.readonly(np.array(release)))
        counts = np.array(counts, dtype=np.int64)
        sets(self, "job_offset", ck.readonly(ck.offsets(counts)))
        sets(self, "task_job", ck.readonly(np.repeat(np.arange(len(jobs)), counts)))
        sets(self, "demand", ck.readonly(np.array(demand)))
        nplace = np.array(nplace, dtype=np.int64)
        sets(self, "explicit_offset", ck.readonly(ck.offsets(nplace)))
        sets(self, "explicit_task", ck.readonly(np.repeat(np.arange(len(demand)), nplace)))
        sets(self, "explicit_machine", ck.readonly(np.concatenate(machines).astype(np.int64)))
        sets(self, "explicit_time", ck.readonly(np.concatenate(times)))
        sets(self, "elsewhere_time", ck.readonly(np.array(elsewhere, dtype=float)))
        sets(self, "elsewhere_count", ck.readonly(np.array(else_count, dtype=np.int64)))
        _set_machine_classes(self, caps, rm)
        longest = np.where(np.isfinite(self.elsewhere_time), self.elsewhere_time, 0.0)
        if len(self.explicit_time):
            np.maximum.at(longest, self.explicit_task, self.explicit_time)
        with np.errstate(over="ignore"):
            work = float(np.sum(longest))
        shortest = min(float(np.min(self.explicit_time, initial=np.inf)), float(np.min(self.elsewhere_time)))
        ck.check_resolution(max(float(np.max(self.release)), float(np.max(self.reserve_until, initial=0.0))), work,
                            shortest, "the latest release or reservation end plus every task's longest processing "
                            "time", "the shortest processing time")

    @classmethod
    def _from_validated(cls, capacities: np.ndarray, *, weights: np.ndarray, release: np.ndarray,
                        job_offset: np.ndarray, demand: np.ndarray, place_offset: np.ndarray,
                        place_machine: np.ndarray, place_time: np.ndarray, reserve_machine: np.ndarray,
                        reserve_demand: np.ndarray, reserve_until: np.ndarray, name: str = "") -> PackingInstance:
        """A TRUSTED internal constructor (for the online layer's sub-instances):
        the instance the public constructor would build from the same values, given as arrays,
        without the per-task Python validation of ``__post_init__`` — which is most of the cost of
        a re-plan's sub-instance, built from an instance already validated.

        Explicit placement only (no elsewhere rule): the pairs of task t are
        ``place_machine[place_offset[t]:place_offset[t+1]]`` with times ``place_time[...]``. The
        caller guarantees what ``__post_init__`` would check: ``capacities`` a validated
        instance's; at least one job, each with at least one task and a weight > 0 and finite
        release >= 0; demands > 0, finite; placement sets non-empty, without repeats, in range,
        each with a machine that fits the demand; processing times > 0, finite; reservations on
        valid machines with demand > 0 and until > 0. Two cheap whole-array checks remain (the
        reservations fit their machines; the horizon), with the public constructor's errors.
        The jobs and tasks are built as the public constructor leaves them (Python floats, read-only
        arrays, tuples), so the instance equals, field by field, ``PackingInstance(capacities,
        jobs, name, reservations)`` (tests/online/test_trusted_instance.py). Not for user input.
        """
        self = object.__new__(cls)
        sets = object.__setattr__
        caps = capacities
        M = len(caps)
        place_offset = ck.readonly(np.asarray(place_offset, dtype=np.int64))
        place_machine = ck.readonly(np.asarray(place_machine, dtype=np.int64))
        place_time = ck.readonly(np.asarray(place_time, dtype=float))
        weights = ck.readonly(np.asarray(weights, dtype=float))
        release = ck.readonly(np.asarray(release, dtype=float))
        job_offset = ck.readonly(np.asarray(job_offset, dtype=np.int64))
        demand = ck.readonly(np.asarray(demand, dtype=float))
        rm = ck.readonly(np.asarray(reserve_machine, dtype=np.int64))
        rd = ck.readonly(np.asarray(reserve_demand, dtype=float))
        ru = ck.readonly(np.asarray(reserve_until, dtype=float))
        held = np.bincount(rm, weights=rd, minlength=M)
        over = held > caps * (1.0 + RESERVATION_TOL)
        if over.any():
            i = int(np.flatnonzero(over)[0])
            raise InstanceError(f"machine {i}: reservations hold {held[i]:g} of the resource at time 0, more than "
                                f"its capacity {caps[i]:g}")
        n_jobs, n_tasks = len(weights), len(demand)
        po, dl = place_offset.tolist(), demand.tolist()
        tasks = [PackingTask(dl[t], place_machine[po[t]:po[t + 1]], place_time[po[t]:po[t + 1]])
                 for t in range(n_tasks)]
        jo, wl, rl = job_offset.tolist(), weights.tolist(), release.tolist()
        jobs = tuple(PackingJob(tuple(tasks[jo[j]:jo[j + 1]]), wl[j], rl[j]) for j in range(n_jobs))
        sets(self, "capacities", caps)
        sets(self, "jobs", jobs)
        sets(self, "name", name)
        sets(self, "reservations", tuple(Reservation(m, a, u) for m, a, u in zip(rm.tolist(), rd.tolist(),
                                                                                   ru.tolist())))
        sets(self, "reserve_machine", rm)
        sets(self, "reserve_demand", rd)
        sets(self, "reserve_until", ru)
        sets(self, "weights", weights)
        sets(self, "release", release)
        sets(self, "job_offset", job_offset)
        sets(self, "task_job", ck.readonly(np.repeat(np.arange(n_jobs), np.diff(job_offset))))
        sets(self, "demand", demand)
        sets(self, "explicit_offset", place_offset)
        sets(self, "explicit_task", ck.readonly(np.repeat(np.arange(n_tasks), np.diff(place_offset))))
        sets(self, "explicit_machine", place_machine)
        sets(self, "explicit_time", place_time)
        sets(self, "elsewhere_time", ck.readonly(np.full(n_tasks, np.inf)))
        sets(self, "elsewhere_count", ck.readonly(np.zeros(n_tasks, dtype=np.int64)))
        _set_machine_classes(self, caps, rm)
        with np.errstate(over="ignore"):
            work = float(np.sum(np.maximum.reduceat(place_time, po[:-1]))) if n_tasks else 0.0
        ck.check_resolution(max(float(np.max(release)), float(np.max(ru, initial=0.0))), work,
                            float(np.min(place_time, initial=np.inf)), "the latest release or reservation end plus "
                            "every task's longest processing time", "the shortest processing time")
        return self

    @property
    def n_jobs(self) -> int:
        return len(self.jobs)

    @property
    def n_tasks(self) -> int:
        return len(self.demand)

    @property
    def n_machines(self) -> int:
        return len(self.capacities)

    @property
    def n_classes(self) -> int:
        return len(self.class_capacity)

    @property
    def compressed(self) -> bool:
        """Whether some task has an elsewhere rule that covers at least one machine."""
        return bool(np.isfinite(self.elsewhere_time).any())

    def elsewhere_machines(self, t: int) -> np.ndarray:
        """The machines task *t*'s elsewhere rule covers, in index order (empty without one)."""
        if not np.isfinite(self.elsewhere_time[t]):
            return np.zeros(0, dtype=np.int64)
        ok = self.capacities >= self.demand[t]
        ok[self.explicit_machine[self.explicit_offset[t]:self.explicit_offset[t + 1]]] = False
        return np.flatnonzero(ok)

    def time_on(self, t: int, i: int) -> float:
        """Task *t*'s processing time on machine *i*: its explicit time there, else its elsewhere
        time if the rule covers *i*; +inf if *i* is not in its placement set."""
        sl = slice(self.explicit_offset[t], self.explicit_offset[t + 1])
        hit = np.flatnonzero(self.explicit_machine[sl] == i)
        if len(hit):
            return float(self.explicit_time[sl][hit[0]])
        if self.capacities[i] >= self.demand[t]:
            return float(self.elsewhere_time[t])
        return float("inf")

    def _expanded(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        cached = self.__dict__.get("_expanded_arrays")
        if cached is not None:
            return cached
        if not self.compressed:
            out = (self.explicit_offset, self.explicit_task, self.explicit_machine, self.explicit_time)
        else:
            counts = np.diff(self.explicit_offset) + self.elsewhere_count
            machines, times = [], []
            for t in range(self.n_tasks):
                sl = slice(self.explicit_offset[t], self.explicit_offset[t + 1])
                extra = self.elsewhere_machines(t)
                machines += [self.explicit_machine[sl], extra]
                times += [self.explicit_time[sl], np.full(len(extra), self.elsewhere_time[t])]
            out = (ck.readonly(ck.offsets(counts)), ck.readonly(np.repeat(np.arange(self.n_tasks), counts)),
                   ck.readonly(np.concatenate(machines)), ck.readonly(np.concatenate(times)))
        self.__dict__["_expanded_arrays"] = out
        return out

    @property
    def place_offset(self) -> np.ndarray:
        """Pairs of task t are ``place_offset[t]:place_offset[t+1]`` of the written-out placement."""
        return self._expanded()[0]

    @property
    def place_task(self) -> np.ndarray:
        """The task of each written-out placement pair."""
        return self._expanded()[1]

    @property
    def place_machine(self) -> np.ndarray:
        """The machine of each written-out placement pair."""
        return self._expanded()[2]

    @property
    def place_time(self) -> np.ndarray:
        """The processing time of each written-out placement pair."""
        return self._expanded()[3]

    def expand_placement(self) -> PackingInstance:
        """The same instance with every placement written out as an explicit list (no elsewhere
        rule): the explicit machines, then those the rule covers in index order. Its size grows
        as tasks × machines; *self* if no task has an elsewhere rule."""
        if not self.compressed:
            return self
        off, _, mach, ptime = self._expanded()
        jobs = []
        for j, job in enumerate(self.jobs):
            tasks = [PackingTask(demand=float(self.demand[t]), placement=mach[off[t]:off[t + 1]],
                                 processing_time=ptime[off[t]:off[t + 1]])
                     for t in range(self.job_offset[j], self.job_offset[j + 1])]
            jobs.append(PackingJob(tasks=tuple(tasks), weight=job.weight, release=job.release))
        return PackingInstance(capacities=self.capacities, jobs=tuple(jobs), name=self.name,
                               reservations=self.reservations)

    def reserved_at(self, t: float) -> np.ndarray:
        """Capacity held by reservations on each machine at time *t* (0 once they all end)."""
        on = self.reserve_until > t
        return np.bincount(self.reserve_machine[on], weights=self.reserve_demand[on],
                           minlength=self.n_machines).astype(float)

    def reservation_ends(self) -> np.ndarray:
        """The distinct times at which some reservation ends, sorted."""
        return np.unique(self.reserve_until)

    def processing_matrix(self) -> np.ndarray:
        """Dense (tasks × machines) processing times, +inf where a machine is not in the task's
        placement set. Memory grows as tasks × machines: for small instances and tests."""
        out = np.full((self.n_tasks, self.n_machines), np.inf)
        out[self.place_task, self.place_machine] = self.place_time
        return out

    def _body(self) -> dict[str, Any]:
        jobs = []
        for j, job in enumerate(self.jobs):
            tasks = []
            for t, task in zip(range(self.job_offset[j], self.job_offset[j + 1]), job.tasks):
                sl = slice(self.explicit_offset[t], self.explicit_offset[t + 1])
                times = self.explicit_time[sl]
                ptime: Any = times.tolist() if len(times) and (times != times[0]).any() else (
                    float(times[0]) if len(times) else [])
                td: dict[str, Any] = {"demand": float(self.demand[t]), "placement": self.explicit_machine[sl].tolist(),
                                      "processing_time": ptime}
                if task.elsewhere_time is not None:
                    td["elsewhere_time"] = float(task.elsewhere_time)
                tasks.append(td)
            d: dict[str, Any] = {"tasks": tasks, "weight": float(self.weights[j])}
            if self.release[j]:
                d["release"] = float(self.release[j])
            jobs.append(d)
        out: dict[str, Any] = {"capacities": self.capacities.tolist(), "jobs": jobs}
        if self.reservations:
            out["reservations"] = [{"machine": r.machine, "demand": r.demand, "until": r.until}
                                   for r in self.reservations]
        return out

    @classmethod
    def _from_body(cls, data: Mapping[str, Any], name: str) -> PackingInstance:
        ck.check_keys(data, ("capacities", "jobs"), ("reservations",), "instance")
        jobs = []
        for j, jd in enumerate(ck.check_list(data["jobs"], "jobs", "instance")):
            ck.check_keys(jd, ("tasks",), ("weight", "release"), f"job {j}")
            tasks = []
            for k, td in enumerate(ck.check_list(jd["tasks"], "tasks", f"job {j}")):
                ck.check_keys(td, ("demand", "placement", "processing_time"), ("elsewhere_time",),
                              f"job {j}, task {k}")
                if "elsewhere_time" in td and td["elsewhere_time"] is None:
                    raise InstanceError(f"job {j}, task {k}: elsewhere_time must be a number, got None (omit the key "
                                        f"for a task without an elsewhere rule)")
                tasks.append(PackingTask(demand=td["demand"], placement=td["placement"],
                                         processing_time=td["processing_time"],
                                         elsewhere_time=td.get("elsewhere_time")))
            jobs.append(PackingJob(tasks=tuple(tasks), weight=jd.get("weight", 1.0), release=jd.get("release", 0.0)))
        reservations = ck.check_list(data.get("reservations", []), "reservations", "instance", nonempty=False)
        return cls(capacities=ck.check_list(data["capacities"], "capacities", "instance"), jobs=tuple(jobs),
                   name=name, reservations=reservations)
