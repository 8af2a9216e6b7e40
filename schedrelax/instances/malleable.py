"""The malleable family: flows of jobs on P identical processors (paper 000 §1.1, paper 002 §2).

Each flow is a DAG of jobs. Job i has work (size) s_i > 0 and runs on any whole number of
processors between its minimum (FLEX's minima, paper 002 §3.1; 0 by default) and its maximum
δ_i ∈ [1, P], with linear speedup. A flow may not start before its release time, and carries a
non-decreasing cost function of its completion time (the latest completion of its jobs); the
instance's objective is the sum (minisum) or the maximum (minimax) of the flows' costs.

Paper 002's jobs are single-job flows: build them with :func:`single_job_flows`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedrelax.errors import InstanceError
from schedrelax.instances import _checks as ck
from schedrelax.instances.base import Instance
from schedrelax.instances.costs import OBJECTIVES, CostFunction, completion, cost_from_dict


@dataclass(frozen=True, eq=False)
class Flow:
    """One flow: its jobs' sizes and processor bounds, the DAG over them, release and cost.

    ``edges`` are ``(a, b)`` pairs of job indices within the flow: job a completes before b starts.
    """

    sizes: Sequence[float]
    max_processors: Sequence[int]
    min_processors: Sequence[int] | None = None
    edges: Sequence[Sequence[int]] = ()
    release: float = 0.0
    cost: CostFunction | None = None

    def __post_init__(self) -> None:
        if self.cost is None:
            object.__setattr__(self, "cost", completion())

    @property
    def work(self) -> float:
        """Total work of the flow, Σ s_i."""
        return float(np.sum(self.sizes))


@dataclass(frozen=True, eq=False)
class MalleableInstance(Instance):
    """P identical processors and a tuple of flows; see the module docstring.

    Derived, read-only arrays over all jobs (global job index = position in the flows'
    concatenation): ``job_flow``, ``size``, ``max_procs``, ``min_procs``, ``edges`` (global
    indices), ``flow_release``, ``flow_offset`` (job range of flow f is
    ``flow_offset[f]:flow_offset[f+1]``).
    """

    family = "malleable"

    processors: int
    flows: tuple[Flow, ...]
    objective: str = "minisum"
    name: str = ""

    job_flow: np.ndarray = field(init=False, repr=False)
    size: np.ndarray = field(init=False, repr=False)
    max_procs: np.ndarray = field(init=False, repr=False)
    min_procs: np.ndarray = field(init=False, repr=False)
    edges: np.ndarray = field(init=False, repr=False)
    flow_release: np.ndarray = field(init=False, repr=False)
    flow_offset: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        P = ck.check_scalar(self.processors, "processors", "instance", positive=True, integral=True)
        object.__setattr__(self, "processors", P)
        flows = tuple(self.flows)
        if not flows:
            raise InstanceError("instance: flows must not be empty")
        for f, flow in enumerate(flows):
            if not isinstance(flow, Flow):
                raise InstanceError(f"flow {f}: expected a Flow, got {type(flow).__name__}")
            # Converted here rather than in Flow so that errors can name the flow.
            sizes = ck.as_array(flow.sizes, "sizes", f"flow {f}")
            mins = np.zeros(len(sizes)) if flow.min_processors is None else flow.min_processors
            object.__setattr__(flow, "sizes", sizes)
            object.__setattr__(flow, "max_processors", ck.as_array(flow.max_processors, "max_processors", f"flow {f}"))
            object.__setattr__(flow, "min_processors", ck.as_array(mins, "min_processors", f"flow {f}"))
        object.__setattr__(self, "flows", flows)
        if self.objective not in OBJECTIVES:
            raise InstanceError(f"instance: objective must be one of {', '.join(OBJECTIVES)}, got {self.objective!r}")

        all_edges = []
        for f, flow in enumerate(flows):
            where = f"flow {f}"
            n = len(flow.sizes)
            if n == 0:
                raise InstanceError(f"{where}: sizes must not be empty (a flow has at least one job)")
            for fld in ("max_processors", "min_processors"):
                if len(getattr(flow, fld)) != n:
                    raise InstanceError(
                        f"{where}: {fld} has {len(getattr(flow, fld))} entries but sizes has {n}"
                    )
            at = lambda i, where=where: f"{where}, job {i}"  # noqa: E731
            ck.check_array(flow.sizes, "size", at, positive=True)
            ck.check_array(flow.max_processors, "max_processors", at, integral=True, low=1, high=P,
                           high_name=f"P={P}")
            ck.check_array(flow.min_processors, "min_processors", at, integral=True, low=0)
            above = flow.min_processors > flow.max_processors
            if above.any():
                i = int(np.flatnonzero(above)[0])
                raise InstanceError(
                    f"{where}, job {i}: min_processors must be <= max_processors "
                    f"({int(flow.max_processors[i])}), got {int(flow.min_processors[i])}"
                )
            ck.check_scalar(flow.release, "release", where, minimum=0)
            if not isinstance(flow.cost, CostFunction):
                raise InstanceError(f"{where}: cost must be a CostFunction, got {type(flow.cost).__name__}")
            local = ck.check_edges(flow.edges, n, "edges", where, names=[f"job {i}" for i in range(n)])
            object.__setattr__(flow, "edges", local)  # validated, read-only: the instance stays as checked
            all_edges.append(local)

        counts = np.array([len(fl.sizes) for fl in flows])
        offset = ck.offsets(counts)
        sets = object.__setattr__
        sets(self, "flow_offset", ck.readonly(offset))
        sets(self, "job_flow", ck.readonly(np.repeat(np.arange(len(flows)), counts)))
        sets(self, "size", ck.readonly(np.concatenate([fl.sizes for fl in flows])))
        sets(self, "max_procs", ck.readonly(np.concatenate([fl.max_processors for fl in flows]).astype(np.int64)))
        sets(self, "min_procs", ck.readonly(np.concatenate([fl.min_processors for fl in flows]).astype(np.int64)))
        glob = np.concatenate([e + offset[f] for f, e in enumerate(all_edges)]) if all_edges else np.zeros((0, 2))
        sets(self, "edges", ck.readonly(glob.reshape(-1, 2).astype(np.int64)))
        sets(self, "flow_release", ck.readonly(np.array([float(fl.release) for fl in flows])))
        with np.errstate(over="ignore"):
            work = float(np.sum(self.size))
        ck.check_resolution(float(np.max(self.flow_release)), work, float(np.min(self.size / self.max_procs)),
                            "the latest release plus all work on one processor",
                            "the shortest job (size / max_processors)")

    @property
    def n_flows(self) -> int:
        return len(self.flows)

    def rescaled(self, time_factor: float, cost_factor: float = 1.0) -> MalleableInstance:
        """The same instance with every time multiplied by *time_factor* (sizes, releases, cost
        deadlines) and every cost by *cost_factor* (:meth:`CostFunction.rescaled`): a schedule of
        it, its times divided by *time_factor*, is one of this instance, of cost divided by
        *cost_factor*. Exact when both are powers of 2 (a power cost's f^p aside); the exact
        engine solves in the instance's own units that way."""
        f = float(time_factor)
        flows = tuple(Flow(sizes=np.asarray(fl.sizes, dtype=float) * f, max_processors=fl.max_processors,
                           min_processors=fl.min_processors, edges=fl.edges, release=fl.release * f,
                           cost=fl.cost.rescaled(f, cost_factor)) for fl in self.flows)
        return MalleableInstance(processors=self.processors, flows=flows, objective=self.objective, name=self.name)

    def shifted(self, origin: float) -> tuple[MalleableInstance, float]:
        """``(g, k)``: the same instance with its time origin moved to *origin* (at most every
        release): releases minus *origin*, each flow's cost re-based
        (:meth:`CostFunction.shifted`). A schedule of g, its times plus *origin*, is one of this
        instance, of cost k more (minisum). Releases and deadlines at most 2 × *origin* move
        exactly (Sterbenz); later ones by a rounding each. Raises ValueError for a minimax
        instance (each flow's constant would differ) or a cost that cannot be re-based (a power
        cost), and for an *origin* past a release."""
        o = float(origin)
        if self.objective != "minisum":
            raise ValueError(f"shifted: a {self.objective} instance cannot be re-based by one constant")
        if not 0.0 <= o <= float(np.min(self.flow_release, initial=np.inf)):
            raise ValueError(f"shifted: origin {o!r} must be in [0, the earliest release]")
        flows, k = [], 0.0
        for fl in self.flows:
            cost, constant = fl.cost.shifted(o)
            k += constant
            flows.append(Flow(sizes=fl.sizes, max_processors=fl.max_processors, min_processors=fl.min_processors,
                              edges=fl.edges, release=fl.release - o, cost=cost))
        return MalleableInstance(processors=self.processors, flows=tuple(flows), objective=self.objective,
                                 name=self.name), k

    @property
    def n_jobs(self) -> int:
        return len(self.size)

    @property
    def job_release(self) -> np.ndarray:
        """Release time of each job: that of its flow."""
        return self.flow_release[self.job_flow]

    def flow_work(self) -> np.ndarray:
        """Σ s_i per flow."""
        return np.add.reduceat(self.size, self.flow_offset[:-1])

    def _body(self) -> dict[str, Any]:
        flows = []
        for fl in self.flows:
            d: dict[str, Any] = {
                "sizes": fl.sizes.tolist(),
                "max_processors": [int(v) for v in fl.max_processors],
            }
            if np.any(fl.min_processors):
                d["min_processors"] = [int(v) for v in fl.min_processors]
            if len(fl.edges):
                d["edges"] = np.asarray(fl.edges, dtype=int).tolist()
            if fl.release:
                d["release"] = float(fl.release)
            d["cost"] = fl.cost.to_dict()
            flows.append(d)
        return {"processors": self.processors, "objective": self.objective, "flows": flows}

    @classmethod
    def _from_body(cls, data: Mapping[str, Any], name: str) -> MalleableInstance:
        ck.check_keys(data, ("processors", "flows"), ("objective",), "instance")
        flows = []
        for f, fd in enumerate(ck.check_list(data["flows"], "flows", "instance")):
            where = f"flow {f}"
            ck.check_keys(fd, ("sizes", "max_processors"), ("min_processors", "edges", "release", "cost"), where)
            cost = cost_from_dict(fd["cost"], where=where) if "cost" in fd else None
            flows.append(Flow(
                sizes=fd["sizes"],
                max_processors=fd["max_processors"],
                min_processors=fd["min_processors"] if "min_processors" in fd else None,
                edges=fd.get("edges", ()),
                release=fd.get("release", 0.0),
                cost=cost,
            ))
        return cls(processors=data["processors"], flows=tuple(flows),
                   objective=data.get("objective", "minisum"), name=name)


def single_job_flows(processors: int, sizes: Sequence[float], max_processors: Sequence[int],
                     min_processors: Sequence[int] | None = None, *, costs: Sequence[CostFunction] | None = None,
                     release: Sequence[float] | None = None, objective: str = "minisum",
                     name: str = "") -> MalleableInstance:
    """The FLEX setting (paper 002): every job is a flow of its own."""
    n = len(sizes)
    mins = [0] * n if min_processors is None else list(min_processors)
    costs = [completion()] * n if costs is None else list(costs)
    release = [0.0] * n if release is None else list(release)
    for fld, seq in (("max_processors", max_processors), ("min_processors", mins), ("costs", costs),
                     ("release", release)):
        if len(seq) != n:
            raise InstanceError(f"instance: {fld} has {len(seq)} entries but sizes has {n}")
    flows = tuple(
        Flow(sizes=[sizes[i]], max_processors=[max_processors[i]], min_processors=[mins[i]],
             release=release[i], cost=costs[i])
        for i in range(n)
    )
    return MalleableInstance(processors=processors, flows=flows, objective=objective, name=name)
