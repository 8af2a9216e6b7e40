"""Chains of pseudo-jobs (paper 000 §2.2): hand-made flows and the invariants the paper states."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings

from schedrelax.instances import Flow, MalleableInstance
from schedrelax.schedulers.chains import completion_lower_bounds, flow_chains, pseudo_schedule
from tests.strategies import malleable_instances


def _one_flow(P, sizes, maxp, edges=(), release=0.0):
    return MalleableInstance(processors=P, flows=(Flow(sizes=sizes, max_processors=maxp, edges=edges,
                                                       release=release),))


def _longest_path(sizes, maxp, edges):
    """Critical path by enumerating every path of the DAG (independent of the code under test)."""
    n = len(sizes)
    succ = {i: [b for a, b in edges if a == i] for i in range(n)}
    best = 0.0

    def walk(i, length):
        nonlocal best
        length += sizes[i] / maxp[i]
        best = max(best, length)
        for j in succ[i]:
            walk(j, length)

    for i in range(n):
        walk(i, 0.0)
    return best


def test_fork_join_by_hand():
    # Jobs 0 (4 work, 2 procs: 2 long) and 1 (2 work, 1 proc: 2 long) run in [0, 2], then job 2
    # (6 work, 3 procs: 2 long) in [2, 4]: two pseudo-jobs of 3 processors and 6 work each.
    inst = _one_flow(10, [4, 2, 6], [2, 1, 3], edges=[[0, 2], [1, 2]])
    ch = flow_chains(inst)
    assert ch.offset.tolist() == [0, 2]
    assert ch.procs.tolist() == [3, 3]
    assert ch.size.tolist() == pytest.approx([6, 6])
    assert ch.begin.tolist() == pytest.approx([0, 2])
    assert ch.critical_path[0] == pytest.approx(4.0)
    assert ch.volume[0] == pytest.approx(12.0)
    assert ch.member_job[ch.member_offset[0]:ch.member_offset[1]].tolist() == [0, 1]
    assert ch.member_job[ch.member_offset[1]:ch.member_offset[2]].tolist() == [2]


def test_staggered_independent_jobs_by_hand():
    # Job 0 runs 2 units on 1 proc, job 1 runs 3 units on 2 procs: [0, 2] has both (3 procs,
    # work 6), [2, 3] only job 1 (2 procs, work 2). Job 1 does 4 of its 6 in the first interval.
    inst = _one_flow(2, [2, 6], [1, 2])
    ch = flow_chains(inst)
    assert ch.procs.tolist() == [3, 2]
    assert ch.size.tolist() == pytest.approx([6, 2])
    assert ch.member_work.tolist() == pytest.approx([2, 4, 2])
    # δ(k) = 3 exceeds P = 2: allowed for pseudo-jobs.
    assert ch.procs.max() > inst.processors
    # Bounds: critical path 3, squashed area 8 / 2 = 4, so L = 4.
    assert completion_lower_bounds(ch).tolist() == pytest.approx([4.0])


def test_release_shifts_the_completion_bound():
    inst = _one_flow(4, [8], [2], release=3.0)
    ch = flow_chains(inst)
    # 8 work on 2 processors: 4 long; squashed area 2; released at 3.
    assert completion_lower_bounds(ch).tolist() == pytest.approx([7.0])


def test_pseudo_schedule_earliest_starts_by_hand():
    # Chain 0 -> 1 -> 2 with a side job 3 after 0: lengths 1, 2, 3, 0.5.
    b = pseudo_schedule(np.array([2.0, 4, 3, 1]), np.array([2, 2, 1, 2]), np.array([[0, 1], [1, 2], [0, 3]]))
    assert b.tolist() == pytest.approx([0, 1, 3, 1])


@settings(max_examples=60)
@given(malleable_instances(max_flows=3, max_jobs=6, max_processors=5, releases=True))
def test_chain_keeps_both_lower_bounds_of_its_flow(inst):
    ch = flow_chains(inst)
    for f, fl in enumerate(inst.flows):
        g = slice(ch.offset[f], ch.offset[f + 1])
        sizes, maxp = np.asarray(fl.sizes), np.asarray(fl.max_processors)
        edges = [tuple(e) for e in np.asarray(fl.edges).reshape(-1, 2).tolist()]
        # Squashed area: the same total work.
        assert ch.size[g].sum() == pytest.approx(sizes.sum(), rel=1e-12)
        # Critical path: the only chain of pseudo-jobs is as long as the flow's longest path.
        assert (ch.size[g] / ch.procs[g]).sum() == pytest.approx(_longest_path(sizes, maxp, edges), rel=1e-9)
        assert ch.critical_path[f] == pytest.approx(_longest_path(sizes, maxp, edges), rel=1e-9)
        # At most as many pseudo-jobs as jobs (§2.2).
        assert ch.offset[f + 1] - ch.offset[f] <= len(sizes)
    # Each pseudo-job's bound is the sum of its jobs' maxima; each job's portions add up to it.
    for k in range(ch.n_pseudo_jobs):
        m = slice(ch.member_offset[k], ch.member_offset[k + 1])
        assert ch.procs[k] == ch.member_procs[m].sum()
        assert ch.member_work[m].sum() == pytest.approx(ch.size[k], rel=1e-9)
    work = np.bincount(ch.member_job, weights=ch.member_work, minlength=inst.n_jobs)
    assert work == pytest.approx(inst.size, rel=1e-9)
    L = completion_lower_bounds(ch)
    assert L == pytest.approx(inst.flow_release + np.maximum(ch.critical_path, inst.flow_work() / inst.processors))


@settings(max_examples=40)
@given(malleable_instances(max_flows=2, max_jobs=6, max_processors=5))
def test_jobs_of_a_pseudo_job_are_independent(inst):
    # §2.4 relies on it: no edge joins two jobs that run in the same interval.
    ch = flow_chains(inst)
    edges = {tuple(e) for e in inst.edges.tolist()}
    for k in range(ch.n_pseudo_jobs):
        members = ch.member_job[ch.member_offset[k]:ch.member_offset[k + 1]].tolist()
        assert not any((a, b) in edges for a, b in itertools.permutations(members, 2))
