"""FlowFlex's pipelines (paper 000): the theorems' inequalities, the exact optimum in between the
lower bounds and the algorithms, and the knapsack subroutines against brute force.

Speed-augmented schedules are built with Algorithm 1's ``speed`` parameter and their cost is
evaluated from the chains' completion times directly: ``algorithms.run`` checks unit-speed
feasibility, which a schedule on faster processors does not have.
"""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

from schedrelax import algorithms
from schedrelax.errors import InfeasibleScheduleError, InstanceError, SchedrelaxError
from schedrelax.instances import Flow, MalleableInstance, costs
from schedrelax.instances.costs import aggregate
from schedrelax.models.flowflex_lp import flow_network
from schedrelax.models.malleable_mip import add_power_tangents, build_malleable_mip, malleable_mip_solution
from schedrelax.rounding.flowflex import (
    IMPROVED_RHO,
    default_epsilon,
    flow_costs,
    flowflex_deadlines,
    knapsack_deadlines,
    min_loss_knapsack,
    minimax_search,
    solve_flow_lp,
)
from schedrelax.schedulers.chains import flow_chains
from schedrelax.schedulers.greedy_deadline import greedy_deadline
from schedrelax.solvers import solve
from tests.strategies import malleable_instances

ALL_COSTS = ["completion", "stretch", "tardy", "tardiness", "sla", "power"]
FLOWFLEX = ["flowflex", "flowflex-minimax", "flowflex-knapsack", "flowflex-universal"]


def _cost(inst, completion):
    return aggregate(flow_costs(inst, completion), inst.objective)


def _tol(x):
    return 1e-6 * max(1.0, abs(x))


def _optimum(inst):
    """The exact optimum: the malleable MIP's value, power costs refined by tangent cuts until they
    are exact to 1e-6 (the ``mip`` algorithm's loop; its rebuilt schedule is not needed here)."""
    model = build_malleable_mip(inst, minima=False)
    while True:
        res = solve(model).require_optimal()
        if not add_power_tangents(model, inst, malleable_mip_solution(model, inst.size).flow_completion):
            return res.objective


def test_every_name_of_the_issue_is_registered_for_malleable():
    names = {spec.name for spec in algorithms.available("malleable")}
    assert {*FLOWFLEX, "fifo", "fair"} <= names  # `mip` for malleable comes with the FLEX issue


# ------------------------------------------------------------------------ hand-made instances

def test_single_flow_is_scheduled_on_its_critical_path():
    # One flow 0 -> 1 on P = 4: 8 work on 4 (2 long), then 2 work on 1 (2 long): optimum 4, which
    # is also the critical-path bound; every FlowFlex pipeline must find it.
    inst = MalleableInstance(processors=4, flows=(Flow(sizes=[8.0, 2.0], max_processors=[4, 1], edges=[[0, 1]]),))
    for name in FLOWFLEX:
        r = algorithms.run(name, inst)
        assert r.objective == pytest.approx(4.0)
        assert r.lower_bound == pytest.approx(4.0)


def test_minimax_makespan_by_hand():
    # P = 2, two one-job flows of 2 work each on at most 2 processors; makespan (minimax
    # completion). Any schedule needs 4 / 2 = 2; the bound and the schedule agree.
    inst = MalleableInstance(processors=2, objective="minimax",
                             flows=(Flow(sizes=[2.0], max_processors=[2]), Flow(sizes=[2.0], max_processors=[2])))
    r = algorithms.run("flowflex-minimax", inst)
    assert r.objective == pytest.approx(2.0)
    assert r.lower_bound == pytest.approx(2.0)


def test_corollary_1_ratio_for_weighted_completion_time():
    # α = √2 − 1: the unit-speed guarantee is (1 + 1/α)(1 + ε)/(1 − α) = (3 + 2√2)(1 + ε).
    inst = MalleableInstance(processors=3, flows=tuple(
        Flow(sizes=[float(s)], max_processors=[d], cost=costs.completion(w))
        for s, d, w in [(3, 1, 2.0), (6, 3, 1.0), (2, 2, 5.0), (4, 1, 1.0)]))
    r = algorithms.run("flowflex", inst, params={"alpha": math.sqrt(2) - 1})
    eps = r.info["epsilon"]
    assert r.guarantee == pytest.approx((3 + 2 * math.sqrt(2)) * (1 + eps))
    assert r.objective <= r.guarantee * r.lower_bound
    assert r.info["speed"] == pytest.approx((2 + math.sqrt(2)) * (1 + eps))


def test_corollary_2_lp_norm_of_completion_times():
    # Costs t^p summed are the l_p norm to the power p. Theorem 7 (α = 1/2) at unit speed:
    # Σ C^p <= 2·(3(1 + ε))^p·LP, i.e. ||C||_p <= 3(1 + ε)·2^(1/p)·OPT_p.
    p = 3.0
    inst = MalleableInstance(processors=4, flows=tuple(
        Flow(sizes=[float(s), float(t)], max_processors=[d, 1], edges=[[0, 1]], cost=costs.power(p))
        for s, t, d in [(6, 1, 2), (3, 2, 4), (8, 1, 1), (2, 2, 2)]))
    r = algorithms.run("flowflex", inst)
    eps = r.info["epsilon"]
    assert r.guarantee == pytest.approx(2 * (3 * (1 + eps)) ** p)
    norm = r.evaluation.completion @ r.evaluation.completion ** (p - 1)
    assert norm ** (1 / p) <= 3 * (1 + eps) * 2 ** (1 / p) * r.lower_bound ** (1 / p)


def test_bad_parameters():
    inst = MalleableInstance(processors=1, flows=(Flow(sizes=[1.0], max_processors=[1]),))
    with pytest.raises(ValueError, match="alpha"):
        algorithms.run("flowflex", inst, params={"alpha": 1.0})
    with pytest.raises(ValueError, match="method"):
        algorithms.run("flowflex", inst, params={"method": "simplex"})
    with pytest.raises(ValueError, match="rho"):
        algorithms.run("flowflex-knapsack", inst, params={"rho": 1.0})


# ------------------------------------------------------------------------------ knapsacks

def _brute_min_loss(v, p, budget):
    best = math.inf
    for pick in itertools.product([False, True], repeat=len(v)):
        pick = np.array(pick)
        if v[pick].sum() <= budget:
            best = min(best, p[~pick].sum())
    return best


def test_min_loss_knapsack_by_hand():
    # Budget 5. Selecting {0, 1} (sizes 2 + 3) leaves items 2 and 3 out: loss 8 + 1 = 9;
    # selecting {2} (size 5) leaves 3 + 4 + 1 = 8; {1, 3} leaves 11, {0, 3} 12: {2} is optimal.
    v = np.array([2.0, 3.0, 5.0, 1.0])
    p = np.array([3.0, 4.0, 8.0, 1.0])
    pick = min_loss_knapsack(v, p, 5.0, method="exact")
    assert pick.tolist() == [False, False, True, False]
    assert min_loss_knapsack(v, p, 5.0, method="fptas", epsilon=0.01).tolist() == [False, False, True, False]
    # Zero and negative profits are never selected; everything positive fits at budget 100.
    assert min_loss_knapsack(v, np.array([3.0, 0.0, -1.0, 1.0]), 100.0).tolist() == [True, False, False, True]


@settings(max_examples=80)
@given(st.lists(st.tuples(st.integers(1, 9), st.integers(0, 9)), min_size=1, max_size=8), st.integers(0, 30),
       st.sampled_from([0.5, 0.2, 0.05]))
def test_knapsacks_against_brute_force(items, budget, eps):
    v = np.array([float(a) for a, _ in items])
    p = np.array([float(b) for _, b in items])
    best = _brute_min_loss(v, p, budget)
    for method in ("exact", "fptas"):
        pick = min_loss_knapsack(v, p, float(budget), method=method, epsilon=eps)
        assert v[pick].sum() <= budget
        loss = p[~pick].sum()
        assert loss >= best - 1e-9
        assert loss <= (1.0 if method == "exact" else 1.0 + eps) * best + 1e-9


# ------------------------------------------------------------------ the theorems' inequalities

@settings(max_examples=40)
@given(malleable_instances(max_flows=5, max_jobs=4, max_processors=6, cost_kinds=ALL_COSTS),
       st.sampled_from([0.5, math.sqrt(2) - 1, 0.25, 0.8]), st.sampled_from(["geometric", "unit"]))
def test_theorem_8_alpha_point_at_augmented_speed(inst, alpha, intervals):
    # Theorem 8 (no releases): at speed (1 + 1/α)(1 + ε) — 1 + 1/α on the unit grid — every chain
    # meets its α-point deadline, so the cost is at most LP / (1 − α).
    chains = flow_chains(inst)
    sol, _ = solve_flow_lp(inst, chains, intervals=intervals, epsilon=0.3)
    deadline, order = flowflex_deadlines(sol, alpha)
    speed = (1 + 1 / alpha) * (1 + (sol.network.epsilon or 0.0))
    fast = greedy_deadline(chains, deadline, speed=speed, tiebreak=order)
    assert np.all(fast.completion <= deadline * (1 + 1e-9))
    assert _cost(inst, fast.completion) <= sol.objective / (1 - alpha) + _tol(sol.objective)
    # At unit speed Algorithm 1 needs at most that factor more time (releases or not).
    unit = greedy_deadline(chains, deadline, tiebreak=order)
    assert np.all(unit.completion <= speed * deadline * (1 + 1e-9))


@settings(max_examples=40)
@given(malleable_instances(max_flows=5, max_jobs=4, max_processors=6, releases=True, cost_kinds=ALL_COSTS))
def test_networkx_and_highs_pipelines_agree(inst):
    a = algorithms.run("flowflex", inst)
    b = algorithms.run("flowflex", inst, params={"method": "network-simplex", "processor_ids": True})
    assert b.info["lp_value"] == pytest.approx(a.info["lp_value"], rel=1e-7, abs=1e-7)


def test_default_epsilon_respects_the_budgets():
    inst = MalleableInstance(processors=2, flows=tuple(
        Flow(sizes=[float(1 + (7 * k) % 13)], max_processors=[1 + k % 2]) for k in range(40)))
    chains = flow_chains(inst)
    assert default_epsilon(chains) == pytest.approx(1 / 40)  # 5,835 arcs: the paper's 1/m fits
    eps = default_epsilon(chains, arcs=1000)
    assert eps > 1 / 40
    # The budget counts arcs before dominated ones are dropped; a 1 % finer grid breaks it.
    assert flow_network(inst, epsilon=eps, merge=False, chains=chains).n_arcs <= 1000
    assert flow_network(inst, epsilon=eps / 1.01, merge=False, chains=chains).n_arcs > 1000
    eps = default_epsilon(chains, intervals=20)
    assert flow_network(inst, epsilon=eps, chains=chains).n_intervals <= 20
    assert flow_network(inst, epsilon=eps / 1.01, chains=chains).n_intervals > 20


@settings(max_examples=20)
@given(malleable_instances(max_flows=3, max_jobs=2, max_processors=3, releases=True, cost_kinds=ALL_COSTS,
                           objective=["minisum", "minimax"]))
def test_lower_bounds_below_the_optimum_below_every_algorithm(inst):
    opt = _optimum(inst)
    for name in [*FLOWFLEX, "fair", "fifo"]:
        r = algorithms.run(name, inst)  # verifies the schedule
        assert r.objective >= opt - _tol(opt), name
        if r.lower_bound is not None:
            assert r.lower_bound <= opt + _tol(opt), name
        if r.guarantee is not None:
            assert r.objective <= r.guarantee * opt + _tol(opt), name


@settings(max_examples=20)
@given(malleable_instances(max_flows=3, max_jobs=2, max_processors=3, cost_kinds=ALL_COSTS, objective="minimax"))
def test_theorem_9_minimax_at_speed_two_one_plus_eps_costs_at_most_the_optimum(inst):
    opt = _optimum(inst)
    chains = flow_chains(inst)
    eps = 0.1
    search = minimax_search(inst, chains, epsilon=eps)
    assert search.converged
    assert search.lower_bound <= opt + _tol(opt)
    fast = greedy_deadline(chains, search.deadlines, speed=2 * (1 + eps), tiebreak=-chains.critical_path)
    assert _cost(inst, fast.completion) <= opt + _tol(opt)


@settings(max_examples=20)
@given(malleable_instances(max_flows=3, max_jobs=2, max_processors=3, cost_kinds=ALL_COSTS),
       st.sampled_from([2.0, IMPROVED_RHO]))
def test_theorem_10_knapsack_at_speed_six_costs_at_most_the_optimum(inst, rho):
    # Exact knapsack (α = 1), no releases: at speed (2ρ² − ρ)/(ρ − 1) the cost is at most OPT,
    # and Claims 2-3's bound is below OPT.
    opt = _optimum(inst)
    chains = flow_chains(inst)
    kd = knapsack_deadlines(inst, chains, rho=rho, knapsack="exact")
    assert kd.lower_bound <= opt + _tol(opt)
    speed = (2 * rho * rho - rho) / (rho - 1)
    fast = greedy_deadline(chains, kd.deadline, speed=speed)
    assert _cost(inst, fast.completion) <= opt + _tol(opt)


@settings(max_examples=15)
@given(malleable_instances(max_flows=3, max_jobs=2, max_processors=3), st.sampled_from(["completion", "power"]))
def test_theorem_11_universal_schedule_for_uniform_costs(inst, kind):
    # Every flow gets the same cost w; the deadlines do not depend on w, and at speed 6 the
    # schedule costs at most the optimum for that w.
    w = costs.completion(1.5) if kind == "completion" else costs.power(2.0)
    inst = MalleableInstance(processors=inst.processors, flows=tuple(
        Flow(sizes=fl.sizes, max_processors=fl.max_processors, edges=fl.edges, cost=w) for fl in inst.flows))
    opt = _optimum(inst)
    chains = flow_chains(inst)
    kd = knapsack_deadlines(inst, chains, universal=True)
    other = knapsack_deadlines(MalleableInstance(processors=inst.processors, flows=tuple(
        Flow(sizes=fl.sizes, max_processors=fl.max_processors, edges=fl.edges, cost=costs.stretch(7.0))
        for fl in inst.flows)), chains, universal=True)
    assert kd.deadline.tolist() == other.deadline.tolist()
    fast = greedy_deadline(chains, kd.deadline, speed=6.0)
    assert _cost(inst, fast.completion) <= opt + _tol(opt)


@settings(max_examples=30)
@given(malleable_instances(max_flows=5, max_jobs=4, max_processors=6, releases=True, cost_kinds=ALL_COSTS,
                           objective=["minisum", "minimax"]))
def test_every_pipeline_verifies_and_reports_its_speed(inst):
    for name in FLOWFLEX:
        r = algorithms.run(name, inst)
        assert r.info["speed"] >= 2.0
        assert r.info["cost_unit_speed"] == pytest.approx(r.objective, rel=1e-9, abs=1e-9)
        assert r.lower_bound <= r.objective + _tol(r.objective)


@pytest.mark.parametrize("name", ["flowflex", "flowflex-minimax", "flowflex-knapsack", "flowflex-universal"])
def test_issue_13_tiny_job_beside_large_ones_every_pipeline(name):
    # Issue 13, item 1: job 1 (1.7e-3 work, at most 10 processors) ran on 11 for 1.2e-12 at
    # t ≈ 1597.95 in all four pipelines. Checked with zero time slack, not only by verify.
    from tests.schedulers.exact_malleable import exact_problems
    from tests.schedulers.test_mcnaughton import _TINY_BESIDE_LARGE

    res = algorithms.run(name, _TINY_BESIDE_LARGE)
    assert exact_problems(_TINY_BESIDE_LARGE, res.schedule) == []


_SIZE_EXPONENTS = list(range(-9, 5))


@st.composite
def _tiny_and_big(draw):
    """One processor count, 1..3 flows of 1..3 jobs whose sizes are m·10^e, e in -9..4 (a job of
    1e-9 alone, beside one of 1e4, or in a chain with it), DAG edges, every cost kind, both
    objectives, all released at 0 (a release of 1e4 would put a 1e-9 job's start and end a
    few ulps apart: a float limit of the instance, not of these pipelines)."""
    from tests.strategies import dag_edges, fuzz_cost

    P = draw(st.integers(1, 4))
    flows = []
    for _ in range(draw(st.integers(1, 3))):
        n = draw(st.integers(1, 3))
        sizes = [draw(st.integers(10, 99)) / 10 * 10.0 ** draw(st.sampled_from(_SIZE_EXPONENTS)) for _ in range(n)]
        maxima = draw(st.lists(st.integers(1, P), min_size=n, max_size=n))
        kind = draw(st.sampled_from(["completion", "stretch", "tardy", "tardiness", "lateness", "sla", "power"]))
        cost = draw(fuzz_cost(kind, float(sum(sizes)), draw(st.sampled_from([1e-9, 1.0, 1e4]))))
        flows.append(Flow(sizes=sizes, max_processors=maxima, edges=draw(dag_edges(n)), cost=cost))
    try:
        return MalleableInstance(processors=P, flows=tuple(flows),
                                 objective=draw(st.sampled_from(["minisum", "minimax"])))
    except InstanceError:  # the shortest job below 5e-10 of the horizon: refused at load (issue 31)
        reject()


@settings(max_examples=25, deadline=None)
@given(_tiny_and_big())
def test_jobs_from_1e_minus_9_to_1e4_get_verified_schedules(inst):
    # Issue 13 (known bug 1 and its siblings): sizes the flow LP's absolute tolerance (1e-7) and
    # the online layer's "done" tolerance could not see. run() verifies every schedule; each
    # pipeline must return one, with its lower bound at most its cost (relative 1e-6, the
    # verifier's tolerance), or refuse with a typed error that says why — never a crash, never
    # an infeasible schedule.
    for name, params in [*((n, {}) for n in FLOWFLEX), ("flowflex", {"method": "network-simplex"}),
                         ("online:fifo", {})]:
        try:
            r = algorithms.run(name, inst, params=params)
        except SchedrelaxError as err:
            assert not isinstance(err, InfeasibleScheduleError), f"{name}: {err}"
            assert str(err), name
            continue
        assert r.lower_bound is not None and math.isfinite(r.lower_bound), name
        assert r.lower_bound <= r.objective + _tol(r.objective), (name, r.lower_bound, r.objective)


def test_flow_lp_routes_every_chain_of_a_tiny_job_beside_a_big_one():
    # A chain of 2e-5 work beside one of 1e4 on one processor (1e-9 beside 1e4 is below the
    # resolution of its times, refused at load since issue 31): each chain's flow must add up to its own volume (to
    # 1e-9 of it), which no absolute tolerance of 1e-7 could deliver for the small one. Unit
    # completion costs: chain 0 (1e4) can end no earlier than 1e4, chain 1 (2e-5) no earlier than
    # 2e-5; both meet their critical path only if chain 1 goes first, so the LP value is at most
    # 1e4 + 2e-5 (that schedule's cost) and, since each chain pays at least w(L_j) per unit, at
    # least 1e4 + 2e-5 too.
    inst = MalleableInstance(processors=1, flows=(Flow([1e4], [1]), Flow([2e-5], [1])))
    chains = flow_chains(inst)
    for method in ("lp", "network-simplex"):
        sol, _ = solve_flow_lp(inst, chains, method=method)
        routed = np.bincount(sol.network.arc_chain, weights=sol.flow, minlength=2)
        assert routed == pytest.approx([1e4, 2e-5], rel=1e-9)
        assert sol.objective == pytest.approx(1e4 + 2e-5, rel=1e-12)
        deadline, _ = flowflex_deadlines(sol, 0.5)
        # the tiny chain's α-point deadline is at its critical path L = 2e-5, far before 1e4
        assert deadline[1] == pytest.approx(2e-5, rel=1e-9)


@pytest.mark.parametrize("scale", [1.0, 1e-9])
def test_theorem_6_test_fires_at_every_scale(scale):
    # Three one-processor jobs of work s on P = 1, every deadline s: Algorithm 1 completes them at
    # s, 2s, 3s, and 3s > 2s, so Theorem 6's test must flag chain 2 (indeed no schedule finishes
    # 3s of work by s). An absolute slack of 1e-9 hid it at s = 1e-9 (3e-9 <= 2e-9 + 1e-9).
    inst = MalleableInstance(processors=1, flows=tuple(Flow([scale], [1]) for _ in range(3)))
    plan = greedy_deadline(flow_chains(inst), np.full(3, scale))
    assert plan.completion.tolist() == pytest.approx([scale, 2 * scale, 3 * scale], rel=1e-12)
    assert plan.infeasible.tolist() == [2]
    # a chain due at -inf fails the test, one due at +inf never does
    plan = greedy_deadline(flow_chains(inst), np.array([-np.inf, np.inf, scale]))
    assert plan.infeasible.tolist() == [0]


def test_minimax_of_nanosecond_jobs_with_a_lateness_deadline_at_1000():
    # Found by the test above (HiGHS 1.13 venv): two jobs of 1e-9 on one processor, lateness with
    # deadline 1000. The deadline of M = cost(2e-9) came back 1e-5 short of 2e-9 (the float cost
    # inverted exactly, not to its last float), so Algorithm 1 failed the schedule that defines M.
    # By hand: the jobs run one after the other, the flow completes at 2e-9, cost 2e-9 - 1000.
    inst = MalleableInstance(1, (Flow([1e-9, 1e-9], [1, 1], cost=costs.lateness(1000.0, 1.0)),))
    r = algorithms.run("flowflex-minimax", inst)
    assert r.objective == 2e-9 - 1000.0
    assert r.lower_bound <= r.objective
