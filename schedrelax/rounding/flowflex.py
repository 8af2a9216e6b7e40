"""FlowFlex (paper 000, Nagarajan et al. 2019): every pipeline, from flows to a
verified schedule.

All four share the three stages of §2.1: the flows become chains of pseudo-jobs (§2.2,
:mod:`~schedrelax.schedulers.chains`); deadlines are chosen and Algorithm 1 schedules the chains
against them (§2.3.1, :mod:`~schedrelax.schedulers.greedy_deadline`); McNaughton's rule gives the
pseudo-jobs' processors back to the jobs (§2.4, :mod:`~schedrelax.schedulers.mcnaughton`). They
differ in the deadlines:

================== ============================================================ ==================
name               deadlines                                                    guarantee
================== ============================================================ ==================
flowflex           α-points of the min-cost-flow relaxation (§2.3.2, Thms 7-8)   (1/(1−α), (1+1/α)(1+ε))
flowflex-minimax   D_j = w_j⁻¹(M), M by bracket and bisection (§2.3.3, Thm 9)     (1, 2(1+ε))
flowflex-knapsack  a_i = ℓρ^i by min-loss knapsacks (§3, Algorithm 2, Thm 10)    (1, 6) exact; ρ = 1+1/√2: 5.83
flowflex-universal a_i by the shortest-first prefix (§3.1, Algorithm 3, Thm 11)   (1, 6), any uniform cost
================== ============================================================ ==================

A guarantee (α, β) is bicriteria: at β times the processor speed the schedule costs at most α
times the optimum (at unit speed). Every algorithm returns the *unit-speed* schedule (the one
`verify` checks); its ``info`` holds the speed β (``"speed"``), the unit-speed cost
(``"cost_unit_speed"``) and the lower bounds it proved. ``Result.guarantee`` is a unit-speed
factor, given where the costs allow one (Corollaries 1 and 3: a speed-β schedule run at unit
speed is β times slower, which costs β^p times more for costs w·t^p — completion time, stretch,
power costs — and nothing can be said for step costs).

Release times, which the paper does not have, delay a chain's start. The unit-speed bounds
(C_j <= β·d_j, and ``Result.guarantee``) still hold; the speed-β statements assume no releases
(a release does not shrink with speed), and ``info["speed_guarantee"]`` says whether they apply.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from schedrelax.result import Result
from schedrelax.instances import MalleableInstance
from schedrelax.instances.costs import CompletionCost, PowerCost, StretchCost, aggregate
from schedrelax.models.flowflex_lp import (
    FlowSolution,
    flow_network,
    flowflex_lp_solution,
    flowflex_program,
    geometric_grid,
    solve_network_simplex,
)
from schedrelax.rounding.alpha_points import alpha_point_fraction, alpha_point_index
from schedrelax.schedulers.chains import Chains, completion_lower_bounds, flow_chains
from schedrelax.schedulers.greedy_deadline import (
    PseudoJobSchedule,
    greedy_deadline,
    with_relative_slack,
)
from schedrelax.schedulers.mcnaughton import mcnaughton
from schedrelax.schedules import tie_classes, time_scale
from schedrelax.solvers import solve_program
from schedrelax.solvers.registry import highs_method

__all__ = [
    "ARC_BUDGET",
    "INTERVAL_BUDGET",
    "IMPROVED_RHO",
    "KnapsackDeadlines",
    "MinimaxSearch",
    "critical_path_bound",
    "default_epsilon",
    "flow_costs",
    "flowflex_deadlines",
    "knapsack_deadlines",
    "min_loss_knapsack",
    "minimax_search",
    "solve_flow_lp",
]

ARC_BUDGET = 160_000
"""Most E_2 arcs the default ε may give the geometric network."""

INTERVAL_BUDGET = 300
"""Most time intervals the default ε may give it. HiGHS's interior-point time grows with both:
measured on 2 cores, 10.7k arcs x 94 intervals (200 chains, ε = 0.1) 0.15 s; 34k x 303 (200,
0.03) 0.5 s; 102k x 900 (200, 0.01) 2.3 s; 203k x 1,795 (200, 0.005 = 1/m) 7.6 s; 157k x 130
(2,000 chains, 0.1) 2.6-5 s; the paper's ε = 1/m gives 30M arcs at m = 2,000."""

_MET = 1e-9
"""Slack, relative to the deadline (never an absolute floor: deadlines of 1e-9 are real), with
which a completion still meets it (round-off)."""

IMPROVED_RHO = 1.0 + 1.0 / math.sqrt(2.0)
"""ρ of §3's improved variant: speed (2ρ² − ρ)/(ρ − 1) = 3 + 2√2 ≈ 5.83."""

LP_METHODS = ("lp", "network-simplex")
KNAPSACK_METHODS = ("auto", "exact", "fptas")
_EXACT_ITEMS = 64
"""``knapsack="auto"`` uses the exact Pareto DP up to this many items, the FPTAS beyond."""


# ------------------------------------------------------------------------------------ shared

def flow_costs(instance: MalleableInstance, completion: np.ndarray) -> np.ndarray:
    """w_j(C_j) for every flow."""
    return np.array([fl.cost(c) for fl, c in zip(instance.flows, completion)], dtype=float)


CRITICAL_PATH_KIND = "critical-path bound (paper 000 §4.1: each flow at its L_j)"


def critical_path_bound(instance: MalleableInstance, lower: np.ndarray) -> float:
    """The cost of every flow completing at its lower bound L_j (critical path, squashed area and
    release; §4.1: "the sum [max] of the critical path objective function values"), summed or
    maximised as the instance's objective says. No schedule costs less."""
    return aggregate(flow_costs(instance, lower), instance.objective)


def _cost_degree(instance: MalleableInstance) -> float | None:
    """p such that every w_j(λt) = λ^p·w_j(t) (completion, stretch: 1; power: its p), else None."""
    degree = 0.0
    for fl in instance.flows:
        if isinstance(fl.cost, (CompletionCost, StretchCost)):
            degree = max(degree, 1.0)
        elif isinstance(fl.cost, PowerCost):
            degree = max(degree, fl.cost.p)
        else:
            return None
    return degree


def _unit_speed_guarantee(instance: MalleableInstance, speed: float, factor: float, objective: str) -> float | None:
    """factor × speed^p when the instance's objective is *objective* and its costs homogeneous."""
    p = _cost_degree(instance)
    if instance.objective != objective or p is None:
        return None
    return factor * speed ** p


def _finish(name: str, instance: MalleableInstance, chains: Chains, plan: PseudoJobSchedule, *,
            processor_ids: bool, lower_bound: float | None, bound_kind: str | None, guarantee: float | None,
            timings: dict, params: dict, info: dict) -> Result:
    """McNaughton's conversion of the unit-speed plan and the Result every pipeline returns."""
    t0 = time.perf_counter()
    schedule = mcnaughton(chains, plan, processor_ids=processor_ids, meta={"algorithm": name})
    timings = {**timings, "mcnaughton": time.perf_counter() - t0}
    info = {**info, "cost_unit_speed": aggregate(flow_costs(instance, plan.completion), instance.objective),
            "speed_guarantee": bool(np.all(instance.flow_release == 0)),
            "chains": chains.n_chains, "pseudo_jobs": chains.n_pseudo_jobs}
    return Result(algorithm=name, schedule=schedule, lower_bound=lower_bound, bound_kind=bound_kind,
                  guarantee=guarantee, timings=timings, params=params, info=info)


def _check_choice(value: str, name: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")


# ------------------------------------------------------------- the min-cost flow and α-points

def default_epsilon(chains: Chains, *, arcs: int = ARC_BUDGET, intervals: int = INTERVAL_BUDGET) -> float:
    """ε for the geometric network: the paper's 1/m, raised just enough (never above 1) that the
    network has at most *arcs* E_2 arcs (counted before dominated ones are dropped) and at most
    *intervals* time intervals (see :data:`ARC_BUDGET`, :data:`INTERVAL_BUDGET`)."""
    lower = completion_lower_bounds(chains)
    horizon = max(float(lower.max()), float(chains.volume.sum()) / chains.processors)
    start = float(lower.min())

    def fits(eps: float) -> bool:
        grid = geometric_grid(start, horizon, eps)
        n_arcs = int((len(grid) - 1 - np.searchsorted(grid[1:], lower, side="left")).sum())
        return n_arcs <= arcs and len(grid) - 1 <= intervals

    lo = 1.0 / chains.n_chains
    if lo >= 1.0 or fits(lo):
        return min(lo, 1.0)
    hi = 1.0
    if not fits(hi):
        return hi
    for _ in range(40):  # bisection on log ε: arcs and intervals are non-increasing in ε
        mid = math.sqrt(lo * hi)
        if fits(mid):
            hi = mid
        else:
            lo = mid
    return hi


def solve_flow_lp(instance: MalleableInstance, chains: Chains, *, intervals: str = "geometric",
                  epsilon: float | None = None, unit: float = 1.0, method: str = "lp", solver: str = "highs",
                  time_limit: float | None = None) -> tuple[FlowSolution, dict[str, float]]:
    """The optimal flow of paper 000 §2.3.2's network and the seconds each step took.

    ``method="lp"`` builds the LP (:func:`flowflex_program`) and solves it with *solver* (HiGHS by its interior
    point method: at ε = 0.1 it measured 0.15 s against the dual simplex's 0.32 s on 200 chains,
    and 2.6-5 s against 64 s on 2,000); ``"network-simplex"`` solves the network with networkx
    instead (0.19 s and 3.8 s).
    """
    _check_choice(method, "method", LP_METHODS)
    if intervals == "geometric" and epsilon is None:
        epsilon = default_epsilon(chains)
    t0 = time.perf_counter()
    net = flow_network(instance, intervals=intervals, epsilon=epsilon, unit=unit, chains=chains)
    timings = {"network": time.perf_counter() - t0}
    if method == "network-simplex":
        t0 = time.perf_counter()
        solution = solve_network_simplex(net)
        timings["solve"] = time.perf_counter() - t0
        return solution, timings
    t0 = time.perf_counter()
    program = flowflex_program(instance, network=net, normalized=True)
    timings["build"] = time.perf_counter() - t0
    # The LP's arrays go to HiGHS as they are; another solver gets the Pyomo model of
    # build_flowflex_lp (the same rows: tests/test_matrix.py).
    solved = solve_program(program, highs_method(solver, "ipm"), time_limit=time_limit)
    result = solved.result.require_optimal()
    timings["compile"] = result.build_seconds
    timings["solve"] = result.solve_seconds
    return flowflex_lp_solution(solved), timings


def flowflex_deadlines(solution: FlowSolution, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Paper 000 §2.3.2, Theorem 8: deadlines d_j at the α-points of the optimal flow, and the
    interpolated α-points that order chains sharing a deadline.

    The α-point interval [g_ℓ, g_{ℓ+1}] of chain j gives d_j = g_{ℓ+1} on the unit grid (the
    paper's d_j = t, which arc (a_j, b_t) charged) and d_j = max(g_ℓ, L_j) on the geometric grid
    (what its arc charged): then w_j(d_j) <= 1/(1−α) × the cost of j's flow, the chains ordered
    before j carry at most (1+ε)·P·d_j/α of work, and L_j <= d_j.
    """
    net = solution.network
    idx = alpha_point_index(net.arc_chain, solution.flow, net.volume, alpha)
    frac = alpha_point_fraction(net.arc_chain, solution.flow, net.volume, alpha, idx)
    ell = net.arc_interval[idx]
    lo, hi = net.grid[ell], net.grid[ell + 1]
    deadline = hi if net.charge == "end" else np.maximum(lo, net.lower)
    return deadline, lo + frac * (hi - lo)


def flowflex(instance: MalleableInstance, *, solver: str = "highs", seed: int | None = None, alpha: float = 0.5,
             intervals: str = "geometric", epsilon: float | None = None, unit: float = 1.0, method: str = "lp",
             processor_ids: bool = False, time_limit: float | None = None) -> Result:
    """Paper 000's minisum algorithm (Theorems 7 and 8): the min-cost-flow relaxation (§2.3.2), its
    α-point deadlines, Algorithm 1, McNaughton.

    ``alpha`` in (0, 1): 1/2 is Theorem 7, √2 − 1 gives Corollary 1's 3 + 2√2 ≈ 5.83 for weighted
    completion time. ``intervals``: ``"geometric"`` (ε = ``epsilon``, default
    :func:`default_epsilon`) or ``"unit"`` (length ``unit``; a relaxation only for step costs with
    breakpoints on the grid, the paper's A1). ``method``: ``"lp"`` (Pyomo model, *solver*) or
    ``"network-simplex"`` (networkx). Bicriteria guarantee, ``info``: at speed
    ``(1 + 1/α)(1 + ε)`` (``1 + 1/α`` on the unit grid) the schedule costs at most
    ``lp_value / (1 − α)``. The lower bound is the flow LP's optimum (minisum, when it is a
    relaxation) or the critical-path cost bound, whichever is larger.
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    chains = flow_chains(instance)
    lower = completion_lower_bounds(chains)
    timings["chains"] = time.perf_counter() - t0
    solution, lp_timings = solve_flow_lp(instance, chains, intervals=intervals, epsilon=epsilon, unit=unit,
                                         method=method, solver=solver, time_limit=time_limit)
    timings.update(lp_timings)
    net = solution.network
    t0 = time.perf_counter()
    deadline, order = flowflex_deadlines(solution, alpha)
    plan = greedy_deadline(chains, deadline, tiebreak=order)
    timings["schedule"] = time.perf_counter() - t0

    speed = (1.0 + 1.0 / alpha) * (1.0 + (net.epsilon or 0.0))
    cp_bound = critical_path_bound(instance, lower)
    lp_bound = net.lower_bound and instance.objective == "minisum"
    lower_bound = max(cp_bound, solution.objective) if lp_bound else cp_bound
    bound_kind = (f"flow LP optimum (paper 000 §2, ε = {net.epsilon:.3g})" if lp_bound and solution.objective >= cp_bound
                  else CRITICAL_PATH_KIND)
    guarantee = _unit_speed_guarantee(instance, speed, 1.0 / (1.0 - alpha), "minisum") if net.lower_bound else None
    info = {"speed": speed, "cost_bound_at_speed": solution.objective / (1.0 - alpha),
            "lp_value": solution.objective, "lp_is_lower_bound": bool(net.lower_bound),
            "critical_path_bound": cp_bound, "epsilon": net.epsilon, "intervals": net.intervals,
            "arcs": net.n_arcs, "time_intervals": net.n_intervals,
            # Algorithm 1 at unit speed finishes chain j by (1 + (1+ε)/α)·d_j <= speed·d_j.
            "max_completion_over_deadline": float(np.max(plan.completion / deadline))}
    params = {"alpha": alpha, "intervals": intervals, "epsilon": net.epsilon, "unit": unit, "method": method,
              "processor_ids": processor_ids, "time_limit": time_limit}
    return _finish("flowflex", instance, chains, plan, processor_ids=processor_ids, lower_bound=lower_bound,
                   bound_kind=bound_kind, guarantee=guarantee, timings=timings, params=params, info=info)


# ---------------------------------------------------------------------------------- minimax

@dataclass(frozen=True, eq=False)
class MinimaxSearch:
    """The outcome of §2.3.3's bracket and bisection on the minimax cost M.

    ``value`` is the smallest M found feasible (Algorithm 1 met ``slack``·D_j(M) for all j) and
    ``plan`` its unit-speed schedule. ``infeasible`` is the largest M known to be below the
    optimum: the critical-path bound, or with ``slack`` = 2 a budget Algorithm 1's test refused
    (Theorem 6 makes that a proof). ``squashed_bound`` is the §4.1 improvement: the largest M
    whose deadlines break a prefix squashed-area bound. ``converged``: the bracket closed (with
    ``slack`` = 2, at speed 2(1+ε) the deadlines D(value) are then met at cost <= OPT).
    """

    value: float
    plan: PseudoJobSchedule
    deadlines: np.ndarray
    slack: float
    infeasible: float
    critical_path_bound: float
    squashed_bound: float
    tests: int
    converged: bool

    @property
    def lower_bound(self) -> float:
        """The best lower bound on the minimax optimum the search proved."""
        return max(self.critical_path_bound, self.infeasible, self.squashed_bound)


def _jump_values(instance: MalleableInstance) -> np.ndarray:
    """Budgets M at which some D_j(M) = w_j⁻¹(M) jumps (the levels of step costs), each with the
    float just below it: testing both pins down on which side of a jump the optimum lies."""
    levels = []
    for fl in instance.flows:
        if fl.cost.is_step:
            levels.append(fl.cost(np.nextafter(fl.cost.breakpoints(), np.inf)))
    if not levels:
        return np.empty(0)
    h = np.unique(np.concatenate(levels))
    return np.unique(np.concatenate([h, np.nextafter(h, -np.inf)]))


def _squashed_feasible(deadlines: np.ndarray, volume: np.ndarray, P: int, lower: np.ndarray) -> bool:
    """Necessary for a schedule to meet *deadlines*: D_j >= L_j and, chains by deadline, the work
    due by each deadline fits on P processors before it (§4.1). A failure proves infeasibility,
    so round-off (``w⁻¹`` may land an ulp early) counts in favour of feasibility."""
    if np.any(deadlines < lower * (1 - _MET)):
        return False
    order = np.argsort(deadlines, kind="stable")
    d = deadlines[order]
    due = np.cumsum(volume[order])
    finite = np.isfinite(d)
    return bool(np.all(due[finite] <= P * d[finite] * (1 + _MET)))


def minimax_search(instance: MalleableInstance, chains: Chains, *, epsilon: float | None = None,
                   slack: float = 2.0, max_tests: int = 200) -> MinimaxSearch:
    """Paper 000 §2.3.3 (Theorem 9): the least M (up to a factor 1+ε in the deadlines) for which
    Algorithm 1 with D_j = argmax{t : w_j(t) <= M} passes its test C(τ^j) <= slack·D_j.

    ``slack=2`` is the paper's test. Bracket: M_lo = max_j w_j(L_j) (no schedule does better);
    if it fails, M_hi = the cost of the schedule Algorithm 1 just built (a schedule meets
    D(M_hi), so by Theorem 6 the test passes). Bisection: first over the jump values of step
    costs (D jumps there), then on log M until D_j(M_hi) <= (1+ε)·D_j(M_lo) for every chain, or
    no float lies between M_lo and M_hi. Since D(OPT) >= D(M_lo), Algorithm 1 at speed 2(1+ε)
    then finishes every chain by D_j(M_hi)/(1+ε) <= D_j(OPT) (no releases): cost <= OPT.

    ``slack=1`` searches the least M whose deadlines Algorithm 1 meets at unit speed, so the
    unit-speed schedule costs at most M; a failed test then proves nothing, and M_hi is doubled
    until the test passes. ε defaults to 1/m (the paper's).
    """
    P = chains.processors
    lower = completion_lower_bounds(chains)
    eps = 1.0 / chains.n_chains if epsilon is None else float(epsilon)
    if not eps > 0:
        raise ValueError(f"epsilon must be > 0, got {epsilon!r}")
    if not 1.0 <= slack <= 2.0:
        raise ValueError(f"slack must lie in [1, 2], got {slack!r}")
    certified = slack == 2.0
    costs = [fl.cost for fl in instance.flows]
    # Chains sharing a deadline go longest critical path first: the ties are open in the paper,
    # and with one deadline for all (makespan) this is the longest-path-first list schedule.
    longest_first = -(chains.release + chains.critical_path)

    def D(M: float) -> np.ndarray:
        return np.array([c.inverse(M) for c in costs], dtype=float)

    tests = 0

    def test(M: float) -> PseudoJobSchedule | None:
        nonlocal tests
        d = D(M)
        if not _squashed_feasible(d, chains.volume, P, lower):
            return None
        tests += 1
        plan = greedy_deadline(chains, d, tiebreak=longest_first)
        if certified:
            return plan if plan.feasible else None
        met = plan.completion <= with_relative_slack(slack * d, _MET)
        return plan if met.all() else None

    cp = float(flow_costs(instance, lower).max())
    plan = test(cp)
    if plan is not None:
        return MinimaxSearch(cp, plan, D(cp), slack, cp, cp, cp, tests, True)
    lo = infeasible = cp
    unit_plan = greedy_deadline(chains, D(cp), tiebreak=longest_first)
    hi = float(flow_costs(instance, unit_plan.completion).max())
    hi_plan = test(hi)
    while hi_plan is None:
        if certified or tests >= max_tests:
            raise RuntimeError(f"minimax: Algorithm 1 failed the deadlines of M = {hi:g}, which a schedule meets")
        lo, hi = hi, 2.0 * hi if hi > 0 else 1.0
        hi_plan = test(hi)

    jumps = _jump_values(instance)
    cand = jumps[(jumps > lo) & (jumps < hi)]
    while len(cand) and tests < max_tests:
        k = len(cand) // 2
        p = test(float(cand[k]))
        if p is None:
            lo = float(cand[k])
            cand = cand[k + 1:]
        else:
            hi, hi_plan = float(cand[k]), p
            cand = cand[:k]

    def closed() -> bool:
        if np.nextafter(lo, np.inf) >= hi:
            return True
        return bool(np.all(D(hi) <= (1 + eps) * D(lo)))

    while not closed() and tests < max_tests:
        mid = math.sqrt(lo * hi) if lo > 0 else 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        p = test(mid)
        if p is None:
            lo = mid
        else:
            hi, hi_plan = mid, p
    if certified:
        infeasible = lo  # OPT > lo once lo has failed the test (or lo = cp <= OPT)
    squashed = _squashed_bound(D, chains.volume, P, lower, cp, hi, jumps)
    return MinimaxSearch(hi, hi_plan, D(hi), slack, infeasible, cp, squashed, tests, closed())


def _squashed_bound(D, volume: np.ndarray, P: int, lower: np.ndarray, lo: float, hi: float,
                    jumps: np.ndarray) -> float:
    """§4.1's improved minimax bound: bisection between the critical-path bound and the solution
    for the largest M whose deadlines D(M) break the prefix squashed-area condition (which is
    monotone in M): every such M is below the optimum."""
    if _squashed_feasible(D(lo), volume, P, lower):
        return lo
    if not _squashed_feasible(D(hi), volume, P, lower):
        return hi
    bad = lo
    cand = jumps[(jumps > lo) & (jumps < hi)]
    while len(cand):
        k = len(cand) // 2
        if _squashed_feasible(D(float(cand[k])), volume, P, lower):
            hi, cand = float(cand[k]), cand[:k]
        else:
            bad = lo = float(cand[k])
            cand = cand[k + 1:]
    for _ in range(60):
        mid = math.sqrt(lo * hi) if lo > 0 else 0.5 * (lo + hi)
        if not lo < mid < hi or hi <= lo * (1 + 1e-9):
            break
        if _squashed_feasible(D(mid), volume, P, lower):
            hi = mid
        else:
            bad = lo = mid
    return bad


def flowflex_minimax(instance: MalleableInstance, *, solver: str | None = None, seed: int | None = None,
                     epsilon: float | None = None, unit_speed_search: bool = True, processor_ids: bool = False,
                     max_tests: int = 200) -> Result:
    """Paper 000's minimax algorithm (Theorem 9): :func:`minimax_search`, then McNaughton.

    The paper's search (test C <= 2·D) proves the bounds; its unit-speed schedule only meets
    2·D(M). With ``unit_speed_search`` a second search (test C <= D, ``slack=1``) looks for the
    least M whose deadlines Algorithm 1 meets at unit speed, and the cheaper of the two
    schedules is returned — the guarantees below hold for the paper's, hence for the cheaper.

    Bicriteria guarantee (``info``): at speed 2(1+ε) the paper's deadlines are met at cost at most
    the optimum; unit speed (Corollary 3): at most (2(1+ε))^p times the optimum for costs w·t^p.
    The lower bound is the best of the critical-path bound, the largest M Algorithm 1 proved
    infeasible and §4.1's squashed-area bisection (for a minimax instance; for a minisum one, the
    critical-path bound).
    """
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    chains = flow_chains(instance)
    lower = completion_lower_bounds(chains)
    timings["chains"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    search = minimax_search(instance, chains, epsilon=epsilon, max_tests=max_tests)
    plan, chosen = search.plan, "slack 2"
    info: dict = {}
    if unit_speed_search:
        unit = minimax_search(instance, chains, epsilon=epsilon, slack=1.0, max_tests=max_tests)
        cost = aggregate(flow_costs(instance, search.plan.completion), instance.objective)
        if aggregate(flow_costs(instance, unit.plan.completion), instance.objective) < cost:
            plan, chosen = unit.plan, "slack 1"
        info.update(M_unit_speed=unit.value, tests_unit_speed=unit.tests)
    timings["search"] = time.perf_counter() - t0
    eps = 1.0 / chains.n_chains if epsilon is None else float(epsilon)
    speed = 2.0 * (1.0 + eps)
    minimax = instance.objective == "minimax"
    lower_bound = search.lower_bound if minimax else critical_path_bound(instance, lower)
    bound_kind = "minimax search bound (critical path, squashed area, infeasible budgets)" if minimax \
        else CRITICAL_PATH_KIND
    guarantee = _unit_speed_guarantee(instance, speed, 1.0, "minimax") if search.converged else None
    info.update(speed=speed, M=search.value, infeasible_M=search.infeasible,
                critical_path_bound=search.critical_path_bound, squashed_bound=search.squashed_bound,
                tests=search.tests, converged=search.converged, epsilon=eps, schedule_from=chosen)
    params = {"epsilon": eps, "unit_speed_search": unit_speed_search, "processor_ids": processor_ids,
              "max_tests": max_tests}
    return _finish("flowflex-minimax", instance, chains, plan, processor_ids=processor_ids,
                   lower_bound=lower_bound, bound_kind=bound_kind, guarantee=guarantee, timings=timings,
                   params=params, info=info)


# --------------------------------------------------------------------------------- knapsack

def min_loss_knapsack(sizes: np.ndarray, profits: np.ndarray, budget: float, *, method: str = "auto",
                      epsilon: float = 0.1) -> np.ndarray:
    """Min-loss knapsack (paper 000 §3): the items to *select*, total size <= budget, leaving the
    least profit unselected. Returns a boolean mask.

    Items of profit <= 0 are never selected (leaving them costs nothing). ``"exact"``: the Pareto
    frontier of (size, profit) (Nemhauser-Ullmann), exact for real data, exponential in the worst
    case; among optimal selections the one of least size. ``"fptas"``: §3's reduction to minimum
    knapsack (cover the size Σ v − budget with unselected items of least profit) solved within a
    factor 1 + ε by profit scaling (Ibarra-Kim style, ref. [21]). ``"auto"``: exact up to 64 items.
    """
    _check_choice(method, "method", KNAPSACK_METHODS)
    sizes = np.asarray(sizes, dtype=float)
    profits = np.asarray(profits, dtype=float)
    chosen = np.zeros(len(sizes), dtype=bool)
    pos = np.flatnonzero(profits > 0)
    if sizes[pos].sum() <= budget:
        chosen[pos] = True
        return chosen
    if method == "exact" or (method == "auto" and len(pos) <= _EXACT_ITEMS):
        chosen[pos] = _pareto_knapsack(sizes[pos], profits[pos], budget)
    else:
        if not 0 < epsilon < 1:
            raise ValueError(f"epsilon must lie in (0, 1), got {epsilon!r}")
        cover = _min_knapsack_fptas(sizes[pos], profits[pos], float(sizes[pos].sum()) - budget, epsilon)
        chosen[pos] = ~cover
    return chosen


def _pareto_knapsack(v: np.ndarray, p: np.ndarray, budget: float) -> np.ndarray:
    """0/1 knapsack, exactly: the frontier of non-dominated (size, profit) states, item by item."""
    size, profit = np.zeros(1), np.zeros(1)
    history = []
    limit = budget * (1 + 1e-12)
    for k in range(len(v)):
        s2, p2 = size + v[k], profit + p[k]
        fits = np.flatnonzero(s2 <= limit)
        all_s = np.concatenate([size, s2[fits]])
        all_p = np.concatenate([profit, p2[fits]])
        src = np.concatenate([np.arange(len(size)), fits])
        took = np.concatenate([np.zeros(len(size), dtype=bool), np.ones(len(fits), dtype=bool)])
        order = np.lexsort((-all_p, all_s))
        all_s, all_p, src, took = all_s[order], all_p[order], src[order], took[order]
        best_before = np.maximum.accumulate(np.r_[-np.inf, all_p[:-1]])
        keep = all_p > best_before
        size, profit = all_s[keep], all_p[keep]
        history.append((src[keep], took[keep]))
    chosen = np.zeros(len(v), dtype=bool)
    state = len(size) - 1  # the frontier's last state has the most profit
    for k in range(len(v) - 1, -1, -1):
        src, took = history[k]
        chosen[k] = took[state]
        state = src[state]
    return chosen


def _min_knapsack_fptas(v: np.ndarray, p: np.ndarray, demand: float, epsilon: float) -> np.ndarray:
    """Minimum knapsack: a set of items of total size >= demand and profit within 1 + ε of the
    least (all profits > 0). Guesses G = LP·2^k of the optimum (LP the fractional cover, <= OPT):
    with items of profit > G dropped and profits scaled to ⌊p / K⌋, K = (ε/2)·G/n, a dynamic
    program over scaled profit (most size per scaled profit) finds a cover of profit at most
    OPT + n·K = OPT + (ε/2)·G, which is <= (1 + ε)·OPT when OPT <= G <= 2·OPT; the guesses stop
    when G passes the best cover found, so one of them lies in [OPT, 2·OPT)."""
    n = len(v)
    ratio = np.argsort(p / v, kind="stable")
    filled = np.cumsum(v[ratio])
    k = int(np.searchsorted(filled, demand * (1 - 1e-12)))
    before = filled[k - 1] if k > 0 else 0.0
    lp = float(p[ratio[:k]].sum() + p[ratio[k]] * (demand - before) / v[ratio[k]])
    best_cover, best_cost = np.ones(n, dtype=bool), float(p.sum())
    guess = lp
    e = epsilon / 2
    while True:
        allowed = np.flatnonzero(p <= guess)
        if v[allowed].sum() >= demand * (1 - 1e-12):
            scale = e * guess / n
            q = np.floor(p[allowed] / scale).astype(np.int64)
            top = int(n / e) + n + 1
            most = np.full(top + 1, -np.inf)
            most[0] = 0.0
            took = []
            for item, qk in zip(allowed.tolist(), q.tolist()):
                new = most.copy()
                cand = most[:top + 1 - qk] + v[item]
                better = cand > new[qk:]
                new[qk:][better] = cand[better]
                took.append(np.packbits(np.r_[np.zeros(qk, dtype=bool), better]))
                most = new
            hit = np.flatnonzero(most >= demand * (1 - 1e-12))
            if len(hit):
                cover = np.zeros(n, dtype=bool)
                level = int(hit[0])
                for idx in range(len(allowed) - 1, -1, -1):
                    if np.unpackbits(took[idx], count=top + 1)[level]:
                        cover[allowed[idx]] = True
                        level -= int(q[idx])
                cost = float(p[cover].sum())
                if cost < best_cost:
                    best_cover, best_cost = cover, cost
        if guess >= best_cost:
            break
        guess *= 2
    return best_cover


@dataclass(frozen=True, eq=False)
class KnapsackDeadlines:
    """Algorithm 2 / 3's deadlines: chain j gets d_j = a_{i(j)} = ℓ·ρ^{i(j)}; ``tiebreak`` orders
    chains sharing a deadline; ``lower_bound`` is Claims 2-3's bound (None when not computed)."""

    deadline: np.ndarray
    tiebreak: tuple[np.ndarray, ...]
    iterations: int
    lower_bound: float | None


def _increments(instance: MalleableInstance, a: float, a_prev: float | None, chains_idx: np.ndarray) -> np.ndarray:
    """Δ_ji = w_j(a_i) − w_j(a_{i−1}) (Δ_j0 = w_j(a_0)) for the given chains."""
    out = np.empty(len(chains_idx))
    for k, j in enumerate(chains_idx.tolist()):
        c = instance.flows[j].cost
        out[k] = c(a) - (c(a_prev) if a_prev is not None else 0.0)
    return out


def _settled_that_fit(instance: MalleableInstance, ti: np.ndarray, volume: np.ndarray, picked: np.ndarray,
                      a: float, budget: float) -> np.ndarray:
    """The chains of T_i, not picked, whose cost can no longer rise after a_i (a tardy chain past
    its deadline), added while they fit in the budget the knapsack left, smallest first.

    The knapsack never picks them (their increments are 0 from now on), so without this rule
    they would wait for ever; adding zero-profit items that fit keeps the selection as good a
    min-loss solution and within the budget, so Claims 3 and 4 still hold.
    """
    extra = np.zeros(len(ti), dtype=bool)
    room = budget - float(volume[ti[picked]].sum())
    for k in np.argsort(volume[ti], kind="stable").tolist():
        j = int(ti[k])
        c = instance.flows[j].cost
        if picked[k] or c.inverse(c(a)) != np.inf:
            continue
        if volume[j] <= room * (1 + 1e-12):
            extra[k] = True
            room -= float(volume[j])
    return extra


def knapsack_deadlines(instance: MalleableInstance, chains: Chains, *, rho: float = 2.0, universal: bool = False,
                       knapsack: str = "auto", epsilon: float = 0.1, bound: bool = True) -> KnapsackDeadlines:
    """Paper 000 §3, Algorithm 2 (``universal=False``) or §3.1, Algorithm 3 (``universal=True``).

    With ℓ = min_j L_j and a_i = ℓ·ρ^i, iteration i takes the unscheduled chains whose release +
    critical path is at most a_i and picks S_i, of total size <= P·a_i: by min-loss knapsack on
    the increments Δ_ji (Algorithm 2) or as the longest prefix of them by size (Algorithm 3);
    chains in S_i get deadline a_i. (The paper's step 7 breaks before step 8 schedules the last
    S_i; we schedule it.) Chains sharing a deadline go, in Algorithm 2, by the time their cost
    starts to rise inside (a_{i−1}, a_i] (a tardy chain's own deadline), then by L_j; in
    Algorithm 3 by size — the paper leaves ties open.

    ``bound``: also compute Claims 2-3's lower bound for minisum instances with costs >= 0 at 0:
    OPT >= Σ_i [min-loss of the knapsack over all chains with L_j <= a_i + Σ_{L_j > a_i} Δ_ji]
    (divided by 1 + ε when the knapsack is approximate).
    """
    if not rho > 1:
        raise ValueError(f"rho must be > 1, got {rho!r}")
    P = chains.processors
    lower = completion_lower_bounds(chains)
    reach = chains.release + chains.critical_path
    volume = chains.volume
    m = chains.n_chains
    ell = float(lower.min())
    deadline = np.full(m, np.inf)
    starts = np.zeros(m)
    # Past this time every chain is in T_i, every cost is flat or rising and all work fits the
    # budget: the round whose a_i first passes it takes every chain left.
    marks = [lower.max(), volume.sum() / P] + [fl.cost.breakpoints().max(initial=0.0) for fl in instance.flows]
    settled_by = float(max(marks))
    left = np.ones(m, dtype=bool)
    i = 0
    while left.any():
        a = ell * rho ** i
        a_prev = ell * rho ** (i - 1) if i > 0 else None
        ti = np.flatnonzero(left & (reach <= a * (1 + 1e-12)))
        if len(ti):
            if universal:
                by_size = ti[np.argsort(volume[ti], kind="stable")]
                fits = np.cumsum(volume[by_size]) <= P * a * (1 + 1e-12)
                take = by_size[: int(np.argmin(fits)) if not fits.all() else len(fits)]
            else:
                delta = _increments(instance, a, a_prev, ti)
                picked = min_loss_knapsack(volume[ti], delta, P * a, method=knapsack, epsilon=epsilon)
                picked |= _settled_that_fit(instance, ti, volume, picked, a, P * a)
                take = ti[picked]
            deadline[take] = a
            left[take] = False
            if not universal:
                floor = a_prev if a_prev is not None else 0.0
                for j in take.tolist():
                    c = instance.flows[j].cost
                    starts[j] = min(a, max(floor, float(c.inverse(c(floor)))))
        i += 1
        if a > settled_by * rho:
            raise RuntimeError(f"knapsack deadlines: {int(left.sum())} chains left at a_i = {a:g} (a bug)")
    tiebreak = (volume,) if universal else (starts, lower)
    lb = None
    if bound and not universal and instance.objective == "minisum":
        lb = _knapsack_bound(instance, chains, lower, ell, rho, knapsack, epsilon)
    return KnapsackDeadlines(deadline, tiebreak, i, lb)


def _knapsack_bound(instance: MalleableInstance, chains: Chains, lower: np.ndarray, ell: float, rho: float,
                    knapsack: str, epsilon: float) -> float | None:
    """Claims 2 and 3 of §3 as a lower bound: with N_i the chains an optimal schedule has not
    finished by a_i, OPT >= Σ_i Σ_{j∈N_i} Δ_ji, and the chains it has finished (L_j <= a_i, total
    size <= P·a_i) are a feasible knapsack selection, so Σ_{j∈N_i} Δ_ji is at least the knapsack's
    least loss plus the increments of the chains that cannot finish by a_i."""
    if np.any(flow_costs(instance, np.zeros(chains.n_chains)) < 0):
        return None  # Claim 2 needs w_j >= 0
    P, volume = chains.processors, chains.volume
    everyone = np.arange(chains.n_chains)
    exact = knapsack == "exact" or (knapsack == "auto" and chains.n_chains <= _EXACT_ITEMS)
    total, i = 0.0, 0
    while True:
        a = ell * rho ** i
        a_prev = ell * rho ** (i - 1) if i > 0 else None
        delta = _increments(instance, a, a_prev, everyone)
        can = lower <= a * (1 + 1e-12)
        if can.all() and volume.sum() <= P * a:
            break
        pick = min_loss_knapsack(volume[can], delta[can], P * a, method="exact" if exact else "fptas",
                                 epsilon=epsilon)
        loss = float(np.clip(delta[can][~pick], 0, None).sum())
        total += (loss if exact else loss / (1 + epsilon)) + float(delta[~can].sum())
        i += 1
    return total


def _knapsack_speed(rho: float) -> float:
    """(2ρ² − ρ)/(ρ − 1): Claim 4 and the improved variant (6 at ρ = 2, 3 + 2√2 at 1 + 1/√2)."""
    return (2 * rho * rho - rho) / (rho - 1)


def _knapsack_result(name: str, instance: MalleableInstance, *, universal: bool, rho: float, knapsack: str,
                     epsilon: float, processor_ids: bool) -> Result:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    chains = flow_chains(instance)
    lower = completion_lower_bounds(chains)
    timings["chains"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    kd = knapsack_deadlines(instance, chains, rho=rho, universal=universal, knapsack=knapsack, epsilon=epsilon)
    timings["deadlines"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    # The tie keys are times: equal in one unit, an ulp apart in another, they still tie.
    keys = [tie_classes(key, time_scale(instance)) for key in kd.tiebreak]
    plan = greedy_deadline(chains, kd.deadline, tiebreak=np.lexsort(keys[::-1]).argsort())
    timings["schedule"] = time.perf_counter() - t0
    speed = _knapsack_speed(rho)
    exact = universal or knapsack == "exact" or (knapsack == "auto" and chains.n_chains <= _EXACT_ITEMS)
    factor = 1.0 if exact else 1.0 + epsilon
    cp = critical_path_bound(instance, lower)
    lower_bound = max(cp, kd.lower_bound) if kd.lower_bound is not None else cp
    bound_kind = ("knapsack bound (paper 000 Claims 2-3)" if kd.lower_bound is not None and kd.lower_bound >= cp
                  else CRITICAL_PATH_KIND)
    guarantee = None
    if not universal or len({fl.cost for fl in instance.flows}) == 1:  # Theorem 11 needs one cost for all
        guarantee = _unit_speed_guarantee(instance, speed, factor, "minisum")
    info = {"speed": speed, "knapsack_factor": factor, "iterations": kd.iterations, "critical_path_bound": cp,
            "knapsack_bound": kd.lower_bound, "rho": rho,
            "max_completion_over_deadline": float(np.max(plan.completion / kd.deadline))}
    params = {"rho": rho, "processor_ids": processor_ids}
    if not universal:
        params.update(knapsack=knapsack, epsilon=epsilon)
    return _finish(name, instance, chains, plan, processor_ids=processor_ids, lower_bound=lower_bound,
                   bound_kind=bound_kind, guarantee=guarantee, timings=timings, params=params, info=info)


def flowflex_knapsack(instance: MalleableInstance, *, solver: str | None = None, seed: int | None = None,
                      rho: float = 2.0, knapsack: str = "auto", epsilon: float = 0.1,
                      processor_ids: bool = False) -> Result:
    """Paper 000's simpler minisum algorithm (§3, Algorithm 2; the one its experiments run):
    :func:`knapsack_deadlines`, Algorithm 1, McNaughton.

    ``rho``: 2 (Theorem 10: speed 6) or :data:`IMPROVED_RHO` (speed 3 + 2√2 ≈ 5.83). At that
    speed the schedule costs at most the knapsack's factor (1 exact, 1 + ε FPTAS) times the
    optimum. Lower bound: the critical-path bound or Claims 2-3's knapsack bound, the larger.
    """
    return _knapsack_result("flowflex-knapsack", instance, universal=False, rho=rho, knapsack=knapsack,
                            epsilon=epsilon, processor_ids=processor_ids)


def flowflex_universal(instance: MalleableInstance, *, solver: str | None = None, seed: int | None = None,
                       rho: float = 2.0, processor_ids: bool = False) -> Result:
    """Paper 000's universal schedule (§3.1, Algorithm 3): Algorithm 2 with the shortest-first
    prefix in place of the knapsack, which ignores the costs. For uniform costs (every flow the
    same w) it is a (1, (2ρ²−ρ)/(ρ−1))-bicriteria approximation for every w at once."""
    return _knapsack_result("flowflex-universal", instance, universal=True, rho=rho, knapsack="exact",
                            epsilon=0.1, processor_ids=processor_ids)
