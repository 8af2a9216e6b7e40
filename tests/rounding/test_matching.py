"""Tests of schedrelax.rounding.matching: the graph of substep 3.1 on the paper's Fig. 3, its
fractional-matching invariants, and Lemma 6's integral matching on random inputs."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedrelax.rounding.matching import cover_matching, interval_copy_graph, matched_pair


def edges(graph):
    return {(int(t), int(graph.copy_interval[c]), int(graph.copy_rank[c])): round(float(w), 9)
            for t, c, w in zip(graph.task, graph.copy, graph.weight)}


def test_figure_3():
    # One machine, intervals l = 0, l' = 1, l'' = 2; tasks in non-increasing volume A > B > C > D.
    # A puts 1.0 in l (copy 1 of l full); B 0.7 in l and 0.3 in l'; C 0.6 in l' and 0.4 in l''.
    # Reaching D (0.4 in l, 0.3 in l', 0.3 in l''): copy 2 of l holds 0.7 and copy 1 of l' holds
    # 0.9, so — as in the paper's Fig. 3 — D gets 0.3 and 0.1 on copies 2 and 3 of l and 0.1 and
    # 0.2 on copies 1 and 2 of l'. (Copies are numbered from 0 below.)
    zbar = np.array([[1.0, 0.0, 0.0], [0.7, 0.3, 0.0], [0.0, 0.6, 0.4], [0.4, 0.3, 0.3]])
    volume = np.array([4.0, 3.0, 2.0, 1.0])
    g = interval_copy_graph(zbar, np.arange(4), np.zeros(4, dtype=int), volume, 4)
    e = edges(g)
    assert {k: v for k, v in e.items() if k[0] == 3} == {(3, 0, 1): 0.3, (3, 0, 2): 0.1, (3, 1, 0): 0.1,
                                                        (3, 1, 1): 0.2, (3, 2, 0): 0.3}
    # ⌈2.1⌉ = 3 copies of l, ⌈1.2⌉ = 2 of l', ⌈0.7⌉ = 1 of l''.
    assert np.bincount(g.copy_interval).tolist() == [3, 2, 1]
    match = cover_matching(g)
    assert len(set(match.tolist())) == 4
    for t, c in enumerate(match):
        assert (t, int(g.copy_interval[c]), int(g.copy_rank[c])) in e


def test_volume_order_decides_who_shares_a_copy():
    # Same fractions, volumes reversed: D is poured first and takes copy 1 of l with 0.4.
    zbar = np.array([[1.0, 0.0, 0.0], [0.7, 0.3, 0.0], [0.0, 0.6, 0.4], [0.4, 0.3, 0.3]])
    g = interval_copy_graph(zbar, np.arange(4), np.zeros(4, dtype=int), np.array([1.0, 2.0, 3.0, 4.0]), 4)
    assert edges(g)[3, 0, 0] == 0.4


@st.composite
def fractional(draw):
    """Random z̄: tasks × (machine, interval) rows summing to one per task."""
    n_tasks = draw(st.integers(1, 8))
    M = draw(st.integers(1, 3))
    L = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 31)))
    pair_task = np.repeat(np.arange(n_tasks), M)
    pair_machine = np.tile(np.arange(M), n_tasks)
    z = rng.random((n_tasks * M, L)) * (rng.random((n_tasks * M, L)) < 0.5)
    z[np.arange(n_tasks) * M, rng.integers(0, L, n_tasks)] += 0.05  # every task has something
    z /= np.bincount(pair_task, weights=z.sum(axis=1))[pair_task][:, None]
    volume = rng.integers(1, 4, n_tasks * M).astype(float)  # ties in volume happen
    return z, pair_task, pair_machine, volume, n_tasks


@settings(max_examples=200, deadline=None)
@given(fractional())
def test_every_task_is_matched_on_a_nonzero_edge(data):
    z, pair_task, pair_machine, volume, n_tasks = data
    g = interval_copy_graph(z, pair_task, pair_machine, volume, n_tasks)
    # A fractional matching: each task's edges weigh 1, each copy's at most 1, and the edges of
    # a row carry exactly its z̄ on its machine-interval.
    assert np.bincount(g.task, weights=g.weight, minlength=n_tasks) == pytest.approx(1.0)
    assert (np.bincount(g.copy, weights=g.weight, minlength=g.n_copies) <= 1 + 1e-9).all()
    per_row = np.zeros_like(z)
    np.add.at(per_row, (g.edge_pair, g.copy_interval[g.copy]), g.weight)
    assert per_row == pytest.approx(z)
    assert (g.copy_machine[g.copy] == pair_machine[g.edge_pair]).all()
    match = cover_matching(g)
    assert len(np.unique(match)) == n_tasks  # one copy per task, each copy used once
    pair = matched_pair(g, match)
    assert (pair_task[pair] == np.arange(n_tasks)).all()
    assert (z[pair, g.copy_interval[match]] > 0).all()  # only on nonzero edges


def test_a_graph_without_a_cover_is_an_error():
    # Task 1 has no fraction anywhere (fractions that do not sum to one are no LP2 solution).
    z = np.array([[1.0], [0.0]])
    g = interval_copy_graph(z, np.array([0, 1]), np.array([0, 0]), np.ones(2), 2)
    with pytest.raises(RuntimeError, match="unmatched"):
        cover_matching(g)
