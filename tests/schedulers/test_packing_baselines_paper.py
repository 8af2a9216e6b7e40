"""Tests of the paper's readings of the paper 003 §7 baselines (psrs-paper, jsq-mw-paper) beside
ours, hand-solved where the two differ; the machine choice at list-scheduling time
(earliest_finish_machines) against a brute force; and the index tie-breaking that piled work on
machine 0 (PSRS, SynchPack-3 with flexible placement; JSQ-MW's start)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedrelax import algorithms
from schedrelax.algorithms import run
from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from schedrelax.instances.packing import Reservation
from schedrelax.schedulers.list_packing import (
    Reservations,
    earliest_finish_machines,
    preemptive_list_packing,
)
from tests.strategies import packing_instances

PAPER = ("psrs-paper", "jsq-mw-paper")


def job(*tasks, weight=1.0, release=0.0):
    return PackingJob(tasks=tuple(PackingTask(a, place, p) for a, place, p in tasks), weight=weight, release=release)


def test_registered_with_the_reading_in_the_summary():
    specs = {s.name: s for s in algorithms.available("packing")}
    for name in PAPER:
        assert name in specs
        assert "paper" in specs[name].summary and "003 §7" in specs[name].paper


# ------------------------------------------------------------------------- PSRS: job vs task ratio

def test_psrs_job_ratio_vs_paper_task_ratio():
    # Capacity 1. A: two tasks (a = 1, p = 1); B: one task (a = 1, p = 1.5); equal weights.
    # Ours (job ratio w / Σ a p): A 1/2, B 1/1.5 = 0.67 -> B first: B [0, 1.5), A's tasks
    #   [1.5, 2.5), [2.5, 3.5): C = (3.5, 1.5), Σ = 5.
    # Paper (task ratio w / (a p)): A's tasks 1/1 = 1 each > B's 0.67 -> A [0, 1), [1, 2), B [2, 3.5):
    #   C = (2, 3.5), Σ = 5.5.
    inst = PackingInstance([1.0], (job((1.0, [0], 1.0), (1.0, [0], 1.0)), job((1.0, [0], 1.5))))
    ours, paper = run("psrs", inst), run("psrs-paper", inst)
    assert ours.evaluation.completion.tolist() == pytest.approx([3.5, 1.5])
    assert ours.objective == pytest.approx(5.0)
    assert paper.evaluation.completion.tolist() == pytest.approx([2.0, 3.5])
    assert paper.objective == pytest.approx(5.5)


def test_psrs_paper_splits_a_job_across_the_list():
    # Capacity 1, equal weights. A: tasks (a = 1, p = 1) and (a = 1, p = 3); B: one task (a = 1, p = 2).
    # Task ratios: A0 1, B 0.5, A1 0.33 -> A0 [0, 1), B [1, 3), A1 [3, 6): C = (6, 3), Σ = 9.
    # Job ratios: A 1/4, B 1/2 -> B [0, 2), A0 [2, 3), A1 [3, 6): C = (6, 2), Σ = 8.
    inst = PackingInstance([1.0], (job((1.0, [0], 1.0), (1.0, [0], 3.0)), job((1.0, [0], 2.0))))
    assert run("psrs-paper", inst).objective == pytest.approx(9.0)
    assert run("psrs", inst).objective == pytest.approx(8.0)


# ------------------------------------------------------------------------ JSQ-MW: FIFO vs priority

def test_jsq_mw_priority_queue_vs_paper_fifo_queue():
    # One machine, capacity 1, a = 1. J0: p = 4, J1: p = 1, equal weights, both at time 0.
    # Paper (FIFO, arrival = index order): J0 [0, 4), J1 [4, 5): Σ C = 4 + 5 = 9.
    # Ours (Smith ratio: J1 1 > J0 1/4): J1 [0, 1), J0 [1, 5): Σ C = 1 + 5 = 6.
    inst = PackingInstance([1.0], (job((1.0, [0], 4.0)), job((1.0, [0], 1.0))))
    assert run("jsq-mw-paper", inst).objective == pytest.approx(9.0)
    assert run("jsq-mw", inst).objective == pytest.approx(6.0)


def test_jsq_mw_paper_fifo_follows_release_not_index():
    # J0 released at 1, J1 at 0 (capacity 1, a = 1, p = 2 each): J1 [0, 2), J0 [2, 4): C = (4, 2).
    inst = PackingInstance([1.0], (job((1.0, [0], 2.0), release=1.0), job((1.0, [0], 2.0))))
    assert run("jsq-mw-paper", inst).evaluation.completion.tolist() == pytest.approx([4.0, 2.0])


@pytest.mark.parametrize("name", ["jsq-mw", "jsq-mw-paper"])
def test_jsq_mw_does_not_send_a_task_remote_while_its_local_machine_idles(name):
    # One task, local on machine 1 (p = 2), remote on machine 0 (p = 4 = α·2). At time 0 machine 0
    # came first in index order and served queue 1 (weight 2 · 2/4 = 1 > nothing): C = 4, twice the
    # optimum. Local service comes first now: machine 1 runs it in [0, 2).
    inst = PackingInstance([1.0, 1.0], (job((1.0, [0, 1], [4.0, 2.0])),))
    res = run(name, inst)
    assert res.schedule.machine.tolist() == [1]
    assert res.objective == pytest.approx(2.0)


@pytest.mark.parametrize("name", ["jsq-mw", "jsq-mw-paper"])
def test_jsq_mw_each_task_on_its_own_machine(name):
    # Three tasks, task k local on machine k (p = 1), remote elsewhere (p = 2): each runs at home,
    # Σ C = 3 (the old start gave machine 0 task 0, machine 1 task 1 — or a remote task — and the
    # Google part with `local` placement paid exactly 2x the optimum).
    tasks = [job((1.0, [k, (k + 1) % 3, (k + 2) % 3], [1.0, 2.0, 2.0])) for k in range(3)]
    res = run(name, PackingInstance([1.0, 1.0, 1.0], tuple(tasks)))
    assert sorted(res.schedule.machine.tolist()) == [0, 1, 2]
    assert res.objective == pytest.approx(3.0)


# ------------------------------------------------- machine choice: index ties piled on machine 0

@pytest.mark.parametrize("name", ["psrs", "psrs-paper", "synchpack3"])
def test_identical_machines_are_not_all_machine_0(name):
    # Three identical machines (capacity 1), three one-task jobs (a = 1, p = 2) usable anywhere.
    # "Fastest machine, ties to the lowest index" put all three on machine 0: C = 2, 4, 6, Σ = 12.
    # Earliest finish puts them on machines 0, 1, 2: Σ C = 2 + 2 + 2 = 6 (the optimum).
    inst = PackingInstance([1.0, 1.0, 1.0], tuple(job((1.0, [0, 1, 2], 2.0)) for _ in range(3)))
    res = run(name, inst)
    assert sorted(res.schedule.machine.tolist()) == [0, 1, 2]
    assert res.objective == pytest.approx(6.0)


def test_synchpack3_guarantee_only_on_dedicated_machines():
    inst = PackingInstance([1.0, 1.0], (job((1.0, [0, 1], 2.0)), job((1.0, [0, 1], 2.0))))
    res = run("synchpack3", inst)
    assert res.guarantee is None and res.lower_bound is None
    assert not res.info["dedicated"] and "dedicated" in res.info["guarantee_applies_to"]


def test_earliest_finish_uses_the_room_a_partly_used_machine_leaves():
    # Two machines of capacity 1. Rank order: T0 (a = 0.6, p = 2 on both), then T1 (a = 0.6).
    # T0: both machines empty, finish 2 on either; equal load -> machine 0.
    # T1 with times (1 on machine 0, 2.5 on machine 1): machine 0 has room 0.4 < 0.6 in [0, 2), so
    #   T1 runs [2, 3), finish 3; machine 1 finishes at 2.5 -> machine 1.
    # T1 with times (1, 4): machine 0 finishes at 3 < 4 -> machine 0.
    for times, want in (([1.0, 2.5], 1), ([1.0, 4.0], 0)):
        inst = PackingInstance([1.0, 1.0], (job((0.6, [0, 1], 2.0)), job((0.6, [0, 1], times))))
        machine, ptime = earliest_finish_machines(inst, np.arange(2))
        assert machine.tolist() == [0, want]
        assert ptime.tolist() == [2.0, times[want]]
    # With a = 0.4, T1 fits beside T0 on machine 0 (finish 1) and ties with an empty machine 1 at
    # p = 1: the tie goes to the less loaded machine 1 (load 0 < 0.6·2).
    inst = PackingInstance([1.0, 1.0], (job((0.6, [0, 1], 2.0)), job((0.4, [0, 1], 1.0))))
    assert earliest_finish_machines(inst, np.arange(2))[0].tolist() == [0, 1]


def test_earliest_finish_counts_reservations():
    # Machine 0 is reserved in full until 5; the task (p = 1 on machine 0, 3 on machine 1) finishes
    # at 6 on machine 0 and at 3 on machine 1.
    inst = PackingInstance([1.0, 1.0], (job((1.0, [0, 1], [1.0, 3.0])),),
                           reservations=(Reservation(machine=0, demand=1.0, until=5.0),))
    assert earliest_finish_machines(inst, np.zeros(1))[0].tolist() == [1]


def _brute_force_finish(inst, rank, machine, ptime, t):
    """Task t's earliest finish over its usable machines, each tried by running the preemptive
    list packing of the tasks ranked above it (on their chosen machines) plus t."""
    before = np.flatnonzero((rank < rank[t]) | ((rank == rank[t]) & (np.arange(inst.n_tasks) < t)))
    rel = inst.release[inst.task_job]
    best = np.inf
    for q in np.flatnonzero(inst.place_task == t):
        i, p = int(inst.place_machine[q]), float(inst.place_time[q])
        if inst.demand[t] > inst.capacities[i]:
            continue
        items = np.r_[before, t]
        m = np.r_[machine[before], i]
        d = np.r_[ptime[before], p]
        packed = preemptive_list_packing(m, d, inst.demand[items], rank[items], rel[items], inst.capacities,
                                         Reservations.of(inst))
        best = min(best, float(packed.finish[-1]))
    return best


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(packing_instances(max_machines=3, max_jobs=4, max_tasks=3, releases=True), st.randoms(use_true_random=False))
def test_earliest_finish_matches_a_brute_force(inst, rnd):
    rank = np.array(rnd.sample(range(inst.n_tasks), inst.n_tasks))
    machine, ptime = earliest_finish_machines(inst, rank)
    rel = inst.release[inst.task_job]
    packed = preemptive_list_packing(machine, ptime, inst.demand, rank, rel, inst.capacities, Reservations.of(inst))
    for t in range(inst.n_tasks):
        want = _brute_force_finish(inst, rank, machine, ptime, t)
        assert packed.finish[t] == pytest.approx(want, rel=1e-9, abs=1e-9), t


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(packing_instances(max_machines=3, max_jobs=5, max_tasks=3, releases=True))
def test_paper_baselines_give_verified_schedules(inst):
    for name in PAPER:
        res = run(name, inst)  # verify: capacity, placement, one machine at a time, releases, promises
        assert "no_migration" in res.schedule.promises
        assert ("non_preemptive" in res.schedule.promises) == (name == "jsq-mw-paper")
        assert res.lower_bound is None and res.guarantee is None
