"""Tests of the paper-reading additions to schedrelax.schedulers.related_list: HUWF with the job's
execution time read as total data / mean speed (``huwf-paper``) against ours (``huwf``), hand-solved
where the two readings differ, and the speed-blind ``first_free`` placement that MarS uses."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from schedrelax import algorithms
from schedrelax.algorithms import run
from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.schedulers.related_list import (
    dag_components,
    execution_times,
    list_schedule,
    paper_execution_times,
    topological_order,
)
from schedrelax.schedules import evaluate, verify
from tests.strategies import related_instances


def pieces(schedule):
    """(job, task) -> (machine, start, end)."""
    return {(int(j), int(t)): (int(m), float(s), float(e))
            for j, t, m, s, e in zip(schedule.job, schedule.task, schedule.machine, schedule.start, schedule.end)}


def two_readings_instance():
    # Two machines of speed 1 (mean speed 1). Job A: tasks (2, 2), weight 1. Job B: task (3.5), weight 1.2.
    return RelatedInstance(speeds=[1.0, 1.0], jobs=(RelatedJob([2.0, 2.0], 1.0), RelatedJob([3.5], 1.2)))


def test_the_two_huwf_readings_differ_by_hand():
    inst = two_readings_instance()
    comp = dag_components(inst)
    # Ours: span on an empty cluster, A 4/2 = 2, B 3.5/1 = 3.5; the paper's: data / mean speed, A 4, B 3.5.
    assert execution_times(inst, comp).tolist() == [2.0, 3.5]
    assert paper_execution_times(inst, comp).tolist() == [4.0, 3.5]
    # huwf: UW A 1/2 > B 1.2/3.5 = 0.343 -> A first: A's tasks on m0 [0,2], m1 [0,2];
    # B finishes at 5.5 on either machine, tie -> lower index m0 [2, 5.5]. Σ w C = 1*2 + 1.2*5.5 = 8.6.
    ours = run("huwf", inst)
    assert pieces(ours.schedule) == {(0, 0): (0, 0.0, 2.0), (0, 1): (1, 0.0, 2.0), (1, 0): (0, 2.0, 5.5)}
    assert ours.objective == pytest.approx(8.6)
    # huwf-paper: UW A 1/4 = 0.25 < B 0.343 -> B first on m0 [0, 3.5]; A's tasks finish at 5.5 on
    # m0 or 2 on m1 -> m1 [0, 2]; then 5.5 on m0 or 4 on m1 -> m1 [2, 4]. Σ w C = 1.2*3.5 + 1*4 = 8.2.
    paper = run("huwf-paper", inst)
    assert pieces(paper.schedule) == {(1, 0): (0, 0.0, 3.5), (0, 0): (1, 0.0, 2.0), (0, 1): (1, 2.0, 4.0)}
    assert paper.objective == pytest.approx(8.2)
    assert paper.lower_bound is None and paper.guarantee is None


def test_paper_execution_time_sums_a_mapreduce_jobs_nodes_over_the_mean_speed():
    # Job A: map node 0 (size 1) -> reduce node 1 (size 1); job B: map 2 (size 2) -> reduce 3 (size 2).
    # Speeds (1, 3): mean 2. A: (1 + 1) / 2 = 1; B: (2 + 2) / 2 = 2.
    jobs = (RelatedJob([1.0], 0.0), RelatedJob([1.0], 1.0), RelatedJob([2.0], 0.0), RelatedJob([2.0], 4.0))
    inst = RelatedInstance(speeds=[1.0, 3.0], jobs=jobs, edges=[(0, 1), (2, 3)])
    comp = dag_components(inst)
    assert paper_execution_times(inst, comp)[comp[[0, 2]]].tolist() == [1.0, 2.0]
    # UW: A 1/1 = 1, B 4/2 = 2 -> B's nodes first (2 then 3), then A's (0 then 1).
    # Node 2: m0 ends 2, m1 2/3 -> m1 [0, 2/3]. Node 3 from 2/3: m0 8/3, m1 4/3 -> m1 [2/3, 4/3].
    # Node 0: m0 1, m1 5/3 -> m0 [0, 1]. Node 1 from 1: m0 2, m1 4/3 + 1/3 = 5/3 -> m1 [4/3, 5/3].
    # Σ w C = 4 * 4/3 + 1 * 5/3 = 7.
    res = run("huwf-paper", inst)
    got = pieces(res.schedule)
    want = {(2, 0): (1, 0.0, 2 / 3), (3, 0): (1, 2 / 3, 4 / 3), (0, 0): (0, 0.0, 1.0), (1, 0): (1, 4 / 3, 5 / 3)}
    assert got.keys() == want.keys()
    for key, (m, s, e) in want.items():
        assert got[key][0] == m and got[key][1:] == pytest.approx((s, e))
    assert res.objective == pytest.approx(7.0)


def test_first_free_placement_is_blind_to_speed_by_hand():
    # Speeds (1, 4); one job of tasks (4, 4, 4).
    # first_free: t0 both free at 0 -> lower index m0 [0, 4]; t1 m1 free at 0 -> [0, 1]; t2 m1 free at 1 -> [1, 2].
    # earliest_finish: all three on m1 (finishes 1, 2, 3 against 4 on m0): C = 3.
    inst = RelatedInstance(speeds=[1.0, 4.0], jobs=(RelatedJob([4.0, 4.0, 4.0]),))
    blind = list_schedule(inst, [0], assign="first_free")
    verify(inst, blind)
    assert pieces(blind) == {(0, 0): (0, 0.0, 4.0), (0, 1): (1, 0.0, 1.0), (0, 2): (1, 1.0, 2.0)}
    assert evaluate(inst, blind).objective == pytest.approx(4.0)
    assert evaluate(inst, list_schedule(inst, [0])).objective == pytest.approx(3.0)


def test_first_free_waits_for_release_and_predecessors():
    # Job 0 (size 2) on m0 ends at 2 (m0 first among free machines); job 1 (edge 0 -> 1) may start at 2:
    # both machines are free by then -> lower index m0 [2, 3].
    inst = RelatedInstance(speeds=[1.0, 1.0], jobs=(RelatedJob([2.0]), RelatedJob([1.0])), edges=[(0, 1)])
    s = pieces(list_schedule(inst, [0, 1], assign="first_free"))
    assert s == {(0, 0): (0, 0.0, 2.0), (1, 0): (0, 2.0, 3.0)}


def test_huwf_paper_is_registered_with_its_reading_in_the_summary():
    spec = algorithms.get("huwf-paper", "related")
    assert "total data / mean speed" in spec.summary and "004 §VI-B" in spec.summary and "004 §VI-B" in spec.paper


@settings(max_examples=40, deadline=None)
@given(related_instances(max_machines=4, max_jobs=5, max_tasks=4, releases=True), st.integers(0, 9))
def test_every_paper_reading_schedule_verifies(inst, seed):
    run("huwf-paper", inst)  # run() verifies
    order = topological_order(inst.n_jobs, inst.edges, np.random.default_rng(seed).random(inst.n_jobs))
    verify(inst, list_schedule(inst, order, assign="first_free"))
