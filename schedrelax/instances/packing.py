"""The packing family of paper 003 §2: capacitated machines, jobs of tasks, placement sets.

Machine i has capacity m_i > 0. Job j has weight w_j > 0, a release time r_j ≥ 0 (0 in the
offline problem) and a set of tasks; task (k, j) needs a_kj > 0 of the resource for as long as it
runs, may run only on the machines of its placement set M_kj, and takes p_kj^i > 0 time units on
machine i ∈ M_kj. A job completes when its last task does (synchronisation, eq. 1).

A task may list a machine too small for it (the Google-trace setups allow every machine with a
remote penalty); such a machine can simply never run it, and ``verify`` rejects a schedule that
tries. A task larger than *every* machine of its placement set can never run: that is an error.

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
    """A task: its resource demand, its placement set, and its processing time on each machine
    of the set (one number for all of them, or one per machine, in the set's order)."""

    demand: float
    placement: Sequence[int]
    processing_time: float | Sequence[float]


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


@dataclass(frozen=True, eq=False)
class PackingInstance(Instance):
    """Machines with capacities and a tuple of jobs; see the module docstring.

    Derived arrays (global task index t in job order): ``task_job``, ``demand``, ``weights``,
    ``release``, ``job_offset`` (tasks of job j are ``job_offset[j]:job_offset[j+1]``) and the
    placement as compressed rows: the allowed (task, machine) pairs of task t are
    ``place_machine[place_offset[t]:place_offset[t+1]]`` with times ``place_time[...]``;
    ``place_task`` repeats t for each of its pairs. ``reservations`` (optional, see the module
    docstring) as arrays: ``reserve_machine``, ``reserve_demand``, ``reserve_until``.
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
    place_offset: np.ndarray = field(init=False, repr=False)
    place_task: np.ndarray = field(init=False, repr=False)
    place_machine: np.ndarray = field(init=False, repr=False)
    place_time: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        caps = ck.as_array(self.capacities, "capacities", "instance")
        if len(caps) == 0:
            raise InstanceError("instance: capacities must not be empty (at least one machine)")
        ck.check_array(caps, "capacity", lambda i: f"machine {i}", positive=True)
        object.__setattr__(self, "capacities", caps)
        M = len(caps)
        res, rm, rd, ru = _check_reservations(self.reservations, caps)
        object.__setattr__(self, "reservations", res)
        object.__setattr__(self, "reserve_machine", rm)
        object.__setattr__(self, "reserve_demand", rd)
        object.__setattr__(self, "reserve_until", ru)
        jobs = tuple(self.jobs)
        if not jobs:
            raise InstanceError("instance: jobs must not be empty")
        weights, release, counts = [], [], []
        demand, machines, times, nplace = [], [], [], []
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
                place = ck.as_array(task.placement, "placement", tw)
                if len(place) == 0:
                    raise InstanceError(f"{tw}: placement must not be empty (the task could run nowhere)")
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
                if (a > caps[place]).all():
                    raise InstanceError(
                        f"{tw}: demand {a:g} is larger than every machine it may use "
                        f"(capacities {caps[place].tolist()} of machines {place.tolist()})"
                    )
                object.__setattr__(task, "placement", place)
                object.__setattr__(task, "processing_time", ck.readonly(np.asarray(p, dtype=float)))
                demand.append(a)
                machines.append(place)
                times.append(np.asarray(p, dtype=float))
                nplace.append(len(place))
        sets = object.__setattr__
        sets(self, "jobs", jobs)
        sets(self, "weights", ck.readonly(np.array(weights)))
        sets(self, "release", ck.readonly(np.array(release)))
        counts = np.array(counts, dtype=np.int64)
        sets(self, "job_offset", ck.readonly(ck.offsets(counts)))
        sets(self, "task_job", ck.readonly(np.repeat(np.arange(len(jobs)), counts)))
        sets(self, "demand", ck.readonly(np.array(demand)))
        nplace = np.array(nplace, dtype=np.int64)
        sets(self, "place_offset", ck.readonly(ck.offsets(nplace)))
        sets(self, "place_task", ck.readonly(np.repeat(np.arange(len(demand)), nplace)))
        sets(self, "place_machine", ck.readonly(np.concatenate(machines)))
        sets(self, "place_time", ck.readonly(np.concatenate(times)))
        with np.errstate(over="ignore"):
            longest = np.maximum.reduceat(self.place_time, self.place_offset[:-1])
            work = float(np.sum(longest))
        ck.check_horizon(max(float(np.max(self.release)), float(np.max(self.reserve_until, initial=0.0))), work,
                         "the latest release or reservation end plus every task's longest processing time")

    @property
    def n_jobs(self) -> int:
        return len(self.jobs)

    @property
    def n_tasks(self) -> int:
        return len(self.demand)

    @property
    def n_machines(self) -> int:
        return len(self.capacities)

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
            for t in range(self.job_offset[j], self.job_offset[j + 1]):
                sl = slice(self.place_offset[t], self.place_offset[t + 1])
                times = self.place_time[sl]
                ptime: Any = float(times[0]) if (times == times[0]).all() else times.tolist()
                tasks.append({"demand": float(self.demand[t]), "placement": self.place_machine[sl].tolist(),
                              "processing_time": ptime})
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
                ck.check_keys(td, ("demand", "placement", "processing_time"), (), f"job {j}, task {k}")
                tasks.append(PackingTask(demand=td["demand"], placement=td["placement"],
                                         processing_time=td["processing_time"]))
            jobs.append(PackingJob(tasks=tuple(tasks), weight=jd.get("weight", 1.0), release=jd.get("release", 0.0)))
        reservations = ck.check_list(data.get("reservations", []), "reservations", "instance", nonempty=False)
        return cls(capacities=ck.check_list(data["capacities"], "capacities", "instance"), jobs=tuple(jobs),
                   name=name, reservations=reservations)
