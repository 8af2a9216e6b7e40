"""McNaughton's wrap-around conversion of pseudo-job schedules back to jobs (paper 000 §2.4)."""

import numpy as np
import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

from schedrelax.errors import InstanceError
from schedrelax.instances import Flow, MalleableInstance
from schedrelax.schedules import evaluate, verify
from schedrelax.schedulers.chains import flow_chains
from schedrelax.schedulers.greedy_deadline import greedy_deadline
from schedrelax.schedulers.mcnaughton import mcnaughton
from tests.schedulers.exact_malleable import exact_problems
from tests.strategies import malleable_instances


def _rows(schedule):
    return sorted(zip(schedule.job.tolist(), schedule.machine.tolist(), schedule.start.tolist(),
                      schedule.end.tolist(), schedule.rate.tolist()))


def test_wrap_around_by_hand():
    # P = 2. One flow, two independent jobs: 3 work on at most 2 processors (1.5 long), 3 work on
    # 1 (3 long). Pseudo-jobs: [0, 1.5] on 3 processors (work 4.5: job 0's 3 and 1.5 of job 1),
    # then [1.5, 3] on 1 (job 1's last 1.5). Algorithm 1 gives the first 2 processors over
    # [0, 2.25) and the second 1 processor over [2.25, 3.75).
    inst = MalleableInstance(processors=2, flows=(Flow(sizes=[3.0, 3.0], max_processors=[2, 1]),))
    ch = flow_chains(inst)
    plan = greedy_deadline(ch, np.array([10.0]))
    assert plan.piece_start.tolist() == [0.0, 2.25] and plan.piece_end.tolist() == [2.25, 3.75]
    # Inside J = [0, 2.25) (tape 2 x 2.25): job 0 takes tape [0, 3): processor 0 all of J and
    # processor 1 over [0, 0.75); job 1 takes [3, 4.5): processor 1 over [0.75, 2.25).
    # Pooled: job 0 on 2 processors over [0, 0.75), on 1 over [0.75, 2.25); job 1 on 1 over
    # [0.75, 2.25), then on 1 over [2.25, 3.75).
    pooled = mcnaughton(ch, plan)
    verify(inst, pooled)
    np.testing.assert_allclose(np.array(_rows(pooled), dtype=float),
                               [(0, -1, 0.0, 0.75, 2), (0, -1, 0.75, 2.25, 1), (1, -1, 0.75, 2.25, 1),
                                (1, -1, 2.25, 3.75, 1)])
    named = mcnaughton(ch, plan, processor_ids=True)
    verify(inst, named)
    np.testing.assert_allclose(np.array(_rows(named), dtype=float),
                               [(0, 0, 0.0, 2.25, 1), (0, 1, 0.0, 0.75, 1), (1, 0, 2.25, 3.75, 1),
                                (1, 1, 0.75, 2.25, 1)])


def test_needs_a_unit_speed_plan():
    inst = MalleableInstance(processors=1, flows=(Flow(sizes=[1.0], max_processors=[1]),))
    ch = flow_chains(inst)
    with pytest.raises(ValueError, match="unit-speed"):
        mcnaughton(ch, greedy_deadline(ch, np.array([1.0]), speed=2.0))


@settings(max_examples=60)
@given(malleable_instances(max_flows=4, max_jobs=5, max_processors=6, releases=True),
       st.lists(st.integers(0, 20), min_size=4, max_size=4), st.booleans())
def test_every_conversion_is_a_valid_schedule(inst, deadlines, named):
    # Any deadlines: Algorithm 1's plan is valid whatever the order, and McNaughton must turn it
    # into a schedule that verify accepts (maxima, precedence, P, releases, work) finishing each
    # flow when its chain finishes.
    ch = flow_chains(inst)
    plan = greedy_deadline(ch, np.array(deadlines[:inst.n_flows], dtype=float))
    schedule = mcnaughton(ch, plan, processor_ids=named)
    verify(inst, schedule)
    assert evaluate(inst, schedule).completion == pytest.approx(plan.completion, rel=1e-9)


# Issue 13, item 1. One flow, a total order 0 -> 1 -> 2 -> 3 (every pair is an edge), P = 12.
# Each pseudo-job is one job alone, so McNaughton must give job 1 exactly its δ = 10 processors
# for 1.7402991795675256e-3 / 10 time units at t ≈ 1597.95. Its interval's width, an absolute-time
# difference, is off by 6.5e-10 relative: the old tape gave job 1 an 11th processor for 1.2e-12.
_TINY_BESIDE_LARGE = MalleableInstance(processors=12, flows=(Flow(
    sizes=[3195.906746466775, 0.0017402991795675256, 3701.0380909636838, 3275.005072970519],
    max_processors=[2, 10, 6, 4], edges=[[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]),))


@pytest.mark.parametrize("named", [False, True])
def test_a_tiny_job_late_in_time_never_exceeds_its_maximum(named):
    ch = flow_chains(_TINY_BESIDE_LARGE)
    plan = greedy_deadline(ch, np.array([1e5]))
    schedule = mcnaughton(ch, plan, processor_ids=named)
    assert exact_problems(_TINY_BESIDE_LARGE, schedule) == []
    verify(_TINY_BESIDE_LARGE, schedule)
    tiny = schedule.job == 1
    # Alone in its pseudo-job, job 1 holds its 10 processors throughout one interval.
    assert schedule.rate[tiny].sum() == 10
    assert len(set(zip(schedule.start[tiny].tolist(), schedule.end[tiny].tolist()))) == 1


def test_slots_tile_the_tape_when_a_piece_has_fewer_processors_than_the_pseudo_job():
    # P = 3, two independent jobs of one flow: 2 work on 2 processors and 1 work on 1, both last
    # 1 time unit, so one pseudo-job of r = 3, size 3. A first chain (deadline 0) holds one
    # processor over [0, 3), so the pseudo-job runs on σ = 2 processors over [0, 1.5). Slots:
    # job 0 gets 2·2/3 = 4/3 processors of tape, i.e. processor 0 all of J and processor 1 over
    # [0, 0.5) (1/3 of 1.5); job 1 gets 2/3: processor 1 over [0.5, 1.5). Work 1.5 + 0.5 = 2 and 1.
    inst = MalleableInstance(processors=3, flows=(Flow(sizes=[3.0], max_processors=[1]),
                                                  Flow(sizes=[2.0, 1.0], max_processors=[2, 1])))
    ch = flow_chains(inst)
    plan = greedy_deadline(ch, np.array([0.0, 10.0]))
    pooled = mcnaughton(ch, plan)
    assert exact_problems(inst, pooled) == []
    np.testing.assert_allclose(np.array([r for r in _rows(pooled) if r[0] > 0], dtype=float),
                               [(1, -1, 0.0, 0.5, 2), (1, -1, 0.5, 1.5, 1), (2, -1, 0.5, 1.5, 1)])


def _decades():
    """Sizes spanning 8 decades (1e-4 .. 1e4), not exact in binary."""
    return st.builds(lambda k, m: m * 10.0 ** k, st.integers(-4, 4), st.floats(1.0, 9.99))


@st.composite
def _wide_instances(draw):
    P = draw(st.integers(1, 12))
    flows = []
    for _ in range(draw(st.integers(1, 3))):
        n = draw(st.integers(1, 5))
        pairs = [[a, b] for a in range(n) for b in range(a + 1, n)]
        edges = draw(st.lists(st.sampled_from(pairs), unique_by=tuple).map(sorted)) if pairs else []
        flows.append(Flow(sizes=draw(st.lists(_decades(), min_size=n, max_size=n)),
                          max_processors=draw(st.lists(st.integers(1, P), min_size=n, max_size=n)),
                          edges=edges, release=draw(st.one_of(st.just(0.0), _decades()))))
    try:
        return MalleableInstance(processors=P, flows=tuple(flows))
    except InstanceError:  # a draw whose shortest job is below 5e-10 of its horizon (issue 31)
        reject()


@settings(max_examples=250)
@given(_wide_instances(), st.lists(_decades(), min_size=3, max_size=3), st.booleans())
def test_sizes_over_eight_decades_convert_without_any_overuse(inst, deadlines, named):
    # Round-off regime of issue 13: tiny jobs next to huge ones at large times. Zero slack: no
    # job above its maximum, no instant above P, exact work, precedence and releases.
    ch = flow_chains(inst)
    plan = greedy_deadline(ch, np.array(deadlines[:inst.n_flows]))
    schedule = mcnaughton(ch, plan, processor_ids=named)
    assert exact_problems(inst, schedule) == []


def test_processor_ids_do_not_list_every_processor():
    # P = 10^9 processors, three small jobs: the ids must be the same as with P = 8 (the smallest
    # free ids, pieces by start time), found without a list of 10^9 free ids (gigabytes before).
    from schedrelax import run
    from schedrelax.instances import Flow, MalleableInstance

    def ids(P):
        inst = MalleableInstance(processors=P, flows=(Flow(sizes=[10.0, 5.0], max_processors=[3, 2]),
                                                      Flow(sizes=[4.0], max_processors=[2])))
        s = run("flowflex", inst, params={"processor_ids": True}).schedule
        return sorted(zip(s.job.tolist(), s.machine.tolist(), s.start.tolist(), s.end.tolist()))

    small, huge = ids(8), ids(10 ** 9)
    assert huge == small and max(m for _, m, _, _ in huge) < 8
