"""Speed of online re-planning (issue 9: 1,000 arriving packing jobs under online:synchpack3,
re-planned at every arrival, in under 2 minutes in total). Figures — total seconds, re-plans,
planning seconds per event and the mean sub-instance — go to ``benchmark.extra_info``; nothing
asserts a time. Run with ``python -m pytest benchmarks/test_online_speed.py -q``. How the cost
grows with the number of jobs (1,000 to 10,000, issue 17): ``benchmarks/online_scaling.py``.
"""

import pytest

from schedrelax.algorithms import run
from schedrelax.instances.generate import synchpack


@pytest.mark.parametrize("name", ["synchpack3", "fifo"])
def test_1000_arriving_packing_jobs(benchmark, name):
    # The §7.2 setup: 100 machines, 1-100 tasks per job, single-machine placement (SynchPack-3's
    # PDP), Poisson arrivals at offered load 0.7.
    inst = synchpack(0, machines=100, n_jobs=1000, tasks_per_job=(1, 100), alpha=None, local_machines=1,
                     online=True)
    result = benchmark.pedantic(lambda: run(f"online:{name}", inst, params={"bound": False}), rounds=1,
                                iterations=1)
    info = result.info
    benchmark.extra_info.update({
        "jobs": inst.n_jobs, "tasks": inst.n_tasks, "replans": info["replans"],
        "planning_seconds": info["planning_seconds"],
        "planning_seconds_per_event": info["planning_seconds_per_event"],
        "planning_seconds_max": info["planning_seconds_max"],
        "sub_instance_jobs_mean": info["sub_instance_jobs_mean"],
        "total_seconds": result.timings["total"],
        "weighted_average_delay": info["metrics"]["weighted_average_delay"],
    })
