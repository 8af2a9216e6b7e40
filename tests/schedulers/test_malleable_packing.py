"""Tests of schedrelax.schedulers.malleable_packing: MPS (paper 002 Fig. 3) and FAIR on hand-computed
cases, minima normalisation, FIFO as MPS with minima 0, the epoch simulator, whole-processor pieces,
and verify on random instances."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from schedrelax.algorithms import run
from schedrelax.errors import InstanceError
from schedrelax.instances import Flow, MalleableInstance, single_job_flows
from schedrelax.instances import costs
from schedrelax.schedulers.malleable_packing import (
    cut_at_work,
    fit_interval_rates,
    CostVector,
    epoch_simulation,
    fair_allocator,
    malleable_packing,
    mps_allocator,
    mps_slots,
    normalise_minima,
    pack,
    water_line_slots,
    whole_processor_pieces,
)
from schedrelax.schedules import POOLED, Schedule, evaluate, verify
from tests.strategies import malleable_instances

SETTINGS = settings(max_examples=40, deadline=None)


@st.composite
def single_job_instances(draw, max_jobs=5, max_processors=8, minima=True, releases=False, fit=True):
    """Paper 002's setting: one job per flow, minima that fit the slots (unless ``fit=False``)."""
    P = draw(st.integers(1, max_processors))
    n = draw(st.integers(1, max_jobs))
    sizes = draw(st.lists(st.integers(1, 20).map(lambda k: k / 2), min_size=n, max_size=n))
    maxima = draw(st.lists(st.integers(1, P), min_size=n, max_size=n))
    mins = [draw(st.integers(0, M)) for M in maxima] if minima else [0] * n
    if fit and sum(mins) > P:
        mins = [0] * n
    rel = draw(st.lists(st.integers(0, 4).map(float), min_size=n, max_size=n)) if releases else None
    return single_job_flows(P, sizes, maxima, mins, release=rel)


# ------------------------------------------------------------------------------- one interval

def test_mps_slots_fills_in_priority_order():
    # S = 10, minima 1, 2, 1 (4), slack 6: the first job takes its room 3, the second its room 2,
    # the third the last 1 of its room 4.
    assert mps_slots(np.array([1, 2, 1]), np.array([4, 4, 5]), 10).tolist() == [4, 4, 2]


def test_water_line_levels_and_leftover():
    # Minima 1, 1, 1, maxima 5, 2, 5. S = 8: level 3 gives 3 + 2 + 3 = 8.
    assert water_line_slots(np.array([1, 1, 1]), np.array([5, 2, 5]), 8).tolist() == [3, 2, 3]
    # S = 9: level 3 uses 8, level 4 would use 10; the one slot left goes to the first job that can rise.
    assert water_line_slots(np.array([1, 1, 1]), np.array([5, 2, 5]), 9).tolist() == [4, 2, 3]
    # A minimum above the water-line stays: minima 4, 0, level 3 over S = 7 gives 4, 3.
    assert water_line_slots(np.array([4, 0]), np.array([5, 5]), 7).tolist() == [4, 3]
    # Enough slots for every maximum.
    assert water_line_slots(np.array([0, 0]), np.array([2, 3]), 9).tolist() == [2, 3]


def test_normalise_minima_by_largest_remainder():
    # 3, 3, 3 into 5: exact 5/3 each, floors 1, 1, 1, two slots to the largest remainders (ties: index).
    assert normalise_minima(np.array([3, 3, 3]), 5).tolist() == [2, 2, 1]
    # 6, 2 into 4: exact 3, 1.
    assert normalise_minima(np.array([6, 2]), 4).tolist() == [3, 1]
    assert normalise_minima(np.array([1, 2]), 5).tolist() == [1, 2]  # fit: unchanged


@given(st.lists(st.integers(0, 30), min_size=1, max_size=8), st.integers(1, 40))
@SETTINGS
def test_normalised_minima_fit_and_never_grow(mins, S):
    out = normalise_minima(np.array(mins), S)
    assert out.sum() == min(sum(mins), S)
    assert (out <= np.array(mins)).all() and (out >= 0).all()


# ------------------------------------------------------------------------------- MPS (Fig. 3)

def test_mps_interval_list_by_hand():
    # P = 4; sizes 4, 6, 2; maxima 3, 4, 2; minima 1, 1, 0; priority 0, 1, 2.
    # Interval 1: minima 1, 1, 0, slack 2 to job 0 (room 2): 3, 1, 0. Job 0 ends at 4/3; job 1 has
    #   6 - 4/3 = 14/3 left.
    # Interval 2: minimum 1 for job 1, slack 3 to job 1 (room 3): 0, 4, 0; job 1 ends at
    #   4/3 + (14/3)/4 = 2.5.
    # Interval 3: job 2 alone on its maximum 2: ends at 3.5.
    inst = single_job_flows(4, [4, 6, 2], [3, 4, 2], [1, 1, 0])
    plan = malleable_packing(inst, [0, 1, 2])
    assert [s.tolist() for s, _, _ in plan.intervals] == [[3, 1, 0], [0, 4, 0], [0, 0, 2]]
    assert plan.times.tolist() == pytest.approx([0, 4 / 3, 2.5, 3.5])
    assert plan.completion.tolist() == pytest.approx([4 / 3, 2.5, 3.5])
    sched = plan.schedule(promises=["respects_minima"])
    verify(inst, sched)
    assert evaluate(inst, sched).objective == pytest.approx(4 / 3 + 2.5 + 3.5)


def test_mps_priority_is_not_completion_order():
    # P = 3; job 0 (size 6, max 3, min 0) has priority over job 1 (size 1, min 1, max 1).
    # Interval 1: minimum 1 to job 1, slack 2 to job 0. Job 1 ends at 1 although second in priority.
    inst = single_job_flows(3, [6, 1], [3, 1], [0, 1])
    plan = malleable_packing(inst, [0, 1])
    assert plan.completion.tolist() == pytest.approx([1 + 4 / 3, 1.0])


def test_mps_normalises_minima_and_does_not_promise():
    # P = 3, minima 2, 2, 2 (6 > 3): normalised to 1, 1, 1 while all three run.
    inst = single_job_flows(3, [3, 3, 3], [3, 3, 3], [2, 2, 2])
    plan = malleable_packing(inst)
    assert plan.normalised
    assert plan.slots[0].tolist() == [1, 1, 1]
    verify(inst, plan.schedule())
    assert run("fair-hfs", inst).info["minima_normalised"]
    assert "respects_minima" not in run("fair-hfs", inst).schedule.promises


def test_mps_with_minima_0_in_arrival_order_is_fifo_by_hand():
    # Paper 002 §4's FIFO on P = 3: sizes 6, 4, 3, maxima 3, 2, 2, minima ignored (2 each).
    # [0, 2): job 0 on 3. [2, 4): job 1 on 2, job 2 on 1. [4, 4.5): job 2 on 2. Σ C = 10.5.
    inst = single_job_flows(3, [6, 4, 3], [3, 2, 2], [2, 2, 2])
    plan = malleable_packing(inst, minima=False)
    assert plan.completion.sum() == pytest.approx(10.5)


@given(single_job_instances(minima=True, releases=True, fit=False))
@SETTINGS
def test_fifo_is_mps_in_arrival_order_with_minima_0(inst):
    # The registered FIFO (an event-driven list scheduler) and MPS (minima 0, arrival order) are two
    # implementations of paper 002 §4's FIFO: same completion times.
    from schedrelax.schedulers.malleable_packing import arrival_order

    fifo = run("fifo", inst)
    plan = malleable_packing(inst, arrival_order(inst), minima=False)
    assert evaluate(inst, plan.schedule()).completion == pytest.approx(fifo.evaluation.completion, rel=1e-9)


@given(single_job_instances(), st.randoms())
@SETTINGS
def test_mps_any_order_respects_minima_and_verifies(inst, rnd):
    order = list(range(inst.n_flows))
    rnd.shuffle(order)
    plan = malleable_packing(inst, order)
    assert not plan.normalised
    verify(inst, plan.schedule(promises=["respects_minima"]))
    # Every interval gives each unfinished job at least its minimum and at most its maximum, and
    # uses min(P, Σ maxima of the unfinished jobs) slots: MPS never idles a slot it could give.
    for s, t0, _ in plan.intervals:
        alive = plan.completion > t0
        assert (s[alive] >= inst.min_procs[alive]).all() and (s <= inst.max_procs).all()
        assert s.sum() == min(inst.processors, inst.max_procs[alive].sum())


@given(malleable_instances(minima=True, releases=True, dags=True), st.randoms())
@SETTINGS
def test_mps_and_fair_on_flows_with_dags_and_releases(inst, rnd):
    order = list(range(inst.n_flows))
    rnd.shuffle(order)
    plan = malleable_packing(inst, order)
    verify(inst, plan.schedule(promises=() if plan.normalised else ["respects_minima"]))
    res = run("fair-hfs", inst)  # run() verifies, with the promise when made
    assert ("respects_minima" in res.schedule.promises) != res.info["minima_normalised"]


def test_release_and_dag_by_hand():
    # P = 2. Flow 0: a (size 2, max 2) -> b (size 2, max 1). Flow 1: c (size 2, max 2), released at 1.
    # Priority flow 0 then 1, minima 0. [0, 1): a on 2 (done). [1, 3): b on 1 and c on 1; c has done
    # 2 at 3 and b 2 at 3. Flow completions 3, 3.
    inst = MalleableInstance(2, (Flow([2, 2], [2, 1], edges=[(0, 1)]), Flow([2], [2], release=1.0)))
    plan = malleable_packing(inst, [0, 1])
    assert plan.completion.tolist() == pytest.approx([1.0, 3.0, 3.0])
    verify(inst, plan.schedule())


# ------------------------------------------------------------------------------- FAIR

def test_fair_by_hand():
    # P = 4, sizes 2, 6, minima 1, 1, maxima 4, 4: water-line 2 and 2. Job 0 ends at 1; job 1 has
    # 4 left and then runs on 4: ends at 2. Σ C = 3 (MPS giving job 0 priority: 3 + 1: ends 2/3, ...).
    inst = single_job_flows(4, [2, 6], [4, 4], [1, 1])
    res = run("fair-hfs", inst)
    assert res.evaluation.completion.tolist() == pytest.approx([1.0, 2.0])
    assert "respects_minima" in res.schedule.promises


@given(single_job_instances())
@SETTINGS
def test_fair_gives_every_job_at_least_mps_minima(inst):
    res = run("fair-hfs", inst)
    assert "respects_minima" in res.schedule.promises  # run() verified the minima


# ------------------------------------------------------------------------------- epochs (§2.2)

@given(single_job_instances(), st.sampled_from([0.3, 1.0, 2.5]))
@SETTINGS
def test_epochs_without_arrivals_follow_the_offline_plan(inst, epoch):
    # MPS re-planned from the state it reached, with the same priority, continues as before: the
    # epoch simulation of an MPS allocator equals the offline MPS schedule, for any epoch length.
    offline = malleable_packing(inst, list(range(inst.n_flows)))
    sim = epoch_simulation(inst, mps_allocator(lambda view: view.flows), epoch, respects_minima=True)
    verify(inst, sim.schedule)
    assert evaluate(inst, sim.schedule).completion == pytest.approx(offline.completion, rel=1e-9)
    assert sim.epochs == math.ceil(offline.completion.max() / epoch - 1e-9)


def test_epochs_with_arrivals_by_hand():
    # P = 2, epoch 1. A: size 4, max 2, release 0. B: size 1, max 2, release 0.5 (waits for t = 1).
    # FIFO: [0, 2) A on 2 (done at 2); [2, 2.5) B on 2. FAIR: [0, 1) A on 2; [1, 2) A 1, B 1 (B done
    # at 2, A has 1 left); [2, 2.5) A on 2.
    inst = single_job_flows(2, [4, 1], [2, 2], release=[0.0, 0.5])
    fifo = epoch_simulation(inst, mps_allocator(minima=False), 1.0)
    fair = epoch_simulation(inst, fair_allocator, 1.0, respects_minima=True)
    for sim in (fifo, fair):
        verify(inst, sim.schedule)
    assert evaluate(inst, fifo.schedule).completion.tolist() == pytest.approx([2.0, 2.5])
    assert evaluate(inst, fair.schedule).completion.tolist() == pytest.approx([2.5, 2.0])
    assert fair.epochs == 3


def test_epochs_jump_over_idle_time():
    # Nothing is released before 5.2: the first plan is made at the epoch start 6.
    inst = single_job_flows(2, [2], [2], release=[5.2])
    sim = epoch_simulation(inst, mps_allocator(), 2.0)
    assert sim.epochs == 1
    assert evaluate(inst, sim.schedule).completion.tolist() == pytest.approx([7.0])
    with pytest.raises(ValueError, match="epoch"):
        epoch_simulation(inst, mps_allocator(), 0.0)


@given(malleable_instances(minima=True, releases=True, dags=True), st.sampled_from([0.5, 2.0]))
@settings(max_examples=25, deadline=None)
def test_epochs_verify_on_flows(inst, epoch):
    sim = epoch_simulation(inst, fair_allocator, epoch, respects_minima=True)
    verify(inst, sim.schedule)


# ------------------------------------------------------------------------------- whole processors

def test_whole_processor_pieces_by_hand():
    # [0, 2) with works 3, 3 on P = 3, maxima 2: averages 1.5 each. McNaughton: job 0 runs on 2 for
    # the first half and 1 after, job 1 the other way round; 3 processors at every instant.
    job, start, end, rate = whole_processor_pieces([0.0, 2.0], [[3.0, 3.0]], 3, [2, 2])
    pieces = sorted(zip(job.tolist(), start.tolist(), end.tolist(), rate.tolist()))
    assert pieces == [(0, 0.0, 1.0, 2.0), (0, 1.0, 2.0, 1.0), (1, 0.0, 1.0, 1.0), (1, 1.0, 2.0, 2.0)]


@given(st.integers(1, 6), st.data())
@SETTINGS
def test_whole_processor_pieces_keep_work_and_bounds(P, data):
    n = data.draw(st.integers(1, 5))
    maxima = np.array(data.draw(st.lists(st.integers(1, P), min_size=n, max_size=n)))
    minima = np.array([data.draw(st.integers(0, int(M))) for M in maxima])
    if minima.sum() > P:
        minima[:] = 0
    # A point of {m <= y <= M, Σ y <= P}: the minima plus a random share of the slack.
    share = np.array(data.draw(st.lists(st.integers(0, 7).map(lambda k: k / 7), min_size=n, max_size=n)))
    room = maxima - minima
    y = minima + share * room
    if y.sum() > P:
        y = minima + (y - minima) * (P - minima.sum()) / (y - minima).sum()
    L = data.draw(st.sampled_from([0.5, 1.0, 3.0]))
    work = (y * L)[None, :]
    job, start, end, rate = whole_processor_pieces([0.0, L], work, P, maxima, minima[None, :])
    done = np.bincount(job, weights=rate * (end - start), minlength=n)
    assert done == pytest.approx(work[0], abs=1e-9)
    if (work[0] > 0).all():  # an instance needs positive sizes: verify where every job has work
        inst = single_job_flows(P, work[0].tolist(), maxima.tolist(), minima.tolist())
        verify(inst, Schedule(job, np.zeros(len(job)), np.full(len(job), POOLED), start, end, rate,
                              promises={"respects_minima"}))


def _pipeline(times, work, ready, size, P, maxima, minima=None):
    """fit_interval_rates, whole_processor_pieces, cut_at_work: the exact MIP's read-back."""
    bounds, rates, lower = fit_interval_rates(times, work, ready, size, P, maxima, minima)
    pieces = whole_processor_pieces(bounds, rates * np.diff(bounds)[:, None], P, maxima, lower)
    return bounds, rates, cut_at_work(*pieces, size)


def _pooled(job, start, end, rate, promises=()):
    return Schedule(job, np.zeros(len(job)), np.full(len(job), POOLED), start, end, rate, promises=promises)


def test_whole_processor_pieces_keep_a_tiny_rate():
    # The MIP's read-back of P = 1, sizes 9.37e-4 and 1e4 in one interval [0, 10000.000937): rates
    # 9.37e-8 and 1 - 9.37e-8, together exactly 1. The tiny rate is within 1e-7 of 0 but is the
    # job's whole work: taking it as 0 left the job without pieces ("job 0: has no pieces").
    job, start, end, rate = whole_processor_pieces([0.0, 10000.000937], [[9.37e-4, 1e4]], 1, [1, 1])
    done = np.bincount(job, weights=rate * (end - start), minlength=2)
    assert done == pytest.approx([9.37e-4, 1e4], rel=1e-9)
    verify(single_job_flows(1, [9.37e-4, 1e4], [1, 1]), _pooled(job, start, end, rate))
    # Rates 1 − 1e-9 and 1e-9 on P = 1 over [0, 10000.00001) (sizes 1e4 and 1e-5): taking the
    # first as 1 (a snap of 1e-9) put both jobs on the one processor for 1e-5 at time 0.
    job, start, end, rate = whole_processor_pieces([0.0, 10000.00001], [[1e4, 1e-5]], 1, [1, 1])
    verify(single_job_flows(1, [1e4, 1e-5], [1, 1]), _pooled(job, start, end, rate))


def test_fit_interval_rates_adds_a_tail_where_no_room_is_left():
    # HiGHS's solution of P = 3, sizes 0.07, 1, 0.03, maxima 3, 3, 1 (minimax makespan): in the
    # last interval (length 0.016666606667) job 0 gets 0.05000036, a rate of 3.0000324 > its
    # maximum 3. Clipped to 3 it does 0.01999964 + 3 * 0.016666606667 = 0.069999460001, short by
    # 5.39999e-7; intervals 1 and 2 are full (rates sum to 3), so a tail of job 0 alone on 3
    # processors lasts 5.39999e-7 / 3, ending at 0.34999988 + 0.05000036 / 3 = 0.366666666667
    # = 1.1 / 3 up to the solver's digits: the true optimum the solver's times fell short of.
    times = [0.0, 0.34000006, 0.34999988, 0.366666486667]
    work = [[0.0, 1.0, 0.02000018], [0.01999964, 0.0, 0.00999982], [0.05000036, 0.0, 0.0]]
    ready = [[True, True, True], [True, False, True], [True, False, False]]
    size = [0.07, 1.0, 0.03]
    bounds, rates, (job, start, end, rate) = _pipeline(times, work, ready, size, 3, [3, 3, 1])
    assert bounds[:4].tolist() == times  # the solver's times stay; one segment is added
    assert bounds[-1] == pytest.approx(0.34999988 + 0.05000036 / 3, rel=1e-12)
    assert bounds[-1] == pytest.approx(1.1 / 3, rel=1e-9)
    assert rates[-1].tolist() == [3.0, 0.0, 0.0]
    verify(MalleableInstance(3, (Flow(size, [3, 3, 1]),)), _pooled(job, start, end, rate))


def test_fit_interval_rates_uses_room_before_adding_time():
    # P = 3, sizes 2.001 and 1, maxima 2 and 1, intervals [0, 1) and [1, 1.5): job 0's 1.001 in
    # the second interval is a rate 2.002 > 2, clipped, short by 0.001; the first interval has
    # job 0 on 1 and job 1 on 1, one processor free, so job 0 rises to 1.001 there: no time added.
    bounds, rates, (job, start, end, rate) = _pipeline([0.0, 1.0, 1.5], [[1.0, 1.0], [1.001, 0.0]],
                                                       [[True, True], [True, False]], [2.001, 1.0], 3, [2, 1])
    assert bounds.tolist() == [0.0, 1.0, 1.5]
    assert rates == pytest.approx(np.array([[1.001, 1.0], [2.0, 0.0]]), rel=1e-12)
    verify(single_job_flows(3, [2.001, 1.0], [2, 1]), _pooled(job, start, end, rate))


def test_fit_interval_rates_raise_to_the_minimum_and_cut_the_excess():
    # P = 3, job 0 of size 1.5 with minimum 2 got 1.4 in [0, 1) (rate 1.4, below its minimum):
    # it runs on 2 and so is done at 1.5 / 2 = 0.75; job 1 (size 1, max 1) keeps its one
    # processor for the whole interval. No time added.
    bounds, rates, (job, start, end, rate) = _pipeline([0.0, 1.0], [[1.4, 1.0]], [[True, True]], [1.5, 1.0], 3,
                                                       [3, 1], [2, 0])
    assert bounds.tolist() == [0.0, 1.0] and rates.tolist() == [[2.0, 1.0]]
    assert sorted(zip(job.tolist(), start.tolist(), end.tolist(), rate.tolist())) == [
        (0, 0.0, 0.75, 2.0), (1, 0.0, 1.0, 1.0)]
    verify(single_job_flows(3, [1.5, 1.0], [3, 1], [2, 0]),
           _pooled(job, start, end, rate, promises={"respects_minima"}))


def test_fit_interval_rates_refuses_what_cannot_be_read_back():
    with pytest.raises(ValueError, match="job 1 is ready in no interval"):
        fit_interval_rates([0.0, 1.0], [[1.0, 0.0]], [[True, False]], [1.0, 1.0], 2, [1, 1])
    with pytest.raises(ValueError, match="add up to 4, more than the 3 processors"):
        fit_interval_rates([0.0, 1.0], [[1.0, 1.0]], [[True, True]], [2.0, 2.0], 3, [2, 2], [2, 2])
    # job 1 is only ever ready beside job 0, whose minimum takes both processors
    with pytest.raises(ValueError, match="job 1: the minima .* leave it no processor"):
        fit_interval_rates([0.0, 1.0], [[2.0, 1e-7]], [[True, True]], [2.0, 1e-6], 2, [2, 2], [2, 0])


def test_cut_at_work_by_hand():
    # job 0: 2 processors on [0, 1) then 1 on [1, 3): 4 work; size 3 is reached at 1 + 1 / 1 = 2.
    # job 1: exactly its size 1 on [0, 1): unchanged.
    job, start, end, rate = cut_at_work([0, 0, 1], [1.0, 0.0, 0.0], [3.0, 1.0, 1.0], [1.0, 2.0, 1.0], [3.0, 1.0])
    assert list(zip(job.tolist(), start.tolist(), end.tolist(), rate.tolist())) == [
        (0, 0.0, 1.0, 2.0), (0, 1.0, 2.0, 1.0), (1, 0.0, 1.0, 1.0)]


@given(st.integers(1, 5), st.data())
@SETTINGS
def test_the_read_back_of_perturbed_work_verifies(P, data):
    # A feasible interval solution (rates inside {m <= y <= M, Σ y <= P}) with its work perturbed
    # as a solver's tolerances perturb it (relative 1e-6 and absolute 1e-7): the read-back must
    # verify on the instance of the unperturbed sizes, and add no more time than the perturbation
    # could need (a missing amount runs on at least one processor in its tail).
    n = data.draw(st.integers(1, 4))
    K = data.draw(st.integers(1, 3))
    maxima = np.array(data.draw(st.lists(st.integers(1, P), min_size=n, max_size=n)))
    minima = np.array([data.draw(st.integers(0, int(M))) for M in maxima])
    if minima.sum() > P:
        minima[:] = 0
    lengths = np.array(data.draw(st.lists(st.sampled_from([0.0, 1e-6, 0.5, 2.0, 1000.0]), min_size=K, max_size=K)))
    share = np.array(data.draw(st.lists(st.integers(0, 7).map(lambda k: k / 7), min_size=K * n,
                                        max_size=K * n))).reshape(K, n)
    y = minima + share * (maxima - minima)
    total = y.sum(axis=1, keepdims=True)
    y = np.where(total > P, minima + (y - minima) * (P - minima.sum()) / np.maximum(total - minima.sum(), 1e-300), y)
    work = y * lengths[:, None]
    size = work.sum(axis=0)
    if not (size > 0).all():
        return  # an instance needs positive sizes
    noise = np.array(data.draw(st.lists(st.floats(-1.0, 1.0), min_size=K * n, max_size=K * n))).reshape(K, n)
    perturbed = np.maximum(work * (1 + 1e-6 * noise) + 1e-7 * noise, 0.0)
    times = np.r_[0.0, np.cumsum(lengths)]
    ready = np.ones((K, n), dtype=bool)
    try:  # lengths 1e-6 beside 1000 can make a job shorter than the loader resolves: not an instance
        inst = single_job_flows(P, size.tolist(), maxima.tolist(), minima.tolist())
    except InstanceError:
        assume(False)
    bounds, _, (job, start, end, rate) = _pipeline(times, perturbed, ready, size, P, maxima, minima)
    verify(inst, _pooled(job, start, end, rate, promises={"respects_minima"}))
    assert bounds[-1] - times[-1] <= 3 * np.abs(perturbed - work).sum() + 1e-12


# ------------------------------------------------------------------------------- CostVector

@given(malleable_instances(max_flows=5, max_jobs=1, cost_kinds=list(costs.COST_KINDS)),
       st.lists(st.floats(0, 30), min_size=5, max_size=5))
@SETTINGS
def test_cost_vector_matches_each_cost(inst, times):
    cv = CostVector([f.cost for f in inst.flows])
    t = np.array(times[:inst.n_flows])
    assert cv(t) == pytest.approx([f.cost(x) for f, x in zip(inst.flows, t)])
    which = np.arange(inst.n_flows)[::-1]
    assert cv(t, which) == pytest.approx([inst.flows[w].cost(x) for w, x in zip(which, t)])


def test_pack_rejects_a_bad_priority():
    with pytest.raises(ValueError, match="permutation"):
        pack(2, [1.0, 1.0], [1, 1], [0, 0], [0, 0])
