"""The exact MIP of paper 004's problem (§II, S-PC, Aggarwal et al.) for small instances.

Exact for: non-preemptive tasks on related machines (task t of job j takes p_{j,t}/v_i on machine
i, one task per machine at a time), the tasks of a job free to run in parallel or on one machine in
sequence, job release times, a job precedence DAG (no task of j2 starts before every task of j1
has completed), objective Σ w_j C_j. Its optimum (at ``mip_gap=0``) is the optimum of the
scheduling problem. Measured with HiGHS on 2 cores: 6-10 tasks on 3 machines in 0.1-8 s; 11 tasks
on 6 machines still had a 5 % gap after a minute. Use it on hypothesis-sized instances.

Disjunctive (big-M) formulation over tasks t = 0..T-1 (global task order of the instance):

* x[t, i] binary, t runs on machine i; Σ_i x[t, i] = 1.
* S_j >= r_j, S_j >= C_j' for every edge (j', j): when job j may start; s[t] >= S_j.
* The task ends at s[t] + Σ_i (p_t/v_i) x[t, i] <= C_j.
* For two tasks t < u whose jobs the DAG does not already order, y[t, u] = 1 if t goes first;
  for every machine i, with H the horizon:
  s[u] >= s[t] + p_t/v_i − H (1 − y) − H (2 − x[t, i] − x[u, i]) and the mirror row.
* Valid rows that only tighten the relaxation: C_j >= S_j + Σ_{t∈j} (p_t/v_i) x[t, i] for each
  machine i (a job's tasks on one machine run one after another), C_j at least LP-Schedule's
  (3)-(4) bound, and two equal tasks of one job in index order (they are interchangeable).

The horizon H = max_j r_j + Σ_t p_t / min_i v_i contains an optimal schedule: shifting every task
of an optimal schedule as early as its machine sequence, release and predecessors allow keeps it
optimal, and then each task starts at a release time or at the end of another task, so the
makespan is at most the latest release plus every task once on the slowest machine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo

from schedrelax.instances import RelatedInstance
from schedrelax.models.queyranne import ScheduleLPData


def mip_horizon(instance: RelatedInstance) -> float:
    """H of the module docstring: every task once on the slowest machine after the last release
    (or the last machine ready time, if later)."""
    start = max(float(instance.release.max()), float(instance.ready.max()))
    return float(start + instance.task_size.sum() / np.min(instance.speeds))


def _ancestors(n: int, edges: np.ndarray) -> np.ndarray:
    """reach[a, b] is True when job a must complete before job b starts (a path a -> b)."""
    reach = np.zeros((n, n), dtype=bool)
    reach[edges[:, 0], edges[:, 1]] = True
    for k in range(n):  # Warshall: tiny n only
        reach |= reach[:, [k]] & reach[[k], :]
    return reach


def incumbent_horizon(instance: RelatedInstance, upper_bound: float) -> float | None:
    """A horizon from a known schedule's cost U: an optimal schedule has w_j C_j <= Σ w C <= U for
    every job, so C_j <= U / w_j, and every task ends by max_j U / w_j. None when some weight is 0
    (that job's completion is not bounded by U)."""
    w = np.asarray(instance.weights, dtype=float)
    if not (w > 0).all() or not np.isfinite(upper_bound):
        return None
    return float(np.max(upper_bound / w))


def build_related_mip(instance: RelatedInstance, upper_bound: float | None = None,
                      lower_bound: float | None = None) -> pyo.ConcreteModel:
    """The disjunctive MIP of the module docstring; ``m.obj`` is Σ w_j C_j in the instance's units.

    C_j also gets the lower bound LP-Schedule's (3)-(4) imply (valid for every schedule): it
    changes no optimum and tightens the MIP's own relaxation.

    *upper_bound*, the cost of a known schedule, narrows the big-M horizon H to
    :func:`incumbent_horizon` where that is smaller (it keeps every optimal schedule, and a
    smaller H is a tighter relaxation). ``m.horizon`` holds the H used. *lower_bound*, a value
    no schedule beats (e.g. the LP-Schedule optimum), becomes the row ``m.bound_cut``:
    Σ w_j C_j >= lower_bound; it removes no schedule, and the search can stop as soon as an
    incumbent meets it.
    """
    T, m_count, n = instance.n_tasks, instance.n_machines, instance.n_jobs
    size = instance.task_size
    speeds = np.asarray(instance.speeds, dtype=float)
    job = instance.task_job
    dur = size[:, None] / speeds[None, :]
    H = mip_horizon(instance)
    big_m = H
    if upper_bound is not None:
        narrow = incumbent_horizon(instance, upper_bound)
        if narrow is not None and narrow < H:
            # Starts and ends stay within the narrowed H, but a disjunctive row also holds for a
            # machine the task is not on, where s_t + p_t / v_i may exceed it by the longest
            # duration: the big-M is that sum, or the data's horizon if smaller (valid as above).
            H = narrow
            big_m = min(big_m, H + float(dur.max()))
    lower = ScheduleLPData.of(instance).lower
    reach = _ancestors(n, instance.edges)
    pairs = [(t, u) for t in range(T) for u in range(t + 1, T)
             if not reach[job[t], job[u]] and not reach[job[u], job[t]]]

    m = pyo.ConcreteModel(name=f"related MIP {instance.name}".strip())
    m.horizon = H
    m.T = pyo.RangeSet(0, T - 1)
    m.M = pyo.RangeSet(0, m_count - 1)
    m.J = pyo.RangeSet(0, n - 1)
    rel = instance.release
    m.x = pyo.Var(m.T, m.M, within=pyo.Binary)
    m.s = pyo.Var(m.T, bounds=lambda _, t: (float(rel[job[t]]), H))
    m.C = pyo.Var(m.J, bounds=lambda _, j: (float(lower[j]), H + float(dur.max())))
    m.pairs = pyo.Set(initialize=pairs, dimen=2)
    m.y = pyo.Var(m.pairs, within=pyo.Binary)
    m.one_machine = pyo.Constraint(m.T, rule=lambda m, t: sum(m.x[t, i] for i in m.M) == 1)

    def end(m, t):
        return m.s[t] + sum(float(dur[t, i]) * m.x[t, i] for i in m.M)

    m.completion = pyo.Constraint(m.T, rule=lambda m, t: m.C[int(job[t])] >= end(m, t))
    # Machine ready times (the instance's ``ready``): a task on machine i starts no earlier.
    ready = instance.ready
    if ready.any():
        m.ready = pyo.Constraint(m.T, rule=lambda m, t: m.s[t] >= sum(float(ready[i]) * m.x[t, i] for i in m.M
                                                                      if ready[i] > 0))
    # S_j: when job j may start (release, predecessors); its tasks start no earlier.
    m.S = pyo.Var(m.J, bounds=lambda _, j: (float(rel[j]), H))
    m.task_start = pyo.Constraint(m.T, rule=lambda m, t: m.s[t] >= m.S[int(job[t])])
    E = instance.edges.tolist()
    m.precedence = pyo.Constraint(range(len(E)), rule=lambda m, e: m.S[E[e][1]] >= m.C[E[e][0]])
    # Valid, and tightens the relaxation: a job's tasks on one machine run one after another.
    first = instance.job_offset
    m.job_load = pyo.Constraint(m.J, m.M, rule=lambda m, j, i: m.C[j] >= m.S[j] + sum(
        float(dur[t, i]) * m.x[t, i] for t in range(first[j], first[j + 1])))

    def before(m, t, u, i):  # t first on machine i
        both = 2 - m.x[t, i] - m.x[u, i]
        return m.s[u] >= m.s[t] + float(dur[t, i]) - big_m * (1 - m.y[t, u]) - big_m * both

    def after(m, t, u, i):  # u first on machine i
        both = 2 - m.x[t, i] - m.x[u, i]
        return m.s[t] >= m.s[u] + float(dur[u, i]) - big_m * m.y[t, u] - big_m * both

    m.t_first = pyo.Constraint(m.pairs, m.M, rule=before)
    m.u_first = pyo.Constraint(m.pairs, m.M, rule=after)
    # Two equal tasks of one job are interchangeable: keep only the schedules where the lower
    # index starts no later (and goes first when they share a machine).
    twins = [(t, u) for t, u in pairs if job[t] == job[u] and size[t] == size[u]]
    m.twins = pyo.Constraint(range(len(twins)), rule=lambda m, k: m.s[twins[k][0]] <= m.s[twins[k][1]])
    for t, u in twins:
        m.y[t, u].fix(1)
    w = instance.weights.tolist()
    m.obj = pyo.Objective(expr=sum(w[j] * m.C[j] for j in m.J))
    if lower_bound is not None:
        m.bound_cut = pyo.Constraint(expr=sum(w[j] * m.C[j] for j in m.J) >= float(lower_bound))
    return m


@dataclass(frozen=True, eq=False)
class RelatedMIPSolution:
    """A solved MIP read back: each task's machine and start time, each job's completion time."""

    machine: np.ndarray
    start: np.ndarray
    completion: np.ndarray


def related_mip_solution(model: pyo.ConcreteModel) -> RelatedMIPSolution:
    """The machine (largest x, robust to integrality tolerance) and start of every task."""
    T, M = len(model.T), len(model.M)
    x = np.array([[model.x[t, i].value for i in range(M)] for t in range(T)], dtype=float)
    start = np.array([model.s[t].value for t in range(T)], dtype=float)
    C = np.array([model.C[j].value for j in model.J], dtype=float)
    return RelatedMIPSolution(np.argmax(x, axis=1), start, C)


def related_mip_start(model: pyo.ConcreteModel, instance: RelatedInstance, schedule) -> bool:
    """Set the MIP's variables to a feasible schedule of *instance* (one piece per task, as every
    related algorithm returns), for ``solve(..., warm_start=True)``: x from the machines, s from
    the starts, C and S from the completions and the DAG, y from the order of starts. Equal tasks
    of one job exchange their places so that the model's twin rows (lower index first) hold.
    Returns False, setting nothing, when the schedule does not fit the model (not one piece per
    task, or a start beyond the model's horizon)."""
    T, n = instance.n_tasks, instance.n_jobs
    if len(schedule) != T:
        return False
    job = instance.task_job
    offset = instance.job_offset
    gid = offset[schedule.job] + schedule.task
    if sorted(gid.tolist()) != list(range(T)):
        return False
    machine = np.empty(T, dtype=np.int64)
    start = np.empty(T)
    end = np.empty(T)
    machine[gid], start[gid], end[gid] = schedule.machine, schedule.start, schedule.end
    size = instance.task_size
    for j in range(n):  # twins: equal sizes in one job take their slots in index order
        tasks = np.arange(offset[j], offset[j + 1])
        for value in np.unique(size[tasks]):
            same = tasks[size[tasks] == value]
            if len(same) > 1:
                order = same[np.argsort(start[same], kind="stable")]
                machine[same], start[same], end[same] = machine[order], start[order], end[order]
    if float(start.max()) > model.horizon:
        return False
    C = np.full(n, -np.inf)
    np.maximum.at(C, job, end)
    C = np.maximum(C, [model.C[j].lb for j in range(n)])
    S = np.asarray(instance.release, dtype=float).copy()
    for a, b in instance.edges.tolist():
        S[b] = max(S[b], C[a])
    for t in range(T):
        for i in model.M:
            model.x[t, i].value = float(machine[t] == i)
        model.s[t].value = float(start[t])
    for j in range(n):
        model.C[j].value = float(C[j])
        model.S[j].value = float(S[j])
    for t, u in model.pairs:
        if not model.y[t, u].fixed:
            model.y[t, u].value = float(start[t] <= start[u])
    return True
