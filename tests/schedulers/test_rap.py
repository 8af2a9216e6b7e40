"""Tests of schedrelax.schedulers.rap (paper 002 §3.2): Fox's greedy, the DP and the minimax
transform against a hand-worked case and against enumerating every allocation."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from schedrelax.schedulers.rap import rap_dp, rap_fox, rap_minimax, rap_value

SETTINGS = settings(max_examples=60, deadline=None)


def table_cost(table):
    """F from a table: F(j, s) = table[j][s]."""
    arr = np.array(table, dtype=float)
    return lambda j, s: arr[np.asarray(j), np.asarray(s)]


def brute(F, lower, upper, S, objective):
    """The optimum by enumerating every allocation: the second method."""
    best = np.inf
    for s in itertools.product(*(range(lo, hi + 1) for lo, hi in zip(lower, upper))):
        if sum(s) <= S:
            best = min(best, rap_value(F, np.array(s), objective))
    return best


def test_fox_by_hand():
    # F_j(s) = a_j / s with a = 5, 6, 8, 1 <= s <= 4, S = 7. From (1, 1, 1) = 19 the marginal gains
    # are 2.5, 3, 4: give to job 2 (15); then 2.5, 3, 4/3: job 1 (12); then 2.5, 1, 4/3: job 0 (9.5);
    # then 5/6, 1, 4/3: job 2 (8 1/6). Allocation (2, 2, 3).
    a = np.array([5.0, 6.0, 8.0])
    F = lambda j, s: a[j] / s  # noqa: E731
    sol = rap_fox(F, [1, 1, 1], [4, 4, 4], 7)
    assert sol.slots.tolist() == [2, 2, 3]
    assert sol.value == pytest.approx(2.5 + 3 + 8 / 3)
    assert rap_dp(F, [1, 1, 1], [4, 4, 4], 7).value == pytest.approx(sol.value)
    # Minimax: the greedy raises the largest a_j / s_j: 8 -> 4 (job 2), 6 -> 3 (job 1), 5 -> 2.5
    # (job 0), 4 -> 8/3 (job 2): max 3 with (2, 2, 3).
    mm = rap_minimax(F, [1, 1, 1], [4, 4, 4], 7)
    assert mm.value == pytest.approx(3.0)


def test_fox_is_a_heuristic_on_step_functions():
    # Job 0 meets its deadline only with 4 slots (F = 1 below, 0 from 4); job 1 always (F = 0).
    # Fox sees no gain from any single slot and stops at (1, 1): 1. The DP finds (4, 1): 0.
    F = table_cost([[1, 1, 1, 1, 0], [0, 0, 0, 0, 0]])
    assert rap_fox(F, [1, 1], [4, 4], 5).value == 1.0
    dp = rap_dp(F, [1, 1], [4, 4], 5)
    assert dp.value == 0.0 and dp.slots.tolist() == [4, 1]


def test_minimax_with_negative_values_spends_every_slot():
    # Lateness-like values below 0: the transform must not stop at a "non-negative marginal".
    F = table_cost([[5, 1, -1, -2], [4, 0, -3, -4]])
    sol = rap_minimax(F, [1, 1], [3, 3], 6)
    assert sol.value == brute(F, [1, 1], [3, 3], 6, "minimax") == -2.0


def test_infeasible_lower_bounds_raise():
    F = table_cost([[0, 0, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match="lower bounds"):
        rap_fox(F, [2, 2], [2, 2], 3)
    with pytest.raises(ValueError, match="lower <= upper"):
        rap_dp(F, [2, 1], [1, 2], 5)


@st.composite
def rap_cases(draw, convex):
    """Small RAPs: non-increasing tables (convex ones from completion-time costs of W / s)."""
    n = draw(st.integers(1, 4))
    S = draw(st.integers(n, 9))
    upper = [draw(st.integers(1, 5)) for _ in range(n)]
    lower = [draw(st.integers(0, u)) for u in upper]
    if sum(lower) > S:
        lower = [0] * n
    width = max(upper) + 1
    if convex:
        # w·max(0, W/s − d): a convex non-decreasing cost of the convex W/s, and at s = 0 a value
        # at least 2F(1) − F(2) so the table stays convex there too.
        rows = []
        for _ in range(n):
            W, w, d = draw(st.integers(1, 12)), draw(st.integers(1, 4)), draw(st.integers(0, 6))
            row = [w * max(0.0, W / s - d) for s in range(1, width + 1)]
            rows.append([2 * row[0] - row[1] + draw(st.integers(0, 3))] + row[:-1])
    else:
        rows = []
        for _ in range(n):
            steps = sorted(draw(st.lists(st.integers(0, 6), min_size=width, max_size=width)), reverse=True)
            rows.append([float(v) for v in steps])
    return table_cost(rows), lower, upper, S


@given(rap_cases(convex=True))
@SETTINGS
def test_fox_is_exact_on_convex_summands(case):
    F, lower, upper, S = case
    best = brute(F, lower, upper, S, "minisum")
    assert rap_fox(F, lower, upper, S).value == pytest.approx(best)
    assert rap_dp(F, lower, upper, S).value == pytest.approx(best)


@given(rap_cases(convex=False))
@SETTINGS
def test_dp_is_exact_on_any_summands(case):
    F, lower, upper, S = case
    sol = rap_dp(F, lower, upper, S)
    assert sol.value == pytest.approx(brute(F, lower, upper, S, "minisum"))
    assert sol.slots.sum() <= S and (sol.slots >= lower).all() and (sol.slots <= upper).all()


@given(st.booleans().flatmap(lambda c: rap_cases(convex=c)))
@SETTINGS
def test_minimax_transform_is_exact(case):
    F, lower, upper, S = case
    best = brute(F, lower, upper, S, "minimax")
    sol = rap_minimax(F, lower, upper, S)
    assert sol.value == pytest.approx(best)
    assert rap_dp(F, lower, upper, S, objective="minimax").value == pytest.approx(best)


def test_fox_marginals_a_few_ulps_apart_tie_by_index():
    # Two jobs whose penalties are equal in exact arithmetic, the second's second slot computed 4
    # ulps lower (as w·(t0 + W/s) comes out at t0 = 10^6 or in another unit): the slot goes to
    # job 0, the lower index, as it would with exact arithmetic; 1e-6 lower is a real difference.
    def penalties(gap):
        def F(j, s):
            base = 2.0 * (1e6 + 3.0 / s)
            return np.where((j == 1) & (s == 2), base - gap(base), base)
        return F

    assert rap_fox(penalties(lambda b: 4 * np.spacing(b)), [1, 1], [3, 3], 3).slots.tolist() == [2, 1]
    assert rap_fox(penalties(lambda b: 1e-6), [1, 1], [3, 3], 3).slots.tolist() == [1, 2]
