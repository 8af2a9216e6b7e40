"""The unit-invariance property of issue 31, shared by tests/fuzz/test_units.py and
benchmarks/fuzz_units.py.

One instance is written at unit scale (times of about 1 to 10), then again with every duration
multiplied by ``10**k`` and every release (and ready time, arrival) multiplied by it and shifted
by an offset. Every registered algorithm of the family runs on each copy through
:func:`tests.fuzz.runs.check_run` (verified against the instance, objective recomputed, bounds
checked, hang guard). The copy must then give, per algorithm, the same outcome as the unit copy
(a Result or a typed refusal), the same ``status`` and the same optimal verdict, and an objective
proportional to the unit copy's: ``s · objective + offset · Σ w`` (packing, related, malleable
with completion costs), unchanged for MapReduce (flow times). A copy the loader refuses (its
durations below the resolution of its times) is one refusal for all its runs, never a failure.

The exact ``mip`` is compared on its verdict only when neither run stopped at its time limit
(how far a solver gets in a given time is not a property of the instance).
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Any

from schedrelax import algorithms
from schedrelax.errors import InstanceError
from schedrelax.instances.base import from_dict
from tests.fuzz.runs import HANG_SECONDS, MIP_SECONDS, check_run

SCALES = tuple(10.0 ** k for k in range(-9, 7))
"""The units tried: 10^k for k from -9 to 6."""

OFFSETS = (0.0, 1.0, 1e3, 1e6)
"""Fixed shifts of the time origin; a random one in [0, 1e6] is drawn beside them."""

OBJECTIVE_MATCH = 1e-6
"""Relative agreement required between a copy's objective, mapped back, and the unit copy's."""

FAMILIES = ("packing", "related", "malleable", "mapreduce")

VARIANTS = {"malleable-costs": "malleable"}
"""Fuzz families beside :data:`FAMILIES` whose documents are of another family: ``malleable-costs``
draws malleable instances with deadline, step and stretch costs (tardy, tardiness, lateness, SLA,
stretch; minisum or minimax), whose deadlines move with the releases."""

ORIGIN_ANCHORED = {
    "packing": frozenset({"synchpack1", "synchpack2"}),
    "related": frozenset({"spc", "mars", "map-only", "identical-machine"}),
    "malleable": frozenset({"flowflex", "flowflex-knapsack", "flowflex-universal", "flowflex-minimax"}),
}
"""Algorithms whose schedule depends on where time 0 is, by their paper's construction: paper
003's interval grid d_l = u(1+ε)^l and paper 000's geometric grid g_ℓ = g_0(1+ε)^ℓ (FlowFlex's
flow LP) and geometric deadlines a_i = ℓρ^i (Algorithms 2-3) are measured from time 0, as is
the test C ≤ 2·D of its minimax search (§2.3.3: 2·D doubles a deadline counted from time 0;
measured with step costs: one SLA step more or less at offsets 1 and 10^6),
and paper 004's LP-Schedule orders jobs by an LP whose parallel inequalities are too. Shifting
every release by an offset changes their schedule (measured: the objective maps back differently,
better or worse), not their verdict. For them the objective is compared at offset 0 only; their
status and verdict at every offset."""


def _num(rng: random.Random, low: float, high: float) -> float:
    """A random number of a few significant digits (sometimes a whole number, so ties and the
    packing MIP's grid occur too)."""
    v = rng.uniform(low, high)
    return float(round(v)) if rng.random() < 0.3 and round(v) >= low else round(v, rng.choice((1, 2, 3)))


def random_instance(family: str, rng: random.Random, min_tasks: int = 0) -> dict[str, Any]:
    """A small instance document of *family* at unit scale (times between 0.1 and 10); for
    related, jobs of 2-4 tasks without edges are added until it has *min_tasks* tasks (the CP-SAT
    engine's time-indexed bound starts at 12; 0 draws nothing more, so the stream is unchanged)."""
    doc = _random_instance(family, rng)
    if family == "related":
        while sum(len(j["tasks"]) for j in doc["jobs"]) < min_tasks:
            doc["jobs"].append({"tasks": [_num(rng, 0.1, 10) for _ in range(rng.randint(2, 4))],
                                "weight": _num(rng, 1, 5), "release": 0.0})
    elif min_tasks:
        raise ValueError(f"min_tasks is for the related family, not {family!r}")
    return doc


def _random_instance(family: str, rng: random.Random) -> dict[str, Any]:
    if family == "packing":
        caps = [rng.choice((1.0, 0.5, 0.8)) for _ in range(rng.randint(1, 3))]
        jobs = []
        for _ in range(rng.randint(1, 4)):
            tasks = []
            for _ in range(rng.randint(1, 3)):
                fits = [m for m, c in enumerate(caps)]
                place = sorted(rng.sample(fits, rng.randint(1, len(fits))))
                demand = round(rng.uniform(0.05, min(caps[m] for m in place)), 3)
                tasks.append({"demand": demand, "placement": place,
                              "processing_time": [_num(rng, 0.1, 10) for _ in place]})
            jobs.append({"tasks": tasks, "weight": _num(rng, 1, 5),
                         "release": _num(rng, 0, 5) if rng.random() < 0.5 else 0.0})
        return {"family": "packing", "schema_version": 1, "capacities": caps, "jobs": jobs}
    if family == "related":
        n = rng.randint(1, 4)
        jobs = [{"tasks": [_num(rng, 0.1, 10) for _ in range(rng.randint(1, 3))], "weight": _num(rng, 1, 5),
                 "release": _num(rng, 0, 5) if rng.random() < 0.5 else 0.0} for _ in range(n)]
        edges = [[a, b] for a in range(n) for b in range(a + 1, n) if rng.random() < 0.3]
        doc = {"family": "related", "schema_version": 1, "speeds": [_num(rng, 0.5, 3) for _ in range(rng.randint(1, 3))],
               "jobs": jobs, "edges": edges}
        if rng.random() < 0.3:
            doc["ready"] = [_num(rng, 0, 3) for _ in doc["speeds"]]
        return doc
    if family in ("malleable", "malleable-costs"):
        P = rng.randint(1, 5)
        flows = []
        # One class of costs an instance, so that a copy's objective maps back by one rule
        # (mapped_objective): times (completion, tardiness, lateness scale with the unit) or
        # counts (tardy, SLA and stretch do not).
        costs = family == "malleable-costs"
        kinds = rng.choice((("completion", "tardiness", "lateness"), ("tardy", "sla", "stretch"))) if costs else ()
        for _ in range(rng.randint(1, 4)):
            k = rng.randint(1, 3)
            flow = {"sizes": [_num(rng, 0.1, 10) for _ in range(k)],
                    "max_processors": [rng.randint(1, P) for _ in range(k)],
                    "edges": [[a, b] for a in range(k) for b in range(a + 1, k) if rng.random() < 0.4],
                    "release": _num(rng, 0, 5) if rng.random() < 0.5 else 0.0}
            flow["cost"] = _random_cost(rng, rng.choice(kinds) if costs else "completion", flow["release"],
                                        sum(flow["sizes"]))
            flows.append(flow)
        objective = "minimax" if costs and rng.random() < 0.3 else "minisum"
        return {"family": "malleable", "schema_version": 1, "processors": P, "objective": objective, "flows": flows}
    jobs = [{"arrival": rng.randint(0, 4), "map_tasks": rng.randint(1, 3),
             "reduce_tasks": [rng.randint(1, 2) for _ in range(rng.randint(0, 2))]} for _ in range(rng.randint(1, 3))]
    return {"family": "mapreduce", "schema_version": 1, "machines": rng.randint(1, 3), "jobs": jobs}


def _random_cost(rng: random.Random, kind: str, release: float, work: float) -> dict[str, Any]:
    """A malleable flow's cost of *kind*, its deadlines a little before to well after *release*."""
    if kind == "completion":
        return {"kind": kind, "weight": _num(rng, 1, 5)}
    if kind == "stretch":
        return {"kind": kind, "work": _num(rng, 0.5 * work, 2 * work)}
    if kind == "sla":
        deadlines = sorted({_num(rng, max(0.0, release - 1), release + 20) for _ in range(rng.randint(1, 3))})
        return {"kind": kind, "deadlines": deadlines, "heights": [_num(rng, 1, 5) for _ in deadlines]}
    return {"kind": kind, "deadline": _num(rng, max(0.0, release - 1), release + 20), "weight": _num(rng, 1, 5)}


def transform(doc: dict[str, Any], scale: float, offset: float) -> dict[str, Any]:
    """*doc* with every duration times *scale* and every release, ready time or arrival times
    *scale* plus *offset* (MapReduce: arrivals plus *offset* only, its slots have no unit)."""
    out = copy.deepcopy(doc)
    fam = out["family"]
    if fam == "packing":
        for job in out["jobs"]:
            job["release"] = job["release"] * scale + offset
            for task in job["tasks"]:
                task["processing_time"] = [p * scale for p in task["processing_time"]]
    elif fam == "related":
        for job in out["jobs"]:
            job["release"] = job["release"] * scale + offset
            job["tasks"] = [p * scale for p in job["tasks"]]
        if "ready" in out:
            out["ready"] = [r * scale + offset for r in out["ready"]]
    elif fam == "malleable":
        for flow in out["flows"]:
            flow["release"] = flow["release"] * scale + offset
            flow["sizes"] = [p * scale for p in flow["sizes"]]
            cost = flow["cost"]
            if "deadline" in cost:
                cost["deadline"] = cost["deadline"] * scale + offset
            if "deadlines" in cost:
                cost["deadlines"] = [d * scale + offset for d in cost["deadlines"]]
            if "work" in cost:
                cost["work"] = cost["work"] * scale
    else:
        for job in out["jobs"]:
            job["arrival"] += int(offset)
    return out


def weight_sum(doc: dict[str, Any]) -> float:
    """Σ w: what a shift of the origin by 1 adds to the objective."""
    fam = doc["family"]
    if fam in ("packing", "related"):
        return float(sum(j["weight"] for j in doc["jobs"]))
    if fam == "malleable":
        return float(sum(f["cost"].get("weight", 0.0) for f in doc["flows"]))
    return 0.0


def mapped_objective(doc: dict[str, Any], value: float, scale: float, offset: float) -> float | None:
    """What the unit copy's objective *value* must become in the copy at (*scale*, *offset*), or
    None where no rule maps it (a minimax of costs that shift by different constants).
    Completion costs: ``s · value + offset · Σ w``; tardiness and lateness ``s · value``; tardy and
    SLA steps unchanged; stretch C/W gains offset / (s · W) a flow; MapReduce flow times unchanged."""
    fam = doc["family"]
    if fam == "mapreduce":
        return value
    if fam != "malleable":
        return scale * value + offset * weight_sum(doc)
    kinds = {f["cost"]["kind"] for f in doc["flows"]}
    shift = sum(f["cost"]["weight"] * offset for f in doc["flows"] if f["cost"]["kind"] == "completion")
    shift += sum(offset / (scale * f["cost"]["work"]) for f in doc["flows"] if f["cost"]["kind"] == "stretch")
    if doc.get("objective", "minisum") == "minimax" and shift:
        return None
    if kinds <= {"completion", "tardiness", "lateness"}:
        return scale * value + shift
    if kinds <= {"tardy", "sla", "stretch"}:
        return value + shift
    return None


def plan(family: str) -> list[tuple[str, dict[str, Any]]]:
    """Every registered algorithm of *family*, ``mip`` with a time limit."""
    return [(s.name, {"time_limit": MIP_SECONDS} if s.name == "mip" else {}) for s in algorithms.available(family)]


@dataclass
class Verdict:
    """What one run said, reduced to what must not depend on the unit."""

    kind: str
    status: str | None = None
    optimal: bool | None = None
    objective: float | None = None
    limited: bool = False
    message: str = ""


def _verdict(name: str, inst, params: dict[str, Any], solver: str = "highs") -> Verdict:
    seconds = 4 * MIP_SECONDS + HANG_SECONDS if name == "mip" else HANG_SECONDS
    o = check_run(name, inst, params=params, seconds=seconds, solver=solver)
    if o.kind != "ok":
        return Verdict(o.kind, message=o.message)
    r = o.result
    limited = r.info.get("solver_status") not in (None, "optimal")
    return Verdict("ok", r.status, bool(r.info.get("optimal", r.status == "optimal")), r.objective, limited)


@dataclass
class Tally:
    """Counts over many copies: runs, copies refused at load, failures (with reproducers)."""

    runs: int = 0
    copies: int = 0
    refused_at_load: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)
    hangs: int = 0
    scales: set = field(default_factory=set)
    offsets: set = field(default_factory=set)


def check_instance(doc: dict[str, Any], copies: list[tuple[float, float]], tally: Tally,
                   names: list[tuple[str, dict[str, Any]]] | None = None, solver: str = "highs") -> None:
    """Run *doc* at unit scale and at each (scale, offset) of *copies*; record what differs.
    *solver* is the algorithms' solver (the exact ``mip`` engine: ``highs`` or ``cpsat``)."""
    base = from_dict(copy.deepcopy(doc))
    names = plan(doc["family"]) if names is None else names
    ref = {}
    for name, params in names:
        ref[name] = _verdict(name, base, params, solver)
        tally.runs += 1
        if ref[name].kind not in ("ok", "refused"):
            tally.hangs += ref[name].kind == "hang"
            tally.failures.append({"algorithm": name, "scale": 1.0, "offset": 0.0, "kind": ref[name].kind,
                                   "message": ref[name].message[:300], "instance": doc})
    for scale, offset in copies:
        tally.copies += 1
        tally.scales.add(scale)
        tally.offsets.add(offset)
        moved = transform(doc, scale, offset)
        try:
            inst = from_dict(moved)
        except InstanceError as exc:
            msg = str(exc)
            if "below the resolution of its times" not in msg or "\n" in msg:
                tally.failures.append({"algorithm": "(load)", "scale": scale, "offset": offset, "kind": "load",
                                       "message": msg[:300], "instance": doc})
            tally.refused_at_load += 1
            continue
        for name, params in names:
            v = _verdict(name, inst, params, solver)
            tally.runs += 1
            why = _differs(ref[name], v, scale, offset, doc, name)
            if why:
                tally.hangs += v.kind == "hang"
                tally.failures.append({"algorithm": name, "scale": scale, "offset": offset, "kind": why,
                                       "message": v.message[:300] or ref[name].message[:300], "instance": doc})


def _differs(a: Verdict, b: Verdict, scale: float, offset: float, doc: dict[str, Any], name: str) -> str:
    """Why verdict *b* of a copy breaks the property against the unit copy's *a* ("" if it does not)."""
    if b.kind not in ("ok", "refused"):
        return b.kind
    if a.kind != b.kind:
        return f"outcome {a.kind} -> {b.kind}"
    if a.kind != "ok":
        return ""
    if name == "mip" and (a.limited or b.limited):
        return ""
    if a.status != b.status:
        return f"status {a.status} -> {b.status}"
    if a.optimal != b.optimal:
        return f"optimal {a.optimal} -> {b.optimal}"
    if offset and name in ORIGIN_ANCHORED.get(doc["family"], ()):
        return ""
    expect = mapped_objective(doc, a.objective, scale, offset)
    if expect is None:
        return ""
    # Beside the relative match, room for the stamps' round-off in a sum of differences of times
    # (lateness sums can cancel to about 0): 1e-9 of the copy's weighted time scale.
    room = OBJECTIVE_MATCH * max(abs(expect), scale * abs(a.objective)) + 1e-9 * scale * weight_sum(doc)
    if abs(b.objective - expect) > room:
        return f"objective {b.objective!r} != {expect!r} (unit copy {a.objective!r})"
    return ""


def copies_for(family: str, rng: random.Random, n: int) -> list[tuple[float, float]]:
    """*n* (scale, offset) pairs: every scale, with the fixed offsets and a random one in turn."""
    if family == "mapreduce":
        return [(1.0, float(o)) for o in rng.sample((1, 10, 1000, 10**6, rng.randint(2, 10**6)), min(n, 5))]
    out = []
    for i in range(n):
        scale = SCALES[rng.randrange(len(SCALES))] if n < len(SCALES) else SCALES[i % len(SCALES)]
        choice = rng.randrange(len(OFFSETS) + 1)
        offset = OFFSETS[choice] if choice < len(OFFSETS) else round(rng.uniform(0, 1e6), rng.choice((0, 3)))
        out.append((scale, offset))
    return out
