"""How much an instance makes its jobs compete, and a knob to make a trace compete more.

:func:`offered_load` is the work over the capacity × the time it arrives in: Σ work / (capacity ×
T), with T the span of the release times, or for an instance released all at once (or within
one task's length) the longest task's time — the time a perfectly parallel schedule would need.
Below 1 the jobs could, by area, all run side by side and every reasonable policy ties; a paper's
comparison is only meaningful well above it.

* packing: a task's work is its demand × its shortest processing time, capacity the machines'
  total;
* related: a task's work is its data size, capacity the total speed;
* malleable: a flow's work over P processors.

:func:`fold_machines` puts a packing trace on fewer machines (machine i's tasks go to machine
i mod k, the first k machines' capacities kept): the knob ``convert google --load RHO`` turns to
reach an offered load, as ``convert swim --load`` chooses the number of machines. Where even one
machine is not enough, :func:`scale_releases` compresses the arrival times instead.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from schedrelax.errors import InstanceError


def _work_capacity_release(instance) -> tuple[float, float, np.ndarray, float]:
    """Total work, total capacity, release times and longest task time of an instance."""
    fam = instance.family
    if fam == "packing":
        fastest = fastest_times(instance)
        work = float(np.sum(np.asarray(instance.demand, dtype=float) * fastest))
        return work, float(np.sum(instance.capacities)), np.asarray(instance.release, dtype=float), float(fastest.max())
    if fam == "related":
        sizes = np.asarray(instance.task_size, dtype=float)
        speed = float(np.sum(instance.speeds))
        return float(sizes.sum()), speed, np.asarray(instance.release, dtype=float), float(sizes.max() / np.max(
            instance.speeds))
    if fam == "malleable":
        work = np.asarray(instance.flow_work(), dtype=float)
        P = float(instance.processors)
        return float(work.sum()), P, np.asarray(instance.flow_release, dtype=float), float((work / P).max())
    raise InstanceError(f"no offered load for the {fam} family")


def fastest_times(instance) -> np.ndarray:
    """Per packing task its shortest processing time: over its explicit machines and, where its
    elsewhere rule covers a machine, the elsewhere time (the placement is never written out)."""
    fastest = np.full(instance.n_tasks, np.inf)
    if len(instance.explicit_task):
        np.minimum.at(fastest, instance.explicit_task, instance.explicit_time)
    covered = instance.elsewhere_count > 0
    fastest[covered] = np.minimum(fastest[covered], instance.elsewhere_time[covered])
    return fastest


def offered_load(instance) -> float:
    """Σ work / (capacity × T), T the release span or, when that is shorter, the longest task's
    time (see the module docstring)."""
    work, capacity, release, longest = _work_capacity_release(instance)
    return _per_capacity_time(work, capacity, max(_span(release), longest))


def _span(release) -> float:
    return float(release.max() - release.min()) if len(release) else 0.0


def _per_capacity_time(work: float, capacity: float, horizon: float) -> float:
    return work / (capacity * horizon) if horizon > 0 else math.nan


def arrival_load(instance) -> float:
    """Σ work / (capacity × the release span): the rate at which work arrives over the rate the
    cluster serves it, with no floor (nan when every job arrives at once).

    :func:`offered_load` floors the span at the longest task's time, so it never exceeds what
    the instance keeps busy over the time it must last; this one says how fast work comes while
    it comes. They differ when the longest task outlasts the arrivals: a SynchPack stream of 200
    jobs at generator load 2 arrives in 44 time units with an 88-unit task among them, offered
    load 0.94 and arrival load 1.99 (the queue it builds is the second's)."""
    work, capacity, release, _ = _work_capacity_release(instance)
    return _per_capacity_time(work, capacity, _span(release))


@dataclass(frozen=True)
class Contention:
    """What a converted trace offers: its offered load, the busiest machine's share of the work,
    how many tasks could run side by side on a machine (capacity over the median demand), and
    whether every capacity is the 1.0 default (a trace part without machine events)."""

    offered_load: float
    busiest_machine_share: float
    tasks_side_by_side: float
    default_capacities: bool

    def __str__(self) -> str:
        text = (f"offered load {self.offered_load:.3g} (work / (capacity x max(release span, longest task))); "
                f"busiest machine holds {self.busiest_machine_share:.1%} of the work; about "
                f"{self.tasks_side_by_side:.3g} median tasks fit side by side on a machine")
        if self.default_capacities:
            text += ("; every machine has capacity 1.0, the trace's normalised largest machine (no machine events "
                     "given)")
        return text


def contention(instance, *, default_capacities: bool = False) -> Contention:
    """The :class:`Contention` of a packing instance (pinned work per machine: each task counted on
    its fastest machine)."""
    if instance.family != "packing":
        raise InstanceError(f"contention is measured on packing instances, got {instance.family}")
    fastest = fastest_times(instance)
    work = np.asarray(instance.demand, dtype=float) * fastest
    # each task's work on its first explicit machine of shortest time (an elsewhere-only task is
    # spread over its machines and counts on none)
    best = np.full(instance.n_tasks, -1)
    hit = instance.explicit_time == fastest[instance.explicit_task]
    best[instance.explicit_task[hit][::-1]] = instance.explicit_machine[hit][::-1]
    pinned = best >= 0
    per_machine = np.bincount(best[pinned], weights=work[pinned], minlength=instance.n_machines)
    demand = float(np.median(instance.demand))
    return Contention(offered_load(instance), float(per_machine.max() / work.sum()),
                      float(np.median(instance.capacities)) / demand if demand > 0 else math.inf,
                      default_capacities)


def fold_machines(instance, machines: int):
    """A packing instance on its first *machines* machines: every explicit placement on machine i
    moves to i mod *machines* (two that land on one machine keep the shorter time), an elsewhere
    rule stays one (every other kept machine that fits, at its time); capacities of the machines
    kept. A task that fits none of them is an error."""
    if instance.family != "packing":
        raise InstanceError(f"fold_machines takes a packing instance, got {instance.family}")
    if isinstance(machines, bool) or not isinstance(machines, int | np.integer) or not 1 <= machines <= instance.n_machines:
        raise InstanceError(f"machines must be a whole number in [1, {instance.n_machines}], got {machines!r}")
    from schedrelax.instances.packing import PackingInstance, PackingJob, PackingTask

    inst = instance
    caps = np.asarray(inst.capacities, dtype=float)[:machines]
    jobs = []
    for j, job in enumerate(inst.jobs):
        tasks = []
        for k, task in enumerate(job.tasks):
            t = int(inst.job_offset[j]) + k
            lo, hi = inst.explicit_offset[t], inst.explicit_offset[t + 1]
            best: dict[int, float] = {}
            for m, p in zip(inst.explicit_machine[lo:hi], inst.explicit_time[lo:hi]):
                m = int(m) % machines
                best[m] = min(best.get(m, math.inf), float(p))
            demand = float(inst.demand[t])
            ok = {m: p for m, p in best.items() if demand <= caps[m]}
            elsewhere = float(inst.elsewhere_time[t]) if inst.elsewhere_count[t] > 0 else None
            if elsewhere is not None and not any(demand <= c for i, c in enumerate(caps) if i not in ok):
                elsewhere = None
            if not ok and elsewhere is None:
                raise InstanceError(f"job {j}, task {k}: demand {demand:g} fits none of the {machines} machines kept")
            order = sorted(ok)
            tasks.append(PackingTask(demand=demand, placement=order, processing_time=[ok[m] for m in order],
                                     elsewhere_time=elsewhere))
        jobs.append(PackingJob(tasks=tuple(tasks), weight=job.weight, release=job.release))
    return PackingInstance(capacities=caps, jobs=tuple(jobs), name=instance.name)


def scale_releases(instance, factor: float):
    """*instance* (packing or related) with every release time multiplied by *factor* > 0."""
    if not (isinstance(factor, int | float) and not isinstance(factor, bool) and factor > 0 and math.isfinite(factor)):
        raise InstanceError(f"the release scale must be a positive number, got {factor!r}")
    return dataclasses.replace(instance, jobs=tuple(dataclasses.replace(j, release=float(j.release) * factor)
                                                    for j in instance.jobs))


def with_load(instance, load: float):
    """A packing instance at offered load about *load*: on the fewest machines of its own (folded,
    :func:`fold_machines`) whose load does not exceed *load*; if even one machine is below it, its
    releases compressed as well. Returns the instance and one line saying what was done."""
    if not (isinstance(load, int | float) and not isinstance(load, bool) and load > 0 and math.isfinite(load)):
        raise InstanceError(f"--load must be a positive number, got {load!r}")
    now = offered_load(instance)
    if now >= load:
        return instance, f"offered load {now:.3g} already at least {load:g}: machines and times kept"
    lo, hi = 1, instance.n_machines
    while lo < hi:  # the most machines whose folded load still reaches the target
        mid = (lo + hi + 1) // 2
        if offered_load(fold_machines(instance, mid)) >= load:
            lo = mid
        else:
            hi = mid - 1
    folded = fold_machines(instance, lo)
    note = f"machines folded {instance.n_machines} -> {lo} (machine i's tasks on i mod {lo})"
    work, capacity, release, longest = _work_capacity_release(folded)
    span = float(np.ptp(release)) if len(release) else 0.0
    if offered_load(folded) < load and span > longest:
        # T = max(span, longest): the span can shrink to what the target needs, not below the longest task
        factor = max(work / (capacity * load), longest) / span
        folded = scale_releases(folded, factor)
        note += f", releases multiplied by {factor:.3g}"
    got = offered_load(folded)
    if got < load * (1 - 1e-9):
        note += "; the target is out of reach (one machine, and no release span longer than the longest task)"
    return folded, f"{note}: offered load {now:.3g} -> {got:.3g} (target {load:g})"
