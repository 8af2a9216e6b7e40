"""Exact time-indexed MIPs for small packing instances (paper 003 §2), the optima the relaxations
and algorithms are checked against.

Time is cut into slots of one *unit*: the largest u such that every usable processing time and
every release time is a whole number of units (0.5 for data in halves).

* :func:`build_nonpreemptive_mip` — PRP||Σ w_j C_j (§4: no preemption, hence no migration), exact
  for the continuous-time problem: with data in whole units, shifting every task as early as
  capacity allows gives a schedule no worse in which each task starts at a release time or at the
  completion of another task on its machine, hence at a whole unit.
* :func:`build_preemptive_mip` — PRP|pmtn|Σ w_j C_j without migration in the slotted model of §2
  (X^i_kj(t) ∈ {0, 1} per slot: preemption at slot boundaries). With single-machine placement it is
  PDP|pmtn|Σ w_j C_j (§5). Exact for the slotted model, which every event-driven list schedule on
  whole-unit data belongs to; continuous-time preemption can do better (three tasks of demand 1/2
  on a machine of capacity 1 finish by 1.5, not 2), so its optimum is an upper bound there.

Both take an optional ``upper_bound`` on the optimum (the cost of any feasible schedule): every job
of an optimal schedule then has w_j C_j <= upper_bound, which caps each job's slots. The horizon is
otherwise max_j r_j + Σ_tasks max_i p^i (as for the LPs, see :mod:`schedrelax.models.synchpack_lp`),
with the last reservation end in place of max_j r_j when that is later.

Reservations (room held on a machine over [0, until)) lower that machine's capacity row in the slots
they cover; their ends are on the time grid like the release times.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pyomo.environ as pyo
import scipy.sparse as sp
from pyomo.core.expr.numeric_expr import LinearExpression

from schedrelax.errors import AlgorithmError
from schedrelax.instances import PackingInstance
from schedrelax.instances._checks import flat_ranges
from schedrelax.models.synchpack_lp import add_linear_rows, usable_pairs, without_gc
from schedrelax.schedules import Schedule

MAX_DENOMINATOR = 1000
"""Processing times, releases and reservation ends must be multiples of 1/q for one q up to this."""

MAX_BINARIES = 1_000_000
"""Most (task, machine, slot) binaries a time-indexed MIP is built with. Beyond, building takes
gigabytes and HiGHS's presolve can run for minutes past a time limit (it does not poll the clock
there), while no solver proves such an optimum anyway; the builders refuse up front instead."""


MAX_CAPACITY_TERMS = 5_000_000
"""Most terms the non-preemptive MIP's capacity rows may hold: a start variable of a task p slots
long is in p of them, so the rows hold Σ (starts × p) terms, which long tasks make far larger
than the binaries (two tasks of 12,300 and 157 slots: 25k binaries, 3.9 M terms, 2 s to build in
Pyomo; 10^5 slots took the fuzz run past 24 GB). The builder refuses past this up front."""


MAX_GRID_CELLS = 10_000_000
"""Most (machine, slot) cells of the time grid: the capacity rows and the room left by reservations
are laid out over every slot up to the horizon, so a grid of tiny slots far from 0 (one task of
0.005 released at 10^6: 2·10^8 slots) would take minutes and gigabytes before any variable is
made. The builders refuse past this up front."""


def _check_grid(machines: int, slots: int, unit: float, horizon: float) -> None:
    if machines * slots > MAX_GRID_CELLS:
        raise AlgorithmError(
            f"packing MIP: the time grid would have {slots:,} slots of {unit:g} on each of {machines} machines "
            f"({machines * slots:,} cells, more than the limit of {MAX_GRID_CELLS:,}), up to the horizon {horizon:g}; "
            f"the grid is the largest unit dividing every processing time, release and reservation end, and it "
            f"starts at time 0: coarser times, or releases shifted closer to 0, make a smaller model")


def check_grid(instance: PackingInstance) -> None:
    """AlgorithmError, before any work, when the instance is off every grid the MIP accepts
    (:func:`time_unit`) or its grid up to the horizon would pass :data:`MAX_GRID_CELLS`; callers
    run it before their starts and relaxations, so a refusal comes at once."""
    unit = time_unit(instance)
    *_, end = _windows(instance, unit, None)
    _check_grid(instance.n_machines, int(end.max()), unit, float(end.max()) * unit)


def _check_terms(count: int, unit: float, slots: int, limit: int) -> None:
    if count > limit:
        raise AlgorithmError(
            f"packing MIP: the time-indexed model's capacity rows would hold {count:,} terms ({slots:,} slots of "
            f"{unit:g}; each start of a task p slots long is in p rows), more than the limit of "
            f"{limit:,}; coarser times or shorter tasks make a smaller model")


def _check_size(count: int, what: str, unit: float, slots: int) -> None:
    if count > MAX_BINARIES:
        raise AlgorithmError(
            f"packing MIP: the time-indexed model would have {count:,} binary variables ({what}, {slots:,} slots "
            f"of {unit:g}), more than the limit of {MAX_BINARIES:,}; its grid is the largest unit dividing every "
            f"processing time, release and reservation end: coarser times make a smaller model")


def time_unit(instance: PackingInstance) -> float:
    """The largest u with every usable processing time, release time and reservation end a whole
    multiple of u.

    Each time must equal k/q exactly (as the float nearest k/q) for some q <= MAX_DENOMINATOR: a
    time only close to the grid would have to be rounded onto it, and a release rounded down lets
    a task start before it is released, so the MIP would no longer be exact. Raises
    :class:`~schedrelax.errors.AlgorithmError` naming the first time off every such grid.
    """
    pairs = usable_pairs(instance)
    named = [(f"task {t}'s processing time on machine {m}", v) for t, m, v in
             zip(instance.place_task[pairs].tolist(), instance.place_machine[pairs].tolist(),
                 instance.place_time[pairs].tolist())]
    named += [(f"job {j}'s release", v) for j, v in enumerate(instance.release.tolist())]
    named += [(f"reservation {i}'s end", v) for i, v in enumerate(np.atleast_1d(instance.reserve_until).tolist())]
    fracs = {}
    for what, v in named:
        if v in fracs:
            continue
        f = Fraction(v).limit_denominator(MAX_DENOMINATOR)
        if float(f) != v:
            raise AlgorithmError(
                f"packing MIP: {what} is {v!r}, not a multiple of 1/q for any q <= {MAX_DENOMINATOR}; the "
                f"time-indexed MIP is exact only when every processing time, release and reservation end "
                f"lies on one grid k/q (q <= {MAX_DENOMINATOR}), and it does not round times onto one")
        fracs[v] = f
    den = math.lcm(*(f.denominator for f in fracs.values()))
    num = math.gcd(*(f.numerator * (den // f.denominator) for f in fracs.values()))
    return num / den if num else 1.0 / den


@dataclass(frozen=True)
class MIPLayout:
    """Index arrays behind a packing MIP's variables, for the reader."""

    kind: str
    instance: PackingInstance
    unit: float
    pair_task: np.ndarray
    pair_machine: np.ndarray
    pair_slots: np.ndarray
    var_pair: np.ndarray
    var_slot: np.ndarray


def _windows(instance: PackingInstance, unit: float, upper_bound: float | None):
    """Usable pairs with processing and release in slots, and each job's last usable slot end."""
    pairs = usable_pairs(instance)
    qt = instance.place_task[pairs]
    qm = instance.place_machine[pairs]
    qp = np.rint(instance.place_time[pairs] / unit).astype(np.int64)
    rel = np.rint(instance.release / unit).astype(np.int64)
    longest = np.zeros(instance.n_tasks, dtype=np.int64)
    np.maximum.at(longest, qt, qp)
    busy_until = np.rint(instance.reserve_until / unit).astype(np.int64)
    horizon = int(max(rel.max(), busy_until.max(initial=0)) + longest.sum())
    end = np.full(instance.n_jobs, horizon)
    if upper_bound is not None:
        cap = np.floor(upper_bound / (np.asarray(instance.weights) * unit) + 1e-9).astype(np.int64)
        end = np.minimum(end, cap)
    return qt, qm, qp, rel, end


def start_slots(instance: PackingInstance, upper_bound: float | None, max_terms: int | None):
    """The time-indexed model's start variables, shared by the MIP and its LP built as arrays:
    the slot length, the usable (task, machine, slots) pairs, each job's last slot end, and per
    variable its pair and start slot. AlgorithmError past the size limits, before anything is
    built."""
    unit = time_unit(instance)
    qt, qm, qp, rel, end = _windows(instance, unit, upper_bound)
    rj = rel[instance.task_job[qt]]
    last = end[instance.task_job[qt]] - qp
    starts = np.maximum(last - rj + 1, 0)
    _check_grid(instance.n_machines, int(end.max()), unit, float(end.max()) * unit)
    _check_size(int(starts.sum()), "start slots of each task on each machine", unit, int(end.max()))
    _check_terms(int((starts * qp).sum()), unit, int(end.max()),
                 MAX_CAPACITY_TERMS if max_terms is None else min(max_terms, MAX_CAPACITY_TERMS))
    vq, vs = flat_ranges(rj, last)
    return unit, qt, qm, qp, end, vq, vs


def _free_room(instance: PackingInstance, unit: float, S: int) -> np.ndarray:
    """Capacity left by the reservations on each (machine, slot), flattened as machine·S + slot."""
    room = np.repeat(np.asarray(instance.capacities, dtype=float)[:, None], S, axis=1)
    slots = np.rint(instance.reserve_until / unit).astype(np.int64)
    for i, d, k in zip(instance.reserve_machine.tolist(), instance.reserve_demand.tolist(), slots.tolist()):
        room[i, :k] -= d
    return np.maximum(room, 0.0).ravel()


def build_nonpreemptive_mip(instance: PackingInstance, *, upper_bound: float | None = None,
                            lower_bound: float | None = None, max_terms: int | None = None) -> pyo.ConcreteModel:
    """PRP||Σ w_j C_j (paper 003 §2 and §4) as a time-indexed MIP, exact (see the module docstring).

    s[q, t] = 1 if task t(q) starts on machine i(q) at slot t; each task starts once, within its
    job's window; on each machine and slot the demands of the tasks running sum to at most m_i;
    C_j >= (start + p) of each of its tasks; minimise Σ w_j C_j (in the instance's time unit).
    *upper_bound* (a known schedule's cost) caps each job's window; *lower_bound* (a value no
    schedule beats, e.g. LP2's optimum) becomes the row ``bound_cut``: Σ w_j C_j >= lower_bound.
    AlgorithmError past :data:`MAX_BINARIES` binaries or past *max_terms* (at most
    :data:`MAX_CAPACITY_TERMS`) terms in the capacity rows, before anything is built.
    """
    unit, qt, qm, qp, end, vq, vs = start_slots(instance, upper_bound, max_terms)
    with without_gc():
        m = pyo.ConcreteModel(name="packing MIP (non-preemptive)")
        m.s = pyo.Var(range(len(vq)), within=pyo.Binary)
        m.C = pyo.Var(range(instance.n_jobs), bounds=(0, None))
        cols = [*m.s.values(), *m.C.values()]
        nv = len(vq)
        nT = instance.n_tasks
        A = sp.csr_array((np.ones(nv), (qt[vq], np.arange(nv))), shape=(nT, len(cols)))
        add_linear_rows(m, "starts_once", A, cols, np.ones(nT), np.ones(nT))
        # A start at slot t occupies slots t .. t+p-1 of its machine.
        owner, slot = flat_ranges(vs, vs + qp[vq] - 1)
        M, S = instance.n_machines, int(end.max())
        row = qm[vq[owner]] * S + slot
        A = sp.csr_array((instance.demand[qt[vq[owner]]], (row, owner)), shape=(M * S, len(cols)))
        used = np.flatnonzero(np.diff(A.indptr))
        add_linear_rows(m, "capacity", A[used], cols, np.full(len(used), -np.inf), _free_room(instance, unit, S)[used])
        # C_j - Σ_{q of t, start} (start + p)·unit·s >= 0 for each task t of job j
        job = instance.task_job
        A = sp.csr_array((np.r_[np.ones(nT), -(vs + qp[vq]) * unit], (np.r_[np.arange(nT), qt[vq]],
                                                                    np.r_[nv + job, np.arange(nv)])),
                         shape=(nT, len(cols)))
        add_linear_rows(m, "completion", A, cols, np.zeros(nT), np.full(nT, np.inf))
        w = np.asarray(instance.weights, dtype=float)
        m.objective = pyo.Objective(expr=LinearExpression(linear_coefs=w.tolist(), linear_vars=list(m.C.values())))
        if lower_bound is not None:
            m.bound_cut = pyo.Constraint(expr=LinearExpression(linear_coefs=w.tolist(),
                                                               linear_vars=list(m.C.values())) >= float(lower_bound))
        m.layout = MIPLayout("nonpreemptive", instance, unit, qt, qm, qp, vq, vs)
    return m


def build_preemptive_mip(instance: PackingInstance, *, upper_bound: float | None = None) -> pyo.ConcreteModel:
    """PRP|pmtn|Σ w_j C_j without migration in §2's slotted model (PDP|pmtn|Σ w_j C_j when every
    task has one machine) as a time-indexed MIP, exact for that model (see the module docstring).

    y[q] = 1 if task t(q) runs on machine i(q) (one per task; no variable when the task has one
    usable machine); X[q, t] = 1 if it runs there in slot t, Σ_t X[q, t] = p·y[q]; per machine and
    slot the demands sum to at most m_i; D[j, t] = 1 if job j is complete by the end of slot t,
    allowed only if every task's processed share by then is 1, and nondecreasing in t;
    C_j = unit·(1 + Σ_t (1 - D[j, t])) and D[j, last slot] = 1.
    """
    unit = time_unit(instance)
    qt, qm, qp, rel, end = _windows(instance, unit, upper_bound)
    job = instance.task_job
    nT, nJ, M = instance.n_tasks, instance.n_jobs, instance.n_machines
    S = int(end.max())
    _check_grid(M, S, unit, S * unit)
    _check_size(int(np.maximum(end[job[qt]] - rel[job[qt]], 0).sum()) + int(end.sum()),
                "run slots of each task on each machine, and completion slots of each job", unit, S)
    vq, vs = flat_ranges(rel[job[qt]], end[job[qt]] - 1)
    many = np.bincount(qt, minlength=nT)[qt] > 1
    yq = np.flatnonzero(many)
    dj, ds = flat_ranges(np.zeros(nJ, dtype=np.int64), end - 1)
    with without_gc():
        m = pyo.ConcreteModel(name="packing MIP (preemptive, no migration)")
        m.X = pyo.Var(range(len(vq)), within=pyo.Binary)
        m.y = pyo.Var(range(len(yq)), within=pyo.Binary)
        m.D = pyo.Var(range(len(dj)), within=pyo.Binary)
        for k in np.flatnonzero(ds == end[dj] - 1).tolist():
            m.D[k].fix(1)
        cols = [*m.X.values(), *m.y.values(), *m.D.values()]
        nX, ny = len(vq), len(yq)
        y_of = np.full(len(qt), -1)
        y_of[yq] = nX + np.arange(ny)
        # one machine per task
        A = sp.csr_array((np.ones(ny), (qt[yq], y_of[yq])), shape=(nT, len(cols)))
        multi = np.flatnonzero(np.diff(A.indptr))
        add_linear_rows(m, "one_machine", A[multi], cols, np.ones(len(multi)), np.ones(len(multi)))
        # Σ_t X[q, t] - p·y[q] = 0, or = p when the pair is the task's only one
        nq = len(qt)
        rows = np.r_[vq, yq]
        A = sp.csr_array((np.r_[np.ones(nX), -qp[yq].astype(float)], (rows, np.r_[np.arange(nX), y_of[yq]])),
                         shape=(nq, len(cols)))
        rhs = np.where(many, 0.0, qp.astype(float))
        add_linear_rows(m, "processing", A, cols, rhs, rhs)
        A = sp.csr_array((instance.demand[qt[vq]], (qm[vq] * S + vs, np.arange(nX))), shape=(M * S, len(cols)))
        used = np.flatnonzero(np.diff(A.indptr))
        add_linear_rows(m, "capacity", A[used], cols, np.full(len(used), -np.inf), _free_room(instance, unit, S)[used])
        # D[j, t] <= Σ_{q of task} Σ_{t' <= t} X[q, t'] / p_q for each task of j and slot t
        d_index = np.full((nJ, S), -1)
        d_index[dj, ds] = np.arange(len(dj))
        tk, tt = flat_ranges(np.zeros(nT, dtype=np.int64), end[job] - 1)
        row_of = np.full((nT, S), -1)
        row_of[tk, tt] = np.arange(len(tk))
        owner, upto = flat_ranges(vs, end[job[qt[vq]]] - 1)
        xr = row_of[qt[vq[owner]], upto]
        A = sp.csr_array((np.r_[np.ones(len(tk)), -1.0 / qp[vq[owner]]],
                         (np.r_[np.arange(len(tk)), xr], np.r_[nX + ny + d_index[job[tk], tt], owner])),
                         shape=(len(tk), len(cols)))
        add_linear_rows(m, "done_by", A, cols, np.full(len(tk), -np.inf), np.zeros(len(tk)))
        # D nondecreasing: implied at an optimum, but it prunes branch and bound (about 1.5x here)
        k = np.flatnonzero(ds < end[dj] - 1)
        A = sp.csr_array((np.r_[np.ones(len(k)), -np.ones(len(k))], (np.r_[np.arange(len(k)), np.arange(len(k))],
                         np.r_[nX + ny + k, nX + ny + k + 1])), shape=(len(k), len(cols)))
        add_linear_rows(m, "stays_done", A, cols, np.full(len(k), -np.inf), np.zeros(len(k)))
        w = np.asarray(instance.weights, dtype=float)
        m.objective = pyo.Objective(expr=LinearExpression(
            constant=float(unit * (w * (1 + end)).sum()), linear_coefs=(-unit * w[dj]).tolist(),
            linear_vars=list(m.D.values())))
        m.layout = MIPLayout("preemptive", instance, unit, qt, qm, qp, vq, vs)
    return m


def packing_mip_schedule(model: pyo.ConcreteModel) -> Schedule:
    """The schedule of a solved packing MIP: pieces (job, task, machine, start, end, demand), one per
    task for the non-preemptive MIP, one per run of consecutive slots for the preemptive one."""
    lay: MIPLayout = model.layout
    if lay.kind == "nonpreemptive":
        on = np.fromiter((v.value or 0.0 for v in model.s.values()), float) > 0.5
        q, s = lay.var_pair[on], lay.var_slot[on]
        rows = list(zip(lay.pair_task[q], lay.pair_machine[q], s * lay.unit, (s + lay.pair_slots[q]) * lay.unit))
    else:
        on = np.fromiter((v.value or 0.0 for v in model.X.values()), float) > 0.5
        q, s = lay.var_pair[on], lay.var_slot[on]
        order = np.lexsort((s, q))
        q, s = q[order], s[order]
        brk = np.r_[True, (q[1:] != q[:-1]) | (s[1:] != s[:-1] + 1)]
        first = np.flatnonzero(brk)
        last = np.r_[first[1:], len(q)] - 1
        rows = list(zip(lay.pair_task[q[first]], lay.pair_machine[q[first]], s[first] * lay.unit,
                        (s[last] + 1) * lay.unit))
    return _schedule(model, rows)


def _schedule(model: pyo.ConcreteModel, rows) -> Schedule:
    inst = model.layout.instance
    arr = np.array(rows, dtype=float).reshape(-1, 4)
    g = arr[:, 0].astype(np.int64)
    job = inst.task_job[g]
    return Schedule(job, g - inst.job_offset[job], arr[:, 1].astype(np.int64), arr[:, 2], arr[:, 3], inst.demand[g],
                    promises=frozenset({"non_preemptive", "no_migration"} if model.layout.kind == "nonpreemptive"
                                       else {"no_migration"}), meta={"algorithm": "mip"})


def packing_mip_start(model: pyo.ConcreteModel, schedule: Schedule) -> bool:
    """Set a non-preemptive packing MIP's variables to a feasible non-preemptive *schedule* (one
    piece per task), for ``solve(..., warm_start=True)``: s[q, t] = 1 for each task's machine and
    start slot, C_j its job's last end. Returns False, setting nothing, for the preemptive model or
    a schedule the model cannot express (a start off the time grid, outside the task's window, on
    a pair the model does not have, or not one piece per task)."""
    lay: MIPLayout = model.layout
    inst = lay.instance
    if lay.kind != "nonpreemptive" or len(schedule) != inst.n_tasks:
        return False
    g = inst.job_offset[schedule.job] + schedule.task
    if sorted(g.tolist()) != list(range(inst.n_tasks)):
        return False
    slot = np.rint(schedule.start / lay.unit)
    if not np.allclose(slot * lay.unit, schedule.start, rtol=1e-12, atol=1e-9 * lay.unit):
        return False
    index = {(int(t), int(i), int(s)): k for k, (t, i, s) in
             enumerate(zip(lay.pair_task[lay.var_pair].tolist(), lay.pair_machine[lay.var_pair].tolist(),
                           lay.var_slot.tolist()))}
    chosen = [index.get((int(t), int(i), int(s))) for t, i, s in zip(g, schedule.machine, slot)]
    if any(k is None for k in chosen):
        return False
    on = np.zeros(len(lay.var_pair), dtype=bool)
    on[chosen] = True
    for k, var in enumerate(model.s.values()):
        var.value = float(on[k])
    ends = (slot + lay.pair_slots[lay.var_pair[chosen]]) * lay.unit
    C = np.zeros(inst.n_jobs)
    np.maximum.at(C, inst.task_job[g], ends)
    for j, var in enumerate(model.C.values()):
        var.value = float(C[j])
    return True
