"""The trusted constructor ``PackingInstance._from_validated`` and the whole-array sub-instances of
the online layer (issue 17 item 3) against the public, validating constructor fed the jobs the
former code built task by task (``old_build`` below, kept verbatim from
``schedrelax/online/remaining.py`` before the change): on every sub-instance of many online runs
(releases, instance reservations and running tasks as reservations, preemptive and
non-preemptive plans, cut tasks kept on their machine, single- and multi-machine placement,
compressed placement written out) the two instances are equal field by field — every array
(values, dtype, read-only), every job and task, every reservation.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from schedrelax.algorithms import run
from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from schedrelax.instances.generate import synchpack
from schedrelax.online.remaining import RemainingWork, shift_clock
from tests.instances.test_packing_compressed import random_compressed
from tests.schedulers.test_fifo_reference import random_instance


def old_build(work, now, running, keep_machine) -> tuple[PackingInstance, np.ndarray, np.ndarray]:
    """The former ``_PackingWork.at`` after its arrivals step, verbatim but for the names and the
    clock shift, which both builds take from :func:`shift_clock` (tested on its own in
    tests/online/test_shift_clock.py)."""
    inst = work.inst
    release = shift_clock(inst.release, now, work.grid)
    held = inst.reserve_until > now
    reservations = [(int(i), float(a), float(e)) for i, a, e in
                    zip(np.r_[inst.reserve_machine[held], running["machine"]],
                        np.r_[inst.reserve_demand[held], running["rate"]],
                        shift_clock(np.r_[inst.reserve_until[held], running["end"]], now, work.grid))]
    frac, pending, offset = work.frac, work.pending, work.offset
    jobs, task_map = [], []
    job_map = sorted(work.open)
    for j in job_map:
        tasks = []
        for t in range(inst.job_offset[j], inst.job_offset[j + 1]):
            if not pending[t]:
                continue
            place, times = work.machine[offset[t]:offset[t + 1]], work.time[offset[t]:offset[t + 1]]
            share = 1.0 - frac[t]
            if keep_machine and frac[t] > 0:
                k = int(np.flatnonzero(place == work.last_machine[t])[0])
                place, times = place[k:k + 1], times[k:k + 1]
            tasks.append(PackingTask(demand=float(inst.demand[t]), placement=place,
                                     processing_time=times * share))
            task_map.append(t)
        jobs.append(PackingJob(tasks=tuple(tasks), weight=float(inst.weights[j]),
                               release=max(0.0, float(release[j]))))
    sub = PackingInstance(capacities=inst.capacities, jobs=tuple(jobs), name=f"{inst.name} @ {now:g}",
                          reservations=reservations)
    return sub, np.array(job_map, dtype=np.int64), np.array(task_map, dtype=np.int64)


def same_value(a, b, where: str) -> None:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), where
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert np.array_equal(a, b), where
        assert a.flags.writeable == b.flags.writeable, where
    else:
        assert type(a) is type(b) and a == b, (where, a, b)


def same_instance(a: PackingInstance, b: PackingInstance) -> None:
    for f in dataclasses.fields(PackingInstance):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name == "jobs":
            assert len(x) == len(y)
            for j, (p, q) in enumerate(zip(x, y)):
                same_value(p.weight, q.weight, f"job {j} weight")
                same_value(p.release, q.release, f"job {j} release")
                assert type(p.tasks) is tuple and type(q.tasks) is tuple and len(p.tasks) == len(q.tasks)
                for k, (s, t) in enumerate(zip(p.tasks, q.tasks)):
                    for g in ("demand", "placement", "processing_time", "elsewhere_time"):
                        same_value(getattr(s, g), getattr(t, g), f"job {j} task {k} {g}")
        elif f.name == "reservations":
            assert x == y
            assert all(type(r.machine) is int and type(r.demand) is float and type(r.until) is float for r in x)
        else:
            same_value(x, y, f.name)
    for prop in ("place_offset", "place_task", "place_machine", "place_time"):
        same_value(getattr(a, prop), getattr(b, prop), prop)
    assert a.n_jobs == b.n_jobs and a.n_tasks == b.n_tasks and a.compressed == b.compressed
    assert a.to_dict() == b.to_dict()


def check_every_sub_instance(inst: PackingInstance, algorithm: str, **params) -> int:
    """Replay ``online:<algorithm>`` on *inst* and compare each sub-instance both ways."""
    r = run(f"online:{algorithm}", inst, params={"bound": False, "trace": True, **params})
    work = RemainingWork(inst)
    keep_machine = False
    n = 0
    for step in r.info["plans"]:
        now = step["time"]
        rem = work.at(now, keep_machine=keep_machine)
        want, job_map, task_map = old_build(work._packing, now, work.done.running(now), keep_machine)
        same_instance(rem.instance, want)
        assert rem.job_map.tolist() == job_map.tolist() and rem.task_map.tolist() == task_map.tolist()
        keep_machine = "no_migration" in step["plan"].promises
        work.commit(step["committed"])
        n += 1
    return n


ALGORITHMS = ["fifo", "synchpack3", "psrs", "synchpack1"]


@pytest.mark.parametrize("seed", range(40))
def test_sub_instances_equal_the_validated_ones_on_random_instances(seed):
    inst = random_instance(1000 + seed)
    assert check_every_sub_instance(inst, ALGORITHMS[seed % len(ALGORITHMS)]) >= 1


@pytest.mark.parametrize("seed", range(6))
def test_sub_instances_equal_the_validated_ones_on_the_online_generator(seed):
    inst = synchpack(seed, machines=8, n_jobs=40, tasks_per_job=(1, 10), alpha=None, local_machines=1 + seed % 3,
                     online=True)
    assert check_every_sub_instance(inst, ALGORITHMS[seed % 3], replan_on="events" if seed % 2 else "arrivals") > 5


@pytest.mark.parametrize("seed", range(6))
def test_sub_instances_equal_the_validated_ones_on_compressed_instances(seed):
    inst = random_compressed(seed)
    check_every_sub_instance(inst, ALGORITHMS[seed % 2])


def test_trusted_constructor_keeps_the_cheap_checks():
    from schedrelax.errors import InstanceError
    caps = PackingInstance(capacities=[1.0, 2.0], jobs=(PackingJob((PackingTask(1.0, [0], 1.0),)),)).capacities
    args = {"weights": np.ones(1), "release": np.zeros(1), "job_offset": np.array([0, 1]), "demand": np.ones(1),
            "place_offset": np.array([0, 1]), "place_machine": np.array([0]), "place_time": np.ones(1)}
    with pytest.raises(InstanceError, match="reservations hold"):
        PackingInstance._from_validated(caps, reserve_machine=np.array([0, 0]), reserve_demand=np.array([0.6, 0.6]),
                                        reserve_until=np.ones(2), **args)
    with pytest.raises(InstanceError, match="beyond the largest time"):
        PackingInstance._from_validated(caps, reserve_machine=np.zeros(0), reserve_demand=np.zeros(0),
                                        reserve_until=np.zeros(0), **{**args, "release": np.array([1e300])})
