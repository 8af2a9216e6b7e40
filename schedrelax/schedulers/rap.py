"""Separable resource allocation problems (paper 002, Wolf et al. 2010, §3.2).

Minimise ``Σ_j F_j(s_j)`` (minisum) or ``max_j F_j(s_j)`` (minimax) over whole numbers s_j with
``lower_j <= s_j <= upper_j`` and ``Σ_j s_j <= S``. FLEX's generic scheme solves the moldable
version of its scheduling problem this way (F_j(s) is job j's penalty when it runs on s slots from
the start); the completion order of the solution is the priority order it feeds to MPS.

* :func:`rap_fox` — Fox's marginal analysis (1966, the paper's [15]): start from the lower
  bounds and repeatedly give one slot to the job whose F drops most. Exact when every F_j is
  convex (non-decreasing first differences). O(S log J) with a heap.
* :func:`rap_dp` — the dynamic program for arbitrary summands (number of tardy jobs, SLA steps):
  O(J S²) in the worst case; only the allocations where F_j reaches a new minimum are tried
  (any other allocation is beaten by a smaller one at no extra cost), so step functions with k
  steps cost O(J S k).
* :func:`rap_minimax` — the minimax RAP through the paper's transform G_j(s) = Σ_{i<s} F_j(i),
  a minisum RAP with convex summands solved by Fox's greedy (each step gives a slot to the job
  whose current F is largest).

``F`` is a callable ``F(jobs, slots) -> values`` evaluated element-wise on two equal-length integer
arrays, so that one call can score many (job, slots) pairs.

Where the paper is loose:

* §3.2 writes G_j(s) = Σ_{i≤s} F_j(i) and calls it convex "because F_j is non-decreasing". Our F_j
  (a penalty of the completion time W_j / s) is non-*increasing* in s, so the convex function
  whose Fox greedy solves the minimax problem is G_j(s) = −Σ_{i=lower_j}^{s-1} F_j(i) (first
  differences −F_j(s), non-decreasing); the telescoping argument is then the paper's. Since F
  may be negative (lateness), the greedy does not stop at a zero marginal: it spends slots while
  any job can take one, which never raises a maximum of non-increasing functions.
* The paper names Frederickson–Johnson as its fast method; Fox's greedy with a heap is exact on
  the same convex instances and fast enough here (see ``benchmarks/test_flex_speed.py``).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["RAPSolution", "SlotCost", "rap_dp", "rap_fox", "rap_minimax", "rap_value"]

SlotCost = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``F(jobs, slots) -> values``, element-wise over two equal-length integer arrays."""


@dataclass(frozen=True, eq=False)
class RAPSolution:
    """An allocation ``slots`` (one whole number per job), its ``value`` (the sum or the maximum
    of F_j(s_j), per ``objective``) and the ``method`` that found it."""

    slots: np.ndarray
    value: float
    objective: str
    method: str


def _bounds(lower: Sequence[int], upper: Sequence[int], capacity: int) -> tuple[np.ndarray, np.ndarray, int]:
    lo = np.asarray(lower, dtype=np.int64)
    hi = np.asarray(upper, dtype=np.int64)
    if lo.shape != hi.shape or lo.ndim != 1:
        raise ValueError(f"lower and upper must be two vectors of equal length, got shapes {lo.shape} and {hi.shape}")
    if (lo < 0).any() or (hi < lo).any():
        j = int(np.flatnonzero((lo < 0) | (hi < lo))[0])
        raise ValueError(f"job {j}: need 0 <= lower <= upper, got lower {lo[j]}, upper {hi[j]}")
    if int(lo.sum()) > capacity:
        raise ValueError(f"the lower bounds sum to {int(lo.sum())}, more than the capacity {capacity}: infeasible")
    return lo, hi, int(capacity)


def rap_value(F: SlotCost, slots: np.ndarray, objective: str = "minisum") -> float:
    """Σ F_j(s_j) (minisum) or max_j F_j(s_j) (minimax)."""
    slots = np.asarray(slots, dtype=np.int64)
    values = F(np.arange(len(slots)), slots)
    return float(values.sum() if objective == "minisum" else values.max())


TIE_ULPS = 16
"""Marginals within this many units in the last place of the largest |F| evaluated tie (see
:func:`_greedy`): a marginal is a difference of two values of F, so two that are equal in exact
arithmetic differ by a few ulps of F's magnitude, more in one unit or origin of time than in
another."""


def _tie(F: SlotCost, lo: np.ndarray, hi: np.ndarray) -> float:
    """The tie width for the greedy on *F*: :data:`TIE_ULPS` ulps of the largest |F_j| at the
    ends of the jobs' ranges (F is monotone in s for FLEX's penalties)."""
    j = np.arange(len(lo))
    values = np.abs(F(np.r_[j, j], np.r_[lo, hi]))
    finite = values[np.isfinite(values)]
    return float(TIE_ULPS * np.spacing(finite.max())) if len(finite) else 0.0


def _greedy(marginal: SlotCost, lo: np.ndarray, hi: np.ndarray, capacity: int, stop_at_zero: bool,
            tie: float = 0.0) -> np.ndarray:
    """Marginal analysis: give one slot at a time to the job with the smallest marginal (ties to
    the lower index); stop when the capacity is spent, every job is at its upper bound, or (if
    ``stop_at_zero``) no marginal is negative.

    Marginals within *tie* of the smallest tie: the lowest index among them takes the slot. Two
    marginals equal in exact arithmetic (two flows of one weight taking their first slot) come out
    of the floating point a few ulps apart, in an order that changes with the unit and the origin
    of time (flex-rap gave another order at 1e-8 s and at t = 1000: the unit-invariance fuzz).

    Marginals are evaluated ahead in blocks per job (one vectorised call for the first block of
    every job, a block twice as long at each refill), so the loop is heap operations on floats.
    """
    s = lo.copy()
    left = capacity - int(lo.sum())
    open_jobs = np.flatnonzero(s < hi)
    if left <= 0 or not len(open_jobs):
        return s
    first = np.minimum(_BLOCK, hi[open_jobs] - s[open_jobs])
    js = np.repeat(open_jobs, first)
    steps = np.arange(len(js)) - np.repeat(np.cumsum(first) - first, first)
    values = marginal(js, s[js] + steps).tolist()
    ahead: dict[int, list[float]] = {}
    size: dict[int, int] = {}
    pos = 0
    for j, k in zip(open_jobs.tolist(), first.tolist()):
        ahead[j] = values[pos:pos + k][::-1]  # reversed: the next marginal is popped from the end
        size[j] = k
        pos += k
    heap = [(ahead[j].pop(), j) for j in open_jobs.tolist()]
    heapq.heapify(heap)
    while left and heap:
        value, j = heap[0]
        if stop_at_zero and value >= 0:
            break
        taken = False  # True when j's entry is already off the heap
        if tie > 0 and len(heap) > 1 and min(heap[1:3])[0] <= value + tie:  # heap[1:3]: the next smallest
            group = [heapq.heappop(heap)]
            while heap and heap[0][0] <= value + tie and not (stop_at_zero and heap[0][0] >= 0):
                group.append(heapq.heappop(heap))
            chosen = min(group, key=lambda entry: entry[1])
            for entry in group:
                if entry is not chosen:
                    heapq.heappush(heap, entry)
            j, taken = chosen[1], True
        s[j] += 1
        left -= 1
        if s[j] < hi[j]:
            if not ahead[j]:
                size[j] = k = min(2 * size[j], int(hi[j] - s[j]))
                ahead[j] = marginal(np.full(k, j), s[j] + np.arange(k)).tolist()[::-1]
            if taken:
                heapq.heappush(heap, (ahead[j].pop(), j))
            else:
                heapq.heapreplace(heap, (ahead[j].pop(), j))
        elif not taken:
            heapq.heappop(heap)
    return s


_BLOCK = 8
"""Marginals evaluated ahead per job at first (see :func:`_greedy`)."""


def rap_fox(F: SlotCost, lower: Sequence[int], upper: Sequence[int], capacity: int) -> RAPSolution:
    """Minisum RAP with convex summands by Fox's marginal analysis (paper 002 §3.2, ref. [15]).

    Exact when each F_j has non-decreasing first differences on [lower_j, upper_j]; on other
    functions it is a heuristic (use :func:`rap_dp`). Slots are given only while they lower the
    sum, so fewer than ``capacity`` may be used.
    """
    lo, hi, S = _bounds(lower, upper, capacity)

    def marginal(j: np.ndarray, s: np.ndarray) -> np.ndarray:
        both = F(np.r_[j, j], np.r_[s + 1, s])
        return both[:len(j)] - both[len(j):]

    s = _greedy(marginal, lo, hi, S, stop_at_zero=True, tie=_tie(F, lo, hi))
    return RAPSolution(s, rap_value(F, s), "minisum", "fox")


def rap_minimax(F: SlotCost, lower: Sequence[int], upper: Sequence[int], capacity: int) -> RAPSolution:
    """Minimax RAP of non-increasing F_j through the G_j transform (paper 002 §3.2, "Minimax").

    Fox's greedy on G_j(s) = −Σ_{i=lower_j}^{s-1} F_j(i), whose marginal at s is −F_j(s): each step
    gives a slot to the job with the largest current F_j(s_j). Exact for non-increasing F_j (see
    the module docstring for the sign of the transform).
    """
    lo, hi, S = _bounds(lower, upper, capacity)

    def marginal(j: np.ndarray, s: np.ndarray) -> np.ndarray:
        return -F(j, s)

    s = _greedy(marginal, lo, hi, S, stop_at_zero=False, tie=_tie(F, lo, hi))
    return RAPSolution(s, rap_value(F, s, "minimax"), "minimax", "fox-minimax")


def rap_dp(F: SlotCost, lower: Sequence[int], upper: Sequence[int], capacity: int,
           objective: str = "minisum", candidates: Sequence[np.ndarray | None] | None = None) -> RAPSolution:
    """Exact RAP for arbitrary summands by dynamic programming over the capacity used (paper 002
    §3.2: "a simple dynamic programming (DP) algorithm ... O(J S²)").

    ``best_j[c]`` is the least Σ (or max, for ``objective="minimax"``) of F_1..F_j using exactly c
    slots. Only each job's *record* allocations — where F_j falls below every value at fewer slots
    — are tried: any other allocation is dominated by a smaller one. ``candidates[j]`` (None: all
    of [lower_j, upper_j]) lists the allocations to look for records among; it must contain every
    record (e.g. the thresholds of a step function), and saves evaluating F everywhere. Ties go to
    the fewest slots and then, job by job from the last, to the smallest allocation.
    """
    if objective not in ("minisum", "minimax"):
        raise ValueError(f"objective must be 'minisum' or 'minimax', got {objective!r}")
    lo, hi, S = _bounds(lower, upper, capacity)
    combine = np.add if objective == "minisum" else np.maximum
    best = np.full(S + 1, np.inf)
    best[0] = 0.0 if objective == "minisum" else -np.inf
    choices: list[tuple[np.ndarray, np.ndarray]] = []
    for j in range(len(lo)):
        top = min(int(hi[j]), S)
        given = None if candidates is None else candidates[j]
        if given is None:
            s_range = np.arange(lo[j], top + 1)
        else:
            given = np.asarray(given, dtype=np.int64)
            s_range = np.unique(np.r_[lo[j], given[(given >= lo[j]) & (given <= top)]])
        vals = F(np.full(len(s_range), j), s_range)
        record = np.r_[True, vals[1:] < np.minimum.accumulate(vals)[:-1]]
        cand, cval = s_range[record], vals[record]
        new = np.full(S + 1, np.inf)
        pick = np.zeros(S + 1, dtype=np.min_scalar_type(max(len(cand) - 1, 0)))
        for k, (sk, vk) in enumerate(zip(cand.tolist(), cval.tolist())):
            trial = np.full(S + 1, np.inf)
            trial[sk:] = combine(best[:S + 1 - sk], vk)
            better = trial < new
            new[better] = trial[better]
            pick[better] = k
        best = new
        choices.append((cand, pick))
    c = int(np.argmin(best))
    s = np.zeros(len(lo), dtype=np.int64)
    for j in range(len(lo) - 1, -1, -1):
        cand, pick = choices[j]
        s[j] = cand[pick[c]]
        c -= int(s[j])
    return RAPSolution(s, rap_value(F, s, objective), objective, "dp")
