"""Tests of schedrelax.models.queyranne: LP-Schedule (paper 004 §III-A), the separation oracle of
Definition 1 / Lemma 1 against brute force, the validity of (2)-(4) for real schedules, Smith's rule,
and the cutting-plane loop's optimum across cut modes and solvers."""

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings, strategies as st

from schedrelax.algorithms import run
from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.instances.generate import spc as spc_setting
from schedrelax.models.queyranne import (
    QueyranneCuts,
    ScheduleLPData,
    build_lp_schedule,
    completion_lower_bounds,
    feasible_shift,
    lp_upper_bound,
    max_subset_violation,
    queyranne_rhs,
    queyranne_separation,
    smith_rule_lp,
)
from schedrelax.rounding.spc import solve_lp_schedule
from tests.strategies import related_instances

TOL = 1e-6  # the loop's relative tolerance on (2)


def lp_checks(instance, C, tol=TOL):
    """C satisfies (3), (4) and every set of (2) (brute force) within tol."""
    d = ScheduleLPData.of(instance)
    scale = max(1.0, float(C.max()))
    assert np.all(C >= d.p / d.mu_j + d.release - tol * scale)
    for a, b in d.edges.tolist():
        assert C[b] >= C[a] + d.p[b] / d.mu_j[b] - tol * scale
    assert max_subset_violation(C, d.p, d.mu_j, d.mu) <= tol


# ------------------------------------------------------------------------------------ by hand

def one_machine(sizes, weights, edges=(), releases=None):
    releases = releases or [0.0] * len(sizes)
    return RelatedInstance(speeds=[1.0], jobs=tuple(RelatedJob(tasks=[s], weight=w, release=r)
                                                    for s, w, r in zip(sizes, weights, releases)), edges=edges)


def test_single_machine_lp_by_hand():
    # m = 1, μ = μ_j = 1, p = (1, 2), w = (1, 1): (2) reads C1 >= 1, 2 C2 >= 4, C1 + 2 C2 >= 7. The
    # vertex C = (1, 3) (SPT) costs 4, the other (3, 2) costs 5: LP = 4, also Smith's rule.
    inst = one_machine([1.0, 2.0], [1.0, 1.0])
    lp = solve_lp_schedule(inst, use_smith=False)
    assert lp.solution.objective == pytest.approx(4.0)
    assert lp.solution.C == pytest.approx([1.0, 3.0])
    assert smith_rule_lp(inst).objective == pytest.approx(4.0)


def test_precedence_against_smith_order_by_hand():
    # Same jobs with the edge 1 -> 0 (the long job first): (4) C0 >= C1 + 1 with C1 >= 2, and the
    # set {0, 1} needs C0 + 2 C1 >= 7, so C = (3, 2), LP = 5 — the only order the DAG allows.
    inst = one_machine([1.0, 2.0], [1.0, 1.0], edges=[(1, 0)])
    lp = solve_lp_schedule(inst)
    assert lp.method == "cutting planes"
    assert lp.solution.C == pytest.approx([3.0, 2.0])
    assert lp.solution.objective == pytest.approx(5.0)


def test_release_time_constraint_3_by_hand():
    # Job 0 (p=2) released at 5: C0 >= 7; job 1 (p=1) at 0: C1 >= 1; (2) on {0,1} (f = 2 + 0.5 + 4.5
    # = 7) holds at (7, 1): 14 + 1 >= 7. LP = 7 + 1 = 8, the true optimum too.
    inst = one_machine([2.0, 1.0], [1.0, 1.0], releases=[5.0, 0.0])
    lp = solve_lp_schedule(inst)
    assert lp.solution.objective == pytest.approx(8.0)


def test_parallel_tasks_use_mu_j_by_hand():
    # Speeds (2, 1): μ = 3. One job of two tasks of size 3: q = 2, μ_j = 3, p = 6, so (3) gives
    # C >= 2 and (2) gives 6 C >= 36/6 + 36/6 = 12, the same. A single-task job of size 6 has
    # μ_j = 2 (the fastest machine): C >= 3.
    two = RelatedInstance(speeds=[2.0, 1.0], jobs=(RelatedJob(tasks=[3.0, 3.0]),))
    assert solve_lp_schedule(two).solution.objective == pytest.approx(2.0)
    one = RelatedInstance(speeds=[2.0, 1.0], jobs=(RelatedJob(tasks=[6.0]),))
    assert solve_lp_schedule(one).solution.objective == pytest.approx(3.0)


def test_model_holds_constraints_3_and_4_and_the_objective():
    inst = RelatedInstance(speeds=[1.0, 2.0], jobs=(RelatedJob([2.0], 2.0, 1.0), RelatedJob([1.0, 3.0], 1.0)),
                           edges=[(0, 1)])
    m = build_lp_schedule(inst, seed_chain=False)
    assert m.C[0].lb == pytest.approx(2.0 / 2.0 + 1.0)  # p/μ_j + r, μ_j = fastest speed
    assert m.C[1].lb == pytest.approx(4.0 / 3.0)
    assert len(m.precedence) == 1 and m.precedence[0].lower == pytest.approx(4.0 / 3.0)
    assert m.component("smith_chain") is None
    assert len(build_lp_schedule(inst).smith_chain.link) == 2


def test_completion_lower_bounds_chain_3_and_4():
    # lengths 1, 2, 3; release 0, 5, 0; edges 0 -> 2, 1 -> 2: bounds 1, 7, max(1, 7) + 3 = 10.
    bounds = completion_lower_bounds(np.array([1.0, 2.0, 3.0]), np.array([0.0, 5.0, 0.0]), np.array([[0, 2], [1, 2]]))
    assert bounds.tolist() == [1.0, 7.0, 10.0]


# ------------------------------------------------------------------------------------ the oracle

@settings(max_examples=60, deadline=None)
@given(st.integers(1, 10), st.integers(1, 4), st.integers(0, 2 ** 32 - 1))
def test_oracle_prefix_is_the_most_violated_set(n, m, seed):
    # Lemma 1: when some set is violated (V > 0), the largest V over all 2^n - 1 sets is attained by a
    # prefix of the oracle's order; when none is, no prefix is (a singleton of negative V need not be
    # a prefix: removing it would leave the empty set, which is no constraint).
    rng = np.random.default_rng(seed)
    speeds = rng.uniform(0.5, 3.0, m)
    p = rng.uniform(0.5, 5.0, n)
    mu_j = np.cumsum(np.sort(speeds)[::-1])[rng.integers(0, m, n)]
    C = rng.uniform(0.0, 1.2 * p.sum() / speeds.sum(), n) + p / mu_j
    sep = queyranne_separation(C, p, mu_j, speeds.sum())
    best = max_subset_violation(C, p, mu_j, speeds.sum(), relative=False)
    assert max(sep.violation[sep.most_violated], 0.0) == pytest.approx(max(best, 0.0), rel=1e-9, abs=1e-9)
    k = sep.most_violated
    assert sep.rhs[k] == pytest.approx(queyranne_rhs(p[sep.order[:k + 1]], mu_j[sep.order[:k + 1]], speeds.sum()))


def test_oracle_orders_by_c_minus_half_processing_time():
    sep = queyranne_separation(np.array([5.0, 3.0, 4.0]), np.array([4.0, 1.0, 1.0]), np.array([1.0, 1.0, 1.0]), 1.0)
    assert sep.order.tolist() == [1, 0, 2]  # d = 3, 2.5, 3.5
    assert sep.violated(0.0).tolist() == sorted(np.flatnonzero(sep.relative > 0).tolist())


def test_brute_force_refuses_large_n():
    with pytest.raises(ValueError, match="at most 20"):
        max_subset_violation(np.ones(21), np.ones(21), np.ones(21), 1.0)


# ------------------------------------------------------------------------------------ validity

@settings(max_examples=40, deadline=None)
@given(related_instances(max_machines=3, max_jobs=5, max_tasks=3, releases=True))
def test_every_schedules_completion_times_satisfy_2_to_4(inst):
    # The LP is a lower bound only if (2)-(4) hold for every feasible schedule: check them,
    # set by set, on the completion times of several schedulers' (verified) schedules.
    for name in ("fifo", "huwf", "tetris"):
        C = run(name, inst).evaluation.completion
        lp_checks(inst, C, tol=1e-12)


# ------------------------------------------------------------------------------------ the loop

@settings(max_examples=30, deadline=None)
@given(related_instances(max_machines=3, max_jobs=7, max_tasks=3, releases=True))
def test_final_lp_violates_no_set_of_2(inst):
    lp = solve_lp_schedule(inst, use_smith=False)
    assert lp.converged
    lp_checks(inst, lp.solution.C)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cut_modes_reach_the_same_optimum(seed):
    inst = spc_setting(seed, n_jobs=12, tasks_per_job=(1, 6), machines=5, online=seed == 2, load=1.5)
    values = {mode: solve_lp_schedule(inst, cuts=mode).solution.objective for mode in ("most", "prefixes", "fluid")}
    assert values["prefixes"] == pytest.approx(values["most"], rel=1e-6)
    assert values["fluid"] == pytest.approx(values["most"], rel=1e-6)
    unseeded = solve_lp_schedule(inst, seed_chain=False, fluid_cuts=0)
    assert unseeded.solution.objective == pytest.approx(values["most"], rel=1e-6)


def test_fluid_cuts_take_fewer_rounds_than_one_cut_per_round():
    inst = spc_setting(4, n_jobs=20, tasks_per_job=(1, 10), machines=8)
    most = solve_lp_schedule(inst, cuts="most")
    fluid = solve_lp_schedule(inst, cuts="fluid")
    assert fluid.solution.objective == pytest.approx(most.solution.objective, rel=1e-6)
    assert fluid.rounds < most.rounds
    assert most.fluid_cuts == 0 and most.prefix_cuts == most.rounds - 1
    assert 0 < fluid.solve_seconds <= fluid.seconds


def test_cut_arguments_are_checked():
    m = build_lp_schedule(one_machine([1.0], [1.0]))
    with pytest.raises(ValueError, match="mode"):
        QueyranneCuts(m, "all")
    with pytest.raises(ValueError, match="fluid_cuts"):
        QueyranneCuts(m, fluid_cuts=-1)


@pytest.mark.solver("cvxpy")
def test_cvxpy_loop_reaches_the_highs_optimum():
    inst = spc_setting(3, n_jobs=8, tasks_per_job=(1, 6), machines=4)
    highs = solve_lp_schedule(inst, "highs")
    cvx = solve_lp_schedule(inst, "cvxpy")
    assert cvx.converged
    assert cvx.solution.objective == pytest.approx(highs.solution.objective, rel=1e-5)


# ------------------------------------------------------------------------------------ Smith's rule

@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3), st.lists(st.tuples(st.integers(1, 6), st.integers(0, 3)), min_size=1, max_size=8),
       st.integers(0, 2 ** 32 - 1))
def test_smith_rule_is_the_lp_optimum_when_every_mu_j_is_mu(m, jobs, seed):
    # Every job has at least m tasks, so μ_j = μ; no edges, no releases: the greedy is exact.
    rng = np.random.default_rng(seed)
    speeds = rng.choice([0.5, 1.0, 2.0, 4.0], m)
    inst = RelatedInstance(speeds=speeds, jobs=tuple(
        RelatedJob(tasks=rng.integers(1, 6, m + extra).astype(float), weight=float(w)) for extra, w in jobs))
    exact = smith_rule_lp(inst)
    assert exact is not None
    lp = solve_lp_schedule(inst, use_smith=False)
    assert exact.objective == pytest.approx(lp.solution.objective, rel=1e-6, abs=1e-9)
    lp_checks(inst, exact.C, tol=1e-9)


def test_smith_rule_declines_when_constraint_3_binds():
    # Single-task jobs on 2 machines: μ_j = 2 < μ = 3; the greedy gives the first job
    # p/(2·2) + p/(2·3) < p/2, below (3), so the LP is strictly larger and Smith's rule says None.
    inst = RelatedInstance(speeds=[2.0, 1.0], jobs=(RelatedJob([4.0], 1.0), RelatedJob([2.0], 1.0)))
    assert smith_rule_lp(inst) is None
    # Precedence or a positive release time: not the greedy's problem any more.
    assert smith_rule_lp(RelatedInstance(speeds=[1.0], jobs=(RelatedJob([1.0]), RelatedJob([1.0])),
                                         edges=[(0, 1)])) is None
    assert smith_rule_lp(one_machine([1.0], [1.0], releases=[1.0])) is None
    lp = solve_lp_schedule(inst)
    assert lp.method == "cutting planes"
    lp_checks(inst, lp.solution.C)
    # By hand: C1 >= 1 (3), then {0, 1}: 4 C0 + 2 C1 >= 11 gives C0 >= 2.25: LP = 3.25, above the
    # greedy's 2.333 + 0.833 = 3.167 (whose C1 breaks (3)).
    assert lp.solution.objective == pytest.approx(3.25)


def test_lp_model_objective_is_in_instance_units():
    inst = one_machine([1.0, 2.0], [2.0, 3.0])
    m = build_lp_schedule(inst)
    for j, c in enumerate([1.0, 3.0]):
        m.C[j].set_value(c)
    assert pyo.value(m.obj) == pytest.approx(2.0 * 1.0 + 3.0 * 3.0)


# ------------------------------------------------------------------ stalls on round-off (issue #17)

@pytest.fixture(scope="module")
def deep_dag():
    """The shape where the chain cuts stall: 50 DAG jobs, 197 stages, 31,236 tasks, 20 machines
    (seed 0 of the dag-jobs setup). Before the stall rule the fluid loop ran into any round limit
    here (300 rounds, converged False) with the point unchanged from round to round."""
    from schedrelax.instances.generate import generate

    return generate("related", "dag-jobs", 0, scale="paper")


def _loop(instance, monkeypatch=None, **kwargs):
    from schedrelax.rounding import spc

    made = []

    class Spy(QueyranneCuts):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            made.append(self)

    if monkeypatch is not None:
        monkeypatch.setattr(spc, "QueyranneCuts", Spy)
    return spc.solve_lp_schedule(instance, **kwargs), made


def test_a_stalled_chain_falls_back_to_dense_cuts_and_converges(deep_dag, monkeypatch):
    # The Pyomo loop (HiGHS extends its own basis) stalls here on the instance's clock; the cut
    # pool's warm basis does not (next test), so the stall rule is exercised on the loop where it
    # was found. In the instance's own units (normalize=True, the default) the Pyomo loop does not
    # stall either: 11 rounds, no fallback (measured); the rule is tested where round-off bites.
    lp, (cuts,) = _loop(deep_dag, monkeypatch, max_rounds=300, loop="pyomo", normalize=False)
    assert lp.converged and not cuts.gave_up and cuts.residual == 0.0
    assert cuts.fallback_round is not None and lp.rounds < 50
    # Converged means what the oracle says of the final point: no prefix violated beyond tol.
    d = ScheduleLPData.of(deep_dag)
    assert queyranne_separation(lp.solution.C, d.p, d.mu_j, d.mu).relative.max() <= 1e-6


def test_the_cut_pool_converges_on_the_deep_dag_and_the_oracle_agrees(deep_dag, monkeypatch):
    lp, (cuts,) = _loop(deep_dag, monkeypatch, max_rounds=300)
    assert lp.converged and not cuts.gave_up and cuts.residual == 0.0 and lp.rounds < 50
    d = ScheduleLPData.of(deep_dag)
    assert queyranne_separation(lp.solution.C, d.p, d.mu_j, d.mu).relative.max() <= 1e-6


def test_without_the_stall_rule_the_loop_runs_into_its_limit(deep_dag, monkeypatch):
    import schedrelax.models.queyranne as q

    monkeypatch.setattr(q, "STALL_ROUNDS", 10**9)  # the rule off: the loop before issue #17
    lp, (cuts,) = _loop(deep_dag, monkeypatch, max_rounds=60, loop="pyomo", normalize=False)
    assert not lp.converged and lp.rounds == 60 and cuts.fallback_round is None


def test_a_separation_that_cannot_move_the_point_gives_up_and_is_not_converged(deep_dag, monkeypatch):
    import schedrelax.models.queyranne as q

    # Every point counts as the last one: 2 unmoved rounds -> dense cuts; 2 more -> give up.
    monkeypatch.setattr(q, "SAME_POINT", float("inf"))
    lp, (cuts,) = _loop(deep_dag, monkeypatch, max_rounds=300)
    assert cuts.fallback_round == 3 and cuts.gave_up and cuts.residual > 1e-6
    assert not lp.converged and lp.rounds == 5


@pytest.mark.slow
def test_the_fallback_reaches_the_one_cut_loops_optimum(deep_dag):
    from schedrelax.rounding.spc import solve_lp_schedule

    fluid = solve_lp_schedule(deep_dag)
    most = solve_lp_schedule(deep_dag, cuts="most")
    assert fluid.converged and most.converged
    assert fluid.solution.objective == pytest.approx(most.solution.objective, rel=1e-7)


# ------------------------------------------------------------------------------ upper bounds

def test_feasible_shift_by_hand():
    # one job, p = 2, μ_j = μ = 1: f = 2²/2 + 2²/2 = 4, so (2) is 2 C >= 4, C >= 2
    p, mu_j = np.array([2.0]), np.array([1.0])
    assert feasible_shift(np.array([1.5]), p, mu_j, 1.0) == pytest.approx(0.5, abs=1e-12)
    assert feasible_shift(np.array([2.5]), p, mu_j, 1.0) == 0.0
    # two jobs p = (1, 1) on μ = μ_j = 1 at C = (1, 1): the pair needs 1·C1 + 1·C2 >= 1/2 + 1/2 + 2 = 3,
    # each alone C >= 1; so both must move by 1/2 (C = (1.5, 1.5))
    assert feasible_shift(np.ones(2), np.ones(2), np.ones(2), 1.0) == pytest.approx(0.5, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 9).flatmap(lambda n: st.tuples(
    st.lists(st.floats(0.5, 20.0), min_size=n, max_size=n),
    st.lists(st.floats(0.1, 3.0), min_size=n, max_size=n),
    st.lists(st.floats(0.0, 30.0), min_size=n, max_size=n),
    st.floats(1.0, 10.0))))
def test_feasible_shift_is_the_least_shift_that_meets_every_set(case):
    p, share, C = (np.asarray(a, dtype=float) for a in case[:3])
    mu = case[3]
    mu_j = np.minimum(share * mu, mu)
    c = feasible_shift(C, p, mu_j, mu)
    assert c >= 0
    # brute force over all 2^n − 1 sets: after the shift none is violated beyond round-off ...
    assert max_subset_violation(C + c, p, mu_j, mu, relative=False) <= 1e-9 * max(1.0, float(np.sum(p * (C + c))))
    # ... and a shift a little smaller leaves one violated (when any shift was needed)
    if c > 1e-6:
        assert max_subset_violation(C + c - 1e-6, p, mu_j, mu, relative=False) > 0


@settings(max_examples=30, deadline=None)
@given(related_instances(max_machines=3, max_jobs=7, max_tasks=3, releases=True))
def test_the_lp_optimum_lies_between_the_loops_bounds(inst):
    lp = solve_lp_schedule(inst, use_smith=False)
    exact = solve_lp_schedule(inst, use_smith=False, cuts="most", tol=1e-9, loop="pyomo")
    assert lp.converged and lp.relaxed and exact.converged
    assert lp.lower_bound <= exact.solution.objective * (1 + 1e-9) + 1e-9
    assert exact.solution.objective <= lp.upper_bound * (1 + 1e-9) + 1e-9
    assert lp.upper_bound - lp.lower_bound <= 2e-6 * max(1.0, lp.upper_bound)
    # both brackets hold the same optimum, so they must meet (a proof-level check, no tolerance guess)
    assert lp.lower_bound <= exact.upper_bound * (1 + 1e-12) and exact.lower_bound <= lp.upper_bound * (1 + 1e-12)
    d = ScheduleLPData.of(inst)
    value, point = lp_upper_bound(d, lp.solution.C)
    assert value == pytest.approx(lp.upper_bound, rel=1e-12)
    assert np.all(point >= d.lower - 1e-12)  # (3)-(4) held exactly ...
    for a, b in d.edges.tolist():
        assert point[b] >= point[a] + d.p[b] / d.mu_j[b] - 1e-9 * max(1.0, point[b])
    assert max_subset_violation(point, d.p, d.mu_j, d.mu) <= 1e-12  # ... and (2)


def test_a_segments_loop_stopped_early_claims_no_bound():
    inst = spc_setting(3, n_jobs=60, tasks_per_job=(1, 10), machines=8, online=True, load=2.0)
    full = solve_lp_schedule(inst, loop="segments")
    cut_short = solve_lp_schedule(inst, loop="segments", max_rounds=2)
    assert full.relaxed and full.lower_bound == full.solution.objective
    assert not cut_short.converged and not cut_short.relaxed and cut_short.lower_bound is None
    assert cut_short.upper_bound >= full.lower_bound  # an upper bound whatever the loop did


def test_spc_claims_no_bound_from_a_segments_loop_stopped_early(monkeypatch):
    import schedrelax.rounding.spc as spc

    monkeypatch.setattr(spc, "SEGMENTS_FROM", 1)  # the 60 jobs go to the segments loop
    inst = spc_setting(3, n_jobs=60, tasks_per_job=(1, 10), machines=8, online=True, load=2.0)
    short = run("spc", inst, params={"max_rounds": 2})
    assert short.lower_bound is None and short.guarantee is None
    assert short.info["lp_rounds"] == 2 and not short.info["lp_converged"]
    whole = run("spc", inst)
    assert whole.lower_bound == pytest.approx(solve_lp_schedule(inst, loop="pool").solution.objective, rel=1e-6)
    assert whole.lower_bound <= whole.info["lp_upper_bound"]
