"""Tests of schedrelax.schedulers.related_list: Algorithm 2 of paper 004 by hand, idle time for
release and precedence, believed speeds, random placement, the semi-active runner, HUWF and Tetris."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from schedrelax import algorithms
from schedrelax.algorithms import run
from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.instances.generate import spc as spc_setting
from schedrelax.schedulers.related_list import (
    dag_components,
    execution_times,
    list_schedule,
    semi_active_schedule,
    topological_order,
)
from schedrelax.schedules import evaluate, verify
from tests.strategies import related_instances


def pieces(schedule):
    """(job, task) -> (machine, start, end)."""
    return {(int(j), int(t)): (int(m), float(s), float(e))
            for j, t, m, s, e in zip(schedule.job, schedule.task, schedule.machine, schedule.start, schedule.end)}


def test_algorithm_2_by_hand():
    # Speeds (3, 1); one job, tasks of sizes 1, 3, 3 (placed largest first: tasks 1, 2, then 0).
    # Task 1: finishes at 1 on machine 0, 3 on machine 1 -> machine 0 (T0 = 1).
    # Task 2: 1 + 1 = 2 on machine 0, 3 on machine 1 -> machine 0 (T0 = 2).
    # Task 0: 2 + 1/3 on machine 0, 1 on machine 1 -> machine 1. C = 2.
    inst = RelatedInstance(speeds=[3.0, 1.0], jobs=(RelatedJob(tasks=[1.0, 3.0, 3.0]),))
    s = list_schedule(inst, [0])
    verify(inst, s)
    assert pieces(s) == {(0, 1): (0, 0.0, 1.0), (0, 2): (0, 1.0, 2.0), (0, 0): (1, 0.0, 1.0)}


def test_ties_go_to_the_faster_machine_then_the_lower_index():
    # Speeds (1, 2, 2), three single-task jobs of size 2.
    # Job 0: finishes at 2, 1, 1 -> tie between the fast machines 1 and 2 -> machine 1.
    # Job 1: 2, 2, 1 -> machine 2.  Job 2: 2, 2, 2 -> three-way tie -> fast, low index: machine 1.
    inst = RelatedInstance(speeds=[1.0, 2.0, 2.0], jobs=(RelatedJob([2.0]), RelatedJob([2.0]), RelatedJob([2.0])))
    s = pieces(list_schedule(inst, [0, 1, 2]))
    assert [s[(j, 0)][0] for j in range(3)] == [1, 2, 1]


def test_idle_time_for_precedence_and_release():
    # Job 0 (size 4) on one machine of speed 2 ends at 2; job 1 (edge 0 -> 1) waits for it even
    # though machine 1 is free; job 2 is released at 5 and waits on an idle cluster.
    jobs = (RelatedJob([4.0]), RelatedJob([1.0]), RelatedJob([1.0], release=5.0))
    inst = RelatedInstance(speeds=[2.0, 1.0], jobs=jobs, edges=[(0, 1)])
    s = pieces(list_schedule(inst, [0, 1, 2]))
    assert s[(0, 0)] == (0, 0.0, 2.0)
    assert s[(1, 0)][1] == pytest.approx(2.0)
    assert s[(2, 0)][1] == pytest.approx(5.0)


def test_believed_speeds_plan_and_true_speeds_run():
    # Believing speeds (1, 1), four equal tasks alternate machines 0, 1, 0, 1; at the true speeds
    # (4, 1) machine 1's two tasks take 4 each: C = 8, where Algorithm 2 itself puts them all on
    # machine 0 (C = 4) — the Identical-machine effect of §VI-A.
    inst = RelatedInstance(speeds=[4.0, 1.0], jobs=(RelatedJob([4.0] * 4),))
    believed = list_schedule(inst, [0], planning_speeds=[1.0, 1.0])
    verify(inst, believed)
    assert sorted(believed.machine.tolist()) == [0, 0, 1, 1]
    assert evaluate(inst, believed).objective == pytest.approx(8.0)
    assert evaluate(inst, list_schedule(inst, [0])).objective == pytest.approx(4.0)


def test_random_placement_is_seeded():
    inst = spc_setting(1, n_jobs=6, tasks_per_job=(2, 6), machines=4)
    a = list_schedule(inst, topological_order(inst.n_jobs, inst.edges, np.zeros(inst.n_jobs)), assign="random", seed=3)
    b = list_schedule(inst, topological_order(inst.n_jobs, inst.edges, np.zeros(inst.n_jobs)), assign="random", seed=3)
    verify(inst, a)
    assert a.machine.tolist() == b.machine.tolist()


def test_orders_and_rules_are_checked():
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([1.0]), RelatedJob([1.0])), edges=[(0, 1)])
    with pytest.raises(ValueError, match="exactly once"):
        list_schedule(inst, [0, 0])
    with pytest.raises(ValueError, match="before its predecessor"):
        list_schedule(inst, [1, 0])
    with pytest.raises(ValueError, match="assign"):
        list_schedule(inst, [0, 1], assign="fastest")
    with pytest.raises(ValueError, match="planning_speeds"):
        list_schedule(inst, [0, 1], planning_speeds=[1.0, 2.0])
    with pytest.raises(ValueError, match="predecessor job 0"):
        semi_active_schedule(inst, [1, 0], [0, 0])
    with pytest.raises(ValueError, match="machine"):
        semi_active_schedule(inst, [0, 1], [0, 1])


def test_semi_active_schedule_starts_each_task_as_early_as_allowed():
    # Two tasks of job 0 both on machine 0 (speed 1), in the order task 1, task 0: back to back.
    inst = RelatedInstance(speeds=[1.0, 1.0], jobs=(RelatedJob([2.0, 3.0], release=1.0),))
    s = pieces(semi_active_schedule(inst, [1, 0], [0, 0]))
    assert s == {(0, 1): (0, 1.0, 4.0), (0, 0): (0, 4.0, 6.0)}


def test_topological_order_follows_priority_within_the_dag():
    edges = np.array([[2, 0]])
    assert topological_order(3, edges, [0.0, 1.0, 2.0]).tolist() == [1, 2, 0]
    assert topological_order(3, np.zeros((0, 2), dtype=int), [2.0, 0.0, 1.0]).tolist() == [1, 2, 0]


# ------------------------------------------------------------------------------------ baselines

def two_mapreduce_jobs():
    # Job A: map node 0 (weight 0) -> reduce node 1 (weight 1); job B: map 2 -> reduce 3 (weight 4).
    # One machine of speed 1; A's nodes have 1 task of size 1 each, B's 1 task of size 2 each.
    jobs = (RelatedJob([1.0], 0.0), RelatedJob([1.0], 1.0), RelatedJob([2.0], 0.0), RelatedJob([2.0], 4.0))
    return RelatedInstance(speeds=[1.0], jobs=jobs, edges=[(0, 1), (2, 3)])


def test_components_and_execution_times():
    inst = two_mapreduce_jobs()
    comp = dag_components(inst)
    assert comp[0] == comp[1] != comp[2] == comp[3]
    assert execution_times(inst, comp)[comp[[0, 2]]].tolist() == [2.0, 4.0]


def test_huwf_and_tetris_orders_by_hand():
    # HUWF: unit weights A 1/2, B 4/4 = 1 -> B first: B ends at 4, A at 6: Σ w C = 4*4 + 1*6 = 22.
    # Tetris: scores A 2 tasks x 2, B 2 x 4 -> A first: A ends at 2, B at 6: 1*2 + 4*6 = 26.
    inst = two_mapreduce_jobs()
    huwf = run("huwf", inst)
    tetris = run("tetris", inst)
    assert huwf.objective == pytest.approx(22.0)
    assert tetris.objective == pytest.approx(26.0)
    assert huwf.lower_bound is None and huwf.guarantee is None


def test_baselines_are_registered_for_related():
    names = {spec.name for spec in algorithms.available("related")}
    assert {"huwf", "tetris", "fifo"} <= names


@settings(max_examples=40, deadline=None)
@given(related_instances(max_machines=4, max_jobs=5, max_tasks=4, releases=True), st.integers(0, 9))
def test_every_list_schedule_verifies(inst, seed):
    for name in ("huwf", "tetris"):
        run(name, inst)  # run() verifies
    order = topological_order(inst.n_jobs, inst.edges, np.random.default_rng(seed).random(inst.n_jobs))
    for kwargs in ({}, {"assign": "random", "seed": seed}, {"planning_speeds": np.ones(inst.n_machines)}):
        verify(inst, list_schedule(inst, order, **kwargs))
