"""The fluid cuts (2') as segments (:class:`schedrelax.models.queyranne.FluidSegments`): the extended
formulation's projection is the set of fluid cuts at its times (same LP optimum as one u_j row per
job and cut, whatever order the times come in), and the loop that writes them as edits reaches the
pool loop's optimum with no set of (2) violated."""

import numpy as np
import pytest
from hypothesis import given, settings

from schedrelax._matrix import BASIC
from schedrelax.instances.generate import spc as spc_setting
from schedrelax.models.queyranne import (
    CutRows,
    EditBuilder,
    FluidSegments,
    QueyranneCuts,
    ScheduleLPData,
    _Chain,
    _link_rows,
    lp_schedule_program,
    program_with,
    queyranne_separation,
)
from schedrelax.rounding.spc import solve_lp_schedule
from schedrelax.solvers import solve_program
from schedrelax.solvers.highs_backend import HighsEditableLP
from schedrelax.solvers.result import SolveStatus
from tests.models.test_queyranne import lp_checks
from tests.strategies import related_instances


def _times(data, rng, k):
    """k cut times spread over where the d_j lie (some below every d_j: no cut; one repeated)."""
    d = data.lower - data.p / (2 * data.mu_j)
    t = rng.uniform(0.5 * d.min(), 1.5 * d.max() + data.p.sum() / data.mu, k)
    return np.r_[t, t[:1]]


def _segments_optimum(data, times, price=True, lift=False):
    """The LP with the fluid cuts at *times* as segments, one edit per time (splits and extensions
    of what earlier edits added); with *price*, columns left out are priced in until none is.
    With *lift*, :meth:`FluidSegments.lift` before each cut (its columns deleted as the loop
    deletes them, its right-hand sides written after the cut, as the loop writes them), and each
    LP held checked to be a restriction of the formulation (never below the fluid cuts' optimum).
    Returns the optimum, the C part of the point and the segments."""
    from schedrelax.models.queyranne import _renumbering

    program = lp_schedule_program(data)
    lp = HighsEditableLP(program, "highs", time_limit=None, mip_gap=None, threads=None, options={})
    assert lp.solve().is_optimal
    seg = FluidSegments(data, price=price)
    for i, t in enumerate(times):
        if lift:
            x, (cs, rs) = lp.x, lp.basis()
            drop = seg.lift(x, cs)
            col_new = _renumbering(len(cs), drop)
            seg.renumber(col_new, np.arange(len(rs)))
            e = EditBuilder(x[col_new >= 0], cs[col_new >= 0], rs, dropped=(drop, np.empty(0, np.int64)))
        else:
            e = EditBuilder(lp.x, *lp.basis())
        seg.add_cut(float(t), e)
        seg.write_rhs(e)
        lp.apply(e.finish(1))
        result = lp.solve()
        if result.status is SolveStatus.INFEASIBLE:  # a restriction: widen it (the loop's repair)
            e = EditBuilder(np.zeros(len(lp.basis()[0])), *lp.basis())
            assert seg.add_all(e) > 0
            lp.apply(e.finish(0))
            result = lp.solve()
        assert result.is_optimal
        if lift and len(seg.b) > 1:
            assert result.objective >= _u_rows_optimum(data, times[:i + 1]) * (1 - 1e-9)
    while True:
        e = EditBuilder(lp.x, *lp.basis())
        if not seg.price(e, lp.row_dual):
            break
        lp.apply(e.finish(0))
        result = lp.solve()
        assert result.is_optimal
    return result.objective, lp.x[:data.n], seg


def _u_rows_optimum(data, times):
    cuts = QueyranneCuts(data)
    half = data.p / (2 * data.mu_j)
    d0 = data.lower - half
    t_ok = [float(t) for t in np.unique(times) if t > d0.min()]
    batch = CutRows.stack([cuts._fluid_rows(t, d0, half) for t in t_ok], data.n)
    result = solve_program(program_with(lp_schedule_program(data), batch), "highs").result
    assert result.is_optimal
    return result.objective


@pytest.mark.parametrize("price", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_segments_give_the_fluid_cuts_optimum(seed, price):
    inst = spc_setting(seed, n_jobs=15, tasks_per_job=(1, 6), machines=4, online=seed % 2 == 1, load=1.5)
    data = ScheduleLPData.of(inst)
    times = _times(data, np.random.default_rng(seed), 12)
    value, C, _ = _segments_optimum(data, times, price)
    assert value == pytest.approx(_u_rows_optimum(data, times), rel=1e-9)
    # and C meets every fluid cut it was given: Σ p_j (t − d_j)^+ <= μ t²/2
    d = C - data.p / (2 * data.mu_j)
    for t in times:
        assert data.p @ np.maximum(t - d, 0.0) <= data.mu * t * t / 2 * (1 + 1e-9) + 1e-9


def test_times_in_one_edit_and_in_many_agree():
    inst = spc_setting(3, n_jobs=20, tasks_per_job=(1, 6), machines=4, load=2.0)
    data = ScheduleLPData.of(inst)
    times = _times(data, np.random.default_rng(3), 10)
    many, _, _ = _segments_optimum(data, times)
    program = lp_schedule_program(data)
    lp = HighsEditableLP(program, "highs", time_limit=None, mip_gap=None, threads=None, options={})
    lp.solve()
    e = EditBuilder(lp.x, *lp.basis())
    seg = FluidSegments(data, price=False)
    added = [seg.add_cut(float(t), e) for t in times]
    assert not added[-1]  # the repeated time adds nothing
    lp.apply(e.finish(sum(added)))
    assert lp.solve().objective == pytest.approx(many, rel=1e-9)
    # the carried basis has one basic column or row per row
    assert np.count_nonzero(e.row_status == BASIC) + np.count_nonzero(e.col_status == BASIC) == len(e.row_status)


@pytest.mark.parametrize("seed", range(8))
def test_lifted_anchors_give_the_fluid_cuts_optimum(seed, monkeypatch):
    """Anchors moved up (complement columns r_jl below them, right-hand sides changed) are a change
    of variables: the same optimum as one u_j row per job and cut, with cuts in any order (splits
    below anchors) and the last time no repeat (the right-hand sides of its split are written)."""
    monkeypatch.setattr(FluidSegments, "LIFT_AFTER", 1)  # lift as soon as possible: the most lifts
    inst = spc_setting(seed, n_jobs=15, tasks_per_job=(1, 6), machines=4, online=seed % 2 == 1, load=1.5)
    data = ScheduleLPData.of(inst)
    times = _times(data, np.random.default_rng(seed), 12)[:-1]
    lifted = 0
    for order in (times, np.sort(times)):
        value, _, seg = _segments_optimum(data, order, lift=True)
        lifted += seg.lifted
        assert value == pytest.approx(_u_rows_optimum(data, order), rel=1e-9)
    assert lifted > 0


@pytest.mark.parametrize("seed", range(3))
def test_without_release_times_the_lifted_loop_reaches_the_other_loops_optimum(seed, monkeypatch):
    """DAG jobs without release times (where anchors are lifted): the segments loop with and
    without lifting and the cut pool (u_j rows, no segments) agree, and no set of (2) is violated
    by more than the tolerance (checked for every prefix by the oracle, and on the final point by
    :func:`~schedrelax.models.queyranne.lp_upper_bound`'s bracket)."""
    inst = spc_setting(seed, n_jobs=120, tasks_per_job=(1, 10), machines=8, online=False, load=2.0)
    assert not np.any(inst.release > 0) and len(inst.edges)
    seen = []
    init = QueyranneCuts.__init__

    def spy(self, *a, **k):
        init(self, *a, **k)
        seen.append(self)

    monkeypatch.setattr(QueyranneCuts, "__init__", spy)
    lifted = solve_lp_schedule(inst, use_smith=False, loop="segments")
    assert lifted.converged and seen[-1]._segments.lifted > 0
    monkeypatch.setattr(FluidSegments, "LIFT_AFTER", 10 ** 9)
    plain = solve_lp_schedule(inst, use_smith=False, loop="segments")
    assert plain.converged and seen[-1]._segments.lifted == 0
    pool = solve_lp_schedule(inst, use_smith=False, loop="pool")
    for other in (plain, pool):
        assert lifted.solution.objective == pytest.approx(other.solution.objective, rel=1e-6)
    assert lifted.solution.objective <= lifted.upper_bound <= lifted.solution.objective * (1 + 1e-5)
    data = ScheduleLPData.of(inst)
    sep = queyranne_separation(lifted.solution.C, data.p, data.mu_j, data.mu)
    assert sep.relative.max() <= 1e-6


def test_a_warm_solve_without_a_verdict_is_run_again_cold(monkeypatch):
    """HiGHS's "Unknown" (SolveStatus.ERROR) after a warm start: the loop solves once more without
    the basis and goes on to the same optimum."""
    inst = spc_setting(2, n_jobs=60, tasks_per_job=(1, 8), machines=6, online=False, load=2.0)
    reference = solve_lp_schedule(inst, use_smith=False, loop="segments")
    solve = HighsEditableLP.solve
    calls = []

    def flaky(self):
        result = solve(self)
        calls.append(result.status)
        if len(calls) == 3:  # the third solve "fails" as HiGHS did
            import dataclasses
            return dataclasses.replace(result, status=SolveStatus.ERROR)
        return result

    cold = HighsEditableLP.cold_start
    colds = []

    def counted(self):
        colds.append(len(calls))
        cold(self)

    monkeypatch.setattr(HighsEditableLP, "solve", flaky)
    monkeypatch.setattr(HighsEditableLP, "cold_start", counted)
    again = solve_lp_schedule(inst, use_smith=False, loop="segments")
    assert again.converged and len(calls) > 4
    assert colds == [3]  # once, right after the failed third solve
    assert again.solution.objective == pytest.approx(reference.solution.objective, rel=1e-7)


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


def test_without_pricing_a_restriction_can_be_above_the_optimum():
    """Why pricing is needed: columns left out by the creation rule fix s_jl = 0, which can only
    raise the LP; priced back in, the optimum is the full formulation's."""
    worst = 0.0
    for seed in range(6):
        inst = spc_setting(seed, n_jobs=15, tasks_per_job=(1, 6), machines=4, online=seed % 2 == 1, load=1.5)
        data = ScheduleLPData.of(inst)
        times = _times(data, np.random.default_rng(seed), 12)
        full, _, _ = _segments_optimum(data, times, price=False)
        program = lp_schedule_program(data)
        lp = HighsEditableLP(program, "highs", time_limit=None, mip_gap=None, threads=None, options={})
        lp.solve()
        seg = FluidSegments(data)
        for t in times:
            e = EditBuilder(lp.x, *lp.basis())
            seg.add_cut(float(t), e)
            lp.apply(e.finish(1))
            result = lp.solve()
            if not result.is_optimal:  # infeasible: as far above as a restriction can be
                assert result.status is SolveStatus.INFEASIBLE
                worst = np.inf
                break
        else:
            assert result.objective >= full * (1 - 1e-9)
            worst = max(worst, (result.objective - full) / full)
    assert worst > 1e-6  # some restriction was strictly above: the pricing test above is not vacuous


# --------------------------------------------------------------- the edit loop on a toy LP

def _toy():
    """min x s.t. x >= 0 (one column, no rows)."""
    import scipy.sparse as sp

    from schedrelax._matrix import MatrixProgram

    return MatrixProgram("toy", np.array([1.0]), 0.0, sp.csr_array((0, 1)), np.empty(0), np.empty(0),
                         np.zeros(1), np.full(1, np.inf), {"x": (0, 1)}, {})


def _edit(n_cols, n_rows, col_status, row_status, *, cols=(), rows=(), entries=((), (), ())):
    from schedrelax._matrix import LPEdit

    cols, rows = list(cols), list(rows)
    return LPEdit(n_cols, n_rows, np.empty(0, np.int64), np.empty(0), np.empty(0),
                  np.array([c[0] for c in cols]), np.array([c[1] for c in cols]),
                  np.array([r[0] for r in rows]), np.array([r[1] for r in rows]),
                  tuple(np.array(a) for a in entries), np.r_[col_status, np.zeros(len(cols), np.int64)],
                  np.r_[row_status, np.full(len(rows), BASIC)], len(rows))


def test_the_edit_loop_repairs_an_infeasible_restriction_and_converges():
    from schedrelax.solvers.cutting_planes import cutting_planes_edits

    calls = {"separation": 0, "repair": 0}

    def separation(x, cs, rs, dual):
        calls["separation"] += 1
        if len(rs) == 0:  # the cut x <= -1 with its slack column left out: infeasible
            return _edit(len(cs), 0, cs, rs, rows=[(-np.inf, -1.0)], entries=([0], [0], [1.0]))
        return None

    def repair(cs, rs):
        calls["repair"] += 1
        if len(cs) > 1:
            return None
        # the left-out column: x - y <= -1, y in [0, 3]
        return _edit(len(cs), len(rs), cs, rs, cols=[(0.0, 3.0)], entries=([0], [1], [-1.0]))

    out = cutting_planes_edits(_toy(), separation, max_rounds=10, repair=repair)
    assert out.converged and calls == {"separation": 2, "repair": 1}
    assert out.result.objective == pytest.approx(0.0) and out.rows == 1
    no_repair = cutting_planes_edits(_toy(), separation, max_rounds=10)
    assert not no_repair.converged and no_repair.result.status is SolveStatus.INFEASIBLE


def test_an_edit_for_another_lp_is_refused():
    lp = HighsEditableLP(_toy(), "highs", time_limit=None, mip_gap=None, threads=None, options={})
    lp.solve()
    with pytest.raises(ValueError, match="edit is for an LP of 2 columns"):
        lp.apply(_edit(2, 0, np.zeros(2, np.int64), np.empty(0, np.int64)))


@pytest.mark.parametrize("online", [True, False])
def test_the_pricing_formula_is_the_reduced_cost_highs_reports(monkeypatch, online):
    """price() computes a left-out column's reduced cost as y_j + (p_j/P) y_l (an s_jl) or minus
    that (an r_jl, below the job's anchor); on the columns the LP holds, the same formula must give
    HiGHS's own column duals. Without release times anchors are lifted, so both kinds are there."""
    import schedrelax.rounding.spc as spc
    from schedrelax.solvers import highs_backend

    seen = {}
    init = highs_backend.HighsEditableLP.__init__
    cuts_init = QueyranneCuts.__init__

    def spy(self, *a, **k):
        init(self, *a, **k)
        seen["lp"] = self

    def spy_cuts(self, *a, **k):
        cuts_init(self, *a, **k)
        seen["cuts"] = self

    monkeypatch.setattr(highs_backend.HighsEditableLP, "__init__", spy)
    monkeypatch.setattr(QueyranneCuts, "__init__", spy_cuts)
    monkeypatch.setattr(FluidSegments, "LIFT_AFTER", 1)  # lifted early, some come back as r_jl
    inst = spc_setting(1, n_jobs=80, tasks_per_job=(1, 10), machines=8, online=online, load=2.0)
    lp = spc.solve_lp_schedule(inst, loop="segments")
    assert lp.converged and lp.fluid_cuts > 0
    sol = seen["lp"]._highs.getSolution()
    y, reduced = np.asarray(sol.row_dual), np.asarray(sol.col_dual)
    seg = seen["cuts"]._segments
    checked = complements = 0
    for l, part in enumerate(seg.segs):
        sign = np.where(seg.anchor[part.jobs] >= seg.b[l + 1], -1.0, 1.0)
        formula = sign * (y[seg.job_row[part.jobs]] + seg.data.p[part.jobs] / seg.P * y[part.row])
        np.testing.assert_allclose(formula, reduced[part.cols], rtol=1e-9,
                                   atol=1e-9 * max(1.0, np.abs(reduced).max()))
        checked += len(part.cols)
        complements += int(np.count_nonzero(sign < 0))
    assert checked > 100
    if not online:
        assert seg.lifted > 0 and complements > 0


# --------------------------------------------------------------- shortening the prefix chains

def _chain_loop(inst, keep, shorten_only_at=()):
    """The edit loop by hand with QueyranneCuts(keep=keep); at the rounds in *shorten_only_at*
    an edit that only shortens the chains is applied and solved first. Yields after each solve."""
    data = ScheduleLPData.of(inst)
    cuts = QueyranneCuts(data, keep=keep)
    lp = HighsEditableLP(cuts.edit_program(lp_schedule_program(data)), "highs", time_limit=None,
                         mip_gap=None, threads=None, options={})
    for rounds in range(200):
        assert lp.solve().is_optimal
        yield cuts, lp, None
        if rounds in shorten_only_at:
            cs, rs = lp.basis()
            for chain in cuts._chains:  # as edit() counts them
                chain.idle = np.where(cs[chain.cols] == BASIC, chain.idle + 1, 0)
            x, cs2, rs2, dual, dropped, shorter = cuts._shorten(lp.x, cs, rs, lp.row_dual)
            if dropped is not None:
                e = EditBuilder(x, cs2, rs2, dropped=dropped)
                for jobs, ends, low, z_status, z_value, link_status, idle, keep_ in shorter:
                    c, r = e.add_cut_rows(_link_rows(jobs, ends, low, cuts.scale * data.p, data.n), data.n,
                                          col_status=z_status, row_status=link_status, value=z_value)
                    cuts._chains.append(_Chain(jobs, ends, low, c, r, idle, keep_))
                before = lp._highs.getInfo().objective_function_value
                lp.apply(e.finish(0))
                result = lp.solve()
                yield cuts, lp, (before, result, e, dropped)
        edit = cuts.edit(lp.x, *lp.basis(), lp.row_dual)
        if edit is None:
            return
        lp.apply(edit)
    raise AssertionError("the loop did not converge in 200 rounds")


@pytest.mark.parametrize("seed", range(3))
def test_shortening_keeps_the_point_its_basis_and_the_prefix_sums(seed):
    """Deleting the idle prefixes (basic z) and summing each run's rows into one keeps the solved
    point optimal with the carried basis: HiGHS re-solves it in no iteration at the same objective.
    Each chain left computes its prefix sums: z_i = Σ_{jobs up to ends[i]} p_j C_j / Σ p, recomputed
    here from the chain's jobs and ends, and z_i >= its bound."""
    inst = spc_setting(seed, n_jobs=60, tasks_per_job=(1, 10), machines=8, online=True, load=2.0)
    data = ScheduleLPData.of(inst)
    shortened = 0
    for cuts, lp, check in _chain_loop(inst, keep=3, shorten_only_at=range(1, 200)):
        if check is not None:
            before, result, e, dropped = check
            shortened += len(dropped[1])
            assert result.is_optimal
            assert lp._highs.getInfo().simplex_iteration_count == 0
            assert result.objective == pytest.approx(before, rel=1e-12)
            assert np.count_nonzero(e.row_status == BASIC) + np.count_nonzero(e.col_status == BASIC) == len(e.row_status)
        C = lp.x[:data.n]
        for chain in cuts._chains:
            prefix = np.cumsum(data.p[chain.jobs] * C[chain.jobs])[chain.ends] / data.p.sum()
            np.testing.assert_allclose(lp.x[chain.cols], prefix, rtol=1e-7, atol=1e-9 * max(1.0, prefix.max()))
            assert np.all(lp.x[chain.cols] >= chain.low - 1e-7 * np.maximum(1.0, chain.low))
    assert shortened > 0  # the test saw deletions


@pytest.mark.parametrize("keep", [1, 2, None])
@pytest.mark.parametrize("seed", range(4))
def test_shortened_loop_reaches_the_one_cut_optimum(seed, keep):
    """With prefixes deleted after 1 or 2 idle solves (or never), the loop ends at the optimum of
    the one-cut-per-round Pyomo loop (Definition 1 as stated), and no prefix is violated."""
    inst = spc_setting(seed, n_jobs=60, tasks_per_job=(1, 10), machines=8, online=True, load=2.0)
    seg = solve_lp_schedule(inst, loop="segments", keep=keep)
    most = solve_lp_schedule(inst, cuts="most", loop="pyomo")
    assert seg.converged and most.converged
    assert seg.solution.objective == pytest.approx(most.solution.objective, rel=1e-6)
    d = ScheduleLPData.of(inst)
    assert queyranne_separation(seg.solution.C, d.p, d.mu_j, d.mu).relative.max() <= 1e-6


@settings(max_examples=25, deadline=None)
@given(related_instances(max_machines=3, max_jobs=7, max_tasks=3, releases=True))
def test_shortened_loop_violates_no_set_of_2(inst):
    lp = solve_lp_schedule(inst, use_smith=False, loop="segments", keep=1)
    assert lp.converged
    lp_checks(inst, lp.solution.C)


def test_chain_deletion_counts_and_the_keep_check():
    inst = spc_setting(2, n_jobs=60, tasks_per_job=(1, 10), machines=8, online=True, load=2.0)
    data = ScheduleLPData.of(inst)
    cuts = None
    for cuts, _, _ in _chain_loop(inst, keep=1):
        pass
    assert cuts.dropped_prefixes > 0
    never = None
    for never, _, _ in _chain_loop(inst, keep=None):
        pass
    assert never.dropped_prefixes == 0
    # without deletion every chain keeps all its prefixes: the seed chain has all n
    assert len(never._chains[0].ends) == data.n
    with pytest.raises(ValueError, match="keep must be"):
        QueyranneCuts(data, keep=0)


def test_an_edit_deletes_columns_and_rows_first():
    """min x0 + x1 with rows x0 >= 1, x1 >= 2, x0 + x1 >= 5; deleting the last row and then
    adding x0 - x1 >= 0 (written in the numbering after the deletion) gives x = (2, 2), 4."""
    import scipy.sparse as sp

    from schedrelax._matrix import AT_LOWER, LPEdit, MatrixProgram

    A = sp.csr_array(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
    program = MatrixProgram("toy2", np.ones(2), 0.0, A, np.array([1.0, 2.0, 5.0]), np.full(3, np.inf),
                            np.zeros(2), np.full(2, np.inf), {"x": (0, 2)}, {})
    lp = HighsEditableLP(program, "highs", time_limit=None, mip_gap=None, threads=None, options={})
    assert lp.solve().objective == pytest.approx(5.0)
    edit = LPEdit(2, 3, np.empty(0, np.int64), np.empty(0), np.empty(0), np.empty(0), np.empty(0),
                  np.array([0.0]), np.array([np.inf]), (np.array([2, 2]), np.array([0, 1]), np.array([1.0, -1.0])),
                  np.array([BASIC, BASIC]), np.array([AT_LOWER, AT_LOWER, BASIC]), 1,
                  drop_cols=np.empty(0, np.int64), drop_rows=np.array([2]))
    lp.apply(edit)
    result = lp.solve()
    assert result.objective == pytest.approx(4.0) and lp.x == pytest.approx([2.0, 2.0])
    assert lp.n_rows == 3
    for drop_rows in ([3], [0, 0]):
        bad = LPEdit(2, 3, np.empty(0, np.int64), np.empty(0), np.empty(0), np.empty(0), np.empty(0),
                     np.empty(0), np.empty(0), (np.empty(0), np.empty(0), np.empty(0)),
                     np.array([BASIC, BASIC]), np.array([AT_LOWER]), 0, drop_rows=np.array(drop_rows))
        with pytest.raises(ValueError, match="distinct rows"):
            lp.apply(bad)


@pytest.mark.parametrize("loop", ["segments", "pool"])
def test_each_loop_takes_its_own_cut_defaults_unless_told(monkeypatch, loop):
    import schedrelax.rounding.spc as spc

    seen = []
    init = QueyranneCuts.__init__
    edit_program = QueyranneCuts.edit_program

    def spy(self, *a, **k):
        init(self, *a, **k)
        seen.append(self)

    def spy_program(self, program, seed_chain=True):
        self.seeded = seed_chain
        return edit_program(self, program, seed_chain)

    monkeypatch.setattr(QueyranneCuts, "__init__", spy)
    monkeypatch.setattr(QueyranneCuts, "edit_program", spy_program)
    inst = spc_setting(2, n_jobs=40, tasks_per_job=(1, 8), machines=6, online=True, load=2.0)
    own = spc.SEGMENTS_CUTS if loop == "segments" else spc.OTHER_CUTS
    by_default = solve_lp_schedule(inst, loop=loop, tol=2e-6)
    cuts = seen[-1]
    assert cuts.fluid_cuts == own["fluid_cuts"]
    assert cuts.fluid_tol == (2e-6 if own["fluid_tol"] is None else own["fluid_tol"])
    told = solve_lp_schedule(inst, loop=loop, tol=2e-6, fluid_cuts=3, fluid_tol=1e-4, seed_chain=True)
    assert (seen[-1].fluid_cuts, seen[-1].fluid_tol) == (3, 1e-4)
    if loop == "segments":
        assert cuts.seeded is own["seed_chain"] and seen[-1].seeded is True
    assert by_default.converged and told.converged
    assert by_default.solution.objective == pytest.approx(told.solution.objective, rel=1e-6)
