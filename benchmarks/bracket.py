"""How tight ``sr.bracket`` gets in a time budget: per family and size, the median bracket width
UB/LB − 1 at each time limit, the proofs and their times, the calls' overruns, and what each
lever gave (issue 32).

Instances are the reach benchmark's (``benchmarks/exact_reach.py``'s ``make``): packing is the
``synchpack`` setup on 4 machines with 1-3 tasks a job (sizes: jobs), related the ``spc`` setup on
6 machines with 1-4 tasks a job (jobs), malleable the ``flowflex`` setup's small sizes (flows),
mapreduce the ``asrpt`` setup's small sizes (slots). Each cell is one ``bracket`` call in a fresh
budget; the first call of the process also pays the package's imports, so a warm-up call runs first.

The levers are read off each call's log: ``heur`` is the bracket of the fast algorithms and the
papers' relaxations alone (what ``exact=False`` returns), ``+lp`` adds the engine's LP bound (the
time-indexed LP for packing, LP-Schedule on the model's numbers for related), ``all`` is the
returned bracket (the engine's proven bound and schedules too).

Not a test: run by hand, e.g.

    python benchmarks/bracket.py --families packing,related --sizes packing=40 --sizes related=8 \\
        --limits 10,60 --seeds 3
    python benchmarks/bracket.py --limits 10 --seeds 3          # every family at its default sizes

``--threads`` sets CP-SAT's workers (default: every available core). ``--pyjobshop`` also runs
PyJobShop (``pip install pyjobshop``: an optional extra, ``schedrelax[pyjobshop]``) on the packing
cells, with the same limit and workers, and prints its bracket beside the package's.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from exact_reach import make

SIZES = {"packing": (10, 20, 40, 70, 100), "related": (3, 5, 8, 12, 20), "malleable": (5, 10, 20),
         "mapreduce": (20, 40, 60, 100)}


def _width(lb: float | None, ub: float | None) -> float:
    if lb is None or ub is None or not lb > 0:
        return math.nan
    return max(0.0, ub / lb - 1.0)


def levers(b) -> dict[str, float]:
    """The bracket widths of the call's log cut after each lever (see the module docstring)."""
    heur_lb = [a.lower_bound for a in b.log if a.lower_bound is not None and not a.name.startswith("mip")]
    heur_ub = [a.upper_bound for a in b.log if a.upper_bound is not None and not a.name.startswith("mip")]
    lp = [a.lower_bound for a in b.log if a.name == "mip: LP bound" and a.lower_bound is not None]
    lb0 = max(heur_lb) if heur_lb else None
    ub0 = min(heur_ub) if heur_ub else None
    lb1 = max([*heur_lb, *lp]) if heur_lb or lp else None
    return {"heur": _width(lb0, ub0), "+lp": _width(lb1, ub0), "all": _width(b.lower_bound, b.upper_bound)}


DEMAND_SCALE = 10_000
"""PyJobShop takes whole numbers: capacities are scaled by this and floored, demands scaled and
rounded up (so its schedules are feasible here; its bound is then that of a slightly tighter
problem, a hair above the instance's: a comparison, not a proof)."""


def pyjobshop_packing(inst, limit: float, threads: int | None) -> tuple[float | None, float | None, float]:
    """PyJobShop's bracket of a packing instance with whole times and weights (the generator's): a
    renewable resource per machine, a mode per usable machine, the weighted flow time plus
    Σ w_j r_j as the objective. (lower bound, upper bound, seconds)."""
    from pyjobshop import Model

    from schedrelax.models.synchpack_lp import usable_pairs

    t0 = time.perf_counter()
    m = Model()
    res = [m.add_renewable(capacity=math.floor(c * DEMAND_SCALE)) for c in inst.capacities]
    jobs = [m.add_job(weight=round(w), release_date=round(r)) for w, r in zip(inst.weights, inst.release)]
    tasks = [m.add_task(job=jobs[int(j)]) for j in inst.task_job]
    for q in usable_pairs(inst).tolist():
        t, i = int(inst.place_task[q]), int(inst.place_machine[q])
        m.add_mode(tasks[t], res[i], duration=round(inst.place_time[q]),
                   demands=math.ceil(inst.demand[t] * DEMAND_SCALE))
    m.set_objective(weight_total_flow_time=1)
    r = m.solve("ortools", time_limit=limit, display=False, num_workers=threads)
    shift = float(sum(w * rel for w, rel in zip(inst.weights, inst.release)))
    ub = float(r.objective) + shift if r.objective is not None and math.isfinite(r.objective) else None
    return float(r.lower_bound) + shift, ub, time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", default="packing,related,malleable,mapreduce")
    ap.add_argument("--sizes", action="append", default=[], metavar="FAMILY=A,B",
                    help="sizes of one family (repeatable); default SIZES")
    ap.add_argument("--limits", default="10,60", help="time limits in seconds, comma-separated")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--threads", type=int)
    ap.add_argument("--pyjobshop", action="store_true")
    args = ap.parse_args(argv)
    import schedrelax as sr

    sizes = dict(SIZES)
    for item in args.sizes:
        fam, _, values = item.partition("=")
        sizes[fam] = tuple(int(v) for v in values.split(","))
    limits = [float(v) for v in args.limits.split(",")]
    sr.bracket(make("packing", 10, 0), time_limit=5, threads=args.threads)  # warm-up: imports, CP-SAT's load
    print("family size seed limit | LB UB width heur +lp | proven elapsed over% | LB from; UB from")
    table: dict[tuple, list] = {}
    for fam in args.families.split(","):
        for size in sizes[fam]:
            for limit in limits:
                for seed in range(args.seeds):
                    inst = make(fam, size, seed)
                    t = time.perf_counter()
                    b = sr.bracket(inst, time_limit=limit, threads=args.threads, seed=seed)
                    wall = time.perf_counter() - t
                    lv = levers(b)
                    over = 100 * (wall / limit - 1)
                    row = {"width": lv["all"], "heur": lv["heur"], "+lp": lv["+lp"], "proven": b.optimal,
                           "wall": wall, "over": over}
                    if args.pyjobshop and fam == "packing":
                        lb, ub, sec = pyjobshop_packing(inst, limit, args.threads)
                        row["pjs"] = _width(lb, ub)
                        row["pjs_proof"] = sec if ub is not None and lb >= ub - 1e-6 else None
                    table.setdefault((fam, size, limit), []).append(row)
                    lb = "-" if b.lower_bound is None else f"{b.lower_bound:.6g}"
                    extra = (f" | pyjobshop width {row['pjs']:.4f} proof "
                             f"{'-' if row['pjs_proof'] is None else round(row['pjs_proof'], 2)}") if "pjs" in row else ""
                    print(f"{fam} {size} {seed} {limit:g} | {lb} {b.upper_bound:.6g} {lv['all']:.4f} {lv['heur']:.4f} "
                          f"{lv['+lp']:.4f} | {b.optimal} {wall:.2f} {over:+.1f} | {b.lower_bound_kind}; "
                          f"{b.upper_bound_kind}{extra}", flush=True)
    print("\nfamily size limit | median width (heur, +lp, all) | proven | median time to proof | max overrun %")
    for (fam, size, limit), rows in table.items():
        med = {k: statistics.median(r[k] for r in rows) for k in ("heur", "+lp", "width")}
        proofs = [r["wall"] for r in rows if r["proven"]]
        ttp = f"{statistics.median(proofs):.2f} s" if proofs else "-"
        pjs = ""
        if any("pjs" in r for r in rows):
            pjs_proofs = [r["pjs_proof"] for r in rows if r.get("pjs_proof") is not None]
            pjs = (f" | pyjobshop median width {100 * statistics.median(r['pjs'] for r in rows):.2f} %, proven "
                   f"{len(pjs_proofs)}/{len(rows)}"
                   + (f", median time to proof {statistics.median(pjs_proofs):.2f} s" if pjs_proofs else ""))
        print(f"{fam} {size} {limit:g} | {100 * med['heur']:.2f} % {100 * med['+lp']:.2f} % "
              f"{100 * med['width']:.2f} % | {len(proofs)}/{len(rows)} | {ttp} | "
              f"{max(r['over'] for r in rows):+.1f}{pjs}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
