"""Speed of LP-Schedule (paper 004 §III-B): the separation oracle, Smith's rule, and the cutting-plane
loop by size, against the one-cut-per-round loop in the same run.

Instance (:func:`dag_instance`): n jobs of 1-50 tasks of sizes U[1, 100] on 100 machines with
Normal(50, 10) speeds, weights U[1, 10], a random DAG (each job gets 0-2 predecessors among the 50
jobs before it) and release times uniform over [0, W / (load μ)], W the total work: ``load`` = 2
means work arrives twice as fast as the cluster can serve it, the regime where (2) binds and
precedence interleaves the jobs (at load 0.7 almost no cut is ever violated).

Loops compared (``cuts=`` of :class:`schedrelax.models.queyranne.QueyranneCuts`):

* ``baseline``: Definition 1 as stated, the most violated prefix per round, no seed chain;
* ``fluid``: the default — every violated prefix per round as a running-sum chain, plus fluid
  cuts (2'): from 1,000 jobs (the segments loop) up to 30 a round at every violated peak and no
  seed chain; below (the cut pool) the Smith-order seed chain and up to ten a round at the peaks
  violated by more than 1e-5 relative (see :data:`schedrelax.rounding.spc.SEGMENTS_CUTS`); HiGHS
  with Devex pricing.

Reported in ``benchmark.extra_info``: seconds, rounds, cuts, the solver's share of the time
(HiGHS's own runs; the rest is Pyomo building rows, the hand-over and the oracle), and the speed-up
over the baseline where the baseline finishes. Optima must agree; nothing asserts a time. Run with
``python -m pytest benchmarks/test_queyranne_speed.py -q`` (about a minute); ``SCHEDRELAX_BENCH_LARGE=1``
adds the baseline at 2,000 jobs and the loop at 5,000 and 10,000 (measured 1.7 s and 5.5 s with
the default segments loop; the pool loop took 11 s and 56 s).

The table of issue #17 (one command, one process per run so that peak RSS is each run's own)::

    python benchmarks/test_queyranne_speed.py 1000 5000 10000 [--old] [--floor] [--loops=segments,pool]

prints size, seconds, peak RSS, rounds, rows in the LP at the end and the optimum of the loop with
the fluid cuts as segments (``loop="segments"``, the default from 1,000 jobs), of the cut pool
(``loop="pool"``: arrays, warm basis, one u_j row per job and fluid cut, idle cuts deleted) and,
with ``--old``, of the loop before issue #17 (``loop="pyomo"``), each with the relative difference of
its optimum from the segments loop's; ``--floor`` adds HiGHS's time on each loop's final LP alone,
solved cold (default options, 600 s limit).

Measured (this 2-core machine, one process per run; ``--loops=segments`` for 20,000 jobs and up; the
segments loop with its own cut defaults, :data:`schedrelax.rounding.spc.SEGMENTS_CUTS`: up to 30
fluid cuts a round at every violated peak, no seed chain; ``floor s`` is HiGHS alone on the loop's
final LP, solved cold)::

          n     loop  seconds   solver  peak MB rounds     rows            objective  floor s
       1000 segments      0.2      0.1      166     11     2556           584138.941
       5000 segments      1.7      1.3      248     13    11678           14269990.3
      10000 segments      5.5      4.5      397     14    22126          57114312.87     10.1
      20000 segments     19.7     18.0     1760     14    44027          230158772.9
      50000 segments     95.4     90.2     1397     15   105701           1441431963
     100000 segments    397.2    384.3     3730     17   210826           5764090370

With the cut rules before (10 fluid cuts a round, only at peaks violated by more than 1e-5, and the
Smith seed chain) the segments loop took 0.2 s, 1.9 s, 8.2 s and 59.2 s at 1,000-20,000 jobs
(peak 162, 247, 322 and 589 MB; optima 584138.9365, 14269990.36, 57114311.97, 230158765.8: the
new ones are 1.6e-8 and 3.1e-8 higher at 10,000 and 20,000 jobs; both are the optimum of an LP that
holds a subset of (2), so the higher is the closer), and at 100,000 jobs it was stopped after 24
rounds and 2,045 s with its objective 1.5e-7 below the new one and still rising. The pool loop
(unchanged) took 0.6 s, 11.3 s and 56.1 s at 1,000, 5,000 and 10,000 jobs (peak 229, 728 and
1,365 MB). The peak of 1,760 MB at 20,000 jobs is HiGHS's, inside its second solve (the same LP and
basis, written to files and solved in a fresh process, stay under 200 MB); 10,000 jobs need 397 MB.

Before the deletion of idle prefixes (issue #17, same machine) the segments loop took 0.3 s / 166 MB / 4,334 rows,
3.7 s / 276 MB / 22,002 rows and 22.0 s / 435 MB / 48,252 rows at 1,000, 5,000 and 10,000 jobs,
and 315 s / 943 MB at 20,000 jobs. What it was: every basis solve of HiGHS's dual simplex ran
along the chains' runs of basic z (at 10,000 jobs the seed chain ended with 9,999 of its 10,000 z
basic; FTRAN and BTRAN results 44-50 % dense, 3 ms an iteration at 48,000 rows). What is left: each
dual simplex iteration's BTRAN result is still about a third dense (measured at 20,000 jobs: 32 %
of 47,714 rows; PRICE 22 % of 132,757 columns), because (2) couples every job; so an iteration
costs O(n) and the rounds of n iterations (the first solve after the first cuts: 120,468
iterations, 234 s at 100,000 jobs) dominate. An interior point solve with crossover of that same
LP took 273 s. DAG jobs without release times, where (2) binds over the whole horizon, were much
slower than this benchmark's shape: 5,000 jobs took 182 s (see below).

**Without release times** (issue 32, item 4): ``dag_instance(n, release=False)`` is the same
instance (jobs, DAG, speeds, weights: the same random draws) with every release time 0; the table
command takes ``--no-release``. There the fluid segments' columns grew as jobs × cuts (each job had
a column s_jl in every segment below its d_j, at its upper bound: 430,585 columns after 21 rounds
at 2,000 jobs, HiGHS's time per round growing with them at about 1,000 iterations a round), until
:meth:`schedrelax.models.queyranne.FluidSegments.lift` moved the jobs' anchors up past the
segments they fill. Measured with ``--worker n segments --no-release``, one process per run,
before (main at 8c3594e) and after interleaved in one session, while another job kept this 2-core
machine loaded (so absolute times run high: before, 1,000 jobs took 3.4 s in a quieter moment and
5,000 jobs 211-217 s; after, 5,000 jobs took 29.8-42.0 s over the session)::

          n   before s  peak MB  rounds       objective  after s  peak MB  rounds       objective  rel. diff
       1000        5.3      264      16    507085.3338      2.3      186      16    507085.3307   -6.1e-09
       2000       32.6      570      21    2029895.434      8.0      257      21    2029895.450   +7.9e-09
       5000      266.3     1323      26    12065493.72     30.7      437      23    12065493.74   +1.7e-09

Both columns are optima of LP-Schedule's (3)-(4) with the prefix and fluid cuts each loop added,
stopped at the same 1e-6 relative violation of (2); they differ by less than 1e-8, and each lies
under its own upper bound (``lp_upper_bound``) by about 1e-6. With release times (the default
shape, same session): 1,000 jobs 0.17 s -> 0.19 s (10 -> 11 rounds, the last a pricing round of 2
iterations), 5,000 jobs 1.72 s -> 1.50 s (13 -> 12 rounds); peak RSS the same within 15 MB.

Where those 30 s go (5,000 jobs without release times, ``cProfile``): HiGHS's own runs 31.1 of
33.8 s (92 %), the Python side of the rounds 2.7 s. HiGHS's time per dual simplex iteration grows
with the columns (0.5 ms at 55,000 columns, 1.4 ms at 239,000 in round 11), so rounds 8-14, while
the columns made by splitting segments wait their 3 solves before :meth:`FluidSegments.lift
<schedrelax.models.queyranne.FluidSegments.lift>`, are half of it. Tried and dropped (issue 32,
item 4, round 2; same session, the unchanged code at 34.0-36.4 s, 23 rounds, 12065493.7397):

* ``LIFT_AFTER`` 2: 55.1 s (a 17 s test run alongside), 26 rounds, +2.8e-9 (2,000 jobs: 7.2 s vs 6.8-10.6 s, but -1.3e-8);
  ``LIFT_AFTER`` 1 at 2,000 jobs: 58.8 s, 34 rounds;
* a split's new columns inheriting their parent's solves at the upper bound (so lifted sooner):
  2,000 jobs 5.4-5.6 s vs 6.6-6.7 s, but at 5,000 jobs 47-48 s and 53 rounds (the lifted columns
  priced back one round at a time), optimum -1.6e-8; capped at 1 solve: 32.9 s, 24 rounds,
  -2.1e-8; capped at 1 with ``LIFT_AFTER`` 4: 35.7 s, 25 rounds;
* fluid cuts a round (``SEGMENTS_CUTS``) 20: 32.5 s, 27 rounds, -1.8e-8; 40: 37.4 s; at 2,000 jobs
  15: 5.7 s, -4.8e-8; 50: 10.7 s;
* HiGHS options on the warm re-solves: ``simplex_price_strategy`` 1 or 2 (the same iterations):
  35.7 s and 35.5 s; steepest edge (``simplex_dual_edge_weight_strategy`` 2) 70.6 s; Dantzig
  (0) 41.7 s, 26 rounds; ``dual_simplex_cost_perturbation_multiplier`` 0.5 35.6 s against 36.1 s
  just before (24 rounds, -1.9e-9: noise); at 2,000 jobs Dantzig pricing 10.5 s, ``dual_simplex_cost_perturbation_multiplier`` 0 12.9 s (22 rounds),
  primal simplex 15.6 s; presolve is not run on a warm start anyway;
* new last-segment columns started at their upper bound where d_j is above the segment, and
  columns fixed at their upper bound lifted at once: no change (the same iterations).

Kept: :class:`~schedrelax.models.queyranne.EditBuilder` grows its arrays by doubling instead of
copying them at every added piece (the same LP and path, the same optimum to the last digit):
interleaved old/new, 5,000 jobs 36.4 / 33.0 s and 34.3 / 32.6 s (Python side 2.9 -> 2.2 s), 2,000
jobs 6.6 / 6.5 s, 1,000 jobs 2.0 / 1.9 s, 5,000 jobs with release times 1.9 / 1.8 s. 5,000 jobs
without release times stays over the 30 s line: 34.0 s and 35.1 s (436-443 MB) on the final code
with the machine otherwise idle (load 0.4-0.8); the rest is HiGHS's.

Deep DAGs (:func:`test_deep_dag_jobs`): the ``dag-jobs`` setup's shape (50 DAG jobs, 197 stages,
31,236 tasks) on 20, 50 and 100 machines, where the chain cuts once stalled on round-off (2,070
rounds, ``converged`` False, issue #17): the default loop and the one-cut loop, with their optima.
"""

import gc
import os
import time

import numpy as np
import pytest

from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.instances.generate import dag_jobs
from schedrelax.models.queyranne import queyranne_separation, smith_rule_lp
from schedrelax.rounding.spc import solve_lp_schedule

LARGE = pytest.mark.skipif(not os.environ.get("SCHEDRELAX_BENCH_LARGE"), reason="set SCHEDRELAX_BENCH_LARGE=1")


def dag_instance(n, seed=0, load=2.0, machines=100, release=True):
    """The benchmark's instance; ``release=False``: the same jobs, DAG and speeds with every release
    time 0 (the random numbers are drawn all the same, so the two differ only in the releases)."""
    rng = np.random.default_rng(seed)
    speeds = np.abs(rng.normal(50.0, 10.0, machines)) + 1.0
    counts = rng.integers(1, 51, n)
    sizes = [rng.uniform(1.0, 100.0, c) for c in counts]
    work = float(sum(s.sum() for s in sizes))
    release = rng.uniform(0.0, work / (load * speeds.sum()), n) * (1.0 if release else 0.0)
    jobs = tuple(RelatedJob(tasks=s, weight=float(rng.uniform(1.0, 10.0)), release=float(r))
                 for s, r in zip(sizes, release))
    edges = sorted({(int(a), j) for j in range(1, n) for a in rng.integers(max(0, j - 50), j, rng.integers(0, 3))})
    return RelatedInstance(speeds=speeds, jobs=jobs, edges=edges, name=f"dag n={n} load={load}")


def timed(inst, cuts):
    gc.collect()
    t0 = time.perf_counter()
    lp = solve_lp_schedule(inst, cuts=cuts, seed_chain=False if cuts == "most" else None, max_rounds=20 * inst.n_jobs)
    assert lp.converged
    seconds = time.perf_counter() - t0
    return lp, {"seconds": seconds, "rounds": lp.rounds, "prefix_cuts": lp.prefix_cuts,
                "fluid_cuts": lp.fluid_cuts, "solver_share": lp.solve_seconds / seconds}


def test_oracle_on_100000_jobs(benchmark):
    rng = np.random.default_rng(0)
    n = 100_000
    p = rng.uniform(1.0, 5000.0, n)
    mu_j = rng.uniform(50.0, 5000.0, n)
    C = rng.uniform(0.0, p.sum() / 5000.0, n)
    sep = benchmark(queyranne_separation, C, p, mu_j, 5000.0)
    assert len(sep.order) == n
    benchmark.extra_info["jobs"] = n


def test_smith_rule_on_100000_jobs(benchmark):
    rng = np.random.default_rng(1)
    sizes, weights = rng.uniform(1, 10, 100_000), rng.uniform(1, 10, 100_000)
    inst = RelatedInstance(speeds=[1.0], jobs=tuple(RelatedJob(tasks=[s], weight=w) for s, w in zip(sizes, weights)))
    sol = benchmark(smith_rule_lp, inst)
    assert sol is not None


@pytest.mark.parametrize("n", [200, 500, 1000, pytest.param(2000, marks=LARGE)])
def test_fluid_loop_against_the_one_cut_baseline(benchmark, n):
    inst = dag_instance(n)
    base, base_info = timed(inst, "most")
    fast, fast_info = benchmark.pedantic(timed, args=(inst, "fluid"), rounds=1, iterations=1)
    assert fast.solution.objective == pytest.approx(base.solution.objective, rel=1e-6)
    benchmark.extra_info.update({f"baseline_{k}": v for k, v in base_info.items()})
    benchmark.extra_info.update({f"fluid_{k}": v for k, v in fast_info.items()})
    benchmark.extra_info["speedup"] = base_info["seconds"] / fast_info["seconds"]


@pytest.mark.parametrize("n", [2000, pytest.param(5000, marks=LARGE), pytest.param(10000, marks=LARGE)])
def test_fluid_loop_by_size(benchmark, n):
    _, info = benchmark.pedantic(timed, args=(dag_instance(n), "fluid"), rounds=1, iterations=1)
    benchmark.extra_info.update(info)


@pytest.mark.parametrize("n", [1000, pytest.param(2000, marks=LARGE), pytest.param(5000, marks=LARGE)])
def test_fluid_loop_without_release_times(benchmark, n):
    _, info = benchmark.pedantic(timed, args=(dag_instance(n, release=False), "fluid"), rounds=1, iterations=1)
    benchmark.extra_info.update(info)


@pytest.mark.parametrize("machines", [20, 50, 100])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_deep_dag_jobs(benchmark, seed, machines):
    inst = dag_jobs(seed, machines=machines)
    base, base_info = timed(inst, "most")
    fast, fast_info = benchmark.pedantic(timed, args=(inst, "fluid"), rounds=1, iterations=1)
    assert fast.solution.objective == pytest.approx(base.solution.objective, rel=1e-7)
    benchmark.extra_info.update({f"baseline_{k}": v for k, v in base_info.items()})
    benchmark.extra_info.update({f"fluid_{k}": v for k, v in fast_info.items()})
    benchmark.extra_info["speedup"] = base_info["seconds"] / fast_info["seconds"]


def _worker(n, loop, floor, release=True):
    """One run in this process: the numbers of one table row, as JSON on stdout."""
    import json
    import resource

    import highspy

    from schedrelax.rounding import spc
    from schedrelax.solvers import highs_backend

    seen = {}
    if loop in ("pool", "segments"):
        cls = highs_backend.HighsRowPool if loop == "pool" else highs_backend.HighsEditableLP
        init = cls.__init__

        def spy(self, *a, **k):
            init(self, *a, **k)
            seen["pool"] = self

        cls.__init__ = spy
    else:
        import pyomo.environ as pyo

        inner = spc.cutting_planes

        def spy_loop(model, *a, **k):
            out = inner(model, *a, **k)
            seen["rows"] = sum(1 for _ in model.component_data_objects(pyo.Constraint, active=True))
            return out

        spc.cutting_planes = spy_loop
    inst = dag_instance(n, release=release)
    t0 = time.perf_counter()
    lp = solve_lp_schedule(inst, loop=loop, max_rounds=20 * n)
    seconds = time.perf_counter() - t0
    row = {"n": n, "loop": loop, "seconds": seconds, "solver_seconds": lp.solve_seconds, "rounds": lp.rounds,
           "converged": lp.converged, "objective": lp.solution.objective,
           "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    if loop in ("pool", "segments"):
        pool = seen["pool"]
        row["rows"] = int(pool._highs.getNumRow())
        row["deleted_rows"] = int(getattr(pool, "deleted_rows", 0))
        if floor:
            h = highspy.Highs()
            h.setOptionValue("output_flag", False)
            h.setOptionValue("time_limit", 600.0)
            h.passModel(pool._highs.getLp())
            t1 = time.perf_counter()
            h.run()
            row["floor_seconds"] = time.perf_counter() - t1
            row["floor_status"] = h.modelStatusToString(h.getModelStatus())
    else:
        row["rows"] = seen["rows"]
    print(json.dumps(row))


def main(argv):
    import json
    import subprocess
    import sys

    sizes = [int(a) for a in argv if not a.startswith("--")] or [1000, 2000, 5000]
    loops = ["segments", "pool"] + (["pyomo"] if "--old" in argv else [])
    named = [a.split("=", 1)[1] for a in argv if a.startswith("--loops=")]
    if named:
        loops = named[-1].split(",")
        if unknown := set(loops) - {"segments", "pool", "pyomo"}:
            raise SystemExit(f"--loops takes segments, pool and pyomo; got {', '.join(sorted(unknown))}")
    floor = "--floor" in argv
    extra = (["--floor"] if floor else []) + (["--no-release"] if "--no-release" in argv else [])
    print(f"{'n':>7} {'loop':>8} {'seconds':>8} {'solver':>8} {'peak MB':>8} {'rounds':>6} {'rows':>8} "
          f"{'objective':>20} {'vs seg':>9} {'floor s':>8}")
    for n in sizes:
        out = {}
        for loop in loops:
            proc = subprocess.run([sys.executable, __file__, "--worker", str(n), loop] + extra,
                                  capture_output=True, text=True, check=True)
            row = out[loop] = json.loads(proc.stdout.strip().splitlines()[-1])
            vs = ""
            if loop != "segments" and "segments" in out:
                vs = f"{(out['segments']['objective'] - row['objective']) / row['objective']:+.1e}"
            fl = f"{row['floor_seconds']:.1f}" if "floor_seconds" in row else ""
            print(f"{n:>7} {loop:>8} {row['seconds']:>8.1f} {row['solver_seconds']:>8.1f} {row['peak_rss_mb']:>8.0f} "
                  f"{row['rounds']:>6} {row['rows']:>8} {row['objective']:>20.10g} {vs:>9} {fl:>8}"
                  + ("" if row["converged"] else "  NOT CONVERGED"), flush=True)


if __name__ == "__main__":
    import sys

    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        _worker(int(sys.argv[2]), sys.argv[3], "--floor" in sys.argv, release="--no-release" not in sys.argv)
    else:
        main(sys.argv[1:])
