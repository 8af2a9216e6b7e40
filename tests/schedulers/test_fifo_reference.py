"""``fifo_packing`` (issue 17 item 3: no rescan of every waiting task at each decision time; each
machine's waiting tasks in a segment tree) against its former version, kept verbatim in
tests/schedulers/_reference_online.py: the same pieces, in the same order, bit for bit, on

* 600 seeded random instances: 1-6 machines of mixed capacities (tiny, unit, large: the fit
  tolerance is relative to max(1, capacity)), multi-machine placement sets with tied and distinct
  times, demands on a grid (exact fits, many equal tasks) or continuous or a hair under a machine's
  room, releases with ties, reservations ending before, between and after releases;
* compressed instances (elsewhere rules: the tasks checked at every decision time);
* the online benchmark's generator (single-machine placement, Poisson arrivals) with and
  without reservations, and every sub-instance ``online:fifo`` plans on a small run of it.
"""

from __future__ import annotations

import numpy as np
import pytest

from schedrelax.algorithms import run
from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from schedrelax.instances.generate import synchpack
from schedrelax.online.remaining import RemainingWork
from schedrelax.schedulers import fifo
from tests.instances.test_packing_compressed import random_compressed
from tests.schedulers import _reference_online as ref
from tests.schedulers.test_cluster_scale import many_identical


def same(a, b) -> None:
    for col in ("job", "task", "machine", "start", "end", "rate"):
        assert getattr(a, col).tolist() == getattr(b, col).tolist(), col
    assert a.promises == b.promises


def random_instance(seed: int) -> PackingInstance:
    rng = np.random.default_rng(seed)
    M = int(rng.integers(1, 7))
    caps = rng.choice([1.0, 2.0, 0.5, 3.0, 1e-3, 1e3], size=M) if seed % 5 else np.ones(M)
    jobs = []
    grid = seed % 3
    for _ in range(int(rng.integers(1, 25))):
        tasks = []
        for _ in range(int(rng.integers(1, 6))):
            k = int(rng.integers(1, M + 1))
            place = rng.choice(M, size=k, replace=False)
            biggest = float(caps[place].max())
            if grid == 0:
                d = biggest * float(rng.choice([0.1, 0.25, 0.5, 1.0, 1 / 3]))
            elif grid == 1:
                d = biggest * float(rng.uniform(0.01, 1.0))
            else:
                d = biggest * float(rng.choice([1.0, 0.5, 1 / 3])) * (1 - float(rng.choice([0.0, 1e-12, 5e-10])))
            if rng.random() < 0.5:
                ptime = float(rng.choice([1.0, 2.0, 0.5]))
            else:
                ptime = rng.choice([1.0, 2.0, 3.0, 0.75], size=k).tolist()
            tasks.append(PackingTask(d, place.tolist(), ptime))
        jobs.append(PackingJob(tuple(tasks), weight=float(rng.integers(1, 4)),
                               release=float(rng.choice([0.0, 0.5, 1.0, 2.0, 3.5])) * float(rng.random() < 0.7)))
    reservations = []
    if seed % 2:
        for _ in range(int(rng.integers(1, 2 * M + 1))):
            i = int(rng.integers(0, M))
            reservations.append((i, float(caps[i]) * float(rng.uniform(0.05, 0.45)),
                                 float(rng.choice([0.25, 1.0, 1.5, 4.0, 9.0]))))
        held = np.zeros(M)
        keep = []
        for r in reservations:  # at most the machine's capacity in all
            if held[r[0]] + r[1] <= caps[r[0]]:
                held[r[0]] += r[1]
                keep.append(r)
        reservations = keep
    return PackingInstance(capacities=caps, jobs=tuple(jobs), reservations=reservations)


@pytest.mark.parametrize("seed", range(600))
def test_fifo_matches_the_full_rescan_on_random_instances(seed):
    inst = random_instance(seed)
    same(fifo.fifo_packing(inst).schedule, ref.fifo_packing(inst))


@pytest.mark.parametrize("seed", range(30))
def test_fifo_matches_the_full_rescan_on_compressed_instances(seed):
    for inst in (random_compressed(seed), many_identical(seed)):
        same(fifo.fifo_packing(inst).schedule, ref.fifo_packing(inst))


def benchmark_like(seed: int, reservations: bool) -> PackingInstance:
    inst = synchpack(seed, machines=10, n_jobs=60, tasks_per_job=(1, 20), alpha=None, local_machines=1 + seed % 3,
                     online=True)
    if not reservations:
        return inst
    rng = np.random.default_rng(seed)
    res = [(i, float(inst.capacities[i]) * 0.4, float(rng.uniform(0.1, 20.0)))
           for i in rng.choice(inst.n_machines, size=5, replace=False).tolist()]
    return PackingInstance(capacities=inst.capacities, jobs=inst.jobs, reservations=res)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("reservations", [False, True])
def test_fifo_matches_the_full_rescan_on_the_online_generator(seed, reservations):
    inst = benchmark_like(seed, reservations)
    same(fifo.fifo_packing(inst).schedule, ref.fifo_packing(inst))


@pytest.mark.parametrize("seed", range(3))
def test_fifo_matches_the_full_rescan_on_every_online_sub_instance(seed):
    """The sub-instances ``online:fifo`` plans (running tasks as reservations, remaining jobs with
    releases shifted), rebuilt from its trace: each planned by both versions."""
    inst = benchmark_like(seed, False)
    r = run("online:fifo", inst, params={"bound": False, "trace": True})
    work = RemainingWork(inst)
    checked = 0
    for step in r.info["plans"]:
        rem = work.at(step["time"])
        same(fifo.fifo_packing(rem.instance).schedule, ref.fifo_packing(rem.instance))
        checked += len(rem.instance.reservations) > 0
        work.commit(step["committed"])
    assert checked  # some sub-instances had running tasks as reservations
