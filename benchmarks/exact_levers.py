"""Share of each lever in the malleable and mapreduce ``mip``'s time to proof: the MIP start (with
the caps it gives), the relaxation's bound row, both, or neither (issue 14).

On fixed generated instances the MIPs prove in seconds (malleable: the ``flowflex`` setup, 8
processors, 2-4 jobs per flow, 5 flows, seeds 0-4; mapreduce: the ``asrpt`` setup, 10 machines,
0.2 arrivals per slot, 20 slots seeds 0 and 4, 30 slots seeds 1 and 2), ``mip`` runs with
``warm_start`` and ``bound_row`` each on or off; the table gives each configuration's time to
proof and its geometric-mean ratio to the plain one (neither lever; the formulation's own rows
stay). Every configuration must prove the same optimum (checked, 1e-6 relative).

Not a test: run by hand on a quiet machine, e.g. ``python benchmarks/exact_levers.py --limit 60``.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

from schedrelax import algorithms
from schedrelax.instances.generate import asrpt, flowflex

CONFIGS = {"plain": {"warm_start": False, "bound_row": False}, "row": {"warm_start": False},
           "start": {"bound_row": False}, "both": {}}
CASES = ([("malleable", 5, s) for s in range(5)] + [("mapreduce", 20, s) for s in (0, 4)]
         + [("mapreduce", 30, s) for s in (1, 2)])


def make(family: str, size: int, seed: int):
    """The case's instance and the parameters its ``mip`` needs besides the levers."""
    if family == "malleable":
        return flowflex(seed, processors=8, n_flows=size, jobs_per_flow=(2, 4)), {"max_jobs": 100}
    return asrpt(seed, machines=10, rate=0.2, slots=size), {}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per solve (default 60)")
    args = ap.parse_args(argv)
    # Imports, the registry and the solver's first load are paid here, not by the first case.
    algorithms.run("mip", flowflex(0, processors=2, n_flows=1, jobs_per_flow=1))
    algorithms.run("mip", asrpt(0, machines=2, rate=0.2, slots=3))
    seconds: dict[tuple, dict[str, float]] = {}
    bad = 0
    print("family    size seed " + " ".join(f"{c:>8s}" for c in CONFIGS))
    for case in CASES:
        inst, params = make(*case)
        seconds[case], optima = {}, {}
        for name, levers in CONFIGS.items():
            t0 = time.perf_counter()
            res = algorithms.run("mip", inst, time_limit=args.limit, **params, **levers)
            seconds[case][name] = time.perf_counter() - t0 if res.info["optimal"] else math.inf
            optima[name] = res.objective if res.info["optimal"] else None
        proven = [v for v in optima.values() if v is not None]
        bad += bool(proven) and max(proven) - min(proven) > 1e-6 * max(1.0, abs(min(proven)))
        print(f"{case[0]:9s} {case[1]:4d} {case[2]:4d} " + " ".join(f"{seconds[case][c]:8.2f}" for c in CONFIGS),
              flush=True)
    print("\ngeometric-mean time-to-proof ratio to 'plain' (cases every configuration proved)")
    for family in dict.fromkeys(c[0] for c in CASES):
        cases = [c for c in CASES if c[0] == family and all(math.isfinite(v) for v in seconds[c].values())]
        for name in CONFIGS:
            if cases:
                geo = math.exp(statistics.fmean(math.log(seconds[c][name] / seconds[c]["plain"]) for c in cases))
                print(f"  {family:9s} {name:6s} {geo:6.3f}  ({len(cases)} cases)")
    print(f"optima disagreeing between configurations: {bad}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
