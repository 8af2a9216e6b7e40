"""The exact continuous-time MIP for small malleable instances (papers 000 §1.1 and 002 §2-3).

**What it is exact for.** Flows of malleable jobs with linear speedup on P identical processors;
at every instant each job runs on a whole number of processors, at most its maximum and, with
``minima=True``, at least its minimum from the moment it is *ready* (its flow released and every
predecessor complete) until it completes — FLEX's fairness guarantee (paper 002 §1, §3.1);
releases; DAG precedence inside flows; any of the cost kinds of
:mod:`schedrelax.instances.costs` per flow, summed (minisum) or maximised (minimax). Rates may
change at any time (not only at events): the optimum is the true continuous-time optimum, not
that of a slotted or an MPS-shaped schedule. Power costs ``w·t^p`` are convex, not linear: the
model carries their tangent cuts, and the ``mip`` algorithm adds cuts until the cut value and the
true cost agree (outer approximation), so for them the optimum is exact to that tolerance.

**Formulation (event-based).** K = n + R events, n the jobs and R the distinct positive release
times; event k is at time t_k (t_0 = 0, non-decreasing) and interval k is [t_{k-1}, t_k]. Each
event is exactly one job completion or one release (ties are zero-length intervals), which
removes the symmetry of relabelling events.

* ``c[j, k]`` binary: job j is complete by event k (non-decreasing in k, 1 at k = K);
* ``rho[r, k]`` binary: interval k starts at or after the r-th release time ρ_r; ``rho = 0``
  forces ``t_k <= ρ_r``, ``rho = 1`` forces ``t_{k-1} >= ρ_r``, so some event lies at ρ_r;
* ``a[j, k]`` in [0, 1]: job j is ready and unfinished in interval k: at most ``1 − c[j, k-1]``,
  ``c[p, k-1]`` for each predecessor p, and ``rho`` of its release; with ``minima`` also at least
  their conjunction, so that it is exactly that indicator;
* ``w[j, k]`` >= 0: work of job j in interval k; ``w <= M_j (t_k − t_{k-1})``, ``w <= s_j a``,
  ``Σ_j w[j, k] <= P (t_k − t_{k-1})``; with ``minima``, ``w >= m_j (t_k − t_{k-1})`` when
  ``a = 1`` (big-M H otherwise); all work done, and done by the completion event:
  ``Σ_{k'<=k} w[j, k'] >= s_j c[j, k]``;
* ``C[f]``: the flow's completion time, ``C[f] >= t_k − H c[j, k-1]`` for its jobs j and all k.

Why per-interval *work* and not whole rates is exact: in an interval the average rates y = w / L
lie in ``{m <= y <= M, Σ y <= P}``, whose vertices are whole numbers, so any such y is realised
by whole rates that change inside the interval (:func:`~schedrelax.schedulers.malleable_packing.
whole_processor_pieces` builds them with McNaughton's wrap-around); conversely the averages of
any schedule lie in that set. H = (latest release) + (total work) bounds every event of some
optimal schedule: cutting out any stretch where nothing runs and nothing is released keeps a
schedule feasible and no costlier, and then at least one processor works at every instant after
the last release.

Costs per flow, with ``C = C[f]``: linear kinds (completion, stretch, lateness) directly;
tardiness ``tau >= w (C − d)``, ``tau >= 0``; step kinds (tardy, SLA) one binary ``u`` per step
with ``C <= d + H u`` (finishing at d is on time); power ``theta >= `` tangents of ``w t^p``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo
from pyomo.core.util import quicksum

from schedrelax.instances import MalleableInstance
from schedrelax.instances.costs import (
    CompletionCost,
    LatenessCost,
    PowerCost,
    SLACost,
    StretchCost,
    TardinessCost,
    TardyCost,
)

__all__ = ["MalleableMIPSolution", "add_power_tangents", "build_malleable_mip", "completion_caps",
           "malleable_mip_solution", "malleable_mip_start", "mip_horizon"]


def mip_horizon(instance: MalleableInstance) -> float:
    """H = latest release + total work: every event of some optimal schedule lies in [0, H]."""
    return float(instance.flow_release.max() + instance.size.sum())


def _flow_lower_bounds(instance: MalleableInstance) -> np.ndarray:
    """No flow completes before its release + the longest chain of s_i / M_i in its DAG, nor before
    its release + its total work / P (it has at most P processors)."""
    work = np.add.reduceat(instance.size.astype(float), instance.flow_offset[:-1])
    chain = np.maximum.reduceat(_earliest_finish(instance), instance.flow_offset[:-1])
    return np.maximum(chain, instance.flow_release + work / instance.processors)


def _earliest_finish(instance: MalleableInstance) -> np.ndarray:
    """Per job, its release + the longest chain of s_i / M_i ending at it: no earlier completion."""
    n = instance.n_jobs
    finish = instance.job_release + instance.size / instance.max_procs
    if len(instance.edges):
        # Relax the edges n times: enough for any path (Bellman-Ford on a DAG, n is small).
        for _ in range(n):
            a, b = instance.edges[:, 0], instance.edges[:, 1]
            cand = finish[a] + instance.size[b] / instance.max_procs[b]
            new = finish.copy()
            np.maximum.at(new, b, cand)
            if np.array_equal(new, finish):
                break
            finish = new
    return finish


def completion_caps(instance: MalleableInstance, upper_bound: float) -> np.ndarray:
    """Per flow, a time no optimal schedule completes it after, given *upper_bound*, the cost of a
    feasible schedule (+inf where the cost gives none, e.g. past a step cost's last step).

    Every cost is non-decreasing in the completion time and no flow completes before its lower
    bound lb_g (:func:`_flow_lower_bounds`), so an optimal schedule has cost_f(C_f) <= U − Σ_{g≠f}
    cost_g(lb_g) (minisum) or <= U (minimax), and C_f is at most the latest time within that
    budget (:meth:`~schedrelax.instances.costs.CostFunction.inverse`). The budget gets a relative
    1e-9 of room so that a schedule costing exactly U keeps its own completions."""
    lb = _flow_lower_bounds(instance)
    floor = np.array([fl.cost(lb[f]) for f, fl in enumerate(instance.flows)])
    U = float(upper_bound)
    budget = (U - (floor.sum() - floor)) if instance.objective == "minisum" else np.full(instance.n_flows, U)
    budget = budget + 1e-9 * max(1.0, abs(U))
    return np.array([max(float(fl.cost.inverse(budget[f])), float(lb[f])) for f, fl in enumerate(instance.flows)])


def build_malleable_mip(instance: MalleableInstance, *, minima: bool = True, horizon: float | None = None,
                        power_points: int = 4, upper_bound: float | None = None,
                        lower_bound: float | None = None) -> pyo.ConcreteModel:
    """The exact event-based malleable MIP (papers 000 §1.1, 002 §2-3; see the module docstring).

    ``minima=False`` ignores the minimum processor counts (as paper 002's FIFO does);
    ``horizon`` overrides H (it must bound every event of an optimal schedule to stay exact);
    ``power_points`` is the number of tangents each power cost starts with. The objective is the
    instance's minisum or minimax cost.

    ``upper_bound``, the cost of a feasible schedule, caps each flow's completion time
    (:func:`completion_caps`) and H at the latest cap (or release), which keeps every optimum
    and tightens every big-M row. ``lower_bound``, a value OPT is known not to be below (a
    relaxation's), becomes the row objective >= lower_bound. Both are checked by nothing here:
    a wrong one cuts off the optimum.

    Rows beyond the module docstring's, valid for every schedule and there for the LP relaxation:
    a job completes at a later event than each predecessor (``c[j, k] <= c[p, k-1]``), no event
    comes before the earliest finish of a job complete by it (``t_k >= e_j c[j, k]``), and the
    work complete by event k fits P processors (``Σ_j s_j c[j, k] <= P t_k``).
    """
    n = instance.n_jobs
    F = instance.n_flows
    P = instance.processors
    size = instance.size.astype(float)
    maxp = instance.max_procs.astype(float)
    minp = instance.min_procs.astype(float) if minima else np.zeros(n)
    releases = sorted({float(r) for r in instance.flow_release if r > 0})
    R = len(releases)
    release_index = {r: i for i, r in enumerate(releases)}
    K = n + R
    H = mip_horizon(instance) if horizon is None else float(horizon)
    lb = _flow_lower_bounds(instance)
    caps = np.full(F, H)
    if upper_bound is not None:
        caps = np.minimum(caps, completion_caps(instance, upper_bound))
        H = min(H, max(float(caps.max()), float(instance.flow_release.max())))
        caps = np.minimum(caps, H)
    earliest = _earliest_finish(instance)
    preds: list[list[int]] = [[] for _ in range(n)]
    for a, b in instance.edges.tolist():
        preds[b].append(a)
    job_release = [release_index.get(float(r)) for r in instance.job_release]
    jobs_of = [list(range(instance.flow_offset[f], instance.flow_offset[f + 1])) for f in range(F)]

    m = pyo.ConcreteModel(name="malleable_mip")
    m.J = pyo.RangeSet(0, n - 1)
    m.K = pyo.RangeSet(1, K)
    m.K0 = pyo.RangeSet(0, K)
    m.R = pyo.RangeSet(0, R - 1)
    m.F = pyo.RangeSet(0, F - 1)
    m.horizon = pyo.Param(initialize=H)
    m.minima = pyo.Param(initialize=bool(minima), within=pyo.Boolean)
    # The data the solution is read back with (:func:`malleable_mip_solution`): which release each
    # job waits for, and the DAG edges (predecessor, job).
    m.release_time = pyo.Param(m.R, initialize=dict(enumerate(releases)))
    m.waits_for = pyo.Set(dimen=2, initialize=[(j, job_release[j]) for j in range(n) if job_release[j] is not None])
    m.precedes = pyo.Set(dimen=2, initialize=[(p, j) for j in range(n) for p in preds[j]])

    m.t = pyo.Var(m.K0, bounds=(0.0, H))
    m.t[0].fix(0.0)
    m.w = pyo.Var(m.J, m.K, within=pyo.NonNegativeReals)
    m.c = pyo.Var(m.J, m.K0, within=pyo.Binary)
    m.a = pyo.Var(m.J, m.K, bounds=(0.0, 1.0))
    m.rho = pyo.Var(m.R, m.K, within=pyo.Binary)
    m.C = pyo.Var(m.F, bounds=lambda m, f: (float(lb[f]), float(caps[f])))
    for j in range(n):
        m.c[j, 0].fix(0)
        m.c[j, K].fix(1)
    for r in range(R):
        m.rho[r, 1].fix(0)  # interval 1 starts at 0, before every positive release

    L = {k: m.t[k] - m.t[k - 1] for k in range(1, K + 1)}
    m.order = pyo.Constraint(m.K, rule=lambda m, k: m.t[k] >= m.t[k - 1])
    m.c_monotone = pyo.Constraint(m.J, m.K, rule=lambda m, j, k: m.c[j, k] >= m.c[j, k - 1])
    m.rho_monotone = pyo.Constraint(m.R, m.K, rule=lambda m, r, k: pyo.Constraint.Skip if k == 1
                                    else m.rho[r, k] >= m.rho[r, k - 1])
    m.rho_after = pyo.Constraint(m.R, m.K, rule=lambda m, r, k: pyo.Constraint.Skip if k == 1
                                 else m.t[k - 1] >= releases[r] * m.rho[r, k])
    m.rho_before = pyo.Constraint(m.R, m.K, rule=lambda m, r, k: m.t[k] <= releases[r] + H * m.rho[r, k])

    def one_event(m, k):
        done = quicksum(m.c[j, k] - m.c[j, k - 1] for j in range(n))
        crossed = quicksum((1 if k == K else m.rho[r, k + 1]) - m.rho[r, k] for r in range(R))
        return done + crossed == 1
    m.one_event = pyo.Constraint(m.K, rule=one_event)

    m.not_done = pyo.Constraint(m.J, m.K, rule=lambda m, j, k: m.a[j, k] <= 1 - m.c[j, k - 1])
    pred_pairs = [(j, p, k) for j in range(n) for p in preds[j] for k in range(1, K + 1)]
    m.after_preds = pyo.Constraint(pred_pairs, rule=lambda m, j, p, k: m.a[j, k] <= m.c[p, k - 1])
    released_jobs = [(j, k) for j in range(n) if job_release[j] is not None for k in range(1, K + 1)]
    m.after_release = pyo.Constraint(released_jobs, rule=lambda m, j, k: m.a[j, k] <= m.rho[job_release[j], k])
    if minima:
        def ready(m, j, k):
            conds = [1 - m.c[j, k - 1]] + [m.c[p, k - 1] for p in preds[j]]
            if job_release[j] is not None:
                conds.append(m.rho[job_release[j], k])
            return m.a[j, k] >= quicksum(conds) - (len(conds) - 1)
        m.ready = pyo.Constraint(m.J, m.K, rule=ready)
        minimum_pairs = [(j, k) for j in range(n) if minp[j] > 0 for k in range(1, K + 1)]
        m.minimum = pyo.Constraint(minimum_pairs, rule=lambda m, j, k:
                                   m.w[j, k] >= minp[j] * L[k] - minp[j] * H * (1 - m.a[j, k]))

    m.maximum = pyo.Constraint(m.J, m.K, rule=lambda m, j, k: m.w[j, k] <= maxp[j] * L[k])
    m.only_active = pyo.Constraint(m.J, m.K, rule=lambda m, j, k: m.w[j, k] <= size[j] * m.a[j, k])
    m.capacity = pyo.Constraint(m.K, rule=lambda m, k: quicksum(m.w[j, k] for j in range(n)) <= P * L[k])
    m.all_work = pyo.Constraint(m.J, rule=lambda m, j: quicksum(m.w[j, k] for k in range(1, K + 1)) == size[j])
    m.done_by = pyo.Constraint(m.J, m.K, rule=lambda m, j, k:
                               quicksum(m.w[j, q] for q in range(1, k + 1)) >= size[j] * m.c[j, k])
    m.flow_done = pyo.Constraint([(f, j, k) for f in range(F) for j in jobs_of[f] for k in range(1, K + 1)],
                                 rule=lambda m, f, j, k: m.C[f] >= m.t[k] - H * m.c[j, k - 1])
    m.after_pred_event = pyo.Constraint(pred_pairs, rule=lambda m, j, p, k: m.c[j, k] <= m.c[p, k - 1])
    m.not_too_early = pyo.Constraint(m.J, m.K, rule=lambda m, j, k: m.t[k] >= float(earliest[j]) * m.c[j, k])
    m.energy = pyo.Constraint(m.K, rule=lambda m, k: quicksum(size[j] * m.c[j, k] for j in range(n)) <= P * m.t[k])

    costs = _cost_expressions(m, instance, H, lb, power_points)
    if instance.objective == "minisum":
        m.obj = pyo.Objective(expr=quicksum(costs))
    else:
        m.z = pyo.Var()
        m.bottleneck = pyo.Constraint(m.F, rule=lambda m, f: m.z >= costs[f])
        m.obj = pyo.Objective(expr=m.z)
    if lower_bound is not None:
        m.relaxation_bound = pyo.Constraint(expr=m.obj.expr >= float(lower_bound))
    return m


def _cost_expressions(m: pyo.ConcreteModel, instance: MalleableInstance, H: float, lb: np.ndarray,
                      power_points: int) -> list:
    """One linear expression per flow that equals (at an optimum) its cost of completing at C[f]."""
    F = instance.n_flows
    flows = instance.flows
    step = {f: ((c.deadline,), (c.weight,)) if isinstance(c, TardyCost) else (c.deadlines, c.heights)
            for f, c in ((f, fl.cost) for f, fl in enumerate(flows)) if isinstance(c, (TardyCost, SLACost))}
    step_pairs = [(f, b) for f, (ds, _) in step.items() for b in range(len(ds))]
    m.u = pyo.Var(step_pairs, within=pyo.Binary)
    m.late = pyo.Constraint(step_pairs, rule=lambda m, f, b: m.C[f] <= step[f][0][b] + H * m.u[f, b])
    m.steps_in_order = pyo.Constraint(step_pairs, rule=lambda m, f, b: pyo.Constraint.Skip if b == 0
                                      else m.u[f, b] <= m.u[f, b - 1])
    tardy = [f for f in range(F) if isinstance(flows[f].cost, TardinessCost)]
    m.tau = pyo.Var(tardy, within=pyo.NonNegativeReals)
    m.tardiness = pyo.Constraint(tardy, rule=lambda m, f: m.tau[f] >= flows[f].cost.weight
                                 * (m.C[f] - flows[f].cost.deadline))
    powered = [f for f in range(F) if isinstance(flows[f].cost, PowerCost)]
    m.theta = pyo.Var(powered, within=pyo.NonNegativeReals)
    m.power_cuts = pyo.ConstraintList()
    for f in powered:
        for point in np.geomspace(max(float(lb[f]), 1e-9), H, max(power_points, 2)):
            _tangent(m, flows[f].cost, f, float(point))

    out = []
    for f, fl in enumerate(flows):
        c = fl.cost
        if isinstance(c, CompletionCost):
            out.append(c.weight * m.C[f])
        elif isinstance(c, StretchCost):
            out.append(m.C[f] / c.work)
        elif isinstance(c, LatenessCost):
            out.append(c.weight * (m.C[f] - c.deadline))
        elif isinstance(c, TardinessCost):
            out.append(m.tau[f])
        elif isinstance(c, (TardyCost, SLACost)):
            out.append(quicksum(h * m.u[f, b] for b, h in enumerate(step[f][1])))
        elif isinstance(c, PowerCost):
            out.append(m.theta[f])
        else:
            raise TypeError(f"flow {f}: the malleable MIP has no formulation for cost kind {c.kind!r}")
    return out


def _tangent(m: pyo.ConcreteModel, cost: PowerCost, f: int, point: float) -> None:
    """theta[f] >= the tangent of w t^p at ``point`` (an under-estimator: w t^p is convex)."""
    w, p = cost.weight, cost.p
    m.power_cuts.add(m.theta[f] >= w * point**p + w * p * point ** (p - 1) * (m.C[f] - point))


def add_power_tangents(model: pyo.ConcreteModel, instance: MalleableInstance, completion: np.ndarray,
                       rel_tol: float = 1e-6) -> int:
    """Add a tangent at ``completion[f]`` for every power-cost flow whose cut value ``theta``
    under-estimates ``w C^p`` by more than ``rel_tol``; returns how many were added (0: converged)."""
    added = 0
    for f in model.theta.index_set():
        cost = instance.flows[f].cost
        true = float(cost(completion[f]))
        if true - pyo.value(model.theta[f]) > rel_tol * max(1.0, abs(true)):
            _tangent(model, cost, f, float(completion[f]))
            added += 1
    return added


@dataclass(frozen=True, eq=False)
class MalleableMIPSolution:
    """A solved :func:`build_malleable_mip` model read back: event ``times`` t_0..t_K, ``work[k-1, j]``
    done by job j in interval k, ``ready[k-1, j]`` (job j released, its predecessors complete and
    itself not, in interval k: where it may run), ``not_before[k-1]`` (the latest release interval
    k is after: it may not start earlier), each job's completion event (1..K), each flow's
    completion time C[f] and the objective."""

    times: np.ndarray
    work: np.ndarray
    ready: np.ndarray
    not_before: np.ndarray
    completion_event: np.ndarray
    flow_completion: np.ndarray
    objective: float


def malleable_mip_solution(model: pyo.ConcreteModel, size: np.ndarray) -> MalleableMIPSolution:
    """Read the values a solve loaded into a :func:`build_malleable_mip` model (``size``: its
    jobs' sizes, checked against the model's job count).

    The binaries are rounded (a solver returns them within its integrality tolerance, e.g.
    0.9999998), and ``ready`` is computed from them exactly as the model defines it, not read
    from the continuous ``a``. The work is the solver's, with negative round-off and any work
    outside a job's ready intervals removed; it meets the model's constraints only to the
    solver's tolerances (each job's total is its size to about 1e-7 absolute, a rate may pass
    its bounds by as much), so a schedule is made from it by
    :func:`~schedrelax.schedulers.malleable_packing.fit_interval_rates`, which makes it exact.
    """
    n, K = len(model.J), len(model.K)
    if len(size) != n:
        raise ValueError(f"malleable_mip_solution: {len(size)} sizes for a model of {n} jobs")
    times = np.array([pyo.value(model.t[k]) for k in range(K + 1)])
    work = np.array([[max(pyo.value(model.w[j, k]), 0.0) for j in range(n)] for k in range(1, K + 1)])
    done = np.array([[pyo.value(model.c[j, k]) > 0.5 for k in range(K + 1)] for j in range(n)])
    after = np.array([[pyo.value(model.rho[r, k]) > 0.5 for k in range(1, K + 1)] for r in model.R],
                     dtype=bool).reshape(len(model.R), K)
    ready = ~done[:, :-1].T.copy()  # [k-1, j]: not complete by event k-1
    for p, j in model.precedes:
        ready[:, j] &= done[p, :-1]
    for j, r in model.waits_for:
        ready[:, j] &= after[r]
    release = np.array([pyo.value(model.release_time[r]) for r in model.R])
    not_before = np.where(after, release[:, None], 0.0).max(axis=0, initial=0.0)
    work[~ready] = 0.0
    event = done.argmax(axis=1)
    flow_completion = np.array([pyo.value(model.C[f]) for f in model.F])
    return MalleableMIPSolution(times, work, ready, not_before, event, flow_completion, float(pyo.value(model.obj)))


def malleable_mip_start(model: pyo.ConcreteModel, instance: MalleableInstance, schedule) -> bool:
    """Set a :func:`build_malleable_mip` model's binaries to a verified *schedule* of *instance*,
    for ``solve(..., warm_start=True)``: its events are the schedule's job completions and the
    release times in time order (ties: releases first, then a topological order), ``c[j, k]`` 1
    from job j's event on, ``rho[r, k]`` 1 after release r's event, and each step cost's ``u`` 1
    where the flow completes past the step. The solver completes the continuous values (event
    times, work) by the LP of that event order, which the schedule's own values satisfy: a start
    of the binaries alone is not rejected for the verifier's round-off (1e-6) in the schedule's
    work and rates, which a full start would have to meet to the MIP's 1e-8.

    Returns False, setting nothing, when the model cannot express the schedule: a flow completing
    after the model's cap on it (:func:`completion_caps`, from a bound the schedule does not meet),
    or, with minima, a schedule that does not promise ``respects_minima`` while minima bind."""
    n, K = instance.n_jobs, len(model.K)
    if pyo.value(model.minima) and np.any(instance.min_procs > 0) and "respects_minima" not in schedule.promises:
        return False
    done = np.zeros(n)
    np.maximum.at(done, np.asarray(schedule.job, dtype=np.int64), np.asarray(schedule.end, dtype=float))
    flow_done = np.maximum.reduceat(done, instance.flow_offset[:-1])
    if any(flow_done[f] > model.C[f].ub for f in model.F):
        return False
    rank = _depth(instance)
    releases = [pyo.value(model.release_time[r]) for r in model.R]
    # (time, 0 for a release / 1 for a completion, topological rank, index)
    events = sorted([(rho, 0, 0, r) for r, rho in enumerate(releases)] +
                    [(float(done[j]), 1, int(rank[j]), j) for j in range(n)])
    if len(events) != K:
        raise ValueError(f"malleable_mip_start: {len(events)} events for a model of {K}")
    for k, (_, kind, _, i) in enumerate(events, start=1):
        if kind:
            for q in range(k, K + 1):
                model.c[i, q].value = 1.0
            for q in range(k):
                model.c[i, q].value = 0.0
        else:
            for q in range(1, K + 1):
                model.rho[i, q].value = 1.0 if q > k else 0.0
    for (f, b), var in model.u.items():
        deadlines = _step_deadlines(instance.flows[f].cost)
        var.value = 1.0 if flow_done[f] > deadlines[b] else 0.0
    return True


def _depth(instance: MalleableInstance) -> np.ndarray:
    """Each job's number of edges on the longest DAG path ending at it (predecessors rank lower)."""
    depth = np.zeros(instance.n_jobs, dtype=np.int64)
    if len(instance.edges):
        a, b = instance.edges[:, 0], instance.edges[:, 1]
        for _ in range(instance.n_jobs):
            new = depth.copy()
            np.maximum.at(new, b, depth[a] + 1)
            if np.array_equal(new, depth):
                break
            depth = new
    return depth


def _step_deadlines(cost) -> tuple[float, ...]:
    """The deadlines of a step cost's steps, in the order of the model's ``u`` binaries."""
    return (cost.deadline,) if isinstance(cost, TardyCost) else tuple(cost.deadlines)
