"""The baselines of paper 003 §7: PSRS, Tetris preemptive and not, JSQ-MW.

The paper runs each baseline "combined with reasonable heuristics to enforce all the constraints"
and describes them in an online appendix we do not have. The rules below are the published ones
adapted to capacitated machines, jobs of several tasks and placement sets; every choice is stated
in the function's docstring. All of them respect packing (capacity), synchronisation (a job is
done with its last task), placement (a task runs only on its usable machines, one at a time) and
release times, and the instance's reservations (reserved room is not free); none proves a bound.

Remote and local: a task's *local* machines are the usable machines with its shortest processing
time (the three data-local machines of the §7 setup, whose other machines take α times longer).
"""

from __future__ import annotations

import bisect
import heapq
import math
from types import SimpleNamespace

import numpy as np

from schedrelax.instances import PackingInstance
from schedrelax.result import Result
from schedrelax.schedulers.list_packing import (
    FIT_TOL,
    Reservations,
    earliest_finish_machines,
    fastest_machine,
    packing_schedule,
    preemptive_list_packing,
)
from schedrelax.schedules import time_scale, time_slack


def _usable(instance: PackingInstance):
    q = np.flatnonzero(instance.demand[instance.place_task] <= instance.capacities[instance.place_machine])
    return instance.place_task[q], instance.place_machine[q], instance.place_time[q]


# --------------------------------------------------------------------------------------------
# PSRS
# --------------------------------------------------------------------------------------------

def smith_rank(instance: PackingInstance, machine: np.ndarray, ptime: np.ndarray) -> np.ndarray:
    """Each task's position when jobs are listed by non-increasing modified Smith ratio
    w_j / Σ_{tasks of j} a·p/m_i (weight over normalised volume), ties by job index, a job's tasks
    by index."""
    caps = np.asarray(instance.capacities, dtype=float)
    volume = np.bincount(instance.task_job, weights=instance.demand * ptime / caps[machine], minlength=instance.n_jobs)
    ratio = np.asarray(instance.weights, dtype=float) / volume
    job_order = np.lexsort((np.arange(instance.n_jobs), -ratio))
    job_rank = np.empty(instance.n_jobs, dtype=np.int64)
    job_rank[job_order] = np.arange(instance.n_jobs)
    return job_rank[instance.task_job] * instance.n_tasks + np.arange(instance.n_tasks)


def task_smith_rank(instance: PackingInstance, machine: np.ndarray, ptime: np.ndarray) -> np.ndarray:
    """Each task's position when the TASKS are listed by non-increasing Smith ratio
    w_j / (a·p/m_i) of each task alone (its job's weight over its own normalised volume), ties by
    task index: PSRS with every task a job of its own."""
    caps = np.asarray(instance.capacities, dtype=float)
    ratio = np.asarray(instance.weights, dtype=float)[instance.task_job] / (instance.demand * ptime / caps[machine])
    order = np.lexsort((np.arange(instance.n_tasks), -ratio))
    rank = np.empty(instance.n_tasks, dtype=np.int64)
    rank[order] = np.arange(instance.n_tasks)
    return rank


def _psrs(instance: PackingInstance, name: str, rank_of) -> Result:
    fast, fast_time = fastest_machine(instance)
    rank = rank_of(instance, fast, fast_time)
    machine, ptime = earliest_finish_machines(instance, rank)
    packed = preemptive_list_packing(machine, ptime, instance.demand, rank, instance.release[instance.task_job],
                                     instance.capacities, Reservations.of(instance))
    schedule = packing_schedule(instance, packed.item, packed.machine, packed.start, packed.end,
                                promises={"no_migration"}, meta={"algorithm": name})
    return Result(algorithm=name, schedule=schedule)


def psrs(instance: PackingInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """PSRS, Preemptive Smith Ratio Scheduling (Schwiegelshohn 2004), per machine as paper 003 §7
    runs it on the trace's single-machine placement — our synchronisation-aware variant; the
    paper's per-task reading is :func:`psrs_paper`.

    Published rule, for parallel jobs on one machine: list the jobs by non-increasing modified
    Smith ratio w_j / (a_j p_j) and schedule greedily, preempting lower-ratio work so that a
    higher-ratio job (in particular a wide one, a_j > m/2) starts as soon as it is at the head of
    the list. Ours: a job's ratio is its weight over the normalised volume of all its tasks (the
    tasks of a job share one priority, the synchronisation heuristic that makes this PSRS the same
    list packer as SynchPack-3's Step 2 with another job order); on every machine, at each
    completion or release the machine is re-packed from the top of the list
    (:func:`~schedrelax.schedulers.list_packing.preemptive_list_packing`), so a task never waits
    for a lower-ratio one that holds room it needs. No migration. A task that may use several
    machines gets, in list order, the one where it finishes earliest
    (:func:`~schedrelax.schedulers.list_packing.earliest_finish_machines`; the volume in the ratio
    uses its fastest time).
    """
    return _psrs(instance, "psrs", smith_rank)


def psrs_paper(instance: PackingInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """PSRS as paper 003 §7 compares against it: "PSRS is a preemptive algorithm for the parallel
    task scheduling problem (see Section 1.1) on a single machine", a problem in which "each job
    is only a single task" (§1.1). Run per machine, every task is a PTS job of its own: tasks are
    listed by non-increasing Smith ratio w_j / (a_kj p_kj / m_i) — the task carries its job's
    weight, and nothing ties it to its job's other tasks (the paper lists PSRS among the
    algorithms that "do not consider all aspects of packing, synchronization, and data locality",
    §1.2) — then packed as in :func:`psrs` (preemptive, re-packed from the top at every event).

    Where the two differ: a job of many small tasks and a job of one large task. Job-level PSRS
    ranks the many-task job by its total volume; task-level PSRS runs each small task first, so
    the job's tasks overtake the other job on every machine they share and its completion is no
    earlier while the other job waits (see the tests' hand-solved case).
    """
    return _psrs(instance, "psrs-paper", task_smith_rank)


# --------------------------------------------------------------------------------------------
# Tetris
# --------------------------------------------------------------------------------------------

_CERTIFY_MIN = 512  # a fill with fewer candidate rows (pairs + ruled tasks) never certifies
_CERTIFY_AFTER = 8  # full-pass starts of a fill before the certified choice is tried
_REANCHOR = 128  # certified starts between two full passes (which re-anchor the sums)
_ELSEWHERE_MOVES = 64  # more elsewhere candidates re-scored by one start: the certified choice stops
_CHECK_BOOKS = False  # tests: every full pass checks the tracked sums against its exact ones
_SCALAR_PAIRS = 32  # a start on a machine with at most this many pairs updates them in plain Python
_U = 2.0 ** -53
_EMPTY = -1e300  # the best alignment of a group with no candidate


def _np_sum(terms: list) -> float:
    """float(np.array(terms).sum()), bit for bit: numpy adds fewer than 8 floats left to right
    (pairwise summation starts at 8)."""
    if len(terms) >= 8:
        return float(np.array(terms).sum())
    total = 0.0
    for x in terms:
        total += x
    return total


class _CertState(SimpleNamespace):
    """The arrays of one Tetris fill that the certified choice reads (shared, not copied)."""


class _Certified:
    """Tetris's choice at one start without reading every waiting task, proved to be the one the
    full pass would make.

    Within a fill the SRPT term q of a candidate is its job's, fixed, so the candidates are kept in
    groups of equal q (bit for bit), each a heap by (-alignment, task, placement rank) with lazy
    deletion (a start only lowers alignments and removes candidates), and a heap of its distinct
    alignments with their counts. ε = srpt_weight·(s_align/n)/(s_q/n) couples every candidate: n
    is tracked exactly and s_align, s_q by the change each start makes (the task's own terms, the
    pairs on the machine started, the class totals through per-demand-level sums), anchored to the
    full pass's own sums and re-anchored every ``_REANCHOR`` starts, with a bound on how far they
    may be from the full pass's floats (the rounding of both, in units of 2^-53 of the sums'
    magnitudes). Over that interval of ε, each candidate's computed score fl(a - fl(ε·q)) lies
    within 2.1·2^-53·(|a| + ε·q) of a - ε·q: the best group's best candidate is the full pass's
    choice when its lowest possible score beats every other group's highest by a margin of
    10^-14·(|a| + ε·q), and the group's next distinct alignment is below its own by as much (equal
    alignments with equal q score equal floats, and the heap's order is the full pass's tie order).
    When any of this cannot be shown, ``choose`` returns None and the full pass decides (and
    re-anchors). Only for fills of fresh tasks on one machine class; a start that re-scores more
    than ``_ELSEWHERE_MOVES`` elsewhere candidates (the class's emptiest room changed) turns it off
    for the rest of the fill.
    """

    def __init__(self, s: _CertState):
        self.s, self.off, self.since, self.touched = s, False, 0, set()
        nT = len(s.act)
        self.tol = FIT_TOL * max(1.0, s.cap)
        self.level = np.full(nT, -1)
        self.level[s.g0] = s.level_of
        self.levels = s.levels.tolist()
        g = s.g0[s.act[s.g0]]
        self.ea, self.em = np.full(nT, -np.inf), np.full(nT, -1)
        self.ea[g], self.em[g] = self._elsewhere(g)
        live = np.flatnonzero(s.act)
        self.Q, inv = np.unique(s.task_q[live], return_inverse=True)
        self.grp = np.full(nT, -1)
        self.grp[live] = inv
        cand = np.flatnonzero(s.ok)
        et = g[np.isfinite(self.ea[g])]
        a = np.concatenate((s.pair_align[cand], self.ea[et]))
        t = np.concatenate((s.pt[cand], et))
        r = np.concatenate((s.pos[cand], s.width + self.em[et]))
        pid = np.concatenate((cand, np.full(len(et), -1)))
        gr = self.grp[t]
        order = np.lexsort((r, t, -a, gr))
        a, t, r, pid, gr = a[order], t[order], r[order], pid[order], gr[order]
        G = len(self.Q)
        bounds = np.searchsorted(gr, np.arange(G + 1)).tolist()
        entries = list(zip((-a).tolist(), t.tolist(), r.tolist(), pid.tolist()))
        self.H = [entries[bounds[j]:bounds[j + 1]] for j in range(G)]  # sorted: heaps already
        self.A = np.full(G, _EMPTY)
        first = np.array(bounds[:-1])
        has = first < np.array(bounds[1:])
        self.A[has] = a[first[has]]
        self.absA = np.abs(self.A)
        self.buf, self.buf2 = np.empty(G), np.empty(G)  # choose's scratch
        run = np.flatnonzero(np.r_[True, (gr[1:] != gr[:-1]) | (a[1:] != a[:-1])]) if len(a) else first[:0]
        length = np.diff(np.r_[run, len(a)])
        self.CNT = [{} for _ in range(G)]
        self.VH = [[] for _ in range(G)]
        for j, v, c in zip(gr[run].tolist(), a[run].tolist(), length.tolist()):
            self.CNT[j][v] = c
            self.VH[j].append(-v)  # ascending: a heap

    def _elsewhere(self, g: np.ndarray):
        """Each task's class choice and its alignment (-inf: none), as the full pass computes them."""
        s = self.s
        first = [m for _, m in s.ranked[:s.width + 1]]
        choice = np.full(len(g), first[0])
        u = s.pt[s.by_machine[s.machine_lo[first[0]]:s.machine_hi[first[0]]]]
        u = u[s.act[u] & s.fresh_ruled[u]]
        if len(u):
            j = np.searchsorted(g, u)
            then = np.full(len(j), -1)
            for m in first[:0:-1]:
                then = np.where((s.named[u] == m).any(axis=1), then, m)
            choice[j] = then
        c0 = np.maximum(choice, 0)
        has = (s.cap >= s.demand[g]) & (choice >= 0) & (s.demand[g] <= s.free[c0] + s.fit_tol[c0])
        a = s.demand[g] / s.caps[c0] * s.free[c0] / s.caps[c0] * s.other_pen[g]
        return np.where(has, a, -np.inf), choice

    def _G(self, x: float):
        """Count, Σ demand·penalty and Σ q of the waiting ruled tasks with demand <= x."""
        k = bisect.bisect_right(self.levels, x)
        if k >= len(self.levels):
            return self.tn, self.ta, self.tq
        return int(self.lvl_n[:k].sum()), float(self.lvl_a[:k].sum()), float(self.lvl_q[:k].sum())

    def _dec(self, j: int, a: float) -> None:
        cnt = self.CNT[j]
        c = cnt[a] - 1
        if c:
            cnt[a] = c
        else:
            del cnt[a]

    def _inc(self, j: int, a: float) -> None:
        cnt = self.CNT[j]
        if a in cnt:
            cnt[a] += 1
        else:
            cnt[a] = 1
            heapq.heappush(self.VH[j], -a)

    def anchor(self, n: int, s_align: float, s_q: float, m_align: float, m_q: float) -> None:
        """The full pass's exact sums (before its start) and their magnitudes."""
        s = self.s
        if _CHECK_BOOKS and self.since:
            err = _U * (32 * (len(s.members) + 64) + 64 * self.since * (self.since + 1))
            assert self.n == n, (self.n, n)
            assert abs(self.sa - s_align) <= err * self.ma, (self.sa, s_align)
            assert abs(self.sq - s_q) <= err * self.mq, (self.sq, s_q)
        self.n, self.sa, self.sq, self.ma, self.mq, self.since = n, s_align, s_q, m_align, m_q, 0
        keep = s.act[s.g0] & (s.cap >= s.demand[s.g0])
        lv, gg = s.level_of[keep], s.g0[keep]
        nl = len(self.levels)
        self.lvl_n = np.bincount(lv, minlength=nl)
        self.lvl_a = np.bincount(lv, weights=s.demand_pen[gg], minlength=nl)
        self.lvl_q = np.bincount(lv, weights=s.task_q[gg], minlength=nl)
        self.tn, self.ta, self.tq = int(self.lvl_n.sum()), float(self.lvl_a.sum()), float(self.lvl_q.sum())
        self.ftot = float(s.free[s.members].sum())

    def choose(self):
        """(task, machine, time) of the next start, or None if it cannot be shown here."""
        if self.off or self.since >= _REANCHOR or self.n <= 0:
            return None
        s, n = self.s, self.n
        err = _U * (32 * (len(s.members) + 64) + 64 * self.since * (self.since + 1))
        da, dq = err * self.ma, err * self.mq
        if self.sq - dq <= 0:
            return None
        w = s.srpt_weight
        e1 = w * ((self.sa - da) / n) / ((self.sq + dq) / n)
        e2 = w * ((self.sa + da) / n) / ((self.sq - dq) / n)
        lo, hi = min(e1, e2), max(e1, e2)
        lo, hi = lo - abs(lo) * 1e-13, hi + abs(hi) * 1e-13
        big = max(abs(lo), abs(hi))
        A, Q, up, slack = self.A, self.Q, self.buf, self.buf2
        np.subtract(A, np.multiply(Q, (lo + hi) / 2, out=up), out=up)
        k = int(up.argmax())
        ak, qk = A.item(k), Q.item(k)
        if ak <= _EMPTY / 2:
            return None
        margin = 1e-14 * (abs(ak) + big * qk)
        low = ak - hi * qk - margin
        # up = A - lo·Q + 1e-14·(|A| + big·Q), in place
        np.multiply(Q, big, out=slack)
        np.add(self.absA, slack, out=slack)
        np.multiply(slack, 1e-14, out=slack)
        np.subtract(A, np.multiply(Q, lo, out=up), out=up)
        np.add(up, slack, out=up)
        up[k] = -np.inf
        if up.max() >= low:
            return None
        vh, cnt = self.VH[k], self.CNT[k]
        while -vh[0] not in cnt:
            heapq.heappop(vh)
        top = heapq.heappop(vh)
        while vh and (-vh[0] not in cnt or vh[0] == top):
            heapq.heappop(vh)
        close = bool(vh) and ak - (-vh[0]) <= 2 * margin
        heapq.heappush(vh, top)
        if close:
            return None
        _, t, _, p = self.H[k][0]
        self.since += 1
        if p >= 0:
            return t, s.pm.item(p), s.pp.item(p)
        return t, self.em.item(t), s.other.item(t)

    def leave(self, tk: int) -> None:
        """Task tk starts: its candidates and its terms in the sums go (before any state changes)."""
        s = self.s
        j = self.grp.item(tk)
        qk = s.task_q.item(tk)
        dn, da = 0, 0.0
        ok, pair_align = s.ok, s.pair_align
        cnt = self.CNT[j]
        for p in range(s.task_lo.item(tk), s.task_hi.item(tk)):
            if ok.item(p):
                a = pair_align.item(p)
                dn, da = dn + 1, da + a
                c = cnt[a] - 1  # _dec(j, a), inline
                if c:
                    cnt[a] = c
                else:
                    del cnt[a]
        dq = qk * dn
        e = self.ea.item(tk)
        if e > -np.inf:
            self._dec(j, e)
            self.ea[tk] = -np.inf
        if s.fresh_ruled.item(tk):
            d = s.demand.item(tk)
            xc, xcap = s.x_count.item(tk), s.x_cap.item(tk)
            rooms, rshare = 0, 0.0
            if s.cap >= d:
                fs = s.sorted_free
                if d <= fs[0] + self.tol:
                    rooms, rshare = len(fs), self.ftot / s.cap ** 2
                else:
                    at = int(np.searchsorted(fs + self.tol, d, side="left"))
                    rooms, rshare = len(fs) - at, float(fs[at:].sum()) / s.cap ** 2
                L = self.level.item(tk)
                dp = s.demand_pen.item(tk)
                self.lvl_n[L] -= 1
                self.lvl_a[L] -= dp
                self.lvl_q[L] -= qk
                self.tn, self.ta, self.tq = self.tn - 1, self.ta - dp, self.tq - qk
            dn += rooms - xc
            da += s.demand_pen.item(tk) * (rshare - xcap)
            dq += qk * (rooms - xc)
        self.n -= dn
        self.sa -= da
        self.sq -= dq
        self.touched.add(j)

    def explicit_room_moved(self, u: np.ndarray, old_count: np.ndarray, old_cap: np.ndarray) -> None:
        """The explicit candidates of waiting ruled tasks u (taken out of the class totals) moved."""
        s = self.s
        dc = s.x_count[u] - old_count
        self.n -= int(dc.sum())
        self.sa -= float((s.demand_pen[u] * (s.x_cap[u] - old_cap)).sum())
        self.sq -= float((s.task_q[u] * dc).sum())

    def explicit_room_moved_scalar(self, u: list, old_count: list, old_cap: list) -> None:
        """:meth:`explicit_room_moved` on lists (the same sums, in numpy's order)."""
        s = self.s
        x_count, x_cap, demand_pen, task_q = s.x_count, s.x_cap, s.demand_pen, s.task_q
        dc = [x_count.item(t) - c for t, c in zip(u, old_count)]
        self.n -= sum(dc)
        self.sa -= _np_sum([demand_pen.item(t) * (x_cap.item(t) - c) for t, c in zip(u, old_cap)])
        self.sq -= _np_sum([task_q.item(t) * c for t, c in zip(u, dc)])

    def pairs_moved(self, on: np.ndarray, old_ok: np.ndarray, old_align: np.ndarray) -> None:
        """The pairs on the machine started have new alignments, and some no longer fit."""
        s = self.s
        new_ok, new_align = s.ok[on], s.pair_align[on]
        self.pairs_moved_scalar(zip(on.tolist(), old_ok.tolist(), new_ok.tolist(), old_align.tolist(),
                                    new_align.tolist()))

    def pairs_moved_scalar(self, moved) -> None:
        """:meth:`pairs_moved` on (pair, old ok, new ok, old alignment, new alignment) rows."""
        s = self.s
        for p, o, no, oa, na in moved:
            if not o or (no and oa == na):
                continue  # ok only turns off within a fill
            t = s.pt.item(p)
            j = self.grp.item(t)
            q = s.pair_q.item(p)
            self.n -= 1
            self.sa -= oa
            self.sq -= q
            cnt = self.CNT[j]  # _dec(j, oa), inline
            c = cnt[oa] - 1
            if c:
                cnt[oa] = c
            else:
                del cnt[oa]
            if no:
                self.n += 1
                self.sa += na
                self.sq += q
                if na in cnt:  # _inc(j, na), inline
                    cnt[na] += 1
                else:
                    cnt[na] = 1
                    heapq.heappush(self.VH[j], -na)
                heapq.heappush(self.H[j], (-na, t, s.pos.item(p), p))
            self.touched.add(j)

    def machine_moved(self, ik: int, was: float, was_top: bool) -> None:
        """Machine ik's free room went from `was` down to free[ik] (the class is sorted again);
        `was_top`: it was one of the class's width + 1 emptiest machines before."""
        s = self.s
        now = s.free.item(ik)
        nw, aw, qw = self._G(was + self.tol)
        nn, an, qn = self._G(now + self.tol)
        self.n += nn - nw
        self.sa += (now * an - was * aw) / s.cap ** 2
        self.sq += qn - qw
        self.ftot += now - was
        if was_top:  # some task's class choice may have moved
            g = s.g0[s.act[s.g0]]
            ea, em = self._elsewhere(g)
            old = self.ea[g]
            moved = np.flatnonzero(ea != old)
            if len(moved) > _ELSEWHERE_MOVES:
                self.off = True
                return
            self.em[g] = em
            for i in moved.tolist():
                t, o, e = int(g[i]), float(old[i]), float(ea[i])
                j = int(self.grp[t])
                if o > -np.inf:
                    self._dec(j, o)
                if e > -np.inf:
                    self._inc(j, e)
                    heapq.heappush(self.H[j], (-e, t, s.width + int(em[i]), -1))
                self.ea[t] = e
                self.touched.add(j)
        ok, pa, ea = s.ok, s.pair_align, self.ea
        for j in self.touched:
            h = self.H[j]
            while h:
                na, t, _, p = h[0]
                if (ok.item(p) and pa.item(p) == -na) if p >= 0 else ea.item(t) == -na:
                    break
                heapq.heappop(h)
            self.A[j] = a = -h[0][0] if h else _EMPTY
            self.absA[j] = abs(a)
        self.touched.clear()


def tetris_packing(instance: PackingInstance, *, preemptive: bool, remote_penalty: float = 0.1,
                   srpt_weight: float = 1.0):
    """Tetris (Grandl et al. 2014) as paper 003 §7 runs it: returns (task, machine, start, end) runs.

    At every decision time (first release, every completion and release) and while some waiting
    task fits some machine, the (task, machine) pair with the highest score starts:

        score = alignment - ε·q_j,   alignment = (a/m_i)·(free_i/m_i)·(1 - remote_penalty if remote),

    the dot product of demand and free resources normalised by capacity (one resource here), with
    Tetris's remote penalty (10 % by default) for a machine that is not local for the task;
    q_j = (remaining volume of job j)/w_j is the shortest-remaining-time term, weighted for Σ w_j C_j;
    ε = srpt_weight·ā/q̄ with ā and q̄ the means over the current candidates, Tetris's choice of
    ε = ā/p̄ that puts both terms on one scale. Ties go to the lowest task, then to the first
    machine of its placement set (the explicit ones, then its elsewhere machines by index).

    ``preemptive=True`` (Tetris-p): at every decision time all running tasks are preempted and the
    machines refilled by score; a task resumes only on the machine where it first ran (no
    migration), with its remaining time. ``preemptive=False`` (Tetris-np): tasks run to completion.

    Machines a task reaches by its elsewhere rule (compressed placement) are never enumerated:
    within a machine class (equal capacity) the best such machine is the one with the most free
    room, and the means behind ε add up each class's count and free room above the task's
    demand from the class's sorted free capacities.

    Cost. ε couples every candidate, so each start still reads every waiting
    task, but a start changes one task and one machine: the candidate pairs, their alignments,
    each task's explicit room and each class's sorted free capacities and its machines ranked by
    free room are kept from start to start and updated where that machine is, and the best pair
    is found by a maximum instead of a sort. A start costs a few O(tasks + pairs) vector passes
    and one O(machines of the class) cumulative sum, and no Python loop over tasks (the tasks
    that name a class's emptiest machine, and those with a pair on the machine just started, are
    whole-array steps too; a machine with few pairs is updated pair by pair in plain Python).
    Preempting and restarting every running task at a decision time are whole-array steps. A big
    fill of fresh tasks on one machine class takes most starts without the full pass, when the
    choice is proved to be the same (:class:`_Certified`). Tetris-np's decision times come off a
    heap of end times; Tetris-p's completion times at which nothing waits, and nothing is
    released, are taken on the running tasks' own arrays (every task restarts at home there).
    The arithmetic, and so every run, is the same as re-scoring everything at every start
    (``tests/schedulers/_reference_tetris.py``).
    """
    caps = np.asarray(instance.capacities, dtype=float)
    demand = instance.demand
    nT = instance.n_tasks
    usable = np.flatnonzero(demand[instance.explicit_task] <= caps[instance.explicit_machine])
    pt, pm, pp = (instance.explicit_task[usable], instance.explicit_machine[usable],
                  instance.explicit_time[usable])
    pos = np.arange(len(pt)) - np.searchsorted(pt, pt, side="left")  # place among its task's usable pairs
    other = instance.elsewhere_time
    best = other.copy()
    np.minimum.at(best, pt, pp)
    remote = pp > best[pt] * (1 + 1e-12)
    pen = 1 - remote_penalty
    pair_pen = np.where(remote, pen, 1.0)
    other_pen = np.where(other > best * (1 + 1e-12), pen, 1.0)
    demand_pen = demand * other_pen
    ruled = np.isfinite(other)
    # The explicit usable machines of each task, padded with -1: what its elsewhere rule skips.
    n_named = np.bincount(pt, minlength=nT)
    width = int(n_named.max()) if len(pt) else 0
    named = np.full((nT, max(width, 1)), -1)
    named[pt, pos] = pm
    pair_of = np.full((nT, max(width, 1)), -1)
    pair_of[pt, pos] = np.arange(len(pt))
    classes = [(instance.class_member[instance.class_offset[c]:instance.class_offset[c + 1]],
                float(instance.class_capacity[c])) for c in range(instance.n_classes)]
    class_of = np.full(len(caps), -1)
    for c, (members, _) in enumerate(classes):
        class_of[members] = c
    class_of_l = class_of.tolist()
    fit_tol = FIT_TOL * np.maximum(1.0, caps)
    caps_sq = caps ** 2
    # A task's pairs are a slice (pt is sorted); a machine's pairs, a slice of by_machine.
    task_lo = np.searchsorted(pt, np.arange(nT), side="left")
    task_hi = np.searchsorted(pt, np.arange(nT), side="right")
    by_machine = np.argsort(pm, kind="stable")
    machine_lo = np.searchsorted(pm[by_machine], np.arange(len(caps)), side="left")
    machine_hi = np.searchsorted(pm[by_machine], np.arange(len(caps)), side="right")
    # Plain-Python copies of the fixed arrays, for the per-start updates of a few pairs.
    pt_l, pm_l, by_machine_l = pt.tolist(), pm.tolist(), by_machine.tolist()
    task_lo_l, task_hi_l = task_lo.tolist(), task_hi.tolist()
    machine_lo_l, machine_hi_l = machine_lo.tolist(), machine_hi.tolist()
    demand_l, caps_l, caps_sq_l = demand.tolist(), caps.tolist(), caps_sq.tolist()
    fit_tol_l, pair_pen_l = fit_tol.tolist(), pair_pen.tolist()
    job = instance.task_job
    w = np.asarray(instance.weights, dtype=float)
    release = instance.release[job]
    rem = np.ones(nT)  # remaining share of each task
    done = np.zeros(nT, dtype=bool)
    home = np.full(nT, -1)  # machine a preempted task must resume on
    run_machine = np.full(nT, -1)
    run_start = np.zeros(nT)
    run_time = np.zeros(nT)  # processing time on the running (or home) machine
    rows: list[tuple[int, int, float, float]] = []
    releases = np.union1d(instance.release, instance.reservation_ends())
    now = float(instance.release.min())
    taken = instance.reserved_at(now)
    free = caps - taken

    # A run cut at a decision time and restarted at once on its machine is one run: its row is
    # written when the task stops for longer or completes (the remaining time is still updated
    # at every cut, so the arithmetic is that of separate pieces).
    run_from = np.full(nT, np.nan)

    def stop(t: int, at: float) -> None:
        i = int(run_machine[t])
        rows.append((t, i, float(run_from[t]), at))
        run_from[t] = np.nan
        rem[t] -= (at - run_start[t]) / run_time[t]
        free[i] += demand[t]
        run_machine[t] = -1

    def cut_all() -> None:
        """Preempt every running task now (Tetris-p). Free room is not given back: every machine
        is idle afterwards, and the decision time resets an idle machine's room to its capacity
        less its reservations before anything reads it."""
        r = np.flatnonzero(run_machine >= 0)
        rem[r] -= (now - run_start[r]) / run_time[r]
        run_machine[r] = -1

    # Tetris-np: a run ends at its start plus its time (its remaining share stays 1), so the
    # running tasks are a heap of (end, task) and the tasks started are counted.
    ends: list[tuple[float, int]] | None = None if preemptive else []
    busy = np.zeros(len(caps), dtype=np.int64)  # Tetris-np: running tasks per machine
    n_started = [0]

    def begin(t: int, i: int, p: float) -> None:
        run_machine[t], run_start[t], run_time[t] = i, now, p
        home[t] = i
        free[i] = free.item(i) - demand_l[t]
        if math.isnan(run_from.item(t)):
            run_from[t] = now
        if ends is not None:
            heapq.heappush(ends, (now + 1.0 * p, t))  # run_start + rem·run_time
            busy[i] += 1
            n_started[0] += 1

    def begin_all(t: np.ndarray, i: np.ndarray, p: np.ndarray) -> None:
        """:func:`begin` for each (t, i, p) in turn, as whole-array steps."""
        run_machine[t], run_start[t], run_time[t] = i, now, p
        home[t] = i
        np.subtract.at(free, i, demand[t])
        t = t[np.isnan(run_from[t])]
        run_from[t] = now

    def restart_homed(h: np.ndarray, left: np.ndarray) -> None:
        """Tetris's choice when only preempted tasks wait (each may only go home): the same
        scores over these single candidates, without the placement machinery."""
        hm = home[h]
        cap = caps[hm]
        hp = run_time[h]  # a task's time on its home machine, set when it first began there
        hpen = np.where(hp > best[h] * (1 + 1e-12), pen, 1.0)
        q = left[job[h]]
        # Free room only shrinks while the machines are refilled: a candidate that does not fit
        # now never will, and a start changes only its own machine's candidates.
        live = demand[h] <= free[hm] + fit_tol[hm]
        count = np.bincount(hm[live], minlength=len(caps))
        shared = int((count >= 2).sum())
        total = np.bincount(hm[live], weights=demand[h[live]], minlength=len(caps))
        margin = 1e-12 * np.maximum(1.0, caps) * count
        if preemptive and (total <= free + fit_tol - margin).all():
            # Every machine holds all its candidates together (with room to spare for any
            # order's rounding): each starts whatever the order of the scores. The order would
            # only change the last bits of a machine's free room, which nothing reads before
            # the next decision time resets every machine (all runs are cut there).
            k = np.flatnonzero(live)
            begin_all(h[k], hm[k], hp[k])
            return
        by_machine = np.argsort(hm, kind="stable")
        first = np.searchsorted(hm[by_machine], hm)
        last = np.searchsorted(hm[by_machine], hm, side="right")
        while live.any():
            if not shared:
                # One candidate per machine: a start changes no other candidate, so every one
                # starts, in whatever order.
                k = np.flatnonzero(live)
                begin_all(h[k], hm[k], hp[k])
                return
            c = np.flatnonzero(live)
            align = demand[h[c]] / cap[c] * free[hm[c]] / cap[c] * hpen[c]
            qj = q[c]
            eps = srpt_weight * align.mean() / qj.mean() if qj.mean() > 0 else 0.0
            k = int(c[int(np.argmax(align - eps * qj))])
            m = int(hm[k])
            begin(int(h[k]), m, float(hp[k]))
            live[k] = False
            same = by_machine[first[k]:last[k]]
            live[same] &= demand[h[same]] <= free[m] + fit_tol[m]
            before, count[m] = count[m], int(live[same].sum())
            shared -= int(before >= 2) - int(count[m] >= 2)

    def fill(left: np.ndarray) -> None:
        """Start the best pair while one fits: the picks of one decision time."""
        act = ~done & (run_machine < 0) & (release <= now)
        ok = act[pt] & ((home[pt] < 0) | (home[pt] == pm)) & (demand[pt] <= free[pm] + fit_tol[pm])
        pair_align = demand[pt] / caps[pm] * free[pm] / caps[pm] * pair_pen
        pair_q = left[job[pt]]
        task_q = left[job]
        # The explicit candidates of the fresh ruled tasks, per task: their count and free room
        # (taken out of the class totals, which hold every machine of the class with room).
        fresh_ruled = (home < 0) & ruled
        fresh_pair = fresh_ruled[pt]
        fresh_pair_l = fresh_pair.tolist()
        mine = ok & fresh_pair
        x_count = np.bincount(pt[mine], minlength=nT)
        x_cap = np.zeros(nT)
        np.add.at(x_cap, pt[mine], free[pm[mine]] / caps_sq[pm[mine]])
        # A preempted task whose home is an elsewhere machine: that one pair.
        homed = np.flatnonzero(act & (home >= 0) & ruled)
        homed = homed[~(named[homed] == home[homed][:, None]).any(axis=1)]
        g0 = np.flatnonzero(act & (home < 0) & ruled)
        levels, level_of = np.unique(demand[g0], return_inverse=True)
        eligible0 = [cap >= demand[g0] for _, cap in classes]
        every0 = [bool(e.all()) for e in eligible0]  # then it holds for every task left too
        sorted_free = [np.sort(free[members]) for members, _ in classes]
        ranked = [sorted(zip((-free[members]).tolist(), members.tolist())) for members, _ in classes]
        # The certified choice (see _Certified): only for a fill of fresh tasks on one machine class,
        # and only once the class's emptiest room has stayed put for a few full-pass starts.
        cert = None
        certify = len(classes) == 1 and len(g0) + len(pt) >= _CERTIFY_MIN and not (act & (home >= 0)).any() \
            and bool((left >= 0).all())
        full_starts = 0
        top_free = -ranked[0][0][0] if certify and ranked[0] else None
        def start(tk: int, ik: int, p: float, cert) -> None:
            """Start tk on ik and update what the start changed: the task's pairs leave, and
            machine ik has less room (and the certified choice's books, if it is on)."""
            was = free.item(ik)
            if cert is not None:
                cert.leave(tk)
            begin(tk, ik, p)
            act[tk] = False
            ok[task_lo_l[tk]:task_hi_l[tk]] = False
            lo, hi = machine_lo_l[ik], machine_hi_l[ik]
            if hi - lo <= _SCALAR_PAIRS:
                start_pairs_scalar(ik, by_machine_l[lo:hi], cert)
            else:
                start_pairs(ik, by_machine[lo:hi], cert)
            c = class_of_l[ik]
            # The class's sorted free room with `was` replaced by the smaller free[ik], in place.
            fs = sorted_free[c]
            now_free = free.item(ik)
            out = int(fs.searchsorted(was))
            into = int(fs[:out].searchsorted(now_free))
            fs[into + 1:out + 1] = fs[into:out]
            fs[into] = now_free
            lst = ranked[c]
            at = bisect.bisect_left(lst, (-was, ik))
            was_top = at <= width  # ik was among the class's width + 1 emptiest machines
            del lst[at]
            bisect.insort(lst, (-now_free, ik))
            if cert is not None:
                cert.machine_moved(ik, was, was_top)

        def start_pairs_scalar(ik: int, on: list, cert) -> None:
            """:func:`start_pairs` in plain Python, pair by pair (the same elementwise arithmetic;
            each explicit room is summed in pair order from 0.0 as np.add.at does)."""
            f = free.item(ik)
            cap = caps_l[ik]
            fit = f + fit_tol_l[ik]
            moved = [] if cert is not None else None
            u = []
            for p in on:
                t = pt_l[p]
                d = demand_l[t]
                na = d / cap * f / cap * pair_pen_l[p]
                o = ok.item(p)
                no = o and d <= fit
                if moved is not None:
                    moved.append((p, o, no, pair_align.item(p), na))
                pair_align[p] = na
                if o and not no:
                    ok[p] = False
                if fresh_pair_l[p] and act.item(t):
                    u.append(t)  # distinct (a placement names a machine once) and sorted
            if u:
                if cert is not None:
                    u_count, u_cap = [x_count.item(t) for t in u], [x_cap.item(t) for t in u]
                for t in u:  # every pair of t is fresh, as its pair on ik is
                    n_ok, room = 0, 0.0
                    for q in range(task_lo_l[t], task_hi_l[t]):
                        if ok.item(q):
                            m = pm_l[q]
                            n_ok += 1
                            room += free.item(m) / caps_sq_l[m]
                    x_count[t] = n_ok
                    x_cap[t] = room
                if cert is not None:
                    cert.explicit_room_moved_scalar(u, u_count, u_cap)
            if cert is not None:
                cert.pairs_moved_scalar(moved)

        def start_pairs(ik: int, on: np.ndarray, cert) -> None:
            """Machine ik (just started) has less room: its pairs' alignments, which of them fit,
            and the explicit room of the fresh ruled tasks with a pair there."""
            if cert is not None:
                on_ok, on_align = ok[on], pair_align[on]
            pair_align[on] = demand[pt[on]] / caps[pm[on]] * free[pm[on]] / caps[pm[on]] * pair_pen[on]
            ok[on] &= demand[pt[on]] <= free[ik] + fit_tol[ik]
            u = pt[on]  # distinct (a placement names a machine once) and sorted
            u = u[fresh_pair[on] & act[u]]
            if len(u):
                if cert is not None:
                    u_count, u_cap = x_count[u], x_cap[u]
                # Their pairs in pair order (row by row): np.add.at adds in that order, as the
                # first count did.
                sel = pair_of[u]
                sel = sel[sel >= 0]
                sel = sel[ok[sel] & fresh_pair[sel]]
                x_count[u] = 0
                np.add.at(x_count, pt[sel], 1)
                x_cap[u] = 0.0
                np.add.at(x_cap, pt[sel], free[pm[sel]] / caps_sq[pm[sel]])
                if cert is not None:
                    cert.explicit_room_moved(u, u_count, u_cap)
            if cert is not None:
                cert.pairs_moved(on, on_ok, on_align)

        def cert_state():
            return _CertState(pt=pt, pm=pm, pp=pp, pos=pos, width=width, named=named, demand=demand, caps=caps,
                              fit_tol=fit_tol, other=other, other_pen=other_pen, demand_pen=demand_pen,
                              by_machine=by_machine, machine_lo=machine_lo, machine_hi=machine_hi,
                              task_lo=task_lo, task_hi=task_hi, members=classes[0][0], cap=classes[0][1],
                              free=free, act=act, ok=ok, pair_align=pair_align, pair_q=pair_q, task_q=task_q,
                              x_count=x_count, x_cap=x_cap, fresh_ruled=fresh_ruled, g0=g0, levels=levels,
                              level_of=level_of, ranked=ranked[0], sorted_free=sorted_free[0],
                              srpt_weight=srpt_weight)

        while True:
            chosen = None
            if cert is not None:
                chosen = cert.choose()
                if chosen is not None and not _CHECK_BOOKS:
                    start(*chosen, cert)
                    if cert.off:
                        cert, certify = None, False
                    continue
            cand = np.flatnonzero(ok)
            align, q = pair_align[cand], pair_q[cand]
            n, s_align, s_q = len(cand), float(align.sum()), float(q.sum())
            # Candidates reached by elsewhere rules: (task, machine, align, order within the task).
            et, em, ea = [], [], []
            h = homed[act[homed]]
            if len(h):
                hm = home[h]
                h_ok = demand[h] <= free[hm] + fit_tol[hm]
                h, hm = h[h_ok], hm[h_ok]
                a = demand[h] / caps[hm] * free[hm] / caps[hm] * other_pen[h]
                n, s_align, s_q = n + len(h), s_align + float(a.sum()), s_q + float(left[job[h]].sum())
                et.append(h), em.append(hm), ea.append(a)
            sub = np.flatnonzero(act[g0])
            g = g0[sub]
            if len(g):
                count = -x_count[g]
                share = -x_cap[g]
                level = level_of[sub]
                g_demand = demand[g]
                for c, (members, cap) in enumerate(classes):
                    eligible = eligible0[c][sub]
                    if not every0[c] and not eligible.any():
                        continue
                    fs = sorted_free[c]
                    above = np.concatenate((np.cumsum(fs[::-1])[::-1], [0.0]))
                    # Per demand level, then spread to the tasks (the same values).
                    at = np.searchsorted(fs + FIT_TOL * max(1.0, cap), levels, side="left")
                    rooms = (len(members) - at)[level]
                    room_share = (above[at] / cap ** 2)[level]
                    if every0[c]:
                        count = count + rooms
                        share = share + room_share
                    else:
                        count = count + np.where(eligible, rooms, 0)
                        share = share + np.where(eligible, room_share, 0.0)
                    # The class's best machine for each task: most free room, lowest index, not
                    # named. The first is every task's choice but for the few that name it (its
                    # pairs); they take the next one they do not name (a task names at most
                    # `width` machines).
                    first = [m for _, m in ranked[c][:width + 1]]
                    choice = np.full(len(g), first[0])
                    u = pt[by_machine[machine_lo[first[0]]:machine_hi[first[0]]]]
                    u = u[act[u] & fresh_ruled[u]]  # those in g
                    if len(u):
                        j = np.searchsorted(g, u)
                        then = np.full(len(j), -1)
                        for m in first[:0:-1]:
                            then = np.where((named[u] == m).any(axis=1), then, m)
                        choice[j] = then
                    has = eligible & (choice >= 0)
                    has &= g_demand <= free[np.maximum(choice, 0)] + fit_tol[np.maximum(choice, 0)]
                    tg, tm = g[has], choice[has]
                    et.append(tg), em.append(tm)
                    ea.append(g_demand[has] / caps[tm] * free[tm] / caps[tm] * other_pen[tg])
                n += int(count.sum())
                s_align += float((demand_pen[g] * share).sum())
                s_q += float((task_q[g] * count).sum())
            if n == 0:
                return
            if certify and cert is None and full_starts >= _CERTIFY_AFTER:
                if -ranked[0][0][0] == top_free:
                    cert = _Certified(cert_state())
                else:
                    certify = False  # the class's emptiest room moves: the full pass it is
            if cert is not None:
                # Magnitudes of the sums (every term counted positive): the scale of their rounding.
                m_align, m_q = float(align.sum()), float(q.sum())
                if len(g):
                    m_align += float((demand_pen[g] * (share + 2 * x_cap[g])).sum())
                    m_q += float((task_q[g] * (count + 2 * x_count[g])).sum())
                cert.anchor(n, s_align, s_q, m_align, m_q)
            full_starts += 1
            a_mean, q_mean = s_align / n, s_q / n
            eps = srpt_weight * a_mean / q_mean if q_mean > 0 else 0.0
            parts = [align - eps * q, *[a - eps * task_q[t] for t, a in zip(et, ea)]]
            score = np.concatenate(parts) if et else parts[0]
            nc = len(cand)
            extra_t = np.concatenate(et) if et else pt[:0]
            extra_m = np.concatenate(em) if em else pm[:0]
            # Highest score, then lowest task, then first in the task's placement order.
            top = np.flatnonzero(score == score.max())
            if len(top) > 1:
                inside, beyond = top[top < nc], top[top >= nc] - nc
                tie_t = np.concatenate((pt[cand[inside]], extra_t[beyond]))
                tie_rank = np.concatenate((pos[cand[inside]], width + extra_m[beyond]))
                top = top[np.lexsort((tie_rank, tie_t))]
            k = int(top[0])
            tk = int(pt[cand[k]]) if k < nc else int(extra_t[k - nc])
            ik = int(pm[cand[k]]) if k < nc else int(extra_m[k - nc])
            assert chosen is None or chosen[:2] == (tk, ik), (chosen, tk, ik)  # _CHECK_BOOKS
            start(tk, ik, float(pp[cand[k]]) if k < len(cand) else float(other[tk]), cert)
            if cert is not None and cert.off:
                cert = None
                certify = False

    def np_events(scale: float):
        """The decision times of Tetris-np, as the loop below runs them (which reads every task
        at each one): the runs that end come off the heap, and are stopped in task order (so rows
        and free room come out in the same order); only the machines they leave idle are reset
        when there are no reservations (an idle machine's room is already its capacity then);
        a fill runs only when some released task has not started."""
        nonlocal now, taken
        n_done = 0
        released = np.sort(release).tolist()
        releases_l = releases.tolist()
        reserved = instance.reserve_until.size > 0
        while n_done < nT:
            slack = now + time_slack(scale, now)
            ended = []
            while ends and ends[0][0] <= slack:
                ended.append(heapq.heappop(ends)[1])
            ended.sort()
            for t in ended:
                i = run_machine.item(t)
                stop(t, now)
                done[t] = True
                busy[i] -= 1
            n_done += len(ended)
            if reserved:
                now_taken = instance.reserved_at(now)
                np.add(free, taken - now_taken, out=free)
                taken = now_taken
                idle = busy == 0
                free[idle] = caps[idle] - taken[idle]
            else:
                for t in ended:
                    i = int(home[t])
                    if busy[i] == 0:
                        free[i] = caps[i] - taken[i]
            if bisect.bisect_right(released, now) > n_started[0]:
                left = np.bincount(job, weights=np.where(done, 0.0, demand * rem * best), minlength=instance.n_jobs) / w
                fill(left)  # (no task waits for its home machine: none is ever cut)
            if n_done == nT:
                break
            k = bisect.bisect_right(releases_l, now)
            now = min(ends[0][0] if ends else np.inf, releases_l[k] if k < len(releases_l) else np.inf)
            if not np.isfinite(now):
                raise RuntimeError("tetris: tasks wait on idle machines (a bug: every task fits one)")
        return rows

    def steady(running: np.ndarray, scale: float) -> bool:
        """Tetris-p while nothing waits: every released task that is not done runs, all of them
        (re)started now. At each following completion time that is not also a release or the end
        of a reservation, the loop below would stop the tasks that end (in task order), cut the
        others, and restart each at home by :func:`restart_homed`'s first shortcut, as it holds
        for them all now (checked here, with the room the loop's reset gives every machine, which
        stays the same until a reservation ends) and so for any of them later: a machine's total
        demand, summed in task order, only shrinks when terms leave, and its margin with them.
        That restart changes nothing but the start time, so these times are taken here, on the
        running tasks' own arrays: the remaining shares are cut with the same arithmetic, and the
        free room, which the loop resets before reading at its next decision time, is not
        tracked. Returns False (nothing done) if the shortcut does not hold now; else True, with
        every task done or `now` at the next decision time the loop must take itself."""
        nonlocal now
        r = running
        hm = home[r]
        d = demand[r]
        room = caps - taken
        if not (d <= room[hm] + fit_tol[hm]).all():
            return False
        count = np.bincount(hm, minlength=len(caps))
        total = np.bincount(hm, weights=d, minlength=len(caps))
        if not (total <= room + fit_tol - 1e-12 * np.maximum(1.0, caps) * count).all():
            return False
        releases_l = releases.tolist()
        t_prev = now  # every run of r started then
        r_time, r_rem = run_time[r], rem[r]
        while True:
            ends = t_prev + r_rem * r_time  # run_start + rem·run_time
            nxt = float(ends.min()) if len(r) else np.inf
            k = bisect.bisect_right(releases_l, t_prev)
            later = releases_l[k] if k < len(releases_l) else np.inf
            t = min(nxt, later)
            if later <= nxt:  # a release or a reservation's end: the loop's
                if not np.isfinite(t):
                    raise RuntimeError("tetris: tasks wait on idle machines (a bug: every task fits one)")
                break
            fin = ends <= t + time_slack(scale, t)
            if fin.any():
                j = np.flatnonzero(fin)
                for tk, x in zip(r[j].tolist(), r_rem[j].tolist()):
                    rem[tk], run_start[tk] = x, t_prev
                    now = t
                    stop(tk, t)
                    done[tk] = True
                keep = ~fin
                r, r_time, r_rem = r[keep], r_time[keep], r_rem[keep]
                if not len(r) and done.all():
                    rem[r], run_start[r] = r_rem, t_prev
                    return True
            r_rem -= (t - t_prev) / r_time  # cut_all, then the restart at home
            t_prev = t
        rem[r], run_start[r] = r_rem, t_prev
        now = t
        return True

    scale = time_scale(instance)  # tasks ending within a sliver of the shortest one end together
    if not preemptive:
        return np_events(scale)
    while not done.all():
        running = np.flatnonzero(run_machine >= 0)
        for t in running[run_start[running] + rem[running] * run_time[running] <= now + time_slack(scale, now)]:
            stop(int(t), now)
            done[t] = True
        if preemptive:
            cut_all()
        now_taken = instance.reserved_at(now)
        free += taken - now_taken
        taken = now_taken
        idle = np.bincount(run_machine[run_machine >= 0], minlength=len(caps)) == 0
        free[idle] = caps[idle] - taken[idle]
        cut = np.flatnonzero(~np.isnan(run_from) & (run_machine < 0))
        h = np.flatnonzero(~done & (run_machine < 0) & (release <= now))
        if len(h):  # (nothing waits after most completions of Tetris-np)
            left = np.bincount(job, weights=np.where(done, 0.0, demand * rem * best), minlength=instance.n_jobs) / w
            if (home[h] >= 0).all():
                restart_homed(h, left)
            else:
                fill(left)
        for t in cut[run_machine[cut] < 0].tolist():  # cut and not restarted: the run ends here
            rows.append((t, int(home[t]), float(run_from[t]), now))
            run_from[t] = np.nan
        if done.all():
            break
        running = np.flatnonzero(run_machine >= 0)
        if len(running) and not (~done & (run_machine < 0) & (release <= now)).any() and steady(running, scale):
            if done.all():
                break
            continue
        nxt = float((run_start[running] + rem[running] * run_time[running]).min()) if len(running) else np.inf
        later = releases[releases > now]
        now = min(nxt, float(later[0]) if len(later) else np.inf)
        if not np.isfinite(now):
            raise RuntimeError("tetris: tasks wait on idle machines (a bug: every task fits one)")
    return rows


def _tetris_result(instance: PackingInstance, name: str, preemptive: bool, remote_penalty: float,
                   srpt_weight: float) -> Result:
    rows = tetris_packing(instance, preemptive=preemptive, remote_penalty=remote_penalty, srpt_weight=srpt_weight)
    t, i, s, e = (np.array(c) for c in zip(*rows))
    promises = {"no_migration"} if preemptive else {"non_preemptive", "no_migration"}
    schedule = packing_schedule(instance, t, i, s, e, promises=promises, meta={"algorithm": name})
    return Result(algorithm=name, schedule=schedule,
                  params={"remote_penalty": remote_penalty, "srpt_weight": srpt_weight})


def tetris(instance: PackingInstance, *, solver: str | None = None, seed: int | None = None,
           remote_penalty: float = 0.1, srpt_weight: float = 1.0) -> Result:
    """Tetris-p of paper 003 §7: :func:`tetris_packing` with preemption (no migration)."""
    return _tetris_result(instance, "tetris", True, remote_penalty, srpt_weight)


def tetris_np(instance: PackingInstance, *, solver: str | None = None, seed: int | None = None,
              remote_penalty: float = 0.1, srpt_weight: float = 1.0) -> Result:
    """Tetris-np of paper 003 §7: :func:`tetris_packing` without preemption."""
    return _tetris_result(instance, "tetris-np", False, remote_penalty, srpt_weight)


# --------------------------------------------------------------------------------------------
# JSQ-MW
# --------------------------------------------------------------------------------------------

def jsq_maxweight(instance: PackingInstance, order: np.ndarray, name: str) -> Result:
    """JSQ-MaxWeight with packing (Wang et al. 2016, as paper 003 §7 runs it); tasks join their
    queues in ``order`` (at their release) and each queue is served in the order tasks joined it.

    Routing (JSQ): a task joins the queue of the local machine (shortest usable time) whose queued
    work Σ a·p/m_i is least, ties to the lowest index. Service (MaxWeight): at every decision
    time (first release, completions, releases, ends of reservations) a machine repeatedly takes
    from the queue that maximises (queued work) × rate, rate = (task's local time)/(its time on
    this machine), the first task of that queue that fits its free capacity and may run on it,
    until no queue offers one; ties to the machine's own queue, then the lowest index.

    The decision time is one instant for all machines, so it runs in two rounds: first every
    machine, in index order, serves only tasks that are local to it (rate 1); then every machine
    with room left serves any queue, remote tasks included. A task is thus sent to a remote
    machine only when none of its local machines can start it at that instant. Serving machines in
    index order in one round (the former rule) let the low-index machines take other machines'
    tasks at remote speed while those machines sat idle: at time 0 on the Google part with
    ``local`` placement every task went remote and Σ w_j C_j doubled (α = 2).
    """
    nT, M = instance.n_tasks, instance.n_machines
    caps = np.asarray(instance.capacities, dtype=float)
    demand = instance.demand
    job = instance.task_job
    usable = np.flatnonzero(demand[instance.explicit_task] <= caps[instance.explicit_machine])
    pt, pm, pp = (instance.explicit_task[usable], instance.explicit_machine[usable],
                  instance.explicit_time[usable])
    other = instance.elsewhere_time
    ruled = np.isfinite(other)
    time_on = {(int(t), int(i)): float(p) for t, i, p in zip(pt, pm, pp)}
    best = other.copy()
    np.minimum.at(best, pt, pp)
    near = best * (1 + 1e-12)
    rule_local = ruled & (other <= near)  # every machine its rule covers is local for it
    local = [[] for _ in range(nT)]
    explicit_on: list[list[int]] = [[] for _ in range(M)]  # machine -> tasks with an explicit pair there
    for t, i, p in zip(pt.tolist(), pm.tolist(), pp.tolist()):
        explicit_on[i].append(t)
        if p <= near[t]:
            local[t].append(i)
    named = [set() for _ in range(nT)]
    for t, i in zip(instance.explicit_task.tolist(), instance.explicit_machine.tolist()):
        named[t].add(i)

    def time_of(t: int, i: int) -> float:
        """Processing time of t on i, or -1 if i is not in its placement set."""
        p = time_on.get((t, i))
        if p is not None:
            return p
        return float(other[t]) if ruled[t] and caps[i] >= demand[t] and i not in named[t] else -1.0

    queues: list[list[int]] = [[] for _ in range(M)]
    queue_of = np.full(nT, -1)
    work = np.zeros(M)
    ratio = np.zeros(M)  # work / capacity, the routing key
    # Nonempty queues by non-increasing work (ties by index): the service scan's order of pruning.
    by_work: list[tuple[float, int]] = []
    key_of: dict[int, tuple[float, int]] = {}
    # Queued tasks with an elsewhere rule, by demand (lazy deletion): the fast "nothing fits here".
    rule_heaps: tuple[list, list] = ([], [])  # rule-local tasks, all rule tasks

    def rekey(n: int) -> None:
        old = key_of.pop(n, None)
        if old is not None:
            del by_work[bisect.bisect_left(by_work, old)]
        if queues[n]:
            key_of[n] = (-float(work[n]), n)
            bisect.insort(by_work, key_of[n])

    def smallest(heap: list) -> float:
        while heap and queue_of[heap[0][1]] < 0:
            heapq.heappop(heap)
        return heap[0][0] if heap else np.inf

    running: list[tuple[float, int, int]] = []
    on_machine = np.zeros(M, dtype=np.int64)
    rows: list[tuple[int, int, float, float]] = []
    release = instance.release[job]
    times = np.union1d(instance.release, instance.reservation_ends())
    joined = np.zeros(nT, dtype=bool)
    started = 0
    now = float(instance.release.min())
    taken = instance.reserved_at(now)
    free = caps - taken

    def candidate(n: int, i: int, remote_ok: bool) -> tuple[int, float] | None:
        """The first task of queue n that may start on machine i now, with its time there."""
        for t in queues[n]:
            p = time_of(t, i)
            if p >= 0 and (remote_ok or p <= near[t]) and demand[t] <= free[i] + FIT_TOL * max(1.0, caps[i]):
                return t, p
        return None

    def serve(i: int, remote_ok: bool) -> tuple[float, int, int, float] | None:
        """Machine i's choice: the queue of largest weight, ties to its own queue then the lowest
        index (the order [i, 0, 1, ...] of a scan over every queue)."""
        choice = None
        own = candidate(i, i, remote_ok) if queues[i] else None
        if own is not None:
            choice = (work[i] * best[own[0]] / own[1], i, own[0], own[1])
        if smallest(rule_heaps[1 if remote_ok else 0]) <= free[i] + FIT_TOL * max(1.0, caps[i]):
            scan = by_work
        else:  # only tasks with an explicit pair on i can start here
            scan = sorted({key_of[int(queue_of[t])] for t in explicit_on[i] if queue_of[t] >= 0})
        for neg, n in scan:
            if choice is not None and -neg + abs(neg) * 1e-9 < choice[0]:
                break  # weight = work·best/time <= work: no later queue reaches the choice
            if n == i:
                continue
            c = candidate(n, i, remote_ok)
            if c is None:
                continue
            weight = work[n] * best[c[0]] / c[1]
            if choice is None or weight > choice[0] or (weight == choice[0] and choice[1] != i and n < choice[1]):
                choice = (weight, n, c[0], c[1])
        return choice

    scale = time_scale(instance)
    while started < nT:
        while running and running[0][0] <= now + time_slack(scale, now):
            _, i, t = heapq.heappop(running)
            on_machine[i] -= 1
            free[i] = caps[i] - taken[i] if on_machine[i] == 0 else free[i] + demand[t]
        now_taken = instance.reserved_at(now)
        free += taken - now_taken
        taken = now_taken
        for t in order[(release[order] <= now) & ~joined[order]].tolist():
            i = min(local[t], key=lambda i: (ratio[i], i)) if local[t] else -1
            if rule_local[t]:
                key = np.where(caps >= demand[t], ratio, np.inf)
                key[list(named[t])] = np.inf
                k = int(np.argmin(key))
                if key[k] < np.inf and (i < 0 or (key[k], k) < (ratio[i], i)):
                    i = k
            queues[i].append(t)
            queue_of[t] = i
            work[i] += demand[t] * best[t] / caps[i]
            ratio[i] = work[i] / caps[i]
            rekey(i)
            if ruled[t]:
                heapq.heappush(rule_heaps[1], (float(demand[t]), t))
                if rule_local[t]:
                    heapq.heappush(rule_heaps[0], (float(demand[t]), t))
            joined[t] = True
        for remote_ok in (False, True):
            if not by_work:
                break
            # Machines that may take something: room for the smallest queued rule task, or an
            # explicit pair with a queued task (a superset; queues only shrink in the round).
            least = smallest(rule_heaps[1 if remote_ok else 0])
            maybe = free + FIT_TOL * np.maximum(1.0, caps) >= least
            for t in np.flatnonzero(queue_of >= 0).tolist():
                for i in (local[t] if not remote_ok else ()):
                    maybe[i] = True
            if remote_ok:
                queued = np.flatnonzero(queue_of >= 0)
                if len(queued):
                    maybe[np.unique(pm[np.isin(pt, queued)])] = True
            for i in np.flatnonzero(maybe).tolist():
                while by_work:
                    choice = serve(i, remote_ok)
                    if choice is None:
                        break
                    _, n, t, p = choice
                    queues[n].remove(t)
                    queue_of[t] = -1
                    work[n] -= demand[t] * best[t] / caps[n]
                    ratio[n] = work[n] / caps[n]
                    rekey(n)
                    rows.append((t, i, now, now + p))
                    heapq.heappush(running, (now + p, i, t))
                    on_machine[i] += 1
                    free[i] -= demand[t]
                    started += 1
        if started == nT:
            break
        later = times[times > now]
        now = min(running[0][0] if running else np.inf, float(later[0]) if len(later) else np.inf)
        if not np.isfinite(now):
            raise RuntimeError(f"{name}: tasks wait on idle machines (a bug: every task fits one)")
    t, i, s, e = (np.array(c) for c in zip(*rows))
    schedule = packing_schedule(instance, t, i, s, e, promises={"non_preemptive", "no_migration"},
                                meta={"algorithm": name})
    return Result(algorithm=name, schedule=schedule)


def jsq_mw(instance: PackingInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """JSQ-MaxWeight (Wang et al. 2016) as paper 003 §7 runs it: non-preemptive, with packing —
    our variant, whose queues are ordered by priority; the paper's FIFO queues are
    :func:`jsq_mw_paper`.

    Published rule, for single-task jobs and unit servers: an arriving task joins the shortest of
    its local servers' queues (JSQ); a server that becomes free serves the queue with the largest
    (queue length × its service rate for that queue's tasks), local rate 1 and remote rate 1/α
    (MaxWeight). Ours: jobs are taken at release in non-increasing w_j / (normalised volume)
    (ties by index), their tasks by index, so every queue is in that priority order; the rest is
    :func:`jsq_maxweight`.
    """
    machine, ptime = fastest_machine(instance)
    return jsq_maxweight(instance, np.argsort(smith_rank(instance, machine, ptime)), "jsq-mw")


def jsq_mw_paper(instance: PackingInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """JSQ-MaxWeight as paper 003 cites it (Wang et al. 2016, "algorithms based on join-the-shortest-
    queue and max-weight (JSQ-MW) to incorporate data locality in load balancing", §1.1): a model
    of single-task jobs in which each server's queue is first-in first-out — the rule knows no
    weights and no jobs. Tasks join queues in arrival order: by release, ties by job index (the
    trace's order), a job's tasks by index; each queue is served in that order, the first task that
    fits the machine's free capacity (skipping one that does not fit is the packing heuristic the
    paper adds, "combined with reasonable heuristics to enforce all the constraints", §1.2).
    Routing and service are :func:`jsq_maxweight`.
    """
    job_order = np.lexsort((np.arange(instance.n_jobs), instance.release))
    job_pos = np.empty(instance.n_jobs, dtype=np.int64)
    job_pos[job_order] = np.arange(instance.n_jobs)
    order = np.lexsort((np.arange(instance.n_tasks), job_pos[instance.task_job]))
    return jsq_maxweight(instance, order, "jsq-mw-paper")
