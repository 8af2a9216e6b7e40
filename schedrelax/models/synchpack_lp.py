"""Paper 003's relaxations as Pyomo models: LP1 (§3.1, eq. 9), LP2 (§4.1, eq. 13), LP3 (§5.1, eq. 20).

LP1 and LP2 are interval-indexed. The horizon is cut into intervals (d_{l-1}, d_l], d_l = u(1+ε)^l
(eq. 5; ε = 1 for LP2); z[q, l] is the fraction of placement pair q = (task, machine) processed in
interval l (LP1) or the indicator that the task completes on that machine by d_l (LP2); x[j, l] is
the relaxed indicator that job j completes in interval l, and C_j = Σ_l left_l x[j, l] (eq. 9g) with
left_l = d_{l-1}. LP3 orders jobs with linear-ordering variables δ_jj' on dedicated machines.

Every model's optimum is a lower bound on the optimum of its scheduling problem. Where the paper is
silent we chose, always keeping that property (each point is argued in the builder's docstring):

* Time unit. The paper assumes integral processing times with the shortest one >= 1; the grid's
  unit ``u`` is therefore the shortest usable processing time (d_0 = u), so instances in any unit
  give the paper's grid up to scale.
* Left point of the first interval. Eq. (9g) puts d_{-1} = 0, which lets a job whose tasks all fit
  in (0, d_0] have C_j = 0 and breaks the guarantees (a single task of length 1 has LP1 = 0 and
  every schedule pays 1). No job completes before the shortest processing time, so we use
  left_0 = min(d_0, shortest time) = u: still a lower bound, and Lemma 3 / eq. (18) then hold in
  interval 0 too.
* Horizon. d_L must reach the completion of every job in some optimal schedule. After the last
  release an optimal schedule never leaves every machine idle while work remains (shifting the rest
  earlier would help), so max_j r_j + Σ_tasks max_i p^i bounds it; L is the smallest with d_L >= that.
  (The paper's T of eq. (2) is no such bound when tasks can run on several machines.)
* Unusable machines. A placement machine whose capacity is below the task's demand can never run
  it: its z variables are left out (eq. 9d alone would not forbid them).
* Release times (the paper's LPs are offline). z = 0 in intervals ending at or before r_j, and the
  right side of (9c) is d_l - r_j where that is positive (its rows are empty before); in LP2 a task
  can only complete by d_l if r_j + p^i <= d_l.

The z variables an LP forces to 0 ((13b), and intervals before a release) are not created unless
``drop_dominated=False``, which creates them with upper bound 0, as eq. (13b) is written.

Two equivalent formulations are built (``formulation=``): ``"plain"`` is eq. (9) row for row, whose
cumulative rows (9c), (9d), (9f) cost O(L²) nonzeros each; ``"sparse"`` (the default) carries the
running sums in variables (F: fraction of a task done by d_l, S: its processing time, V: volume on
a machine, X: Σ_{l'<=l} x) so each row has O(1) + one-interval terms, drops rows that the others imply
((9c) in LP2, which (13b) and (9b) imply; (9d) for l where a machine's whole placement volume fits
in m_i·d_l), and fixes X at 0 in intervals a job cannot complete in. Same optimum, several times
fewer nonzeros.

Readers: :func:`interval_lp_solution` (LP1 and LP2) and :func:`lp3_solution` return numpy arrays.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import heapq
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo
import scipy.sparse as sp
from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression

from schedrelax._matrix import AT_LOWER, AT_UPPER, BASIC, MatrixProgram, ProgramBuilder, to_pyomo, vertex_statuses
from schedrelax.instances import PackingInstance
from schedrelax.instances._checks import flat_ranges, positions
from schedrelax.schedules import time_scale, time_slack

FORMULATIONS = ("sparse", "plain")
_TIME_TOL = 1e-9
"""Relative slack when comparing times with interval end points (floating-point powers)."""


# --------------------------------------------------------------------------------------------
# shared pieces
# --------------------------------------------------------------------------------------------

def add_linear_rows(model: pyo.Block, name: str, A: sp.csr_array, columns: Sequence, lower: np.ndarray,
                    upper: np.ndarray) -> None:
    """Add the rows ``lower <= A @ columns <= upper`` as one indexed Constraint called *name*.

    Rows are built straight from the CSR arrays as LinearExpressions (no Pyomo sums, no slicing),
    which is what keeps a 10^5-row model's build in seconds. A coefficient of exactly 1 enters as
    the bare variable: Pyomo's monomial objects cost microseconds each and dominate the build, so
    formulations put their many terms at +1. ``lower == upper`` gives equalities; ±inf bounds are
    absent.
    """
    A = sp.csr_array(A)
    ptr, ind, val = A.indptr.tolist(), A.indices.tolist(), A.data.tolist()
    terms = [columns[k] if v == 1.0 else MonomialTermExpression((v, columns[k])) for k, v in zip(ind, val)]
    lo = [None if not np.isfinite(v) else float(v) for v in lower]
    hi = [None if not np.isfinite(v) else float(v) for v in upper]

    def rule(_, r):
        body = LinearExpression(args=terms[ptr[r]:ptr[r + 1]])
        if lo[r] is not None and lo[r] == hi[r]:
            return (body, lo[r])
        return (lo[r], body, hi[r])

    model.add_component(name, pyo.Constraint(range(A.shape[0]), rule=rule))


@contextlib.contextmanager
def without_gc() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a model is built.

    A build allocates hundreds of thousands of Pyomo objects and no cycles worth collecting; the
    collector's repeated passes over them took 60-80 % of the build time (0.76 s -> 0.27 s for a
    50,000-variable LP2).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def usable_pairs(instance: PackingInstance) -> np.ndarray:
    """Indices into the placement arrays of the (task, machine) pairs whose machine is large
    enough for the task (§2.1: the task's demand must fit the machine's capacity)."""
    return np.flatnonzero(instance.demand[instance.place_task] <= instance.capacities[instance.place_machine])


def _explicit_usable(instance: PackingInstance) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(task, machine, time) of the explicit placement pairs whose machine fits the task."""
    q = np.flatnonzero(instance.demand[instance.explicit_task] <= instance.capacities[instance.explicit_machine])
    return instance.explicit_task[q], instance.explicit_machine[q], instance.explicit_time[q]


@dataclass(frozen=True)
class Columns:
    """The (task, resource) pairs an interval LP has variables for: ``task``, ``time``, and the
    volume rows each pair enters, as (pair, owner) lists: owners 0..M-1 are machines (capacity
    m_i), owners M + c machine classes (capacity |c|·m_c). ``machine`` is the pair's machine, or
    -1 for a class pool (``pool_class`` >= 0); ``pairs`` indexes the written-out placement arrays
    (-1 for a pool or when aggregated)."""

    task: np.ndarray
    machine: np.ndarray
    time: np.ndarray
    pool_class: np.ndarray
    pairs: np.ndarray
    row_pair: np.ndarray
    row_owner: np.ndarray
    owner_capacity: np.ndarray


def interval_columns(instance: PackingInstance, aggregate: bool) -> Columns:
    """The pairs of LP1/LP2: every usable (task, machine) pair of the written-out placement, or with
    ``aggregate`` the explicit usable pairs plus, per task with an elsewhere rule and per machine
    class c that fits it, one *pool* pair (task, c) standing for its elsewhere machines in c.

    Aggregated rows: each machine's volume row keeps its explicit pairs; each class with a pool
    gets the row Σ (volume of the class's pairs, explicit and pooled) <= |c|·m_c·d_l.

    Why this is a relaxation (its optimum is a lower bound on the written-out LP's, hence on the
    scheduling optimum): from a feasible written-out solution z, keep the explicit pairs and set
    z[t, c, l] = Σ_{i ∈ c, covered by t's rule} z[t, i, l]. Eq. (9b) and (9f) see the same sums;
    (9c) too, since every covered machine takes the same time e_t, so Σ_i e_t z[t, i, l] =
    e_t z[t, c, l]; a machine's row loses only non-negative terms; a class row is the sum of its
    members' rows, <= |c|·m_c·d_l. Same objective.

    Why it is exact on a *symmetric* class (no task lists any of its machines explicitly; e.g. every
    class with ``placement="any"``): from a feasible aggregated solution, spread each pool evenly,
    z[t, i, l] = z[t, c, l] / |c| for every member i (all of them covered by t's rule, with time
    e_t). (9b), (9c), (9f) and (13b) are unchanged; machine i's row is the class row divided by
    |c|, so <= m_c·d_l. Same objective. With both directions, the two optima are equal when every
    pooled class is symmetric: averaging a solution over the class's interchangeable machines
    loses nothing. On other classes the aggregated LP may be lower (still a bound).
    """
    M = instance.n_machines
    if not aggregate:
        pairs = usable_pairs(instance)
        qm = instance.place_machine[pairs]
        return Columns(task=instance.place_task[pairs], machine=qm, time=instance.place_time[pairs],
                       pool_class=np.full(len(pairs), -1), pairs=pairs, row_pair=np.arange(len(pairs)), row_owner=qm,
                       owner_capacity=np.asarray(instance.capacities, dtype=float))
    qt, qm, qp = _explicit_usable(instance)
    C = instance.n_classes
    size = np.diff(instance.class_offset)
    ruled = np.flatnonzero(np.isfinite(instance.elsewhere_time))
    # Pools: (task, class) for each ruled task and class that fits it, less the classes whose
    # every member the task lists explicitly.
    pt, pc = np.repeat(ruled, C), np.tile(np.arange(C), len(ruled))
    fits = instance.class_capacity[pc] >= instance.demand[pt]
    pt, pc = pt[fits], pc[fits]
    listed = np.zeros(len(pt), dtype=np.int64)
    if len(qt):
        key_listed, n_listed = np.unique(qt * C + instance.machine_class[qm], return_counts=True)
        at = np.searchsorted(key_listed, pt * C + pc)
        hit = (at < len(key_listed)) & (key_listed[np.minimum(at, len(key_listed) - 1)] == pt * C + pc)
        listed[hit] = n_listed[at[hit]]
    keep = size[pc] > listed
    pt, pc = pt[keep], pc[keep]
    n_x = len(qt)
    pooled = np.zeros(C, dtype=bool)
    pooled[pc] = True
    in_pool = np.flatnonzero(pooled[instance.machine_class[qm]])
    row_pair = np.r_[np.arange(n_x), in_pool, n_x + np.arange(len(pt))]
    row_owner = np.r_[qm, M + instance.machine_class[qm[in_pool]], M + pc]
    return Columns(task=np.r_[qt, pt], machine=np.r_[qm, np.full(len(pt), -1)],
                   time=np.r_[qp, instance.elsewhere_time[pt]], pool_class=np.r_[np.full(n_x, -1), pc],
                   pairs=np.full(n_x + len(pt), -1), row_pair=row_pair, row_owner=row_owner,
                   owner_capacity=np.r_[np.asarray(instance.capacities, dtype=float),
                                        size * instance.class_capacity])


# --------------------------------------------------------------------------------------------
# the interval grid (eqs. 5-6)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class IntervalGrid:
    """Geometric intervals (d_{l-1}, d_l], d_l = unit·(1+eps)^l for l = 0..L (paper 003 eq. 5).

    ``left[l]`` is the completion-time value of interval l in eq. (9g): d_{l-1}, except
    ``left[0]`` = min(d_0, shortest processing time) (see the module docstring).
    """

    d: np.ndarray
    left: np.ndarray
    eps: float
    unit: float
    horizon: float

    @property
    def L(self) -> int:
        return len(self.d) - 1

    @property
    def length(self) -> np.ndarray:
        """Δ_l of eq. (6) (in the grid's time unit)."""
        return np.diff(np.r_[0.0, self.d])


def interval_grid(instance: PackingInstance, eps: float = 1.0, unit: float | None = None) -> IntervalGrid:
    """The grid of paper 003 eq. (5) for *instance*: unit u (default the shortest usable processing
    time), d_l = u(1+ε)^l up to the first d_L >= max_j r_j + Σ_tasks max_i p^i (the horizon)."""
    if not (eps > 0 and math.isfinite(eps)):
        raise ValueError(f"eps must be a finite number > 0, got {eps!r}")
    qt, _, qp = _explicit_usable(instance)
    ruled = np.isfinite(instance.elsewhere_time)
    shortest = float(min(qp.min(initial=np.inf), instance.elsewhere_time.min()))
    u = shortest if unit is None else float(unit)
    if not (u > 0 and math.isfinite(u)):
        raise ValueError(f"unit must be a finite number > 0, got {unit!r}")
    longest = np.where(ruled, instance.elsewhere_time, 0.0)
    np.maximum.at(longest, qt, qp)
    horizon = float(instance.release.max() + longest.sum())
    L = max(0, int(np.ceil(np.log(horizon / u) / np.log1p(eps) - _TIME_TOL)))
    d = u * (1.0 + eps) ** np.arange(L + 1)
    while d[-1] < horizon * (1 - _TIME_TOL):  # guard against log rounding
        d = np.r_[d, d[-1] * (1.0 + eps)]
    left = np.r_[min(d[0], shortest), d[:-1]]
    return IntervalGrid(d=d, left=left, eps=float(eps), unit=u, horizon=horizon)


# --------------------------------------------------------------------------------------------
# LP1 and LP2
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class IntervalLayout:
    """What the reader needs to map an interval LP's variables back to the paper's z and x.

    Pair q is ``pairs[q]`` of the instance's placement arrays; its z variables are the columns
    ``z_pair == q`` at intervals ``z_l``.
    """

    lp: str
    formulation: str
    grid: IntervalGrid
    pairs: np.ndarray
    pair_task: np.ndarray
    pair_machine: np.ndarray
    pair_time: np.ndarray
    pair_class: np.ndarray
    z_pair: np.ndarray
    z_l: np.ndarray
    x_job: np.ndarray
    x_l: np.ndarray
    weights: np.ndarray


def build_lp1(instance: PackingInstance, *, eps: float = 1.0, unit: float | None = None,
              formulation: str = "sparse", drop_dominated: bool = True, aggregate: bool = False) -> pyo.ConcreteModel:
    """LP1 of paper 003 §3.1, eq. (9a)-(9h), for PRP|mgr|Σ w_j C_j (preemption and migration).

    z[q, l] is the fraction of task t(q)'s processing done on machine i(q) in (d_{l-1}, d_l]. Every
    row holds for every migratory schedule: (9b) the task is processed once; (9c) by d_l a task
    ran for at most d_l - r_j, since it runs on one machine at a time; (9d) machine i packs at most
    m_i·d_l volume by d_l; with x the indicator of the completion interval, (9f) holds because a job
    completed by d_l has each task fully processed by d_l, and (9g) C_j = d_{l-1} (or the shortest
    processing time for l = 0) is below the true completion time. The objective Σ w_j C_j is in
    the instance's time unit. See the module docstring for the grid, releases and formulations.
    """
    return _model(lp1_program(instance, eps=eps, unit=unit, formulation=formulation, drop_dominated=drop_dominated,
                              aggregate=aggregate))


def lp1_program(instance: PackingInstance, *, eps: float = 1.0, unit: float | None = None,
                formulation: str = "sparse", drop_dominated: bool = True, aggregate: bool = False,
                normalized: bool = False) -> MatrixProgram:
    """LP1 as arrays (:class:`schedrelax._matrix.MatrixProgram`): the rows :func:`build_lp1`'s
    Pyomo model is made of, for solvers that take matrices (HiGHS without Pyomo in between).
    ``aggregate``: elsewhere machines pooled per machine class (:func:`interval_columns`: a lower
    bound, the same optimum on symmetric classes); its pools have no machine to round to.

    ``normalized=True`` (what SynchPack-1 and -2 solve): the same LP with every time counted in
    the grid's unit u (so d_l = (1+ε)^l) and every weight over the largest. Its rows are the
    paper's divided by positive constants, with every time and release rounded down to a multiple
    of 2^-40 u (which only loosens them: still a relaxation, at most about 1e-12 below), and its
    objective is the paper's divided by u·max w, so the optimal solutions are those of the LP as
    written, to that rounding; :func:`interval_lp_solution` reads the solution on the
    instance's clock, and the optimum must be read there, not from the solver's objective value.
    Why: HiGHS's tolerances are absolute (1e-7, reduced costs included), so in the instance's unit
    an instance written in units of 1e-9 s (costs w·d_l of 1e-9) or of 1e6 s ended at another
    optimal vertex, and SynchPack's schedule reads the vertex: 69 (SynchPack-1) and 22
    (SynchPack-2) of 2,810 runs of the unit-invariance fuzz (seed 5) mapped back to another
    objective. The origin of time stays at 0: the paper's grid is measured from it."""
    return _interval_program(instance, interval_grid(instance, eps, unit), "LP1", formulation, drop_dominated,
                             aggregate, normalized)


def build_lp2(instance: PackingInstance, *, unit: float | None = None,
              formulation: str = "sparse", drop_dominated: bool = True, aggregate: bool = False) -> pyo.ConcreteModel:
    """LP2 of paper 003 §4.1, eq. (13), for PRP||Σ w_j C_j and PRP|pmtn|Σ w_j C_j (no migration):
    LP1's rows with ε = 1 and z[q, l] = 0 where the task cannot complete on machine i(q) by d_l
    (13b: p^i > d_l, or r_j + p^i > d_l with release times).

    Read z[q, l] as the indicator that the task completes on machine i(q) in interval l. A
    non-migratory schedule (preemptive or not) then satisfies (9b); (9c) since a task completed
    by d_l ran p^i <= d_l - r_j; (9d) since every task completed on i by d_l put all its volume
    on i before d_l; (9f)-(9h) as in LP1. The dropped variables are not created at all.
    """
    return _model(lp2_program(instance, unit=unit, formulation=formulation, drop_dominated=drop_dominated,
                              aggregate=aggregate))


def lp2_program(instance: PackingInstance, *, unit: float | None = None,
                formulation: str = "sparse", drop_dominated: bool = True, aggregate: bool = False,
                normalized: bool = False) -> MatrixProgram:
    """LP2 as arrays (see :func:`lp1_program`, also for ``aggregate`` and ``normalized``)."""
    return _interval_program(instance, interval_grid(instance, 1.0, unit), "LP2", formulation, drop_dominated,
                             aggregate, normalized)


def _model(program: MatrixProgram) -> pyo.ConcreteModel:
    with without_gc():
        return to_pyomo(program)


_QUANTUM = 2.0 ** -40
"""The normalized interval LPs' resolution, in units of the shortest time (:func:`lp1_program`)."""


def _quantum_floor(values):
    """*values* rounded down to a multiple of :data:`_QUANTUM`."""
    return np.floor(np.asarray(values, dtype=float) / _QUANTUM) * _QUANTUM


def _interval_program(instance: PackingInstance, grid: IntervalGrid, lp: str, formulation: str,
                      drop_dominated: bool, aggregate: bool = False, normalized: bool = False) -> MatrixProgram:
    if formulation not in FORMULATIONS:
        raise ValueError(f"formulation must be one of {', '.join(FORMULATIONS)}; got {formulation!r}")
    real_grid, real_cols = grid, interval_columns(instance, aggregate)
    w = np.asarray(instance.weights, dtype=float)
    task_job = instance.task_job
    if normalized:
        # In the grid's unit: d_l = (1+ε)^l exactly, and every time and release a multiple of
        # 2^-40 (of the shortest time), rounded down, so that the same instance in another unit
        # gives the same numbers bit for bit (p·s / (u·s) and p / u differ in the last place, and
        # one ulp sent HiGHS to another optimal vertex). Down keeps the LP a relaxation: shorter
        # times and earlier releases only loosen (9c), (9d) and (13b). Weights over the largest.
        tu = grid.unit
        d_n = (1.0 + grid.eps) ** np.arange(grid.L + 1)
        grid = IntervalGrid(d=d_n, left=np.r_[min(1.0, _quantum_floor(grid.left[0] / tu)), d_n[:-1]], eps=grid.eps,
                            unit=1.0, horizon=grid.horizon / tu)
        cols = dataclasses.replace(real_cols, time=_quantum_floor(real_cols.time / tu))
        r_task = _quantum_floor(instance.release[task_job] / tu)
        wu = float(w.max()) if len(w) and w.max() > 0 else 1.0
    else:
        cols, r_task, wu = real_cols, instance.release[task_job], 1.0
    d, L = grid.d, grid.L
    pairs = cols.pairs
    qt, qm, qp = cols.task, cols.machine, cols.time
    qa = instance.demand[qt]
    rq = r_task[qt]
    # A sliver of the grid's unit (its shortest time), not of the horizon: the test must not
    # change with the unit or the origin of time.
    slack = time_slack(grid.unit, float(d[-1]), _TIME_TOL)
    if lp == "LP1":  # (d_{l-1}, d_l] overlaps (r_j, ∞) once d_l > r_j
        first = np.searchsorted(d, rq + slack, side="right")
    else:  # (13b): complete by d_l needs r_j + p^i <= d_l
        first = np.searchsorted(d, rq + qp - slack, side="left")
    allowed = first
    if not drop_dominated:  # every (pair, interval) gets a variable, the forbidden ones fixed at 0
        first = np.zeros(len(pairs), dtype=np.int64)
    zq, zl = flat_ranges(first, np.full(len(pairs), L))
    nT, nJ = instance.n_tasks, instance.n_jobs
    task_first = np.full(nT, L + 1)
    np.minimum.at(task_first, qt, first)
    job_first = np.zeros(nJ, dtype=np.int64)
    np.maximum.at(job_first, task_job, task_first)

    m = ProgramBuilder(f"SynchPack {lp} ({formulation})")
    m.var("z", len(zq), 0.0, np.where(zl < allowed[zq], 0.0, np.inf))
    builder = _sparse_rows if formulation == "sparse" else _plain_rows
    x_job, x_l = builder(m, instance, grid, lp, cols, qa, r_task, zq, zl, task_first, job_first, w / wu)
    # The layout is on the instance's clock: the reader maps the solution back through it.
    return m.finish(IntervalLayout(lp=lp, formulation=formulation, grid=real_grid, pairs=pairs, pair_task=qt,
                                   pair_machine=qm, pair_time=real_cols.time, pair_class=cols.pool_class, z_pair=zq,
                                   z_l=zl, x_job=x_job, x_l=x_l, weights=w))


def _sparse_rows(m, instance, grid, lp, cols, qa, r_task, zq, zl, task_first, job_first, w):
    """The running-sum formulation (see the module docstring); returns the X columns' (job, l)."""
    d, left, L = grid.d, grid.left, grid.L
    qt, qp = cols.task, cols.time
    nT, M = instance.n_tasks, len(cols.owner_capacity)
    task_job = instance.task_job
    zt = qt[zq]

    # F[t, l] for l = first_t..L: fraction of task t done by d_l. F[t, L] = 1 is (9b).
    Ft, Fl = flat_ranges(task_first, np.full(nT, L))
    F_index = np.full((nT, L + 1), -1)
    F_index[Ft, Fl] = np.arange(len(Ft))
    F_hi = np.ones(len(Ft))
    F_lo = np.where(Fl == L, 1.0, 0.0)

    # (9c) in LP1: one machine per task gives a bound on F when the task's times agree; otherwise
    # a running sum S of processing time, kept only for the intervals where (9c) can bind.
    pmin = np.full(nT, np.inf)
    pmax = np.zeros(nT)
    np.minimum.at(pmin, qt, qp)
    np.maximum.at(pmax, qt, qp)
    budget = np.maximum(d[Fl] - r_task[Ft], 0.0)
    S_t = S_l = np.zeros(0, dtype=np.int64)
    if lp == "LP1":
        uniform = pmax[Ft] <= pmin[Ft] * (1 + 1e-12)
        F_hi = np.where(uniform, np.minimum(F_hi, budget / pmax[Ft]), F_hi)
        binds = ~uniform & (budget < pmax[Ft])
        last_binding = np.full(nT, -1)
        np.maximum.at(last_binding, Ft[binds], Fl[binds])
        S_t, S_l = flat_ranges(task_first, last_binding)
    S_index = np.full((nT, L + 1), -1)
    S_index[S_t, S_l] = np.arange(len(S_t))

    # V[i, l] for l = 0..last binding l: volume on machine i by d_l, at most m_i d_l (9d).
    caps = cols.owner_capacity
    vol = np.bincount(cols.row_owner, weights=(qa * qp)[cols.row_pair], minlength=M)
    # Rows only where they can bind: a machine never holds more than its whole placement volume.
    last_v = (caps[:, None] * d[None, :] < vol[:, None] * (1 - 1e-12)).sum(axis=1) - 1
    V_i, V_l = flat_ranges(np.zeros(M, dtype=np.int64), last_v)
    V_index = np.full((M, L + 1), -1)
    V_index[V_i, V_l] = np.arange(len(V_i))

    # X[j, l] = Σ_{l' <= l} x[j, l'] for l = first_j..L-1 (X = 0 before, X[j, L] = 1).
    nJ = instance.n_jobs
    X_j, X_l = flat_ranges(job_first, np.full(nJ, L - 1))
    X_index = np.full((nJ, L + 1), -1)
    X_index[X_j, X_l] = np.arange(len(X_j))

    oz = 0
    oF = m.var("F", len(Ft), F_lo, F_hi)
    oS = m.var("S", len(S_t), 0.0, np.maximum(d[S_l] - r_task[S_t], 0.0))
    oV = m.var("V", len(V_i), 0.0, caps[V_i] * d[V_l])
    oX = m.var("X", len(X_j), 0.0, 1.0)
    n_cols = oX + len(X_j)
    nz = len(zq)

    def running_sum(index, owner, level, z_owner, z_coef, offset, z_cols=None):
        """Rows Σ coef·z[·, l] + sum[o, l-1] - sum[o, l] = 0 for every existing sum[o, l]; the z
        columns are ``z_cols`` (default all, in order) with owners ``z_owner``."""
        n = len(owner)
        z_cols = np.arange(nz) if z_cols is None else z_cols
        rows = [np.arange(n), np.arange(n)]
        cols_ = [offset + np.arange(n), offset + index[owner, np.maximum(level - 1, 0)]]
        vals = [-np.ones(n), np.ones(n)]
        has_prev = (level > 0) & (index[owner, np.maximum(level - 1, 0)] >= 0)
        rows[1], cols_[1], vals[1] = rows[1][has_prev], cols_[1][has_prev], vals[1][has_prev]
        target = index[z_owner, zl[z_cols]]
        keep = target >= 0
        rows.append(target[keep])
        cols_.append(oz + z_cols[keep])
        vals.append(z_coef[keep])
        A = sp.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols_))), shape=(n, n_cols))
        return A, np.zeros(n)

    A, b = running_sum(F_index, Ft, Fl, zt, np.ones(nz), oF)
    m.rows("fraction_done", A, b, b)
    if len(S_t):
        A, b = running_sum(S_index, S_t, S_l, zt, qp[zq], oS)
        m.rows("time_done", A, b, b)
    # Each z column enters the rows of its pair's owners (a machine, and its class if pooled).
    by_pair = np.argsort(cols.row_pair, kind="stable")
    first_row = np.searchsorted(cols.row_pair[by_pair], zq, side="left")
    n_rows = np.searchsorted(cols.row_pair[by_pair], zq, side="right") - first_row
    z_col, k = flat_ranges(first_row, first_row + n_rows - 1)
    entry = by_pair[k]
    A, b = running_sum(V_index, V_i, V_l, cols.row_owner[entry], (qa * qp)[zq[z_col]], oV, z_cols=z_col)
    m.rows("volume_done", A, b, b)

    # x >= 0: X nondecreasing in l (X[j, L] = 1 is the constant bound of X[j, L-1] <= 1).
    mono = (X_l > job_first[X_j])
    k = np.flatnonzero(mono)
    A = sp.csr_array((np.r_[np.ones(len(k)), -np.ones(len(k))],
                      (np.r_[np.arange(len(k)), np.arange(len(k))], np.r_[oX + k, oX + X_index[X_j[k], X_l[k] - 1]])),
                     shape=(len(k), n_cols))
    m.rows("x_nonnegative", A, np.zeros(len(k)), np.full(len(k), np.inf))

    # (9f): F[t, l] - X[j, l] >= 0 for every task t of j.
    row_t, row_l = flat_ranges(job_first[task_job], np.full(nT, L - 1))
    n9f = len(row_t)
    A = sp.csr_array((np.r_[-np.ones(n9f), np.ones(n9f)],
                      (np.r_[np.arange(n9f), np.arange(n9f)],
                       np.r_[oX + X_index[task_job[row_t], row_l], oF + F_index[row_t, row_l]])),
                     shape=(n9f, n_cols))
    m.rows("job_done_by_task", A, np.zeros(n9f), np.full(n9f, np.inf))

    # Σ_j w_j C_j with C_j = left_L - Σ_{l<L} (left_{l+1} - left_l) X[j, l] (eq. 9g by parts).
    coef = -w[X_j] * (left[X_l + 1] - left[X_l])
    m.objective(oX + np.arange(len(X_j)), coef, float(w.sum() * left[L]))
    return X_j, X_l


def _plain_rows(m, instance, grid, lp, cols, qa, r_task, zq, zl, task_first, job_first, w):
    """Eq. (9b)-(9h) row for row (cumulative sums written out); returns the x columns' (job, l)."""
    d, left, L = grid.d, grid.left, grid.L
    qt, qp = cols.task, cols.time
    nT, nJ, M = instance.n_tasks, instance.n_jobs, len(cols.owner_capacity)
    task_job = instance.task_job
    caps = cols.owner_capacity
    zt = qt[zq]
    nz = len(zq)
    x_j, x_l = flat_ranges(np.zeros(nJ, dtype=np.int64), np.full(nJ, L))
    x_index = x_j * (L + 1) + x_l
    ox = m.var("x", len(x_j), 0.0, np.inf)
    oC = m.var("C", nJ)
    n_cols = oC + nJ

    def cumulative(owner_of_col, level_of_col, col_ids, coef, n_owner):
        """Rows (owner, l), l = 0..L, summing coef·col over the owner's columns with level <= l."""
        reps = L - level_of_col + 1
        rr = np.repeat(owner_of_col * (L + 1), reps) + flat_ranges(level_of_col, np.full(len(level_of_col), L))[1]
        return sp.csr_array((np.repeat(coef, reps), (rr, np.repeat(col_ids, reps))),
                            shape=(n_owner * (L + 1), n_cols))

    # (9b)
    A = sp.csr_array((np.ones(nz), (zt, np.arange(nz))), shape=(nT, n_cols))
    m.rows("task_processed", A, np.ones(nT), np.ones(nT))
    # (9c)
    A = cumulative(zt, zl, np.arange(nz), qp[zq], nT)
    rhs = np.maximum(d[None, :] - r_task[:, None], 0.0).ravel()
    keep = np.flatnonzero(np.diff(A.indptr) > 0)
    m.rows("task_time", A[keep], np.full(len(keep), -np.inf), rhs[keep])
    # (9d)
    by_pair = np.argsort(cols.row_pair, kind="stable")
    first_row = np.searchsorted(cols.row_pair[by_pair], zq, side="left")
    n_rows = np.searchsorted(cols.row_pair[by_pair], zq, side="right") - first_row
    z_col, k = flat_ranges(first_row, first_row + n_rows - 1)
    entry = by_pair[k]
    A = cumulative(cols.row_owner[entry], zl[z_col], z_col, (qa * qp)[zq[z_col]], M)
    rhs = (caps[:, None] * d[None, :]).ravel()
    keep = np.flatnonzero(np.diff(A.indptr) > 0)
    m.rows("machine_volume", A[keep], np.full(len(keep), -np.inf), rhs[keep])
    # (9f): Σ_{l'<=l} x[j, l'] - Σ_{l'<=l} Σ_i z[t, i, l'] <= 0 for each task t of job j
    Ax = cumulative(x_j, x_l, ox + np.arange(len(x_j)), np.ones(len(x_j)), nJ)[
        (task_job[:, None] * (L + 1) + np.arange(L + 1)[None, :]).ravel()]
    Az = cumulative(zt, zl, np.arange(nz), np.ones(nz), nT)
    m.rows("job_done_by_task", Ax - Az, np.full(nT * (L + 1), -np.inf), np.zeros(nT * (L + 1)))
    # (9g) and (9h)
    A = sp.csr_array((np.r_[np.ones(nJ), -left[x_l]],
                      (np.r_[np.arange(nJ), x_j], np.r_[oC + np.arange(nJ), ox + x_index])), shape=(nJ, n_cols))
    m.rows("completion", A, np.zeros(nJ), np.zeros(nJ))
    A = sp.csr_array((np.ones(len(x_j)), (x_j, ox + x_index)), shape=(nJ, n_cols))
    m.rows("job_completes", A, np.ones(nJ), np.ones(nJ))
    m.objective(oC + np.arange(nJ), w)
    return x_j, x_l


@dataclass(frozen=True)
class IntervalLPSolution:
    """A solved LP1 or LP2 as arrays: ``z[q, l]`` per usable placement pair q (see ``pair_*``) and
    interval l, ``x[j, l]``, the completion times C_j of eq. (9g) and the objective Σ w_j C_j;
    ``pair_class`` is a pair's machine class where it is a pool (aggregated LP), else -1."""

    lp: str
    grid: IntervalGrid
    pair_task: np.ndarray
    pair_machine: np.ndarray
    pair_time: np.ndarray
    z: np.ndarray
    x: np.ndarray
    completion: np.ndarray
    objective: float
    pair_class: np.ndarray | None = None


def solved_values(solved) -> tuple[object, Callable[[str], np.ndarray]]:
    """The layout of a solved model and a reader of its variable blocks by name: *solved* is the
    Pyomo model a builder returned (after a solve), or the solution of its program
    (:func:`schedrelax.solvers.solve_program`: anything with ``program.meta`` and ``value(name)``)."""
    if isinstance(solved, pyo.Block):
        return solved.layout, lambda name: _values(getattr(solved, name))
    return solved.program.meta, solved.value


def interval_lp_solution(model) -> IntervalLPSolution:
    """Read a solved :func:`build_lp1` / :func:`build_lp2` model (or the solution of
    :func:`lp1_program` / :func:`lp2_program`) back into numpy arrays."""
    lay, value = solved_values(model)
    L = lay.grid.L
    z = np.zeros((len(lay.pairs), L + 1))
    z[lay.z_pair, lay.z_l] = value("z")
    nJ = len(lay.weights)
    if lay.formulation == "sparse":
        X = np.zeros((nJ, L + 1))
        X[lay.x_job, lay.x_l] = value("X")
        X[:, L] = 1.0
        x = np.diff(np.c_[np.zeros(nJ), X], axis=1)
    else:
        x = np.zeros((nJ, L + 1))
        x[lay.x_job, lay.x_l] = value("x")
    completion = x @ lay.grid.left
    return IntervalLPSolution(lp=lay.lp, grid=lay.grid, pair_task=lay.pair_task, pair_machine=lay.pair_machine,
                              pair_time=lay.pair_time, z=z, x=x, completion=completion,
                              objective=float(lay.weights @ completion), pair_class=lay.pair_class)


def spread_pools(instance: PackingInstance, sol: IntervalLPSolution) -> IntervalLPSolution:
    """An LP1/LP2 solution over real machines from an aggregated one (:func:`interval_columns`),
    with the same objective, or ValueError when none is found.

    Interval by interval, each pooled fraction of a class goes whole to the class machine with
    the most room left that its task does not list, and is split only where it exceeds that room.
    A machine's room at interval l is min over l' >= l of (m_c·d_l' - its explicit volume by
    d_l'), less the pooled volume it already holds: what later explicit volume still needs is
    kept free. Every machine's cumulative volume then stays within m_c·d_l for every l; the task
    rows (9b), (9c), (13b) and the x, C values are untouched; so the result is feasible for the
    written-out LP with the aggregated LP's objective. Since the aggregated optimum is a lower
    bound on the written-out one, a spread that succeeds is an optimal written-out solution — a
    certificate that pooling lost nothing. It always succeeds on symmetric classes (no task
    lists a machine of the class: the class row is then all that binds); elsewhere it may fail
    (the aggregated LP can be strictly lower), and then raises ValueError.
    """
    pc = sol.pair_class if sol.pair_class is not None else np.full(len(sol.pair_task), -1)
    pools = np.flatnonzero(pc >= 0)
    if not len(pools):
        return sol
    M = instance.n_machines
    explicit = np.flatnonzero(pc < 0)
    d, L1 = sol.grid.d, sol.grid.L + 1
    explicit_volume = np.zeros((M, L1))
    np.add.at(explicit_volume, sol.pair_machine[explicit],
              (instance.demand[sol.pair_task[explicit]] * sol.pair_time[explicit])[:, None] * sol.z[explicit])
    vol_unit = instance.demand[sol.pair_task[pools]] * sol.pair_time[pools]  # volume of a whole pooled task
    off, named = instance.explicit_offset, instance.explicit_machine
    out_q, out_m, out_l, out_z = [], [], [], []
    for c in np.unique(pc[pools]).tolist():
        members = instance.class_member[instance.class_offset[c]:instance.class_offset[c + 1]]
        cap = float(instance.class_capacity[c])
        free = cap * d[None, :] - np.cumsum(explicit_volume[members], axis=1)
        budget = np.minimum.accumulate(free[:, ::-1], axis=1)[:, ::-1]  # room kept for later explicit volume
        held = np.zeros(len(members))
        mine = np.flatnonzero(pc[pools] == c)
        for lv in range(L1):
            heap = list(zip((held - budget[:, lv]).tolist(), range(len(members))))
            heapq.heapify(heap)
            slack = 1e-7 * max(1.0, cap * d[lv])  # the LP solver's tolerance, in volume
            for q in mine[sol.z[pools[mine], lv] > 0].tolist():
                v = float(sol.z[pools[q], lv] * vol_unit[q])
                t = int(sol.pair_task[pools[q]])
                banned = set(named[off[t]:off[t + 1]].tolist())
                aside = []
                while v > 0:
                    if not heap:
                        raise ValueError(f"cannot spread task {t}'s pooled volume over machine class {c}: every "
                                         f"machine it may use is full (the aggregated LP is below the written-out "
                                         f"one here)")
                    neg, k = heapq.heappop(heap)
                    if int(members[k]) in banned:
                        aside.append((neg, k))
                        continue
                    room = -neg
                    if room < v and room <= slack:
                        if v > slack:
                            raise ValueError(f"cannot spread task {t}'s pooled volume over machine class {c} in "
                                             f"interval {lv}: {v:g} left and no room (the aggregated LP is below "
                                             f"the written-out one here)")
                        take = v  # within the solver's tolerance
                    else:
                        take = min(v, room)
                    out_q.append(pools[q])
                    out_m.append(int(members[k]))
                    out_l.append(lv)
                    out_z.append(take / vol_unit[q])
                    held[k] += take
                    heapq.heappush(heap, (neg + take, k))
                    v -= take
                for e in aside:
                    heapq.heappush(heap, e)
    q, m_, lv = (np.asarray(a, dtype=np.int64) for a in (out_q, out_m, out_l))
    zv = np.asarray(out_z, dtype=float)
    key, inv = np.unique(sol.pair_task[q] * M + m_, return_inverse=True)
    z_new = np.zeros((len(key), L1))
    np.add.at(z_new, (inv, lv), zv)
    first = np.zeros(len(key), dtype=np.int64)
    first[inv] = q
    # The task's listed machines are banned above: its spread pairs never repeat an explicit one.
    return IntervalLPSolution(
        lp=sol.lp, grid=sol.grid, pair_task=np.r_[sol.pair_task[explicit], key // M],
        pair_machine=np.r_[sol.pair_machine[explicit], key % M], pair_time=np.r_[sol.pair_time[explicit],
                                                                                   sol.pair_time[first]],
        z=np.r_[sol.z[explicit], z_new], x=sol.x, completion=sol.completion, objective=sol.objective,
        pair_class=np.full(len(explicit) + len(key), -1))


def _values(var: pyo.Var) -> np.ndarray:
    return np.fromiter((0.0 if v.value is None else v.value for v in var.values()), dtype=float, count=len(var))


# --------------------------------------------------------------------------------------------
# LP3
# --------------------------------------------------------------------------------------------

def dedicated_placement(instance: PackingInstance) -> tuple[np.ndarray, np.ndarray] | None:
    """Each task's single usable machine and its time there (PDP of §5: ``instance.time_on(t,
    machine[t])``), or None if some task has several."""
    # Counted on the compressed placement: an elsewhere rule over thousands of machines answers
    # None without writing them out.
    task, mach, time = _explicit_usable(instance)
    count = np.bincount(task, minlength=instance.n_tasks) + instance.elsewhere_count
    if (count != 1).any():
        return None
    machine = np.empty(instance.n_tasks, dtype=np.int64)
    machine[task] = mach
    ptime = np.array(instance.elsewhere_time, dtype=float)
    ptime[task] = time
    for t in np.flatnonzero(instance.elsewhere_count).tolist():
        machine[t] = instance.elsewhere_machines(t)[0]
    return machine, ptime


def dedicated_machine(instance: PackingInstance) -> np.ndarray | None:
    """Each task's single usable machine (PDP of §5), or None if some task has several."""
    placed = dedicated_placement(instance)
    return None if placed is None else placed[0]


@dataclass(frozen=True)
class LP3Layout:
    """What :func:`lp3_solution` and :class:`LP3Basis` need: the job pair of each δ variable, the
    weights, and the job and machine of each row."""

    pair_first: np.ndarray
    pair_second: np.ndarray
    weights: np.ndarray
    row_job: np.ndarray
    row_machine: np.ndarray
    origin: float = 0.0
    unit: float = 1.0


def build_lp3(instance: PackingInstance) -> pyo.ConcreteModel:
    """LP3 of paper 003 §5.1, eq. (20a)-(20e), for PDP|pmtn|Σ w_j C_j (each task on one machine),
    with Remark 1's extension to several tasks of a job on one machine.

    v_ij is the total volume of job j's tasks on machine i (Remark 1: by C_j all of them are done),
    p_ij their longest processing time. (20b) m_i C_j >= v_ij + Σ_{j'≠j} v_ij' δ_j'j holds because
    by C_j machine i has processed j's volume and that of every job completed before j; (20c)
    C_j >= r_j + p_ij (the paper's p_ij, plus the release time, which is 0 offline). One variable
    δ[e] per pair e = (j < j') of jobs sharing a machine, δ_jj' = δ[e] and δ_j'j = 1 - δ[e], is
    (20d); pairs sharing no machine appear in no row and are left out. Raises ValueError if a task
    has more than one usable machine.

    This is the paper's LP on the instance's clock; SynchPack-3 solves the normalized one of
    :func:`lp3_program`.
    """
    return _model(lp3_program(instance))


def lp3_program(instance: PackingInstance, *, normalized: bool = False) -> MatrixProgram:
    """LP3 as arrays (see :func:`lp1_program`); ValueError as :func:`build_lp3`.

    ``normalized=True`` (what SynchPack-3 solves): time measured from the earliest release r_min
    and counted in units of the shortest processing time (the layout's ``origin`` and ``unit``),
    the objective Σ_j (w_j / max w) C_j in those terms; :func:`lp3_solution` maps the solution
    back to the instance's clock, and the LP3 optimum must be read there, not from the solver's
    objective value. (20b) then reads m_i (C_j - r_min) >= ...: no work is done before r_min, so
    the LP is valid and, where a release is not 0, tighter than the paper's (whose releases are
    all 0, where the two are one LP). Why:

    * from 0, the volume rows of an instance whose releases are far from 0 are slack beside
      (20c), the δ arbitrary and the job order with them: the same instance with every release
      shifted got another schedule (43 of 840 shifted SynchPack-3 runs of the unit-invariance
      fuzz);
    * in the instance's unit the solver's absolute tolerances (1e-7, reduced costs included) are
      small beside every time and weight: written in units of 1e-9 s, 13 of 4,225 runs got
      another job order. The unit is the shortest time itself, not the nearest power of 2: with
      that (an exact scaling, but the same LP only up to a factor below 1.42) HiGHS still ended
      at another optimal vertex on some, and the order reads the vertex.
    """
    placed = dedicated_placement(instance)
    if placed is None:
        raise ValueError("LP3 (paper 003 §5) needs every task to have exactly one usable machine "
                         "(single-machine placement, PDP)")
    machine, pt = placed
    nJ = instance.n_jobs
    M = instance.n_machines
    caps = np.asarray(instance.capacities, dtype=float)
    tj = instance.task_job
    key = tj * M + machine
    uniq, inv = np.unique(key, return_inverse=True)
    vol = np.bincount(inv, weights=instance.demand * pt)
    longest = np.zeros(len(uniq))
    np.maximum.at(longest, inv, pt)
    row_job, row_mach = uniq // M, uniq % M
    origin = float(np.min(instance.release)) if nJ and normalized else 0.0
    shortest = time_scale(instance)
    unit = shortest if normalized and 0 < shortest < np.inf else 1.0
    release = (np.asarray(instance.release, dtype=float) - origin) / unit
    longest = longest / unit
    vol = vol / unit
    lower = release.copy()
    np.maximum.at(lower, row_job, release[row_job] + longest)

    # Ordered pairs (row of job j on machine i, other job j' on i): sort rows by machine.
    order = np.lexsort((row_job, row_mach))
    rj, ri, rv = row_job[order], row_mach[order], vol[order]
    starts = np.searchsorted(ri, np.arange(M))
    ends = np.searchsorted(ri, np.arange(M), side="right")
    size = (ends - starts)[ri]
    a = np.repeat(np.arange(len(rj)), size)
    b = starts[ri][a] + (np.arange(len(a)) - np.repeat(np.cumsum(size) - size, size))
    keep = a != b
    a, b = a[keep], b[keep]
    j, jo = rj[a], rj[b]
    lo_j, hi_j = np.minimum(j, jo), np.maximum(j, jo)
    pair_key, pair_id = np.unique(lo_j * nJ + hi_j, return_inverse=True)

    m = ProgramBuilder("SynchPack LP3")
    m.var("C", nJ, lower, np.inf)
    m.var("delta", len(pair_key), 0.0, 1.0)
    # m_i C_j - Σ_{j'<j} v_ij' δ[(j', j)] + Σ_{j'>j} v_ij' δ[(j, j')] >= v_ij + Σ_{j'>j} v_ij'
    sign = np.where(jo < j, -1.0, 1.0)
    A = sp.csr_array((np.r_[caps[ri], sign * rv[b]], (np.r_[np.arange(len(rj)), a], np.r_[rj, nJ + pair_id])),
                     shape=(len(rj), nJ + len(pair_key)))
    rhs = rv + np.bincount(a, weights=np.where(jo > j, rv[b], 0.0), minlength=len(rj))
    m.rows("machine_volume", A, rhs, np.full(len(rj), np.inf))
    w = np.asarray(instance.weights, dtype=float)
    # In units of the time unit and of the largest weight: HiGHS's absolute tolerances (1e-7 on
    # reduced costs too) would take coefficients w·unit of 1e-8 for zeros and stop anywhere.
    w_unit = float(w.max()) if normalized and nJ and w.max() > 0 else 1.0
    m.objective(np.arange(nJ), w / w_unit)
    return m.finish(LP3Layout(pair_first=pair_key // nJ, pair_second=pair_key % nJ, weights=w, row_job=rj,
                              row_machine=ri, origin=origin, unit=unit))


@dataclass(frozen=True)
class LP3Solution:
    """A solved LP3: completion times C_j, the objective, and δ[e] = δ_{first[e], second[e]}."""

    completion: np.ndarray
    objective: float
    pair_first: np.ndarray
    pair_second: np.ndarray
    delta: np.ndarray


def lp3_solution(model) -> LP3Solution:
    """Read a solved :func:`build_lp3` model (or the solution of :func:`lp3_program`) back into
    numpy arrays."""
    lay, value = solved_values(model)
    C = value("C") * lay.unit + lay.origin
    return LP3Solution(completion=C, objective=float(lay.weights @ C), pair_first=lay.pair_first,
                       pair_second=lay.pair_second, delta=value("delta"))


_KEY = np.int64(1) << 32
"""Two indices (jobs, or a job and a machine; each < 2^31) as one int64 key: first · 2^32 + second."""


@dataclass(frozen=True)
class LP3Basis:
    """Basis statuses of an LP3 solution keyed by what they belong to, not by position: C_j by job
    j, δ by its job pair (first < second), each row by its (job, machine). It carries over to the
    LP3 of another instance that shares jobs with this one (online re-planning: the next
    sub-instance keeps most jobs, with less work left) once its job numbers are mapped
    (:meth:`renumber`); :meth:`statuses` gives the statuses of that LP3's columns and rows, new
    ones nonbasic at their lower bound (columns) or basic (rows: slack basic), for a solver to
    start its simplex from (:func:`schedrelax.solvers.solve_program`'s ``basis``: HiGHS completes
    an incomplete one). Statuses: :data:`schedrelax._matrix.BASIC` and its siblings."""

    job: np.ndarray
    job_status: np.ndarray
    pair_first: np.ndarray
    pair_second: np.ndarray
    pair_status: np.ndarray
    row_job: np.ndarray
    row_machine: np.ndarray
    row_status: np.ndarray

    @classmethod
    def of(cls, program: MatrixProgram, x: np.ndarray) -> LP3Basis:
        """The statuses at the solution *x* of :func:`lp3_program`'s *program*
        (:func:`schedrelax._matrix.vertex_statuses`)."""
        lay: LP3Layout = program.meta
        col, row = vertex_statuses(program, x)
        nJ = len(lay.weights)
        return cls(job=np.arange(nJ), job_status=col[:nJ], pair_first=lay.pair_first, pair_second=lay.pair_second,
                   pair_status=col[nJ:], row_job=lay.row_job, row_machine=lay.row_machine, row_status=row)

    def renumber(self, old_to_new: np.ndarray) -> LP3Basis:
        """The statuses with job j renamed ``old_to_new[j]``; jobs mapped to -1 are dropped with
        their pairs and rows. A pair whose order flips keeps its meaning: δ of (b, a) is 1 - δ of
        (a, b), so at-lower and at-upper swap."""
        old_to_new = np.asarray(old_to_new, dtype=np.int64)
        job = old_to_new[self.job]
        a, b = old_to_new[self.pair_first], old_to_new[self.pair_second]
        keep_p = (a >= 0) & (b >= 0)
        a, b, st = a[keep_p], b[keep_p], self.pair_status[keep_p]
        flip = a > b
        st = np.where(flip & (st == AT_LOWER), AT_UPPER, np.where(flip & (st == AT_UPPER), AT_LOWER, st))
        rj = old_to_new[self.row_job]
        keep_r = rj >= 0
        return LP3Basis(job=job[job >= 0], job_status=self.job_status[job >= 0], pair_first=np.minimum(a, b),
                        pair_second=np.maximum(a, b), pair_status=st, row_job=rj[keep_r],
                        row_machine=self.row_machine[keep_r], row_status=self.row_status[keep_r])

    def statuses(self, program: MatrixProgram) -> tuple[np.ndarray, np.ndarray]:
        """Column and row statuses for :func:`lp3_program`'s *program*: what this basis holds for
        the same job, pair or (job, machine), the defaults of the class docstring elsewhere."""
        lay: LP3Layout = program.meta
        nJ = len(lay.weights)
        c_status = _carried(self.job, self.job_status, np.arange(nJ), AT_LOWER)
        p_status = _carried(self.pair_first * _KEY + self.pair_second, self.pair_status,
                            lay.pair_first * _KEY + lay.pair_second, AT_LOWER)
        r_status = _carried(self.row_job * _KEY + self.row_machine, self.row_status,
                            lay.row_job * _KEY + lay.row_machine, BASIC)
        return np.r_[c_status, p_status], r_status


def _carried(keys: np.ndarray, status: np.ndarray, wanted: np.ndarray, default: int) -> np.ndarray:
    """The status held for each wanted key, *default* where none is."""
    at = positions(keys, wanted)
    return np.where(at >= 0, status[np.maximum(at, 0)] if len(status) else default, default).astype(np.int64)

