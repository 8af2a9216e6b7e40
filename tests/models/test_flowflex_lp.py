"""The min-cost-flow relaxation of paper 000 §2.3.2: hand-solved networks, two independent solution
methods, and Claim 1 (the optimum is a lower bound) against the exact MIP."""

import numpy as np
import pytest
from hypothesis import given, settings

from schedrelax.instances import Flow, MalleableInstance, costs
from schedrelax.models.flowflex_lp import (
    build_flowflex_lp,
    flow_network,
    flowflex_lp_solution,
    geometric_grid,
    solve_network_simplex,
)
from schedrelax.models.malleable_mip import add_power_tangents, build_malleable_mip, malleable_mip_solution
from schedrelax.solvers import solve
from tests.strategies import malleable_instances

ALL_COSTS = ["completion", "stretch", "tardy", "tardiness", "sla", "power"]


def _optimum(inst):
    """The exact optimum: the malleable MIP's value, power costs refined by tangent cuts until they
    are exact to 1e-6 (the ``mip`` algorithm's loop; its rebuilt schedule is not needed here)."""
    model = build_malleable_mip(inst, minima=False)
    while True:
        res = solve(model).require_optimal()
        if not add_power_tangents(model, inst, malleable_mip_solution(model, inst.size).flow_completion):
            return res.objective


def _single_jobs(P, sizes, cost_list=None):
    cost_list = cost_list or [costs.completion()] * len(sizes)
    return MalleableInstance(processors=P, flows=tuple(
        Flow(sizes=[s], max_processors=[1], cost=c) for s, c in zip(sizes, cost_list)))


def _lp_value(inst, **kw):
    m = build_flowflex_lp(inst, **kw)
    res = solve(m).require_optimal()
    return res.objective, m


def test_unit_network_by_hand():
    # P = 1, two one-processor jobs of 1 and 2 work, cost = completion time. L = (1, 2),
    # horizon max(2, 3/1) = 3: intervals [0,1], [1,2], [2,3], capacity 1 each. Chain 0 may end in
    # any interval (cost t per unit), chain 1 in [1,2] or [2,3] (cost t/2 per unit). Optimum:
    # chain 0 in [0,1] (cost 1); chain 1 one unit due by 2 (cost 1) and one by 3 (cost 1.5): 3.5.
    inst = _single_jobs(1, [1.0, 2.0])
    value, m = _lp_value(inst, intervals="unit")
    assert value == pytest.approx(3.5)
    net = m.network
    assert net.grid.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert net.capacity.tolist() == [1.0, 1.0, 1.0]
    # Completion time is not constant inside unit intervals: assumption A1 fails, and the
    # network's end-of-interval charge is not certified as a lower bound.
    assert not net.lower_bound


def test_unit_network_charge_can_exceed_the_optimum_without_a1():
    # One job of 1.5 work on 1 processor: the optimum is 1.5, but the unit network charges the
    # end of [1, 2]: 2. This is why lower_bound is False there.
    inst = _single_jobs(1, [1.5])
    value, m = _lp_value(inst, intervals="unit")
    assert value == pytest.approx(2.0)
    assert not m.network.lower_bound


def test_unit_network_with_integer_step_costs_is_a_lower_bound():
    # Tardy costs with whole deadlines: A1 holds, so the unit network is certified. P = 1, jobs of
    # 1 and 2 work, deadlines 1 and 2, weights 1 and 3. On time, chain 0 needs 1 unit of [0, 1]
    # and chain 1 2 units of [0, 2]: 3 units in a capacity of 2. One unit must be late: chain 0's
    # (cost 1 per unit) or chain 1's (3/2 per unit). Optimum 1 — also the true optimum (job 1
    # first, job 0 late).
    inst = _single_jobs(1, [1.0, 2.0], [costs.tardy(1.0, 1.0), costs.tardy(2.0, 3.0)])
    value, m = _lp_value(inst, intervals="unit")
    assert m.network.lower_bound
    assert value == pytest.approx(1.0)


def test_geometric_network_by_hand():
    # The two-job instance with ε = 1: grid from min L = 1 up to the horizon 3: 1, 2, 4.
    # Interval [1, 2] has capacity P·2 (it also takes the work done before 1), [2, 4] capacity 2.
    # Chain 0 (L = 1): cost w(max(1, 1)) = 1, then w(2) = 2 per unit. Chain 1 (L = 2): w(2)/2 = 1
    # per unit in both intervals, so its arc to [1, 2] is dominated and dropped. Optimum: chain 0
    # in [1, 2] (1), chain 1 in [2, 4] (2): 3 — below the true optimum 1 + 3 = 4.
    inst = _single_jobs(1, [1.0, 2.0])
    value, m = _lp_value(inst, intervals="geometric", epsilon=1.0)
    net = m.network
    assert net.grid.tolist() == [1.0, 2.0, 4.0]
    assert net.capacity.tolist() == [2.0, 2.0]
    assert list(zip(net.arc_chain.tolist(), net.arc_interval.tolist())) == [(0, 0), (0, 1), (1, 1)]
    assert net.arc_cost.tolist() == pytest.approx([1.0, 2.0, 1.0])
    assert value == pytest.approx(3.0)
    assert net.lower_bound


def test_default_epsilon_is_one_over_m_and_grid_is_geometric():
    inst = _single_jobs(2, [1.0, 2.0, 3.0, 4.0])
    net = flow_network(inst)
    assert net.epsilon == pytest.approx(0.25)
    ratios = net.grid[1:-1] / net.grid[:-2]
    assert ratios == pytest.approx(np.full(len(ratios), 1.25))
    assert net.grid[-1] >= max(net.lower.max(), net.volume.sum() / 2)
    assert geometric_grid(1.0, 1.0, 0.5).tolist() == [1.0, 1.5]
    with pytest.raises(ValueError, match="epsilon"):
        geometric_grid(1.0, 2.0, 0.0)
    with pytest.raises(ValueError, match="intervals"):
        flow_network(inst, intervals="hourly")


@settings(max_examples=30)
@given(malleable_instances(max_flows=4, max_jobs=4, max_processors=5, releases=True, cost_kinds=ALL_COSTS))
def test_highs_and_network_simplex_agree(inst):
    for intervals in ("geometric", "unit"):
        value, m = _lp_value(inst, intervals=intervals)
        other = solve_network_simplex(m.network)
        assert other.objective == pytest.approx(value, rel=1e-7, abs=1e-7)
        # Both flows route every chain's volume.
        sent = np.bincount(m.network.arc_chain, weights=other.flow, minlength=inst.n_flows)
        assert sent == pytest.approx(m.network.volume, rel=1e-9)
        assert flowflex_lp_solution(m).objective == pytest.approx(value, rel=1e-9, abs=1e-9)


@settings(max_examples=25)
@given(malleable_instances(max_flows=4, max_jobs=3, max_processors=5, releases=True, cost_kinds=ALL_COSTS))
def test_dropping_dominated_arcs_keeps_the_optimum(inst):
    merged, _ = _lp_value(inst, epsilon=0.3)
    full, m = _lp_value(inst, epsilon=0.3, merge=False)
    assert merged == pytest.approx(full, rel=1e-7, abs=1e-7)


@settings(max_examples=20)
@given(malleable_instances(max_flows=3, max_jobs=2, max_processors=3, releases=True, cost_kinds=ALL_COSTS))
def test_claim_1_the_flow_optimum_is_a_lower_bound(inst):
    opt = _optimum(inst)
    tol = 1e-6 * max(1.0, abs(opt))
    value, m = _lp_value(inst, intervals="geometric", epsilon=0.2)
    assert m.network.lower_bound
    assert value <= opt + tol
    unit, m = _lp_value(inst, intervals="unit")
    if m.network.lower_bound:
        assert unit <= opt + tol
