"""Every packing and related algorithm honours busy machines (packing reservations, related ready
times): a hand-derived case each, and seeded random small instances through the verifier."""

from __future__ import annotations

import numpy as np
import pytest

from schedrelax import algorithms
from schedrelax.instances import PackingInstance, PackingJob, PackingTask, RelatedInstance, RelatedJob

PACKING = [s.name for s in algorithms.available("packing")]
RELATED = [s.name for s in algorithms.available("related")]


@pytest.mark.parametrize("name", PACKING)
def test_packing_task_waits_for_the_reservation(name):
    # One machine of capacity 2, all of it reserved until 3; one task of demand 1 and length 1.
    # Nothing can run before 3, so every algorithm completes the job at exactly 4.
    inst = PackingInstance(capacities=[2.0], jobs=(PackingJob(tasks=(PackingTask(1.0, [0], 1.0),)),),
                           reservations=[(0, 2.0, 3.0)])
    result = algorithms.run(name, inst)
    assert result.objective == pytest.approx(4.0)


@pytest.mark.parametrize("name", PACKING)
def test_packing_partial_reservation_leaves_room(name):
    # Capacity 2, 1 reserved until 10: a demand-1 task of length 2 fits beside it at once (C = 2);
    # a demand-2 task must wait for the reservation (C = 10 + 1 = 11). Weights make any order
    # that runs the small task first optimal: every algorithm here gets 2 + 11 = 13.
    inst = PackingInstance(capacities=[2.0], jobs=(PackingJob(tasks=(PackingTask(1.0, [0], 2.0),), weight=1.0),
                                                   PackingJob(tasks=(PackingTask(2.0, [0], 1.0),), weight=1.0)),
                           reservations=[(0, 1.0, 10.0)])
    assert algorithms.run(name, inst).objective == pytest.approx(13.0)


def _random_packing(rng: np.random.Generator) -> PackingInstance:
    jobs = []
    for _ in range(int(rng.integers(2, 5))):
        tasks = tuple(PackingTask(float(rng.integers(1, 4)), sorted(rng.choice(2, int(rng.integers(1, 3)),
                                                                                replace=False).tolist()),
                                  float(rng.integers(1, 4))) for _ in range(int(rng.integers(1, 3))))
        jobs.append(PackingJob(tasks=tasks, weight=float(rng.integers(1, 3)), release=float(rng.integers(0, 3))))
    res = [(0, float(rng.integers(1, 4)), float(rng.integers(1, 5))), (1, float(rng.integers(1, 3)),
                                                                        float(rng.integers(1, 5)))]
    return PackingInstance(capacities=[4.0, 4.0], jobs=tuple(jobs), reservations=res)


@pytest.mark.parametrize("name", PACKING)
def test_packing_algorithms_verify_with_random_reservations(name):
    rng = np.random.default_rng(7)
    for _ in range(4):
        inst = _random_packing(rng)
        result = algorithms.run(name, inst)  # raises InfeasibleScheduleError if reserved room is used
        assert result.schedule.start.min() >= 0


@pytest.mark.parametrize("name", RELATED)
def test_related_task_waits_for_a_busy_machine(name):
    # Speeds 1 and 4; the fast machine is busy until 3. A task of size 4 finishes at 4 on the slow
    # machine and at 3 + 1 = 4 on the fast one: either way C = 4 (any start before 3 on the fast
    # machine would give less).
    inst = RelatedInstance(speeds=[1.0, 4.0], jobs=(RelatedJob(tasks=[4.0]),), ready=[0.0, 3.0])
    assert algorithms.run(name, inst).objective == pytest.approx(4.0)


@pytest.mark.parametrize("name", RELATED)
def test_related_algorithms_verify_with_random_ready_times(name):
    rng = np.random.default_rng(3)
    for _ in range(4):
        jobs = tuple(RelatedJob(tasks=rng.integers(1, 4, size=int(rng.integers(1, 3))).astype(float),
                                weight=float(rng.integers(1, 3)), release=float(rng.integers(0, 3)))
                     for _ in range(4))
        inst = RelatedInstance(speeds=[1.0, 2.0, 3.0], jobs=jobs, edges=[(0, 1)],
                               ready=rng.integers(0, 4, size=3).astype(float))
        result = algorithms.run(name, inst)
        s = result.schedule
        assert (s.start >= inst.ready[s.machine] - 1e-9).all()
