"""Speed of paper 002's FLEX pipeline (issue: FLEX on 1,000 jobs and 10,000 slots plans in under
1 s; the epoch simulator runs 1,000 arriving jobs in under 10 s), and the sizes and solve times of
the exact malleable MIP and of the exhaustive search. Figures go to ``benchmark.extra_info``;
nothing asserts a time. Run with ``python -m pytest benchmarks/test_flex_speed.py -q``.
"""

import time

import numpy as np
import pytest

from schedrelax.algorithms import run
from schedrelax.instances import single_job_flows
from schedrelax.instances.generate import flex
from schedrelax.models.malleable_mip import build_malleable_mip
from schedrelax.rounding.flex import flex_allocator
from schedrelax.schedulers.malleable_packing import epoch_simulation, fair_allocator, mps_allocator
from schedrelax.schedules import evaluate, verify


@pytest.mark.parametrize("name", ["flex-rap", "flex", "fair-hfs", "fifo"])
@pytest.mark.parametrize("cost, objective", [("completion", "minisum"), ("weighted_tardy", "minisum"),
                                             ("sla", "minisum"), ("stretch", "minimax")])
def test_plan_1000_jobs_10000_slots(benchmark, name, cost, objective):
    inst = flex(0, n_jobs=1000, processors=10000, cost=cost, objective=objective)
    result = benchmark.pedantic(lambda: run(name, inst), rounds=3, iterations=1)
    benchmark.extra_info.update({"objective": result.objective, "intervals": result.info.get("intervals"),
                                 "rap_method": result.info.get("rap_method")})


def arriving_jobs(n=1000, processors=100, load=0.9, seed=0):
    """§4.1's jobs arriving by a Poisson process at the given load (mean work / (P · load) apart)."""
    base = flex(seed, n_jobs=n, processors=processors)
    gaps = np.random.default_rng(seed).exponential(base.size.mean() / (processors * load), n)
    release = np.cumsum(gaps) - gaps[0]
    return single_job_flows(processors, base.size.tolist(), base.max_procs.tolist(), base.min_procs.tolist(),
                            release=release.tolist())


@pytest.mark.parametrize("name", ["fifo", "fair", "flex-rap", "flex"])
def test_epoch_simulator_1000_arrivals(benchmark, name):
    inst = arriving_jobs()
    allocator, minima = {"fifo": (mps_allocator(minima=False), False), "fair": (fair_allocator, True),
                         "flex-rap": (flex_allocator(improve=False), True), "flex": (flex_allocator(), True)}[name]
    sim = benchmark.pedantic(lambda: epoch_simulation(inst, allocator, 1.0, respects_minima=minima),
                             rounds=1, iterations=1)
    verify(inst, sim.schedule)
    flow = evaluate(inst, sim.schedule).metrics["total_flow_time"] / inst.n_jobs
    benchmark.extra_info.update({"epochs": sim.epochs, "allocator_seconds": sim.allocator_seconds,
                                 "mean_flow_time": flow})


@pytest.mark.parametrize("n_jobs", [4, 6, 8])
def test_malleable_mip_size_and_time(benchmark, n_jobs):
    inst = flex(0, n_jobs=n_jobs, processors=100)
    t0 = time.perf_counter()
    model = build_malleable_mip(inst)
    build = time.perf_counter() - t0
    result = benchmark.pedantic(lambda: run("mip", inst), rounds=1, iterations=1)
    benchmark.extra_info.update({"variables": model.nvariables(), "binaries": sum(
        1 for v in model.component_data_objects(ctype=type(model.c)) if v.is_binary() and not v.fixed),
        "constraints": model.nconstraints(), "build_seconds": build, "solve_seconds": result.timings["solve"],
        "objective": result.objective})


@pytest.mark.parametrize("cost, objective", [("completion", "minisum"), ("weighted_tardy", "minisum"),
                                             ("stretch", "minimax")])
def test_exhaustive_10_jobs(benchmark, cost, objective):
    inst = flex(3, cost=cost, objective=objective)
    result = benchmark.pedantic(lambda: run("exhaustive", inst), rounds=1, iterations=1)
    benchmark.extra_info.update({"nodes": result.info["nodes"], "pruned": result.info["pruned"]})
