"""Tasks to copies of machine intervals, paper 003 §4.2 substep 3.1 (graph G) and Lemma 6 (matching).

For each machine i the tasks with a positive stretched fraction z̄ on i are taken in non-increasing
order of their volume v^i = a·p^i (eq. 16, ties by task index). Interval l of machine i gets
⌈Σ_k z̄[k, i, l]⌉ copies; going down the order, a task's z̄[k, i, l] is poured into the copies of l
one after the other, each edge taking min(R, 1 - W) where W is what the copy holds already. Every
task's edges weigh 1 in total and every copy's at most 1: a fractional matching covering all tasks,
so (bipartite matching polytope) an integral one exists on the same edges, and Hopcroft-Karp finds
it (scipy's ``maximum_bipartite_matching``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import maximum_bipartite_matching

ZERO = 1e-12
"""Fractions and edge weights at or below this are solver round-off, not part of the graph."""
INTEGRAL_TOL = 1e-9
"""A copy total within this of a whole number is that number (⌈2.0000000001⌉ is 2 copies)."""


@dataclass(frozen=True)
class CopyGraph:
    """The weighted bipartite graph G = (U ∪ V, E) of substep 3.1.

    Edge e joins task ``task[e]`` to copy ``copy[e]`` with weight ``weight[e]``; copy c is copy
    number ``copy_rank[c]`` of interval ``copy_interval[c]`` of machine ``copy_machine[c]``, and
    ``edge_pair[e]`` is the LP's (task, machine) row the edge came from.
    """

    task: np.ndarray
    copy: np.ndarray
    weight: np.ndarray
    edge_pair: np.ndarray
    copy_machine: np.ndarray
    copy_interval: np.ndarray
    copy_rank: np.ndarray
    n_tasks: int

    @property
    def n_copies(self) -> int:
        return len(self.copy_machine)


def interval_copy_graph(zbar: np.ndarray, pair_task: np.ndarray, pair_machine: np.ndarray, volume: np.ndarray,
                        n_tasks: int) -> CopyGraph:
    """Build G from the stretched fractions ``zbar[q, l]`` of placement rows q = (pair_task[q],
    pair_machine[q]) with volumes ``volume[q]`` (paper 003 §4.2 substep 3.1, i)."""
    q, l = np.nonzero(zbar > ZERO)
    w = zbar[q, l]
    mach, tsk = pair_machine[q], pair_task[q]
    # Within each machine-interval, tasks in non-increasing volume (eq. 16), ties by task index.
    order = np.lexsort((tsk, -volume[q], l, mach))
    q, l, w, mach, tsk = q[order], l[order], w[order], mach[order], tsk[order]
    n_l = zbar.shape[1]
    group = mach * n_l + l
    new = np.r_[True, group[1:] != group[:-1]]
    gid = np.cumsum(new) - 1
    cum = np.cumsum(w)
    head = np.maximum.accumulate(np.where(new, np.arange(len(w)), 0))
    offset = cum[head] - w[head]  # everything poured into earlier machine-intervals
    hi = cum - offset
    lo = hi - w
    group_total = np.zeros(int(gid.max()) + 1 if len(gid) else 0)
    np.maximum.at(group_total, gid, hi)
    n_copies = np.ceil(group_total - INTEGRAL_TOL).astype(np.int64)
    copy_offset = np.r_[0, np.cumsum(n_copies)]
    # Task row k covers [lo, hi) of its machine-interval; copy c covers [c, c + 1).
    first = np.floor(lo + INTEGRAL_TOL).astype(np.int64)
    last = np.minimum(np.ceil(hi - INTEGRAL_TOL).astype(np.int64) - 1, n_copies[gid] - 1)
    count = np.maximum(last - first + 1, 0)
    k = np.repeat(np.arange(len(q)), count)
    c = first[k] + np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    weight = np.minimum(hi[k], c + 1.0) - np.maximum(lo[k], c)
    keep = weight > ZERO
    k, c, weight = k[keep], c[keep], weight[keep]
    group_of_copy = np.repeat(np.arange(len(n_copies)), n_copies)
    first_of_group = np.flatnonzero(new)
    return CopyGraph(
        task=tsk[k], copy=copy_offset[gid[k]] + c, weight=weight, edge_pair=q[k],
        copy_machine=mach[first_of_group][group_of_copy], copy_interval=l[first_of_group][group_of_copy],
        copy_rank=np.arange(len(group_of_copy)) - copy_offset[group_of_copy], n_tasks=n_tasks)


def cover_matching(graph: CopyGraph) -> np.ndarray:
    """An integral matching of every task to one copy on G's edges (paper 003 Lemma 6): the copy
    of each task. Raises RuntimeError if some task stays unmatched (then G was not built from a
    solution of LP2, e.g. fractions that do not sum to one)."""
    A = sp.csr_array((np.ones(len(graph.task)), (graph.task, graph.copy)), shape=(graph.n_tasks, graph.n_copies))
    # SciPy 1.13 and 1.14 accept only 32-bit index arrays here ("Buffer dtype mismatch"; 1.17 converts).
    A.indices, A.indptr = A.indices.astype(np.int32), A.indptr.astype(np.int32)
    match = maximum_bipartite_matching(A, perm_type="column")
    unmatched = np.flatnonzero(match < 0)
    if len(unmatched):
        raise RuntimeError(f"no matching covers every task: {len(unmatched)} unmatched (first: task {unmatched[0]}); "
                           "the fractions do not form a fractional matching")
    return match


def matched_pair(graph: CopyGraph, match: np.ndarray) -> np.ndarray:
    """For each task, the LP row (task, machine) of the edge the matching uses."""
    key = graph.task.astype(np.int64) * graph.n_copies + graph.copy
    want = np.arange(graph.n_tasks) * graph.n_copies + match
    order = np.argsort(key)
    return graph.edge_pair[order[np.searchsorted(key[order], want)]]
