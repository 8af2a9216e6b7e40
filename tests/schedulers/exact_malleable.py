"""A zero-slack check of malleable schedules for round-off tests.

:func:`schedrelax.schedules.verify` forgives over-use shorter than its time tolerance; the tests of
the FlowFlex pipeline ask more: no job above its maximum and no moment above P, over any stretch of
positive length however short. Work is compared to a relative 1e-9 plus what the pieces' time
stamps can carry (a few ulps times the rate).
"""

from __future__ import annotations

import numpy as np

from schedrelax.instances import MalleableInstance
from schedrelax.schedules import Schedule


def _overuse(keys, start, end, rate, limit) -> list[str]:
    found = []
    for k in np.unique(keys).tolist():
        mine = keys == k
        s, e, r = start[mine], end[mine], rate[mine]
        events = np.unique(np.concatenate([s, e]))
        for t0, t1 in zip(events[:-1].tolist(), events[1:].tolist()):
            level = float(r[(s <= t0) & (e >= t1)].sum())
            if level > limit(k):
                found.append(f"{k}: {level:g} > {limit(k)} over [{t0!r}, {t1!r})")
    return found


def exact_problems(inst: MalleableInstance, schedule: Schedule) -> list[str]:
    """Every violation of maxima, P, work, precedence and release, with no time slack."""
    s = schedule
    found = [f"job {m}" for m in _overuse(s.job, s.start, s.end, s.rate, lambda j: inst.max_procs[j])]
    found += [f"all jobs {m}" for m in _overuse(np.zeros(len(s), dtype=np.int64), s.start, s.end, s.rate,
                                                lambda _: inst.processors)]
    if (s.end <= s.start).any():
        found.append(f"empty pieces {np.flatnonzero(s.end <= s.start).tolist()}")
    n = inst.n_jobs
    work = np.bincount(s.job, weights=s.rate * (s.end - s.start), minlength=n)
    ulps = np.bincount(s.job, weights=s.rate * 4 * np.spacing(np.maximum(np.abs(s.start), np.abs(s.end))),
                       minlength=n)
    for j in np.flatnonzero(np.abs(work - inst.size) > 1e-9 * inst.size + ulps).tolist():
        found.append(f"job {j}: work {work[j]!r}, size {inst.size[j]!r}")
    first, last = np.full(n, np.inf), np.full(n, -np.inf)
    np.minimum.at(first, s.job, s.start)
    np.maximum.at(last, s.job, s.end)
    found += [f"edge {a} -> {b}" for a, b in inst.edges.tolist() if first[b] < last[a]]
    found += [f"job {j} before its release" for j in np.flatnonzero(first < inst.job_release).tolist()]
    return found
