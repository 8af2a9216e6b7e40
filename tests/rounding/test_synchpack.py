"""Tests of schedrelax.rounding.synchpack: every schedule verified, LP <= MIP optimum <= algorithm,
Theorems 1-3 as inequalities against the LPs, and Lemmas 2, 7 and 10 on the intermediate objects."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from schedrelax.algorithms import run
from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from schedrelax.instances.generate import synchpack
from schedrelax.models.synchpack_lp import build_lp1, build_lp2, interval_lp_solution
from schedrelax.rounding.synchpack import synchpack1_round, synchpack2_round
from schedrelax.schedules import evaluate, verify
from schedrelax.solvers import solve
from tests.strategies import packing_instances

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
REL = 1e-6


def job(*tasks, weight=1.0, release=0.0):
    return PackingJob(tasks=tuple(PackingTask(a, place, p) for a, place, p in tasks), weight=weight, release=release)


def lp_solution(build, inst, **kw):
    model = build(inst, **kw)
    assert solve(model).is_optimal
    return interval_lp_solution(model)


def generated(seeds=range(4)):
    """Synthetic §7 instances, offline: remote machines at α = 2 and single-machine placement."""
    for seed in seeds:
        for weights in ("equal", "random", "priority"):
            yield synchpack(seed, machines=4, n_jobs=8, tasks_per_job=(1, 5), weights=weights, alpha=2.0)
            yield synchpack(seed, machines=4, n_jobs=8, tasks_per_job=(1, 5), weights=weights, alpha=None,
                            local_machines=1)


# ------------------------------------------------------------------------------- by hand

def test_synchpack3_follows_the_lp3_order():
    # Capacity 1. A: w = 1, a = 1, p = 2; B: w = 3, a = 1, p = 1. LP3: C_A >= 2 + δ_BA,
    # C_B >= 1 + 2(1 - δ_BA); C_A + 3 C_B = 11 - 5 δ_BA, so δ_BA = 1, C = (3, 1), LP3 = 6.
    # SynchPack-3 runs B in [0, 1) and A in [1, 3): 3 + 3·1 = 6, the LP value.
    inst = PackingInstance([1.0], (job((1.0, [0], 2.0)), job((1.0, [0], 1.0), weight=3.0)))
    res = run("synchpack3", inst)
    assert res.lower_bound == pytest.approx(6.0)
    assert res.objective == pytest.approx(6.0)
    assert res.evaluation.completion.tolist() == pytest.approx([3.0, 1.0])
    assert res.guarantee == 4.0


def test_one_task_is_optimal_for_all_three():
    # One task (a = 1, p = 2) on capacity 1: LPs give 2 (unit 2: one interval, left point 2) and
    # every algorithm runs it in [0, 2).
    inst = PackingInstance([1.0], (job((1.0, [0], 2.0)),))
    for name in ("synchpack1", "synchpack2", "synchpack3"):
        res = run(name, inst)
        assert res.objective == pytest.approx(2.0) and res.lower_bound == pytest.approx(2.0), name


def test_synchpack3_on_several_machines_claims_no_bound():
    inst = PackingInstance([1.0, 1.0], (job((1.0, [0, 1], [2.0, 1.0])), job((0.5, [0], 1.0))))
    res = run("synchpack3", inst)
    assert res.lower_bound is None and res.guarantee is None and not res.info["dedicated"]
    assert res.schedule.machine[res.schedule.job == 0].tolist() == [1]  # the fastest machine


def test_random_lambda_comes_from_the_seed():
    inst = synchpack(1, machines=3, n_jobs=6, tasks_per_job=(1, 3), alpha=2.0)
    a = run("synchpack2", inst, seed=5, params={"lam": "random"})
    b = run("synchpack2", inst, seed=5, params={"lam": "random"})
    c = run("synchpack2", inst, seed=6, params={"lam": "random"})
    assert a.info["lambda"] == b.info["lambda"] != c.info["lambda"]
    assert a.guarantee is None  # the bound holds in expectation only
    with pytest.raises(ValueError, match="lam"):
        run("synchpack1", inst, params={"lam": 1.5})
    with pytest.raises(ValueError, match="lam must be in .*got 'nope'"):  # was float()'s own message
        run("synchpack1", inst, params={"lam": "nope"})
    with pytest.raises(ValueError, match="eps must be a finite number > 0, got inf"):  # was a RuntimeError
        run("synchpack1", inst, params={"eps": float("inf")})


def test_online_instances_get_no_guarantee():
    remote = synchpack(2, machines=3, n_jobs=6, tasks_per_job=(1, 3), alpha=2.0, online=True)
    dedicated = synchpack(2, machines=3, n_jobs=6, tasks_per_job=(1, 3), alpha=None, local_machines=1, online=True)
    for name, inst in (("synchpack1", remote), ("synchpack2", remote), ("synchpack3", dedicated)):
        res = run(name, inst)
        assert res.guarantee is None and res.lower_bound <= res.objective * (1 + REL), name


# ------------------------------------------------------------------------ Theorems 1-3

def check_theorems(inst):
    for name, params in (("synchpack1", {}), ("synchpack1", {"eps": 0.5}), ("synchpack2", {}), ("synchpack3", {})):
        res = run(name, inst, params=params)  # verifies, with the promises the schedule makes
        if res.lower_bound is None:
            continue
        theorem = {"synchpack1": 6 * (1 + params.get("eps", 1.0)), "synchpack2": 24, "synchpack3": 4}
        assert res.guarantee == theorem[name]
        assert res.lower_bound <= res.objective * (1 + REL), name
        assert res.objective <= res.guarantee * res.lower_bound * (1 + REL), (name, res.objective, res.lower_bound)
    assert "non_preemptive" in run("synchpack2", inst).schedule.promises


@pytest.mark.parametrize("inst", list(generated()), ids=lambda i: i.name)
def test_theorems_on_generated_instances(inst):
    check_theorems(inst)


@SETTINGS
@given(packing_instances(max_machines=3, max_jobs=4, max_tasks=3))
def test_theorems_on_random_instances(inst):
    check_theorems(inst)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(packing_instances(max_machines=2, max_jobs=3, max_tasks=2))
def test_lp_below_optimum_below_algorithm(inst):
    non_preemptive = run("mip", inst).objective
    sp2 = run("synchpack2", inst)
    assert sp2.lower_bound <= non_preemptive * (1 + REL) <= sp2.objective * (1 + REL) ** 2
    preemptive = run("mip", inst, params={"preemptive": True}).objective
    sp1 = run("synchpack1", inst)
    assert sp1.lower_bound <= preemptive * (1 + REL)  # the slotted optimum is above the migratory one
    sp3 = run("synchpack3", inst)
    assert preemptive <= sp3.objective * (1 + REL)  # event-driven on the unit grid: slotted
    if sp3.lower_bound is not None:
        assert sp3.lower_bound <= preemptive * (1 + REL)


# ------------------------------------------------------------------------- the lemmas

@SETTINGS
@given(packing_instances(max_machines=3, max_jobs=4, max_tasks=3))
def test_lemma2_fractions_of_the_first_l_intervals_end_by_3_dl(inst):
    sol = lp_solution(build_lp1, inst)
    rounded = synchpack1_round(inst, sol)
    finite = np.isfinite(rounded.tau)
    assert (rounded.tau[finite] <= 3 * sol.grid.d[finite] * (1 + REL)).all()
    verify(inst, rounded.schedule)


@SETTINGS
@given(packing_instances(max_machines=3, max_jobs=4, max_tasks=3))
def test_shift_back_never_delays_a_job(inst):
    sol = lp_solution(build_lp1, inst)
    for lam in (1.0, 0.6):
        plain = synchpack1_round(inst, sol, lam=lam, shift_back=False).schedule
        shifted = synchpack1_round(inst, sol, lam=lam, shift_back=True).schedule
        verify(inst, plain)
        verify(inst, shifted)
        assert (evaluate(inst, shifted).completion <= evaluate(inst, plain).completion + 1e-9).all()
    sol2 = lp_solution(build_lp2, inst)
    plain = synchpack2_round(inst, sol2, 0.8, shift_back=False)
    shifted = synchpack2_round(inst, sol2, 0.8, shift_back=True)
    assert (evaluate(inst, shifted.schedule).completion <= evaluate(inst, plain.schedule).completion + 1e-9).all()


@SETTINGS
@given(packing_instances(max_machines=3, max_jobs=4, max_tasks=3))
def test_lemmas_7_and_10_on_the_mapping_and_packing(inst):
    sol = lp_solution(build_lp2, inst)
    for lam in (1.0, 0.5, 0.17):
        for mode in ("task", "machine"):
            r = synchpack2_round(inst, sol, lam, mode=mode, shift_back=False)
            # Lemma 7: volume mapped to machine-interval (i, l) <= d̄_l m_i + Σ v z̄.
            assert (r.mapped_volume <= r.volume_bound * (1 + REL) + REL).all()
            # (13b): each task's time fits its interval's end point d_l <= d̄_l.
            ends = sol.grid.d[r.task_interval]
            ptime = r.packed_completion - evaluate_starts(r)
            assert (ptime <= ends * (1 + REL)).all()
            # Lemma 10: a task mapped to interval l completes by 6 d̄_l.
            assert (r.packed_completion <= 6 * sol.grid.d[r.task_interval] / lam * (1 + REL)).all()
            verify(inst, r.schedule)


def evaluate_starts(r):
    s = r.schedule
    order = np.lexsort((s.task, s.job))
    return s.start[order]  # one piece per task, in global task order


# ------------------------------------------------------------------------------- LP3's method

def test_a_large_lp3_goes_to_the_interior_point_method_unless_the_user_names_one():
    from schedrelax.models.synchpack_lp import lp3_program
    from schedrelax.rounding.synchpack import LP3_IPM_NONZEROS, dedicated_instance, lp3_method

    small = lp3_program(dedicated_instance(synchpack(0, machines=4, n_jobs=8, tasks_per_job=3, alpha=None,
                                                     local_machines=1))[0])
    large = lp3_program(synchpack(0, machines=10, n_jobs=100, tasks_per_job=10, alpha=None, local_machines=1))
    assert small.A.nnz < LP3_IPM_NONZEROS <= large.A.nnz
    assert lp3_method(small, "highs") == "highs"
    assert lp3_method(large, "highs") == "highs:ipm"
    for named in ("highs:simplex", "highs:choose", "cvxpy:CLARABEL"):
        assert lp3_method(large, named) == named


def test_lp3_by_interior_point_and_by_simplex_reach_the_same_optimum_and_schedule():
    # 100 jobs x 10 tasks, one machine per task: above LP3_IPM_NONZEROS, so the default is the IPM.
    # The dual simplex is the independent second method. Both give the same job order here, so
    # the same schedule (a different optimal vertex could reorder tied jobs; none are tied here).
    inst = synchpack(0, machines=10, n_jobs=100, tasks_per_job=10, alpha=None, local_machines=1)
    by_default = run("synchpack3", inst)
    by_simplex = run("synchpack3", inst, solver="highs:simplex")
    assert by_default.info["lp_solver"] == "highs:ipm" and by_simplex.info["lp_solver"] == "highs:simplex"
    assert by_default.lower_bound == pytest.approx(by_simplex.lower_bound, rel=1e-9)
    verify(inst, by_default.schedule)
    assert by_default.objective == by_simplex.objective
    assert by_default.lower_bound <= by_default.objective <= 4 * by_default.lower_bound


def test_dedicated_time_is_each_tasks_time_on_its_machine():
    from schedrelax.models.synchpack_lp import dedicated_machine, dedicated_placement

    cases = [synchpack(s, machines=6, n_jobs=10, tasks_per_job=(1, 4), alpha=None, local_machines=1) for s in range(5)]
    # The elsewhere rule supplying the one usable machine: machine 2 is the only one that fits.
    cases.append(PackingInstance(capacities=[0.5, 0.5, 2.0], jobs=(
        PackingJob(tasks=(PackingTask(1.0, [], [], elsewhere_time=3.0), PackingTask(0.25, [1], 2.5))),
        PackingJob(tasks=(PackingTask(1.5, [0], 7.0, elsewhere_time=4.0),)))))
    for inst in cases:
        machine = dedicated_machine(inst)
        assert machine is not None
        want = [inst.time_on(t, int(i)) for t, i in enumerate(machine.tolist())]
        assert dedicated_placement(inst)[1].tolist() == want
        assert (inst.demand <= np.asarray(inst.capacities)[machine]).all()  # the machine fits the task
    # by hand: task 0 fits only machine 2 (elsewhere), task 1 is pinned to 1, task 2 does not fit
    # its explicit machine 0 and falls to machine 2 by its elsewhere rule
    assert dedicated_machine(cases[-1]).tolist() == [2, 1, 2]
    assert dedicated_placement(cases[-1])[1].tolist() == [3.0, 2.5, 4.0]
