"""A time-indexed LP bound for paper 004's problem (§II: non-preemptive tasks on related machines,
job releases, machine ready times, a job precedence DAG, Σ w_j C_j), as arrays for HiGHS.

LP-Schedule (the Queyranne-polytope LP, paper 004 §III) is fluid: it lets a task's work spread over
machines and time, so six reduce tasks of 1000 MB on six machines look like one wave of work. A
time-indexed LP keeps each task whole on one machine, which is where the gap comes from on the
``spc`` setup; but the durations p_t / v_i are not whole numbers of any small unit. So the LP is
built on a *rounded-down* copy of the instance, on a grid of width δ from an origin o (the earliest
release): a start S becomes the slot floor((S − o) / δ), a duration p / v the slots
D = floor(p / (v δ)), a release or ready time floor((r − o) / δ). Every schedule of the instance
maps to one of the slot model whose cost is no larger:

* a task that ends before another starts on its machine still does, and precedence still holds:
  floor(a) + floor(b) <= floor(a + b), so floor((S_t − o)/δ) + D_t <= floor((S_t + p_t/v − o)/δ)
  <= floor((S_u − o)/δ) when S_t + p_t/v <= S_u;
* releases and ready times: S >= r gives floor((S − o)/δ) >= floor((r − o)/δ);
* completions: C'_j = max over j's tasks of (slot + D) <= floor((C_j − o)/δ), so
  o Σ w_j + δ Σ w_j C'_j <= Σ w_j C_j (weights are >= 0).

So the slot model's optimum, and its LP relaxation's, is a **lower bound** on the instance's
optimum once mapped back (``o Σ w + δ · LP``). The model: x[t, i, s] = 1 when task t starts on
machine i at slot s (its window, below); each task starts once; at most one task runs on a machine
in a slot (tasks of no slot take none); C'_j >= each of its tasks' slot + D; for an edge (a, b)
every task of b starts at or after C'_a; minimise Σ w_j C'_j. The LP keeps each task in one piece
in every slot it runs, so it sees whole tasks competing for machines; on the reach benchmark's
``spc`` instances (n_jobs 8, seed 0) it gave 642.6, 672.1, 684.0 and 690.1 at δ = 1, 1/2, 1/4
and 1/8 of a time unit against LP-Schedule's 663.6 (best schedule known: 722.7).

Windows. A job's first slot comes from its release and its predecessors' least completions (every
task at the fastest speed, exact rationals). With a known schedule's cost U, an optimal schedule
has w_j C_j <= U − Σ_{k≠j} w_k lo_k (lo_k the least completion), which caps every weighted job's
completion; a job of weight 0 is capped by its successors' caps. Every job is also capped by the
horizon of a semi-active optimal schedule (:func:`~schedrelax.models.related_mip.mip_horizon`,
computed exactly).
Jobs of weight 0 with no weighted job after them are left out: dropping a job (and its edges)
only lowers the optimum, so the bound stays valid.

Forms. ``pulse`` (a task's start variable is in each capacity row of a slot it runs: D terms) and
``step`` (y[t, i, s] = Σ_{s' <= s} x[t, i, s'], monotone in s: two terms a capacity row). Same
optimum (x is a linear image of y); the engine uses ``pulse``: HiGHS's simplex took 0.8 and 2.7 s
in it at δ = 1/2 and 1/4 (n_jobs 8, seed 0) against 83 and 343 s in ``step``, whose matrix is 4-7
times smaller. Tried and dropped: rows for the completion of a job of several tasks as the
largest of its tasks' ends (z[j, τ] <= each task's P(ended by τ), C'_j >= Σ_τ (1 − z[j, τ])):
the same optimum at k = 4, 5, 6 (the LP's tasks of one job share one distribution) in 3-11 times
the time. Kept: precedence slot by slot (``strong_precedence``, on by default): seed 0 at k = 6
(δ = 1/64 of the longest task) 687.85 → 690.52 in 12.0 s against 2.3 s, seed 2 1090.1 → 1107.3 in
6.4 s against 1.5 s (a map job of weight 0 before each reduce job: with expectations alone the LP
starts half a reduce task early). The engine finds those rows lazily
(:class:`SlotPrecedenceSeparation`, a cutting-plane loop on the program without them): the same
optimum in a third of the time (seed 0, k = 6: 4.2 s against 13.2 s; k = 7: 19.1 s against 47 s;
a few hundred of the program's 9,620 rows at k = 6 are ever violated). HiGHS's primal simplex
(152 s) and interior point (20 s, 18 s without crossover) were slower than its dual simplex on the
full program.

Arithmetic: windows and the grid are exact rationals (:class:`fractions.Fraction` of the
instance's floats); durations are floored from float quotients and again as Fractions wherever a
quotient lies within 1e-9 of a whole number, so no float rounding can make a slot count exceed the
true floor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from schedrelax._matrix import MatrixProgram, ProgramBuilder
from schedrelax.errors import AlgorithmError
from schedrelax.instances import RelatedInstance
from schedrelax.models.cpsat_related import topological_rank

FORMS = ("pulse", "step")

UB_SLACK = Fraction(1, 10**9)
"""Relative room added to a schedule's cost before it caps the windows: the cost is a float sum."""


@dataclass(frozen=True)
class SlotGrid:
    """Slot s is the time ``origin + s · delta``; ``bound`` maps an LP value (Σ w_j C'_j in slots)
    back to the instance's cost units."""

    origin: float
    delta: Fraction
    weight_sum: float

    def bound(self, lp_value: float) -> float:
        """The instance's cost bound o Σ w_j + δ · *lp_value* of a slot model value."""
        return self.origin * self.weight_sum + float(self.delta) * lp_value


@dataclass(frozen=True)
class SlotLayout:
    """The slot model's data: per kept job its weight; per variable group g (a task on a machine)
    its task, job, machine, duration D in slots and first and last start slot."""

    grid: SlotGrid
    jobs: np.ndarray
    weights: np.ndarray
    edges: np.ndarray  # pairs of positions in ``jobs``
    g_task: np.ndarray
    g_job: np.ndarray  # position in ``jobs``
    g_machine: np.ndarray
    g_D: np.ndarray
    g_first: np.ndarray
    g_last: np.ndarray

    @property
    def starts(self) -> np.ndarray:
        return np.maximum(self.g_last - self.g_first + 1, 0)

    def terms(self, form: str) -> int:
        """Capacity-row terms in *form*: what the LP's build and solve grow with."""
        n = self.starts
        if form == "pulse":
            return int((n * self.g_D).sum())
        return int((2 * (n + self.g_D)).sum())


def default_delta(instance: RelatedInstance, k: int) -> Fraction:
    """The grid width 2^-k of the longest task at its fastest speed (max_t p_t / max_i v_i, exact):
    scaled with the instance's unit, so a copy in another unit gets the same slot model."""
    vmax = max(Fraction(float(v)) for v in instance.speeds)
    longest = max(Fraction(float(p)) for p in instance.task_size) / vmax
    return longest / 2**k


def slot_layout(instance: RelatedInstance, delta: Fraction, upper_bound: float | None = None) -> SlotLayout:
    """The windows and durations of the module docstring on a grid of width *delta* (a positive
    Fraction); *upper_bound*, a feasible schedule's cost, caps the windows. AlgorithmError when a
    task has no start slot (an *upper_bound* below the optimum)."""
    delta = Fraction(delta)
    if not delta > 0:
        raise AlgorithmError(f"related time-indexed LP: delta must be positive, got {delta}")
    speeds = [Fraction(float(v)) for v in instance.speeds]
    ready = [Fraction(float(r)) for r in instance.ready]
    w = np.asarray(instance.weights, dtype=float)
    rel = [Fraction(float(r)) for r in instance.release]
    size = [Fraction(float(p)) for p in instance.task_size]
    tj = np.asarray(instance.task_job)
    n, M = instance.n_jobs, len(speeds)
    edges = np.asarray(instance.edges, dtype=np.int64).reshape(-1, 2)
    order = np.argsort(topological_rank(n, edges)).tolist()
    first = np.asarray(instance.job_offset)
    tasks_of = [range(int(first[j]), int(first[j + 1])) for j in range(n)]
    pred = [[] for _ in range(n)]
    succ = [[] for _ in range(n)]
    for a, b in edges.tolist():
        pred[b].append(a)
        succ[a].append(b)
    vmax, rmin = max(speeds), min(ready)
    est, lo = [Fraction(0)] * n, [Fraction(0)] * n
    for j in order:
        est[j] = max([rel[j], rmin, *(lo[a] for a in pred[j])])
        lo[j] = est[j] + max(size[t] for t in tasks_of[j]) / vmax
    keep = w > 0
    for j in reversed(order):
        keep[j] = keep[j] or any(keep[b] for b in succ[j])
    # every task once on the slowest machine after the last release or ready time bounds a
    # semi-active optimal schedule (related_mip.mip_horizon, here exact)
    horizon = max(max(rel), max(ready)) + sum(size) / min(speeds)
    cap = [horizon] * n
    if upper_bound is not None and math.isfinite(upper_bound):
        wf = [Fraction(float(x)) for x in w]
        ub = Fraction(float(upper_bound)) * (1 + UB_SLACK)
        total = sum(wf[j] * lo[j] for j in range(n))
        for j in range(n):
            if wf[j] > 0:
                cap[j] = min(cap[j], (ub - total + wf[j] * lo[j]) / wf[j])
    for j in reversed(order):
        for b in succ[j]:
            if keep[b]:
                cap[j] = min(cap[j], cap[b])
    jobs = np.flatnonzero(keep)
    pos = np.full(n, -1, dtype=np.int64)
    pos[jobs] = np.arange(len(jobs))
    origin = min(rel[j] for j in jobs) if len(jobs) else Fraction(0)
    # per kept job: its last end slot, and per machine its first start slot (exact)
    last_end = np.array([math.floor((cap[j] - origin) / delta) for j in jobs.tolist()], dtype=np.int64)
    first_slot = np.array([[math.floor((max(rel[j], r, est[j]) - origin) / delta) for r in ready]
                           for j in jobs.tolist()], dtype=np.int64).reshape(len(jobs), M)
    # per kept task and machine: D = floor(p / (v δ)) (exact, see _floor_ratio)
    kept_tasks = np.flatnonzero(np.isin(tj, jobs))
    D = _floor_ratio([size[t] for t in kept_tasks.tolist()], [v * delta for v in speeds])
    kj = pos[tj[kept_tasks]]
    s0 = first_slot[kj]
    s1 = last_end[kj][:, None] - D
    ok = s1 >= s0
    ti, mi = np.nonzero(ok)
    g = np.column_stack([kept_tasks[ti], kj[ti], mi, D[ti, mi], s0[ti, mi], s1[ti, mi]]).astype(np.int64)
    missing = sorted(set(kept_tasks.tolist()) - set(g[:, 0].tolist()))
    if missing:
        raise AlgorithmError(f"related time-indexed LP: task {missing[0]} has no start slot within its job's window "
                             f"(upper_bound {upper_bound} below the optimum?)")
    kept_edges = np.array([(int(pos[a]), int(pos[b])) for a, b in edges.tolist() if keep[a] and keep[b]],
                          dtype=np.int64).reshape(-1, 2)
    grid = SlotGrid(origin=float(origin), delta=delta, weight_sum=float(w[jobs].sum()))
    return SlotLayout(grid=grid, jobs=jobs, weights=w[jobs], edges=kept_edges, g_task=g[:, 0], g_job=g[:, 1],
                      g_machine=g[:, 2], g_D=g[:, 3], g_first=g[:, 4], g_last=g[:, 5])


def _floor_ratio(num: list[Fraction], den: list[Fraction]) -> np.ndarray:
    """floor(num[a] / den[b]) for every a, b, exactly: by floats, and again as Fractions where the
    float quotient lies within 1e-9 (relative) of a whole number, so float rounding never moves a
    floor (the floats' error is a few units in the last place)."""
    q = np.asarray([float(x) for x in num])[:, None] / np.asarray([float(x) for x in den])[None, :]
    out = np.floor(q)
    near = np.abs(q - np.round(q)) <= 1e-9 * np.maximum(1.0, np.abs(q))
    for a, b in zip(*np.nonzero(near)):
        out[a, b] = math.floor(num[a] / den[b])
    return out.astype(np.int64)


def related_ti_lp_program(layout: SlotLayout, form: str = "pulse", strong_precedence: bool = True) -> MatrixProgram:
    """The LP of the module docstring on *layout* (:func:`slot_layout`) in *form*; its optimum,
    mapped by ``layout.grid.bound``, is a lower bound on the instance's optimum.
    *strong_precedence* (pulse form) adds, for each edge (a, b), task u of b and task t of a, the
    rows P(u started by slot τ) <= P(t ended by τ) for every τ (cumulative variables
    ``started_by`` and ``ended_by``): in a schedule both sides are 0 or 1 and the row is the
    precedence itself; in the LP it is stronger than E[start of u] >= C'_a."""
    if form not in FORMS:
        raise ValueError(f"related time-indexed LP: form must be one of {FORMS}, got {form!r}")
    L = layout
    nG = len(L.g_task)
    gfirst_col, g_of, s, task_row, task_ids = _columns(L)
    nV = len(s)
    M = int(L.g_machine.max()) + 1 if nG else 0
    H = int((L.g_last + L.g_D).max()) + 1 if nG else 0
    m = ProgramBuilder(f"related time-indexed LP ({form} form, delta {L.grid.delta})")
    x0 = m.var("x" if form == "pulse" else "y", nV, 0.0, 1.0)
    c0 = m.var("C", len(L.jobs), 0.0, np.inf)
    cols = np.arange(nV)
    is_last = np.zeros(nV, dtype=bool)
    is_last[gfirst_col[1:] - 1] = True
    if form == "pulse":
        # every task starts once
        m.rows("assign", sp.csr_array((np.ones(nV), (task_row[g_of], x0 + cols)), shape=(len(task_ids), x0 + nV)),
               1.0, 1.0)
        # a start at s runs in slots s .. s+D-1 of its machine
        rep = np.repeat(cols, L.g_D[g_of])
        off = np.arange(len(rep)) - np.repeat(np.cumsum(L.g_D[g_of]) - L.g_D[g_of], L.g_D[g_of])
        r = L.g_machine[g_of][rep] * H + s[rep] + off
        m.rows("capacity", sp.csr_array((np.ones(len(rep)), (r, x0 + rep)), shape=(M * H, x0 + nV)), -np.inf, 1.0)
        end_coef, start_coef = (s + L.g_D[g_of]).astype(float), s.astype(float)
    else:
        m.rows("assign", sp.csr_array((np.ones(int(is_last.sum())), (task_row[g_of[is_last]], x0 + cols[is_last])),
                                      shape=(len(task_ids), x0 + nV)), 1.0, 1.0)
        # monotone: y[s] - y[s-1] >= 0 within a group
        inner = cols[~np.isin(cols, gfirst_col[:-1])]
        k = len(inner)
        m.rows("monotone", sp.csr_array((np.r_[np.ones(k), -np.ones(k)],
                                         (np.r_[np.arange(k), np.arange(k)], x0 + np.r_[inner, inner - 1])),
                                        shape=(k, x0 + nV)), 0.0, np.inf)
        # running on machine i in slot τ: Y(τ) - Y(τ - D), Y(k) = y[min(k, last)] (0 before the window)
        rr, cc, vv = [], [], []
        for gi in range(nG):
            D = int(L.g_D[gi])
            if D == 0:
                continue
            a, b, base = int(L.g_first[gi]), int(L.g_last[gi]), int(gfirst_col[gi])
            tau = np.arange(a, b + D)
            row = int(L.g_machine[gi]) * H + tau
            rr.append(row)
            cc.append(base + np.minimum(tau, b) - a)
            vv.append(np.ones(len(tau)))
            back = tau[tau - D >= a]
            rr.append(int(L.g_machine[gi]) * H + back)
            cc.append(base + np.minimum(back - D, b) - a)
            vv.append(-np.ones(len(back)))
        rr = np.concatenate(rr) if rr else np.zeros(0, dtype=np.int64)
        cc = np.concatenate(cc) if cc else np.zeros(0, dtype=np.int64)
        vv = np.concatenate(vv) if vv else np.zeros(0)
        m.rows("capacity", sp.csr_array((vv, (rr, x0 + cc)), shape=(M * H, x0 + nV)), -np.inf, 1.0)
        # Σ_s f(s) x_s = f(last) y_last - Σ_{s<last} y_s for f(s) = s + D or s (telescoping)
        end_coef = np.where(is_last, (s + L.g_D[g_of]).astype(float), -1.0)
        start_coef = np.where(is_last, s.astype(float), -1.0)
    grow = task_row[g_of]  # each column's task row
    nt = len(task_ids)
    task_job = np.zeros(nt, dtype=np.int64)
    task_job[task_row] = L.g_job
    # C'_j - Σ (s + D) x >= 0 for each task of j
    A = sp.csr_array((np.r_[-end_coef, np.ones(nt)], (np.r_[grow, np.arange(nt)], np.r_[x0 + cols, c0 + task_job])),
                     shape=(nt, c0 + len(L.jobs)))
    m.rows("completion", A, 0.0, np.inf)
    # edge (a, b): Σ s x_u - C'_a >= 0 for every task u of b
    if len(L.edges):
        rows_r, rows_c, rows_v = [], [], []
        r = 0
        for a, b in L.edges.tolist():
            for u in np.flatnonzero(task_job == b):
                sel = np.flatnonzero(grow == u)
                rows_r.append(np.full(len(sel) + 1, r))
                rows_c.append(np.r_[x0 + sel, c0 + a])
                rows_v.append(np.r_[start_coef[sel], -1.0])
                r += 1
        m.rows("precedence", sp.csr_array((np.concatenate(rows_v), (np.concatenate(rows_r), np.concatenate(rows_c))),
                                          shape=(r, c0 + len(L.jobs))), 0.0, np.inf)
    if strong_precedence and len(L.edges) and form == "pulse":
        _add_strong_precedence(m, L, x0, s, s + L.g_D[g_of], grow, task_job, H)
    m.objective(c0 + np.arange(len(L.jobs)), L.weights)
    return m.finish(meta=L)


def _columns(L: SlotLayout):
    """The pulse form's start columns: each group's first column, each column's group and slot,
    each group's task numbered 0..nt-1, and the task ids in that numbering."""
    count = L.starts
    gfirst_col = np.concatenate([[0], np.cumsum(count)])
    g_of = np.repeat(np.arange(len(L.g_task)), count)
    s = L.g_first[g_of] + (np.arange(int(gfirst_col[-1])) - gfirst_col[g_of])
    task_ids = np.unique(L.g_task)
    return gfirst_col, g_of, s, np.searchsorted(task_ids, L.g_task), task_ids


CUTS_PER_PAIR = 20
"""Most rows :class:`SlotPrecedenceSeparation` returns for one pair of tasks in one round (its most
violated slots): related n_jobs 8 converged in 3-6 rounds with 300-550 rows in all."""


class SlotPrecedenceSeparation:
    """The slot-by-slot precedence rows of :func:`related_ti_lp_program` found lazily: for a
    cutting-plane loop (:func:`schedrelax.solvers.cutting_planes.cutting_planes_rows`) on the pulse
    program built with ``strong_precedence=False``.

    Called with the program's columns of a solution, it returns the rows
    Σ_{s <= τ} x_u[s] − Σ_{s + D <= τ} x_t[s] <= 0 (P(u started by τ) <= P(t ended by τ), for an edge
    (a, b), a task u of b and a task t of a) that the solution violates by more than *tol*, at most
    *per_pair* for each pair (its most violated slots), as a
    :class:`~schedrelax.models.queyranne.CutRows` batch; None when none is violated. They are the
    rows ``strong_precedence`` adds, written over the start columns instead of through cumulative
    variables, so the loop converges to the same optimum; and each round's optimum is a lower bound
    too (the LP with part of the rows). On related n_jobs 8 at δ = 1/64 of the longest task (seed 0)
    the loop took 4.2 s where the full program took 13.2 s, to the same optimum (690.525).
    """

    def __init__(self, program: MatrixProgram, per_pair: int = CUTS_PER_PAIR, tol: float = 1e-7):
        L: SlotLayout = program.meta
        self.n_cols = program.n_cols
        self.x0 = program.var_blocks["x"][0]
        self.per_pair = int(per_pair)
        self.tol = float(tol)
        _, g_of, s, task_row, task_ids = _columns(L)
        grow = task_row[g_of]
        self.start = s
        self.end = s + L.g_D[g_of]
        self.H = int(self.end.max()) + 2 if len(s) else 1
        task_job = np.zeros(len(task_ids), dtype=np.int64)
        task_job[task_row] = L.g_job
        self.cols = [np.flatnonzero(grow == t) for t in range(len(task_job))]
        self.pairs = [(int(t), int(u)) for a, b in L.edges.tolist() for u in np.flatnonzero(task_job == b)
                      for t in np.flatnonzero(task_job == a)]

    def _by(self, x: np.ndarray, cols: np.ndarray, slot: np.ndarray) -> np.ndarray:
        """P(slot <= τ) for τ = 0 .. H-1 over *cols*."""
        return np.cumsum(np.bincount(slot[cols], weights=x[cols], minlength=self.H))

    def __call__(self, x: np.ndarray):
        from schedrelax.models.queyranne import CutRows

        x = np.asarray(x, dtype=float)[self.x0:self.x0 + len(self.start)]
        started = {u: self._by(x, self.cols[u], self.start) for u in {u for _, u in self.pairs}}
        ended = {t: self._by(x, self.cols[t], self.end) for t in {t for t, _ in self.pairs}}
        rr, cc, vv = [], [], []
        q = 0
        for t, u in self.pairs:
            cu, ct = self.cols[u], self.cols[t]
            gap = started[u] - ended[t]
            viol = np.flatnonzero(gap > self.tol)
            for tau in viol[np.argsort(-gap[viol], kind="stable")][:self.per_pair].tolist():
                a, b = cu[self.start[cu] <= tau], ct[self.end[ct] <= tau]
                rr.append(np.full(len(a) + len(b), q))
                cc.append(self.x0 + np.r_[a, b])
                vv.append(np.r_[np.ones(len(a)), -np.ones(len(b))])
                q += 1
        if not q:
            return None
        A = sp.csr_array((np.concatenate(vv), (np.concatenate(rr), np.concatenate(cc))), shape=(q, self.n_cols))
        none = np.zeros(0, dtype=np.int64)
        return CutRows(A=A, row_lower=np.full(q, -np.inf), row_upper=np.zeros(q), col_lower=np.zeros(0),
                       row_group=np.arange(q), col_group=none, pair=np.full(q, -1), basic_cols=none,
                       tight_rows=none)


def _cumulative(m: ProgramBuilder, name: str, tasks: np.ndarray, slot: np.ndarray, grow: np.ndarray, x0: int,
                H: int) -> int:
    """Variables F[k, τ] = Σ_{columns of tasks[k] with slot <= τ} x, by F[k, τ] - F[k, τ-1] = Σ_{slot == τ} x;
    returns the block's first column."""
    pos = np.full(int(grow.max()) + 1 if len(grow) else 0, -1)
    pos[tasks] = np.arange(len(tasks))
    f0 = m.var(name, len(tasks) * H, 0.0, 1.0)
    row = np.arange(len(tasks) * H)
    tau = row % H
    sel = np.flatnonzero((pos[grow] >= 0) & (slot < H))
    r = np.r_[row, row[tau > 0], pos[grow[sel]] * H + slot[sel]]
    c = np.r_[f0 + row, f0 + row[tau > 0] - 1, x0 + sel]
    v = np.r_[np.ones(len(row)), -np.ones(int((tau > 0).sum())), -np.ones(len(sel))]
    m.rows(name, sp.csr_array((v, (r, c)), shape=(len(row), f0 + len(row))), 0.0, 0.0)
    return f0


def _add_strong_precedence(m: ProgramBuilder, L: SlotLayout, x0: int, start: np.ndarray, end: np.ndarray,
                           grow: np.ndarray, task_job: np.ndarray, H: int) -> None:
    """For an edge (a, b), a task u of b and a task t of a: P(u started by τ) <= P(t ended by τ), each τ."""
    pairs = [(t, u) for a, b in L.edges.tolist() for u in np.flatnonzero(task_job == b)
             for t in np.flatnonzero(task_job == a)]
    ts = np.unique([t for t, _ in pairs])
    us = np.unique([u for _, u in pairs])
    e0 = _cumulative(m, "ended_by", ts, end, grow, x0, H)
    b0 = _cumulative(m, "started_by", us, start, grow, x0, H)
    tpos = {int(t): k for k, t in enumerate(ts)}
    upos = {int(u): k for k, u in enumerate(us)}
    k = len(pairs) * H
    rr = np.repeat(np.arange(len(pairs)), H) * H + np.tile(np.arange(H), len(pairs))
    bc = np.concatenate([b0 + upos[int(u)] * H + np.arange(H) for _, u in pairs])
    ec = np.concatenate([e0 + tpos[int(t)] * H + np.arange(H) for t, _ in pairs])
    m.rows("precedence_by_slot", sp.csr_array((np.r_[np.ones(k), -np.ones(k)], (np.r_[rr, rr], np.r_[bc, ec])),
                                              shape=(k, b0 + len(us) * H)), -np.inf, 0.0)

