"""Speed of LP-Schedule (paper 004 §III-B): the separation oracle, Smith's rule, and the cutting-plane
loop by size, against the one-cut-per-round loop in the same run.

Instance (:func:`dag_instance`): n jobs of 1-50 tasks of sizes U[1, 100] on 100 machines with
Normal(50, 10) speeds, weights U[1, 10], a random DAG (each job gets 0-2 predecessors among the 50
jobs before it) and release times uniform over [0, W / (load μ)], W the total work: ``load`` = 2
means work arrives twice as fast as the cluster can serve it, the regime where (2) binds and
precedence interleaves the jobs (at load 0.7 almost no cut is ever violated).

Loops compared (``cuts=`` of :class:`schedrelax.models.queyranne.QueyranneCuts`):

* ``baseline``: Definition 1 as stated, the most violated prefix per round, no seed chain;
* ``fluid``: the default — Smith-order seed chain, every violated prefix per round as a
  running-sum chain, plus up to ten fluid cuts (2') per round at the peaks violated by more
  than 1e-5 relative; HiGHS with Devex pricing.

Reported in ``benchmark.extra_info``: seconds, rounds, cuts, the solver's share of the time
(HiGHS's own runs; the rest is Pyomo building rows, the hand-over and the oracle), and the speed-up
over the baseline where the baseline finishes. Optima must agree; nothing asserts a time. Run with
``python -m pytest benchmarks/test_queyranne_speed.py -q`` (about a minute); ``SCHEDRELAX_BENCH_LARGE=1``
adds the baseline at 2,000 jobs and the loop at 5,000 and 10,000 (measured 25 s and 2 min).
"""

import gc
import os
import time

import numpy as np
import pytest

from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.models.queyranne import queyranne_separation, smith_rule_lp
from schedrelax.rounding.spc import solve_lp_schedule

LARGE = pytest.mark.skipif(not os.environ.get("SCHEDRELAX_BENCH_LARGE"), reason="set SCHEDRELAX_BENCH_LARGE=1")


def dag_instance(n, seed=0, load=2.0, machines=100):
    rng = np.random.default_rng(seed)
    speeds = np.abs(rng.normal(50.0, 10.0, machines)) + 1.0
    counts = rng.integers(1, 51, n)
    sizes = [rng.uniform(1.0, 100.0, c) for c in counts]
    work = float(sum(s.sum() for s in sizes))
    release = rng.uniform(0.0, work / (load * speeds.sum()), n)
    jobs = tuple(RelatedJob(tasks=s, weight=float(rng.uniform(1.0, 10.0)), release=float(r))
                 for s, r in zip(sizes, release))
    edges = sorted({(int(a), j) for j in range(1, n) for a in rng.integers(max(0, j - 50), j, rng.integers(0, 3))})
    return RelatedInstance(speeds=speeds, jobs=jobs, edges=edges, name=f"dag n={n} load={load}")


def timed(inst, cuts):
    gc.collect()
    t0 = time.perf_counter()
    lp = solve_lp_schedule(inst, cuts=cuts, seed_chain=cuts != "most", max_rounds=20 * inst.n_jobs)
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
