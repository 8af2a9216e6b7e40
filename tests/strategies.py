"""Hypothesis strategies shared by the whole test suite.

Each ``*_instances`` strategy draws small, VALID instances of one family: sizes are small integers
or halves so that hand reasoning and exact MIPs stay possible, DAG edges always go from a lower to
a higher index (hence acyclic, and index order is a topological order), packing demands always fit
at least one machine of the task's placement set. ``malformed_instance_json`` draws documents that
every loader must reject with :class:`~schedrelax.errors.InstanceError`.

Usage: ``from tests.strategies import malleable_instances`` then ``@given(malleable_instances())``.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Sequence

from hypothesis import strategies as st

from schedrelax.instances import (
    Flow,
    MalleableInstance,
    MapReduceInstance,
    MapReduceJob,
    PackingInstance,
    PackingJob,
    PackingTask,
    RelatedInstance,
    RelatedJob,
)
from schedrelax.instances import costs

__all__ = [
    "dag_edges",
    "malformed_instance_json",
    "malleable_instances",
    "mapreduce_instances",
    "packing_instances",
    "related_instances",
    "small_sizes",
]


def small_sizes(max_value: float = 10.0) -> st.SearchStrategy[float]:
    """Positive multiples of 1/2 up to *max_value*: exact in binary, easy to add up by hand."""
    return st.integers(1, int(2 * max_value)).map(lambda k: k / 2)


def _releases(enabled: bool) -> st.SearchStrategy[float]:
    return st.integers(0, 5).map(float) if enabled else st.just(0.0)


def dag_edges(n: int, enabled: bool = True) -> st.SearchStrategy[list[list[int]]]:
    """Edges (a, b) with a < b over nodes 0..n-1, no duplicates: always acyclic."""
    pairs = [[a, b] for a in range(n) for b in range(a + 1, n)]
    if not enabled or not pairs:
        return st.just([])
    return st.lists(st.sampled_from(pairs), unique_by=tuple, max_size=len(pairs)).map(sorted)


# ------------------------------------------------------------------------------------ malleable

def _cost(kind: str, work: float) -> st.SearchStrategy[costs.CostFunction]:
    weight = st.integers(1, 6).map(lambda k: k / 2)
    deadline = st.integers(0, 20).map(float)
    if kind == "completion":
        return weight.map(costs.completion)
    if kind == "stretch":
        return st.just(costs.stretch(work))
    if kind in ("tardy", "tardiness", "lateness"):
        make = getattr(costs, kind)
        return st.builds(make, deadline, weight)
    if kind == "sla":
        return st.lists(st.integers(0, 20), min_size=1, max_size=3, unique=True).flatmap(
            lambda ds: st.lists(st.integers(1, 4).map(float), min_size=len(ds), max_size=len(ds)).map(
                lambda hs: costs.sla(sorted(float(d) for d in ds), hs)))
    if kind == "power":
        return st.builds(costs.power, st.sampled_from([1.0, 2.0, 3.0]), weight)
    raise ValueError(f"unknown cost kind {kind!r} (known: {', '.join(costs.COST_KINDS)})")


@st.composite
def _flow(draw, processors: int, max_jobs: int, dags: bool, minima: bool, releases: bool,
          cost_kinds: Sequence[str] | None) -> Flow:
    n = draw(st.integers(1, max_jobs))
    sizes = draw(st.lists(small_sizes(), min_size=n, max_size=n))
    maxima = draw(st.lists(st.integers(1, processors), min_size=n, max_size=n))
    mins = [draw(st.integers(0, d)) for d in maxima] if minima else None
    cost = draw(_cost(draw(st.sampled_from(list(cost_kinds))), float(sum(sizes)))) if cost_kinds else None
    return Flow(sizes=sizes, max_processors=maxima, min_processors=mins, edges=draw(dag_edges(n, dags)),
                release=draw(_releases(releases)), cost=cost)


@st.composite
def malleable_instances(draw, max_flows: int = 3, max_jobs: int = 4, max_processors: int = 6, dags: bool = True,
                        minima: bool = False, releases: bool = False, cost_kinds: Sequence[str] | None = None,
                        objective: str | Sequence[str] | None = None) -> MalleableInstance:
    """Small valid malleable instances.

    *max_jobs* is per flow. *minima*: draw min_processors in [0, max]; *releases*: integer flow
    releases in [0, 5]; *cost_kinds*: kinds (names of ``costs.COST_KINDS``) each flow's cost is
    drawn from, None for the default cost (completion time, weight 1); *objective*: None for the
    default ``"minisum"``, a name, or a sequence of names to draw from.
    """
    P = draw(st.integers(1, max_processors))
    flows = draw(st.lists(_flow(P, max_jobs, dags, minima, releases, cost_kinds), min_size=1, max_size=max_flows))
    if objective is None:
        obj = "minisum"
    elif isinstance(objective, str):
        obj = objective
    else:
        obj = draw(st.sampled_from(list(objective)))
    return MalleableInstance(processors=P, flows=tuple(flows), objective=obj)


# ------------------------------------------------------------------------------------ mapreduce

@st.composite
def mapreduce_instances(draw, max_jobs: int = 5, max_machines: int = 4, max_slots: int = 6, max_map: int = 4,
                        max_reduce_tasks: int = 3, max_reduce_work: int = 4) -> MapReduceInstance:
    """Small valid MapReduce instances: arrivals in slots 0..max_slots-1, every job with some work."""
    N = draw(st.integers(1, max_machines))
    n = draw(st.integers(1, max_jobs))
    jobs = []
    for _ in range(n):
        reduce_tasks = draw(st.lists(st.integers(1, max_reduce_work), max_size=max_reduce_tasks))
        map_tasks = draw(st.integers(0 if reduce_tasks else 1, max(max_map, 1)))
        jobs.append(MapReduceJob(arrival=draw(st.integers(0, max_slots - 1)), map_tasks=map_tasks,
                                 reduce_tasks=reduce_tasks))
    return MapReduceInstance(machines=N, jobs=tuple(jobs))


# -------------------------------------------------------------------------------------- packing

@st.composite
def packing_instances(draw, max_machines: int = 3, max_jobs: int = 4, max_tasks: int = 3,
                      releases: bool = False) -> PackingInstance:
    """Small valid packing instances: integer capacities 1..4, demands in halves that fit at least
    one machine of the placement set (possibly not all), processing times one per set or per
    machine."""
    M = draw(st.integers(1, max_machines))
    caps = draw(st.lists(st.integers(1, 4).map(float), min_size=M, max_size=M))
    jobs = []
    for _ in range(draw(st.integers(1, max_jobs))):
        tasks = []
        for _ in range(draw(st.integers(1, max_tasks))):
            place = draw(st.lists(st.integers(0, M - 1), min_size=1, max_size=M, unique=True))
            biggest = max(caps[m] for m in place)
            demand = draw(st.integers(1, int(2 * biggest)).map(lambda k: k / 2))
            if draw(st.booleans()):
                ptime = draw(small_sizes(5.0))
            else:
                ptime = draw(st.lists(small_sizes(5.0), min_size=len(place), max_size=len(place)))
            tasks.append(PackingTask(demand=demand, placement=place, processing_time=ptime))
        jobs.append(PackingJob(tasks=tuple(tasks), weight=draw(st.integers(1, 3).map(float)),
                               release=draw(_releases(releases))))
    return PackingInstance(capacities=caps, jobs=tuple(jobs))


# -------------------------------------------------------------------------------------- related

@st.composite
def related_instances(draw, max_machines: int = 3, max_jobs: int = 4, max_tasks: int = 3, dags: bool = True,
                      releases: bool = False) -> RelatedInstance:
    """Small valid related-machine instances: speeds in {0.5, 1, 2, 4} (exact divisions), integer
    task sizes 1..6, integer weights 1..3, job DAG edges from lower to higher index."""
    m = draw(st.integers(1, max_machines))
    speeds = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 4.0]), min_size=m, max_size=m))
    n = draw(st.integers(1, max_jobs))
    jobs = [
        RelatedJob(tasks=draw(st.lists(st.integers(1, 6).map(float), min_size=1, max_size=max_tasks)),
                   weight=draw(st.integers(1, 3).map(float)), release=draw(_releases(releases)))
        for _ in range(n)
    ]
    return RelatedInstance(speeds=speeds, jobs=tuple(jobs), edges=draw(dag_edges(n, dags)))


# ------------------------------------------------------------------------------------ malformed

_BAD_NUMBERS = [0, -1, math.nan, math.inf, -math.inf, "5", True, None]
"""Values no positive size may take (JSON has NaN/Infinity as extensions Python reads back)."""

_ENVELOPE_MUTATIONS = [
    ("drop family", lambda d: d.pop("family")),
    ("unknown family", lambda d: d.update(family="nope")),
    ("family not a string", lambda d: d.update(family=7)),
    ("drop schema_version", lambda d: d.pop("schema_version")),
    ("schema_version 99", lambda d: d.update(schema_version=99)),
    ("schema_version as string", lambda d: d.update(schema_version="1")),
    ("unknown top-level field", lambda d: d.update(extra=1)),
    ("name not a string", lambda d: d.update(name=5)),
]

_REQUIRED = {
    "malleable": ("processors", "flows", "sizes", "max_processors"),
    "mapreduce": ("machines", "jobs", "arrival", "map_tasks"),
    "packing": ("capacities", "jobs", "tasks"),
    "related": ("speeds", "jobs", "tasks"),
}


def _mutations(d: dict) -> list[tuple[str, object]]:
    """Every (label, mutate-in-place function) that certainly invalidates *d*, a valid to_dict()."""
    fam = d["family"]
    out = list(_ENVELOPE_MUTATIONS)
    top, items = _REQUIRED[fam][:2]
    out.append((f"drop {top}", lambda d: d.pop(top)))
    out.append((f"drop {items}", lambda d: d.pop(items)))
    out.append((f"empty {items}", lambda d: d.update({items: []})))
    out.append((f"{items} not a list", lambda d: d.update({items: {}})))
    for key in _REQUIRED[fam][2:]:
        out.append((f"{items}[0] drops {key}", lambda d, key=key: d[items][0].pop(key)))
    out.append((f"unknown field in {items}[0]", lambda d: d[items][0].update(extra=0)))
    for v in _BAD_NUMBERS:
        out.append((f"{top} = {v!r}", lambda d, v=v: d.update({top: v})))

    def set_at(path, v):
        def mutate(d):
            obj = d
            for p in path[:-1]:
                obj = obj[p]
            obj[path[-1]] = v
        return mutate

    if fam == "malleable":
        P = d["processors"]
        for f, fl in enumerate(d["flows"]):
            n = len(fl["sizes"])
            for i in range(n):
                for v in _BAD_NUMBERS:
                    out.append((f"flow {f} size {i} = {v!r}", set_at(["flows", f, "sizes", i], v)))
                for v in (0, P + 1, 1.5, "1", True, math.nan):
                    out.append((f"flow {f} max {i} = {v!r}", set_at(["flows", f, "max_processors", i], v)))
                mins = [0] * n
                mins[i] = fl["max_processors"][i] + 1
                out.append((f"flow {f} min {i} > max", set_at(["flows", f, "min_processors"], mins)))
                half = [0] * n
                half[i] = 0.5
                out.append((f"flow {f} min {i} not whole", set_at(["flows", f, "min_processors"], half)))
                out.append((f"flow {f} self-loop {i}", set_at(["flows", f, "edges"], [*fl.get("edges", []), [i, i]])))
            out.append((f"flow {f} edge to a missing job", set_at(["flows", f, "edges"], [[0, n]])))
            if n >= 2:
                out.append((f"flow {f} 2-cycle", set_at(["flows", f, "edges"], [[0, n - 1], [n - 1, 0]])))
            for v in (-1, math.nan, math.inf, "0", True):
                out.append((f"flow {f} release {v!r}", set_at(["flows", f, "release"], v)))
            out.append((f"flow {f} empty sizes", set_at(["flows", f, "sizes"], [])))
            out.append((f"flow {f} unknown cost kind", set_at(["flows", f, "cost"], {"kind": "nope"})))
            out.append((f"flow {f} negative cost weight",
                        set_at(["flows", f, "cost"], {"kind": "completion", "weight": -1})))
            out.append((f"flow {f} unknown cost key",
                        set_at(["flows", f, "cost"], {"kind": "completion", "extra": 1})))
            out.append((f"flow {f} max length", set_at(["flows", f, "max_processors"], [1] * (n + 1))))
        out.append(("unknown objective", lambda d: d.update(objective="nope")))
    elif fam == "mapreduce":
        for j, jd in enumerate(d["jobs"]):
            for v in (-1, 1.5, math.nan, math.inf, "0", True, None):
                out.append((f"job {j} arrival {v!r}", set_at(["jobs", j, "arrival"], v)))
                out.append((f"job {j} map_tasks {v!r}", set_at(["jobs", j, "map_tasks"], v)))
            for k in range(len(jd.get("reduce_tasks", []))):
                for v in [*_BAD_NUMBERS, 1.5]:
                    out.append((f"job {j} reduce {k} = {v!r}", set_at(["jobs", j, "reduce_tasks", k], v)))
            out.append((f"job {j} has no work",
                        set_at(["jobs", j], {"arrival": 0, "map_tasks": 0, "reduce_tasks": []})))
            out.append((f"job {j} reduce_tasks not a list", set_at(["jobs", j, "reduce_tasks"], 3)))
    elif fam == "packing":
        M = len(d["capacities"])
        for i in range(M):
            for v in _BAD_NUMBERS:
                out.append((f"capacity {i} = {v!r}", set_at(["capacities", i], v)))
        out.append(("no machines", lambda d: d.update(capacities=[])))
        for j, jd in enumerate(d["jobs"]):
            for v in (0, -1, math.nan, math.inf, "1", True):
                out.append((f"job {j} weight {v!r}", set_at(["jobs", j, "weight"], v)))
            for v in (-1, math.nan, math.inf, "0", True):
                out.append((f"job {j} release {v!r}", set_at(["jobs", j, "release"], v)))
            out.append((f"job {j} no tasks", set_at(["jobs", j, "tasks"], [])))
            for k, td in enumerate(jd["tasks"]):
                at = ["jobs", j, "tasks", k]
                for v in _BAD_NUMBERS:
                    out.append((f"job {j} task {k} demand {v!r}", set_at([*at, "demand"], v)))
                    out.append((f"job {j} task {k} time {v!r}", set_at([*at, "processing_time"], v)))
                place = td["placement"]
                out.append((f"job {j} task {k} too big", set_at([*at, "demand"], max(d["capacities"]) + 1)))
                out.append((f"job {j} task {k} empty placement",
                            set_at(at, {"demand": td["demand"], "placement": [], "processing_time": 1.0})))
                out.append((f"job {j} task {k} missing machine",
                            set_at(at, {"demand": td["demand"], "placement": [*place, M], "processing_time": 1.0})))
                out.append((f"job {j} task {k} machine twice",
                            set_at(at, {"demand": td["demand"], "placement": [*place, place[0]],
                                        "processing_time": 1.0})))
                out.append((f"job {j} task {k} time list length",
                            set_at([*at, "processing_time"], [1.0] * (len(place) + 1))))
                out.append((f"job {j} task {k} unknown field", set_at([*at, "extra"], 1)))
                out.append((f"job {j} task {k} drops demand",
                            lambda d, j=j, k=k: d["jobs"][j]["tasks"][k].pop("demand")))
    elif fam == "related":
        for i in range(len(d["speeds"])):
            for v in _BAD_NUMBERS:
                out.append((f"speed {i} = {v!r}", set_at(["speeds", i], v)))
        out.append(("no machines", lambda d: d.update(speeds=[])))
        n = len(d["jobs"])
        for j, jd in enumerate(d["jobs"]):
            for k in range(len(jd["tasks"])):
                for v in _BAD_NUMBERS:
                    out.append((f"job {j} task {k} size {v!r}", set_at(["jobs", j, "tasks", k], v)))
            for v in (-1, math.nan, math.inf, "1", True):  # weight 0 is allowed (paper 004)
                out.append((f"job {j} weight {v!r}", set_at(["jobs", j, "weight"], v)))
            for v in (-1, math.inf, "0", True):
                out.append((f"job {j} release {v!r}", set_at(["jobs", j, "release"], v)))
            out.append((f"job {j} no tasks", set_at(["jobs", j, "tasks"], [])))
            out.append((f"job {j} self-loop", lambda d, j=j: d.update(edges=[*d.get("edges", []), [j, j]])))
        out.append(("edge to a missing job", lambda d: d.update(edges=[[0, n]])))
        if n >= 2:
            out.append(("2-cycle", lambda d: d.update(edges=[[0, n - 1], [n - 1, 0]])))
    return out


_NOT_JSON = st.sampled_from(["", "not json", "{'family': 'malleable'}", "{", "[1, 2", "family: malleable"])
_NOT_AN_OBJECT = st.sampled_from(["[]", "1", "null", '"malleable"', "[{}]"])


@st.composite
def _mutated(draw) -> str:
    inst = draw(st.one_of(malleable_instances(max_flows=2, max_jobs=3), mapreduce_instances(max_jobs=3),
                          packing_instances(max_jobs=2, max_tasks=2), related_instances(max_jobs=3)))
    d = copy.deepcopy(inst.to_dict())
    _label, mutate = draw(st.sampled_from(_mutations(d)))
    mutate(d)
    return json.dumps(d)


@st.composite
def _truncated(draw) -> str:
    inst = draw(st.one_of(malleable_instances(max_flows=1), related_instances(max_jobs=2)))
    text = json.dumps(inst.to_dict())
    return text[: draw(st.integers(0, len(text) - 1))]


def malformed_instance_json() -> st.SearchStrategy[str]:
    """JSON documents (strings) every loader must reject with InstanceError: a valid instance's
    ``to_dict()`` with exactly one mutation that breaks a rule (see ``_mutations``), a truncated
    document, text that is not JSON, or JSON that is not an object."""
    return st.one_of(_mutated(), _truncated(), _NOT_JSON, _NOT_AN_OBJECT)


# ======================================================================================= fuzzing
#
# The ``fuzz_*`` strategies below draw instances for the generated-runs suite (tests/fuzz/): every
# feature of a family mixed in at once (releases, minima, every cost kind, reservations, ready
# times, DAGs, arrivals) and sizes spanning several decades (1e-2 .. 1e3 by default), so that
# round-off, tolerances scaled by magnitude and degenerate ties all get exercised. Unlike the
# strategies above they do not stay binary-exact: a mantissa in [1, 10) with two decimals times a
# power of ten. Every drawn instance is VALID (its constructor accepted it); whether an algorithm
# can take it is for the algorithm to say, with a typed error.

FUZZ_EXPONENTS = (-2, -1, 0, 1, 2, 3)
"""Powers of ten the fuzz strategies draw magnitudes from (one scale per instance, plus spread)."""


def wide_numbers(scale: float = 1.0, exponents: Sequence[int] = (-1, 0, 1)) -> st.SearchStrategy[float]:
    """Positive numbers ``m · 10^e · scale``: mantissa m in [1, 10) with two decimals, e drawn from
    *exponents*. Several decades in one instance; never 0."""
    return st.builds(lambda m, e: (m / 100.0) * 10.0 ** e * scale, st.integers(100, 999), st.sampled_from(list(exponents)))


def _instance_scale() -> st.SearchStrategy[float]:
    return st.sampled_from([10.0 ** e for e in FUZZ_EXPONENTS])


def _maybe_zero(strategy: st.SearchStrategy[float], enabled: bool) -> st.SearchStrategy[float]:
    """0 or a draw of *strategy* (0 about half the time), or always 0 when not *enabled*."""
    return st.one_of(st.just(0.0), strategy) if enabled else st.just(0.0)


def fuzz_cost(kind: str, work: float, scale: float) -> st.SearchStrategy[costs.CostFunction]:
    """A cost of *kind* (a name of ``costs.COST_KINDS``) whose deadlines are on the time scale
    *scale*, weights spanning 1e-1..1e1 (and 0 now and then: the zero function is allowed)."""
    weight = st.one_of(st.just(0.0), wide_numbers(1.0, (-1, 0, 1)), st.just(1.0))
    deadline = st.one_of(st.just(0.0), wide_numbers(scale, (-1, 0, 1)))
    if kind == "completion":
        return weight.map(costs.completion)
    if kind == "stretch":
        return st.just(costs.stretch(work))
    if kind in ("tardy", "tardiness", "lateness"):
        return st.builds(getattr(costs, kind), deadline, weight)
    if kind == "sla":
        return st.lists(deadline, min_size=1, max_size=3, unique=True).flatmap(
            lambda ds: st.lists(wide_numbers(1.0, (-1, 0, 1)), min_size=len(ds), max_size=len(ds)).map(
                lambda hs: costs.sla(sorted(ds), hs)))
    if kind == "power":
        return st.builds(costs.power, st.sampled_from([1.0, 1.5, 2.0, 3.0]), weight)
    raise ValueError(f"unknown cost kind {kind!r} (known: {', '.join(costs.COST_KINDS)})")


@st.composite
def fuzz_malleable_instances(draw, max_flows: int = 3, max_jobs: int = 3, max_processors: int = 6,
                             cost_kinds: Sequence[str] | None = None) -> MalleableInstance:
    """Malleable instances with everything mixed in: DAGs inside flows, FLEX minima (sometimes),
    releases (sometimes), one cost per flow drawn from *cost_kinds* (default: every kind of
    ``costs.COST_KINDS``), minisum or minimax, sizes over several decades around a drawn scale."""
    kinds = list(cost_kinds) if cost_kinds is not None else list(costs.COST_KINDS)
    P = draw(st.integers(1, max_processors))
    scale = draw(_instance_scale())
    minima = draw(st.booleans())
    releases = draw(st.booleans())
    flows = []
    for _ in range(draw(st.integers(1, max_flows))):
        n = draw(st.integers(1, max_jobs))
        # now and then a job 1e3-1e5 times smaller than the scale, beside ordinary ones. 1e-5 is the
        # smallest always above the resolution limit (_checks.RESOLUTION = 5e-10 of the horizon): at
        # worst (the defaults) 1e-5 / max_processors 6 against a release of 99.9 plus 9 sizes of 99.9 (scale 1),
        # 1.7e-9 of the horizon. 1e-7 was refused now and then (CI, stop 34); refusals are tested
        # in tests/fuzz/test_units.py and tests/online/test_simulate.py, not here.
        sizes = draw(st.lists(st.one_of(wide_numbers(scale), wide_numbers(scale, (-5, -4, -3))),
                              min_size=n, max_size=n))
        maxima = draw(st.lists(st.integers(1, P), min_size=n, max_size=n))
        mins = [draw(st.integers(0, d)) for d in maxima] if minima else None
        kind = draw(st.sampled_from(kinds))
        cost = draw(fuzz_cost(kind, float(sum(sizes)), scale))
        flows.append(Flow(sizes=sizes, max_processors=maxima, min_processors=mins, edges=draw(dag_edges(n)),
                          release=draw(_maybe_zero(wide_numbers(scale), releases)), cost=cost))
    return MalleableInstance(processors=P, flows=tuple(flows), objective=draw(st.sampled_from(list(costs.OBJECTIVES))))


@st.composite
def fuzz_mapreduce_instances(draw, max_jobs: int = 4, max_machines: int = 3, max_arrival: int = 6,
                             max_map: int = 4, max_reduce_tasks: int = 3) -> MapReduceInstance:
    """MapReduce instances with arrivals and Reduce workloads over two decades (1..99 units, slot
    counts stay integral by definition); jobs with no Map or no Reduce work mixed in."""
    N = draw(st.integers(1, max_machines))
    jobs = []
    for _ in range(draw(st.integers(1, max_jobs))):
        reduce_tasks = draw(st.lists(st.one_of(st.integers(1, 9), st.integers(10, 99)), max_size=max_reduce_tasks))
        map_tasks = draw(st.integers(0 if reduce_tasks else 1, max_map))
        jobs.append(MapReduceJob(arrival=draw(st.integers(0, max_arrival)), map_tasks=map_tasks,
                                 reduce_tasks=reduce_tasks))
    return MapReduceInstance(machines=N, jobs=tuple(jobs))


@st.composite
def fuzz_packing_instances(draw, max_machines: int = 3, max_jobs: int = 4, max_tasks: int = 3) -> PackingInstance:
    """Packing instances with releases and reservations (sometimes), capacities, demands and
    processing times over several decades. Every demand fits at least one machine of its
    placement set; reservations fit their machine at time 0 (the instance rules)."""
    M = draw(st.integers(1, max_machines))
    cap_scale = draw(st.sampled_from([0.01, 1.0, 100.0]))
    t_scale = draw(_instance_scale())
    caps = draw(st.lists(wide_numbers(cap_scale, (0, 1)), min_size=M, max_size=M))
    releases = draw(st.booleans())
    jobs = []
    for _ in range(draw(st.integers(1, max_jobs))):
        tasks = []
        for _ in range(draw(st.integers(1, max_tasks))):
            place = draw(st.lists(st.integers(0, M - 1), min_size=1, max_size=M, unique=True))
            biggest = max(caps[m] for m in place)
            demand = biggest * draw(st.sampled_from([1.0, 0.5, 0.01, 0.33, 0.999])) if draw(st.booleans()) \
                else biggest * draw(st.integers(1, 100)) / 100.0
            if draw(st.booleans()):
                ptime = draw(wide_numbers(t_scale))
            else:
                ptime = draw(st.lists(wide_numbers(t_scale), min_size=len(place), max_size=len(place)))
            tasks.append(PackingTask(demand=demand, placement=place, processing_time=ptime))
        jobs.append(PackingJob(tasks=tuple(tasks), weight=draw(wide_numbers(1.0, (-1, 0, 1))),
                               release=draw(_maybe_zero(wide_numbers(t_scale), releases))))
    reservations = []
    if draw(st.booleans()):
        for i in draw(st.lists(st.integers(0, M - 1), max_size=M, unique=True)):
            share = draw(st.sampled_from([0.1, 0.5, 0.99, 1.0]))
            reservations.append((i, caps[i] * share, draw(wide_numbers(t_scale))))
    return PackingInstance(capacities=caps, jobs=tuple(jobs), reservations=tuple(reservations))


@st.composite
def fuzz_related_instances(draw, max_machines: int = 3, max_jobs: int = 4, max_tasks: int = 3) -> RelatedInstance:
    """Related-machine instances with DAGs, releases and machine ready times (sometimes), speeds
    over three decades, task sizes over several, weights including 0 (paper 004 allows it)."""
    m = draw(st.integers(1, max_machines))
    scale = draw(_instance_scale())
    speeds = draw(st.lists(wide_numbers(1.0, (-1, 0, 1)), min_size=m, max_size=m))
    releases = draw(st.booleans())
    n = draw(st.integers(1, max_jobs))
    jobs = tuple(
        RelatedJob(tasks=draw(st.lists(wide_numbers(scale), min_size=1, max_size=max_tasks)),
                   weight=draw(st.one_of(st.just(0.0), wide_numbers(1.0, (-1, 0, 1)))),
                   release=draw(_maybe_zero(wide_numbers(scale), releases)))
        for _ in range(n)
    )
    ready = draw(st.lists(_maybe_zero(wide_numbers(scale), True), min_size=m, max_size=m)) if draw(st.booleans()) else None
    return RelatedInstance(speeds=speeds, jobs=jobs, edges=draw(dag_edges(n)), ready=ready)


FUZZ_STRATEGIES = {
    "malleable": fuzz_malleable_instances,
    "mapreduce": fuzz_mapreduce_instances,
    "packing": fuzz_packing_instances,
    "related": fuzz_related_instances,
}
"""Family name -> the fuzz strategy factory of that family."""


def fuzz_instances(families: Sequence[str] | None = None) -> st.SearchStrategy:
    """An instance of any family (default: all four) from the ``fuzz_*`` strategies."""
    names = list(families) if families is not None else sorted(FUZZ_STRATEGIES)
    return st.one_of(*(FUZZ_STRATEGIES[f]() for f in names))
