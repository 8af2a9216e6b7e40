"""Algorithm 1 of paper 000 (FlowFlex, Nagarajan et al. 2019, §2.3.1): greedy scheduling of
chains of pseudo-jobs against deadlines.

Chains are taken in non-decreasing deadline order; each pseudo-job starts when its predecessor
in the chain completes and, at every instant from then on, takes min(P − σ(t), δ(k)) processors
— all that are left, up to its bound — until its size is done; σ, the processors in use, then
grows by what it took. Later chains thus fill the holes earlier ones left. Theorem 6: if some
schedule meets every deadline, every chain completes by 2·d_j; so C(τ^j) > 2·d_j proves that no
schedule meets the deadlines (the instance is *infeasible*), and at speed 2 the schedule meets
them.

Additions the paper does not have: a flow's release r_j delays its chain's first pseudo-job (the
bound C(τ^j) <= 2·d_j of Theorem 6 still holds: the busy time after r_j is at most the squashed
area of the first j chains, <= d_j, and the rest at most the critical path, <= d_j − r_j);
``speed`` runs every processor ``speed`` times faster (work rate = processors × speed) to build
the speed-augmented schedules of the bicriteria guarantees. Deadline ties are broken by
``tiebreak`` (smaller first), then by chain index.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

from schedrelax.schedulers.chains import Chains

__all__ = ["PseudoJobSchedule", "greedy_deadline"]

_TIE = 1e-12
"""A pseudo-job that would end inside a free segment less than this fraction of its own running
time before the segment's end takes the whole segment instead (no sliver segments from
rounding). Relative to the pseudo-job, not to the clock: the extra area it is given must stay
round-off of its own size, however small it is and however late it runs."""

_TEST_SLACK = 1e-9
"""C(τ^j) must exceed 2·d_j by more than this fraction of |d_j| for the infeasibility test to
fire: the test certifies infeasibility, so rounding must not make it fire. Relative to the
deadline alone (round-off is relative to the times compared): an absolute floor would let a
chain due at 1e-9 finish at 3e-9 and pass."""


@dataclass(frozen=True, eq=False)
class PseudoJobSchedule:
    """Algorithm 1's output: the malleable schedule τ of every pseudo-job, as pieces.

    Piece p runs pseudo-job ``piece_job[p]`` on ``piece_procs[p]`` whole processors over
    ``[piece_start[p], piece_end[p])``; the pieces of a pseudo-job are consecutive and in time
    order (``piece_offset`` indexes them by pseudo-job). ``completion[j]`` is C(τ^j) of chain j,
    ``order`` the order the chains were scheduled in, ``infeasible`` the chains with
    C(τ^j) > 2·d_j (Theorem 6's test), ``speed`` the processor speed the schedule assumes.
    """

    piece_job: np.ndarray
    piece_start: np.ndarray
    piece_end: np.ndarray
    piece_procs: np.ndarray
    piece_offset: np.ndarray
    completion: np.ndarray
    deadline: np.ndarray
    order: np.ndarray
    infeasible: np.ndarray
    speed: float

    @property
    def feasible(self) -> bool:
        """Theorem 6's test passed: no chain completes after twice its deadline."""
        return not len(self.infeasible)


def greedy_deadline(chains: Chains, deadlines: np.ndarray, *, speed: float = 1.0,
                    tiebreak: np.ndarray | None = None) -> PseudoJobSchedule:
    """Algorithm 1 of paper 000 §2.3.1 (Theorem 6): chains by deadline, pseudo-jobs greedily.

    ``deadlines`` may hold ``inf`` (no deadline: the chain goes last) and ``-inf`` (no completion
    time is good enough: the chain goes first and fails the test). The utilisation σ is kept as
    the sorted list of its *free* segments (times where σ < P), so a pseudo-job walks only the
    holes left by earlier chains, never the busy stretches between them.
    """
    if not speed > 0:
        raise ValueError(f"speed must be > 0, got {speed!r}")
    P = chains.processors
    m = chains.n_chains
    deadlines = np.asarray(deadlines, dtype=float)
    if deadlines.shape != (m,):
        raise ValueError(f"deadlines must have one entry per chain ({m}), got shape {deadlines.shape}")
    if np.isnan(deadlines).any():
        raise ValueError("deadlines must not be NaN")
    keys = [np.arange(m)]
    if tiebreak is not None:
        keys.append(np.asarray(tiebreak, dtype=float))
    keys.append(deadlines)
    order = np.lexsort(keys)

    # Free segments [fs, fe) with fp free processors, sorted and disjoint; the last one is
    # [end of all work, inf) with P free.
    fs, fe, fp = [0.0], [np.inf], [P]
    offset, size, procs = chains.offset.tolist(), chains.size.tolist(), chains.procs.tolist()
    release = chains.release.tolist()
    out_job, out_start, out_end, out_procs = [], [], [], []
    completion = np.empty(m)
    for j in order.tolist():
        t = release[j]
        for g in range(offset[j], offset[j + 1]):
            area = size[g] / speed
            cap = procs[g]
            i = bisect_right(fe, t)
            if fs[i] < t:  # the segment straddles t: split it there
                fs.insert(i, fs[i])
                fe.insert(i, t)
                fp.insert(i, fp[i])
                i += 1
                fs[i] = t
            while True:
                a, b, free = fs[i], fe[i], fp[i]
                use = cap if cap < free else free
                need = area / use
                if b == np.inf or a + need < b - _TIE * need:
                    end = a + need
                    # The pseudo-job ends inside the segment: split it.
                    fs.insert(i, a)
                    fe.insert(i, end)
                    fp.insert(i, free - use)
                    fs[i + 1] = end
                    if fp[i] == 0:
                        del fs[i], fe[i], fp[i]
                    _emit(out_job, out_start, out_end, out_procs, g, a, end, use)
                    t = end
                    break
                area -= use * (b - a)
                _emit(out_job, out_start, out_end, out_procs, g, a, b, use)
                t = b
                if free == use:
                    del fs[i], fe[i], fp[i]
                else:
                    fp[i] = free - use
                    i += 1
                if area <= _TIE * size[g] / speed:
                    break
        completion[j] = t
    late = completion > with_relative_slack(2.0 * deadlines, _TEST_SLACK)
    # Pieces were made chain by chain in deadline order; regroup them by pseudo-job.
    job = np.asarray(out_job, dtype=np.int64)
    by_job = np.argsort(job, kind="stable")
    return PseudoJobSchedule(
        piece_job=job[by_job],
        piece_start=np.asarray(out_start, dtype=float)[by_job],
        piece_end=np.asarray(out_end, dtype=float)[by_job],
        piece_procs=np.asarray(out_procs, dtype=np.int64)[by_job],
        piece_offset=np.searchsorted(job[by_job], np.arange(chains.n_pseudo_jobs + 1)),
        completion=completion,
        deadline=deadlines,
        order=order,
        infeasible=np.flatnonzero(late),
        speed=float(speed),
    )


def _emit(job: list, start: list, end: list, procs: list, g: int, a: float, b: float, use: int) -> None:
    """Append a piece, extending the previous one when it is the same pseudo-job, contiguous and on
    as many processors."""
    if job and job[-1] == g and end[-1] == a and procs[-1] == use:
        end[-1] = b
    else:
        job.append(g)
        start.append(a)
        end.append(b)
        procs.append(use)


def with_relative_slack(bound: np.ndarray, slack: float) -> np.ndarray:
    """bound + slack·|bound| where finite; ±inf as they are (inf − inf would be NaN, and a chain
    due at −inf must fail the test)."""
    out = np.array(bound, dtype=float)
    finite = np.isfinite(out)
    out[finite] += slack * np.abs(out[finite])
    return out
