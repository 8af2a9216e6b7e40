"""The unit-invariance property of issue 31 at scale (tests/fuzz/units.py).

    python benchmarks/fuzz_units.py --runs 20000 [--families packing,related] [--seed 1]
                                    [--minutes 60] [--copies 16] [--out units_report.json]
                                    [--solver cpsat] [--mip-only] [--min-tasks 12]

Draws instances family by family in turn and runs each at unit scale and at ``--copies`` (scale,
offset) pairs (scales 10^-9..10^6, offsets 0, 1, 10^3, 10^6 and a random one up to 10^6) through
every registered algorithm, until ``--runs`` runs are done or ``--minutes`` have passed. Prints
runs, copies, copies refused at load, the scales and offsets used, failures by (family,
algorithm, kind) and hangs, and writes them with every failure's instance to ``--out``. Exit
status 1 if any failure was found. The families: packing, related, malleable (completion costs),
mapreduce, and malleable-costs (tardy, tardiness, lateness, SLA and stretch costs, minisum or
minimax; their deadlines move with the releases).
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fuzz.runs import MIP_SECONDS  # noqa: E402
from tests.fuzz.units import FAMILIES, VARIANTS, Tally, check_instance, copies_for, random_instance  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20000)
    ap.add_argument("--minutes", type=float, default=None)
    ap.add_argument("--families", default=",".join((*FAMILIES, *VARIANTS)),
                    help=f"fuzz families, comma-separated: {', '.join((*FAMILIES, *VARIANTS))}")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--copies", type=int, default=16)
    ap.add_argument("--out", default="units_report.json")
    ap.add_argument("--solver", default="highs", help="the algorithms' solver: highs, or cpsat for the CP-SAT engines")
    ap.add_argument("--mip-only", action="store_true", help="run the exact mip alone")
    ap.add_argument("--min-tasks", type=int, default=0,
                    help="related only: add jobs until the instance has this many tasks")
    args = ap.parse_args()
    families = args.families.split(",")
    rng = random.Random(args.seed)
    tally = Tally()
    per_family = collections.Counter()
    t0 = time.time()
    i = 0
    while tally.runs < args.runs and (args.minutes is None or time.time() - t0 < 60 * args.minutes):
        family = families[i % len(families)]
        i += 1
        before = tally.runs
        doc = random_instance(family, rng, min_tasks=args.min_tasks)
        names = [("mip", {"time_limit": MIP_SECONDS})] if args.mip_only else None
        check_instance(doc, copies_for(family, rng, args.copies), tally, names=names, solver=args.solver)
        per_family[family] += tally.runs - before
    kinds = collections.Counter((f["instance"]["family"], f["algorithm"], f["kind"].split(" ")[0])
                                for f in tally.failures)
    summary = {"runs": tally.runs, "instances": i, "copies": tally.copies, "refused_at_load": tally.refused_at_load,
               "runs_by_family": dict(per_family), "scales": sorted(tally.scales),
               "offsets_max": max(tally.offsets, default=0.0), "distinct_offsets": len(tally.offsets),
               "failures": len(tally.failures), "hangs": tally.hangs,
               "failures_by_kind": {" / ".join(k): n for k, n in kinds.most_common()},
               "seconds": round(time.time() - t0)}
    print(json.dumps(summary, indent=1))
    Path(args.out).write_text(json.dumps({**summary, "failure_list": tally.failures}, indent=1, default=str))
    return 1 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
