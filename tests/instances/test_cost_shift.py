"""CostFunction.shifted(now): cost(now + t) == g(t) + k, with g of a kind the algorithms know."""

from __future__ import annotations

import numpy as np
import pytest

from schedrelax.instances import costs


@pytest.mark.parametrize("cost, now, kind, k, probes", [
    # completion 2t at 3 + t: 2t + 6
    (costs.completion(2.0), 3.0, "completion", 6.0, [(0.0, 0.0), (1.0, 2.0)]),
    # stretch t/4 at 2 + t: t/4 + 0.5
    (costs.stretch(4.0), 2.0, "stretch", 0.5, [(4.0, 1.0)]),
    # tardy (d=5, w=3) at 2 + t: late when t > 3
    (costs.tardy(5.0, 3.0), 2.0, "tardy", 0.0, [(3.0, 0.0), (3.5, 3.0)]),
    # ... and at 7 + t it is late already: constant 3, g = 0
    (costs.tardy(5.0, 3.0), 7.0, "completion", 3.0, [(0.0, 0.0), (9.0, 0.0)]),
    # tardiness 2·max(0, t - 5) at 7 + t: 2t + 4
    (costs.tardiness(5.0, 2.0), 7.0, "completion", 4.0, [(1.0, 2.0)]),
    (costs.tardiness(5.0, 2.0), 1.0, "tardiness", 0.0, [(4.0, 0.0), (5.0, 2.0)]),
    # lateness 2(t - 5) at 7 + t: 2t + 4; at 1 + t: 2(t - 4)
    (costs.lateness(5.0, 2.0), 7.0, "completion", 4.0, [(1.0, 2.0)]),
    (costs.lateness(5.0, 2.0), 1.0, "lateness", 0.0, [(0.0, -8.0)]),
    # SLA steps 1 at 2, 2 at 5, 3 at 9, seen from 5: the first is paid, the one at 5 is still ahead
    (costs.sla([2.0, 5.0, 9.0], [1.0, 2.0, 3.0]), 5.0, "sla", 1.0, [(0.0, 0.0), (0.5, 2.0), (4.5, 5.0)]),
    (costs.sla([2.0, 5.0], [1.0, 2.0]), 6.0, "completion", 3.0, [(0.0, 0.0)]),
])
def test_shifted_by_hand(cost, now, kind, k, probes):
    g, const = cost.shifted(now)
    assert g.kind == kind
    assert const == pytest.approx(k)
    for t, value in probes:
        assert g(t) == pytest.approx(value)
    t = np.linspace(0.0, 20.0, 81)
    assert np.allclose(cost(now + t), g(t) + const)


def test_power_cannot_be_shifted_except_at_zero():
    assert costs.power(2.0).shifted(0.0) == (costs.power(2.0), 0.0)
    with pytest.raises(ValueError, match="a power cost cannot be re-based"):
        costs.power(2.0).shifted(1.0)


def test_shift_time_must_be_nonnegative():
    with pytest.raises(ValueError, match="now must be a finite number >= 0"):
        costs.completion().shifted(-1.0)


def _flows_instance(objective="minisum", last_cost=None):
    from schedrelax.instances import Flow, MalleableInstance

    cost = [costs.completion(2.0), costs.tardiness(9.0, 1.5), costs.sla([6.0, 12.0], [1.0, 2.0]),
            last_cost or costs.tardy(20.0, 4.0)]
    flows = tuple(Flow(sizes=[3.0, 1.0], max_processors=[2, 1], edges=[(0, 1)], release=r, cost=c)
                  for r, c in zip([4.0, 5.0, 4.5, 8.0], cost))
    return MalleableInstance(processors=3, flows=flows, objective=objective)


def test_a_shifted_instance_costs_its_constant_less_for_every_schedule():
    # Every flow's cost re-based at the earliest release (4): a schedule of the shifted instance,
    # moved back by 4, is one of the instance, at cost k more. Checked on FIFO's and Fair's
    # schedules of the shifted instance, evaluated by the verifier's evaluation on both.
    from schedrelax.algorithms import run
    from schedrelax.schedules import Schedule, evaluate

    inst = _flows_instance()
    moved, k = inst.shifted(4.0)
    assert moved.flow_release.tolist() == [0.0, 1.0, 0.5, 4.0]
    # By hand: completion 2(4 + t) = 2t + 8; the others' deadlines are all ahead of 4, so 0.
    assert k == 8.0
    for name in ("fifo", "fair"):
        s = run(name, moved).schedule
        back = Schedule(s.job, s.task, s.machine, s.start + 4.0, s.end + 4.0, s.rate, promises=s.promises)
        assert evaluate(inst, back).objective == pytest.approx(evaluate(moved, s).objective + k, rel=1e-12)


@pytest.mark.parametrize("origin", [-1.0, 4.5])
def test_a_shift_past_a_release_or_below_zero_is_refused(origin):
    with pytest.raises(ValueError, match="origin"):
        _flows_instance().shifted(origin)


def test_minimax_and_power_costs_are_not_shifted():
    with pytest.raises(ValueError, match="minimax"):
        _flows_instance("minimax").shifted(4.0)
    with pytest.raises(ValueError, match="power"):
        _flows_instance(last_cost=costs.power(2.0)).shifted(4.0)
