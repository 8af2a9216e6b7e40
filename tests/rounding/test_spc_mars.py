"""Tests of MarS (``mars``, paper 004 Fig. 6's comparison, our reading in its docstring): its LP
order and speed-blind placement by hand, the scaled lower bound (proved in the docstring) checked
against S-PC's LP and the exact MIP, and the counter-example showing why the mean-speed LP alone is
no bound."""

import pytest
from hypothesis import given, settings

from schedrelax import algorithms
from schedrelax.algorithms import run
from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.instances.generate import spc as spc_setting
from schedrelax.rounding.spc import mean_speed_instance, solve_lp_schedule, speed_ratio
from tests.strategies import related_instances

REL = 1e-6  # the LP's relative tolerance


def pieces(schedule):
    return {(int(j), int(t)): (int(m), float(s), float(e))
            for j, t, m, s, e in zip(schedule.job, schedule.task, schedule.machine, schedule.start, schedule.end)}


def two_jobs():
    # Speeds (1, 3): μ = 4, mean 2. J0: tasks (3, 3), w 1 (p 6); J1: tasks (1, 1), w 2 (p 2).
    # Both jobs have q_j = m = 2 tasks, so μ_j = μ = 4 in both the true and the mean-speed
    # instance: the LPs coincide, ρ = 4 / (2 * 2) = 1, and Smith's rule is exact:
    # J1 first (w/p = 1 > 1/6): C1 = P/μ = 2/4 = 0.5, C0 = 8/4 = 2; LP = 2 * 0.5 + 1 * 2 = 3.
    return RelatedInstance(speeds=[1.0, 3.0], jobs=(RelatedJob([3.0, 3.0], 1.0), RelatedJob([1.0, 1.0], 2.0)))


def test_mars_by_hand_first_free():
    # Order J1, J0. J1: t0 both free -> m0 [0, 1]; t1 m1 free at 0 -> [0, 1/3]. C1 = 1.
    # J0: t0 m1 free at 1/3 (m0 at 1) -> m1 [1/3, 4/3]; t1 m0 free at 1 (m1 at 4/3) -> m0 [1, 4]. C0 = 4.
    # Σ w C = 2 * 1 + 1 * 4 = 6.
    res = run("mars", two_jobs())
    got = pieces(res.schedule)
    want = {(1, 0): (0, 0.0, 1.0), (1, 1): (1, 0.0, 1 / 3), (0, 0): (1, 1 / 3, 4 / 3), (0, 1): (0, 1.0, 4.0)}
    assert got.keys() == want.keys()
    for key, (m, s, e) in want.items():
        assert got[key][0] == m and got[key][1:] == pytest.approx((s, e))
    assert res.objective == pytest.approx(6.0)
    assert res.lower_bound == pytest.approx(3.0) and res.info["speed_ratio"] == pytest.approx(1.0)
    assert res.guarantee is None and "ρ" in res.bound_kind


def test_mars_by_hand_earliest_finish():
    # Same order, Algorithm 2 at the true speeds: J1 both tasks on m1 [0, 1/3], [1/3, 2/3] (m0 would end at 1);
    # J0's 3s: m1 ends 5/3 (m0 3) -> m1; then m1 8/3 (m0 3) -> m1. Σ w C = 2 * 2/3 + 8/3 = 4.
    res = run("mars", two_jobs(), placement="earliest_finish")
    assert res.objective == pytest.approx(4.0)
    assert run("spc", two_jobs()).objective == pytest.approx(4.0)  # the same order and placement


def test_speed_ratio_by_hand():
    # Speeds (1, 3), mean 2: a 1-task job gets μ_j = 3 against 1 * 2 -> 1.5; a 2-task job 4 / 4 = 1.
    inst = RelatedInstance(speeds=[1.0, 3.0], jobs=(RelatedJob([1.0]), RelatedJob([1.0, 1.0])))
    assert speed_ratio(inst) == pytest.approx(1.5)
    assert speed_ratio(mean_speed_instance(inst)) == pytest.approx(1.0)


def test_the_mean_speed_lp_alone_is_no_lower_bound():
    # One task of size 3, speeds (1, 3): OPT = 1 (the fast machine). The mean-speed LP's (3) forces
    # C >= 3 / 2 = 1.5 > OPT; divided by ρ = 3 / 2 it is 1 = OPT.
    inst = RelatedInstance(speeds=[1.0, 3.0], jobs=(RelatedJob([3.0]),))
    assert solve_lp_schedule(mean_speed_instance(inst)).solution.objective == pytest.approx(1.5)
    res = run("mars", inst)
    assert res.lower_bound == pytest.approx(1.0)
    assert run("mip", inst).objective == pytest.approx(1.0)


@settings(max_examples=25, deadline=None)
@given(related_instances(max_machines=3, max_jobs=4, max_tasks=3, releases=True))
def test_scaled_bound_is_below_spc_lp_and_every_schedule_verifies(inst):
    res = run("mars", inst)  # run() verifies the schedule
    lp = run("spc", inst).lower_bound
    # Proved in mars's docstring: LP_mean / ρ <= LP-Schedule <= OPT.
    assert res.lower_bound <= lp * (1 + REL) + 1e-9
    assert res.lower_bound <= res.objective * (1 + REL)


@settings(max_examples=10, deadline=None)
@given(related_instances(max_machines=2, max_jobs=3, max_tasks=2, releases=True))
def test_scaled_bound_is_below_the_exact_optimum(inst):
    opt = run("mip", inst)
    assert opt.info["optimal"]
    assert run("mars", inst).lower_bound <= opt.objective * (1 + REL) + 1e-9


def test_lp_schedule_bound_is_spc_s_and_none_is_none():
    inst = spc_setting(3, n_jobs=6, tasks_per_job=(1, 6), machines=4)
    assert run("mars", inst, bound="lp-schedule").lower_bound == pytest.approx(run("spc", inst).lower_bound, rel=REL)
    res = run("mars", inst, bound="none")
    assert res.lower_bound is None and res.bound_kind is None


def test_bad_parameters_are_named():
    with pytest.raises(ValueError, match="placement"):
        run("mars", two_jobs(), placement="fastest")
    with pytest.raises(ValueError, match="bound"):
        run("mars", two_jobs(), bound="lp")


def test_mars_is_registered_with_its_reading():
    spec = algorithms.get("mars", "related")
    assert spec.uses_solver and "MarS" in spec.summary and "004 §VI-B" in spec.summary and "Fig. 6" in spec.paper


def test_mars_runs_online():
    inst = spc_setting(1, n_jobs=5, tasks_per_job=(1, 4), machines=3, online=True)
    res = run("online:mars", inst)
    assert res.objective > 0
