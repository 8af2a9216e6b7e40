"""The MapReduce family of paper 001 §III: N machines, time slots, Map then Reduce.

Job i arrives at slot a_i (slots are numbered from 0; slot t is the time interval [t, t+1)). It
brings M_i unit Map tasks and K_i Reduce tasks with integer workloads R_i^(k) ≥ 1. A machine runs
one unit of workload per slot. Reduce work of job i may only run in slots after the slot in which
its last Map task ran. The flow time of job i is f_i^(r) − a_i + 1 where f_i^(r) is its last
Reduce slot, i.e. completion time (end of that slot) minus arrival.
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
class MapReduceJob:
    """One job: arrival slot, number of unit Map tasks, workloads of its Reduce tasks."""

    arrival: int
    map_tasks: int
    reduce_tasks: Sequence[int] = ()


@dataclass(frozen=True, eq=False)
class MapReduceInstance(Instance):
    """N machines and a tuple of MapReduce jobs; see the module docstring.

    Derived arrays: ``arrival`` (n,), ``map_work`` (n,), ``reduce_job`` and ``reduce_work`` over
    all Reduce tasks (global index), ``reduce_offset`` (tasks of job i are
    ``reduce_offset[i]:reduce_offset[i+1]``), ``reduce_total`` (n,) = R_i.
    """

    family = "mapreduce"

    machines: int
    jobs: tuple[MapReduceJob, ...]
    name: str = ""

    arrival: np.ndarray = field(init=False, repr=False)
    map_work: np.ndarray = field(init=False, repr=False)
    reduce_job: np.ndarray = field(init=False, repr=False)
    reduce_work: np.ndarray = field(init=False, repr=False)
    reduce_offset: np.ndarray = field(init=False, repr=False)
    reduce_total: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        N = ck.check_scalar(self.machines, "machines", "instance", positive=True, integral=True)
        object.__setattr__(self, "machines", N)
        jobs = tuple(self.jobs)
        if not jobs:
            raise InstanceError("instance: jobs must not be empty")
        arrival, maps, red = [], [], []
        for i, job in enumerate(jobs):
            where = f"job {i}"
            if not isinstance(job, MapReduceJob):
                raise InstanceError(f"{where}: expected a MapReduceJob, got {type(job).__name__}")
            arrival.append(ck.check_scalar(job.arrival, "arrival", where, integral=True, minimum=0))
            m = ck.check_scalar(job.map_tasks, "map_tasks", where, integral=True, minimum=0)
            maps.append(m)
            r = ck.as_array(job.reduce_tasks, "reduce_tasks", where)
            ck.check_array(r, "reduce_tasks", lambda k, where=where: f"{where}, reduce task {k}",
                           integral=True, low=1)
            work = m + sum(int(v) for v in r.tolist())  # Python ints: int64 sums could wrap around
            if work > ck.MAX_WHOLE:
                raise InstanceError(f"{where}: map_tasks plus the Reduce workloads must be at most "
                                    f"{ck.MAX_WHOLE:.0f} (exact in floating point), got {work}")
            if m == 0 and len(r) == 0:
                raise InstanceError(f"{where}: a job needs some work: map_tasks is 0 and reduce_tasks is empty")
            r = ck.readonly(r.astype(np.int64))
            object.__setattr__(job, "reduce_tasks", r)  # validated, read-only: the instance stays as checked
            red.append(r)
        counts = np.array([len(r) for r in red], dtype=np.int64)
        sets = object.__setattr__
        sets(self, "jobs", jobs)
        sets(self, "arrival", ck.readonly(np.array(arrival, dtype=np.int64)))
        sets(self, "map_work", ck.readonly(np.array(maps, dtype=np.int64)))
        sets(self, "reduce_offset", ck.readonly(ck.offsets(counts)))
        sets(self, "reduce_job", ck.readonly(np.repeat(np.arange(len(jobs)), counts)))
        flat = np.concatenate(red) if counts.sum() else np.zeros(0, dtype=np.int64)
        sets(self, "reduce_work", ck.readonly(flat.astype(np.int64)))
        total = np.zeros(len(jobs), dtype=np.int64)
        np.add.at(total, self.reduce_job, self.reduce_work)
        sets(self, "reduce_total", ck.readonly(total))

    @property
    def n_jobs(self) -> int:
        return len(self.jobs)

    @property
    def load(self) -> float:
        """Traffic intensity ρ = (arrival rate × mean work) / N over the arrival span (paper 001 §III)."""
        span = int(self.arrival.max()) + 1
        return float((self.map_work.sum() + self.reduce_total.sum()) / (span * self.machines))

    def _body(self) -> dict[str, Any]:
        return {
            "machines": self.machines,
            "jobs": [
                {"arrival": int(a), "map_tasks": int(m), "reduce_tasks": [int(v) for v in job.reduce_tasks]}
                for a, m, job in zip(self.arrival, self.map_work, self.jobs)
            ],
        }

    @classmethod
    def _from_body(cls, data: Mapping[str, Any], name: str) -> MapReduceInstance:
        ck.check_keys(data, ("machines", "jobs"), (), "instance")
        jobs = []
        for i, jd in enumerate(ck.check_list(data["jobs"], "jobs", "instance")):
            ck.check_keys(jd, ("arrival", "map_tasks"), ("reduce_tasks",), f"job {i}")
            jobs.append(MapReduceJob(arrival=jd["arrival"], map_tasks=jd["map_tasks"],
                                     reduce_tasks=ck.check_list(jd.get("reduce_tasks", []), "reduce_tasks",
                                                                f"job {i}", nonempty=False)))
        return cls(machines=data["machines"], jobs=tuple(jobs), name=name)
