"""From pseudo-jobs back to jobs by McNaughton's wrap-around rule (paper 000,
FlowFlex, Nagarajan et al. 2019, §2.4).

Pseudo-job k of a chain (§2.2) is the interval I_k of its flow's pseudo-schedule, during which
the jobs S ⊆ [n] each ran on δ_i processors (r_k = Σ_{i∈S} δ_i). Its schedule σ is a list of
pieces J of constant σ(J) processors. The work of the pseudo-job is split over the pieces in
proportion to the work each does (|I_k(J)| = |J|·σ(J)/r_k), every job of S getting the same
fraction of its share; inside J, McNaughton's rule lays the jobs of S one after the other on
σ(J) processors, each processor filled for |J| before the next is started. Job i's slot on that
tape is δ_i·σ(J)/r_k <= δ_i processors long, its end points computed as exact integer quotients
and remainders (so no round-off can widen a slot or make two overlap), and it fills its slot up
to its share of the work. So a job never runs on more than δ_i processors at once; the jobs of one pseudo-job
are independent (they ran side by side in the pseudo-schedule), and every edge i1 -> i2 has i1's
last pseudo-job before i2's first in the chain: every precedence holds.

Two output forms: pooled pieces (machine −1, rate = the whole number of processors a job holds,
at most three per job and J), or, with ``processor_ids=True``, one piece per job and processor
(rate 1, machine = a processor 0..P−1), the processors of each J chosen by a greedy interval
colouring (Algorithm 1 never uses more than P at once, so P colours suffice).
"""

from __future__ import annotations

import heapq

import numpy as np

from schedrelax.schedulers.chains import Chains
from schedrelax.schedulers.greedy_deadline import PseudoJobSchedule
from schedrelax.schedules import POOLED, Schedule

__all__ = ["mcnaughton"]


def mcnaughton(chains: Chains, plan: PseudoJobSchedule, *, processor_ids: bool = False,
               meta: dict | None = None) -> Schedule:
    """Paper 000 §2.4: the schedule of the original jobs that *plan* (pseudo-jobs) describes.

    *plan* must be a unit-speed schedule (``plan.speed == 1``): at speed s every piece would carry
    s times the work, which a :class:`~schedrelax.schedules.Schedule` cannot express.
    """
    if plan.speed != 1.0:
        raise ValueError(f"McNaughton's conversion needs a unit-speed plan, got speed {plan.speed}")
    g = plan.piece_job
    counts = np.diff(chains.member_offset)[g]
    # One row per (piece J, member job i of its pseudo-job).
    row_piece = np.repeat(np.arange(len(g)), counts)
    first = chains.member_offset[g]
    within = np.arange(len(row_piece)) - np.repeat(np.cumsum(counts) - counts, counts)
    member = np.repeat(first, counts) + within
    job = chains.member_job[member]
    delta = chains.member_procs[member]
    # Job i's slot on the tape of J (σ(J) processors of length |J|) is its δ_i/r_k of the tape,
    # counted in whole processors times r_k so that the wrap-around points are exact integer
    # quotients and remainders: a slot spans at most δ_i·σ(J)/r_k <= δ_i processors, the slots
    # tile the tape exactly, and no round-off can make two of them overlap.
    prefix = np.zeros((len(g), int(counts.max(initial=0)) + 1), dtype=np.int64)
    prefix[row_piece, within + 1] = delta
    prefix = np.cumsum(prefix, axis=1)[row_piece, within]
    sigma = plan.piece_procs[row_piece]
    r = chains.procs[g][row_piece]
    # Job i fills the share work_i / (δ_i·w_k) <= 1 of its slot, w_k = s(k)/r_k being the
    # longest member's work/δ (see chains.flow_chains): its work over all of k's pieces is then
    # work_i · (pieces' area) / s(k) = work_i.
    need = chains.member_work / chains.member_procs
    longest = np.maximum.reduceat(need, chains.member_offset[:-1]) if len(need) else need
    fill = need[member] / longest[g[row_piece]]
    q0, a_num = np.divmod(prefix * sigma, r)
    end_units = prefix * sigma + fill * (delta * sigma)
    q1 = np.floor(end_units / r)
    q1 = np.where(q1 * r > end_units, q1 - 1, q1)
    b_num = end_units - q1 * r
    whole = fill == 1.0
    q1_exact, b_exact = np.divmod((prefix + delta) * sigma, r)
    q1 = np.where(whole, q1_exact, q1).astype(np.int64)
    b_num = np.where(whole, b_exact, b_num)
    L = (plan.piece_end - plan.piece_start)[row_piece]
    a = a_num / r * L
    b = b_num / r * L
    t0 = plan.piece_start[row_piece]
    t1 = plan.piece_end[row_piece]
    if processor_ids:
        return _identified(job, q0, a, q1, b, t0, t1, row_piece, plan, chains.processors, meta)
    return _pooled(job, q0, a, q1, b, t0, t1, meta)


def _at(t0: np.ndarray, offset: np.ndarray, t1: np.ndarray) -> np.ndarray:
    """The time *offset* into a piece [t0, t1): never past t1, whatever t0 + (t1 − t0) rounds to."""
    return np.minimum(t0 + offset, t1)


def _pooled(job, q0, a, q1, b, t0, t1, meta) -> Schedule:
    """Pooled pieces: over J = [t0, t1) job i holds (q1 − q0) + [τ < b] − [τ < a] processors
    (a, b its slot's wrap-around points, τ the offset into J)."""
    D = q1 - q0
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    mid = np.where(a < b, D + 1, D - 1)
    parts = [(t0, _at(t0, lo, t1), D), (_at(t0, lo, t1), _at(t0, hi, t1), mid), (_at(t0, hi, t1), t1, D)]
    cols = [[], [], [], []]
    for start, end, rate in parts:
        keep = (end > start) & (rate > 0)
        cols[0].append(job[keep])
        cols[1].append(start[keep])
        cols[2].append(end[keep])
        cols[3].append(rate[keep])
    jobs = np.concatenate(cols[0])
    return Schedule(jobs, np.zeros(len(jobs), dtype=np.int64), np.full(len(jobs), POOLED),
                    np.concatenate(cols[1]), np.concatenate(cols[2]), np.concatenate(cols[3]),
                    meta=dict(meta or {}))


def _identified(job, q0, a, q1, b, t0, t1, row_piece, plan: PseudoJobSchedule, P: int, meta) -> Schedule:
    """One piece per job and processor: tape processor q of piece J is processor ids_J[q]."""
    ids = _colour(plan, P)
    rows = []
    for k in range(len(job)):
        J, lo_q, hi_q = int(row_piece[k]), int(q0[k]), int(q1[k])
        begin, finish = float(t0[k]), float(t1[k])
        for q in range(lo_q, hi_q + 1):
            s = float(_at(begin, a[k], finish)) if q == lo_q else begin
            e = float(_at(begin, b[k], finish)) if q == hi_q else finish
            if e > s:
                rows.append((int(job[k]), 0, ids[J][q], s, e, 1))
    return Schedule.from_pieces(rows, meta=dict(meta or {}))


def _colour(plan: PseudoJobSchedule, P: int) -> list[list[int]]:
    """σ(J) distinct processors per piece J, none shared by two pieces that overlap in time: the
    greedy colouring of an interval graph, pieces by start time."""
    order = np.lexsort((plan.piece_end, plan.piece_start))
    # The free processors are the released ones (a heap) and every id from `fresh` to P - 1, never
    # listed: P may be 10^9 while a schedule uses a few. Released ids are all below `fresh`, so
    # the smallest free id is the heap's first, else `fresh` (the same choice as a heap of all P).
    free: list[int] = []
    fresh = 0
    busy: list[tuple[float, int, list[int]]] = []
    ids: list[list[int]] = [[] for _ in range(len(order))]
    for J in order.tolist():
        start = float(plan.piece_start[J])
        while busy and busy[0][0] <= start:
            for p in heapq.heappop(busy)[2]:
                heapq.heappush(free, p)
        need = int(plan.piece_procs[J])
        if need > len(free) + P - fresh:
            raise ValueError(f"pseudo-job pieces use more than P = {P} processors at time {start}")
        reused = min(need, len(free))
        take = [heapq.heappop(free) for _ in range(reused)] + list(range(fresh, fresh + need - reused))
        fresh += need - reused
        ids[J] = take
        heapq.heappush(busy, (float(plan.piece_end[J]), J, take))
    return ids
