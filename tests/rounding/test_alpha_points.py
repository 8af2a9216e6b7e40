"""α-points of a fractional time-ordered assignment (paper 000 §2.3.2, Theorems 7-8)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedrelax.rounding.alpha_points import alpha_point_fraction, alpha_point_index


def test_alpha_points_by_hand():
    # Item 0 holds 1, 1, 2 (total 4) and item 1 holds 3, 1 (total 4).
    owner = np.array([0, 0, 0, 1, 1])
    amount = np.array([1.0, 1.0, 2.0, 3.0, 1.0])
    total = np.array([4.0, 4.0])
    # α = 1/2: item 0 reaches 2 at its second entry, item 1 reaches 2 at its first.
    idx = alpha_point_index(owner, amount, total, 0.5)
    assert idx.tolist() == [1, 3]
    # Item 0 needs all of that entry (1 of 1), item 1 two thirds of its 3.
    assert alpha_point_fraction(owner, amount, total, 0.5, idx).tolist() == pytest.approx([1.0, 2 / 3])
    # α = 0.9: 3.6 is reached only by the last entry of each.
    assert alpha_point_index(owner, amount, total, 0.9).tolist() == [2, 4]


def test_zero_amounts_and_rejections():
    owner = np.array([0, 0, 1])
    amount = np.array([0.0, 2.0, 1.0])
    assert alpha_point_index(owner, amount, np.array([2.0, 1.0]), 0.5).tolist() == [1, 2]
    with pytest.raises(ValueError, match="alpha"):
        alpha_point_index(owner, amount, np.array([2.0, 1.0]), 1.0)
    with pytest.raises(ValueError, match="less than alpha"):
        alpha_point_index(owner, amount, np.array([2.0, 5.0]), 0.5)
    with pytest.raises(ValueError, match="sorted"):
        alpha_point_index(np.array([1, 0]), np.array([1.0, 1.0]), np.array([1.0, 1.0]), 0.5)


@given(st.lists(st.lists(st.integers(0, 5), min_size=1, max_size=6).filter(lambda xs: sum(xs) > 0),
                min_size=1, max_size=5),
       st.floats(0.05, 0.95))
def test_rounding_to_the_alpha_point_loses_at_most_one_over_one_minus_alpha(rows, alpha):
    # With a non-decreasing cost c(entry position), at least (1 − α) of an item's volume sits at
    # or after its α-point, so c(α-point) <= Σ c·amount / ((1 − α)·total) (eq. (5)), and at
    # least α of it sits at or before (eq. (7)).
    owner = np.repeat(np.arange(len(rows)), [len(r) for r in rows])
    amount = np.concatenate([np.array(r, dtype=float) for r in rows])
    total = np.array([sum(r) for r in rows], dtype=float)
    idx = alpha_point_index(owner, amount, total, alpha)
    pos = np.concatenate([np.arange(len(r)) for r in rows]).astype(float)
    cost = 1.0 + pos ** 2
    start = np.concatenate([[0], np.cumsum([len(r) for r in rows])[:-1]])
    for j in range(len(rows)):
        mine = slice(start[j], start[j] + len(rows[j]))
        k = idx[j] - start[j]
        assert 0 <= k < len(rows[j])
        assert cost[idx[j]] * (1 - alpha) * total[j] <= (cost[mine] * amount[mine]).sum() + 1e-9
        assert amount[start[j]:idx[j] + 1].sum() >= alpha * total[j] * (1 - 1e-9)
        assert amount[start[j]:idx[j]].sum() < alpha * total[j]
