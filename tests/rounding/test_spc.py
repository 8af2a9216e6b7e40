"""Tests of schedrelax.rounding.spc: S-PC (paper 004 Algorithms 1-2) and Theorem 2's bound against
the LP on generated instances, the Result's fields, the LP order, Identical-machine and Map-only."""

import numpy as np
import pytest
from hypothesis import given, settings

from schedrelax import algorithms
from schedrelax.algorithms import run
from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.instances.generate import spc as spc_setting
from schedrelax.rounding.spc import lp_order, map_phase, solve_lp_schedule, spc_guarantee
from tests.strategies import related_instances

REL = 1e-6  # the LP's relative tolerance on (2), which Lemma 4 inherits


def test_paper_004_algorithms_are_registered():
    specs = {s.name: s for s in algorithms.available("related")}
    for name in ("spc", "identical-machine", "map-only", "mip", "fifo", "huwf", "tetris"):
        assert name in specs
    assert specs["spc"].uses_solver and specs["mip"].uses_solver and not specs["huwf"].uses_solver


def test_guarantee_is_theorem_2():
    # m = 3; job tasks (2, 2) and (3, 1, 1): D_j = 2 and 5/3, D = 5/3; 2 (1 + 2 / (5/3)) = 4.4.
    jobs = (RelatedJob([2.0, 2.0]), RelatedJob([3.0, 1.0, 1.0]))
    inst = RelatedInstance(speeds=[1.0, 2.0, 3.0], jobs=jobs)
    assert spc_guarantee(inst) == pytest.approx(4.4)
    late = RelatedInstance(speeds=[1.0, 2.0, 3.0], jobs=(jobs[0], RelatedJob([3.0, 1.0, 1.0], release=1.0)))
    assert spc_guarantee(late) == pytest.approx(5.4)


def test_result_carries_the_lp_bound_d_and_the_loop_statistics():
    inst = spc_setting(2, n_jobs=10, tasks_per_job=(2, 8), machines=5)
    res = run("spc", inst)
    assert res.lower_bound == pytest.approx(solve_lp_schedule(inst).solution.objective, rel=REL)
    assert res.lower_bound <= res.objective
    assert res.guarantee == pytest.approx(spc_guarantee(inst))
    assert res.info["D"] == inst.D and res.info["lp_converged"]
    assert res.info["lp_method"] == "cutting planes" and res.info["lp_rounds"] >= 1
    assert res.objective <= res.guarantee * res.lower_bound


@settings(max_examples=50, deadline=None)
@given(related_instances(max_machines=4, max_jobs=6, max_tasks=4))
def test_spc_within_theorem_2_of_the_lp_zero_release(inst):
    res = run("spc", inst)
    assert res.guarantee == pytest.approx(2 * (1 + (inst.n_machines - 1) / inst.D))
    assert res.objective <= res.guarantee * res.lower_bound * (1 + REL)


@settings(max_examples=50, deadline=None)
@given(related_instances(max_machines=4, max_jobs=6, max_tasks=4, releases=True))
def test_spc_within_theorem_2_of_the_lp_with_releases(inst):
    res = run("spc", inst)
    # Per job (proof of (9)): Ĉ_j <= (1 + 2(1 + (m-1)/D)) C_j^LP, whatever the weights.
    C = res.evaluation.completion
    lp = solve_lp_schedule(inst).solution.C
    assert np.all(C <= spc_guarantee(inst) * lp * (1 + REL) + REL)
    assert res.objective <= res.guarantee * res.lower_bound * (1 + REL)


@pytest.mark.parametrize("seed", range(3))
def test_spc_within_its_bound_on_the_paper_setup(seed):
    inst = spc_setting(seed, n_jobs=30, tasks_per_job=(1, 20), machines=10, online=seed == 2, load=2.0)
    res = run("spc", inst)
    assert res.lower_bound <= res.objective <= res.guarantee * res.lower_bound
    # Zero release: the proof of (8) gives Ĉ_σ(j) <= (1 + (m-1)/D) P_j / μ per job, sharper than 2x LP.
    if seed < 2:
        C = res.evaluation.completion
        order = lp_order(inst, solve_lp_schedule(inst).solution.C)
        prefix = np.cumsum(inst.p[order]) / inst.mu
        assert np.all(C[order] <= (1 + (inst.n_machines - 1) / inst.D) * prefix * (1 + REL))


def test_smith_rule_replaces_the_lp_when_exact():
    inst = RelatedInstance(speeds=[1.0, 2.0], jobs=(RelatedJob([1.0, 2.0], 1.0), RelatedJob([3.0, 3.0, 1.0], 2.0)))
    res = run("spc", inst)
    assert res.info["lp_method"] == "smith" and res.info["lp_rounds"] == 0
    assert res.lower_bound == pytest.approx(solve_lp_schedule(inst, use_smith=False).solution.objective, rel=REL)


def test_lp_order_is_a_linear_extension_even_with_ties():
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([1.0]), RelatedJob([1.0]), RelatedJob([1.0])),
                           edges=[(2, 0)])
    assert lp_order(inst, np.array([1.0, 1.0, 1.0])).tolist() == [1, 2, 0]
    assert lp_order(inst, np.array([3.0, 1.0, 2.0])).tolist() == [1, 2, 0]


def test_identical_machine_equals_spc_on_identical_machines():
    inst = spc_setting(5, n_jobs=8, tasks_per_job=(1, 6), machines=4, speed_sd=0.0)
    assert run("identical-machine", inst).objective == pytest.approx(run("spc", inst).objective)


def test_identical_machine_suffers_from_slow_machines():
    # §VI-A: equal task counts per machine leave a job waiting on the slow ones.
    inst = spc_setting(6, n_jobs=10, tasks_per_job=(5, 20), machines=6, speed_sd=25.0)
    assert run("identical-machine", inst).objective > run("spc", inst).objective


def test_map_phase_weights_and_map_only_without_edges_is_spc():
    inst = RelatedInstance(speeds=[1.0, 2.0], jobs=(RelatedJob([1.0], 0.0), RelatedJob([2.0], 3.0),
                                                    RelatedJob([1.0, 1.0], 2.0), RelatedJob([1.0], 1.0)),
                           edges=[(0, 1), (0, 3), (2, 3)])
    sources, phase = map_phase(inst)
    # Job 1 (weight 3) is reached from source 0 only; job 3 (weight 1) from sources 0 and 2.
    assert sources.tolist() == [0, 2]
    assert phase.weights.tolist() == pytest.approx([0.0 + 3.0 + 0.5, 2.0 + 0.5])
    flat = RelatedInstance(speeds=[1.0, 2.0], jobs=inst.jobs)
    assert run("map-only", flat).objective == pytest.approx(run("spc", flat).objective)


def test_map_only_is_seeded_and_feasible():
    inst = spc_setting(7, n_jobs=8, tasks_per_job=(2, 8), machines=4)
    a, b = run("map-only", inst, seed=1), run("map-only", inst, seed=1)
    assert a.schedule.machine.tolist() == b.schedule.machine.tolist()
    assert a.lower_bound is None


@pytest.mark.solver("cvxpy")
def test_spc_with_cvxpy_gives_the_highs_bound():
    inst = spc_setting(8, n_jobs=6, tasks_per_job=(1, 5), machines=3)
    assert run("spc", inst, solver="cvxpy").lower_bound == pytest.approx(run("spc", inst).lower_bound, rel=1e-5)


@settings(max_examples=25, deadline=None)
@given(related_instances(max_jobs=5))
def test_lp_schedule_in_its_own_units_has_the_same_optimum(inst):
    # normalize=True solves the LP with time over the shortest task at the fastest speed and the
    # weights over the largest; read back, the optimum is the written LP's (both from the same
    # cutting-plane loop, to its tolerance 1e-6).
    a = solve_lp_schedule(inst, use_smith=False)
    b = solve_lp_schedule(inst, use_smith=False, normalize=False)
    assert a.solution.objective == pytest.approx(b.solution.objective, rel=1e-5)
    assert a.lower_bound is not None and b.lower_bound is not None
