"""Warm starts of LP3 across online re-plans (issue 17 item 3): statuses read off a vertex, the
job-keyed LP3Basis that carries them to another sub-instance, HiGHS starting from them, and the
simulator passing them along. A start may change the time and which optimal vertex comes back,
never the optimum: every check here is against a cold solve or a hand-solved LP."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedrelax._matrix import AT_LOWER, AT_UPPER, BASIC, ProgramBuilder, vertex_statuses
from schedrelax.algorithms import run
from schedrelax.errors import AlgorithmError
from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from schedrelax.instances._checks import positions
from schedrelax.instances.generate import synchpack
from schedrelax.models.synchpack_lp import LP3Basis, lp3_program, lp3_solution
from schedrelax.solvers import solve_program

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def tiny_lp():
    """min x + 2y  s.t.  x + y >= 1 (row 0),  x - y <= 0.5 (row 1),  0 <= x <= 0.75, 0 <= y <= 1.

    By hand: y = 1 - x is cheapest with x as large as allowed; x <= 0.75 and x - (1 - x) <= 0.5,
    i.e. x <= 0.75, so x = 0.75, y = 0.25, objective 1.25; x at its upper bound, y strictly
    inside, row 0 at its lower bound, row 1 (0.5) at its upper bound."""
    m = ProgramBuilder("tiny")
    m.var("x", 2, np.array([0.0, 0.0]), np.array([0.75, 1.0]))
    m.rows("r", sp.csr_array(np.array([[1.0, 1.0], [1.0, -1.0]])), np.array([1.0, -np.inf]), np.array([np.inf, 0.5]))
    m.objective(np.arange(2), np.array([1.0, 2.0]))
    return m.finish(None)


def test_vertex_statuses_of_a_hand_solved_vertex():
    program = tiny_lp()
    solved = solve_program(program)
    assert solved.result.objective == pytest.approx(1.25, abs=1e-9)
    assert np.allclose(solved.x, [0.75, 0.25])
    col, row = vertex_statuses(program, solved.x)
    assert col.tolist() == [AT_UPPER, BASIC]
    assert row.tolist() == [AT_LOWER, AT_UPPER]
    with pytest.raises(ValueError, match="3 columns|shape"):
        vertex_statuses(program, np.zeros(3))


def test_any_start_statuses_reach_the_cold_optimum_and_a_wrong_length_is_refused():
    program = lp3_program(synchpack(3, machines=5, n_jobs=30, tasks_per_job=(1, 4), alpha=None, local_machines=1))
    cold = solve_program(program, "highs:simplex").result.objective
    rng = np.random.default_rng(0)
    for col, row in [(np.full(program.n_cols, BASIC), np.full(program.n_rows, BASIC)),
                     (np.full(program.n_cols, AT_LOWER), np.full(program.n_rows, AT_LOWER)),
                     (rng.choice([AT_LOWER, BASIC, AT_UPPER], program.n_cols), rng.choice([AT_LOWER, BASIC], program.n_rows))]:
        warm = solve_program(program, "highs:simplex", basis=(col, row))
        assert warm.result.is_optimal
        assert warm.result.objective == pytest.approx(cold, rel=1e-9)
    with pytest.raises(ValueError, match="column and .* row statuses"):
        solve_program(program, basis=(np.zeros(program.n_cols - 1, dtype=np.int64), np.zeros(program.n_rows, dtype=np.int64)))


def test_a_solvers_own_vertex_read_back_is_optimal_from_the_start():
    """The statuses read off HiGHS's optimal vertex, handed back, are an optimal basis: the warm
    solve returns the same point (no pivot has a reason to move)."""
    program = lp3_program(synchpack(1, machines=8, n_jobs=40, tasks_per_job=(1, 5), alpha=None, local_machines=1))
    first = solve_program(program, "highs:simplex")
    again = solve_program(program, "highs:simplex", basis=LP3Basis.of(program, first.x).statuses(program))
    assert again.result.objective == pytest.approx(first.result.objective, rel=1e-12)
    assert np.allclose(again.x, first.x, atol=1e-9)


def test_lp3_basis_round_trip_renumber_and_flipped_pairs():
    program = lp3_program(synchpack(2, machines=4, n_jobs=12, tasks_per_job=(1, 3), alpha=None, local_machines=1))
    x = solve_program(program).x
    basis = LP3Basis.of(program, x)
    col, row = basis.statuses(program)
    want_col, want_row = vertex_statuses(program, x)
    assert np.array_equal(col, want_col) and np.array_equal(row, want_row)
    # Reverse the job numbers: every pair flips, δ(b, a) = 1 - δ(a, b), so the bounds swap.
    n = len(basis.job)
    rev = basis.renumber(np.arange(n)[::-1].copy())
    for f, s, status in zip(basis.pair_first, basis.pair_second, basis.pair_status):
        k = np.flatnonzero((rev.pair_first == n - 1 - s) & (rev.pair_second == n - 1 - f))
        assert len(k) == 1
        assert rev.pair_status[k[0]] == {AT_LOWER: AT_UPPER, AT_UPPER: AT_LOWER}.get(int(status), int(status))
    # Drop job 0 and shift the rest down: its pairs and rows go, the others keep their statuses.
    shifted = basis.renumber(np.r_[-1, np.arange(n - 1)])
    assert sorted(shifted.job.tolist()) == list(range(n - 1))
    assert len(shifted.pair_first) == int(np.sum((basis.pair_first > 0) & (basis.pair_second > 0)))
    assert len(shifted.row_job) == int(np.sum(basis.row_job > 0))
    assert np.array_equal(shifted.row_status, basis.row_status[basis.row_job > 0])


def _next_sub_instance(inst: PackingInstance, rng: np.random.Generator) -> tuple[PackingInstance, np.ndarray]:
    """A re-plan's next sub-instance in miniature: some jobs gone, the rest with less work left
    (processing times scaled down), one new job; returns it and each old job's new number."""
    keep = rng.random(inst.n_jobs) > 0.2
    keep[0] = True
    jobs, old_to_new = [], np.full(inst.n_jobs, -1)
    for j in np.flatnonzero(keep):
        old_to_new[j] = len(jobs)
        tasks = []
        for t in range(inst.job_offset[j], inst.job_offset[j + 1]):
            share = float(rng.uniform(0.3, 1.0))
            lo, hi = inst.place_offset[t], inst.place_offset[t + 1]
            tasks.append(PackingTask(float(inst.demand[t]), inst.place_machine[lo:hi].tolist(),
                                     (inst.place_time[lo:hi] * share).tolist()))
        jobs.append(PackingJob(tasks=tuple(tasks), weight=float(inst.weights[j])))
    m = int(rng.integers(inst.n_machines))
    jobs.append(PackingJob(tasks=(PackingTask(0.5 * float(inst.capacities[m]), [m], float(rng.uniform(1, 5))),),
                           weight=2.0))
    return PackingInstance(capacities=inst.capacities, jobs=tuple(jobs)), old_to_new


@SETTINGS
@given(seed=st.integers(0, 10_000))
def test_a_carried_basis_reaches_the_cold_optimum_of_the_next_sub_instance(seed):
    rng = np.random.default_rng(seed)
    first = synchpack(seed, machines=int(rng.integers(2, 8)), n_jobs=int(rng.integers(3, 40)),
                      tasks_per_job=(1, 6), alpha=None, local_machines=1)
    nxt, old_to_new = _next_sub_instance(first, rng)
    p1, p2 = lp3_program(first), lp3_program(nxt)
    carried = LP3Basis.of(p1, solve_program(p1).x).renumber(old_to_new)
    solved = solve_program(p2, "highs:simplex")
    cold = solved.result
    warm = solve_program(p2, "highs:simplex", basis=carried.statuses(p2)).result
    assert cold.is_optimal and warm.is_optimal
    assert warm.objective == pytest.approx(cold.objective, rel=1e-9, abs=1e-9)
    # synchpack3 itself, from the carried basis: same LP3 optimum (on the instance's clock; the
    # solver's objective is in LP3's own units), a verified schedule (run verifies)
    optimum = lp3_solution(solved).objective
    res = run("synchpack3", nxt, lp_basis=carried)
    assert res.info["lp_warm_start"] and res.info["lp_objective"] == pytest.approx(optimum, rel=1e-9, abs=1e-9)
    assert res.lower_bound == pytest.approx(optimum, rel=1e-9, abs=1e-9)


def test_positions():
    assert positions(np.array([7, 3, 9]), np.array([9, 4, 7, 3])).tolist() == [2, -1, 0, 1]
    assert positions(np.array([], dtype=np.int64), np.array([1, 2])).tolist() == [-1, -1]


def online_instance(seed=0, n_jobs=60):
    return synchpack(seed, machines=10, n_jobs=n_jobs, tasks_per_job=(1, 10), alpha=None, local_machines=1,
                     online=True)


def test_the_simulator_carries_the_basis_and_can_be_told_not_to():
    inst = online_instance()
    warm = run("online:synchpack3", inst, params={"bound": False})
    cold = run("online:synchpack3", inst, params={"bound": False, "reuse_basis": False})
    assert cold.info["lp_warm_starts"] == 0
    # every re-plan but the first starts from the one before it
    assert warm.info["lp_warm_starts"] == warm.info["replans"] - 1 > 10
    assert warm.params["reuse_basis"] is True and cold.params["reuse_basis"] is False
    # algorithms without an LP basis: nothing is passed
    assert run("online:fifo", inst, params={"bound": False}).info["lp_warm_starts"] == 0


def test_the_simulators_basis_is_not_a_users_parameter():
    inst = online_instance(n_jobs=5)
    with pytest.raises(AlgorithmError, match="lp_basis"):
        run("online:synchpack3", inst, params={"lp_basis": None})
    with pytest.raises(ValueError, match="reuse_basis must be True or False, got 'yes'"):
        run("online:synchpack3", inst, params={"reuse_basis": "yes"})
