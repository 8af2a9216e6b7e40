"""Tests of schedrelax.schedulers.packing_baselines: PSRS, Tetris-p, Tetris-np and JSQ-MW on
hand-traced cases, and verified schedules (packing, placement, synchronisation, promises) on
random instances."""

import pytest
from hypothesis import HealthCheck, given, settings

from schedrelax import algorithms
from schedrelax.algorithms import run
from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from tests.strategies import packing_instances

BASELINES = ("psrs", "tetris", "tetris-np", "jsq-mw")


def job(*tasks, weight=1.0, release=0.0):
    return PackingJob(tasks=tuple(PackingTask(a, place, p) for a, place, p in tasks), weight=weight, release=release)


def test_registered_names():
    names = {s.name for s in algorithms.available("packing")}
    assert {*BASELINES, "mip", "synchpack1", "synchpack2", "synchpack3"} <= names


def test_psrs_lists_jobs_by_smith_ratio():
    # Capacity 1. Ratios w / (a·p): A (a = 1, p = 4) 1/4; B (a = 0.5, p = 2) 1; C (w = 2, a = 1,
    # p = 2) 1. List B, C (tie by index), A. B runs [0, 2); neither C nor A fits beside it; C [2, 4),
    # A [4, 8). Σ w C = 8 + 2 + 2·4 = 18.
    inst = PackingInstance([1.0], (job((1.0, [0], 4.0)), job((0.5, [0], 2.0)), job((1.0, [0], 2.0), weight=2.0)))
    res = run("psrs", inst)
    assert res.evaluation.completion.tolist() == pytest.approx([8.0, 2.0, 4.0])
    assert res.objective == pytest.approx(18.0)


def test_psrs_preempts_for_a_released_higher_ratio_job():
    # A (a = 1, p = 3) runs from 0; B (a = 1, p = 1, ratio 1 > 1/3) arrives at 1 and takes the
    # machine; A resumes at 2: C = (4, 2).
    inst = PackingInstance([1.0], (job((1.0, [0], 3.0)), job((1.0, [0], 1.0), release=1.0)))
    res = run("psrs", inst)
    assert res.evaluation.completion.tolist() == pytest.approx([4.0, 2.0])
    assert len(res.schedule) == 3


def test_tetris_prefers_aligned_local_placement():
    # Machine 0: capacity 2, remote for the task (time 4); machine 1: capacity 1, local (time 2).
    # Alignment (a/m)(free/m): machine 0 (0.5/2)(2/2)·0.9 = 0.225, machine 1 (0.5/1)(1/1) = 0.5.
    inst = PackingInstance([2.0, 1.0], (job((0.5, [0, 1], [4.0, 2.0])),))
    for name in ("tetris", "tetris-np"):
        assert run(name, inst).schedule.machine.tolist() == [1]


def test_tetris_srpt_term_is_weighted():
    # Capacity 1, a = 1: J0 (p = 3), J1 (p = 1); equal alignment, so the smaller remaining volume
    # per weight goes first: J1 then J0, Σ C = 1 + 4 = 5. With w_0 = 10, J0's 3/10 < 1: 30 + 4 = 34.
    inst = PackingInstance([1.0], (job((1.0, [0], 3.0)), job((1.0, [0], 1.0))))
    assert run("tetris-np", inst).objective == pytest.approx(5.0)
    heavy = PackingInstance([1.0], (job((1.0, [0], 3.0), weight=10.0), job((1.0, [0], 1.0))))
    assert run("tetris-np", heavy).objective == pytest.approx(34.0)


def test_tetris_p_preempts_and_tetris_np_does_not():
    # J0 (p = 3) from 0, J1 (p = 1) released at 1, a = 1 on capacity 1. Tetris-p re-packs at 1:
    # J1 (remaining 1 < 2) runs [1, 2), J0 resumes: Σ C = 4 + 2 = 6. Tetris-np: 3 + 4 = 7.
    inst = PackingInstance([1.0], (job((1.0, [0], 3.0)), job((1.0, [0], 1.0), release=1.0)))
    assert run("tetris", inst).objective == pytest.approx(6.0)
    assert run("tetris-np", inst).objective == pytest.approx(7.0)


def test_jsq_mw_serves_a_remote_queue_from_idle_room():
    # Both tasks are local to machine 0 only (time 2) and may run remotely on machine 1 (time 4):
    # both join queue 0. Machine 0 takes job 0's task; machine 1, idle, serves queue 0 (work 2,
    # rate 2/4 > 0): job 1's task runs remotely in [0, 4).
    inst = PackingInstance([1.0, 1.0], (job((1.0, [0, 1], [2.0, 4.0])), job((1.0, [0, 1], [2.0, 4.0]))))
    res = run("jsq-mw", inst)
    assert res.schedule.machine.tolist() == [0, 1]
    assert res.evaluation.completion.tolist() == pytest.approx([2.0, 4.0])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(packing_instances(max_machines=3, max_jobs=5, max_tasks=3, releases=True))
def test_baselines_give_verified_schedules(inst):
    for name in BASELINES:
        res = run(name, inst)  # verify: capacity, placement, one machine at a time, releases, promises
        assert "no_migration" in res.schedule.promises
        assert ("non_preemptive" in res.schedule.promises) == (name in ("tetris-np", "jsq-mw"))
        assert res.lower_bound is None and res.guarantee is None
