"""Paper 004 §III-A/B (S-PC, Aggarwal et al.): LP-Schedule (1)-(4) over Queyranne's
constraint set, its O(n log n) separation oracle (Definition 1, Lemma 1), and the cuts a
cutting-plane loop adds.

LP-Schedule, with C_j the completion time of job j::

    min  Σ_j w_j C_j                                                    (1)
    s.t. Σ_{j∈S} p_j C_j >= f(S)             for every job set S        (2)
         C_j >= p_j/μ_j + r_j                 for every job j            (3)
         C_j >= p_j/μ_j + C_j'                for every edge (j', j)     (4)

    f(S) = Σ_{j∈S} p_j²/(2 μ_j) + (Σ_{j∈S} p_j)²/(2 μ)

Why every constraint holds for every feasible schedule (so the LP is a lower bound). At any moment
job j runs at most q_j = min(t_j, m) of its tasks, on distinct machines, so it processes data at a
rate of at most μ_j (the q_j fastest speeds): it needs at least p_j/μ_j time after its release (3)
and after its predecessors complete (4). For (2), let x_j(t) be j's processing rate: 0 <= x_j <= μ_j
and Σ_j x_j <= μ. Its mean busy time M_j = (1/p_j) ∫ t x_j(t) dt is at most C_j − p_j/(2μ_j) (the
latest the work can sit is at rate μ_j just before C_j), and Σ_{j∈S} p_j M_j = ∫ t Σ_S x_j dt is at
least P(S)²/(2μ) (the work of S done as early as the total rate μ allows). Adding up gives (2).

Substituting d_j = C_j − p_j/(2μ_j) turns (2) into Σ_{j∈S} p_j d_j >= P(S)²/(2μ), and since
P(S)²/(2μ) = max_t (t P(S) − μ t²/2), family (2) is equivalent to one inequality per time t::

    Σ_j p_j (t − d_j)^+ <= μ t²/2            for every t >= 0           (2')

:class:`QueyranneCuts` adds both kinds lazily: prefix cuts (members of (2), found by the oracle)
and *fluid cuts* (2') at the times t = P(S)/μ of the most violated prefixes, written with one
auxiliary u_j >= (t − d_j)^+ per job. A fluid cut is implied by (2), so it leaves the LP's optimum
unchanged; it covers at once every set whose mean busy times straddle t, which is what makes the
loop converge in few rounds when precedence constraints interleave the jobs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count

import numpy as np
import pyomo.environ as pyo
import scipy.sparse as sp

from schedrelax._matrix import AT_LOWER, AT_UPPER, BASIC, LPEdit, MatrixProgram
from schedrelax.instances import RelatedInstance

STALL_ROUNDS = 2
"""Rounds in a row in which the cuts did not move the point, after which :class:`QueyranneCuts`
changes its cuts (and, if that happens again, gives up)."""

SAME_POINT = 1e-9
"""The point has not moved when no C_j changed by more than this times the largest |C_j|."""

CUT_MODES = ("most", "prefixes", "fluid")
"""What :class:`QueyranneCuts` adds per round: ``"most"`` the most violated prefix (Definition 1
as the paper states it), ``"prefixes"`` every violated prefix (one running-sum chain),
``"fluid"`` every violated prefix plus fluid cuts (2') at the worst local maxima."""


# --------------------------------------------------------------------------------------------
# The data of LP-Schedule
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class ScheduleLPData:
    """The numbers LP-Schedule reads from a related instance (paper 004 §II notation).

    ``lower`` is the largest right-hand side constraints (3)-(4) imply for each C_j: the longest
    path through the DAG with node lengths p_j/μ_j, starting from the release times.
    """

    p: np.ndarray
    mu_j: np.ndarray
    mu: float
    weights: np.ndarray
    release: np.ndarray
    edges: np.ndarray
    lower: np.ndarray = field(repr=False)

    @classmethod
    def of(cls, instance: RelatedInstance) -> ScheduleLPData:
        """The data of *instance*, with the lower bounds (3)-(4) imply (paper 004 §III-A)."""
        p, mu_j = instance.p, instance.mu_j
        edges = np.asarray(instance.edges, dtype=np.int64).reshape(-1, 2)
        return cls(p, mu_j, instance.mu, instance.weights, instance.release, edges,
                   completion_lower_bounds(p / mu_j, instance.release, edges))

    @property
    def n(self) -> int:
        return len(self.p)


def completion_lower_bounds(length: np.ndarray, release: np.ndarray, edges: np.ndarray,
                            floor: np.ndarray | None = None) -> np.ndarray:
    """Paper 004 (3)-(4) chained: C_j >= length_j + max(r_j, max over predecessors of their bound).

    With *floor*, each bound is at least ``floor[j]`` too: the least completion times at or above
    *floor* that meet (3)-(4) exactly (what :func:`lp_upper_bound` raises a solver's point to)."""
    n = len(length)
    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = np.zeros(n, dtype=np.int64)
    for a, b in edges.tolist():
        succ[a].append(b)
        indeg[b] += 1
    start = np.asarray(release, dtype=float).copy()
    bound = np.empty(n)
    ready = np.flatnonzero(indeg == 0).tolist()
    while ready:
        j = ready.pop()
        bound[j] = start[j] + length[j] if floor is None else max(float(floor[j]), start[j] + length[j])
        for s in succ[j]:
            start[s] = max(start[s], bound[j])
            indeg[s] -= 1
            if indeg[s] == 0:
                ready.append(s)
    return bound


def queyranne_rhs(p: np.ndarray, mu_j: np.ndarray, mu: float) -> float:
    """f(S) of paper 004 §III-A for the jobs with sizes *p* and speeds *mu_j*."""
    return float(np.sum(p * p / (2 * mu_j)) + np.sum(p) ** 2 / (2 * mu))


# --------------------------------------------------------------------------------------------
# The separation oracle
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class PrefixViolations:
    """The prefixes {τ(1), ..., τ(k)} of Definition 1 and how far C violates (2) on each.

    ``order`` is τ; ``rhs[k]`` is f of the prefix of length k+1, ``lhs[k]`` its Σ p_j C_j, so
    ``violation = rhs − lhs`` is V of Definition 1 and ``relative = violation / rhs``.
    """

    order: np.ndarray
    rhs: np.ndarray
    lhs: np.ndarray

    @property
    def violation(self) -> np.ndarray:
        return self.rhs - self.lhs

    @property
    def relative(self) -> np.ndarray:
        return self.violation / self.rhs

    @property
    def most_violated(self) -> int:
        """Index k of the prefix with the largest V (the S* of Definition 1 is order[:k+1])."""
        return int(np.argmax(self.violation))

    def violated(self, tol: float = 0.0) -> np.ndarray:
        """Indices k of the prefixes violated by more than *tol* relative to f."""
        return np.flatnonzero(self.relative > tol)


def queyranne_separation(C: np.ndarray, p: np.ndarray, mu_j: np.ndarray, mu: float) -> PrefixViolations:
    """Definition 1 and Lemma 1 of paper 004 §III-B: every prefix of the order of C_j − p_j/(2μ_j).

    O(n log n) (one sort, then prefix sums). By Lemma 1 the most violated set of (2) is one of
    these prefixes: with d_j = C_j − p_j/(2μ_j), V(S) = P(S)²/(2μ) − Σ_S p_j d_j, and at a
    maximiser S* adding a job y outside changes V by p_y (P(S*)/μ + p_y/(2μ) − d_y) <= 0 while
    removing x inside changes it by −p_x (P(S*)/μ − p_x/(2μ) − d_x) <= 0, so
    d_x < P(S*)/μ < d_y: S* is a prefix of the order of d whatever the ties. (This needs
    V(S*) >= 0 = V(empty set) for the removals; when no set is violated no prefix is either,
    which is all a separation oracle must tell.)
    """
    C = np.asarray(C, dtype=float)
    order = np.argsort(C - p / (2 * mu_j), kind="stable")
    ps = p[order]
    rhs = np.cumsum(ps * ps / (2 * mu_j[order])) + np.cumsum(ps) ** 2 / (2 * mu)
    lhs = np.cumsum(ps * C[order])
    return PrefixViolations(order, rhs, lhs)


def feasible_shift(C: np.ndarray, p: np.ndarray, mu_j: np.ndarray, mu: float) -> float:
    """The least c >= 0 such that C + c (every job delayed by c) meets every inequality of (2).

    Exact, in O(n log n). With d_j = C_j − p_j/(2μ_j), C + c meets (2) iff for every s
    Σ_j p_j (s − d_j)^+ <= μ (s + c)²/2 (form (2') at t = s + c), i.e. c >= g(s) =
    sqrt(2 Φ(s)/μ) − s with Φ(s) = Σ_j p_j (s − d_j)^+. Between consecutive sorted d, with the
    k jobs below s, Φ(s) = A s − B (A = P_k, B = Σ p_j d_j over them), and g is concave there, with
    its stationary point at s* = A/(2μ) + B/A (where g = V(prefix k)/P_k, V of Definition 1); so the
    maximum of g is at s* clipped to each piece. Delaying every job by the same c keeps (3)-(4)
    wherever C meets them.
    """
    d = np.asarray(C, dtype=float) - p / (2 * mu_j)
    order = np.argsort(d, kind="stable")
    ds, ps = d[order], p[order]
    A = np.cumsum(ps)
    B = np.cumsum(ps * ds)
    s = np.clip(A / (2 * mu) + B / A, ds, np.r_[ds[1:], np.inf])
    g = np.sqrt(np.maximum(2 * (A * s - B) / mu, 0.0)) - s
    return max(0.0, float(g.max()))


def lp_upper_bound(data: ScheduleLPData, C: np.ndarray) -> tuple[float, np.ndarray]:
    """An upper bound on LP-Schedule's optimum from any point *C*, and the feasible point it is the
    cost of: C raised to meet (3)-(4) exactly (:func:`completion_lower_bounds` with ``floor=C``;
    raising a C_j only adds to the left side of (2)), then every job delayed by
    :func:`feasible_shift` so that (2) holds too. At a cutting-plane loop's last point this brackets
    the LP optimum with the loop's own value (a lower bound: the optimum over a subset of (2))."""
    raised = completion_lower_bounds(data.p / data.mu_j, data.release, data.edges, floor=C)
    point = raised + feasible_shift(raised, data.p, data.mu_j, data.mu)
    return float(data.weights @ point), point


def max_subset_violation(C: np.ndarray, p: np.ndarray, mu_j: np.ndarray, mu: float, *, relative: bool = True) -> float:
    """Brute force over all 2^n − 1 job sets: the largest violation of (2), V(S) = f(S) − Σ_S p_j C_j,
    divided by f(S) unless ``relative=False``.

    The check that makes Lemma 1 visible: the absolute maximum must equal the oracle's best
    prefix, and a solved LP's relative maximum must be within its tolerance. n <= 20.
    """
    n = len(p)
    if n > 20:
        raise ValueError(f"max_subset_violation enumerates 2^n sets; n = {n} is too many (at most 20)")
    masks = np.arange(1, 2 ** n, dtype=np.int64)
    member = ((masks[:, None] >> np.arange(n)) & 1).astype(float)
    rhs = member @ (p * p / (2 * mu_j)) + (member @ p) ** 2 / (2 * mu)
    V = rhs - member @ (p * np.asarray(C, dtype=float))
    return float(np.max(V / rhs if relative else V))


# --------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------

def smith_order(weights: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Jobs by Smith's ratio w_j/p_j, largest first, ties by index (weight-0 jobs last)."""
    return np.lexsort((np.arange(len(p)), -(weights / p)))


def build_lp_schedule(instance: RelatedInstance, *, seed_chain: bool = True) -> pyo.ConcreteModel:
    """LP-Schedule (1), (3), (4) of paper 004 §III-A; family (2) is left to :class:`QueyranneCuts`.

    ``m.C[j]`` is job j's completion time, bounded below by (3) (a variable bound, not a row);
    ``m.precedence`` holds (4); ``m.obj`` is (1). With ``seed_chain`` the model starts with every
    prefix of Smith's ratio order as a running-sum chain (``m.smith_chain``): the optimum without
    precedence and release constraints when every μ_j = μ, and a good start otherwise, in O(n)
    nonzeros. ``m.lp_data`` keeps the :class:`ScheduleLPData` the cuts read.
    """
    data = ScheduleLPData.of(instance)
    n = data.n
    m = pyo.ConcreteModel(name=f"LP-Schedule {instance.name}".strip())
    m.lp_data = data
    m.J = pyo.RangeSet(0, n - 1)
    lb = (data.p / data.mu_j + data.release).tolist()
    # Starting values at the (3) bound: a job of weight 0 in no row is no column for the solver,
    # and keeps this value.
    m.C = pyo.Var(m.J, bounds=lambda _, j: (lb[j], None), initialize=lambda _, j: lb[j])
    a, b = data.edges[:, 0].tolist(), data.edges[:, 1].tolist()
    gap = (data.p / data.mu_j).tolist()
    m.precedence = pyo.Constraint(range(len(a)), rule=lambda m, e: m.C[b[e]] - m.C[a[e]] >= gap[b[e]])
    w = data.weights.tolist()
    m.obj = pyo.Objective(expr=sum(w[j] * m.C[j] for j in range(n)))
    if seed_chain:
        order = smith_order(data.weights, data.p)
        ps = data.p[order]
        rhs = np.cumsum(ps * ps / (2 * data.mu_j[order])) + np.cumsum(ps) ** 2 / (2 * data.mu)
        m.smith_chain = pyo.Block()
        rows = _add_chain(m.smith_chain, m.C, order, np.arange(n), rhs, data.p, 1.0 / data.p.sum())
        m.smith_chain.link = pyo.Constraint(range(n), rule=lambda _, i: rows[i])
    return m


def _add_chain(block: pyo.Block, C, order: np.ndarray, ends: np.ndarray, rhs: np.ndarray, p: np.ndarray,
               scale: float) -> list:
    """Prefix constraints of *order* ending at positions *ends*, as a running sum.

    z_i = z_{i-1} + Σ_{segment i} scale p_j C_j with z_i >= scale f(prefix ends[i]): O(n)
    nonzeros for any number of nested prefixes (each written out would cost O(n) alone).
    ``rhs[k]`` is f of the prefix of length k+1. Adds ``block.z`` and returns the link rows
    as relational expressions (a caller adding them to a model's constraint list).
    """
    q = len(ends)
    low = (scale * rhs[ends]).tolist()
    block.z = pyo.Var(range(q), bounds=lambda _, i: (low[i], None))
    starts = np.r_[0, ends[:-1] + 1]
    rows = []
    for i in range(q):
        seg = order[starts[i]:ends[i] + 1].tolist()
        coef = (scale * p[seg]).tolist()
        expr = block.z[i] - sum(c * C[j] for c, j in zip(coef, seg))
        if i:
            expr = expr - block.z[i - 1]
        rows.append(expr == 0)
    return rows


@dataclass(frozen=True, eq=False)
class LPScheduleSolution:
    """An LP-Schedule solution read back to numpy: completion times C and objective Σ w_j C_j."""

    C: np.ndarray
    objective: float


def lp_schedule_solution(model: pyo.ConcreteModel) -> LPScheduleSolution:
    """The completion times of a solved LP-Schedule model and its objective (1)."""
    C = np.fromiter((model.C[j].value for j in model.J), dtype=float, count=len(model.J))
    return LPScheduleSolution(C, float(model.lp_data.weights @ C))


def smith_rule_lp(instance: RelatedInstance) -> LPScheduleSolution | None:
    """Paper 004's LP-Schedule solved by Smith's ratio rule (the polymatroid greedy) when that is exact; else None.

    In y_j = p_j C_j, family (2) reads y(S) >= f(S) with f supermodular, so minimising
    Σ (w_j/p_j) y_j over it is the polymatroid greedy: jobs by w_j/p_j, largest first, each
    y = f(prefix) − f(previous prefix), i.e. C_k = p_k/(2μ_k) + (P_k − p_k/2)/μ. That point is the
    LP optimum when there are no precedence constraints (4), every release time is 0 and it
    satisfies (3) — always when every μ_j = μ (every job has at least m tasks), since then
    C_k = P_k/μ >= p_k/μ. O(n log n).
    """
    if len(instance.edges) or np.any(instance.release > 0):
        return None
    p, mu_j, mu = instance.p, instance.mu_j, instance.mu
    order = smith_order(instance.weights, p)
    ps = p[order]
    C = np.empty_like(p)
    C[order] = ps / (2 * mu_j[order]) + (np.cumsum(ps) - ps / 2) / mu
    lb = p / mu_j
    if np.any(C < lb * (1 - 1e-12)):
        return None
    C = np.maximum(C, lb)  # rounding only: the greedy point already meets (3)
    return LPScheduleSolution(C, float(instance.weights @ C))


@dataclass(frozen=True, eq=False)
class CutRows:
    """Cuts as arrays, for a solver loop that adds and deletes rows itself (no Pyomo objects).

    ``A`` (csr) has one row per constraint ``row_lower <= A x <= row_upper`` over the n completion
    times followed by ``len(col_lower)`` new columns (lower bound ``col_lower``, no upper bound,
    cost 0). ``row_group``/``col_group`` number the batch's cuts (a pool deletes a group whole);
    ``pair[i]`` is the new column that row i may be deleted with alone, or -1. ``basic_cols`` and
    ``tight_rows`` (new columns, new rows; as many of each) are a warm start: put those columns in
    the basis and make those rows nonbasic at their lower bound.
    """

    A: sp.csr_array
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    row_group: np.ndarray
    col_group: np.ndarray
    pair: np.ndarray
    basic_cols: np.ndarray
    tight_rows: np.ndarray

    @property
    def n_rows(self) -> int:
        return self.A.shape[0]

    @staticmethod
    def stack(parts: list[CutRows], n: int) -> CutRows:
        """One batch of several: new columns, rows and groups renumbered after each other."""
        if len(parts) == 1:
            return parts[0]
        rr, cc, vv, rl, ru, cl, rg, cg, pair, bc, tr = ([] for _ in range(11))
        cols = rows = groups = 0
        for q in parts:
            A = q.A.tocoo()
            rr.append(A.row + rows); cc.append(np.where(A.col >= n, A.col + cols, A.col)); vv.append(A.data)
            rl.append(q.row_lower); ru.append(q.row_upper); cl.append(q.col_lower)
            rg.append(q.row_group + groups); cg.append(q.col_group + groups)
            pair.append(np.where(q.pair >= 0, q.pair + cols, -1))
            bc.append(q.basic_cols + cols); tr.append(q.tight_rows + rows)
            cols += len(q.col_lower)
            rows += q.n_rows
            groups += 1 + int(max(q.row_group.max(initial=-1), q.col_group.max(initial=-1)))
        A = sp.csr_array((np.concatenate(vv), (np.concatenate(rr), np.concatenate(cc))), shape=(rows, n + cols))
        return CutRows(A, *map(np.concatenate, (rl, ru, cl, rg, cg, pair, bc, tr)))


def _chain_rows(order: np.ndarray, ends: np.ndarray, rhs: np.ndarray, p: np.ndarray, scale: float, n: int) -> CutRows:
    """:func:`_add_chain` as arrays: z_i − z_{i−1} − Σ_{segment i} scale p_j C_j = 0, z_i >= scale f."""
    return _link_rows(order[:ends[-1] + 1], ends, scale * rhs[ends], scale * p, n)


def _link_rows(jobs: np.ndarray, ends: np.ndarray, low: np.ndarray, coef: np.ndarray, n: int) -> CutRows:
    """The running-sum chain of the prefixes of *jobs* ending at positions *ends* (increasing):
    z_i − z_{i−1} − Σ_{jobs[ends[i−1]+1 .. ends[i]]} coef_j C_j = 0 (no z_{−1} in the first row),
    z_i >= low_i; its warm start puts every z_i in the basis and every row at its bound."""
    q = len(ends)
    starts = np.r_[0, ends[:-1] + 1]
    jobs = jobs[:ends[-1] + 1]
    idx = np.arange(q)
    r = np.r_[idx, idx[1:], np.repeat(idx, ends - starts + 1)]
    c = np.r_[n + idx, n + idx[:-1], jobs]
    v = np.r_[np.ones(q), -np.ones(q - 1), -coef[jobs]]
    A = sp.csr_array((v, (r, c)), shape=(q, n + q))
    return CutRows(A, np.zeros(q), np.zeros(q), np.asarray(low, dtype=float), np.zeros(q, np.int64),
                   np.zeros(q, np.int64), np.full(q, -1), idx, idx)


def seed_chain_rows(data: ScheduleLPData) -> CutRows:
    """``build_lp_schedule``'s seed chain (every prefix of Smith's order) as :class:`CutRows`."""
    order = smith_order(data.weights, data.p)
    ps = data.p[order]
    rhs = np.cumsum(ps * ps / (2 * data.mu_j[order])) + np.cumsum(ps) ** 2 / (2 * data.mu)
    n = data.n
    return _chain_rows(order, np.arange(n), rhs, data.p, 1.0 / float(data.p.sum()), n)


def lp_schedule_program(data: ScheduleLPData) -> MatrixProgram:
    """LP-Schedule's (1), (3), (4) as arrays: columns C_j (cost w_j, lower bound (3)), rows (4)."""
    n, E = data.n, data.edges
    e = len(E)
    idx = np.arange(e)
    A = sp.csr_array((np.r_[np.ones(e), -np.ones(e)], (np.r_[idx, idx], np.r_[E[:, 1], E[:, 0]])), shape=(e, n))
    return MatrixProgram("LP-Schedule", np.asarray(data.weights, float), 0.0, A,
                         data.p[E[:, 1]] / data.mu_j[E[:, 1]], np.full(e, np.inf),
                         data.p / data.mu_j + data.release, np.full(n, np.inf), {"C": (0, n)}, {"precedence": (0, e)})


# --------------------------------------------------------------------------------------------
# Cuts for the cutting-plane loop
# --------------------------------------------------------------------------------------------

class QueyranneCuts:
    """The separation of family (2) for :func:`schedrelax.solvers.cutting_planes` (paper 004 §III-B).

    Called with the solved model, it runs :func:`queyranne_separation` on the current C and
    returns the cuts to add, or nothing when no prefix is violated by more than ``tol`` relative
    to f(S) — which by Lemma 1 means no set S is. ``mode`` (see :data:`CUT_MODES`):

    * ``"most"``: the single most violated prefix, one dense row (Definition 1 as stated).
    * ``"prefixes"``: every violated prefix, as one running-sum chain (new variables, O(n)).
    * ``"fluid"``: as ``"prefixes"`` plus up to ``fluid_cuts`` fluid cuts (2') at t = P(S)/μ of
      the most violated local maxima of V along the order, among those violated by more than
      ``fluid_tol`` relative to f; each has one u_j per job that can be below t (d_j's lower
      bound from (3)-(4) under t). Fluid cuts cost a row per job, so the last rounds, whose
      violations are small, are left to the prefix chains. Measured on the benchmark's 10,000
      jobs: 3 cuts and ``fluid_tol`` 1e-4 took 62 rounds and 728 s, 3 and 1e-5 29 rounds and
      169 s, 10 and 1e-5 19 rounds and 112 s, 20 and 1e-5 the same; 1e-5 is also best at 5,000.

    The chain and fluid cuts introduce variables, so the loop must add them without measuring
    their violation (``filter_violated=False``); every returned cut is violated or part of a
    violated chain. Rows are scaled to time units so one solver tolerance fits all.
    ``prefix_cuts`` and ``fluid_cuts_added`` count what was added.

    **Stalls.** A chain row carries a prefix's constraint scaled by 1/Σp, so for a small prefix
    a violation of 1e-6 relative to f(S) can be 6e-8 in the row's units: inside the solver's
    feasibility tolerance (HiGHS: 1e-7), and every re-solve returns the same point (measured on
    deep DAGs of 197 jobs with 31,236 tasks: 2,070 rounds, no progress). So the point is
    compared with the previous round's: when the cuts added have not moved it (no C_j by more than
    :data:`SAME_POINT` relative) in :data:`STALL_ROUNDS` rounds in a row, the cuts they added were
    round-off to the solver, and the cuts switch (``fallback_round``) to dense rows in time units, Σ_S (p_j/P(S)) C_j >= f(S)/P(S), for the
    ``fluid_cuts`` most violated local maxima (at least one) — Definition 1's own cut, whose
    violation in the row's units is the relative one times a completion time, far above the
    tolerance. If those stall too, the point is as feasible as the solver can make it: the
    separation returns no cut and sets ``gave_up`` (the caller must then not call the LP
    converged); ``residual`` is the worst relative violation left (0 when none is above ``tol``),
    ``history`` the worst one per round.

    **Deleting idle prefixes** (``keep``, :meth:`edit` only). A prefix whose z_i is basic has a
    zero dual; a run of such z in a chain makes every solve with the basis touch the whole run
    (measured at 10,000 jobs: the seed chain ended with 9,999 of its 10,000 z basic, and FTRAN and
    BTRAN results were 44-50 % dense). With ``keep`` a prefix basic after ``keep`` solves in a row
    (the seed chain's after one) is deleted and the chain rewritten around it (:meth:`_shorten`),
    keeping the point and its basis; the loop still stops only when the oracle finds nothing
    violated, so a deleted prefix that becomes violated again comes back. None (the default):
    nothing is deleted.

    ``lift`` (:meth:`edit` only): the fluid segments move jobs' anchors up
    (:meth:`FluidSegments.lift`); False keeps every anchor at its start (every segment a column
    of its own).
    """

    def __init__(self, model: pyo.ConcreteModel | ScheduleLPData, mode: str = "fluid", *, tol: float = 1e-6, fluid_cuts: int = 10,
                 fluid_tol: float = 1e-5, keep: int | None = None, lift: bool = True):
        if mode not in CUT_MODES:
            raise ValueError(f"mode must be one of {', '.join(CUT_MODES)}; got {mode!r}")
        if not tol >= 0 or not fluid_tol >= 0:
            raise ValueError(f"tol and fluid_tol must be >= 0, got {tol!r} and {fluid_tol!r}")
        if isinstance(fluid_cuts, bool) or not isinstance(fluid_cuts, int) or fluid_cuts < 0:
            raise ValueError(f"fluid_cuts must be a whole number >= 0, got {fluid_cuts!r}")
        if keep is not None and (isinstance(keep, bool) or not isinstance(keep, int) or keep < 1):
            raise ValueError(f"keep must be a positive integer or None, got {keep!r}")
        self.data: ScheduleLPData = model if isinstance(model, ScheduleLPData) else model.lp_data
        self.mode, self.tol, self.fluid_cuts, self.fluid_tol = mode, tol, fluid_cuts, fluid_tol
        self.scale = 1.0 / float(self.data.p.sum())
        # d_j can never be below this: the fluid cut at t needs u_j only for jobs under t.
        self.d_lower = self.data.lower - self.data.p / (2 * self.data.mu_j)
        self.prefix_cuts = 0
        self.fluid_cuts_added = 0
        self.history: list[float] = []
        self.fallback_round: int | None = None
        self.gave_up = False
        self.residual = 0.0
        self._names = count()
        self._last: np.ndarray | None = None
        self._unmoved = 0
        self._segments: FluidSegments | None = None
        self.keep = keep
        self._chains: list[_Chain] = []  # the chains edit() has in the LP (seed chain included)
        self._chain_spec: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.dropped_prefixes = 0
        self.lift = lift

    def _stalled(self, C: np.ndarray) -> bool:
        """Whether the last :data:`STALL_ROUNDS` rounds' cuts all left the point where it was."""
        last, self._last = self._last, C
        if last is not None and np.max(np.abs(C - last)) <= SAME_POINT * max(1.0, float(np.max(np.abs(C)))):
            self._unmoved += 1
        else:
            self._unmoved = 0
        return self._unmoved >= STALL_ROUNDS

    def _plan(self, C: np.ndarray) -> tuple[PrefixViolations, np.ndarray, str]:
        """Separate at C and decide what this round adds: ``"none"`` (no prefix violated beyond
        ``tol``, or the loop gave up), ``"most"``, ``"dense"`` (the stall fallback) or ``"chain"``."""
        d = self.data
        sep = queyranne_separation(C, d.p, d.mu_j, d.mu)
        violated = sep.violated(self.tol)
        self.residual = float(sep.relative[violated].max()) if len(violated) else 0.0
        if not len(violated):
            return sep, violated, "none"
        self.history.append(self.residual)
        if self._stalled(C):
            if self.fallback_round is not None or self.mode == "most":
                self.gave_up = True
                return sep, violated, "none"
            self.fallback_round = len(self.history)
            self._unmoved = 0
        if self.mode == "most":
            return sep, violated, "most"
        if self.fallback_round is not None:
            return sep, violated, "dense"
        return sep, violated, "chain"

    def __call__(self, model: pyo.ConcreteModel) -> list:
        d = self.data
        C = lp_schedule_solution(model).C
        sep, violated, kind = self._plan(C)
        if kind == "none":
            return []
        if kind == "most":
            return [self._dense(model, sep, sep.most_violated)]
        if kind == "dense":
            return [self._dense(model, sep, int(k)) for k in self._peaks(sep, violated, max(1, self.fluid_cuts))]
        block = pyo.Block()
        model.add_component(f"queyranne_round_{next(self._names)}", block)
        cuts = _add_chain(block, model.C, sep.order, violated, sep.rhs, d.p, self.scale)
        self.prefix_cuts += len(violated)
        if self.mode == "fluid":
            cuts += self._fluid(block, model, sep, violated)
        return cuts

    def cut_rows(self, C: np.ndarray) -> CutRows | None:
        """The same round as ``__call__`` (same separation, same stall rule, same cuts), as arrays
        for :func:`schedrelax.solvers.cutting_planes.cutting_planes_rows`; None when no cut is due.

        Columns 0..n-1 of ``A`` are the C_j; n.. the batch's new columns (chain z, fluid u). Each
        cut is one group (a chain, a fluid cut with its u rows, a dense row): dropping a whole
        group, or one u row with its u column (``pair``), leaves a relaxation of (2) — a fluid
        cut without job j's term Σ p_j (t − d_j)^+ is still implied by (2) — so a cut pool may
        delete them; only the oracle's verdict on the final point says "converged". For a warm
        start, ``basic_cols``/``tight_rows`` name the new columns to put in the basis and the new
        rows to make nonbasic in exchange: z_i (chains) and u_j of the jobs with d_j < t (fluid
        cuts) take their values at the current point, so only the violated bounds and fluid rows
        are left for the dual simplex (measured: ~100 iterations a round instead of ~10,000).
        """
        C = np.asarray(C, dtype=float)
        d = self.data
        batch, times = self._round(C)
        if batch is None or not times:
            return batch
        half = d.p / (2 * d.mu_j)
        parts = [batch]
        for t in times:
            parts.append(self._fluid_rows(t, C - half, half))
            self.fluid_cuts_added += 1
        return CutRows.stack(parts, d.n)

    def _round(self, C: np.ndarray) -> tuple[CutRows | None, list[float]]:
        """This round's cuts of (2) as a batch (None: no cut is due) and the times of its fluid
        cuts (2') (``"fluid"`` mode, chain rounds only), for the caller to write."""
        d = self.data
        sep, violated, kind = self._plan(C)
        if kind == "none":
            return None, []
        if kind == "most":
            return self._dense_rows(sep, [sep.most_violated]), []
        if kind == "dense":
            return self._dense_rows(sep, self._peaks(sep, violated, max(1, self.fluid_cuts))), []
        batch = _chain_rows(sep.order, violated, sep.rhs, d.p, self.scale, d.n)
        self._chain_spec = (sep.order[:violated[-1] + 1], violated, batch.col_lower)
        self.prefix_cuts += len(violated)
        if self.mode != "fluid":
            return batch, []
        peak = self._peaks(sep, violated[sep.relative[violated] > self.fluid_tol], self.fluid_cuts)
        return batch, (np.cumsum(d.p[sep.order])[peak] / d.mu).tolist()

    def edit_program(self, program: MatrixProgram, seed_chain: bool = True) -> MatrixProgram:
        """The program :meth:`edit`'s loop starts from: *program* (:func:`lp_schedule_program`) with
        the seed chain (:func:`seed_chain_rows`) when *seed_chain*, kept track of as a chain
        :meth:`edit` may shorten."""
        if not seed_chain:
            return program
        d = self.data
        batch = seed_chain_rows(d)
        self._chains.append(_Chain(smith_order(d.weights, d.p), np.arange(d.n), batch.col_lower,
                                   program.n_cols + np.arange(d.n), program.n_rows + np.arange(d.n), keep=1))
        return program_with(program, batch)

    def edit(self, x: np.ndarray, col_status: np.ndarray, row_status: np.ndarray,
             row_dual: np.ndarray) -> LPEdit | None:
        """The same round as :meth:`cut_rows` (same separation, stall rule and cuts of (2)), as an
        :class:`~schedrelax._matrix.LPEdit` for :func:`schedrelax.solvers.cutting_planes.cutting_planes_edits`,
        with the fluid cuts written by :class:`FluidSegments` (one row per cut instead of one per
        job) and its left-out columns priced at the duals *row_dual*; None when no cut is due and
        no column prices out (then the point is the optimum of the formulation and meets (2)).
        *x*, the statuses and the duals cover every column and row of the LP the loop holds: the
        program of :func:`lp_schedule_program`, with the seed chain if it came from
        :meth:`edit_program`, then only what earlier edits of this object added.

        With ``keep``, a round that adds cuts also shortens the prefix chains (:meth:`_shorten`):
        the prefixes whose z_i has been basic after ``keep`` solves in a row are deleted."""
        x = np.asarray(x, dtype=float)
        for chain in self._chains:  # rounds each prefix has been basic (zero dual) in a row
            chain.idle = np.where(col_status[chain.cols] == BASIC, chain.idle + 1, 0)
        batch, times = self._round(x[:self.data.n])
        if self._segments is None:
            self._segments = FluidSegments(self.data, lift=self.lift)
        shorter: list[tuple] = []
        dropped = None
        if batch is not None:
            lifted = self._segments.lift(x, col_status)
            if self.keep is not None or len(lifted):
                x, col_status, row_status, row_dual, dropped, shorter = self._shorten(x, col_status, row_status,
                                                                                      row_dual, lifted)
        e = EditBuilder(x, col_status, row_status, dropped=dropped)
        for jobs, ends, low, z_status, z_value, link_status, idle, keep in shorter:
            cols, rows = e.add_cut_rows(_link_rows(jobs, ends, low, self.scale * self.data.p, self.data.n),
                                        self.data.n, col_status=z_status, row_status=link_status, value=z_value)
            self._chains.append(_Chain(jobs, ends, low, cols, rows, idle, keep))
        priced = self._segments.price(e, row_dual)
        if batch is None:
            self._segments.write_rhs(e)  # nothing lifted or split, but kept in step with the LP
            return e.finish(0) if priced else None
        cols, rows = e.add_cut_rows(batch, self.data.n)
        if self._chain_spec is not None:
            self._chains.append(_Chain(*self._chain_spec, cols, rows))
            self._chain_spec = None
        for t in times:
            if self._segments.add_cut(t, e):
                self.fluid_cuts_added += 1
        self._segments.write_rhs(e)  # what lift and the splits changed
        return e.finish(batch.n_rows + len(times))

    def _shorten(self, x, col_status, row_status, row_dual, lifted=None):
        """Delete from the chains the prefixes idle for ``keep`` solves (z_i basic: its bound has
        a zero dual), keeping the point, its basis and its duals.

        A chain's prefixes are rows z_i − z_{i−1} − Σ_{segment i} c_j C_j = 0 with z_i >= low_i.
        With the kept prefixes k_1 < k_2 < ..., the rows of a run k_{m−1}+1 .. k_m add up to one row
        z_{k_m} − z_{k_{m−1}} − Σ c_j C_j = 0 (the z in between cancel); the rows after the last
        kept prefix go, and so does the chain if it keeps none. The chain is replaced by these rows
        (a new chain; the old one's rows and columns are deleted). Its basis: the kept z_i keep
        their statuses and values; a new row is nonbasic unless a row of its run was basic. Why
        that is a basis: the deleted z of a run are basic and appear in its rows only, so pivoting
        them out (Gaussian elimination) leaves the run's sum as the one new row, with the same
        Schur complement (a run has one row more than deleted z, so at most one of its rows is
        basic; none after the last kept prefix, where they are as many). The removed bounds had
        zero duals, so the point stays optimal for the shortened LP: the objective never goes down
        and the dual simplex restarts from where it was. Measured on the benchmark's chains: at
        10,000 jobs the seed chain ends with 9,999 of its 10,000 z basic; each such run makes every
        basis solve touch the whole run (44-50 % dense FTRAN/BTRAN).

        Returns the arrays in the numbering after the deletion, the deletion (columns, rows) and
        the new chains (jobs, ends, low, z statuses, z values, row statuses, idle counts, keep).
        *lifted* are columns :meth:`FluidSegments.lift` took out of the segments, deleted with them."""
        plans = []
        lifted = np.empty(0, dtype=np.int64) if lifted is None else np.asarray(lifted, dtype=np.int64)
        for chain in self._chains if self.keep is not None else ():
            kept = np.flatnonzero(chain.idle < min(self.keep, chain.keep or self.keep))
            if len(kept) == len(chain.ends):
                continue
            run = np.searchsorted(kept, np.arange(len(chain.ends)))  # row i's run ends at prefix kept[run]
            basic = row_status[chain.rows] == BASIC
            if np.any(basic[run == len(kept)]):  # not in a basis (see above); leave the chain whole
                continue
            plans.append((chain, kept, np.bincount(run[basic], minlength=len(kept) + 1)[:len(kept)] > 0))
        if not plans and not len(lifted):
            return x, col_status, row_status, row_dual, None, []
        drop_cols = np.concatenate([chain.cols for chain, _, _ in plans] + [lifted]).astype(np.int64)
        drop_rows = np.concatenate([chain.rows for chain, _, _ in plans] + [np.empty(0, np.int64)]).astype(np.int64)
        col_new = _renumbering(len(col_status), drop_cols)
        row_new = _renumbering(len(row_status), drop_rows)
        shorter = []
        for chain, kept, row_basic in plans:
            self.dropped_prefixes += len(chain.ends) - len(kept)
            if len(kept):
                ends = chain.ends[kept]
                shorter.append((chain.jobs[:ends[-1] + 1], ends, chain.low[kept], col_status[chain.cols[kept]],
                                x[chain.cols[kept]], np.where(row_basic, BASIC, AT_LOWER), chain.idle[kept],
                                chain.keep))
        planned = {id(chain) for chain, _, _ in plans}
        self._chains = [chain for chain in self._chains if id(chain) not in planned]
        for chain in self._chains:
            chain.cols, chain.rows = col_new[chain.cols], row_new[chain.rows]
        self._segments.renumber(col_new, row_new)
        cols, rows = col_new >= 0, row_new >= 0
        return (x[cols], col_status[cols], row_status[rows], None if row_dual is None else row_dual[rows],
                (drop_cols, drop_rows), shorter)

    def repair(self, col_status: np.ndarray, row_status: np.ndarray) -> LPEdit | None:
        """After a solve that found the LP infeasible: every column :class:`FluidSegments` left out,
        as an edit (the full formulation is feasible: LP-Schedule is), or None if none was left
        out (then the infeasibility is the LP's own)."""
        if self._segments is None:
            return None
        e = EditBuilder(np.zeros(len(col_status)), col_status, row_status)
        return e.finish(0) if self._segments.add_all(e) else None

    @property
    def priced_columns(self) -> int:
        """Columns :meth:`edit`'s pricing added (see :class:`FluidSegments`)."""
        return self._segments.priced if self._segments is not None else 0

    def _dense_rows(self, sep: PrefixViolations, ks) -> CutRows:
        d = self.data
        rows, cols, vals, rhs = [], [], [], []
        for i, k in enumerate(int(k) for k in ks):
            S = sep.order[:k + 1]
            P = float(d.p[S].sum())
            rows.append(np.full(len(S), i)); cols.append(S); vals.append(d.p[S] / P)
            rhs.append(float(sep.rhs[k]) / P)
            self.prefix_cuts += 1
        q = len(rhs)
        A = sp.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(q, d.n))
        return CutRows(A, np.array(rhs), np.full(q, np.inf), np.empty(0), np.arange(q), np.empty(0, np.int64),
                       np.full(q, -1), np.empty(0, np.int64), np.empty(0, np.int64))

    def _fluid_rows(self, t: float, dcur: np.ndarray, half: np.ndarray) -> CutRows:
        """Fluid cut (2') at t in arrays: u_j + C_j >= t + p_j/(2μ_j) for the jobs whose d_j can
        be below t, and Σ_j (p_j/(μ t)) u_j <= t/2."""
        d = self.data
        J = np.flatnonzero(self.d_lower < t)
        k = len(J)
        n = d.n
        idx = np.arange(k)
        r = np.r_[idx, idx, np.full(k, k)]
        c = np.r_[n + idx, J, n + idx]
        v = np.r_[np.ones(2 * k), d.p[J] / (d.mu * t)]
        A = sp.csr_array((v, (r, c)), shape=(k + 1, n + k))
        below = np.flatnonzero(dcur[J] < t)
        return CutRows(A, np.r_[t + half[J], -np.inf], np.r_[np.full(k, np.inf), t / 2], np.zeros(k),
                       np.zeros(k + 1, np.int64), np.zeros(k, np.int64), np.r_[idx, -1], below, below)

    def _dense(self, model: pyo.ConcreteModel, sep: PrefixViolations, k: int):
        """Prefix k's cut (2) as one row in time units: Σ_S (p_j/P(S)) C_j >= f(S)/P(S)."""
        S = sep.order[:k + 1]
        P = float(self.data.p[S].sum())
        coef = (self.data.p[S] / P).tolist()
        self.prefix_cuts += 1
        return (sum(c * model.C[j] for c, j in zip(coef, S.tolist())), float(sep.rhs[k]) / P)

    @staticmethod
    def _peaks(sep: PrefixViolations, candidates: np.ndarray, limit: int) -> np.ndarray:
        """The local maxima of V along the order among *candidates*, most violated (relative
        to f) first, at most *limit* of them."""
        V = sep.violation
        n = len(V)
        k = candidates
        rises = (k == 0) | (V[k] >= V[np.maximum(k - 1, 0)])
        falls = (k == n - 1) | (V[k] >= V[np.minimum(k + 1, n - 1)])
        peak = k[rises & falls]
        return peak[np.argsort(-sep.relative[peak], kind="stable")][:limit]

    def _fluid(self, block: pyo.Block, model: pyo.ConcreteModel, sep: PrefixViolations, violated: np.ndarray) -> list:
        """Fluid cuts (2') at the worst local maxima of V among the violated prefixes."""
        d = self.data
        peak = self._peaks(sep, violated[sep.relative[violated] > self.fluid_tol], self.fluid_cuts)
        times = np.cumsum(d.p[sep.order])[peak] / d.mu
        cuts = []
        half = (d.p / (2 * d.mu_j)).tolist()
        block.fluid = pyo.Block(range(len(times)))
        for i, t in enumerate(times.tolist()):
            J = np.flatnonzero(self.d_lower < t).tolist()
            sub = block.fluid[i]
            sub.u = pyo.Var(J, bounds=(0, None))
            # u_j >= t − d_j  <=>  u_j + C_j >= t + p_j/(2μ_j)
            cuts += [(sub.u[j] + model.C[j], t + half[j]) for j in J]
            scale = 1.0 / (d.mu * t)
            cuts.append(sum(float(d.p[j]) * scale * sub.u[j] for j in J) <= t / 2)
            self.fluid_cuts_added += 1
        return cuts


# --------------------------------------------------------------------------------------------
# Fluid cuts as one extended formulation (segments)
# --------------------------------------------------------------------------------------------

def program_with(program: MatrixProgram, batch: CutRows) -> MatrixProgram:
    """*program* with *batch*'s columns (cost 0, no upper bound) and rows appended, as one program
    (the seed chain of :func:`seed_chain_rows` goes into the first solve this way)."""
    n = program.n_cols
    k = len(batch.col_lower)
    A = sp.vstack([sp.hstack([program.A, sp.csr_array((program.n_rows, k))]), batch.A]).tocsr()
    return MatrixProgram(program.name, np.r_[program.c, np.zeros(k)], program.offset, sp.csr_array(A),
                         np.r_[program.row_lower, batch.row_lower], np.r_[program.row_upper, batch.row_upper],
                         np.r_[program.col_lower, batch.col_lower], np.r_[program.col_upper, np.full(k, np.inf)],
                         {**program.var_blocks, "cut_columns": (n, k)},
                         {**program.row_blocks, "cuts": (program.n_rows, batch.n_rows)}, program.meta)


def _set_bounds(index, lower, upper, n0: int, new_lower: np.ndarray, new_upper: np.ndarray,
                changed: dict) -> None:
    """Bounds of columns or rows: those added in this round (index >= *n0*) into the new arrays, in
    place; the existing ones into *changed* (index -> (lower, upper))."""
    index, lower, upper = np.asarray(index), np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    new = index >= n0
    new_lower[index[new] - n0] = lower[new]
    new_upper[index[new] - n0] = upper[new]
    changed.update(zip(index[~new].tolist(), zip(lower[~new].tolist(), upper[~new].tolist())))


class EditBuilder:
    """Collects one round's :class:`~schedrelax._matrix.LPEdit`: starts from the solved LP's
    values *x* and basis, and keeps both (and the sizes) current as columns and rows are added,
    so that later parts of the same round can read and split what earlier parts added."""

    def __init__(self, x: np.ndarray, col_status: np.ndarray, row_status: np.ndarray,
                 dropped: tuple[np.ndarray, np.ndarray] | None = None):
        """*x* and the basis are the LP's after the columns and rows *dropped* (indices before)
        are deleted, which the edit does first (:class:`~schedrelax._matrix.LPEdit`)."""
        self.dropped = dropped if dropped is not None else (np.empty(0, np.int64), np.empty(0, np.int64))
        self.n_cols0, self.n_rows0 = len(col_status), len(row_status)
        # growing buffers (capacity doubled as columns and rows are added): the arrays below are views
        # of their first n_cols / n_rows entries (a round adds columns in many small pieces, and a
        # copy of every array at each piece cost O(columns) each time)
        self._x = np.asarray(x, dtype=float).copy()
        self._col_status = np.asarray(col_status, dtype=np.int64).copy()
        self._row_status = np.asarray(row_status, dtype=np.int64).copy()
        self._col_lower, self._col_upper = np.empty(0), np.empty(0)  # of the new columns
        self._row_lower, self._row_upper = np.empty(0), np.empty(0)  # of the new rows
        self._n_cols, self._n_rows = self.n_cols0, self.n_rows0
        self.entries: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.bounds: dict[int, tuple[float, float]] = {}  # new bounds of existing columns
        self.row_bounds: dict[int, tuple[float, float]] = {}  # new bounds of existing rows

    @property
    def n_cols(self) -> int:
        return self._n_cols

    @property
    def n_rows(self) -> int:
        return self._n_rows

    @property
    def x(self) -> np.ndarray:
        return self._x[:self._n_cols]

    @property
    def col_status(self) -> np.ndarray:
        return self._col_status[:self._n_cols]

    @property
    def row_status(self) -> np.ndarray:
        return self._row_status[:self._n_rows]

    @property
    def col_lower(self) -> np.ndarray:
        return self._col_lower[:self._n_cols - self.n_cols0]

    @property
    def col_upper(self) -> np.ndarray:
        return self._col_upper[:self._n_cols - self.n_cols0]

    @property
    def row_lower(self) -> np.ndarray:
        return self._row_lower[:self._n_rows - self.n_rows0]

    @property
    def row_upper(self) -> np.ndarray:
        return self._row_upper[:self._n_rows - self.n_rows0]

    def _grow(self, names: tuple[str, ...], need: int) -> None:
        """Make the buffers *names* hold at least *need* entries (doubling)."""
        for name in names:
            buf = getattr(self, name)
            if len(buf) < need:
                new = np.empty(max(need, 2 * len(buf)), dtype=buf.dtype)
                new[:len(buf)] = buf
                setattr(self, name, new)

    def add_cols(self, lower, upper, status, value) -> np.ndarray:
        """New columns (cost 0): their bounds, basis statuses and values; returns their indices."""
        lower = np.asarray(lower, dtype=float)
        k, first = len(lower), self._n_cols
        self._grow(("_x", "_col_status"), first + k)
        self._grow(("_col_lower", "_col_upper"), first + k - self.n_cols0)
        new = slice(first - self.n_cols0, first + k - self.n_cols0)
        self._col_lower[new] = lower
        self._col_upper[new] = upper
        self._col_status[first:first + k] = status
        self._x[first:first + k] = value
        self._n_cols = first + k
        return first + np.arange(k)

    def add_rows(self, lower, upper, status) -> np.ndarray:
        """New rows (entries through :meth:`add_entries`); returns their indices."""
        lower = np.asarray(lower, dtype=float)
        q, first = len(lower), self._n_rows
        self._grow(("_row_status",), first + q)
        self._grow(("_row_lower", "_row_upper"), first + q - self.n_rows0)
        new = slice(first - self.n_rows0, first + q - self.n_rows0)
        self._row_lower[new] = lower
        self._row_upper[new] = upper
        self._row_status[first:first + q] = status
        self._n_rows = first + q
        return first + np.arange(q)

    def add_entries(self, rows, cols, values) -> None:
        """Nonzeros (row, column, value) in the indices after the edit; each in a new row or a new column."""
        self.entries.append((np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64),
                             np.asarray(values, dtype=float)))

    def set_bounds(self, cols: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> None:
        """New bounds for columns, existing or added in this round."""
        _set_bounds(cols, lower, upper, self.n_cols0, self.col_lower, self.col_upper, self.bounds)

    def set_row_bounds(self, rows: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> None:
        """New bounds for rows, existing or added in this round."""
        _set_bounds(rows, lower, upper, self.n_rows0, self.row_lower, self.row_upper, self.row_bounds)

    def add_cut_rows(self, batch: CutRows, n: int, *, col_status=None, row_status=None,
                     value=None) -> tuple[np.ndarray, np.ndarray]:
        """A :class:`CutRows` batch (its columns 0..n-1 are the LP's first n), with its warm start
        (or the statuses and column values given); returns its new columns and rows."""
        first = self.n_cols  # the batch numbers its new columns from n; here they start at first
        cols = self.add_cols(batch.col_lower, np.inf, AT_LOWER, batch.col_lower if value is None else value)
        rows = self.add_rows(batch.row_lower, batch.row_upper, BASIC)
        A = batch.A.tocoo()
        self.add_entries(rows[A.row], np.where(A.col >= n, A.col - n + first, A.col), A.data)
        if col_status is None:
            self.col_status[cols[batch.basic_cols]] = BASIC
        else:
            self.col_status[cols] = col_status
        if row_status is None:
            self.row_status[rows[batch.tight_rows]] = AT_LOWER
        else:
            self.row_status[rows] = row_status
        return cols, rows

    def finish(self, cuts: int) -> LPEdit:
        """The edit collected so far, adding *cuts* cuts (what the loop counts)."""
        bc = np.fromiter(self.bounds, dtype=np.int64, count=len(self.bounds))
        lo_up = np.array(list(self.bounds.values()), dtype=float).reshape(-1, 2)
        r, c, v = ((np.concatenate([e[i] for e in self.entries]) if self.entries else np.empty(0)) for i in range(3))
        dc, dr = (np.asarray(a, dtype=np.int64) for a in self.dropped)
        br = np.fromiter(self.row_bounds, dtype=np.int64, count=len(self.row_bounds))
        row_lo_up = np.array(list(self.row_bounds.values()), dtype=float).reshape(-1, 2)
        return LPEdit(self.n_cols0 + len(dc), self.n_rows0 + len(dr), bc, lo_up[:, 0], lo_up[:, 1],
                      self.col_lower.copy(), self.col_upper.copy(), self.row_lower.copy(), self.row_upper.copy(),
                      (r, c, v), self.col_status.copy(), self.row_status.copy(),
                      cuts, dc, dr, br, row_lo_up[:, 0], row_lo_up[:, 1])


class FluidSegments:
    """Fluid cuts (2') at times b_1 < ... < b_K written as one extended formulation: one row per
    job and two per cut, where one u_j row per job and cut made each cut cost n rows.

    With d_j = C_j − p_j/(2μ_j) and b_0 the least value d_j can take (its bound from (3)-(4)),
    the segments [b_{l−1}, b_l] cut time into pieces. Variable s_jl ∈ [lo_jl, b_l − b_{l−1}] is
    the part of segment l that lies before d_j, and one row per job ties them to d_j::

        d_j >= a_j + Σ_l s_jl                   (a_j: the start of j's first segment)

    with lo_jl the part of segment l below d_j's own lower bound (segments wholly below it are
    left out: s = their length, fixed). Then u_jk = (b_k − a_j) − Σ_{l<=k} s_jl >= (b_k − d_j)^+
    for every feasible s (the s of the first k segments add up to at most b_k − a_j and, by the
    job row, to at most d_j − a_j), and s that fills the segments in time order up to d_j gives
    equality. So the fluid cut at b_k, Σ_j p_j u_jk <= μ b_k²/2, is exactly (2') at t = b_k: the
    formulation's projection on C is the set of fluid cuts, no weaker and no stronger. With
    S_l = Σ_j (p_j/P) s_jl (one row per segment, P = Σ p) the cut is one row::

        Σ_{l<=k} S_l >= (Σ_{j: a_j < b_k} p_j (b_k − a_j) − μ b_k²/2) / P

    A new cut time inside a segment splits it: its s columns keep the first part (their bounds
    change) and new columns take the second; the cuts at later times get the new S. The basis
    carried over keeps every column that was basic basic, so the last basis stays a basis (the
    new rows' slacks and S columns complete it) and only the new cut row is infeasible for the
    dual simplex.

    **Columns by pricing.** Most s_jl sit at 0 (segment l wholly after d_j: 92 % of them at 5,000
    jobs), and every column costs the dual simplex at each pivot. So a column s_jl with lower
    bound 0 is created only when d_j at the current point is above the segment's start (then s_jl
    may be positive there); a column left out is s_jl fixed at 0, which makes the LP a
    *restriction* of the formulation. :meth:`price` restores the guarantee: it computes the reduced
    cost y_j + (p_j/P) y_l of every column left out (y the row duals of the job row and the segment
    row) and adds those below −:data:`PRICE_TOL`; when none is, the last basis is optimal for the
    whole formulation (every left-out column at its bound 0 is dual feasible), and the loop may
    stop only then. A restriction can also be infeasible (a cut with no room left); the loop then
    adds every left-out column (:meth:`add_all`). Measured at 5,000 jobs: 277,401 columns without
    the rule, 41,939 with it (682 of them priced in), 5.7 s -> 3.7 s; at 10,000 jobs 34-43 s -> 22 s.

    **Anchors that move up** (``lift``, :meth:`lift`). The other side of the same count: an s_jl
    of a segment wholly *before* d_j sits at its upper bound, and without release times (where d_j
    ends far above its bound from (3)-(4)) these were almost every column: at 2,000 such jobs
    430,585 columns after 21 rounds, HiGHS's time per round growing with them (0.1 s -> 2.4 s at
    about 1,000 iterations a round). So each job row carries an anchor A_j, a segment boundary
    (a_j to start with), and the segments between a_j and A_j are written with the complement
    r_jl = len_jl − s_jl (the part of the segment *after* d_j, in [0, len_jl − lo_jl]): the job row
    is d_j >= A_j + Σ_{above A_j} s_jl − Σ_{below} r_jl, segment l's row is
    S_l − Σ (p_j/P) s_jl + Σ (p_j/P) r_jl = Σ_{j: r-type in l} (p_j/P) len_jl, and the cut rows are
    unchanged. That is a change of variables, so the projection is the same; a left-out r_jl (at 0)
    is the s_jl at its upper bound, and :meth:`price` adds it back when its reduced cost
    −(y_j + (p_j/P) y_l) is below −:data:`PRICE_TOL` (the same test as above, with the sign of the
    complement). :meth:`lift` moves an anchor up past the segments whose s_jl is nonbasic at its
    upper bound, deleting those columns and changing the right-hand sides of the job's row and of
    the segments' rows (the basis and the point stay as they were). A split of a segment below an
    anchor splits its r columns as it does s columns (the later part holds the part of the
    complement nearest the anchor). A column is lifted past only after :data:`LIFT_AFTER` solves
    at its upper bound: lifted at once, jobs that had to come back down needed pricing rounds and
    the objective oscillated (5,000 jobs: 48 rounds and 310 s; after 2 solves 26 rounds, after 3
    23, after 4 25 and 609 MB). Measured on the benchmark's ``dag_instance(n, release=False)``
    against the loop without lifting in the same run: 1,000 jobs 5.3 s -> 2.3 s, 2,000 jobs
    32.6 s / 570 MB -> 8.0 s / 257 MB, 5,000 jobs 266 s / 1,323 MB -> 30.7 s / 437 MB (239,000
    columns at most, in round 11, instead of 430,000 at 2,000 jobs). Lifting only once the segments
    held more than 10 columns per job (to leave instances with release times alone) let the
    columns pile up first: 72.7 s at 5,000 jobs.
    """

    PRICE_TOL = 1e-7
    """A left-out column whose reduced cost is below minus this is added (HiGHS's own dual
    feasibility tolerance: a column it would count as dual feasible is not added)."""

    LIFT_AFTER = 3
    """:meth:`lift` moves an anchor past a column only once it has been nonbasic at its upper bound
    after this many solves in a row (sooner, the restriction binds and the loop oscillates)."""

    def __init__(self, data: ScheduleLPData, *, price: bool = True, lift: bool = True):
        self.data = data
        self.pricing = price
        self.lifting = lift and price  # a lifted column comes back only by pricing
        self.half = data.p / (2 * data.mu_j)
        self.dlow = data.lower - self.half
        self.P = float(data.p.sum())
        self.b = [float(self.dlow.min())]
        self.segs: list[_Segment] = []
        self.cut_rows: list[int] = []  # the cut at b[k + 1] (right end of segment k)
        self.a = np.full(data.n, np.inf)
        self.anchor = np.full(data.n, np.inf)  # A_j: the segments from a_j to A_j are written as r_jl
        self.job_row = np.full(data.n, -1, dtype=np.int64)
        self.priced = 0
        self.lifted = 0
        self._moved_jobs: set[int] = set()  # job rows and segment rows whose right-hand side changed
        self._moved_segs: set[int] = set()  # (ids of the _Segment objects)

    def _segment(self, e: EditBuilder, later: np.ndarray, rhs: float = 0.0) -> _Segment:
        """A new segment without columns yet: its row S_l − Σ_j (p_j/P) s_jl = rhs (nonbasic) and its
        column S_l (basic), which also enters the cut rows *later*."""
        row = int(e.add_rows([rhs], rhs, AT_LOWER)[0])
        S = int(e.add_cols([-np.inf], np.inf, BASIC, 0.0)[0])
        e.add_entries(np.r_[row, later], np.full(1 + len(later), S), np.ones(1 + len(later)))
        return _Segment(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), S, row, rhs)

    def _columns(self, e: EditBuilder, seg: _Segment, jobs: np.ndarray, lo: np.ndarray, upper,
                 value: np.ndarray, status, sign=1.0, full=0) -> np.ndarray:
        """Columns of *seg* for *jobs* (bounds [lo, upper], values and basis statuses), in their job
        rows and the segment's row: s_jl where *sign* is 1, the complement r_jl where it is −1;
        *full* the solves they count as having been at their upper bound (see :meth:`lift`)."""
        cols = e.add_cols(lo, upper, AT_LOWER, value)
        e.col_status[cols] = status
        sign = np.broadcast_to(np.asarray(sign, dtype=float), (len(jobs),))
        e.add_entries(np.r_[self.job_row[jobs], np.full(len(jobs), seg.row)], np.r_[cols, cols],
                      np.r_[-sign, -sign * self.data.p[jobs] / self.P])
        seg.jobs, seg.cols = np.r_[seg.jobs, jobs], np.r_[seg.cols, cols]
        seg.full = np.r_[seg.full, np.broadcast_to(np.asarray(full, dtype=np.int64), (len(cols),))]
        return cols

    def add_cut(self, t: float, e: EditBuilder) -> bool:
        """Add the fluid cut at *t* through *e*; False if *t* needs none (no d_j can be below it,
        or a cut at *t* is there already). A split below anchors changes right-hand sides: call
        :meth:`write_rhs` on *e* before it is applied."""
        b = self.b
        pos = int(np.searchsorted(b, t))
        if t <= b[0] or (pos < len(b) and b[pos] == t):
            return False
        p = self.data.p
        if pos == len(b):  # a new last segment [b_K, t]; every anchor is at or below b_K
            a, length = b[-1], t - b[-1]
            new = np.flatnonzero((self.dlow < t) & (self.job_row < 0))
            if len(new):
                rows = e.add_rows(a + self.half[new], np.inf, BASIC)
                e.add_entries(rows, new, np.ones(len(new)))
                self.job_row[new], self.a[new], self.anchor[new] = rows, a, a
            jobs = np.flatnonzero(self.job_row >= 0)
            lo = np.clip(self.dlow[jobs] - a, 0.0, length)
            if self.pricing:  # s_jl may be positive only where d_j is above a (see price)
                keep = (lo > 0) | (e.x[jobs] - self.half[jobs] > a)
                jobs, lo = jobs[keep], lo[keep]
            seg = self._segment(e, np.empty(0, dtype=np.int64))
            self._columns(e, seg, jobs, lo, length, lo, AT_LOWER)
            self.segs.append(seg)
            b.append(t)
            k = len(self.segs) - 1
        else:  # split segment pos - 1 = [a, c] at t
            k = pos - 1
            old = self.segs[k]
            a, c = b[k], b[pos]
            below = self.anchor[old.jobs] >= c  # r columns (the segment is below the job's anchor)
            jobs, cols = old.jobs[~below], old.cols[~below]
            dl = self.dlow[jobs]
            st, xv = e.col_status[cols], e.x[cols]
            lo1, lo2 = np.clip(dl - a, 0.0, t - a), np.clip(dl - t, 0.0, c - t)
            e.set_bounds(cols, lo1, np.full(len(cols), t - a))
            # nonbasic columns keep their side; a basic one stays basic, the new part at the bound
            # nearest its value (the basis stays block triangular, so it stays a basis)
            st2 = np.where(st == AT_UPPER, AT_UPPER, AT_LOWER)
            st2[(st == BASIC) & (xv > t - a)] = AT_UPPER
            e.x[cols] = np.where(st == AT_LOWER, lo1, np.where(st == AT_UPPER, t - a, np.minimum(xv, t - a)))
            x2 = np.where(st2 == AT_UPPER, c - t, lo2)
            if self.pricing:  # the second part only where it may be positive (see price)
                keep = (st2 == AT_UPPER) | (lo2 > 0) | (e.x[jobs] - self.half[jobs] > t)
                jobs, lo2, x2, st2 = jobs[keep], lo2[keep], x2[keep], st2[keep]
            # every job whose anchor is at or above c has its complement here, with or without a column
            r_jobs = np.flatnonzero((self.job_row >= 0) & (self.a <= a) & (self.anchor >= c))
            moved = float(p[r_jobs].sum()) / self.P * (c - t)
            seg = self._segment(e, np.asarray(self.cut_rows[k:], dtype=np.int64), moved)
            self._columns(e, seg, jobs, lo2, c - t, x2, st2)
            if moved:
                old.rhs -= moved
                self._moved_segs.add(id(old))
            rj, rc = old.jobs[below], old.cols[below]
            if len(rj):  # r columns: the later part [t, c] (nearest the anchor) fills first
                dl = self.dlow[rj]
                R1 = np.maximum(t - np.maximum(a, dl), 0.0)
                R2 = np.maximum(c - np.maximum(t, dl), 0.0)
                st, xv = e.col_status[rc], e.x[rc]
                e.set_bounds(rc, np.zeros(len(rc)), R1)
                st2 = np.where(st == AT_UPPER, AT_UPPER, AT_LOWER)
                st2[(st == BASIC) & (xv >= R2)] = AT_UPPER
                x2 = np.where(st2 == AT_UPPER, R2, 0.0)
                e.x[rc] = np.where(st == AT_LOWER, 0.0, np.where(st == AT_UPPER, R1, xv - x2))
                self._columns(e, seg, rj, np.zeros(len(rj)), R2, x2, st2, -1.0)
            self.segs.insert(k + 1, seg)
            b.insert(pos, t)
        have = np.flatnonzero(self.a < t)
        rhs = (float(p[have] @ (t - self.a[have])) - self.data.mu * t * t / 2) / self.P
        row = int(e.add_rows([rhs], np.inf, BASIC)[0])
        S_cols = np.array([seg.S for seg in self.segs[:k + 1]], dtype=np.int64)
        e.add_entries(np.full(len(S_cols), row), S_cols, np.ones(len(S_cols)))
        self.cut_rows.insert(k, row)
        return True

    def lift(self, x: np.ndarray, col_status: np.ndarray) -> np.ndarray:
        """Move anchors up (see the class docstring): for each job, past the segments from its
        anchor up whose s_jl is nonbasic at its upper bound. Returns the columns to delete (in the
        numbering of *x*; the caller deletes them and then calls :meth:`renumber` and, on the
        round's edit, :meth:`write_rhs`)."""
        if not self.lifting:
            return np.empty(0, dtype=np.int64)
        p = self.data.p
        drop = []
        for l, seg in enumerate(self.segs):
            if not len(seg.jobs):
                continue
            start, end = self.b[l], self.b[l + 1]
            length = end - start
            st = col_status[seg.cols]
            at_upper = (st != BASIC) & ((st == AT_UPPER) | (self.dlow[seg.jobs] - start >= length))
            seg.full = np.where(at_upper, seg.full + 1, 0)
            full = (self.anchor[seg.jobs] == start) & (seg.full >= self.LIFT_AFTER)
            if not full.any():
                continue
            jobs = seg.jobs[full]
            self.anchor[jobs] = end
            self._moved_jobs.update(jobs.tolist())
            seg.rhs += float(p[jobs].sum()) / self.P * length
            self._moved_segs.add(id(seg))
            drop.append(seg.cols[full])
            seg.jobs, seg.cols, seg.full = seg.jobs[~full], seg.cols[~full], seg.full[~full]
        out = np.concatenate(drop) if drop else np.empty(0, dtype=np.int64)
        self.lifted += len(out)
        return out

    def write_rhs(self, e: EditBuilder) -> None:
        """The right-hand sides :meth:`lift` and splits changed, into *e* (in its numbering)."""
        if self._moved_jobs:
            jobs = np.fromiter(self._moved_jobs, dtype=np.int64, count=len(self._moved_jobs))
            e.set_row_bounds(self.job_row[jobs], self.anchor[jobs] + self.half[jobs], np.full(len(jobs), np.inf))
        segs = [seg for seg in self.segs if id(seg) in self._moved_segs]
        if segs:
            rows = np.array([seg.row for seg in segs], dtype=np.int64)
            rhs = np.array([seg.rhs for seg in segs])
            e.set_row_bounds(rows, rhs, rhs)
        self._moved_jobs.clear()
        self._moved_segs.clear()

    def renumber(self, col_new: np.ndarray, row_new: np.ndarray) -> None:
        """Follow a deletion of other columns and rows: *col_new*/*row_new* map each old index to
        its new one (-1: deleted, which none of this formulation's may be)."""
        has = self.job_row >= 0
        self.job_row[has] = row_new[self.job_row[has]]
        for seg in self.segs:
            seg.cols, seg.S, seg.row = col_new[seg.cols], int(col_new[seg.S]), int(row_new[seg.row])
        self.cut_rows = row_new[np.asarray(self.cut_rows, dtype=np.int64)].tolist()
        if np.any(self.job_row[has] < 0) or any(seg.S < 0 or seg.row < 0 or np.any(seg.cols < 0) for seg in self.segs) \
                or any(r < 0 for r in self.cut_rows):
            raise ValueError("a deletion removed part of the fluid segments")

    def add_all(self, e: EditBuilder) -> int:
        """Add (through *e*) every column left out; returns how many. For a restriction that came
        out infeasible (left-out columns fixed at 0 can leave a cut no room), where there are no
        duals to price with."""
        return self.price(e, None)

    def price(self, e: EditBuilder, row_dual: np.ndarray | None) -> int:
        """Add (through *e*) every left-out column (s_jl, or r_jl below the job's anchor) whose
        reduced cost at the duals *row_dual* of the last solve is below −:data:`PRICE_TOL` (every
        left-out column if *row_dual* is None); returns how many."""
        if not self.pricing:
            return 0
        p = self.data.p
        added = 0
        for l, seg in enumerate(self.segs):
            start, end = self.b[l], self.b[l + 1]
            has = np.zeros(self.data.n, dtype=bool)
            has[seg.jobs] = True
            out = np.flatnonzero((self.a <= start) & ~has)  # jobs with a row and no column here
            if not len(out):
                continue
            comp = self.anchor[out] >= end  # r_jl: the segment is below the job's anchor
            if row_dual is not None:
                rc = row_dual[self.job_row[out]] + (p[out] / self.P) * row_dual[seg.row]
                bad = np.where(comp, -rc, rc) < -self.PRICE_TOL
                out, comp = out[bad], comp[bad]
            lo = np.clip(self.dlow[out] - start, 0.0, end - start)
            upper = np.where(comp, end - start - lo, end - start)
            ok = ~comp | (upper > 0)  # an r_jl wholly below d_j's bound is 0 anyway
            out, comp, lo, upper = out[ok], comp[ok], lo[ok], upper[ok]
            if len(out):
                lo = np.where(comp, 0.0, lo)
                self._columns(e, seg, out, lo, upper, lo, AT_LOWER, np.where(comp, -1.0, 1.0))
                added += len(out)
        self.priced += added
        return added


@dataclass(eq=False)
class _Segment:
    """A segment of :class:`FluidSegments`: the jobs with a column s_jl or r_jl in it and those
    columns, its column S_l, the row that defines S_l and that row's right-hand side."""

    jobs: np.ndarray
    cols: np.ndarray
    S: int
    row: int
    rhs: float = 0.0
    full: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    """Per column: the solves in a row after which it was nonbasic at its upper bound."""


@dataclass(eq=False)
class _Chain:
    """A running-sum chain in the LP of :meth:`QueyranneCuts.edit`: the prefixes of *jobs* ending
    at positions *ends*, z_i >= low_i, in columns *cols* and rows *rows*; ``idle`` counts the
    solves in a row after which each z_i was basic; ``keep``, if set, the solves after which such
    a prefix is deleted when that is fewer than :class:`QueyranneCuts`' own (the seed chain: 1)."""

    jobs: np.ndarray
    ends: np.ndarray
    low: np.ndarray
    cols: np.ndarray
    rows: np.ndarray
    idle: np.ndarray = None
    keep: int | None = None

    def __post_init__(self):
        if self.idle is None:
            self.idle = np.zeros(len(self.ends), dtype=np.int64)


def _renumbering(count: int, drop: np.ndarray) -> np.ndarray:
    """Each of *count* indices' number once *drop* are deleted (the rest in order), -1 for those."""
    keep = np.ones(count, dtype=bool)
    keep[drop] = False
    return np.where(keep, np.cumsum(keep) - 1, -1)
