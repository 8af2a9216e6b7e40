"""The related time-indexed LP bound (schedrelax/models/related_ti_lp.py): on data whose times are
whole slots its integer model is the problem itself (its MIP optimum equals CP-SAT's proven
optimum, an independent engine), its LP is below every proven optimum on wide-number instances,
both forms give one optimum, and a copy in another unit gives the same bound in that unit."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("ortools.sat.python.cp_model")

import highspy

from schedrelax.errors import AlgorithmError
from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.instances.generate import spc
from schedrelax.models.related_ti_lp import (
    CUTS_PER_PAIR,
    SlotPrecedenceSeparation,
    default_delta,
    related_ti_lp_program,
    slot_layout,
)
from schedrelax.rounding.cpsat import _related_ti_bound
from schedrelax.rounding.related_exact import related_mip
from schedrelax.rounding.spc import solve_lp_schedule
from schedrelax.schedules import evaluate
from schedrelax.solvers import solve_program
from schedrelax.solvers.cutting_planes import cutting_planes_rows
from tests.strategies import fuzz_related_instances, related_instances


def _solve(program, integer: bool = False) -> float:
    """The program's optimum by HiGHS directly (its MIP when *integer*: x binary, C continuous)."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)
    A = program.A.tocsc()
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = program.n_cols, program.n_rows
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = program.c, program.col_lower, program.col_upper
    lp.row_lower_, lp.row_upper_ = program.row_lower, program.row_upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = A.indptr, A.indices, A.data
    if integer:
        first, count = program.var_blocks["x"]
        kinds = [highspy.HighsVarType.kContinuous] * program.n_cols
        for k in range(first, first + count):
            kinds[k] = highspy.HighsVarType.kInteger
        lp.integrality_ = kinds
    if program.n_cols == 0:  # every job of weight 0 and none after a weighted one: nothing to bound
        return program.offset
    h.passModel(lp)
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return h.getInfo().objective_function_value + program.offset


def _optimum(inst: RelatedInstance) -> float | None:
    res = related_mip(inst, solver="cpsat", time_limit=20)
    return evaluate(inst, res.schedule).objective if res.info.get("optimal") else None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(related_instances(max_machines=3, max_jobs=4, max_tasks=2), st.booleans())
def test_slot_model_is_the_problem_when_times_are_whole_slots(inst, strong):
    # speeds in {1/2, 1, 2, 4} and whole sizes: every duration is a multiple of 1/4, so on the
    # grid of 1/4 nothing is rounded and the integer slot model's optimum is the optimum.
    opt = _optimum(inst)
    if opt is None:
        return
    layout = slot_layout(inst, Fraction(1, 4))
    program = related_ti_lp_program(layout, "pulse", strong_precedence=strong)
    mip = layout.grid.bound(_solve(program, integer=True))
    assert mip == pytest.approx(opt, rel=1e-7, abs=1e-7)
    lp = layout.grid.bound(_solve(program))
    assert lp <= opt * (1 + 1e-9) + 1e-9


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fuzz_related_instances(max_machines=3, max_jobs=4, max_tasks=2), st.integers(2, 5), st.booleans())
def test_bound_is_below_the_proven_optimum_on_wide_numbers(inst, k, strong):
    opt = _optimum(inst)
    if opt is None:
        return
    for ub in (None, opt):  # windows capped by the optimum itself still hold an optimal schedule
        layout = slot_layout(inst, default_delta(inst, k), ub)
        if layout.terms("pulse") > 100_000:  # speeds decades apart: a grid the engine would not build
            continue
        value = layout.grid.bound(_solve(related_ti_lp_program(layout, "pulse", strong_precedence=strong)))
        assert value <= opt * (1 + 1e-9) + 1e-12 * abs(layout.grid.origin) * layout.grid.weight_sum


@settings(max_examples=15, deadline=None)
@given(related_instances(max_machines=3, max_jobs=4, max_tasks=3, releases=True), st.integers(1, 3))
def test_pulse_and_step_forms_have_one_optimum(inst, k):
    layout = slot_layout(inst, default_delta(inst, k))
    pulse, step = (_solve(related_ti_lp_program(layout, form, strong_precedence=False)) for form in ("pulse", "step"))
    assert pulse == pytest.approx(step, rel=1e-7, abs=1e-7)


def test_a_copy_in_another_unit_has_the_same_slot_model_and_bound():
    inst = spc(3, n_jobs=4, tasks_per_job=(1, 4), machines=4)
    times = 2.0**-7  # a power of 2: the copy's numbers are exactly the original's times it
    jobs = tuple(RelatedJob(tasks=[p * times for p in j.tasks], weight=j.weight, release=j.release * times + 1000.0)
                 for j in inst.jobs)
    copy = RelatedInstance(speeds=inst.speeds, jobs=jobs, edges=inst.edges, ready=[r * times + 1000.0 for r in inst.ready])
    a, b = slot_layout(inst, default_delta(inst, 5)), slot_layout(copy, default_delta(copy, 5))
    assert b.grid.delta == a.grid.delta * Fraction(times) and b.grid.origin == pytest.approx(1000.0)
    for field in ("g_task", "g_machine", "g_D", "g_first", "g_last"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    va = a.grid.bound(_solve(related_ti_lp_program(a)))
    vb = b.grid.bound(_solve(related_ti_lp_program(b)))
    assert (vb - 1000.0 * b.grid.weight_sum) == pytest.approx(va * times, rel=1e-9)


def test_jobs_of_weight_zero_with_no_weighted_job_after_them_are_left_out():
    jobs = (RelatedJob(tasks=[2.0], weight=0.0), RelatedJob(tasks=[1.0], weight=1.0), RelatedJob(tasks=[3.0], weight=0.0),
            RelatedJob(tasks=[1.0], weight=0.0))
    inst = RelatedInstance(speeds=[1.0], jobs=jobs, edges=[[0, 1], [3, 2]])
    layout = slot_layout(inst, Fraction(1))
    assert layout.jobs.tolist() == [0, 1]  # job 0 precedes the weighted job 1; jobs 2, 3 lead to none
    # job 0 (2 slots) then job 1 (1 slot) on the one machine: C_1 = 3, the optimum
    assert layout.grid.bound(_solve(related_ti_lp_program(layout))) == pytest.approx(3.0)


def test_durations_and_windows_are_exact_floors_by_hand():
    # speed 3: a task of size 1 takes 1/3; on a grid of 1/4 that is floor(4/3) = 1 slot, and a
    # release of 1/2 is slot 2; size 3 takes 1 = 4 slots exactly.
    jobs = (RelatedJob(tasks=[1.0], weight=1.0, release=0.0), RelatedJob(tasks=[3.0], weight=1.0, release=0.5))
    inst = RelatedInstance(speeds=[3.0], jobs=jobs, edges=[])
    layout = slot_layout(inst, Fraction(1, 4), upper_bound=2.0)
    assert layout.g_D.tolist() == [1, 4]
    assert layout.g_first.tolist() == [0, 2]
    # the cap of job 1: w C_1 <= 2 - w_0 lo_0 = 2 - 1/3, so C_1 <= 5/3, slot floor(20/3) = 6, last start 6 - 4
    assert layout.g_last[1] == 2
    with pytest.raises(AlgorithmError, match="no start slot"):
        slot_layout(inst, Fraction(1, 4), upper_bound=1.0)  # below the optimum 1/3 + 3/2


def test_engine_bound_is_valid_and_above_lp_schedule_on_a_pinned_spc_instance():
    # spc n_jobs 6 seed 2: 18 tasks on 6 machines, LP-Schedule is fluid; whole tasks lift the bound
    inst = spc(2, n_jobs=6, tasks_per_job=(1, 4), machines=6)
    res = related_mip(inst, solver="cpsat", time_limit=5)
    ub = evaluate(inst, res.schedule).objective
    bound, kind = _related_ti_bound(inst, ub, time_limit=10)
    assert bound is not None and "time-indexed LP" in kind
    assert bound <= ub
    assert bound > solve_lp_schedule(inst, "highs").lower_bound
    if res.info.get("optimal"):
        assert bound <= ub * (1 + 1e-9)
    assert not math.isnan(bound)


def test_precedence_slot_by_slot_lifts_the_bound_on_map_reduce_chains():
    # spc n_jobs 8 seed 2 (the reach benchmark's instance): a map job of weight 0 before each
    # reduce job; with expectations alone the LP starts part of a reduce task before its map ends.
    inst = spc(2, n_jobs=8, tasks_per_job=(1, 4), machines=6)
    layout = slot_layout(inst, default_delta(inst, 4))
    weak, strong = (layout.grid.bound(_solve(related_ti_lp_program(layout, strong_precedence=sp_)))
                    for sp_ in (False, True))
    assert strong > weak * 1.005
    assert strong > solve_lp_schedule(inst, "highs").lower_bound


def _lazy(layout, per_pair: int = CUTS_PER_PAIR):
    program = related_ti_lp_program(layout, "pulse", strong_precedence=False)
    return cutting_planes_rows(program, SlotPrecedenceSeparation(program, per_pair=per_pair), keep=None, warm=False,
                               max_rounds=500)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(related_instances(max_machines=3, max_jobs=5, max_tasks=3, releases=True), st.integers(1, 4),
       st.sampled_from([1, CUTS_PER_PAIR]))
def test_precedence_rows_found_lazily_reach_the_full_programs_optimum(inst, k, per_pair):
    # the same rows two ways: all through cumulative variables, or written over the start columns
    # as a cutting-plane loop finds them violated; and every round's optimum is below the full one
    layout = slot_layout(inst, default_delta(inst, k))
    full = _solve(related_ti_lp_program(layout, "pulse", strong_precedence=True))
    weak = _solve(related_ti_lp_program(layout, "pulse", strong_precedence=False))
    loop = _lazy(layout, per_pair)
    assert loop.converged and loop.last_optimal is loop.result
    assert loop.result.objective == pytest.approx(full, rel=1e-7, abs=1e-7)
    assert weak <= loop.result.objective + 1e-7 * max(1.0, abs(full))
    if loop.cuts_added == 0:
        assert weak == pytest.approx(full, rel=1e-7, abs=1e-7)


def test_lazy_precedence_rows_on_map_reduce_chains_are_the_full_rows():
    # the pinned map-reduce instance where the rows lift the bound by > 0.5 %: the loop adds some
    # and ends at the full program's optimum; the separation's rows hold at the full program's point
    inst = spc(2, n_jobs=8, tasks_per_job=(1, 4), machines=6)
    layout = slot_layout(inst, default_delta(inst, 4))
    full = related_ti_lp_program(layout, "pulse", strong_precedence=True)
    loop = _lazy(layout)
    assert loop.converged and loop.cuts_added > 0 and loop.rounds > 1
    assert loop.result.objective == pytest.approx(_solve(full), rel=1e-7)
    sol = solve_program(full, "highs")
    weak = related_ti_lp_program(layout, "pulse", strong_precedence=False)
    x = np.zeros(weak.n_cols)
    first, count = full.var_blocks["x"]
    x[weak.var_blocks["x"][0]:][:count] = sol.x[first:first + count]
    assert SlotPrecedenceSeparation(weak, tol=1e-6)(x) is None
    # and a point that starts a reduce task at its map's start violates one
    sep = SlotPrecedenceSeparation(weak)
    assert sep.pairs
    t, u = sep.pairs[0]
    bad = np.zeros(weak.n_cols)
    ct, cu = sep.cols[t], sep.cols[u]
    ct0 = ct[np.argmin(sep.start[ct])]
    bad[sep.x0 + ct0] = 1.0
    bad[sep.x0 + cu[np.argmin(sep.start[cu])]] = 1.0
    if sep.start[cu].min() < sep.end[ct0]:
        cuts = sep(bad)
        assert cuts is not None and cuts.n_rows >= 1
        assert (cuts.A @ bad > cuts.row_upper).all()
