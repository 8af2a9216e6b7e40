"""Speed of the paper 001 MapReduce policies on the §VII-A setting: N = 100 machines, Poisson
arrivals at λ = 2 per slot, T = 500 slots (about 1,000 jobs), the Exp(5) / Exp(40) workload.

Each policy runs through ``algorithms.run`` (simulation, verification and evaluation) in the three
scenarios of the reproduction (``preemptive`` = unit Reduce tasks, the paper's eq. (1);
``preemptive-tasks``; ``non-preemptive``). One more benchmark times every policy alternately in
one process and reports each one's median time as a ratio to FIFO's in ``extra_info``. Nothing
asserts a time (the issue's target is under 1 s per policy). Run with
``python -m pytest benchmarks -q``.
"""

import gc
import statistics
import time

import pytest

from schedrelax.algorithms import run
from schedrelax.experiments.reproductions.asrpt import POLICIES, SCENARIOS, scenario_instance
from schedrelax.instances.generate import asrpt as asrpt_setting
from schedrelax.schedulers.mapreduce_sim import srpt_lower_bound

ROUNDS = 5


@pytest.fixture(scope="module")
def paper_instance():
    return asrpt_setting(0, workload="exp-large-reduce")


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("name", POLICIES)
def test_policy(benchmark, paper_instance, name, scenario):
    inst, preemptive = scenario_instance(paper_instance, scenario)
    res = benchmark.pedantic(run, args=(name, inst), kwargs={"params": {"preemptive": preemptive}},
                             rounds=ROUNDS, iterations=1, warmup_rounds=1)
    benchmark.extra_info.update({"jobs": inst.n_jobs, "reduce_tasks": len(inst.reduce_work),
                                 "pieces": len(res.schedule), "slots": res.info["slots_simulated"],
                                 "ratio_to_srpt_bound": res.ratio_to_bound})


def test_srpt_bound(benchmark, paper_instance):
    bound = benchmark(srpt_lower_bound, paper_instance)
    benchmark.extra_info["srpt_bound"] = bound


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_ratios_to_fifo(benchmark, paper_instance, scenario):
    inst, preemptive = scenario_instance(paper_instance, scenario)
    samples = {name: [] for name in POLICIES}
    for _ in range(ROUNDS):
        for name in POLICIES:
            gc.collect()
            start = time.perf_counter()
            run(name, inst, params={"preemptive": preemptive})
            samples[name].append(time.perf_counter() - start)
    median = {name: statistics.median(times) for name, times in samples.items()}
    benchmark.extra_info.update({f"{name}_seconds": s for name, s in median.items()}
                                | {f"{name}_over_fifo": s / median["fifo"] for name, s in median.items()})
    benchmark.pedantic(run, args=("fifo", inst), kwargs={"params": {"preemptive": preemptive}},
                       rounds=ROUNDS, iterations=1)
