"""Algorithm 1 of paper 000 (§2.3.1) and Theorem 6."""

import numpy as np
import pytest
from hypothesis import given, settings

from schedrelax import algorithms
from schedrelax.instances import Flow, MalleableInstance
from schedrelax.schedulers.chains import flow_chains
from schedrelax.schedulers.greedy_deadline import greedy_deadline
from tests.strategies import malleable_instances


def _flows(P, *flows, release=None):
    release = release or [0.0] * len(flows)
    return MalleableInstance(processors=P, flows=tuple(
        Flow(sizes=s, max_processors=d, release=r) for (s, d), r in zip(flows, release)))


def _pieces(plan, g):
    sl = slice(plan.piece_offset[g], plan.piece_offset[g + 1])
    return list(zip(plan.piece_start[sl].tolist(), plan.piece_end[sl].tolist(), plan.piece_procs[sl].tolist()))


def test_earliest_deadline_first_then_holes_are_filled():
    # P = 2. Chain A: 4 work on at most 1 processor (deadline 5); chain B: 4 work on up to 2
    # (deadline 0.5, so it goes first). B takes both processors over [0, 2); A then runs [2, 6).
    inst = _flows(2, ([4.0], [1]), ([4.0], [2]))
    plan = greedy_deadline(flow_chains(inst), np.array([5.0, 0.5]))
    assert plan.order.tolist() == [1, 0]
    assert _pieces(plan, 1) == [(0.0, 2.0, 2)]
    assert _pieces(plan, 0) == [(2.0, 6.0, 1)]
    assert plan.completion.tolist() == [6.0, 2.0]
    # B finishes at 2 > 2 * 0.5: Theorem 6's test fires for B only (A: 6 <= 2 * 5).
    assert plan.infeasible.tolist() == [1]
    assert not plan.feasible


def test_later_chain_uses_the_processors_an_earlier_one_leaves():
    # P = 3. A (deadline 1): 4 work, at most 1 processor: [0, 4) on 1. B (deadline 2): 6 work, up
    # to 3: only 2 left while A runs, so [0, 3) on 2. C (deadline 3): 1 work on 1: the one
    # processor free in [3, 4) — it finishes at 4.
    inst = _flows(3, ([4.0], [1]), ([6.0], [3]), ([1.0], [1]))
    plan = greedy_deadline(flow_chains(inst), np.array([1.0, 2.0, 3.0]))
    assert _pieces(plan, 0) == [(0.0, 4.0, 1)]
    assert _pieces(plan, 1) == [(0.0, 3.0, 2)]
    assert _pieces(plan, 2) == [(3.0, 4.0, 1)]
    assert plan.completion.tolist() == [4.0, 3.0, 4.0]


def test_release_delays_the_chain_and_ties_follow_the_tiebreak():
    # Same deadline for both; the tie-break puts chain 1 first. Chain 0 is released at 1.
    inst = _flows(2, ([2.0], [2]), ([2.0], [2]), release=[1.0, 0.0])
    plan = greedy_deadline(flow_chains(inst), np.array([3.0, 3.0]), tiebreak=np.array([1.0, 0.0]))
    assert plan.order.tolist() == [1, 0]
    assert _pieces(plan, 1) == [(0.0, 1.0, 2)]
    assert _pieces(plan, 0) == [(1.0, 2.0, 2)]


def test_chain_order_inside_a_flow():
    # One flow 0 -> 1: two pseudo-jobs; the second starts when the first completes (P = 4).
    inst = MalleableInstance(processors=4, flows=(Flow(sizes=[4.0, 3.0], max_processors=[4, 1], edges=[[0, 1]]),))
    plan = greedy_deadline(flow_chains(inst), np.array([10.0]))
    assert _pieces(plan, 0) == [(0.0, 1.0, 4)]
    assert _pieces(plan, 1) == [(1.0, 4.0, 1)]


def test_bad_arguments():
    ch = flow_chains(_flows(1, ([1.0], [1])))
    with pytest.raises(ValueError, match="speed"):
        greedy_deadline(ch, np.array([1.0]), speed=0)
    with pytest.raises(ValueError, match="one entry per chain"):
        greedy_deadline(ch, np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="NaN"):
        greedy_deadline(ch, np.array([np.nan]))


@settings(max_examples=60)
@given(malleable_instances(max_flows=4, max_jobs=4, max_processors=6, releases=True))
def test_theorem_6_deadlines_some_schedule_meets_are_met_twice_over(inst):
    # FIFO's (verified) schedule meets the deadlines d_j = its flow completion times; Theorem 6
    # (which still holds with releases: the busy time after r_j is at most the squashed area, the
    # rest at most the critical path <= d_j - r_j) says Algorithm 1 finishes chain j by 2·d_j.
    fifo = algorithms.run("fifo", inst)
    d = fifo.evaluation.completion
    plan = greedy_deadline(flow_chains(inst), d)
    assert plan.feasible
    assert np.all(plan.completion <= 2 * d * (1 + 1e-9))


@settings(max_examples=40)
@given(malleable_instances(max_flows=4, max_jobs=4, max_processors=6))
def test_speed_s_schedule_is_the_unit_schedule_s_times_faster(inst):
    # Without releases every decision of Algorithm 1 is the same at any speed, only faster.
    ch = flow_chains(inst)
    d = np.arange(1.0, inst.n_flows + 1)
    unit = greedy_deadline(ch, d)
    fast = greedy_deadline(ch, d, speed=2.5)
    assert fast.completion == pytest.approx(unit.completion / 2.5, rel=1e-9)
    # Work done: processors x duration x speed covers each pseudo-job's size.
    done = np.bincount(fast.piece_job, weights=fast.piece_procs * (fast.piece_end - fast.piece_start) * 2.5,
                       minlength=ch.n_pseudo_jobs)
    assert done == pytest.approx(ch.size, rel=1e-9)


@settings(max_examples=40)
@given(malleable_instances(max_flows=4, max_jobs=4, max_processors=6, releases=True))
def test_plan_respects_processors_bounds_and_chain_order(inst):
    ch = flow_chains(inst)
    plan = greedy_deadline(ch, np.full(inst.n_flows, np.inf))
    P = inst.processors
    # At most P in use at any time (sweep over piece boundaries).
    times = np.unique(np.r_[plan.piece_start, plan.piece_end])
    for a, b in zip(times[:-1], times[1:]):
        mid = 0.5 * (a + b)
        live = (plan.piece_start <= mid) & (mid < plan.piece_end)
        assert plan.piece_procs[live].sum() <= P
    assert np.all(plan.piece_procs <= ch.procs[plan.piece_job])
    for j in range(ch.n_chains):
        prev_end = inst.flow_release[j]
        for g in range(ch.offset[j], ch.offset[j + 1]):
            sl = slice(plan.piece_offset[g], plan.piece_offset[g + 1])
            assert plan.piece_start[sl].min() >= prev_end - 1e-9
            prev_end = plan.piece_end[sl].max()
        assert plan.completion[j] == pytest.approx(prev_end)


def test_a_tiny_pseudo_job_in_a_hole_late_in_time_gets_only_its_own_area():
    # P = 2. Chain 0 holds one processor over [0, 1000); chain 1 the other over [0, 1000 − 1e-5).
    # That leaves a hole [1000 − 1e-5, 1000) on one processor. Chain 2 (1e-5 − 5e-10 work on 1)
    # fits in it and ends 5e-10 before its end: its piece must last that long, not the whole hole
    # (the old slack of 1e-12 × the clock, 1e-9 here, gave it 5e-5 more work than it has). (A hole
    # of 1e-7, as this test had before issue 31, is below 5e-10 of the horizon 2000: refused.)
    h = 1e-5
    inst = _flows(2, ([1000.0], [1]), ([1000.0 - h], [1]), ([h - 5e-10], [1]))
    plan = greedy_deadline(flow_chains(inst), np.array([1.0, 2.0, 3.0]))
    (start, end, procs), = _pieces(plan, 2)
    assert (start, procs) == (1000.0 - h, 1)
    assert end - start == pytest.approx(h - 5e-10, rel=1e-6)
