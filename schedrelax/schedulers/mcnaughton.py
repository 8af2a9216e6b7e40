"""From pseudo-jobs back to jobs by McNaughton's wrap-around rule (paper 000,
``papers/000_5822dddcf782b397.txt``, §2.4).

Pseudo-job k of a chain (§2.2) is the interval I_k of its flow's pseudo-schedule, during which
the jobs S ⊆ [n] each ran on δ_i processors (r_k = Σ_{i∈S} δ_i). Its schedule σ is a list of
pieces J of constant σ(J) processors. The work of the pseudo-job is split over the pieces in
proportion to the work each does (|I_k(J)| = |J|·σ(J)/r_k), every job of S getting the same
fraction of its share; inside J, McNaughton's rule lays the jobs of S one after the other on
σ(J) processors, each processor filled for |J| before the next is started. A job's portion is at
most δ_i·|J|, so it never runs on more than δ_i processors at once; the jobs of one pseudo-job
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

_SNAP = 1e-9
"""A wrap-around point within this fraction of |J| of a processor boundary is put on it, so that
rounding never leaves a sliver in which a job would hold one processor too many."""


def mcnaughton(chains: Chains, plan: PseudoJobSchedule, *, processor_ids: bool = False,
               meta: dict | None = None) -> Schedule:
    """Paper 000 §2.4: the schedule of the original jobs that *plan* (pseudo-jobs) describes.

    *plan* must be a unit-speed schedule (``plan.speed == 1``): at speed s every piece would carry
    s times the work, which a :class:`~schedrelax.schedules.Schedule` cannot express.
    """
    if plan.speed != 1.0:
        raise ValueError(f"McNaughton's conversion needs a unit-speed plan, got speed {plan.speed}")
    g = plan.piece_job
    L = plan.piece_end - plan.piece_start
    # Fraction of its pseudo-job's work each piece J does.
    frac = plan.piece_procs * L / chains.size[g]
    counts = np.diff(chains.member_offset)[g]
    # One row per (piece J, member job i of its pseudo-job).
    row_piece = np.repeat(np.arange(len(g)), counts)
    first = chains.member_offset[g]
    within = np.arange(len(row_piece)) - np.repeat(np.cumsum(counts) - counts, counts)
    member = np.repeat(first, counts) + within
    job = chains.member_job[member]
    # Tape length (processor-time) of job i in J; the tape of J has σ(J) processors of length |J|.
    x = chains.member_work[member] * frac[row_piece]
    # Cumulative tape positions inside each piece (a padded row per piece, so that sums never
    # run across pieces and lose precision).
    tape = np.zeros((len(g), int(counts.max(initial=0)) + 1))
    tape[row_piece, within + 1] = x
    tape = np.cumsum(tape, axis=1)
    A = tape[row_piece, within]
    E = tape[row_piece, within + 1]
    Lr = L[row_piece]
    t0 = plan.piece_start[row_piece]
    if processor_ids:
        return _identified(job, A, E, Lr, t0, row_piece, plan, chains.processors, meta)
    return _pooled(job, A, E, Lr, t0, meta)


def _wrap(pos: np.ndarray, L: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Processor index and offset of tape positions, snapped onto processor boundaries."""
    q = np.floor(pos / L)
    off = pos - q * L
    up = off > L * (1 - _SNAP)
    q = np.where(up, q + 1, q)
    off = np.where(up | (off < L * _SNAP), 0.0, off)
    return q, off


def _wrap_both(A: np.ndarray, E: np.ndarray, L: np.ndarray):
    """Both ends of each job's tape; wrap-around points within |J|·1e-9 of each other are made
    equal (the job's tape is then a whole number of processors long), so a rounding sliver never
    puts a job on one processor more than its maximum."""
    q0, a = _wrap(A, L)
    q1, b = _wrap(E, L)
    b = np.where(np.abs(b - a) < L * _SNAP, a, b)
    return q0, a, q1, b


def _pooled(job, A, E, L, t0, meta) -> Schedule:
    """Pooled pieces: over [0, L) job i holds (q1 − q0) + [τ < b] − [τ < a] processors, where
    A = q0·L + a and E = q1·L + b are its tape start and end (a, b the wrap-around points)."""
    q0, a, q1, b = _wrap_both(A, E, L)
    D = q1 - q0
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    mid = np.where(a < b, D + 1, D - 1)
    parts = [(np.zeros_like(lo), lo, D), (lo, hi, mid), (hi, L, D)]
    cols = [[], [], [], []]
    for s, e, r in parts:
        start, end = t0 + s, t0 + e
        keep = (end > start) & (r > 0)
        cols[0].append(job[keep])
        cols[1].append(start[keep])
        cols[2].append(end[keep])
        cols[3].append(r[keep])
    jobs = np.concatenate(cols[0])
    return Schedule(jobs, np.zeros(len(jobs), dtype=np.int64), np.full(len(jobs), POOLED),
                    np.concatenate(cols[1]), np.concatenate(cols[2]), np.concatenate(cols[3]),
                    meta=dict(meta or {}))


def _identified(job, A, E, L, t0, row_piece, plan: PseudoJobSchedule, P: int, meta) -> Schedule:
    """One piece per job and processor: tape processor q of piece J is processor ids_J[q]."""
    ids = _colour(plan, P)
    q0, a, q1, b = _wrap_both(A, E, L)
    rows = []
    for r in range(len(job)):
        J, lo_q, hi_q = int(row_piece[r]), int(q0[r]), int(q1[r])
        Lr, start = float(L[r]), float(t0[r])
        for q in range(lo_q, hi_q + 1):
            s = start + (a[r] if q == lo_q else 0.0)
            e = start + (b[r] if q == hi_q else Lr)
            if e > s:
                rows.append((int(job[r]), 0, ids[J][q], s, e, 1))
    return Schedule.from_pieces(rows, meta=dict(meta or {}))


def _colour(plan: PseudoJobSchedule, P: int) -> list[list[int]]:
    """σ(J) distinct processors per piece J, none shared by two pieces that overlap in time: the
    greedy colouring of an interval graph, pieces by start time."""
    order = np.lexsort((plan.piece_end, plan.piece_start))
    free = list(range(P))
    heapq.heapify(free)
    busy: list[tuple[float, int, list[int]]] = []
    ids: list[list[int]] = [[] for _ in range(len(order))]
    for J in order.tolist():
        start = float(plan.piece_start[J])
        while busy and busy[0][0] <= start:
            for p in heapq.heappop(busy)[2]:
                heapq.heappush(free, p)
        need = int(plan.piece_procs[J])
        if need > len(free):
            raise ValueError(f"pseudo-job pieces use more than P = {P} processors at time {start}")
        take = [heapq.heappop(free) for _ in range(need)]
        ids[J] = take
        heapq.heappush(busy, (float(plan.piece_end[J]), J, take))
    return ids
