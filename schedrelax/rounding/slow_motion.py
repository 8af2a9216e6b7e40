"""Slow-Motion (Schulz and Skutella 1997) as paper 003 uses it: §3.2 Step 3 and §4.2 Step 2, eq. (15).

A stretch parameter λ ∈ (0, 1] is drawn with density f(λ) = 2λ; a schedule (SynchPack-1) or an
interval LP solution (SynchPack-2) is stretched by 1/λ, and what is processed beyond each unit's
total is dropped (the machine is left idle). The *unit* is where the paper's text and its proofs
part ways, so it is a parameter (``mode``):

* ``"task"`` (default): a task stops once its whole processing (fraction 1, over all machines) is
  done. This is what Lemma 4 (E[C̄_j] <= 2∫C_j(α)dα) and eq. (18) of Theorem 2 need: a job's last
  fraction then lies in the interval where its LP x reaches λ.
* ``"machine"``: the paper's wording, "the machine is left idle if it has already processed its
  total task fraction Z̃^i_kj", and eq. (15) per machine. When an LP optimum splits a task over
  machines whose shares lie in far-apart intervals, a late share on one machine is still processed
  in full, and eq. (18)'s d̄_l <= 2Ĉ_j(λ)/λ can fail: no guarantee is claimed for this mode.

Derandomisation: :func:`best_stretch` evaluates the stretched schedule's exact objective at every
λ where it changes (SynchPack-1); :func:`stretch_bound_candidates` ranks the λ by the bound of
Lemma 10 and eq. (18) (SynchPack-2), whose minimum is at most its expectation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CUT_TOL = 1e-9
"""Relative slack for "the unit's total is reached" (LP values carry solver round-off)."""


def draw_stretch(rng: np.random.Generator) -> float:
    """λ ∈ (0, 1] with density f(λ) = 2λ (paper 003 §3.2 Step 3): λ = sqrt(U), U uniform on (0, 1]."""
    return float(np.sqrt(1.0 - rng.random()))


@dataclass(frozen=True)
class Timeline:
    """Pieces of a schedule S grouped by unit, in time order within each unit.

    Piece k runs over [start[k], end[k]) and processes ``amount[k]`` of its unit ``unit[k]`` (a
    fraction of a task); each unit has ``total`` to process and belongs to job ``unit_job``.
    ``piece`` maps back to the caller's piece index.
    """

    piece: np.ndarray
    unit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    amount: np.ndarray
    total: np.ndarray
    unit_job: np.ndarray

    @classmethod
    def build(cls, unit: np.ndarray, start: np.ndarray, end: np.ndarray, amount: np.ndarray, total: np.ndarray,
              unit_job: np.ndarray) -> Timeline:
        """The timeline of pieces given in any order (sorted here by unit, then start)."""
        order = np.lexsort((start, unit))
        return cls(order, np.asarray(unit)[order], np.asarray(start, float)[order], np.asarray(end, float)[order],
                   np.asarray(amount, float)[order], np.asarray(total, float), np.asarray(unit_job))

    def cumulative(self) -> tuple[np.ndarray, np.ndarray]:
        """Each piece's unit-share done before it and at its end, as fractions of the unit's total."""
        done = np.cumsum(self.amount)
        first = np.r_[True, self.unit[1:] != self.unit[:-1]]
        base = np.maximum.accumulate(np.where(first, np.arange(len(done)), 0))
        before = done - self.amount - np.where(base > 0, done[base - 1], 0.0)
        tot = self.total[self.unit]
        return before / tot, (before + self.amount) / tot


def stretch_pieces(tl: Timeline, lam: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Schedule S̄: every piece of S stretched to [start/λ, end/λ), each unit cut where its total
    is reached (paper 003 §3.2 Step 3). Returns (caller's piece index, start, end) of what is kept."""
    if not 0 < lam <= 1:
        raise ValueError(f"the stretch λ must be in (0, 1], got {lam!r}")
    before, after = tl.cumulative()
    # Stretched, piece k covers the unit's shares [before/λ, after/λ); only those below 1 are kept.
    keep = before < lam * (1 - CUT_TOL)
    span = after - before
    frac = np.where(span > 0, np.clip((lam - before) / np.where(span > 0, span, 1.0), 0.0, 1.0), 0.0)
    s = tl.start / lam
    e = s + (tl.end - tl.start) / lam * frac
    keep &= e > s
    return tl.piece[keep], s[keep], e[keep]


def stretched_completion(tl: Timeline, lams: np.ndarray, n_jobs: int) -> np.ndarray:
    """Job completion times in S̄ for each λ in *lams* (rows), without shifting back.

    A unit finishes in S̄ at θ(λ)/λ, θ(λ) being the time in S at which the unit has done a share λ
    of its total; a job finishes with its last unit. All λ at once (one row each): the piece where
    each unit reaches λ by one search over the sorted keys, then element-wise arithmetic and a
    maximum per job.
    """
    lams = np.asarray(lams, dtype=float)
    before, after = tl.cumulative()
    # Units are contiguous in tl; keys 2·unit + share are increasing across the whole array.
    key_after = 2.0 * tl.unit + after
    unit_ids = np.unique(tl.unit)
    out = np.full((len(lams), n_jobs), -np.inf)
    if not len(unit_ids) or not len(lams):
        return out
    lam = lams[:, None]
    k = np.searchsorted(key_after, (2.0 * unit_ids + lam * (1 - CUT_TOL)).ravel(), side="left")
    k = np.minimum(k, len(key_after) - 1).reshape(len(lams), len(unit_ids))
    span = after[k] - before[k]
    into = np.where(span > 0, (lam - before[k]) / np.where(span > 0, span, 1.0), 1.0)
    theta = tl.start[k] + np.clip(into, 0.0, 1.0) * (tl.end[k] - tl.start[k])
    done = theta / lam
    job = np.asarray(tl.unit_job)[unit_ids]
    order = np.argsort(job, kind="stable")
    job = job[order]
    first = np.flatnonzero(np.r_[True, job[1:] != job[:-1]])
    out[:, job[first]] = np.maximum.reduceat(done[:, order], first, axis=1)
    return out


def stretch_breakpoints(tl: Timeline) -> np.ndarray:
    """Every λ in (0, 1] at which S̄'s completion times can change: the shares of units done at
    the ends of their pieces. Between two of them each unit's θ(λ)/λ is non-increasing (θ grows
    at most as fast as λ·(time per share) while λ grows), so the objective's minimum over (0, 1]
    is at one of these points; 1 is always one."""
    _, after = tl.cumulative()
    lams = np.unique(np.clip(after, 0.0, 1.0))
    return np.unique(np.r_[lams[lams > 0], 1.0])


def best_stretch(tl: Timeline, weights: np.ndarray) -> tuple[float, float]:
    """The λ of :func:`stretch_breakpoints` minimising Σ w_j C̄_j (derandomised Slow-Motion, paper
    003 §3.3 and Online Appendix C) and that minimum; ties to the largest λ.

    The breakpoints are evaluated in blocks (of ~256), λ = 1's block first; a block [λ_a, λ_b] is
    skipped when it cannot hold the minimum: θ(λ) does not decrease with λ (a unit's pieces do not
    overlap in time), so there Σ w_j C̄_j(λ) >= Σ w_j C̄_j(λ_a)·λ_a/λ_b, and a block whose bound
    (less a 1e-9 relative margin for round-off) exceeds the best value found is left out. The
    value of every λ evaluated, and so the λ returned, are those of evaluating all of them.
    """
    lams = stretch_breakpoints(tl)
    w = np.asarray(weights, dtype=float)
    chunks = np.array_split(lams, max(1, len(lams) // 256))
    offsets = np.cumsum([0] + [len(c) for c in chunks])
    vals = np.full(len(lams), np.inf)
    lower = _block_bounds(tl, chunks, w)
    best = np.inf
    for b in [len(chunks) - 1, *np.argsort(lower[:-1], kind="stable").tolist()]:
        if lower[b] > best:
            continue
        v = stretched_completion(tl, chunks[b], len(w)) @ w
        vals[offsets[b]:offsets[b + 1]] = v
        # Blocks are taken by increasing bound, so once one is skipped all later ones are; a NaN
        # (no order) turns skipping off before that.
        m = float(v.min())
        best = np.nan if np.isnan(m) or np.isnan(best) else min(best, m)
    k = len(vals) - 1 - int(np.argmin(vals[::-1]))
    return float(lams[k]), float(vals[k])


def _block_bounds(tl: Timeline, chunks: list[np.ndarray], w: np.ndarray) -> np.ndarray:
    """A lower bound on Σ w_j C̄_j(λ) over each block of λ (see :func:`best_stretch`), or -inf
    where none is safe (negative weights or times, overlapping pieces of a unit, jobs without
    pieces)."""
    none = np.full(len(chunks), -np.inf)
    same_unit = tl.unit[1:] == tl.unit[:-1]
    if (len(chunks) < 2 or (w < 0).any() or (tl.start < 0).any()
            or (tl.start[1:][same_unit] < tl.end[:-1][same_unit]).any()):
        return none
    first = np.array([c[0] for c in chunks])
    last = np.array([c[-1] for c in chunks])
    at_first = stretched_completion(tl, first, len(w)) @ w
    if not np.isfinite(at_first).all():
        return none
    return at_first * (first / last) * (1 - 1e-9)


# --------------------------------------------------------------------------------------------
# eq. (15): stretching an interval LP solution
# --------------------------------------------------------------------------------------------

def stretch_fractions(z: np.ndarray, lam: float, unit: np.ndarray) -> np.ndarray:
    """z̄ of paper 003 eq. (15): z[q, l]/λ in each interval until unit ``unit[q]``'s total
    Σ_{q in unit} Σ_l z[q, l] is reached, the remainder in that interval (shared by the unit's rows
    in proportion to their z there), 0 after. With one row per unit this is eq. (15) as printed."""
    if not 0 < lam <= 1:
        raise ValueError(f"the stretch λ must be in (0, 1], got {lam!r}")
    unit = np.asarray(unit)
    n_units = int(unit.max()) + 1 if len(unit) else 0
    L1 = z.shape[1]
    per = np.zeros((n_units, L1))
    np.add.at(per, unit, z)
    cum = np.cumsum(per, axis=1)
    total = cum[:, -1]
    reached = cum / lam >= total[:, None] * (1 - CUT_TOL)
    cut = np.argmax(reached, axis=1)  # the first interval where the total is reached
    before = np.where(cut > 0, cum[np.arange(n_units), np.maximum(cut - 1, 0)], 0.0) / lam
    at_cut = per[np.arange(n_units), cut] / lam
    share = np.where(at_cut > 0, np.clip((total - before) / np.where(at_cut > 0, at_cut, 1.0), 0.0, 1.0), 0.0)
    cols = np.arange(L1)[None, :]
    cq = cut[unit][:, None]
    factor = np.where(cols < cq, 1.0, np.where(cols == cq, share[unit][:, None], 0.0))
    return z / lam * factor


@dataclass(frozen=True)
class StretchBound:
    """λ candidates sorted by the Lemma 10 / eq. (18) bound Σ_j w_j·6·d_{l_j(λ)}/λ (best first)."""

    lam: np.ndarray
    bound: np.ndarray


def stretch_bound_candidates(z: np.ndarray, unit: np.ndarray, unit_job: np.ndarray, weights: np.ndarray,
                             d: np.ndarray) -> StretchBound:
    """Rank λ by the bound SynchPack-2's analysis puts on Σ w_j C_j (paper 003 §4.3).

    After stretching, job j's last nonzero fraction is in the first interval l_j(λ) where every unit
    of j has reached a share λ of its total (G_j(l) >= λ, G_j(l) = min over j's units of their
    cumulative share), and Lemma 10 gives C_j <= 6 d_{l_j(λ)}/λ. The bound is constant in l_j on
    each step of G and decreasing in λ, so its minimum is at a value of some G_j(l); every such
    value is a candidate. One sweep over the sorted values gives all bounds.
    """
    unit = np.asarray(unit)
    n_units = int(unit.max()) + 1
    per = np.zeros((n_units, z.shape[1]))
    np.add.at(per, unit, z)
    cum = np.cumsum(per, axis=1)
    total = cum[:, -1:]
    share = np.where(total > 0, cum / np.where(total > 0, total, 1.0), 1.0)  # empty units are done
    n_jobs = len(weights)
    G = np.full((n_jobs, z.shape[1]), np.inf)
    np.minimum.at(G, np.asarray(unit_job), share)
    G = np.minimum(G, 1.0)
    G[:, -1] = 1.0
    w = np.asarray(weights, dtype=float)
    # l_j(λ) = #{l : G_j(l) < λ}; raising it from l to l+1 adds w_j (d_{l+1} - d_l).
    vals = G[:, :-1].ravel()
    steps = (w[:, None] * np.diff(d)[None, :]).ravel()
    order = np.argsort(vals, kind="stable")
    vals, steps = vals[order], steps[order]
    lams = np.unique(np.r_[vals[vals > 0], 1.0])
    lams = lams[lams <= 1.0]
    below = np.searchsorted(vals, lams * (1 - CUT_TOL), side="left")
    total = w.sum() * d[0] + np.r_[0.0, np.cumsum(steps)][below]
    bound = 6.0 * total / lams
    best = np.lexsort((-lams, bound))
    return StretchBound(lam=lams[best], bound=bound[best])
