"""The fluid cuts (2') as segments (:class:`schedrelax.models.queyranne.FluidSegments`): the extended
formulation's projection is the set of fluid cuts at its times (same LP optimum as one u_j row per
job and cut, whatever order the times come in), and the loop that writes them as edits reaches the
pool loop's optimum with no set of (2) violated."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from schedrelax._matrix import BASIC
from schedrelax.instances.generate import spc as spc_setting
from schedrelax.models.queyranne import (
    CutRows,
    EditBuilder,
    FluidSegments,
    QueyranneCuts,
    ScheduleLPData,
    lp_schedule_program,
    program_with,
    queyranne_separation,
)
from schedrelax.rounding.spc import solve_lp_schedule
from schedrelax.solvers import solve_program
from schedrelax.solvers.highs_backend import HighsEditableLP
from tests.models.test_queyranne import lp_checks
from tests.strategies import related_instances


def _times(data, rng, k):
    """k cut times spread over where the d_j lie (some below every d_j: no cut; one repeated)."""
    d = data.lower - data.p / (2 * data.mu_j)
    t = rng.uniform(0.5 * d.min(), 1.5 * d.max() + data.p.sum() / data.mu, k)
    return np.r_[t, t[:1]]


def _segments_optimum(data, times):
    program = lp_schedule_program(data)
    lp = HighsEditableLP(program, "highs", time_limit=None, mip_gap=None, threads=None, options={})
    assert lp.solve().is_optimal
    seg = FluidSegments(data)
    for t in times:  # one edit per time: splits and extensions of what earlier edits added
        e = EditBuilder(lp.x, *lp.basis())
        seg.add_cut(float(t), e)
        lp.apply(e.finish(1))
        result = lp.solve()
        assert result.is_optimal
    return result.objective, lp.x[:data.n]


def _u_rows_optimum(data, times):
    cuts = QueyranneCuts(data)
    half = data.p / (2 * data.mu_j)
    d0 = data.lower - half
    t_ok = [float(t) for t in np.unique(times) if t > d0.min()]
    batch = CutRows.stack([cuts._fluid_rows(t, d0, half) for t in t_ok], data.n)
    result = solve_program(program_with(lp_schedule_program(data), batch), "highs").result
    assert result.is_optimal
    return result.objective


@pytest.mark.parametrize("seed", range(6))
def test_segments_give_the_fluid_cuts_optimum(seed):
    inst = spc_setting(seed, n_jobs=15, tasks_per_job=(1, 6), machines=4, online=seed % 2 == 1, load=1.5)
    data = ScheduleLPData.of(inst)
    times = _times(data, np.random.default_rng(seed), 12)
    seg, C = _segments_optimum(data, times)
    assert seg == pytest.approx(_u_rows_optimum(data, times), rel=1e-9)
    # and C meets every fluid cut it was given: Σ p_j (t − d_j)^+ <= μ t²/2
    d = C - data.p / (2 * data.mu_j)
    for t in times:
        assert data.p @ np.maximum(t - d, 0.0) <= data.mu * t * t / 2 * (1 + 1e-9) + 1e-9


def test_times_in_one_edit_and_in_many_agree():
    inst = spc_setting(3, n_jobs=20, tasks_per_job=(1, 6), machines=4, load=2.0)
    data = ScheduleLPData.of(inst)
    times = _times(data, np.random.default_rng(3), 10)
    many, _ = _segments_optimum(data, times)
    program = lp_schedule_program(data)
    lp = HighsEditableLP(program, "highs", time_limit=None, mip_gap=None, threads=None, options={})
    lp.solve()
    e = EditBuilder(lp.x, *lp.basis())
    seg = FluidSegments(data)
    added = [seg.add_cut(float(t), e) for t in times]
    assert not added[-1]  # the repeated time adds nothing
    lp.apply(e.finish(sum(added)))
    assert lp.solve().objective == pytest.approx(many, rel=1e-9)
    # the carried basis has one basic column or row per row
    assert np.count_nonzero(e.row_status == BASIC) + np.count_nonzero(e.col_status == BASIC) == len(e.row_status)


@settings(max_examples=25, deadline=None)
@given(related_instances(max_machines=3, max_jobs=7, max_tasks=3, releases=True))
def test_segments_loop_violates_no_set_of_2(inst):
    lp = solve_lp_schedule(inst, use_smith=False, loop="segments")
    assert lp.converged
    lp_checks(inst, lp.solution.C)
    pool = solve_lp_schedule(inst, use_smith=False, loop="pool")
    assert lp.solution.objective == pytest.approx(pool.solution.objective, rel=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_segments_loop_reaches_the_pool_optimum_with_fluid_cuts(seed):
    inst = spc_setting(seed, n_jobs=60, tasks_per_job=(1, 10), machines=8, online=True, load=2.0)
    seg = solve_lp_schedule(inst, loop="segments")
    pool = solve_lp_schedule(inst, loop="pool")
    most = solve_lp_schedule(inst, cuts="most")
    assert seg.converged and pool.converged and most.converged
    assert seg.fluid_cuts > 0
    assert seg.solution.objective == pytest.approx(pool.solution.objective, rel=1e-6)
    assert seg.solution.objective == pytest.approx(most.solution.objective, rel=1e-6)
    d = ScheduleLPData.of(inst)
    assert queyranne_separation(seg.solution.C, d.p, d.mu_j, d.mu).relative.max() <= 1e-6


def test_the_default_loop_by_size(monkeypatch):
    import schedrelax.rounding.spc as spc

    inst = spc_setting(0, n_jobs=30, tasks_per_job=(1, 6), machines=4, online=True, load=2.0)
    calls = []
    real = spc.cutting_planes_edits
    monkeypatch.setattr(spc, "cutting_planes_edits", lambda *a, **k: calls.append(1) or real(*a, **k))
    spc.solve_lp_schedule(inst, use_smith=False)
    assert not calls
    monkeypatch.setattr(spc, "SEGMENTS_FROM", 30)
    spc.solve_lp_schedule(inst, use_smith=False)
    assert calls
    with pytest.raises(ValueError, match="loop must be"):
        spc.solve_lp_schedule(inst, use_smith=False, loop="segment")


def test_segments_loop_on_the_deep_dag_reaches_the_pool_optimum():
    """The shape where chain cuts once stalled on round-off (issue #17 item 5): 50 DAG jobs,
    197 stages, 31,236 tasks on 20 machines."""
    from schedrelax.instances.generate import generate

    inst = generate("related", "dag-jobs", 0, scale="paper")
    seg = solve_lp_schedule(inst, loop="segments", max_rounds=300)
    pool = solve_lp_schedule(inst, loop="pool", max_rounds=300)
    assert seg.converged and pool.converged and seg.rounds < 50
    d = ScheduleLPData.of(inst)
    assert queyranne_separation(seg.solution.C, d.p, d.mu_j, d.mu).relative.max() <= 1e-6
    assert seg.solution.objective == pytest.approx(pool.solution.objective, rel=1e-7)
