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
