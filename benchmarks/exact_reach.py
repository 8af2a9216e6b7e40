"""How far each exact engine of ``mip`` reaches: the largest generated size it proves optimal.

For each family and engine (``--solver highs``: the Pyomo MIPs; ``--solver cpsat``: the CP-SAT
models of packing and related, and the mapreduce MIP itself, which is linear over the integers,
given to CP-SAT; malleable has continuous variables: HiGHS only), sizes are tried up a ladder (packing: the ``synchpack`` setup
on 4 machines, 1-3 tasks per job, n_jobs 10, 15, 20, 30, 40, 50; related: the ``spc`` setup on 6
machines, 1-4 tasks per job, n_jobs 3 ... 10; malleable: the ``flowflex`` setup at its small
sizes, 8 processors and 2-4 jobs per flow, n_flows 3, 5, 7, 10, 12, 15, with ``max_jobs`` lifted;
mapreduce: the ``asrpt`` setup at its small sizes, 10 machines and 0.2 arrivals per slot, slots
20, 30, 40, 60, 80, under ``mip``'s default model ``preemptive-tasks``; ``--param model=non-preemptive``
for eq. (2)) on seeds 0 .. S-1. A size is *reached* when at least ``--min-proven`` of the
seeds end ``optimal`` (the returned schedule's cost meets the proven bound,
:func:`schedrelax.rounding.exact.meets_bound`) within ``--limit`` seconds of wall time; an engine
stops climbing at its first size not reached. Time to proof is the whole call's wall time (start
schedules, LP bound, build and solve). On instances both engines prove, the table gives the ratio
cpsat / highs of those times and checks that the two optima agree (1e-6 relative).

Not a test: run by hand on a quiet machine, e.g.

    python benchmarks/exact_reach.py --families packing,related --limit 60 --seeds 5
    python benchmarks/exact_reach.py --families malleable,mapreduce --engines highs

``--param KEY=VALUE`` (repeatable) passes a parameter to every ``mip`` call, e.g.
``--param warm_start=false --param bound_row=false`` to measure without the start or the bound row.

``--threads`` sets CP-SAT's workers (default: the package's: every available core for the packing
and related models, one for the mapreduce MIP); HiGHS runs with its default. The reach tables were
measured with one worker: pass ``--threads 1`` to compare with them.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

from schedrelax import algorithms
from schedrelax.instances.generate import SETUPS, spc, synchpack

LADDERS = {"packing": (10, 15, 20, 30, 40, 50), "related": (3, 4, 5, 6, 7, 8, 9, 10),
           "malleable": (3, 5, 7, 10, 12, 15), "mapreduce": (20, 30, 40, 60, 80)}
SIZE_NAMES = {"packing": "n_jobs", "related": "n_jobs", "malleable": "n_flows", "mapreduce": "slots"}
ENGINES = {"packing": ("highs", "cpsat"), "related": ("highs", "cpsat"), "malleable": ("highs",),
           "mapreduce": ("highs", "cpsat")}
FAMILY_PARAMS = {"malleable": {"max_jobs": 1000}}
"""Parameters every ``mip`` call of the family gets: the malleable MIP refuses more than 12 jobs
by default, and the ladder's sizes are its subject."""


def make(family: str, size: int, seed: int):
    """The generated instance of *family* at *size* (its ``SIZE_NAMES`` parameter)."""
    if family == "packing":
        return synchpack(seed, machines=4, n_jobs=size, tasks_per_job=(1, 3))
    if family == "related":
        return spc(seed, n_jobs=size, tasks_per_job=(1, 4), machines=6)
    setup = SETUPS["flowflex" if family == "malleable" else "asrpt"]
    return setup.function(seed, **{**setup.small_sizes, SIZE_NAMES[family]: size})


def _value(text: str):
    """A --param value: true/false, a number, or the text itself."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def attempt(inst, engine: str, limit: float, threads: int | None, extra: dict | None = None) -> dict:
    """One ``mip`` run: proven or not, wall time, objective, bound, status (or the error)."""
    params = {**FAMILY_PARAMS.get(inst.family, {}), **(extra or {}), "time_limit": limit}
    if threads is not None and engine == "cpsat":
        params["threads"] = threads
    t0 = time.perf_counter()
    try:
        res = algorithms.run("mip", inst, solver=engine, params=params)
    except Exception as exc:  # noqa: BLE001 - a failed cell is a row, not the end of the benchmark
        return {"proven": False, "seconds": time.perf_counter() - t0, "objective": None, "bound": None,
                "status": f"error: {type(exc).__name__}: {str(exc)[:80]}"}
    seconds = time.perf_counter() - t0
    proven = bool(res.info.get("optimal")) and seconds <= limit * 1.05
    return {"proven": proven, "seconds": seconds, "objective": res.objective, "bound": res.lower_bound,
            "status": res.status}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", default="packing,related")
    ap.add_argument("--engines", default="highs,cpsat")
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per solve (default 60)")
    ap.add_argument("--seeds", type=int, default=5, help="seeds per size (default 5)")
    ap.add_argument("--min-proven", type=int, default=None, help="seeds that must be proven (default 4 of 5: S-1)")
    ap.add_argument("--max-size", type=int, default=None, help="skip ladder sizes above this size")
    ap.add_argument("--threads", type=int, default=None, help="CP-SAT workers (default: the package's)")
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="a parameter for every mip call (repeatable)")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per solve")
    args = ap.parse_args(argv)
    extra = {}
    for item in args.param:
        key, eq, value = item.partition("=")
        if not eq or not key:
            ap.error(f"--param: expected KEY=VALUE, got {item!r}")
        extra[key] = _value(value)
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    for f in families:
        if f not in LADDERS:
            ap.error(f"--families: unknown family {f!r}; known: {', '.join(LADDERS)}")
    need = args.min_proven if args.min_proven is not None else max(1, args.seeds - 1)
    rows = []
    for family in families:
        sizes = [n for n in LADDERS[family] if args.max_size is None or n <= args.max_size]
        runs: dict[tuple[str, int, int], dict] = {}
        reach = {}
        family_engines = [e for e in engines if e in ENGINES[family]]
        for engine in family_engines:
            reach[engine] = None
            for n in sizes:
                proven = 0
                for seed in range(args.seeds):
                    inst = make(family, n, seed)
                    r = attempt(inst, engine, args.limit, args.threads, extra)
                    runs[(engine, n, seed)] = r
                    proven += r["proven"]
                    if args.verbose:
                        print(f"{family:9s} {engine:6s} n={n:3d} seed={seed} jobs={inst.n_jobs:3d} "
                              f"{r['status']:10s} {r['seconds']:7.2f}s obj={r['objective']} lb={r['bound']}",
                              file=sys.stderr, flush=True)
                ok = proven >= need
                rows.append((family, engine, n, proven, statistics.median(runs[(engine, n, s)]["seconds"]
                                                                          for s in range(args.seeds))))
                if not ok:
                    break
                reach[engine] = n
        ratios, disagree = [], 0
        if {"highs", "cpsat"} <= set(family_engines):
            for (engine, n, seed), r in runs.items():
                other = runs.get(("highs", n, seed))
                if engine != "cpsat" or other is None or not (r["proven"] and other["proven"]):
                    continue
                ratios.append(r["seconds"] / other["seconds"])
                a, b = r["objective"], other["objective"]
                disagree += abs(a - b) > 1e-6 * max(1.0, abs(b))
        print(f"\n{family}: reach (largest {SIZE_NAMES[family]} proven optimal on >= {need} of {args.seeds} seeds "
              f"in {args.limit:g} s)")
        for engine in family_engines:
            print(f"  {engine:6s} {reach[engine] if reach[engine] is not None else '-'}")
        if ratios:
            geo = math.exp(statistics.fmean(math.log(x) for x in ratios))
            print(f"  time to proof cpsat/highs on {len(ratios)} common instances: geometric mean {geo:.3g}, "
                  f"median {statistics.median(ratios):.3g}, min {min(ratios):.3g}, max {max(ratios):.3g}; "
                  f"optima disagreeing: {disagree}")
    print("\nfamily    engine   size proven median_s")
    for family, engine, n, proven, med in rows:
        print(f"{family:9s} {engine:6s} {n:6d} {proven:3d}/{args.seeds} {med:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
