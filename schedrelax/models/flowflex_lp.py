"""The minimum-cost-flow relaxation of FlowFlex (paper 000, Nagarajan et al. 2019,
§2.3.2, Figure 3, Claim 1).

Each flow j, seen as its chain of pseudo-jobs (§2.2), is a volume of work V_j. The network has a
node a_j per chain and a node b_ℓ per time interval T_ℓ = [g_ℓ, g_{ℓ+1}]:

* E_1: source -> a_j, capacity V_j (every unit of demand ρ = Σ V_j passes, so these are
  saturated: we write them as the supply V_j of a_j);
* E_2: a_j -> b_ℓ, uncapacitated, cost per unit (cost of finishing in T_ℓ) / V_j, present when
  T_ℓ ends at or after L_j = r_j + Q_j (Q_j eq. (3): no schedule finishes j earlier);
* E_3: b_ℓ -> sink, capacity P·|T_ℓ| (the first interval also gets [0, g_0]: work done before
  g_0 must fit somewhere too);
* E_4: b_{ℓ+1} -> b_ℓ, uncapacitated, free: work due by T_{ℓ+1} may be done earlier.

Two interval grids, as in the paper:

* ``intervals="unit"``: T_ℓ = [ℓu, (ℓ+1)u] up to the horizon (pseudo-polynomial; u = ``unit``,
  1 by default). Arc cost w_j(end of T_ℓ) / V_j, the paper's. This is a relaxation — Claim 1 —
  only under the paper's assumption A1, that costs do not change inside an interval (step costs
  whose breakpoints are grid points); :attr:`FlowNetwork.lower_bound` says whether that holds.
  A schedule completing j at C ∈ (ℓu, (ℓ+1)u] then pays exactly the arc's cost.
* ``intervals="geometric"`` (polynomial): g_ℓ = g_0 (1+ε)^ℓ from g_0 = min_j L_j (the paper
  rescales time so that min_j Q_j = 1 and starts at 1; ε = 1/m by default). Arc cost
  w_j(max(g_ℓ, L_j)) / V_j: the paper's start-of-interval cost w_j((1+ε)^{ℓ−1}), raised to L_j
  where the interval starts before j can finish. Always a relaxation: a schedule completing j at
  C ∈ [g_ℓ, g_{ℓ+1}] has C >= max(g_ℓ, L_j), and the cut argument of Claim 1 holds because every
  prefix of intervals has capacity P·g_{ℓ+1} (including [0, g_0]).

Horizon: the last grid point is at least H = max(max_j L_j, Σ_j V_j / P), not the paper's
2m·⌈max Q_j⌉: a schedule whose chain j completes after H can be charged to the last interval
(costs are non-decreasing), and the cut argument only needs P·H >= Σ V_j there.

Dominated arcs are dropped (``merge=True``): when a_j -> b_ℓ costs as much as a_j -> b_{ℓ+1},
the latter followed by the free E_4 arc does the same job. Step costs (tardy, SLA) then keep one
arc per cost level; the optimum is unchanged.

The network is a plain :class:`FlowNetwork`; :func:`build_flowflex_lp` writes it as a Pyomo LP
(solved by any back end of :mod:`schedrelax.solvers`), :func:`solve_network_simplex` solves the
same network with networkx' network simplex, a second, independent method.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import networkx as nx
import numpy as np
import pyomo.environ as pyo
import scipy.sparse as sp
from pyomo.common.gc_manager import PauseGC

from schedrelax._matrix import MatrixProgram, ProgramBuilder, to_pyomo
from schedrelax.errors import NoOptimalSolutionError
from schedrelax.instances import MalleableInstance
from schedrelax.schedulers.chains import Chains, completion_lower_bounds, flow_chains

__all__ = [
    "SUPPLY_TOL",
    "FlowNetwork",
    "FlowSolution",
    "build_flowflex_lp",
    "flow_network",
    "flowflex_lp_solution",
    "geometric_grid",
    "solve_network_simplex",
]

INTERVALS = ("geometric", "unit")


@dataclass(frozen=True, eq=False)
class FlowNetwork:
    """The network of §2.3.2 over the grid ``grid`` (g_0 < ... < g_R; interval ℓ = [g_ℓ, g_{ℓ+1}]).

    ``capacity[ℓ]`` is the E_3 capacity of b_ℓ; ``volume[j]`` = V_j and ``lower[j]`` = L_j per
    chain; arc e (E_2) goes from a_{arc_chain[e]} to b_{arc_interval[e]} with cost ``arc_cost[e]``
    per unit of flow; arcs are sorted by chain, then interval. ``charge`` is ``"end"`` (unit
    grid, cost at the interval's end) or ``"start"`` (geometric grid, cost at max(start, L_j)).
    ``lower_bound`` is True when the optimum is a lower bound on every schedule's cost (Claim 1).
    """

    processors: int
    grid: np.ndarray
    capacity: np.ndarray
    volume: np.ndarray
    lower: np.ndarray
    arc_chain: np.ndarray
    arc_interval: np.ndarray
    arc_cost: np.ndarray
    intervals: str
    charge: str
    epsilon: float | None
    lower_bound: bool

    @property
    def n_chains(self) -> int:
        return len(self.volume)

    @property
    def n_intervals(self) -> int:
        return len(self.capacity)

    @property
    def n_arcs(self) -> int:
        return len(self.arc_cost)


@dataclass(frozen=True, eq=False)
class FlowSolution:
    """An optimal flow: ``flow[e]`` on each E_2 arc of ``network``, and its cost ``objective``."""

    network: FlowNetwork
    flow: np.ndarray
    objective: float


def geometric_grid(start: float, horizon: float, epsilon: float) -> np.ndarray:
    """g_ℓ = start·(1+ε)^ℓ for ℓ = 0 .. R, R the least with g_R >= horizon (at least one interval)."""
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    R = max(1, math.ceil(math.log(horizon / start) / math.log1p(epsilon) - 1e-12))
    grid = start * (1.0 + epsilon) ** np.arange(R + 1)
    grid[-1] = max(grid[-1], horizon)
    return grid


def flow_network(instance: MalleableInstance, *, intervals: str = "geometric", epsilon: float | None = None,
                 unit: float = 1.0, merge: bool = True, chains: Chains | None = None) -> FlowNetwork:
    """The min-cost-flow network of paper 000 §2.3.2 for *instance* (see the module docstring).

    ``epsilon`` (geometric grid) defaults to 1/m, m the number of flows, as in the paper; ``unit``
    is the unit grid's interval length. *chains* (from
    :func:`~schedrelax.schedulers.chains.flow_chains`) are computed when not given.
    """
    if intervals not in INTERVALS:
        raise ValueError(f"intervals must be one of {', '.join(INTERVALS)}, got {intervals!r}")
    chains = flow_chains(instance) if chains is None else chains
    P = instance.processors
    m = chains.n_chains
    volume = chains.volume
    lower = completion_lower_bounds(chains)
    horizon = max(float(lower.max()), float(volume.sum()) / P)
    if intervals == "unit":
        if not (unit > 0 and math.isfinite(unit)):
            raise ValueError(f"unit must be a finite number > 0, got {unit!r}")
        grid = unit * np.arange(math.ceil(horizon / unit - 1e-12) + 1, dtype=float)
        charge, eps = "end", None
    else:
        eps = 1.0 / m if epsilon is None else float(epsilon)
        grid = geometric_grid(float(lower.min()), horizon, eps)
        charge = "start"
    capacity = P * np.diff(grid)
    capacity[0] = P * grid[1]

    R = len(grid) - 1
    # First interval whose end is at or after L_j: the arcs of chain j go from there to the end.
    first = np.searchsorted(grid[1:], lower, side="left")
    counts = R - first
    arc_chain = np.repeat(np.arange(m), counts)
    arc_interval = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts) + first[arc_chain]
    when = grid[arc_interval + 1] if charge == "end" else np.maximum(grid[arc_interval], lower[arc_chain])
    cost = np.empty(len(when))
    cut = np.concatenate([[0], np.cumsum(counts)])
    for j, flow in enumerate(instance.flows):
        cost[cut[j]:cut[j + 1]] = flow.cost(when[cut[j]:cut[j + 1]])
    cost /= volume[arc_chain]
    if merge and len(cost):
        same_chain_next = np.r_[arc_chain[1:] == arc_chain[:-1], False]
        dominated = same_chain_next & (cost >= np.r_[cost[1:], np.inf])
        arc_chain, arc_interval, cost = arc_chain[~dominated], arc_interval[~dominated], cost[~dominated]
    valid = charge == "start" or _constant_inside_intervals(instance, grid, lower, unit)
    return FlowNetwork(P, grid, capacity, volume, lower, arc_chain, arc_interval, cost, intervals, charge,
                       eps, valid)


def _constant_inside_intervals(instance: MalleableInstance, grid: np.ndarray, lower: np.ndarray,
                               unit: float) -> bool:
    """Assumption A1 of §2.3.2 on the unit grid: no cost changes strictly inside an interval it can
    complete in, so charging the interval's end is exact for every completion time in it."""
    for flow, L in zip(instance.flows, lower):
        if not flow.cost.is_step:
            return False
        b = flow.cost.breakpoints()
        inside = b[(b >= L) & (b < grid[-1])]
        if np.any(inside / unit != np.round(inside / unit)):
            return False
    return True


def build_flowflex_lp(instance: MalleableInstance, *, intervals: str = "geometric", epsilon: float | None = None,
                      unit: float = 1.0, merge: bool = True, chains: Chains | None = None,
                      network: FlowNetwork | None = None) -> pyo.ConcreteModel:
    """The min-cost-flow relaxation of paper 000 §2.3.2 (Figure 3) as a Pyomo LP.

    Variables: ``x[e]`` the *fraction* of chain j's volume V_j sent on E_2 arc e (a_j -> b_ℓ;
    the flow is V_j·x[e]), ``z[ℓ]`` the flow on E_3 arc b_ℓ -> sink (at most its capacity) and
    ``y[ℓ]`` on E_4 arc b_{ℓ+1} -> b_ℓ, both in units of ``model.flow_unit`` = Σ_j V_j. Rows:
    ``supply[j]``: Σ_e x[e] over the arcs of a_j = 1; ``balance[ℓ]``: inflow = outflow at b_ℓ,
    in units of ``flow_unit``. The objective is the network's cost, in the instance's own cost
    units (arc e costs V_j·``arc_cost[e]`` per unit of x[e]); ``model.network`` holds the
    :class:`FlowNetwork` (pass *network* to reuse one; the other parameters then do not matter).

    Why fractions: a solver meets each row to an absolute tolerance (HiGHS: 1e-7). Written in
    raw volumes, the supply row of a chain of 1e-9 work is met by routing nothing at all; as
    fractions every chain's row is O(1) whatever its size, so each chain's flow is resolved to
    the tolerance relative to its own volume (:func:`flowflex_lp_solution` checks it).
    """
    program = flowflex_program(instance, intervals=intervals, epsilon=epsilon, unit=unit, merge=merge, chains=chains,
                               network=network)
    with PauseGC():
        m = to_pyomo(program)
    m.network, m.flow_unit = program.meta.network, program.meta.flow_unit
    return m


@dataclass(frozen=True)
class FlowLayout:
    """What :func:`flowflex_lp_solution` needs of a flow LP: its network and flow unit Σ_j V_j."""

    network: FlowNetwork
    flow_unit: float


def flowflex_program(instance: MalleableInstance, *, intervals: str = "geometric", epsilon: float | None = None,
                     unit: float = 1.0, merge: bool = True, chains: Chains | None = None,
                     network: FlowNetwork | None = None, normalized: bool = False) -> MatrixProgram:
    """The flow LP of :func:`build_flowflex_lp` as arrays (:class:`schedrelax._matrix.MatrixProgram`,
    columns x, z, y; rows supply, balance), for solvers that take matrices directly.

    ``normalized=True`` (what FlowFlex solves): each chain's arc costs less the cheapest of them,
    over the largest cost left. Each chain routes exactly one unit (its supply row), so this
    subtracts a constant from the objective and divides it by a positive one: the same optimal
    flows, and :func:`flowflex_lp_solution` reads the cost on the instance's scale from the flow.
    Why: HiGHS's tolerances are absolute (1e-7 on reduced costs), so costs of 1e-9 (an instance
    written in nanoseconds), or cost differences that sit beside a cost of 10^6 (completion times
    at t = 10^6), were taken for zero and the solver stopped at a flow that is not optimal: its
    "LP optimum" came out above a verified schedule's cost at scale 1e-9 (the unit-invariance
    fuzz, seed 12)."""
    net = network if network is not None else flow_network(
        instance, intervals=intervals, epsilon=epsilon, unit=unit, merge=merge, chains=chains)
    A, R, J = net.n_arcs, net.n_intervals, net.n_chains
    unit_of_flow = float(net.volume.sum())
    b = ProgramBuilder("flowflex min-cost flow")
    ox = b.var("x", A, 0.0, np.inf)
    oz = b.var("z", R, 0.0, net.capacity / unit_of_flow)
    oy = b.var("y", R - 1, 0.0, np.inf)
    n = oy + R - 1
    arcs = np.arange(A)
    # supply[j]: Σ_e x[e] over the arcs of a_j = 1
    b.rows("supply", sp.csr_array((np.ones(A), (net.arc_chain, ox + arcs)), shape=(J, n)), 1.0, 1.0)
    # balance[ℓ]: Σ_{e into b_ℓ} share_e x[e] + y[ℓ] - y[ℓ-1] - z[ℓ] = 0, share_e = V_j / Σ V
    # (each arc's share of its chain's volume, in flow units)
    share = net.volume[net.arc_chain] / unit_of_flow
    ell = np.arange(R)
    rows = np.concatenate([net.arc_interval, ell[:-1], ell[1:], ell])
    cols = np.concatenate([ox + arcs, oy + ell[:-1], oy + ell[:-1], oz + ell])
    vals = np.concatenate([share, np.ones(R - 1), -np.ones(R - 1), -np.ones(R)])
    b.rows("balance", sp.csr_array((vals, (rows, cols)), shape=(R, n)), 0.0, 0.0)
    cost = net.arc_cost * net.volume[net.arc_chain]
    if normalized and A:
        cheapest = np.full(J, np.inf)
        np.minimum.at(cheapest, net.arc_chain, cost)
        cost = cost - cheapest[net.arc_chain]
        top = float(cost.max())
        cost = cost / top if top > 0 else cost
    b.objective(ox + arcs, cost)
    return b.finish(FlowLayout(net, unit_of_flow))


SUPPLY_TOL = 1e-6
"""How far a solved chain's fractions may add up from 1 (solver tolerance, relative to V_j)."""


def flowflex_lp_solution(model) -> FlowSolution:
    """The flow on every E_2 arc after a solve of :func:`build_flowflex_lp`'s model (or of
    :func:`flowflex_program`, given its :func:`schedrelax.solvers.solve_program` solution).

    Each chain's fractions are what the solver returned, made >= 0 and scaled to add up to
    exactly 1 (they do up to the solver's tolerance), so every chain routes exactly V_j. A chain
    whose fractions miss 1 by more than :data:`SUPPLY_TOL` raises NoOptimalSolutionError naming
    it: the solve did not deliver a flow of the network.
    """
    if isinstance(model, pyo.Block):
        net: FlowNetwork = model.network
        frac = np.fromiter((v.value or 0.0 for v in model.x.values()), dtype=float, count=net.n_arcs)
    else:  # the solution of flowflex_program (schedrelax.solvers.solve_program)
        net = model.program.meta.network
        frac = model.value("x")
    return _routed(net, np.maximum(frac, 0.0), "the LP solution")


def _routed(net: FlowNetwork, frac: np.ndarray, source: str) -> FlowSolution:
    """The flow V_j·frac[e] / Σ_{e of j} frac[e] after checking each chain's fractions add up to 1."""
    total = np.bincount(net.arc_chain, weights=frac, minlength=net.n_chains)
    off = np.flatnonzero(~(np.abs(total - 1.0) <= SUPPLY_TOL))
    if len(off):
        j = int(off[0])
        raise NoOptimalSolutionError(
            f"flowflex flow network: {source} routes {total[j] * net.volume[j]!r} of chain {j}'s volume "
            f"{net.volume[j]!r} (a share of {total[j]!r}, more than {SUPPLY_TOL:g} from 1)")
    flow = frac / total[net.arc_chain] * net.volume[net.arc_chain]
    return FlowSolution(net, flow, float(net.arc_cost @ flow))


def solve_network_simplex(network: FlowNetwork, *, digits: int = 12) -> FlowSolution:
    """The same min-cost flow solved by networkx' network simplex (no LP solver involved).

    Node a_j supplies V_j, the sink demands Σ V_j; E_2 and E_4 arcs are uncapacitated. Network
    simplex cycles on floating-point data (networkx says so, and it does here), so supplies,
    capacities and costs are scaled to whole numbers first (Python integers, of any size): the
    smallest volume and the smallest non-zero arc cost get about ``digits`` digits each, so every
    chain's supply and every arc's cost is resolved to about 10^-digits of itself, however far
    apart the sizes are (a chain of 1e-9 work beside one of 1e4). The flow returned is optimal
    for the rounded data; its cost, in the true costs, is within about 10^-digits (relative) of
    the LP optimum. Every chain has an arc to the last interval and E_4 arcs reach every earlier
    one, so the network is feasible iff the capacities add up to the demand; the last capacity
    absorbs the rounding that could break that.
    """
    volume, capacity, cost = network.volume, network.capacity, network.arc_cost
    flow_scale = 10.0 ** digits / float(volume.min())
    magnitude = np.abs(cost)
    positive = magnitude[magnitude > 0]
    # The cap keeps the largest scaled cost a finite float (costs 300 decades apart).
    cost_scale = min(10.0 ** digits / float(positive.min()), 1e300 / float(positive.max())) if len(positive) else 1.0
    supply = [int(v) for v in np.rint(volume * flow_scale)]
    cap = [int(c) for c in np.floor(capacity * flow_scale)]
    cap[-1] = max(cap[-1], sum(supply) - sum(cap[:-1]))
    weight = [int(c) for c in np.rint(cost * cost_scale)]

    G = nx.DiGraph()
    G.add_nodes_from((("a", j), {"demand": -v}) for j, v in enumerate(supply))
    G.add_node("sink", demand=sum(supply))
    G.add_edges_from((("b", ell), "sink", {"capacity": c, "weight": 0}) for ell, c in enumerate(cap))
    G.add_edges_from((("b", ell + 1), ("b", ell), {"weight": 0}) for ell in range(network.n_intervals - 1))
    arcs = list(zip(network.arc_chain.tolist(), network.arc_interval.tolist()))
    G.add_edges_from((("a", j), ("b", ell), {"weight": w}) for (j, ell), w in zip(arcs, weight))
    _, flow_dict = nx.network_simplex(G)
    units = [flow_dict[("a", j)][("b", ell)] for j, ell in arcs]
    # Each chain's share of its own whole-number supply, exactly (the units can exceed 2^53).
    frac = np.array([u / supply[j] for u, (j, _) in zip(units, arcs)], dtype=float)
    return _routed(network, frac, "network simplex")
