"""The bound chain LB <= OPT <= every algorithm (issue 14), on generated small instances of the four
families: packing, related, malleable, mapreduce.

For each instance ``mip`` runs first (time limit :data:`MIP_LIMIT`); then, where a second exact
engine exists (CP-SAT for packing and related), ``mip --solver cpsat``; then every other algorithm
the registry lists for the family. Every run goes through the fuzz suite's checker
(:func:`tests.fuzz.runs.check_run`), which re-verifies each schedule against a fresh copy of the
instance and re-evaluates its cost, and checks, against the MIP's proven optimum OPT:

* every algorithm's lower bound <= OPT (and <= its own cost);
* OPT <= every comparable algorithm's verified cost (schedules under the MIP's rules: the packing
  and related MIPs are non-preemptive, the malleable one keeps minima);
* the MIP's own schedule passes ``verify`` and, when labelled optimal, costs its proven bound;
* cost <= guarantee x bound where an algorithm claims a guarantee;
* the two engines' optima agree where both prove one.

Malleable instances whose minima bind are also solved with ``minima=False``: that optimum is the
instance's own (the verifier does not ask for minima), so every algorithm's cost is at least it.

Budget: :data:`FAST` instances per family in the default pass (300 in all), :data:`SLOW` per family
under ``--runslow`` (2,000 in all, other seeds). Nearly every instance must be proven optimal, or
the chain would test little (:data:`MIN_PROVEN`).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from schedrelax.instances.generate import (
    FLEX_COSTS,
    FLOWFLEX_COSTS,
    asrpt,
    flex,
    flowflex,
    spc,
    synchpack,
)
from tests.fuzz.runs import (
    CPSAT_FAMILIES,
    _at_most,
    check_run,
    cpsat_present,
    mip_proved_optimal,
    offline_names,
    second_engine,
)

FAMILIES = ("packing", "related", "malleable", "mapreduce")
FAST = 75
SLOW = 500
MIP_LIMIT = 10.0
MIN_PROVEN = 0.9
"""Share of instances whose optimum must be proven within MIP_LIMIT (all were, when measured)."""

MAPREDUCE_WORKLOADS = ((("exp", 2.0), ("exp", 4.0)), (("exp", 3.0), ("exp", 2.0)),
                       (("uniform", 1, 3), ("uniform", 2, 7)), (("uniform", 2, 5), ("uniform", 2, 4)))
"""Paper 001's four workload shapes (large or small Reduce, exponential or uniform) scaled down so
that the time-indexed MIP stays small."""


def make(family: str, k: int):
    """The *k*-th generated instance of *family*: the paper setups at a size the MIP proves fast,
    with releases, DAGs, every malleable cost kind and both objectives, minima (the ``flex``
    setup), and both mapreduce models mixed in by *k*."""
    rng = random.Random(k)
    if family == "packing":
        return synchpack(k, machines=2, n_jobs=rng.randint(2, 3), tasks_per_job=(1, 2))
    if family == "related":
        return spc(k, n_jobs=rng.randint(2, 3), tasks_per_job=(1, 2), machines=2, online=k % 3 == 0)
    if family == "malleable":
        objective = "minimax" if k % 5 == 4 else "minisum"
        if k % 4 == 3:
            return flex(k, n_jobs=rng.randint(2, 3), processors=4, objective=objective,
                        cost=FLEX_COSTS[k % len(FLEX_COSTS)])
        return flowflex(k, processors=4, n_flows=2, jobs_per_flow=(1, 2), objective=objective,
                        cost=FLOWFLEX_COSTS[k % len(FLOWFLEX_COSTS)])
    return asrpt(k, machines=rng.randint(1, 3), rate=0.7, slots=3, workload=MAPREDUCE_WORKLOADS[k % 4],
                 max_reduce_tasks=2)


def chain(family: str, k: int) -> tuple[bool, list[str]]:
    """Run the chain on instance *k* of *family*: (whether the MIP proved an optimum, failures)."""
    inst = make(family, k)
    params = {"model": "non-preemptive"} if family == "mapreduce" and k % 3 == 2 else {}
    outcomes = []
    o = check_run("mip", inst, params={**params, "time_limit": MIP_LIMIT})
    optimum = o.result.objective if o.kind == "ok" and mip_proved_optimal(o.result) else None
    outcomes.append(o)
    if family in CPSAT_FAMILIES and cpsat_present():
        outcomes.append(second_engine(inst, {"time_limit": MIP_LIMIT}, optimum))
    names = [n for n in offline_names(family) if n != "mip"]
    outcomes += [check_run(n, inst, params=params, optimum=optimum) for n in names]
    if family == "malleable" and np.any(inst.min_procs > 0):
        free = check_run("mip", inst, params={"minima": False, "time_limit": MIP_LIMIT})
        outcomes.append(free)
        if free.kind == "ok" and mip_proved_optimal(free.result):
            if optimum is not None and not _at_most(free.result.objective, optimum):
                free.kind, free.message = "minima-lower", (f"OPT without minima {free.result.objective!r} above "
                                                           f"OPT with them {optimum!r}")
            for r in (x.result for x in outcomes if x.kind == "ok" and x.result is not None):
                if not _at_most(free.result.objective, r.objective):
                    free.kind, free.message = "beats-optimum", (f"{r.algorithm} costs {r.objective!r}, below the "
                                                                f"optimum without minima {free.result.objective!r}")
    return optimum is not None, [f"{family} instance {k}: {x.algorithm} {x.kind}: {x.message[:300]}"
                                 for x in outcomes if x.failed]


def _check(family: str, seeds: range) -> None:
    proven, failures = 0, []
    for k in seeds:
        ok, bad = chain(family, k)
        proven += ok
        failures += bad
    assert not failures, "\n".join(failures[:20])
    assert proven >= MIN_PROVEN * len(seeds), f"{family}: only {proven} of {len(seeds)} optima proven"


@pytest.mark.parametrize("family", FAMILIES)
def test_bound_chain(family):
    _check(family, range(FAST))


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_bound_chain_many(family):
    _check(family, range(10_000, 10_000 + SLOW))
