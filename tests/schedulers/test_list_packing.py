"""Tests of schedrelax.schedulers.list_packing: each list scheduler on hand-traced cases, the
shift-back never delaying a piece, and schedules that pass verify."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from schedrelax.algorithms import run
from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from schedrelax.schedulers.list_packing import (
    fastest_machine,
    interval_fraction_packing,
    left_shift,
    nonpreemptive_list_packing,
    packing_schedule,
    preemptive_list_packing,
)
from schedrelax.schedules import evaluate, verify
from tests.strategies import packing_instances


def runs(p):
    return sorted((int(i), int(m), float(s), float(e)) for i, m, s, e in zip(p.item, p.machine, p.start, p.end))


def arr(*xs, dtype=float):
    return np.array(xs, dtype=dtype)


def test_fractions_of_one_task_never_run_together():
    # Task 0 has a fraction on machine 0 and one on machine 1 (interval 0, length 1, demand 1).
    # At 0 the first starts; the second must wait for it (placement rule ii) and runs [1, 2).
    p = interval_fraction_packing(arr(0, 1, dtype=int), arr(1.0, 1.0), arr(1.0, 1.0), arr(0, 0, dtype=int),
                                  arr(0, 0, dtype=int), arr(0.0, 0.0), arr(1.0, 1.0))
    assert runs(p) == [(0, 0, 0.0, 1.0), (1, 1, 1.0, 2.0)]
    assert p.finish.tolist() == [1.0, 2.0]


def test_a_lower_interval_fraction_preempts_a_higher_one():
    # Capacity 1. List: C (interval 0, a = 0.5, length 1), B (interval 0, a = 1, length 2),
    # A (interval 1, a = 0.5, length 2). At 0: C starts, B does not fit, A does. At 1 C completes
    # and B (interval 0) waits: A is preempted, B runs [1, 3), then A resumes [3, 4).
    p = interval_fraction_packing(arr(0, 0, 0, dtype=int), arr(1.0, 2.0, 2.0), arr(0.5, 1.0, 0.5),
                                  arr(2, 1, 0, dtype=int), arr(0, 0, 1, dtype=int), arr(0.0, 0.0, 0.0), arr(1.0))
    assert runs(p) == [(0, 0, 0.0, 1.0), (1, 0, 1.0, 3.0), (2, 0, 0.0, 1.0), (2, 0, 3.0, 4.0)]


def test_preemptive_list_packing_refills_from_the_top():
    # Capacity 1. A (rank 1, a = 1, p = 2) released at 0, B (rank 0, a = 1, p = 1) at 1: A runs,
    # B preempts it at 1, A resumes at 2.
    p = preemptive_list_packing(arr(0, 0, dtype=int), arr(2.0, 1.0), arr(1.0, 1.0), arr(1, 0), arr(0.0, 1.0), arr(1.0))
    assert runs(p) == [(0, 0, 0.0, 1.0), (0, 0, 2.0, 3.0), (1, 0, 1.0, 2.0)]
    # X (a = 0.6, p = 2), Y (a = 0.6, p = 1), Z (a = 0.4, p = 1) in that order: Y does not fit
    # next to X, Z does (backfilling); when Z completes X keeps running; Y runs after X.
    p = preemptive_list_packing(arr(0, 0, 0, dtype=int), arr(2.0, 1.0, 1.0), arr(0.6, 0.6, 0.4), arr(0, 1, 2),
                                arr(0.0, 0.0, 0.0), arr(1.0))
    assert runs(p) == [(0, 0, 0.0, 2.0), (1, 0, 2.0, 3.0), (2, 0, 0.0, 1.0)]


def test_nonpreemptive_list_packing_never_interrupts():
    # The A/B case without preemption: A keeps the machine, B starts at 2. Machines are separate:
    # an item on machine 1 released at 5 starts at 5.
    p = nonpreemptive_list_packing(arr(0, 0, 1, dtype=int), arr(2.0, 1.0, 1.0), arr(1.0, 1.0, 1.0), arr(1, 0, 0),
                                   arr(0.0, 1.0, 5.0), arr(1.0, 1.0))
    assert runs(p) == [(0, 0, 0.0, 2.0), (1, 0, 2.0, 3.0), (2, 1, 5.0, 6.0)]


def test_left_shift_by_hand():
    # Machine 0 (capacity 1): piece 0 of task 0 in [0, 1) and piece 1 of task 1 in [3, 4), both
    # a = 1: piece 1 moves to [1, 2). Piece 2, task 0 again, on machine 1 in [5, 6): its machine
    # is free but task 0 runs until 1, so it moves to [1, 2). Piece 3 (task 2, a = 0.5, released
    # at 2.5) in [7, 8) on machine 1: the machine is free from 2 on, the release says 2.5.
    new = left_shift(arr(0, 0, 1, 1, dtype=int), arr(0.0, 3.0, 5.0, 7.0), arr(1.0, 4.0, 6.0, 8.0),
                     arr(0, 1, 0, 2, dtype=int), arr(1.0, 1.0, 1.0, 0.5), arr(0.0, 0.0, 0.0, 2.5), arr(1.0, 1.0))
    assert new.tolist() == [0.0, 1.0, 1.0, 2.5]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(packing_instances(max_machines=3, max_jobs=4, max_tasks=3, releases=True))
def test_left_shift_keeps_schedules_feasible_and_never_delays(inst):
    for name, params in (("fifo", {}), ("synchpack1", {"shift_back": False, "lam": 0.5})):
        s = run(name, inst, params=params).schedule
        g = inst.job_offset[s.job] + s.task
        new = left_shift(s.machine, s.start, s.end, g, s.rate, inst.release[s.job], inst.capacities)
        assert (new <= s.start + 1e-12).all()
        shifted = packing_schedule(inst, g, s.machine, new, new + (s.end - s.start), promises=s.promises)
        verify(inst, shifted)
        assert (evaluate(inst, shifted).completion <= evaluate(inst, s).completion + 1e-9).all()


def test_fastest_machine_skips_unusable_machines_and_breaks_ties_low():
    inst = PackingInstance([1.0, 0.5, 1.0, 1.0], (
        PackingJob((PackingTask(1.0, [0, 1, 2], [3.0, 1.0, 2.0]), PackingTask(0.5, [3, 2], [2.0, 2.0]))),))
    machine, ptime = fastest_machine(inst)
    assert machine.tolist() == [2, 2] and ptime.tolist() == [2.0, 2.0]


def test_packing_schedule_joins_touching_runs():
    inst = PackingInstance([1.0], (PackingJob((PackingTask(1.0, [0], 2.0),)),))
    s = packing_schedule(inst, arr(0, 0, dtype=int), arr(0, 0, dtype=int), arr(0.0, 1.0), arr(1.0, 2.0))
    assert len(s) == 1 and s.start.tolist() == [0.0] and s.end.tolist() == [2.0]
    verify(inst, s)


def test_an_item_larger_than_its_machine_is_an_error():
    with pytest.raises(RuntimeError, match="larger"):
        preemptive_list_packing(arr(0, dtype=int), arr(1.0), arr(2.0), arr(0), arr(0.0), arr(1.0))
    with pytest.raises(RuntimeError, match="larger"):
        nonpreemptive_list_packing(arr(0, dtype=int), arr(1.0), arr(2.0), arr(0), arr(0.0), arr(1.0))


@pytest.mark.parametrize("seed", range(30))
def test_max_tree_under_point_updates_equals_a_tree_built_afresh(seed):
    """MaxTree.set stops walking up where a node's maximum does not change; after any sequence
    of updates (ties, -inf, repeats) every node equals the tree built from the final values,
    and first_at_least equals a scan."""
    from schedrelax.schedulers.list_packing import MaxTree

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 70))
    values = rng.choice([-np.inf, -1.0, 0.0, 0.5, 1.0, 2.0], size=n)
    tree = MaxTree(values.copy())
    for _ in range(300):
        i = int(rng.integers(n))
        values[i] = rng.choice([-np.inf, -1.0, 0.0, 0.5, 1.0, 2.0, float(rng.uniform(-1, 2))])
        tree.set(i, float(values[i]))
    assert tree.tree == MaxTree(values).tree
    for x in (-np.inf, -1.0, 0.25, 1.0, 2.0, 3.0):
        for lo in (0, n // 2, n - 1):
            hits = [k for k in range(lo, n) if values[k] >= x]
            assert tree.first_at_least(x, lo) == (hits[0] if hits else -1)
