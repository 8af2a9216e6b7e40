"""Packing times on a grid stay on it when the online layer moves the clock (remaining.py's
module docstring): the time-indexed MIP, which accepts only times on a grid k/q, then plans every
sub-instance of an instance it accepts."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedrelax.algorithms import run
from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from schedrelax.models.packing_mip import time_unit
from schedrelax.online.remaining import data_grid, shift_clock
from schedrelax.schedules import verify


def test_the_float_difference_leaves_the_grid_and_the_shift_does_not():
    assert 1.97 - 1.4 == 0.5700000000000001  # the case the slow online property test found
    assert shift_clock(np.array([1.97]), 1.4, 100)[0] == 0.57
    # Large clocks: the float difference is off by an ulp of the operand, far more than an ulp
    # of the result; the shift is the float nearest the exact difference.
    assert 1000.01 - 1000.0 != 0.01
    assert shift_clock(np.array([1000.01]), 1000.0, 100)[0] == 0.01


def test_values_off_the_grid_or_a_clock_off_it_get_the_plain_difference():
    x = np.array([1.97, 0.1 + 0.2, np.pi])
    out = shift_clock(x, 1.4, 100)
    assert out[0] == 0.57
    assert out[1] == (0.1 + 0.2) - 1.4 and out[2] == np.pi - 1.4  # not the floats nearest k/100
    assert (shift_clock(x, np.sqrt(2), 100) == x - np.sqrt(2)).all()  # the clock itself is off it
    assert (shift_clock(x, 1.4, None) == x - 1.4).all()


def test_data_grid_is_the_common_denominator_or_none():
    assert data_grid(np.array([0.5, 0.25, 3.0])) == 4
    assert data_grid(np.array([0.01, 1 / 3])) == 300
    assert data_grid(np.array([0.1 + 0.2])) is None  # 0.30000000000000004 is no float nearest k/q
    assert data_grid(np.array([1 / 997, 1 / 991, 1 / 983])) is None  # common denominator > 10^6


@given(a=st.integers(-10**6, 10**6), b=st.integers(0, 10**6), q=st.sampled_from([1, 2, 3, 7, 10, 100, 360, 1000]))
@settings(max_examples=300, deadline=None)
def test_on_the_grid_the_shift_is_the_float_nearest_the_exact_difference(a, b, q):
    x, now = a / q, b / q
    got = shift_clock(np.array([x]), now, q)[0]
    assert got == float(Fraction(a - b, q))  # Fraction -> float rounds correctly
    assert abs(got - (x - now)) <= 4 * np.spacing(max(abs(x), abs(now), 1.0))


def test_online_mip_plans_a_sub_instance_whose_float_shift_left_the_grid():
    # The failing example of test_online_every_algorithm_larger_budget: a reservation until 1.97,
    # re-planned at epoch 1.4 (0.7 x 2); the sub-instance's reservation then ends at 0.57, on the
    # grid, and the MIP accepts it (it raised on 0.5700000000000001).
    inst = PackingInstance(capacities=[1.0, 1.0], reservations=[(1, 0.05, 1.97)],
                           jobs=(PackingJob(tasks=(PackingTask(0.5, [0], 0.5),), release=1.0),))
    res = run("online:mip", inst, params={"epoch": 0.7})
    verify(inst, res.schedule)
    # Released at 1, planned at the first epoch boundary after it (1.4), 0.5 long on free machine 0.
    assert res.objective == pytest.approx(1.9)


def test_time_unit_accepts_the_shifted_times():
    sub = PackingInstance(capacities=[1.0, 1.0], reservations=[(1, 0.05, float(shift_clock(np.array([1.97]), 1.4,
                                                                                             100)[0]))],
                          jobs=(PackingJob(tasks=(PackingTask(0.5, [0], 0.5),)),))
    assert time_unit(sub) == pytest.approx(0.01)


@given(a=st.integers(0, 10**6), b=st.integers(0, 10**6), q=st.sampled_from([1, 3, 7, 100, 1000]))
@settings(max_examples=300, deadline=None)
def test_a_time_on_the_grid_goes_to_the_sub_clock_and_back_exactly(a, b, q):
    # Remaining.to_original maps plans back with the same function: a plan that starts a task
    # exactly at a sub-instance reservation end starts it exactly at the original one (the float
    # round trip (x - now) + now can land an ulp early, inside the reservation).
    x, now = a / q, b / q
    there = shift_clock(np.array([x]), now, q)
    assert shift_clock(there, -now, q)[0] == x


def test_epoch_boundaries_are_the_multiples_the_user_means():
    import importlib

    simulate = importlib.import_module("schedrelax.online.simulate")
    assert 3 * 0.7 == 2.0999999999999996
    assert simulate._epoch_ceil(2.05, 0.7) == 2.1  # the float nearest 21/10
    assert simulate._epoch_ceil(2.1, 0.7) == 2.1  # a boundary is its own ceiling
    assert simulate._epoch_ceil(0.5, np.pi) == np.pi  # no small fraction: multiplied as floats
    assert simulate._epoch_ceil(4.0, np.pi) == 2 * np.pi


def test_epoch_boundaries_off_the_datas_grid_still_shift_exactly():
    """The slow property test's next case: data on halves, epoch 0.7. At the boundary 1.4 the
    committed task ending at 1.5 left a reservation 1.5 - 1.4 = 0.10000000000000009 long, off
    every grid the MIP accepts; the grid now covers the epoch (tenths), so it is 0.1."""
    from schedrelax.online.remaining import RemainingWork

    inst = PackingInstance(capacities=[1.0], jobs=(
        PackingJob(tasks=(PackingTask(demand=0.5, placement=[0], processing_time=[1.5]),), weight=1.0, release=0.0),
        PackingJob(tasks=(PackingTask(demand=0.5, placement=[0], processing_time=[0.5]),), weight=1.0, release=1.0)))
    assert 1.5 - 1.4 == 0.10000000000000009
    assert RemainingWork(inst)._packing.grid == 2
    assert RemainingWork(inst, epoch=0.7)._packing.grid == 10
    assert RemainingWork(inst, epoch=np.pi)._packing.grid == 2  # an epoch off every grid: the data's
    r = run("online:mip", inst, params={"epoch": 0.7})
    verify(inst, r.schedule)
    # by hand: replans at 0 and 1.4; job 0 runs [0, 1.5), job 1 (arrived at 1, waits for the
    # boundary) starts at 1.4 beside it (demands 0.5 + 0.5 fit) and ends at 1.9
    assert sorted(r.evaluation.completion.tolist()) == pytest.approx([1.5, 1.9])
