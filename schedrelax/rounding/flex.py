"""FLEX (paper 002, Wolf et al. 2010): priority orderings fed to the Malleable
Packing Scheme, the exhaustive search over orderings, and the exact malleable MIP as a schedule.

FLEX (§3) computes a few priority orderings, runs MPS (§3.1, Fig. 3) on each and keeps the best
schedule. Its *generic* ordering is the completion order of the moldable problem solved as a
separable resource allocation problem (RAP, §3.2): every flow runs from the start on a constant
number of slots s_f, F_f(s) = cost_f(start_f + W_f / s), solved by Fox's greedy (convex
minisum), the dynamic program (step costs) or the G_j transform (minimax), see
:mod:`schedrelax.schedulers.rap`. The paper omits its metric-specific orderings; in their place
:func:`improve_order` runs a swap and insertion local search on the MPS cost, started from the RAP
order and from the WSPT and EDD rules.

Registered for the malleable family:

* ``flex`` — RAP order, WSPT and EDD, each improved by local search; the best MPS schedule.
* ``flex-rap`` — MPS on the RAP order alone (the paper's generic scheme).
* ``exhaustive`` — the best MPS schedule over *all* orderings, by branch and bound (§4.1's
  "brute force exhaustive search"); the optimum whenever Lemma 1 holds.
* ``mip`` — the exact event-based MIP of :mod:`schedrelax.models.malleable_mip`, its solution cut
  into whole-processor pieces.

**Lemma 1 does not hold as stated.** With integral slots (and even with fractional ones) some
instances have no ordering whose MPS schedule is optimal: two jobs of work 3 with at most 2 of 3
slots each finish by time 2 when they share the slots 1.5/1.5 on average, but every MPS schedule
gives one job 2 slots and ends at 2.25 (makespan, or two deadlines at 2). So ``exhaustive``
reports no lower bound; ``mip`` does. See ``tests/rounding/test_flex.py`` for the instances.

Choices where the paper is silent (besides those of :mod:`~schedrelax.schedulers.malleable_packing`):

* Flows of several jobs and releases: the RAP sees each flow as one moldable job of its total
  work, at most min(P, Σ maxima) slots and at least max(1, largest minimum), starting at
  max(now, release). With one job per flow at time 0 this is §3.2's RAP exactly.
* The RAP needs every flow to get a slot; when the lower bounds do not fit, they are the
  normalised minima and s = 0 means "finishes after everything" (cost at start + 2·Σ W, a value
  that keeps convex summands convex).
* Step costs: the DP leaves slots unused when more would not lower the step; we then give them
  out by Fox's greedy on Σ completion times (never raising the step cost), so that the
  completion order — FLEX's priority — still reflects the sizes.
* Ties in every order go to the lower flow index.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import linear_sum_assignment

from schedrelax.errors import AlgorithmError, NoOptimalSolutionError
from schedrelax.result import Result
from schedrelax.instances import MalleableInstance
from schedrelax.instances.costs import (
    CompletionCost,
    LatenessCost,
    SLACost,
    StretchCost,
    TardinessCost,
    TardyCost,
    aggregate,
)
from schedrelax.models.malleable_mip import (
    add_power_tangents,
    build_malleable_mip,
    malleable_mip_solution,
    malleable_mip_start,
)
from schedrelax.rounding.exact import (
    COST_MATCH,
    Budget,
    below,
    cheapest,
    exact_outcome,
    exact_solver_options,
    keep_cheaper,
    larger_bound,
    run_candidates,
    strongest_bound,
)
from schedrelax.schedulers.malleable_packing import (
    DONE_FRACTION,
    CostVector,
    EpochView,
    IntervalPlan,
    cut_at_work,
    fit_interval_rates,
    normalise_minima,
    pack,
    pack_completion,
    topological_rank,
    whole_processor_pieces,
)
from schedrelax.schedulers.rap import RAPSolution, rap_dp, rap_fox, rap_minimax
from schedrelax.schedules import POOLED, Schedule, evaluate, tie_order, time_scale, unit_factor
from schedrelax.solvers import solve

__all__ = [
    "FlexChoice",
    "FlexProblem",
    "default_budget",
    "edd_order",
    "exhaustive_order",
    "flex_allocator",
    "flex_order",
    "improve_order",
    "rap_order",
    "snap_to_data_times",
    "wspt_order",
]


# --------------------------------------------------------------------------------------------
# The problem an ordering is scored on
# --------------------------------------------------------------------------------------------

class FlexProblem:
    """What every ordering is scored on: the unfinished jobs of an instance from time ``now``.

    ``jobs`` (global indices, default all) with ``remaining`` work (default their sizes); their
    flows are numbered 0..F-1 here in ascending global order (``flows`` maps back). An order is a
    permutation of these local flows; :meth:`cost` is the instance's objective of the MPS schedule
    for that order, :meth:`plan` the schedule itself. ``minima=False`` packs with minima 0.
    """

    def __init__(self, instance: MalleableInstance, jobs: np.ndarray | None = None,
                 remaining: np.ndarray | None = None, now: float = 0.0, minima: bool = True):
        self.instance = instance
        self.ids = np.arange(instance.n_jobs) if jobs is None else np.asarray(jobs, dtype=np.int64)
        self.work = instance.size[self.ids].astype(float) if remaining is None else np.asarray(remaining, dtype=float)
        self.now = float(now)
        self.processors = instance.processors
        self.maxp = instance.max_procs[self.ids]
        self.minp = instance.min_procs[self.ids] if minima else np.zeros(len(self.ids), dtype=np.int64)
        self.flows, self.job_flow = np.unique(instance.job_flow[self.ids], return_inverse=True)
        self.n_flows = len(self.flows)
        rel = instance.job_release[self.ids]
        self.release = rel if (rel > self.now).any() else None
        self.flow_start = np.maximum(instance.flow_release[self.flows], self.now)
        self.edges = None
        if len(instance.edges):
            local = np.full(instance.n_jobs, -1)
            local[self.ids] = np.arange(len(self.ids))
            e = local[instance.edges]
            self.edges = e[(e >= 0).all(axis=1)]
        self.single = len(self.ids) == self.n_flows
        self.topo = None if self.single else topological_rank(instance)[self.ids]
        self.costs = CostVector([instance.flows[f].cost for f in self.flows])
        self.objective = instance.objective
        self.evaluations = 0

    def priority(self, order: Sequence[int]) -> np.ndarray:
        """Local job indices, highest priority first, for an order of the local flows."""
        order = np.asarray(order, dtype=np.int64)
        if self.single:
            return order
        rank = np.empty(self.n_flows, dtype=np.int64)
        rank[order] = np.arange(self.n_flows)
        return np.lexsort((self.ids, self.topo, rank[self.job_flow]))

    def completion(self, order: Sequence[int]) -> tuple[np.ndarray, bool]:
        """Each local flow's completion time under MPS in ``order``, and whether minima were
        normalised."""
        self.evaluations += 1
        comp, normalised = pack_completion(self.processors, self.work, self.maxp, self.minp, self.priority(order),
                                           release=self.release, edges=self.edges, start=self.now)
        if self.single:
            return comp, normalised
        out = np.full(self.n_flows, -np.inf)
        np.maximum.at(out, self.job_flow, comp)
        return out, normalised

    def value(self, flow_completion: np.ndarray) -> float:
        """The objective (sum or max of the flows' costs) of given flow completion times."""
        return aggregate(self.costs(flow_completion), self.objective)

    def cost(self, order: Sequence[int]) -> float:
        """The objective of the MPS schedule for ``order``."""
        return self.value(self.completion(order)[0])

    def plan(self, order: Sequence[int]) -> IntervalPlan:
        """The MPS interval plan for ``order`` (columns are global job indices)."""
        return pack(self.processors, self.work, self.maxp, self.minp, self.priority(order), release=self.release,
                    edges=self.edges, start=self.now, ids=self.ids)

    def global_order(self, order: Sequence[int]) -> list[int]:
        """An order of local flows as global flow indices."""
        return self.flows[np.asarray(order, dtype=np.int64)].tolist()


# --------------------------------------------------------------------------------------------
# Orderings
# --------------------------------------------------------------------------------------------

def _flow_sums(problem: FlexProblem, values: np.ndarray) -> np.ndarray:
    return np.bincount(problem.job_flow, weights=values, minlength=problem.n_flows)


def rap_order(problem: FlexProblem) -> tuple[np.ndarray, RAPSolution]:
    """FLEX's generic ordering (paper 002 §3.2): the completion order of the moldable RAP.

    Each flow f runs from ``start_f`` on s_f slots and completes at ``start_f + W_f / s_f``;
    minimise the sum (or max) of its costs subject to Σ s_f <= S and its bounds. Convex minisum
    costs go to Fox's greedy (a convex non-decreasing cost of the convex W/s is convex in s: that
    includes tardiness, which §3.2 sends to the DP), step costs to the DP (leftover slots then
    spread by Fox on Σ completion), minimax to the G_j transform. Returns the order and the RAP
    solution.
    """
    P = problem.processors
    W = _flow_sums(problem, problem.work)
    upper = np.minimum(P, _flow_sums(problem, problem.maxp)).astype(np.int64)
    mins = np.zeros(problem.n_flows, dtype=np.int64)
    np.maximum.at(mins, problem.job_flow, problem.minp)
    lower = np.maximum(mins, 1)
    if lower.sum() > P:
        lower = normalise_minima(mins, P)
    start = problem.flow_start
    never = start + 2.0 * W.sum() + W  # "s = 0": later than any schedule of this work

    def finish(f: np.ndarray, s: np.ndarray) -> np.ndarray:
        return np.where(s > 0, start[f] + W[f] / np.maximum(s, 1), never[f])

    def F(f: np.ndarray, s: np.ndarray) -> np.ndarray:
        return problem.costs(finish(f, s), f)

    if problem.objective == "minimax":
        sol = rap_minimax(F, lower, upper, P)
    elif all(c.is_convex for c in problem.costs.costs):
        sol = rap_fox(F, lower, upper, P)
    else:
        sol = rap_dp(F, lower, upper, P, candidates=[_step_thresholds(c, W[f], start[f])
                                                     for f, c in enumerate(problem.costs.costs)])
        if sol.slots.sum() < P:
            filled = rap_fox(finish, sol.slots, upper, P).slots
            sol = RAPSolution(filled, sol.value, sol.objective, "dp+fill")
    completion = finish(np.arange(problem.n_flows), sol.slots)
    # Completions an ulp apart in one unit may be equal in another: they tie, by index.
    return tie_order(completion, time_scale(problem.instance)), sol


def _step_thresholds(cost, work: float, start: float) -> np.ndarray | None:
    """The slot counts where a step cost of completing at ``start + work / s`` can drop: around
    ``work / (d − start)`` for each breakpoint d (±1 against rounding). None for other kinds."""
    if not cost.is_step:
        return None
    d = cost.breakpoints()
    d = d[d > start]
    base = np.ceil(work / (d - start)).astype(np.int64)
    return np.unique(np.concatenate([base - 1, base, base + 1]))


def _weight(cost) -> float:
    """The slope a WSPT rule weighs a flow by: its weight (1/W for stretch, Σ heights for SLA)."""
    if isinstance(cost, StretchCost):
        return cost.weight
    if isinstance(cost, SLACost):
        return float(sum(cost.heights))
    return float(getattr(cost, "weight", 1.0))


def _deadline(cost) -> float:
    """The deadline an EDD rule sorts a flow by (the first SLA deadline; +inf if none)."""
    if isinstance(cost, (TardyCost, TardinessCost, LatenessCost)):
        return cost.deadline
    if isinstance(cost, SLACost):
        return cost.deadlines[0]
    return math.inf


def wspt_order(problem: FlexProblem) -> np.ndarray:
    """Weighted shortest processing time first: W_f / weight_f ascending (weight 0 last)."""
    W = _flow_sums(problem, problem.work)
    w = np.array([_weight(c) for c in problem.costs.costs])
    ratio = np.divide(W, w, out=np.full(len(W), np.inf), where=w > 0)
    return np.lexsort((np.arange(len(W)), W, ratio))


def edd_order(problem: FlexProblem) -> np.ndarray | None:
    """Earliest deadline first (ties by work); None if no flow has a deadline."""
    d = np.array([_deadline(c) for c in problem.costs.costs])
    if np.isinf(d).all():
        return None
    return np.lexsort((np.arange(len(d)), _flow_sums(problem, problem.work), d))


def improve_order(problem: FlexProblem, order: Sequence[int], budget: int,
                  value: float | None = None) -> tuple[np.ndarray, float]:
    """Swap and insertion local search on the MPS cost (our stand-in for §3.2's omitted
    metric-specific schemes).

    Passes over the order: for each position i and every other position k, move the flow at i to
    k (an insertion; |i − k| = 1 is an adjacent swap) and swap the flows at i and k; a move is
    kept as soon as it lowers the cost by more than a relative 1e-12 (first improvement). Stops
    at a local optimum (a full pass without a kept move) or after ``budget`` evaluations. Returns
    the best order and its cost.
    """
    best = np.asarray(order, dtype=np.int64).copy()
    best_value = problem.cost(best) if value is None else value
    n = len(best)
    used = 0
    improved = True
    while improved and used < budget:
        improved = False
        for i, k in itertools.product(range(n), range(n)):
            if i == k:
                continue
            moves = [np.insert(np.delete(best, i), k, best[i])]
            if abs(i - k) > 1 and i < k:
                swapped = best.copy()
                swapped[[i, k]] = swapped[[k, i]]
                moves.append(swapped)
            for cand in moves:
                if used >= budget:
                    return best, best_value
                used += 1
                v = problem.cost(cand)
                if v < best_value - 1e-12 * max(1.0, abs(best_value)):
                    best, best_value, improved = cand, v, True
    return best, best_value


def default_budget(n_flows: int) -> int:
    """Local-search evaluations FLEX spends by default: 1,200 for 10 flows (a local optimum from
    each start, in the §4.1 runs), 12 for 1,000 (one MPS run there takes ~30 ms: n events of
    O(n) each)."""
    return max(10, 12000 // max(n_flows, 1))


@dataclass(frozen=True, eq=False)
class FlexChoice:
    """FLEX's pick: the best ``order`` (local flows), its ``value``, the start it came from, and
    each start's cost before and after the local search."""

    order: np.ndarray
    value: float
    start: str
    starts: dict[str, tuple[float, float]]
    rap: RAPSolution


def flex_order(problem: FlexProblem, max_evaluations: int | None = None) -> FlexChoice:
    """FLEX (paper 002 §3): the RAP order, WSPT and EDD, each improved by :func:`improve_order`
    with an equal share of ``max_evaluations`` (default :func:`default_budget`); the best wins,
    ties to the earlier start in that list."""
    rap, rap_solution = rap_order(problem)
    starts = {"rap": rap, "wspt": wspt_order(problem)}
    edd = edd_order(problem)
    if edd is not None:
        starts["edd"] = edd
    budget = default_budget(problem.n_flows) if max_evaluations is None else int(max_evaluations)
    share = budget // len(starts)
    report: dict[str, tuple[float, float]] = {}
    best: tuple[float, str, np.ndarray] | None = None
    for name, order in starts.items():
        v0 = problem.cost(order)
        order, v = improve_order(problem, order, share, v0) if problem.n_flows > 1 else (order, v0)
        report[name] = (v0, v)
        if best is None or v < best[0]:
            best = (v, name, order)
    assert best is not None
    return FlexChoice(best[2], best[0], best[1], report, rap_solution)


def flex_allocator(max_evaluations: int = 30, *, improve: bool = True):
    """FLEX as an epoch allocator for :func:`~schedrelax.schedulers.malleable_packing.epoch_simulation`:
    at each epoch the unfinished jobs from ``now`` are ordered by :func:`flex_order` (or the RAP
    order alone with ``improve=False``) and packed by MPS with their minima. The local search gets
    ``max_evaluations`` MPS runs per epoch: a plan must be ready within an epoch (§2.2)."""
    def allocate(view: EpochView) -> IntervalPlan:
        problem = FlexProblem(view.instance, view.jobs, view.remaining, view.now)
        order = flex_order(problem, max_evaluations).order if improve else rap_order(problem)[0]
        return problem.plan(order)
    return allocate


# --------------------------------------------------------------------------------------------
# Exhaustive search over orderings (branch and bound)
# --------------------------------------------------------------------------------------------

_SUBSET_BOUND_JOBS = 12
"""The subset lower bound enumerates 2^a subsets of the a open jobs: only up to this many."""


def _linear_cost(cost) -> tuple[float, float] | None:
    """(a, b) with cost(C) = a·C + b for the affine kinds (completion, stretch, lateness)."""
    if isinstance(cost, (CompletionCost, StretchCost)):
        return _weight(cost), 0.0
    if isinstance(cost, LatenessCost):
        return cost.weight, -cost.weight * cost.deadline
    return None


class _Branching:
    """MPS run lazily for a priority order known only up to a prefix (see :func:`exhaustive_order`).

    The state advances event by event while the prefix decides the allocation: the slack left
    after the ordered active jobs is either zero or enough to fill every unordered active job to
    its maximum. Otherwise the next flow in the order must be chosen: a branch point. The search
    is for small instances and copies this state at every node, so it is kept in Python lists
    (numpy's per-call overhead dominates on ten jobs); the arithmetic is :func:`pack`'s.
    """

    def __init__(self, problem: FlexProblem):
        p = problem
        self.p = p
        n = len(p.ids)
        self.S = p.processors
        self.w = p.work.tolist()
        self.tol = (DONE_FRACTION * p.work).tolist()
        self.maxp = p.maxp.tolist()
        self.minp = p.minp.tolist()
        self.flow_of = p.job_flow.tolist()
        self.sub = [0] * n if p.topo is None else p.topo.tolist()
        self.rel = [p.now] * n if p.release is None else p.release.tolist()
        self.pending = sorted({r for r in self.rel if r > p.now})
        self.next_rel = 0
        self.released = [r <= p.now for r in self.rel]
        self.waiting = [0] * n
        self.succ: list[list[int]] = [[] for _ in range(n)]
        if p.edges is not None:
            for a, b in p.edges.tolist():
                self.succ[a].append(b)
                self.waiting[b] += 1
        self.ready = [self.released[j] and not self.waiting[j] for j in range(n)]
        self.done_at: list[float | None] = [None] * n
        self.t = p.now
        self.left = n
        self.flow_rank = [p.n_flows] * p.n_flows  # unordered flows rank last
        self.prefix: list[int] = []
        # Without arrivals (releases, successors) slack never shrinks, so a job filled to its
        # maximum stays there: the order among jobs filled at one branch point is immaterial.
        self.fixed_set = p.single and p.release is None and (p.edges is None or not len(p.edges))
        self.min_full = -1  # a job filled at this branch point must have a larger index
        self.rest = 0  # slack left for the unordered jobs at the branch point
        self.room = [0] * p.n_flows  # their room above the minimum there
        self.flexible = [False] * p.n_flows  # flows with an unfinished job of maxp > minp there
        self.masks: dict[int, np.ndarray] = {}  # subsets of a open jobs, shared by every node
        self.linear = [_linear_cost(c) for c in p.costs.costs]

    def copy(self) -> _Branching:
        other = object.__new__(_Branching)
        other.__dict__.update(self.__dict__)
        for name in ("w", "released", "waiting", "ready", "done_at", "flow_rank", "room", "prefix"):
            setattr(other, name, list(getattr(self, name)))
        return other

    def choices(self) -> list[int]:
        """The flows worth putting next at a branch point: every unordered flow that can ever take
        slack, that is, with an unfinished job of ``maxp > minp`` — also when that job is not
        active yet (not released, waiting on a predecessor) or has no room at this moment, since
        its rank decides what it gets once it is active and has room. When the fill order is
        immaterial (``fixed_set``), flows filled to their maximum here only in index order.

        Why nothing is lost: a job with ``maxp = minp`` gets exactly its minimum whenever the
        minima fit and, when they do not, its normalised minimum with slack 0 (they sum to S); so
        its rank never changes the allocation, and orders that differ only in where such flows
        stand give the same schedule. Every other order is a path of this tree. (Offering only
        the active flows with room lost every order that ranks a flow released later before one
        chosen now: the optimum of ``test_exhaustive_finds_orders_that_rank_later_releases_first``.)
        """
        F = self.p.n_flows
        return [f for f in range(F)
                if self.flow_rank[f] == F and self.flexible[f]
                and not (self.fixed_set and 0 < self.room[f] <= self.rest and f <= self.min_full)]

    def choose(self, flow: int) -> None:
        if self.fixed_set and self.room[flow] <= self.rest:
            self.min_full = flow
        self.flow_rank[flow] = len(self.prefix)
        self.prefix.append(flow)

    def advance(self) -> bool:
        """Run events until the end (True) or until the order must be extended (False)."""
        S, F = self.S, self.p.n_flows
        w, tol = self.w, self.tol
        while self.left:
            act = [j for j, r in enumerate(self.ready) if r]
            release_at = self.pending[self.next_rel] if self.next_rel < len(self.pending) else math.inf
            finished: list[int] = []
            if not act:
                t_new = release_at
            else:
                mins = [self.minp[j] for j in act]
                if sum(mins) > S:
                    mins = normalise_minima(np.array(mins), S).tolist()  # act ascends: ties by index
                give = dict(zip(act, mins))
                slack = S - sum(mins)
                ordered = sorted((self.flow_rank[self.flow_of[j]], self.sub[j], j) for j in act
                                 if self.flow_rank[self.flow_of[j]] < F)
                for _, _, j in ordered:
                    extra = min(max(slack, 0), self.maxp[j] - give[j])
                    give[j] += extra
                    slack -= extra
                unordered = [j for j in act if self.flow_rank[self.flow_of[j]] == F]
                u_room = sum(self.maxp[j] - give[j] for j in unordered)
                if 0 < slack < u_room:
                    self.rest = slack
                    self.room = [0] * F
                    for j in unordered:
                        f = self.flow_of[j]
                        self.room[f] = max(self.room[f], self.maxp[j] - give[j])
                    self.flexible = [False] * F
                    for j, done in enumerate(self.done_at):
                        if done is None and self.maxp[j] > self.minp[j]:
                            self.flexible[self.flow_of[j]] = True
                    return False
                if slack > 0:
                    for j in unordered:
                        give[j] = self.maxp[j]
                run = [j for _, _, j in ordered] + unordered  # pack's order: highest priority first
                run = [j for j in run if give[j] > 0]
                k = min(run, key=lambda j: w[j] / give[j])
                t_fin = self.t + w[k] / give[k]
                t_new = min(t_fin, release_at)
                dt = t_new - self.t
                for j in run:
                    w[j] -= give[j] * dt
                if t_new == t_fin:
                    w[k] = 0.0
                finished = [j for j in run if w[j] <= tol[j]]
            self.t = t_new
            self.min_full = -1
            for j in finished:
                w[j] = 0.0
                self.ready[j] = False
                self.done_at[j] = self.t
                self.left -= 1
                for b in self.succ[j]:
                    self.waiting[b] -= 1
                    if not self.waiting[b] and self.released[b]:
                        self.ready[b] = True
            while self.next_rel < len(self.pending) and self.pending[self.next_rel] <= self.t:
                for j, r in enumerate(self.rel):
                    if not self.released[j] and r <= self.t:
                        self.released[j] = True
                        self.ready[j] = not self.waiting[j]
                self.next_rel += 1
        return True

    def flow_completion(self) -> np.ndarray:
        out = np.full(self.p.n_flows, -np.inf)
        np.maximum.at(out, self.p.job_flow, np.array(self.done_at, dtype=float))
        return out

    def lower_bound(self) -> float:
        """No completion of the orders below this node costs less (see :func:`exhaustive_order`)."""
        p = self.p
        F = p.n_flows
        alone = [-math.inf] * F  # each flow's completion if it ran alone on its maxima from now
        open_flow = [False] * F
        for j, done in enumerate(self.done_at):
            f = self.flow_of[j]
            if done is None:
                open_flow[f] = True
                done = max(self.t, self.rel[j]) + self.w[j] / self.maxp[j]
            alone[f] = max(alone[f], done)
        alone_cost = p.costs(np.array(alone))
        open_flows = np.flatnonzero(open_flow)
        closed = ~np.asarray(open_flow)
        if p.objective == "minimax":
            bound = float(alone_cost.max())
        else:
            bound = float(alone_cost.sum())
        if not len(open_flows):
            return bound
        W = np.zeros(F)
        for j, f in enumerate(self.flow_of):
            W[f] += self.w[j]
        W = W[open_flows]
        if p.objective == "minisum" and all(self.linear[f] is not None for f in open_flows):
            # One machine of speed S processing the remaining work in WSPT order finishes the
            # flows no later on (weighted) average than any schedule (processor sharing).
            slope = np.array([self.linear[f][0] for f in open_flows])
            o = np.lexsort((W, np.divide(W, slope, out=np.full(len(W), np.inf), where=slope > 0)))
            wspt = float(slope[o] @ (self.t + np.cumsum(W[o]) / self.S))
            bound = max(bound, float(alone_cost[closed].sum()) + wspt + sum(self.linear[f][1] for f in open_flows))
        if self.fixed_set and len(open_flows) <= _SUBSET_BOUND_JOBS:
            bound = max(bound, self._subset_bound(open_flows, W, np.asarray(alone)[open_flows], alone_cost[closed]))
        return bound

    def _subset_bound(self, jobs: np.ndarray, W: np.ndarray, alone: np.ndarray, closed_cost: np.ndarray) -> float:
        """Bounds from the time a set K of the open single-job flows needs to finish them all.

        Only for ``fixed_set`` (no arrivals): when the minima fit at t they fit at every later
        time, so MPS runs every unfinished job on at least its minimum m_j (m = 0 when they are
        normalised at t: then only the capacity bound is used).

        * The set K* of the jobs finished when the last job of K ends (K ⊆ K*): until then every
          open job outside K* is unfinished, hence running on at least its minimum, so K* gets at
          most S − Σ_{not K*} m_j slots, each job at most M_j, and the last job of K ends no
          earlier than t + T(K*) >= t + U(K), ``T(K) = max(max_K W_j / M_j, Σ_K W_j / (S −
          Σ_{not K} m_j))`` and U(K) the least T(K*) over the supersets K* of K.
        * The set K_k of the first k open jobs to finish (ties broken any way): until its last
          one ends, every open job outside K_k is still unfinished, hence running on at least its
          minimum, so K_k gets at most S − Σ_{not K_k} m_j slots and its last job ends no earlier
          than t + T(K_k) >= t + B_k, B_k the least T(K) over |K| = k. T(K) itself bounds only
          such sets, not every K: a job outside K may finish first and free its minimum (four
          jobs of work 1/2, maxima 1, minima 0, 0, 0, 1 on S = 2: T({0, 1, 2}) = 3/2 with job 3's
          slot held back, but MPS ends jobs 3 and 0 at 1/2 and the other two at 1; U({0, 1, 2})
          = T({0, 1, 2, 3}) = 1). Taking T(K) for every K made the minimax bound 3/2 there.

        Minimax: the objective is at least the cost of the last job of any K, so at least
        min_{j ∈ K} cost_j(t + U(K)) for every K (costs are non-decreasing), and at least
        min over |K| = k of min_{j ∈ K} cost_j(t + T(K)) for every k (K_k is one of those sets).
        Minisum: the k-th open flow to finish does so no earlier than t + B_k (the last of K_k),
        and no earlier than ``alone``: the cheapest assignment of flows to positions k with
        cost_j(max(t + B_k, alone_j)) bounds Σ cost_j.
        """
        p, a = self.p, len(jobs)
        if a not in self.masks:
            self.masks[a] = ((np.arange(2 ** a)[:, None] >> np.arange(a)) & 1).astype(bool)
        masks = self.masks[a][1:]  # non-empty subsets
        m = p.minp[jobs].astype(float)
        if m.sum() > self.S:
            m[:] = 0.0  # normalised minima: only the capacity bound is safe
        free = self.S - m.sum() + masks @ m
        longest = np.where(masks, (W / p.maxp[jobs])[None, :], 0.0).max(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            need = self.t + np.maximum(longest, np.where(free > 0, (masks @ W) / free, np.inf))
        if p.objective == "minimax":
            owner = np.broadcast_to(jobs, masks.shape)
            # U(K) = min T(K*) over K* ⊇ K: the least over supersets, one axis (job) at a time.
            sup = np.concatenate([[np.inf], need]).reshape((2,) * a)  # axis i ↔ job a − 1 − i
            for axis in range(a):
                sup = np.flip(np.minimum.accumulate(np.flip(sup, axis), axis), axis)
            any_set = sup.reshape(-1)[1:]  # t + U(K), every K
            cost = p.costs(np.broadcast_to(any_set[:, None], masks.shape), owner)
            bound = float(np.where(masks, cost, np.inf).min(axis=1).max())
            cost = p.costs(np.broadcast_to(need[:, None], masks.shape), owner)  # t + T(K): first k only
            first = np.full(a + 1, np.inf)
            np.minimum.at(first, masks.sum(axis=1), np.where(masks, cost, np.inf).min(axis=1))
            return max(bound, float(first[1:].max()), float(closed_cost.max(initial=-np.inf)))
        B = np.full(a + 1, np.inf)
        np.minimum.at(B, masks.sum(axis=1), need)
        times = np.maximum(B[None, 1:], alone[:, None])  # [flow, position]
        cost = p.costs(times, np.broadcast_to(jobs[:, None], times.shape))
        rows, cols = linear_sum_assignment(cost)
        return float(cost[rows, cols].sum() + closed_cost.sum())


def exhaustive_order(problem: FlexProblem, incumbent: Sequence[int] | None = None,
                     max_nodes: int = 2_000_000) -> tuple[np.ndarray, float, dict]:
    """The best MPS ordering by branch and bound (paper 002 §4.1's exhaustive search).

    Depth-first over priority prefixes. MPS is simulated lazily (:class:`_Branching`): a prefix
    fixes the schedule up to the first interval whose slack reaches unordered active jobs without
    filling them all, so orders sharing that prefix share that part of the run. A node is pruned
    when a lower bound on every completion of it is no better than the incumbent: finished flows
    at their cost, every other flow at its cost if it ran alone on its maximum from now (and for
    linear costs the larger of that and the single-machine WSPT bound of the remaining work; for
    single-job flows without arrivals the subset bounds of :meth:`_Branching._subset_bound`).
    A branch point offers every unordered flow that can ever take slack, active or not
    (:meth:`_Branching.choices`), so every ordering's MPS schedule is a leaf or a pruned node's
    descendant. Children are tried in the incumbent's order.
    ``incumbent`` (default FLEX's order) seeds the bound. Returns the best order, its cost and
    search statistics.
    """
    if incumbent is None:
        incumbent = flex_order(problem).order
    best_order = np.asarray(incumbent, dtype=np.int64)
    best_value = problem.cost(best_order)
    preference = {int(f): i for i, f in enumerate(best_order)}
    stats = {"nodes": 0, "leaves": 0, "pruned": 0}
    eps = 1e-12

    def explore(node: _Branching) -> None:
        nonlocal best_order, best_value
        stats["nodes"] += 1
        if stats["nodes"] > max_nodes:
            raise RuntimeError(f"exhaustive search: more than {max_nodes} nodes; raise max_nodes or use fewer flows")
        if node.advance():
            stats["leaves"] += 1
            v = problem.value(node.flow_completion())
            if v < best_value - eps * max(1.0, abs(best_value)):
                rest = sorted(set(range(problem.n_flows)) - set(node.prefix), key=preference.get)
                best_order, best_value = np.array(node.prefix + rest, dtype=np.int64), v
            return
        if node.lower_bound() >= best_value - eps * max(1.0, abs(best_value)):
            stats["pruned"] += 1
            return
        for f in sorted(node.choices(), key=preference.get):
            child = node.copy()
            child.choose(f)
            explore(child)

    explore(_Branching(problem))
    return best_order, best_value, stats


# --------------------------------------------------------------------------------------------
# Registered algorithms
# --------------------------------------------------------------------------------------------

def _mps_result(name: str, problem: FlexProblem, order: np.ndarray, info: dict, timings: dict,
                params: dict | None = None) -> Result:
    plan = problem.plan(order)
    promises = ("respects_minima",) if not plan.normalised else ()
    schedule = plan.schedule(promises=promises, meta={"algorithm": name})
    info = {**info, "order": problem.global_order(order), "intervals": len(plan.slots),
            "minima_normalised": plan.normalised}
    return Result(algorithm=name, schedule=schedule, timings=timings, params=params or {}, info=info)


def flex(instance: MalleableInstance, *, solver: str | None = None, seed: int | None = None,
         max_evaluations: int | None = None) -> Result:
    """FLEX (paper 002 §3): MPS on the best of the RAP order (§3.2) and the WSPT and EDD rules,
    each improved by swap and insertion local search (``max_evaluations`` MPS runs in all, default
    :func:`default_budget`). Promises ``respects_minima`` unless the minima had to be normalised."""
    t0 = time.perf_counter()
    problem = FlexProblem(instance)
    choice = flex_order(problem, max_evaluations)
    t1 = time.perf_counter()
    info = {"start": choice.start, "starts": choice.starts, "rap_method": choice.rap.method,
            "evaluations": problem.evaluations}
    return _mps_result("flex", problem, choice.order, info, {"order": t1 - t0},
                       {"max_evaluations": max_evaluations})


def flex_rap(instance: MalleableInstance, *, solver: str | None = None, seed: int | None = None) -> Result:
    """MPS (paper 002 §3.1) on the completion order of the moldable RAP (§3.2) alone."""
    t0 = time.perf_counter()
    problem = FlexProblem(instance)
    order, sol = rap_order(problem)
    t1 = time.perf_counter()
    return _mps_result("flex-rap", problem, order, {"rap_method": sol.method, "rap_slots": sol.slots.tolist(),
                                                    "rap_value": sol.value}, {"order": t1 - t0})


def exhaustive(instance: MalleableInstance, *, solver: str | None = None, seed: int | None = None,
               max_flows: int = 12, max_nodes: int = 2_000_000) -> Result:
    """The best MPS schedule over every priority ordering of the flows (paper 002 §4.1's
    exhaustive search, by branch and bound: :func:`exhaustive_order`).

    By Lemma 1 this would be the optimum; the lemma fails on some instances (see the module
    docstring), so no lower bound is claimed. Refuses more than ``max_flows`` flows.
    """
    if instance.n_flows > max_flows:
        raise AlgorithmError(f"exhaustive: {instance.n_flows} flows is more than max_flows={max_flows} (the search "
                             f"tries every ordering); raise max_flows to try anyway")
    t0 = time.perf_counter()
    problem = FlexProblem(instance)
    order, value, stats = exhaustive_order(problem, max_nodes=max_nodes)
    t1 = time.perf_counter()
    return _mps_result("exhaustive", problem, order, {**stats, "value": value}, {"search": t1 - t0},
                       {"max_flows": max_flows, "max_nodes": max_nodes})


_SNAP_TIME = 1e-9
"""Solver event times this close to a release or a cost breakpoint (absolute time units) are its
round-off of that data time: 9.000000000000004 for a deadline 9 would make a step cost late."""

def _data_times(instance: MalleableInstance) -> np.ndarray:
    """Every time the data names: flow releases and cost breakpoints (deadlines, SLA steps)."""
    marks = [instance.flow_release, *(fl.cost.breakpoints() for fl in instance.flows)]
    return np.unique(np.concatenate([np.asarray(m, dtype=float) for m in marks]))


def snap_to_data_times(times: np.ndarray, anchors: np.ndarray, window: float = _SNAP_TIME) -> np.ndarray:
    """Event times with each one within *window* of a data time (*anchors*, sorted) put exactly on
    the nearest; all other times are kept as the solver gave them (no decimal rounding, which can
    push a completion past a deadline it met). The result stays non-decreasing."""
    times = np.asarray(times, dtype=float)
    if not len(anchors):
        return times.copy()
    i = np.clip(np.searchsorted(anchors, times), 1, len(anchors)) - 1
    below, above = anchors[i], anchors[np.minimum(i + 1, len(anchors) - 1)]
    nearest = np.where(np.abs(times - below) <= np.abs(above - times), below, above)
    snapped = np.where(np.abs(times - nearest) <= window, nearest, times)
    return np.maximum.accumulate(snapped)


def _below(bound: float) -> float:
    """A cost below this refutes *bound* as a lower bound (beyond the optimality tolerance)."""
    return bound - COST_MATCH * abs(bound)


MALLEABLE_STARTS = ("fifo", "fair", "fair-hfs", "fair-paper", "flex", "flex-rap", "flowflex", "flowflex-knapsack",
                    "flowflex-minimax", "flowflex-universal")
"""The fast malleable algorithms ``mip`` runs first: the cheapest schedule its model admits starts
the MIP (and caps its times), the largest lower bound (FlowFlex's flow LP, the knapsack or the
critical-path bound) becomes an objective row. ``exhaustive`` is left out: it is not fast."""


def _model_admits(instance: MalleableInstance, schedule: Schedule, minima: bool) -> bool:
    """Whether the malleable MIP's model (with or without *minima*) contains *schedule*: always
    without binding minima; with them only a schedule that promises ``respects_minima`` and starts
    every job with a minimum as soon as it is ready (its flow released, its predecessors done),
    as the model runs every ready job on at least its minimum."""
    if not (minima and np.any(instance.min_procs > 0)):
        return True
    if "respects_minima" not in schedule.promises:
        return False
    n = instance.n_jobs
    first, last = np.full(n, np.inf), np.zeros(n)
    np.minimum.at(first, schedule.job, schedule.start)
    np.maximum.at(last, schedule.job, schedule.end)
    ready = instance.job_release.astype(float).copy()
    if len(instance.edges):
        np.maximum.at(ready, instance.edges[:, 1], last[instance.edges[:, 0]])
    late = first - ready > 1e-9 * np.maximum(1.0, ready)
    return not np.any(late & (instance.min_procs > 0))


def mip(instance: MalleableInstance, *, solver: str = "highs", seed: int | None = None, minima: bool = True,
        time_limit: float | None = None, mip_gap: float | None = None, max_jobs: int = 12,
        max_rounds: int = 50, warm_start: bool = True, bound_row: bool = True) -> Result:
    """The exact malleable optimum by :func:`~schedrelax.models.malleable_mip.build_malleable_mip`,
    read back as whole-processor pieces (:func:`~schedrelax.schedulers.malleable_packing.
    whole_processor_pieces`).

    ``minima``: every ready job runs on at least its minimum (the schedule then promises
    ``respects_minima``); the instance's minima must then fit the processors. Power costs are
    refined by tangent cuts for up to ``max_rounds`` solves.

    **Start and bounds.** The algorithms of :data:`MALLEABLE_STARTS` run first (through
    :func:`~schedrelax.algorithms.run`, so their schedules are verified). With ``warm_start``, the
    cheapest schedule the model contains (:func:`_model_admits`) is mapped into the MIP's binaries
    (:func:`~schedrelax.models.malleable_mip.malleable_mip_start`) and its cost caps every flow's
    completion time and the horizon (:func:`~schedrelax.models.malleable_mip.completion_caps`).
    With ``bound_row``, their largest lower bound (a relaxation: it holds with or without minima)
    is the row objective >= bound. The reported lower bound is the larger of the solver's proven
    bound and that relaxation's (``bound_kind`` says which). Every admitted schedule also checks
    the solver: a bound above one's verified cost is refuted (HiGHS's presolve once proved a wrong
    optimum: the model is solved again without presolve, and a bound still refuted is dropped).

    A time limit may leave a feasible, unproven schedule (``info["status"]``, ``gap``); a solver
    that stops with no solution of its own returns the start (status "feasible", the solver's in
    ``info["solver_status"]``, with the bound and gap). Event times are the solver's, put exactly
    on a release or cost breakpoint only within its round-off (:func:`snap_to_data_times`) and
    never before a release the solution has passed. The solver's values meet the constraints only
    to its tolerances (a rate a little above its maximum, a total a little off a size, a tiny
    interval), so the read-back makes them exact:
    :func:`~schedrelax.schedulers.malleable_packing.fit_interval_rates` puts every interval's
    rates inside the bounds and gives a job's missing work room under its maximum and P or, if
    there is none, a short added segment after its last ready interval (``info["added_time"]``,
    later times move back by it); :func:`~schedrelax.schedulers.malleable_packing.cut_at_work`
    stops a job once its work is done. The rebuilt schedule is evaluated, the start returned
    instead when it costs less (``info["returned_instead"]``), and the result called optimal only
    when its own cost meets the proven bound (:func:`~schedrelax.rounding.exact.exact_outcome`;
    ``info["schedule_cost"]`` beside ``info["mip_objective"]``). A solution that cannot be read
    back (minima of jobs ready together above P, a job ready nowhere) is a NoOptimalSolutionError,
    as is a solver ending without a solution when there is no start.
    Refuses more than ``max_jobs`` jobs.

    **Units and origin.** The model is solved in a frame of its own (:class:`_ModelFrame`,
    ``info["units"]``): time starts at the earliest release (a minisum instance whose costs can be
    re-based, :meth:`~schedrelax.instances.MalleableInstance.shifted`; a minimax instance or a
    power cost keeps time 0), and times and costs are rescaled by powers of 2 (exact:
    :meth:`~schedrelax.instances.MalleableInstance.rescaled`) so that the shortest job on its
    maximum takes about 1 and the costs are about 1. The start heuristics, the read-back, the
    evaluation and every check run on the instance as given; the solver's values are mapped out
    of the frame. The solver's tolerances are absolute: written in units of 1e-9 s, its "optimal"
    schedules were 1 % off their bound ("feasible" after the check), and with releases at 10^6
    its big-M rows spanned the offset, where a feasibility tolerance of 1e-8 let its dual bound
    pass its own schedule's cost by 1.5e-6 relative (the unit-invariance fuzz).
    """
    if instance.n_jobs > max_jobs:
        raise AlgorithmError(f"mip: {instance.n_jobs} jobs is more than max_jobs={max_jobs}; the MIP is for small "
                             f"cases (raise max_jobs to try anyway)")
    budget = Budget(time_limit)  # the whole call: the starts, the build and every round's solve
    t0 = budget.t0
    candidates = run_candidates(instance, MALLEABLE_STARTS, solver=solver, seed=0 if seed is None else seed)
    start = cheapest([r for r in candidates if _model_admits(instance, r.schedule, minima)])
    relaxation = strongest_bound(candidates)
    t1 = time.perf_counter()
    frame = _ModelFrame.of(instance)
    unit = frame.instance
    ub = frame.cost_in(start.objective, up=True) if warm_start and start is not None else None
    lb = below(frame.cost_in(relaxation.lower_bound, up=False)) if bound_row and relaxation is not None else None

    def build():
        model = build_malleable_mip(unit, minima=minima, upper_bound=ub, lower_bound=lb)
        moved = frame.schedule_in(start.schedule) if ub is not None else None
        return model, moved is not None and malleable_mip_start(model, unit, moved)

    model, warm = build()
    build_seconds = time.perf_counter() - t1
    solve_seconds, rounds = 0.0, 0
    options = exact_solver_options(solver)
    sol = None
    while True:
        rounds += 1
        # Only the first round starts from the heuristic: later rounds add tangents its values may miss.
        res = frame.result_out(solve(model, solver=solver, time_limit=budget.for_solve(), mip_gap=mip_gap,
                                     warm_start=warm and rounds == 1, **options))
        if (res.best_bound is not None and start is not None and "presolve" not in options
                and solver.partition(":")[0] == "highs" and start.objective < _below(res.best_bound)):
            # A verified schedule the model contains costs less than the bound HiGHS proved: its
            # presolve was wrong (measured: P = 2, three jobs, a tardy flow; "optimal" 4.625
            # against FIFO's 3.5, the true optimum). The same model again without presolve.
            options = {**options, "presolve": "off"}
            model, warm = build()
            rounds = 1
            res = frame.result_out(solve(model, solver=solver, time_limit=budget.for_solve(), mip_gap=mip_gap,
                                         warm_start=warm, **options))
        solve_seconds += res.solve_seconds + res.build_seconds
        if not res.status.has_solution:
            if start is not None:
                break
            hint = " (with minima=True the minima of jobs ready together must fit the processors)" if minima else ""
            raise NoOptimalSolutionError(f"malleable MIP: solver {res.solver!r} ended with status "
                                         f"{res.status.value!r}{hint}: {res.message}")
        sol = malleable_mip_solution(model, unit.size)
        if rounds >= max_rounds or budget.spent() or not add_power_tangents(model, unit, sol.flow_completion):
            break
    schedule, added = (None, 0.0) if sol is None else _read_back(instance, frame.solution_out(sol), minima,
                                                                 res.solver, frame)
    returned = keep_cheaper(instance, schedule, start)
    kept = None if returned is schedule else start.algorithm
    if kept is not None and minima and "respects_minima" not in returned.promises:
        # The model admitted the start because no minimum binds (all are 0): it respects them,
        # as the MIP's own schedules promise; run() then verifies the promise like theirs.
        returned = replace(returned, promises=returned.promises | {"respects_minima"})
    cost = evaluate(instance, returned).objective
    refuted = None
    if res.best_bound is not None and start is not None and start.objective < _below(res.best_bound):
        # Still refuted: the solver's proof does not survive; the relaxation's bound still holds.
        refuted = (f"the solver's bound {res.best_bound!r} is above {start.algorithm}'s verified cost "
                   f"{start.objective!r}: not a lower bound, so dropped")
        res = replace(res, best_bound=None)
    bound, kind = larger_bound(res, relaxation)
    outcome = exact_outcome(cost, frame.cost_out(sol.objective) if sol is not None else float("inf"), bound, res)
    info = {**outcome, "events": len(model.K), "refuted": refuted, "presolve_off": "presolve" in options,
            "returned_instead": kept, "added_time": added, "start": None if start is None else start.algorithm,
            "start_objective": None if start is None else start.objective, "warm_start": warm,
            "relaxation_bound": None if relaxation is None else relaxation.lower_bound,
            "horizon": frame.time_out(float(model.horizon.value)), "units": frame.describe(),
            "variables": model.nvariables(), "constraints": model.nconstraints(), "rounds": rounds}
    return Result(algorithm="mip", schedule=returned, lower_bound=bound, bound_kind=kind,
                  guarantee=1.0 if outcome["optimal"] else None,
                  timings={"start": t1 - t0, "build": build_seconds, "solve": solve_seconds},
                  params={"minima": minima, "time_limit": time_limit, "mip_gap": mip_gap, "warm_start": warm_start,
                          "bound_row": bound_row},
                  info=info)


@dataclass(frozen=True)
class _ModelFrame:
    """The frame the malleable MIP is solved in: a time t of the instance is ``(t - origin) *
    time_factor`` there, a cost v is ``(v - cost_offset) * cost_factor`` (see :func:`mip`).
    ``instance`` is the instance in that frame."""

    instance: MalleableInstance
    origin: float
    time_factor: float
    cost_offset: float
    cost_factor: float

    @classmethod
    def of(cls, instance: MalleableInstance) -> _ModelFrame:
        """The frame of *instance*: origin at its earliest release where its costs can be re-based,
        then powers of 2 that bring its time scale (its shortest job on its maximum) and its costs
        (each flow's at its least completion and at the horizon, the largest) to about 1."""
        from schedrelax.models.malleable_mip import _flow_lower_bounds, mip_horizon

        o, k, moved = float(np.min(instance.flow_release)), 0.0, instance
        try:
            if o > 0:
                moved, k = instance.shifted(o)
        except ValueError:  # minimax, or a power cost: the origin stays at 0
            o, k, moved = 0.0, 0.0, instance
        f = unit_factor(time_scale(moved))
        timed = moved.rescaled(f) if f != 1.0 else moved
        lower, H = _flow_lower_bounds(timed), mip_horizon(timed)
        values = np.abs([float(fl.cost(t)) for fl, lo in zip(timed.flows, lower) for t in (lo, H)])
        values = values[np.isfinite(values) & (values > 0)]
        c = unit_factor(float(values.max())) if len(values) else 1.0
        unit = moved.rescaled(f, c) if (f, c) != (1.0, 1.0) else moved
        return cls(unit, o, f, k, c)

    def describe(self) -> dict:
        return {"time_factor": self.time_factor, "cost_factor": self.cost_factor, "origin": self.origin,
                "cost_offset": self.cost_offset}

    def time_out(self, t):
        return t / self.time_factor + self.origin

    def cost_out(self, v: float) -> float:
        return v / self.cost_factor + self.cost_offset

    def cost_in(self, v: float | None, *, up: bool) -> float | None:
        """*v* in the frame, moved by the subtraction's round-off (4 ulps of |v|) up or down, so
        that a cap (``up``) or a bound row stays on the safe side of the exact value."""
        if v is None or not math.isfinite(v):
            return None
        room = 4.0 * math.ulp(v) if self.cost_offset else 0.0
        return ((v + room if up else v - room) - self.cost_offset) * self.cost_factor

    def schedule_in(self, schedule: Schedule) -> Schedule | None:
        """*schedule* in the frame (for a warm start: only its order is used), None when two of a
        piece's times meet in the subtraction of the origin."""
        start, end = (schedule.start - self.origin) * self.time_factor, (schedule.end - self.origin) * self.time_factor
        if np.any(end <= start):
            return None
        return Schedule(schedule.job, schedule.task, schedule.machine, start, end, schedule.rate,
                        promises=schedule.promises, meta=schedule.meta)

    def result_out(self, res):
        """A solve's objective and bound mapped out of the frame."""
        return replace(res, objective=None if res.objective is None else self.cost_out(res.objective),
                       best_bound=None if res.best_bound is None else self.cost_out(res.best_bound))

    def solution_out(self, sol):
        """A read model solution with its times and work in the instance's own frame (the
        read-back then makes it exact for the instance as given)."""
        return replace(sol, times=self.time_out(sol.times), work=sol.work / self.time_factor,
                       not_before=self.time_out(sol.not_before),
                       flow_completion=self.time_out(sol.flow_completion), objective=self.cost_out(sol.objective))

    def snap_window(self, anchors: np.ndarray) -> float:
        """:data:`_SNAP_TIME` in the instance's time unit, and at least the round-off that mapping
        a time out of the frame leaves near the data times *anchors* (4 ulps of the latest)."""
        latest = float(np.max(np.abs(anchors), initial=0.0))
        return max(_SNAP_TIME / self.time_factor, 4.0 * math.ulp(latest) if self.origin else 0.0)


def _read_back(instance: MalleableInstance, sol, minima: bool, solver: str,
               frame: _ModelFrame) -> tuple[Schedule, float]:
    """The schedule of a solved malleable MIP (see :func:`mip`), its solution *sol* mapped out of
    *frame*, and the time its read-back added."""
    anchors = _data_times(instance)
    window = frame.snap_window(anchors)
    times = snap_to_data_times(sol.times, anchors, window)
    # A release mapped out of the frame is the instance's own within round-off: put it back on it.
    not_before = snap_to_data_times(sol.not_before, np.unique(instance.flow_release), window)
    times[:-1] = np.maximum(times[:-1], not_before)
    times = np.maximum.accumulate(times)
    try:
        bounds, rates, lower = fit_interval_rates(times, sol.work, sol.ready, instance.size, instance.processors,
                                                  instance.max_procs, instance.min_procs if minima else None)
    except ValueError as exc:
        raise NoOptimalSolutionError(f"malleable MIP: solver {solver!r}'s solution cannot be read back as a "
                                     f"schedule: {exc}") from exc
    job, start, end, rate = whole_processor_pieces(bounds, rates * np.diff(bounds)[:, None], instance.processors,
                                                   instance.max_procs, lower)
    job, start, end, rate = cut_at_work(job, start, end, rate, instance.size)
    schedule = Schedule(job, np.zeros(len(job), dtype=np.int64), np.full(len(job), POOLED), start, end, rate,
                        promises=frozenset({"respects_minima"} if minima else ()), meta={"algorithm": "mip"})
    return schedule, float(bounds[-1] - times[-1])
