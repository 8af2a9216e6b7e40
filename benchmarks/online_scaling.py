"""How ``online:fifo`` and ``online:synchpack3`` scale with the number of arriving jobs (issue 17
item 3: 10,000 arriving packing jobs in under 2 minutes, cost growth stated as an exponent).

The §7.2 setup of ``benchmarks/test_online_speed.py`` (100 machines, 1-100 tasks per job,
single-machine placement, Poisson arrivals at offered load 0.7), re-planned at every arrival, at
three sizes. The generator stops at 1,000 such jobs (its limit of 10^7 placement entries counts
jobs x 100 tasks x 100 machines), so n jobs are its 1,000-job instance repeated n / 1,000 times
back to back: block b is the same jobs with their arrivals shifted by b times the block's last
arrival (its first arrival is one Poisson gap after 0, so blocks join as one Poisson stream at
the same rate and load). For each run: total seconds (``run()``, its final ``verify`` of the whole schedule
included) and the process's CPU seconds (steadier than wall time on a shared machine), re-plans,
planning milliseconds per event (the offline algorithm inside ``run()``, its per-plan ``verify``
included; wall and CPU), the simulator's own CPU milliseconds per event (everything else:
building sub-instances, committing, the final verify and metrics), and the mean sub-instance
size. Then the growth exponent of each column: the least-squares slope of log(seconds) against
log(jobs) (1 is linear, 2 quadratic). Nothing asserts a time.

Measured (2-CPU shared machine, CPU seconds; "before" = the code before the issue 17 item 3
rewrite of fifo_packing, preemptive_list_packing and the packing sub-instances; at 1,000 jobs
measured the same day as that rewrite, at 3,000 and 10,000 the issue's figures; "round 1" = after
that rewrite; "now" = after LP3 warm starts from the previous re-plan's basis and the scan of
short lists in preemptive_list_packing, one run of ``--sizes 1000 3000 10000``):

    algorithm   jobs   before  round 1   now   now: plan / other CPU ms per event, sub-instance jobs
    fifo        1000     70.5     4.6     4.8    3.06 / 1.73,  69
    fifo        3000     533     18.5    18.2    4.79 / 1.28, 140
    fifo       10000       -    118.1   114.8    9.38 / 2.10, 343    exponent 1.38
    synchpack3  1000     20.3     7.7     4.8    3.69 / 1.14, 116
    synchpack3  3000     82.4    30.0    18.3    4.68 / 1.43, 152
    synchpack3 10000      485   334.5   100.7    7.86 / 2.20, 228    exponent 1.32

The queue grows with the stream (sub-instance jobs, last column), so every re-plan's cost does
too. In round 1 synchpack3's LP was most of its time at 10,000 jobs (solving LP3: 241 of 298 planning
CPU seconds; 3, 40 and 170 ms on 230, 460 and 700 waiting jobs, the IPM from 10^4 nonzeros).
Now each re-plan's LP3 starts from the previous one's basis (``reuse_basis``, see
schedrelax.online.simulate): on 39 consecutive 300-job re-plans 0.70 s of cold dual simplex
(24,014 iterations; the IPM 2.7x slower) became 0.16 s (5,423), same optima.

Memory (issue 32 item 4; ``--memory``: each run in a fresh process, its peak RSS, the instance's
alone, and the peak over the first algorithm's at the same size). The peak was the composed
schedule's: the plans of a preemptive algorithm are cut at every re-plan and followed on by the
next, and every cut piece was kept (205,363 pieces for 2,974 tasks at 1,000 arrivals); the
simulator now joins a piece into the run it continues. One run, before (commit 47d9c15) and
after, on a machine shared by several engineers (peak RSS, MB)::

    algorithm   jobs   before   after   (instance alone)
    fifo        1000        -     146     57
    fifo        3000        -     152     61
    synchpack3  1000      213     149     57
    synchpack3  3000      357     157     61
    synchpack3 10000   (870)*     181     73

    * the issue's figure, not re-run here (10,000 arrivals: 230 CPU seconds after, the same
      order as before: 16.0 -> 16.2 s at 1,000 and 54.4 -> 49.8 s at 3,000).

    python benchmarks/online_scaling.py                  # 1,000 and 3,000 jobs
    python benchmarks/online_scaling.py --sizes 1000 3000 10000
    python benchmarks/online_scaling.py --sizes 1000 3000 --memory
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import time

import numpy as np

from schedrelax.algorithms import run
from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from schedrelax.instances.generate import synchpack

BLOCK = 1000


def instance(n: int) -> PackingInstance:
    """*n* arriving jobs (a multiple of 1,000): the module docstring's repeated blocks."""
    if n % BLOCK:
        raise ValueError(f"sizes must be multiples of {BLOCK}, got {n}")
    base = synchpack(0, machines=100, n_jobs=BLOCK, tasks_per_job=(1, 100), alpha=None, local_machines=1,
                     online=True)
    period = float(base.release.max())
    jobs = tuple(PackingJob(tasks=tuple(PackingTask(t.demand, t.placement, t.processing_time) for t in job.tasks),
                            weight=job.weight, release=job.release + b * period)
                 for b in range(n // BLOCK) for job in base.jobs)
    return PackingInstance(capacities=base.capacities, jobs=jobs, name=f"{base.name}, {n // BLOCK} blocks")


def measure(name: str, n: int) -> dict[str, float]:
    inst = instance(n)
    before_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0, c0 = time.perf_counter(), time.process_time()
    r = run(f"online:{name}", inst, params={"bound": False})
    total, cpu = time.perf_counter() - t0, time.process_time() - c0
    events = r.info["replans"]
    return {"jobs": n, "tasks": inst.n_tasks, "total": total, "cpu": cpu, "replans": events,
            "plan_per_event": r.info["planning_seconds"] / events,
            "plan_cpu_per_event": r.info["planning_cpu_seconds"] / events,
            "other_cpu_per_event": (cpu - r.info["planning_cpu_seconds"]) / events,
            "sub_jobs": r.info["sub_instance_jobs_mean"], "instance_mb": before_mb,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def measure_alone(name: str, n: int) -> dict[str, float]:
    """:func:`measure` in a fresh process, so that its peak RSS is this run's own."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(measure, (name, n))


def slope(x: list[float], y: list[float]) -> float:
    """Least-squares slope of log y against log x."""
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000])
    ap.add_argument("--algorithms", nargs="+", default=["fifo", "synchpack3"])
    ap.add_argument("--memory", action="store_true",
                    help="each run in a fresh process: its peak RSS (MB), the instance's alone, and the peak "
                         "over the first algorithm's at the same size")
    args = ap.parse_args()
    print(f"{'algorithm':11s} {'jobs':>6s} {'tasks':>6s} {'wall s':>7s} {'cpu s':>7s} {'cpu x1st':>8s} "
          f"{'replans':>7s} {'plan ms/ev':>10s} {'plan cpu ms/ev':>14s} {'other cpu ms/ev':>15s} {'sub jobs':>8s}"
          + (f" {'peak MB':>8s} {'inst MB':>8s} {'peak x1st alg':>13s}" if args.memory else ""))
    first: dict[int, dict] = {}
    for name in args.algorithms:
        rows = []
        for n in args.sizes:
            m = measure_alone(name, n) if args.memory else measure(name, n)
            first.setdefault(n, m)
            rows.append(m)
            print(f"{name:11s} {n:6d} {m['tasks']:6d} {m['total']:7.1f} {m['cpu']:7.1f} "
                  f"{m['cpu'] / rows[0]['cpu']:8.2f} {m['replans']:7d} {1e3 * m['plan_per_event']:10.2f} "
                  f"{1e3 * m['plan_cpu_per_event']:14.2f} {1e3 * m['other_cpu_per_event']:15.2f} "
                  f"{m['sub_jobs']:8.1f}"
                  + (f" {m['peak_mb']:8.0f} {m['instance_mb']:8.0f} {m['peak_mb'] / first[n]['peak_mb']:13.2f}"
                     if args.memory else ""), flush=True)
        if len(rows) > 1:
            x = [r["jobs"] for r in rows]
            print(f"{name:11s} growth exponent (log-log slope vs jobs): CPU total "
                  f"{slope(x, [r['cpu'] for r in rows]):.2f}, wall total {slope(x, [r['total'] for r in rows]):.2f}, "
                  f"planning CPU per event {slope(x, [r['plan_cpu_per_event'] for r in rows]):.2f}, "
                  f"other CPU per event {slope(x, [r['other_cpu_per_event'] for r in rows]):.2f}, "
                  f"sub-instance jobs {slope(x, [r['sub_jobs'] for r in rows]):.2f}", flush=True)


if __name__ == "__main__":
    main()
