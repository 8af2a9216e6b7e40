"""Tests of the array cutting-plane loop with a cut pool (`cutting_planes_rows`, `HighsRowPool`) on
LP-Schedule (paper 004 §III, issue #17): the same optimum as the Pyomo loop before issue #17 and as the
one-cut-per-round loop (an independent route: one dense cut a round, no chains, no fluid cuts), the
final point feasible for every set of (2) by brute force, and deletions that really happen."""

import numpy as np
import pytest

from schedrelax.instances.generate import spc as spc_setting
from schedrelax.models.queyranne import (
    QueyranneCuts,
    ScheduleLPData,
    lp_schedule_program,
    max_subset_violation,
    queyranne_separation,
    seed_chain_rows,
)
from schedrelax.rounding.spc import solve_lp_schedule
from schedrelax.solvers.cutting_planes import cutting_planes_rows
from schedrelax.solvers.highs_backend import HighsRowPool


def instances():
    # Release times (online) and precedence-free/DAG-free mixes; load 1.5 so that (2) binds.
    return [spc_setting(seed, n_jobs=n, tasks_per_job=(1, 6), machines=5, online=seed % 2 == 0, load=1.5)
            for seed, n in [(0, 12), (1, 15), (2, 20), (3, 30), (4, 40)]]


@pytest.mark.parametrize("inst", instances(), ids=lambda i: i.name or "spc")
def test_pool_loop_matches_the_pyomo_loop_and_the_one_cut_loop(inst):
    pool = solve_lp_schedule(inst, use_smith=False)
    old = solve_lp_schedule(inst, use_smith=False, loop="pyomo")
    most = solve_lp_schedule(inst, use_smith=False, cuts="most", seed_chain=False, loop="pyomo")
    assert pool.converged and old.converged and most.converged
    assert pool.solution.objective == pytest.approx(old.solution.objective, rel=1e-7)
    assert pool.solution.objective == pytest.approx(most.solution.objective, rel=1e-7)
    # The one-cut mode on the pool loop too (its rows are dense rows, deleted when idle).
    most_pool = solve_lp_schedule(inst, use_smith=False, cuts="most", seed_chain=False, keep=1)
    assert most_pool.converged
    assert most_pool.solution.objective == pytest.approx(most.solution.objective, rel=1e-7)


SMALL = [spc_setting(seed, n_jobs=8, tasks_per_job=(1, 6), machines=4, online=seed % 2 == 0, load=1.5)
         for seed in range(3)]


@pytest.mark.parametrize("inst", SMALL, ids=lambda i: i.name or "spc")
@pytest.mark.parametrize("keep", [1, None])
@pytest.mark.parametrize("warm", [True, False])
def test_final_point_satisfies_every_set_of_2_by_brute_force(inst, keep, warm):
    assert inst.n_jobs <= 20  # brute force over 2^n sets
    lp = solve_lp_schedule(inst, use_smith=False, keep=keep, warm=warm)
    assert lp.converged
    d = ScheduleLPData.of(inst)
    C = lp.solution.C
    assert np.all(C >= d.p / d.mu_j + d.release - 1e-7 * C.max())
    assert max_subset_violation(C, d.p, d.mu_j, d.mu) <= 1e-6


def run_pool(inst, keep):
    data = ScheduleLPData.of(inst)
    cuts = QueyranneCuts(data)
    loop = cutting_planes_rows(lp_schedule_program(data), cuts.cut_rows, [seed_chain_rows(data)],
                               max_rounds=500, keep=keep)
    return data, cuts, loop


def test_deleting_idle_cuts_keeps_the_optimum_and_the_oracles_verdict():
    inst = spc_setting(5, n_jobs=60, tasks_per_job=(1, 10), machines=8, online=True, load=2.0)
    data, _, pruned = run_pool(inst, keep=1)
    _, _, kept = run_pool(inst, keep=None)
    assert pruned.converged and kept.converged
    assert pruned.deleted_rows > 0 and kept.deleted_rows == 0
    assert pruned.rows < kept.rows + pruned.deleted_rows  # the pool's LP is smaller than all it saw
    w = data.weights
    assert w @ pruned.x == pytest.approx(w @ kept.x, rel=1e-7)
    # converged = the oracle finds no prefix of the final point violated beyond tol (Lemma 1: no set)
    sep = queyranne_separation(pruned.x, data.p, data.mu_j, data.mu)
    assert sep.relative.max() <= 1e-6


def test_the_loop_and_its_pool_check_their_arguments():
    inst = instances()[0]
    with pytest.raises(ValueError, match="loop"):
        solve_lp_schedule(inst, use_smith=False, loop="fast")
    data = ScheduleLPData.of(inst)
    with pytest.raises(ValueError, match="keep"):
        cutting_planes_rows(lp_schedule_program(data), QueyranneCuts(data).cut_rows, keep=0)
    with pytest.raises(ValueError, match="HiGHS"):
        cutting_planes_rows(lp_schedule_program(data), QueyranneCuts(data).cut_rows, solver="glpk")
    with pytest.raises(ValueError, match="max_rounds"):
        cutting_planes_rows(lp_schedule_program(data), QueyranneCuts(data).cut_rows, max_rounds=0)


def test_pool_lp_by_hand():
    # One machine (μ = μ_j = 1), p = (1, 2), w = (1, 1), edge 1 -> 0: (4) C0 >= C1 + 1, C1 >= 2, and
    # {0, 1}: C0 + 2 C1 >= 1/2 + 2 + 9/2 = 7 -> C = (3, 2), LP = 5 (the only order the DAG allows).
    from schedrelax.instances import RelatedInstance, RelatedJob

    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([1.0], 1.0), RelatedJob([2.0], 1.0)), edges=[(1, 0)])
    _, _, loop = run_pool(inst, keep=1)
    assert loop.converged and isinstance(loop.x, np.ndarray)
    assert loop.x == pytest.approx([3.0, 2.0])
    assert HighsRowPool.persistent


def test_last_optimal_is_the_last_round_solved_to_optimality():
    # min x, 1 <= x <= 10: round 1 is optimal at 1; the separation then adds x <= 1/2 (infeasible):
    # the loop ends unconverged, its last result is not optimal, and last_optimal keeps round 1.
    import scipy.sparse as sp

    from schedrelax._matrix import ProgramBuilder
    from schedrelax.models.queyranne import CutRows
    from schedrelax.solvers.result import SolveStatus

    m = ProgramBuilder("one variable")
    x0 = m.var("x", 1, 0.0, 10.0)
    m.rows("floor", sp.csr_array(([1.0], ([0], [x0])), shape=(1, 1)), 1.0, np.inf)
    m.objective(np.array([x0]), np.array([1.0]))
    program = m.finish()
    none = np.zeros(0, dtype=np.int64)
    cut = CutRows(A=sp.csr_array(([1.0], ([0], [0])), shape=(1, 1)), row_lower=np.array([-np.inf]),
                  row_upper=np.array([0.5]), col_lower=np.zeros(0), row_group=np.array([0]), col_group=none,
                  pair=np.array([-1]), basic_cols=none, tight_rows=none)
    seen = []

    def separation(x):
        seen.append(float(x[0]))
        return cut if len(seen) == 1 else None

    loop = cutting_planes_rows(program, separation, keep=None, warm=False, max_rounds=5)
    assert seen == [1.0]
    assert not loop.converged and loop.rounds == 2
    assert loop.result.status is not SolveStatus.OPTIMAL
    assert loop.last_optimal is not None and loop.last_optimal.objective == pytest.approx(1.0)
    # converged on its first round: the last result is the last optimal one
    done = cutting_planes_rows(program, lambda x: None, keep=None, max_rounds=5)
    assert done.converged and done.last_optimal is done.result
