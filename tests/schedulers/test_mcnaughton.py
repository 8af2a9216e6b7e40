"""McNaughton's wrap-around conversion of pseudo-job schedules back to jobs (paper 000 §2.4)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedrelax.instances import Flow, MalleableInstance
from schedrelax.schedules import evaluate, verify
from schedrelax.schedulers.chains import flow_chains
from schedrelax.schedulers.greedy_deadline import greedy_deadline
from schedrelax.schedulers.mcnaughton import mcnaughton
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
