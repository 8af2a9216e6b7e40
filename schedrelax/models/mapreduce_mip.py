"""Exact time-indexed MIPs of paper 001 §III, eq. (1) (preemptive) and eq. (2) (non-preemptive),
for tiny MapReduce instances, and the reader of a solution into a Schedule.

Slots are 0, 1, ...; job i may work in slots a_i ≤ t < end_i (its *window*, see
:func:`mip_windows`). Variables:

* ``mp[i, t]`` integer in [0, min(M_i, N)]: machines on job i's Map tasks in slot t;
* ``red[g, t]`` binary, for a Reduce task g with R_g > 1: preemptive, the task runs (on one
  machine) in slot t; non-preemptive, it starts in slot t and runs t..t+R_g−1;
* ``ru[i, t]`` integer: how many of job i's unit Reduce tasks run in slot t (they are
  interchangeable and never preempted, so a count stands for them all);
* ``z[i, t]`` binary: job i's Map is finished before slot t (only jobs with Map and Reduce);
* ``u[i, t]`` binary: job i is in the system in slot t (the indicator S_{i,t} of §III).

Constraints: all Map and Reduce work done; Σ machines ≤ N per slot; Reduce only where z = 1
(M_i z[i, t] ≤ Map done before t); u non-increasing in t and 1 while any Map unit or any Reduce
task is unfinished. The objective Σ u[i, t] is then exactly Σ_i (f_i^(r) − a_i + 1).

A Reduce task runs on at most one machine per slot, as in the core model. The paper's eq. (1)
lets a job's Reduce workload use any number of machines: that is this model on
:func:`~schedrelax.schedulers.mapreduce_sim.unit_reduce_tasks` of the instance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo
from pyomo.core.util import quicksum

from schedrelax.errors import AlgorithmError
from schedrelax.instances import MapReduceInstance
from schedrelax.schedules import MAP_TASK, POOLED, Schedule


def job_flow_lower_bounds(instance: MapReduceInstance) -> np.ndarray:
    """Per job, a flow time no schedule beats (paper 001 §III): Map takes ceil(M_i / N) slots, Reduce
    starts in a later slot and takes at least max(largest task, ceil(R_i / N)) slots."""
    N = instance.machines
    red = np.zeros(instance.n_jobs, dtype=np.int64)
    if len(instance.reduce_work):
        np.maximum.at(red, instance.reduce_job, instance.reduce_work)
    red = np.maximum(red, -(-instance.reduce_total // N))
    return -(-instance.map_work // N) + red


def mip_windows(instance: MapReduceInstance, *, upper_bound: float | None = None,
                horizon: int | None = None) -> tuple[np.ndarray, bool]:
    """Time windows of the paper 001 §III MIPs: per job the end (exclusive) of the slots the MIP
    lets it use, and whether those windows provably hold an optimal schedule.

    * Always safe: ``a_max + W`` (W = all work). An optimal schedule has no slot without any work
      between the last arrival and its last completion (moving everything after such a slot one
      slot earlier keeps it feasible — arrivals passed, order and contiguity kept — and lowers
      the flow time), so it ends by a_max + W.
    * With *upper_bound*, the flow time of some feasible schedule: every optimal schedule has
      F_i ≤ upper_bound − Σ_{j≠i} lb_j (lb from :func:`job_flow_lower_bounds`), so job i ends by
      a_i + upper_bound − Σ_{j≠i} lb_j.
    * *horizon* caps every window at that slot; then the windows are safe only if the cap cuts
      none of the above.
    """
    a = instance.arrival
    safe = np.full(instance.n_jobs, int(a.max() + instance.map_work.sum() + instance.reduce_total.sum()))
    if upper_bound is not None:
        lb = job_flow_lower_bounds(instance)
        safe = np.minimum(safe, a + int(np.floor(upper_bound + 1e-9)) - (lb.sum() - lb))
    if horizon is None:
        return safe, True
    end = np.minimum(safe, int(horizon))
    return end, bool((end >= safe).all())


@dataclass(frozen=True, eq=False)
class MIPLayout:
    """What the reader needs to turn the model's values into a schedule."""

    instance: MapReduceInstance
    preemptive: bool
    end: np.ndarray
    safe: bool


MAX_VARIABLES = 200_000
"""Most variables :func:`build_mapreduce_mip` builds. Measured on a 2-core machine: 10^6 variables
(103 jobs over 500 slots) took 272 s to build and more memory than the machine had to solve; the
builder refuses past this limit before creating any, with an AlgorithmError."""


def build_mapreduce_mip(instance: MapReduceInstance, *, preemptive: bool = True, upper_bound: float | None = None,
                        horizon: int | None = None, lower_bound: float | None = None) -> pyo.ConcreteModel:
    """The time-indexed MIP of paper 001 eq. (1) (``preemptive``) or eq. (2) — see the module
    docstring; windows from :func:`mip_windows`. The layout is kept as ``model.layout``.
    ``lower_bound``, a value the optimal flow time is known not to be below (the SRPT bound),
    becomes the row Σ u >= ⌈lower_bound − 1e-6⌉ (flow times are whole slots; the 1e-6 keeps a
    bound computed a hair above a whole optimum from cutting it off). Nothing checks it: a wrong
    bound cuts off the optimum.

    Raises ValueError if a window is shorter than the job's flow-time lower bound (the horizon is
    too short for any schedule).
    """
    N = instance.machines
    end, safe = mip_windows(instance, upper_bound=upper_bound, horizon=horizon)
    a = instance.arrival.tolist()
    M = instance.map_work.tolist()
    R = instance.reduce_total.tolist()
    work = instance.reduce_work.tolist()
    off = instance.reduce_offset.tolist()
    lb = job_flow_lower_bounds(instance)
    short = np.flatnonzero(end - instance.arrival < lb)
    if len(short):
        i = int(short[0])
        raise ValueError(f"mapreduce MIP: job {i} needs at least {lb[i]} slots from its arrival {a[i]}, but its "
                         f"window ends at slot {end[i]} (horizon too short)")
    end = end.tolist()
    n = instance.n_jobs
    # The first slot a job's Reduce may use: after ceil(M/N) Map slots.
    first_red = [a[i] + (-(-M[i] // N) if M[i] else 0) for i in range(n)]

    # Unit Reduce tasks of a job are interchangeable and cannot be preempted: one integer count per
    # slot stands for all of them (any counts summing to k_i are realised by k_i unit tasks).
    units = [[g for g in range(off[i], off[i + 1]) if work[g] == 1] for i in range(n)]
    tasks = [(i, g) for i in range(n) for g in range(off[i], off[i + 1]) if work[g] > 1]
    mp_idx = [(i, t) for i in range(n) if M[i] for t in range(a[i], end[i] - (1 if R[i] else 0))]
    ru_idx = [(i, t) for i in range(n) if units[i] for t in range(first_red[i], end[i])]
    z_idx = [(i, t) for i in range(n) if M[i] and R[i] for t in range(first_red[i], end[i])]
    u_idx = [(i, t) for i in range(n) for t in range(a[i], end[i])]
    if preemptive:
        red_idx = [(g, t) for i, g in tasks for t in range(first_red[i], end[i])]
    else:
        red_idx = [(g, t) for i, g in tasks for t in range(first_red[i], end[i] - work[g] + 1)]

    count = len(mp_idx) + len(ru_idx) + len(red_idx) + len(z_idx) + len(u_idx)
    if count > MAX_VARIABLES:
        raise AlgorithmError(
            f"mapreduce MIP: the time-indexed model of these {n} jobs would have {count:,} variables (windows up to "
            f"slot {max(end)}), more than the limit of {MAX_VARIABLES:,}; the exact MIP is for small instances "
            f"(a model this size takes minutes to build and gigabytes to solve)")
    m = pyo.ConcreteModel(name=f"mapreduce MIP eq. ({1 if preemptive else 2})")
    m.mp = pyo.Var(mp_idx, within=pyo.NonNegativeIntegers, bounds=lambda _, i, t: (0, min(M[i], N)))
    m.ru = pyo.Var(ru_idx, within=pyo.NonNegativeIntegers, bounds=lambda _, i, t: (0, min(len(units[i]), N)))
    m.red = pyo.Var(red_idx, within=pyo.Binary)  # x[g, t] (preemptive) or s[g, t] (start)
    m.z = pyo.Var(z_idx, within=pyo.Binary)
    m.u = pyo.Var(u_idx, within=pyo.Binary)
    m.layout = MIPLayout(instance, preemptive, np.array(end), safe)

    map_slots: dict[int, list[int]] = {i: [] for i in range(n)}
    for i, t in mp_idx:
        map_slots[i].append(t)
    unit_slots: dict[int, list[int]] = {i: [] for i in range(n)}
    for i, t in ru_idx:
        unit_slots[i].append(t)
    red_slots: dict[int, list[int]] = {g: [] for _, g in tasks}
    for g, t in red_idx:
        red_slots[g].append(t)

    def before(var, key: int, slots: list[int], t: int):
        return quicksum(var[key, s] for s in slots if s < t)

    m.cons = pyo.ConstraintList()
    add = m.cons.add
    for i in range(n):
        if M[i]:
            add(quicksum(m.mp[i, t] for t in map_slots[i]) == M[i])
        if units[i]:
            add(quicksum(m.ru[i, t] for t in unit_slots[i]) == len(units[i]))
    for _, g in tasks:
        add(quicksum(m.red[g, t] for t in red_slots[g]) == (work[g] if preemptive else 1))

    # Machines per slot: Map, unit Reduce tasks, and the other Reduce tasks running (started
    # within the last R_g slots when non-preemptive).
    use: dict[int, list] = {}
    for i, t in mp_idx:
        use.setdefault(t, []).append(m.mp[i, t])
    for i, t in ru_idx:
        use.setdefault(t, []).append(m.ru[i, t])
    for g, t in red_idx:
        for s in (range(t, t + 1) if preemptive else range(t, t + work[g])):
            use.setdefault(s, []).append(m.red[g, t])
    for t, terms in use.items():
        add(quicksum(terms) <= N)

    # Map before Reduce.
    for i, t in z_idx:
        add(M[i] * m.z[i, t] <= before(m.mp, i, map_slots[i], t))
        if t + 1 < end[i]:
            add(m.z[i, t] <= m.z[i, t + 1])
        add(m.u[i, t] + m.z[i, t] >= 1)  # Map unfinished before t: Reduce is left, the job stays
        if units[i]:
            add(m.ru[i, t] <= len(units[i]) * m.z[i, t])
    for i, g in tasks:
        if M[i]:
            for t in red_slots[g]:
                add(m.red[g, t] <= m.z[i, t])

    # Identical Reduce tasks of a job are interchangeable: relabelling them so that the sum of the
    # slots each uses (or its start) is non-decreasing keeps any schedule feasible and its flow
    # time; requiring that order removes the symmetric copies of every solution.
    same: dict[tuple[int, int], list[int]] = {}
    for i, g in tasks:
        same.setdefault((i, work[g]), []).append(g)
    for group in same.values():
        for g, h in zip(group, group[1:]):
            add(quicksum(t * m.red[g, t] for t in red_slots[g]) <= quicksum(t * m.red[h, t] for t in red_slots[h]))

    # In the system while anything is unfinished; the objective counts those slots. No job leaves
    # before its flow-time lower bound: those slots are fixed (it tightens the LP relaxation).
    for i, t in u_idx:
        if t < a[i] + lb[i]:
            m.u[i, t].fix(1)
        if t + 1 < end[i]:
            add(m.u[i, t + 1] <= m.u[i, t])
        if M[i]:
            add(M[i] * m.u[i, t] + before(m.mp, i, map_slots[i], t) >= M[i])
        if units[i] and t >= first_red[i]:
            add(len(units[i]) * m.u[i, t] + before(m.ru, i, unit_slots[i], t) >= len(units[i]))
    # Work in a slot keeps the job in the system in that slot: implied for whole solutions by the
    # rows above, but much stronger in the LP relaxation.
    for i, t in mp_idx:
        add(m.mp[i, t] <= min(M[i], N) * m.u[i, t])
    for i, t in ru_idx:
        add(m.ru[i, t] <= min(len(units[i]), N) * m.u[i, t])
    for i, g in tasks:
        slots = red_slots[g]
        for t in range(first_red[i], end[i]):
            if preemptive:
                if t in slots:
                    add(m.red[g, t] <= m.u[i, t])
                add(work[g] * m.u[i, t] + before(m.red, g, slots, t) >= work[g])
            else:  # unfinished at the start of t iff started at t − R_g + 1 or later
                add(m.u[i, t] >= quicksum(m.red[g, s] for s in slots if s > t - work[g]))
    m.flow = pyo.Objective(expr=quicksum(m.u[k] for k in u_idx), sense=pyo.minimize)
    if lower_bound is not None:
        m.relaxation_bound = pyo.Constraint(expr=m.flow.expr >= math.ceil(lower_bound - 1e-6))
    return m


def mip_size(model: pyo.ConcreteModel) -> dict[str, int]:
    """Variables, binaries, general integers and constraints of a built model."""
    binaries = len(model.red) + len(model.z) + len(model.u)
    integers = len(model.mp) + len(model.ru)
    return {"variables": binaries + integers, "binaries": binaries, "integers": integers,
            "constraints": len(model.cons)}


def mapreduce_mip_schedule(model: pyo.ConcreteModel) -> Schedule:
    """The schedule (paper 001 §III) in a solved :func:`build_mapreduce_mip` model, values rounded to
    whole numbers; consecutive slots at the same rate form one piece. Promises ``non_preemptive``
    for eq. (2)."""
    lay: MIPLayout = model.layout
    inst = lay.instance
    off = inst.reduce_offset
    rows: list[tuple[int, int, int, int, int, int]] = []
    unit_rows: dict[int, list[int]] = {}

    def runs(job: int, task: int, slot_rate: dict[int, int]) -> None:
        start = prev = rate = None
        for t in sorted(slot_rate):
            r = slot_rate[t]
            if start is not None and (t != prev + 1 or r != rate):
                rows.append((job, task, POOLED, start, prev + 1, rate))
                start = None
            if start is None:
                start, rate = t, r
            prev = t
        if start is not None:
            rows.append((job, task, POOLED, start, prev + 1, rate))

    for (i, t), var in model.ru.items():
        k = int(round(pyo.value(var)))
        if k:
            unit_rows.setdefault(i, []).extend([t] * k)
    for i, slots in unit_rows.items():
        tasks = [g for g in range(int(off[i]), int(off[i + 1])) if inst.reduce_work[g] == 1]
        for g, t in zip(tasks, slots):  # the model runs each unit task once: as many slots as tasks
            rows.append((i, g - int(off[i]), POOLED, t, t + 1, 1))
    maps: dict[int, dict[int, int]] = {}
    for (i, t), var in model.mp.items():
        v = int(round(pyo.value(var)))
        if v:
            maps.setdefault(i, {})[t] = v
    for i, slots in maps.items():
        runs(i, MAP_TASK, slots)
    red: dict[int, dict[int, int]] = {}
    for (g, t), var in model.red.items():
        if round(pyo.value(var)):
            red.setdefault(g, {})[t] = 1
    for g, slots in red.items():
        i = int(inst.reduce_job[g])
        if lay.preemptive:
            runs(i, g - int(off[i]), slots)
        else:
            (t,) = slots  # one start per task (the model says so)
            rows.append((i, g - int(off[i]), POOLED, t, t + int(inst.reduce_work[g]), 1))
    return Schedule.from_pieces(rows, promises=() if lay.preemptive else {"non_preemptive"},
                                meta={"algorithm": "mip", "preemptive": lay.preemptive})


def mapreduce_mip_start(model: pyo.ConcreteModel, schedule: Schedule) -> bool:
    """Set a :func:`build_mapreduce_mip` model's variables to a verified *schedule* of its instance
    (paper 001 §III slots: whole starts, ends and rates), for ``solve(..., warm_start=True)``:
    Map machines and unit Reduce counts per slot, each other Reduce task's slots (eq. (1)) or
    start slot (eq. (2)), ``z`` from the Map's last slot and ``u`` 1 until the job's last slot.
    Identical Reduce tasks of a job are relabelled into the order the model's symmetry rows ask
    for (it keeps the schedule's flow time). All values are whole numbers, so the start is exact.

    Returns False, setting nothing, when the model cannot express the schedule: work in a slot
    outside a job's window, a preemptive schedule for eq. (2), or a Reduce task on more than one
    machine in a slot."""
    lay: MIPLayout = model.layout
    inst = lay.instance
    if not lay.preemptive and "non_preemptive" not in schedule.promises:
        return False
    n, off, work = inst.n_jobs, inst.reduce_offset, inst.reduce_work
    values: dict[tuple[str, tuple[int, int]], int] = {}
    task_slots: dict[int, list[int]] = {}
    map_end = np.zeros(n, dtype=np.int64)
    job_end = inst.arrival.astype(np.int64).copy()
    for i, task, s, e, r in zip(schedule.job.tolist(), schedule.task.tolist(), schedule.start.tolist(),
                                schedule.end.tolist(), schedule.rate.tolist()):
        s, e, r = round(s), round(e), round(r)
        job_end[i] = max(job_end[i], e)
        if task == MAP_TASK:
            map_end[i] = max(map_end[i], e)
            for t in range(s, e):
                values[("mp", (i, t))] = values.get(("mp", (i, t)), 0) + r
            continue
        if r != 1:
            return False
        g = int(off[i]) + task
        if work[g] == 1:
            for t in range(s, e):
                values[("ru", (i, t))] = values.get(("ru", (i, t)), 0) + 1
        else:
            task_slots.setdefault(g, []).extend(range(s, e))
    same: dict[tuple[int, int], list[int]] = {}
    for g in range(len(work)):
        if work[g] > 1:
            same.setdefault((int(inst.reduce_job[g]), int(work[g])), []).append(g)
    for group in same.values():
        # The model orders identical tasks by the sum of their slots (eq. (1)) or their start (eq. (2)).
        key = (lambda slots: sum(slots)) if lay.preemptive else (lambda slots: min(slots))
        for g, slots in zip(group, sorted((sorted(task_slots.get(h, [])) for h in group), key=key)):
            if lay.preemptive:
                for t in slots:
                    values[("red", (g, t))] = 1
            else:
                values[("red", (g, min(slots)))] = 1
    for i in range(n):
        for t in range(int(inst.arrival[i]), int(lay.end[i])):
            values[("u", (i, t))] = int(t < job_end[i])
    for (i, t) in model.z:
        values[("z", (i, t))] = int(map_end[i] <= t)
    out = []
    for (name, index), v in values.items():
        var = getattr(model, name)
        if index not in var:
            if v:
                return False
            continue
        out.append((var[index], v))
    if any(var.fixed and var.value != v for var, v in out):
        return False
    for var in (*model.mp.values(), *model.ru.values(), *model.red.values(), *model.z.values(), *model.u.values()):
        if not var.fixed:
            var.value = 0
    for var, v in out:
        if not var.fixed:
            var.value = v
    return True
