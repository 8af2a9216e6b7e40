"""``preemptive_list_packing`` (SynchPack-3 Step 2, PSRS) against its pre-rewrite version
(tests/schedulers/_reference_online.py, the full rescan of every machine's list at each event):
on many seeded random lists — ties in rank and release, demands that fill a machine exactly or
overflow it by round-off, many tiny items, reservations ending before, between and after the
releases, several machines, short lists (scanned) and long ones (segment tree) — the pieces must be the same, in the same order, to the last bit.
Issue 17 item 3."""

from __future__ import annotations

import numpy as np
import pytest

from schedrelax.schedulers.list_packing import Reservations, preemptive_list_packing
from tests.schedulers import _reference_online as ref


def random_list(seed: int):
    rng = np.random.default_rng(seed)
    M = int(rng.integers(1, 5))
    n = int(rng.integers(1, 60)) if seed % 5 else int(rng.integers(60, 400))  # long lists: the tree
    caps = rng.choice([1.0, 2.0, 0.5, 7.0, 1e-3], size=M)
    machine = rng.integers(0, M, size=n)
    cap = caps[machine]
    style = seed % 4
    if style == 0:  # fractions of the capacity, some exactly full
        demand = cap * rng.choice([0.1, 0.2, 0.3, 0.5, 1.0, 1 / 3], size=n)
    elif style == 1:  # continuous
        demand = cap * rng.uniform(0.01, 1.0, size=n)
    elif style == 2:  # many tiny items and a few large
        demand = cap * np.where(rng.random(n) < 0.8, rng.uniform(1e-4, 0.05, size=n), rng.uniform(0.5, 1.0, size=n))
    else:  # just over the capacity by round-off (still fit within FIT_TOL)
        demand = cap * (1 + rng.choice([0.0, 1e-12, 5e-10], size=n)) * rng.choice([1.0, 0.5], size=n)
    duration = rng.choice([1.0, 2.0, 0.5, 3.0], size=n) * np.where(rng.random(n) < 0.5, 1.0, rng.uniform(0.1, 5, n))
    rank = rng.integers(0, max(1, n // 3), size=n) if seed % 3 == 0 else rng.permutation(n)
    release = np.where(rng.random(n) < 0.3, 0.0, rng.choice([0.0, 0.5, 1.0, 2.5], size=n) * rng.integers(0, 4, n))
    release = release - release.min()  # the lists of SynchPack-3 start at a release
    if seed % 2:
        R = int(rng.integers(1, 6))
        rm = rng.integers(0, M, size=R)
        # Reservations on a machine sum to at most its capacity.
        rd = caps[rm] * rng.uniform(0.05, 0.9, size=R) / R
        ru = rng.choice([0.25, 1.0, 1.7, 4.0, 9.0], size=R)
        res = Reservations(rm.astype(np.int64), rd, ru)
    else:
        res = None
    return machine, duration, demand, rank, release.astype(float), caps, res


def same(a, b) -> None:
    for f in ("item", "machine", "start", "end", "finish"):
        x, y = getattr(a, f), getattr(b, f)
        assert x.dtype == y.dtype and x.shape == y.shape, f
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), f


@pytest.mark.parametrize("seed", range(400))
def test_preemptive_list_packing_matches_the_full_rescan(seed):
    args = random_list(seed)
    same(preemptive_list_packing(*args), ref.preemptive_list_packing(*args))


@pytest.mark.parametrize("seed", range(0, 400, 2))
def test_the_segment_tree_path_matches_the_full_rescan_on_every_list(seed, monkeypatch):
    """Lists shorter than _TREE_FROM (256) are scanned; with the threshold at 2 every list above
    one item goes through the segment tree, so both paths meet the oracle on the same lists."""
    import schedrelax.schedulers.list_packing as lp

    monkeypatch.setattr(lp, "_TREE_FROM", 2)
    args = random_list(seed)
    same(preemptive_list_packing(*args), ref.preemptive_list_packing(*args))
