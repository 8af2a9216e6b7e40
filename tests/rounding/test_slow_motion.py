"""Tests of schedrelax.rounding.slow_motion: the λ distribution, stretching by hand, eq. (15) by
hand in both modes, and the derandomisations against brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedrelax.rounding.slow_motion import (
    Timeline,
    best_stretch,
    draw_stretch,
    stretch_bound_candidates,
    stretch_fractions,
    stretch_pieces,
    stretched_completion,
)


def test_lambda_has_density_two_lambda():
    # E[λ] = ∫ λ·2λ dλ = 2/3 and P(λ <= 1/2) = 1/4; the draw depends on the seed only.
    rng = np.random.default_rng(7)
    lams = np.array([draw_stretch(rng) for _ in range(20000)])
    assert ((lams > 0) & (lams <= 1)).all()
    assert lams.mean() == pytest.approx(2 / 3, abs=0.01)
    assert (lams <= 0.5).mean() == pytest.approx(0.25, abs=0.01)
    assert draw_stretch(np.random.default_rng(3)) == draw_stretch(np.random.default_rng(3))


def test_stretching_a_unit_done_in_two_pieces():
    # One task done half in [0, 1) and half in [2, 3) (time per share 2). λ = 1/2: the first piece
    # stretched to [0, 2) already does the whole task (share 2·(1/2) = 1), so the second is dropped
    # and the task finishes at 2 = θ(1/2)/λ with θ(1/2) = 1.
    tl = Timeline.build(np.array([0, 0]), np.array([0.0, 2.0]), np.array([1.0, 3.0]), np.array([0.5, 0.5]),
                        np.array([1.0]), np.array([0]))
    kept, s, e = stretch_pieces(tl, 0.5)
    assert kept.tolist() == [0] and s.tolist() == [0.0] and e.tolist() == [2.0]
    assert stretched_completion(tl, np.array([0.5]), 1)[0].tolist() == [2.0]
    # λ = 0.8: [0, 1.25) does 0.625; the rest, 0.375, needs 0.75 of the stretched [2.5, 3.75).
    kept, s, e = stretch_pieces(tl, 0.8)
    assert kept.tolist() == [0, 1]
    assert s == pytest.approx([0.0, 2.5]) and e == pytest.approx([1.25, 3.25])
    assert stretched_completion(tl, np.array([0.8]), 1)[0] == pytest.approx([3.25])
    with pytest.raises(ValueError, match="λ"):
        stretch_pieces(tl, 0.0)


@st.composite
def timelines(draw):
    """Units (tasks) of one to three pieces on a timeline; each unit runs one piece at a time, at
    one or two speeds; jobs group the units."""
    n_units = draw(st.integers(1, 4))
    units, starts, ends, amounts = [], [], [], []
    for u in range(n_units):
        t = 0.0
        k = draw(st.integers(1, 3))
        shares = np.array(draw(st.lists(st.integers(1, 4), min_size=k, max_size=k)), dtype=float)
        shares /= shares.sum()
        for share in shares:
            t += draw(st.integers(0, 3))
            speed = draw(st.sampled_from([1.0, 2.0])) if draw(st.booleans()) else 1.0
            units.append(u)
            starts.append(t)
            t += share * 4 * speed
            ends.append(t)
            amounts.append(share)
    jobs = np.array(draw(st.lists(st.integers(0, 1), min_size=n_units, max_size=n_units)))
    jobs = np.unique(jobs, return_inverse=True)[1]
    return Timeline.build(np.array(units), np.array(starts), np.array(ends), np.array(amounts), np.ones(n_units),
                          jobs)


@settings(max_examples=60, deadline=None)
@given(timelines(), st.floats(0.05, 1.0))
def test_stretched_pieces_process_each_unit_exactly_once(tl, lam):
    kept, s, e = stretch_pieces(tl, lam)
    order = np.argsort(tl.piece)
    rate = (tl.amount / (tl.end - tl.start))[order][kept]  # share per unit of S-time, unchanged by stretching
    unit = tl.unit[order][kept]
    done = np.bincount(unit, weights=(e - s) * rate, minlength=len(tl.total))
    assert done == pytest.approx(1.0)
    assert (s >= tl.start[order][kept] - 1e-12).all()  # stretching never moves a piece earlier
    n_jobs = int(tl.unit_job.max()) + 1
    last = np.full(n_jobs, -np.inf)
    np.maximum.at(last, tl.unit_job[unit], e)
    assert stretched_completion(tl, np.array([lam]), n_jobs)[0] == pytest.approx(last)


@settings(max_examples=60, deadline=None)
@given(timelines(), st.lists(st.integers(1, 3), min_size=2, max_size=2))
def test_best_stretch_is_at_most_the_expectation(tl, w):
    # Derandomisation: the best λ is no worse than E over λ ~ 2λ (estimated on a fine midpoint grid
    # of λ, weighted by 2λ), and no worse than any grid point when every unit runs at one speed.
    n_jobs = int(tl.unit_job.max()) + 1
    weights = np.array(w[:n_jobs], dtype=float)
    lam, value = best_stretch(tl, weights)
    grid = (np.arange(1000) + 0.5) / 1000
    vals = stretched_completion(tl, grid, n_jobs) @ weights
    assert value <= np.sum(vals * 2 * grid) / len(grid) * (1 + 1e-6)
    assert value == pytest.approx(float(stretched_completion(tl, np.array([lam]), n_jobs)[0] @ weights))
    rate = tl.amount / (tl.end - tl.start)
    one_speed = all(np.ptp(rate[tl.unit == u]) < 1e-12 for u in np.unique(tl.unit))
    if one_speed:
        assert value <= vals.min() * (1 + 1e-9)


def test_eq15_one_row():
    # Eq. (15) with one row: z = (0.2, 0.3, 0.5), λ = 1/2. Stretched: 0.4, then 0.4 + 0.6 >= 1 at
    # interval 1, which gets the remainder 1 - 0.4 = 0.6; interval 2 gets nothing.
    z = np.array([[0.2, 0.3, 0.5]])
    assert stretch_fractions(z, 0.5, np.array([0])) == pytest.approx(np.array([[0.4, 0.6, 0.0]]))
    assert stretch_fractions(z, 1.0, np.array([0])) == pytest.approx(z)


def test_eq15_task_and_machine_modes_differ_on_a_split_task():
    # A task split over two machines: 0.3 on machine a in interval 0, 0.7 on machine b in interval 2.
    # Per task (our default), λ = 1/2: 0.6 in interval 0, then the cumulative 0.6 + 1.4 passes 1 in
    # interval 2, which gets 0.4. Per machine (eq. 15 as printed): each row is cut at its own total,
    # 0.3 and 0.7 — unchanged, so the late share on b stays whole.
    z = np.array([[0.3, 0.0, 0.0], [0.0, 0.0, 0.7]])
    assert stretch_fractions(z, 0.5, np.array([0, 0])) == pytest.approx(np.array([[0.6, 0, 0], [0, 0, 0.4]]))
    assert stretch_fractions(z, 0.5, np.array([0, 1])) == pytest.approx(z)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.floats(0.01, 1.0), st.randoms(use_true_random=False))
def test_eq15_keeps_each_unit_whole(rows, L, lam, rnd):
    rng = np.random.default_rng(rnd.randint(0, 2 ** 31))
    z = rng.random((rows, L)) * (rng.random((rows, L)) < 0.6)
    unit = rng.integers(0, 2, rows)
    zbar = stretch_fractions(z, lam, unit)
    per_unit = np.bincount(unit, weights=z.sum(axis=1), minlength=2)
    assert np.bincount(unit, weights=zbar.sum(axis=1), minlength=2) == pytest.approx(per_unit)
    assert (zbar >= 0).all() and (zbar <= z / lam + 1e-12).all()


def test_bound_candidates_against_brute_force():
    # Two jobs, one task each, d = 1, 2, 4. Task 0: shares 0.5 | 0.5 | 0 by interval; task 1: 0 | 0.2
    # | 0.8. l_0(λ) = 0 for λ <= 0.5, else 1; l_1(λ) = 1 for λ <= 0.2, else 2. Bound(λ) =
    # 6(w_0 d_{l_0} + w_1 d_{l_1})/λ with w = (1, 1): at λ = 0.2: 6(1 + 2)/0.2 = 90; at 0.5:
    # 6(1 + 4)/0.5 = 60; at 1: 6(2 + 4) = 36 — the best.
    z = np.array([[0.5, 0.5, 0.0], [0.0, 0.2, 0.8]])
    d = np.array([1.0, 2.0, 4.0])
    cand = stretch_bound_candidates(z, np.array([0, 1]), np.array([0, 1]), np.array([1.0, 1.0]), d)
    assert dict(zip(cand.lam.tolist(), cand.bound.tolist())) == pytest.approx({1.0: 36.0, 0.5: 60.0, 0.2: 90.0})
    assert cand.lam[0] == 1.0


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.randoms(use_true_random=False))
def test_bound_candidates_hold_the_minimum(n_tasks, L, rnd):
    # Brute force on a fine grid of λ: no grid point beats the best candidate, and each candidate's
    # value is the bound evaluated directly.
    rng = np.random.default_rng(rnd.randint(0, 2 ** 31))
    z = rng.random((n_tasks, L)) * (rng.random((n_tasks, L)) < 0.7)
    z[:, -1] += 0.01
    z /= z.sum(axis=1, keepdims=True)
    job = rng.integers(0, 2, n_tasks)
    job = np.unique(job, return_inverse=True)[1]
    w = rng.integers(1, 4, job.max() + 1).astype(float)
    d = 2.0 ** np.arange(L)

    def bound(lam):
        share = np.cumsum(z, axis=1)
        last = np.array([np.argmax(share[t] >= lam * (1 - 1e-9)) for t in range(n_tasks)])
        lj = np.zeros(len(w), dtype=int)
        np.maximum.at(lj, job, last)
        return 6 * float(w @ d[lj]) / lam

    cand = stretch_bound_candidates(z, np.arange(n_tasks), job, w, d)
    for lam, b in zip(cand.lam, cand.bound):
        assert b == pytest.approx(bound(lam))
    grid = np.linspace(0.001, 1, 2000)
    assert cand.bound[0] <= min(bound(x) for x in grid) * (1 + 1e-9)
