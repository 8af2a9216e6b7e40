"""α-points of a fractional, time-ordered assignment (the rounding of paper 000,
FlowFlex, Nagarajan et al. 2019, §2.3.2, Theorems 7 and 8; the technique of its ref. [6]).

An LP spreads each item's volume over time intervals; the *α-point* of the item is the first
interval by whose end a fraction α of its volume is assigned (α = 1/2: the "half completion
time" of Theorem 7). Rounding every item to its α-point loses at most a factor 1/(1−α) in a
non-decreasing cost — at least (1−α) of the volume sits at or after the α-point, each unit
costing at least the α-point's cost — and the volume assigned up to the α-point is at least α
times the item's volume, which is what bounds the load (paper 000, eq. (7) and its α-version).

These functions know nothing of the LP that produced the assignment: they take the amount each
(item, interval) pair holds, sorted by item and then by time.
"""

from __future__ import annotations

import numpy as np

__all__ = ["alpha_point_index", "alpha_point_fraction"]

_TOL = 1e-9
"""Cumulative amounts within this fraction of α·total count as reaching it (LP round-off)."""


def _check(owner: np.ndarray, amount: np.ndarray, total: np.ndarray, alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if owner.shape != amount.shape:
        raise ValueError(f"owner and amount must have the same shape, got {owner.shape} and {amount.shape}")
    if len(owner) and np.any(np.diff(owner) < 0):
        raise ValueError("entries must be sorted by owner (then by time)")


def _within_owner_cumsum(owner: np.ndarray, amount: np.ndarray, n: int) -> np.ndarray:
    """Running sum of ``amount`` restarted at each owner (rows padded so sums never cross owners)."""
    counts = np.bincount(owner, minlength=n)
    pos = np.arange(len(owner)) - np.repeat(np.cumsum(counts) - counts, counts)
    table = np.zeros((n, int(counts.max(initial=0))))
    table[owner, pos] = amount
    return np.cumsum(table, axis=1)[owner, pos]


def alpha_point_index(owner: np.ndarray, amount: np.ndarray, total: np.ndarray, alpha: float) -> np.ndarray:
    """Paper 000 §2.3.2, Theorem 8: for each item j, the position e (into ``owner``/``amount``) of
    its α-point: the first of its entries at which the running sum of its amounts reaches
    α·total[j] (d_j := argmin{t : Σ_{s<=t} f(a_j, b_s) >= α V_j}).

    ``owner[e]`` is the item of entry e, entries sorted by item and then by time; ``total[j]`` is
    the item's whole volume (its amounts must add up to it). Raises ValueError if some item's
    amounts never reach α·total (an assignment that does not cover its items).
    """
    owner = np.asarray(owner, dtype=np.int64)
    amount = np.asarray(amount, dtype=float)
    total = np.asarray(total, dtype=float)
    _check(owner, amount, total, alpha)
    n = len(total)
    cum = _within_owner_cumsum(owner, amount, n)
    reached = cum >= alpha * total[owner] * (1 - _TOL)
    # The first reaching entry of each owner: entries are sorted by owner, so the smallest index.
    first = np.full(n, len(owner))
    idx = np.flatnonzero(reached)
    np.minimum.at(first, owner[idx], idx)
    missing = first == len(owner)
    if missing.any():
        j = int(np.flatnonzero(missing)[0])
        raise ValueError(f"item {j}: its amounts add up to less than alpha = {alpha} of its volume {total[j]}")
    return first


def alpha_point_fraction(owner: np.ndarray, amount: np.ndarray, total: np.ndarray, alpha: float,
                         index: np.ndarray) -> np.ndarray:
    """How far into its α-point entry each item reaches α·total, in [0, 1]: (α·V_j − amount before
    the entry) / amount of the entry. Interpolating the α-point inside its interval with it orders
    items that share an interval (a tie-break; the guarantees only use the interval)."""
    owner = np.asarray(owner, dtype=np.int64)
    amount = np.asarray(amount, dtype=float)
    total = np.asarray(total, dtype=float)
    _check(owner, amount, total, alpha)
    cum = _within_owner_cumsum(owner, amount, len(total))
    at = amount[index]
    before = cum[index] - at
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(at > 0, (alpha * total - before) / at, 1.0)
    return np.clip(frac, 0.0, 1.0)
