"""The related-machines family of paper 004 §II: machine speeds, parallel tasks, a job DAG.

Machine i has speed v_i > 0; task t of job j has data size p_{j,t} > 0 and takes p_{j,t}/v_i on
machine i, without preemption, one task per machine at a time. The tasks of a job may run in
parallel; a job completes when its last task does. Job j has weight w_j ≥ 0 (paper 004 §I: nonnegative) and release time
r_j ≥ 0; an edge (j1, j2) of the precedence DAG means no task of j2 starts before every task of
j1 has completed. The objective is Σ w_j C_j.

Ready times (the online layer's "machines as they are", not in paper 004): machine i may start
no task before ``ready[i]`` (0 by default), because work committed earlier still runs on it.

Unlike the paper we do not require tasks sorted by size or machines by speed: the derived
quantities that depend on order (μ_j, D_j) sort for themselves.
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
class RelatedJob:
    """A job: the data sizes of its parallel tasks, its weight and release time."""

    tasks: Sequence[float]
    weight: float = 1.0
    release: float = 0.0


@dataclass(frozen=True, eq=False)
class RelatedInstance(Instance):
    """Machine speeds, jobs of parallel tasks, and a precedence DAG over jobs.

    Derived arrays: ``weights``, ``release``, ``task_job``, ``task_size`` (global task index in job
    order), ``job_offset``, ``edges`` ((E, 2) job indices), and the paper's quantities ``p``
    (total size per job), ``mu`` (total speed), ``mu_j`` (speed of the q_j = min(t_j, m) fastest
    machines) and ``D`` (task-skewness product min_j p_j / max_t p_{j,t}). ``ready`` is each
    machine's ready time (zeros when not given).
    """

    family = "related"

    speeds: Sequence[float]
    jobs: tuple[RelatedJob, ...]
    edges: Any = ()
    name: str = ""
    ready: Sequence[float] | None = None

    weights: np.ndarray = field(init=False, repr=False)
    release: np.ndarray = field(init=False, repr=False)
    task_job: np.ndarray = field(init=False, repr=False)
    task_size: np.ndarray = field(init=False, repr=False)
    job_offset: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        speeds = ck.as_array(self.speeds, "speeds", "instance")
        if len(speeds) == 0:
            raise InstanceError("instance: speeds must not be empty (at least one machine)")
        ck.check_array(speeds, "speed", lambda i: f"machine {i}", positive=True)
        if self.ready is None:
            ready = np.zeros(len(speeds))
        else:
            ready = ck.as_array(self.ready, "ready", "instance")
            if len(ready) != len(speeds):
                raise InstanceError(f"instance: ready has {len(ready)} entries but speeds has {len(speeds)}")
            ck.check_array(ready, "ready", lambda i: f"machine {i}", nonnegative=True)
        object.__setattr__(self, "ready", ck.readonly(np.array(ready, dtype=float)))
        jobs = tuple(self.jobs)
        if not jobs:
            raise InstanceError("instance: jobs must not be empty")
        weights, release, sizes = [], [], []
        for j, job in enumerate(jobs):
            where = f"job {j}"
            if not isinstance(job, RelatedJob):
                raise InstanceError(f"{where}: expected a RelatedJob, got {type(job).__name__}")
            weights.append(ck.check_scalar(job.weight, "weight", where, minimum=0))
            release.append(ck.check_scalar(job.release, "release", where, minimum=0))
            s = ck.as_array(job.tasks, "tasks", where)
            if len(s) == 0:
                raise InstanceError(f"{where}: tasks must not be empty (a job has at least one task)")
            ck.check_array(s, "size", lambda k, where=where: f"{where}, task {k}", positive=True)
            object.__setattr__(job, "tasks", s)  # validated, read-only: the instance stays as checked
            sizes.append(s)
        edges = ck.check_edges(self.edges, len(jobs), "edges", "instance", names=[f"job {j}" for j in range(len(jobs))])
        counts = np.array([len(s) for s in sizes], dtype=np.int64)
        sets = object.__setattr__
        sets(self, "speeds", speeds)
        sets(self, "jobs", jobs)
        sets(self, "edges", edges)
        sets(self, "weights", ck.readonly(np.array(weights)))
        sets(self, "release", ck.readonly(np.array(release)))
        sets(self, "job_offset", ck.readonly(ck.offsets(counts)))
        sets(self, "task_job", ck.readonly(np.repeat(np.arange(len(jobs)), counts)))
        sets(self, "task_size", ck.readonly(np.concatenate(sizes)))
        with np.errstate(over="ignore"):
            work = float(np.sum(self.task_size / float(np.min(speeds))))
        ck.check_resolution(max(float(np.max(self.release)), float(np.max(self.ready, initial=0.0))), work,
                            float(np.min(self.task_size)) / float(np.max(speeds)),
                            "the latest release or ready time plus every task at the slowest speed",
                            "the shortest task (size / the fastest speed)")

    def rescaled(self, factor: float, origin: float = 0.0) -> RelatedInstance:
        """The same instance with the origin of time moved to *origin* (at most every release)
        and every time then multiplied by *factor*: sizes, releases and ready times (a ready time
        before *origin* becomes 0: no job is released before it anyway). A schedule of it, its
        times divided by *factor* plus *origin*, is one of this instance, of cost divided by
        *factor* plus *origin* · Σ w. Exact when *factor* is a power of 2 and *origin* 0; the
        exact engines solve in the instance's own unit that way, so their tolerances are
        relative to its durations and its origin."""
        if not origin <= float(np.min(self.release)):
            raise InstanceError(f"rescaled: origin {origin!r} is after the earliest release {np.min(self.release)!r}")
        jobs = tuple(RelatedJob(tasks=np.asarray(job.tasks) * factor, weight=job.weight,
                                release=(job.release - origin) * factor) for job in self.jobs)
        return RelatedInstance(speeds=self.speeds, jobs=jobs, edges=self.edges, name=self.name,
                               ready=np.maximum(np.asarray(self.ready) - origin, 0.0) * factor)

    @property
    def n_jobs(self) -> int:
        return len(self.jobs)

    @property
    def n_machines(self) -> int:
        return len(self.speeds)

    @property
    def n_tasks(self) -> int:
        return len(self.task_size)

    @property
    def p(self) -> np.ndarray:
        """Total data size p_j of each job."""
        return np.add.reduceat(self.task_size, self.job_offset[:-1])

    @property
    def mu(self) -> float:
        """μ, the total speed of all machines."""
        return float(np.sum(self.speeds))

    @property
    def mu_j(self) -> np.ndarray:
        """μ_j, the total speed of the q_j = min(t_j, m) fastest machines (paper 004 §II)."""
        fastest = np.concatenate([[0.0], np.cumsum(np.sort(self.speeds)[::-1])])
        q = np.minimum(np.diff(self.job_offset), self.n_machines)
        return fastest[q]

    @property
    def D(self) -> float:
        """The task-skewness product D = min_j p_j / max_t p_{j,t} (paper 004 §II)."""
        biggest = np.maximum.reduceat(self.task_size, self.job_offset[:-1])
        return float(np.min(self.p / biggest))

    def _body(self) -> dict[str, Any]:
        jobs = []
        for j, job in enumerate(self.jobs):
            d: dict[str, Any] = {"tasks": np.asarray(job.tasks, dtype=float).tolist(),
                                 "weight": float(self.weights[j])}
            if self.release[j]:
                d["release"] = float(self.release[j])
            jobs.append(d)
        out: dict[str, Any] = {"speeds": self.speeds.tolist(), "jobs": jobs}
        if len(self.edges):
            out["edges"] = self.edges.tolist()
        if self.ready.any():
            out["ready"] = self.ready.tolist()
        return out

    @classmethod
    def _from_body(cls, data: Mapping[str, Any], name: str) -> RelatedInstance:
        ck.check_keys(data, ("speeds", "jobs"), ("edges", "ready"), "instance")
        jobs = []
        for j, jd in enumerate(ck.check_list(data["jobs"], "jobs", "instance")):
            ck.check_keys(jd, ("tasks",), ("weight", "release"), f"job {j}")
            jobs.append(RelatedJob(tasks=ck.check_list(jd["tasks"], "tasks", f"job {j}", nonempty=False),
                                   weight=jd.get("weight", 1.0), release=jd.get("release", 0.0)))
        return cls(speeds=ck.check_list(data["speeds"], "speeds", "instance"), jobs=tuple(jobs),
                   edges=data.get("edges", ()), name=name, ready=data.get("ready"))
