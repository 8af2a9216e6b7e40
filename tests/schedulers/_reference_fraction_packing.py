"""Pre-change implementation kept as an oracle (issue 17 item 3): the SynchPack-1 rounding helpers
as they were before the event loop, the shift back and the λ search were made faster. Copied
verbatim from ``schedrelax/schedulers/list_packing.py`` (:func:`_merge_runs`, :class:`_Profile`,
:func:`left_shift`) and ``schedrelax/rounding/slow_motion.py`` (:func:`stretched_completion`,
:func:`stretch_breakpoints`, :func:`best_stretch`). :func:`interval_fraction_packing` is the
whole-list scan of :mod:`tests.schedulers._reference_packing` (this file held a later copy with
one shortcut; the plain scan is the more independent oracle and gives the same pieces on every
case). The current versions must give the same pieces, start times and λ. Do not edit except to
fix imports."""

from __future__ import annotations

import numpy as np

from schedrelax.rounding.slow_motion import CUT_TOL, Timeline
from schedrelax.schedulers.list_packing import FIT_TOL, Reservations
from tests.schedulers._reference_packing import interval_fraction_packing  # noqa: F401  the whole-list scan


def _merge_runs(rows: list[tuple[int, int, float, float]]) -> list[tuple[int, int, float, float]]:
    """Join runs of one item that touch (a preemption immediately followed by a restart)."""
    rows.sort(key=lambda r: (r[0], r[2]))
    out: list[tuple[int, int, float, float]] = []
    for r in rows:
        if r[3] <= r[2]:
            continue
        if out and out[-1][0] == r[0] and out[-1][1] == r[1] and out[-1][3] == r[2]:
            out[-1] = (r[0], r[1], out[-1][2], r[3])
        else:
            out.append(r)
    return out


class _Profile:
    """Resource use of one machine over time: ``level[k]`` on [times[k], times[k+1])."""

    def __init__(self) -> None:
        self.times = np.array([0.0, np.inf])
        self.level = np.array([0.0])

    def peak(self, a: float, b: float) -> float:
        lo = np.searchsorted(self.times, a, side="right") - 1
        hi = np.searchsorted(self.times, b, side="left")
        return float(self.level[lo:hi].max())

    def add(self, a: float, b: float, d: float) -> None:
        for t in (a, b):
            k = np.searchsorted(self.times, t)
            if self.times[k] != t:
                self.times = np.insert(self.times, k, t)
                self.level = np.insert(self.level, k, self.level[k - 1])
        lo, hi = np.searchsorted(self.times, a), np.searchsorted(self.times, b)
        self.level[lo:hi] += d

    def runs(self, release: float, duration: float, room: float) -> list[tuple[float, float]]:
        """The runs of a task of length *duration* released at *release* that runs whenever the
        level is at most *room* (the lowest-ranked task of a preemptive list packing)."""
        out: list[tuple[float, float]] = []
        left = duration
        k = int(np.searchsorted(self.times, release, side="right")) - 1
        while left > 0:
            s = max(float(self.times[k]), release)
            e = float(self.times[k + 1])
            if self.level[k] <= room and e > s:
                take = min(left, e - s)
                out.append((s, s + take))
                left -= take
            k += 1
            if left > 0 and k >= len(self.level):
                raise RuntimeError("profile: the task never fits (larger than the machine?)")
        return out

    def finish(self, release: float, duration: float, room: float) -> float:
        """When :meth:`runs` ends."""
        return self.runs(release, duration, room)[-1][1]


def left_shift(machine: np.ndarray, start: np.ndarray, end: np.ndarray, task: np.ndarray, demand: np.ndarray,
               release: np.ndarray, capacities: np.ndarray, reserved: Reservations | None = None) -> np.ndarray:
    """Shift pieces earlier ("shift back future tasks' schedules as far as the machine capacity
    allows and placement constraint is respected", paper 003 §3.2 Step 3 and §4.2 substep 3.2).

    Pieces are taken in order of start time; each moves to the earliest time >= its release, and
    not after its own start, at which its machine has room for it throughout and no other piece
    of its task runs (*reserved* room counts as used). Returns the new start times (durations are kept). No piece ends later than
    before: the pieces already placed use, at any time in a piece's old slot, a subset of what
    they used there before, so the old slot always remains feasible.
    """
    caps = np.asarray(capacities, dtype=float)
    dur = np.asarray(end, dtype=float) - np.asarray(start, dtype=float)
    new = np.asarray(start, dtype=float).copy()
    profiles = [_Profile() for _ in range(len(caps))]
    reserved = reserved or Reservations.none()
    for i, d, u in zip(reserved.machine.tolist(), reserved.demand.tolist(), reserved.until.tolist()):
        profiles[i].add(0.0, u, d)
    task_runs: dict[int, list[tuple[float, float]]] = {}
    for p in np.lexsort((end, start)).tolist():
        i, t, d, s0 = int(machine[p]), int(task[p]), float(dur[p]), float(start[p])
        prof, runs = profiles[i], task_runs.setdefault(t, [])
        r = float(release[p])
        cands = np.unique(np.concatenate(([r], prof.times[(prof.times > r) & (prof.times < s0)],
                                          [e for _, e in runs if r < e < s0])))
        room = caps[i] - float(demand[p]) + FIT_TOL * max(1.0, caps[i])
        # Cheap necessary conditions first, for all candidates at once: room at the start itself,
        # and no run of the task overlapping the window.
        ok = prof.level[np.searchsorted(prof.times, cands, side="right") - 1] <= room
        for b, e in runs:
            ok &= (e <= cands) | (b >= cands + d)
        c = next((c for c in cands[ok].tolist() if prof.peak(c, c + d) <= room), s0)
        new[p] = c
        prof.add(c, c + d, float(demand[p]))
        runs.append((c, c + d))
    return new


def stretched_completion(tl: Timeline, lams: np.ndarray, n_jobs: int) -> np.ndarray:
    """Job completion times in S̄ for each λ in *lams* (rows), without shifting back.

    A unit finishes in S̄ at θ(λ)/λ, θ(λ) being the time in S at which the unit has done a share λ
    of its total; a job finishes with its last unit.
    """
    before, after = tl.cumulative()
    n_units = len(tl.total)
    # Units are contiguous in tl; keys 2·unit + share are increasing across the whole array.
    key_after = 2.0 * tl.unit + after
    unit_ids = np.unique(tl.unit)
    out = np.empty((len(lams), n_jobs))
    for r, lam in enumerate(np.asarray(lams, dtype=float).tolist()):
        k = np.searchsorted(key_after, 2.0 * unit_ids + lam * (1 - CUT_TOL), side="left")
        k = np.minimum(k, len(key_after) - 1)
        span = after[k] - before[k]
        into = np.where(span > 0, (lam - before[k]) / np.where(span > 0, span, 1.0), 1.0)
        theta = tl.start[k] + np.clip(into, 0.0, 1.0) * (tl.end[k] - tl.start[k])
        done = np.full(n_units, -np.inf)
        done[unit_ids] = theta / lam
        C = np.full(n_jobs, -np.inf)
        np.maximum.at(C, tl.unit_job, done)
        out[r] = C
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
    003 §3.3 and Online Appendix C) and that minimum; ties to the largest λ."""
    lams = stretch_breakpoints(tl)
    w = np.asarray(weights, dtype=float)
    vals = np.concatenate([stretched_completion(tl, chunk, len(w)) @ w
                           for chunk in np.array_split(lams, max(1, len(lams) // 256))])
    k = len(vals) - 1 - int(np.argmin(vals[::-1]))
    return float(lams[k]), float(vals[k])

