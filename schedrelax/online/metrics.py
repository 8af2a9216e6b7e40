"""What the online experiments report: delay (completion − arrival), flow time and stretch, and
how long the queue is.

Flow time F_j = C_j − r_j (completion − arrival; "delay" in paper 003 §7.2). The weighted flow
time Σ w_j F_j differs from the total weighted completion time Σ w_j C_j by the constant Σ w_j r_j,
which dominates the latter when arrivals are spread out: the two ratios between policies differ.

Queue: ``mean_jobs_in_system`` is the time average, over [first arrival, last completion], of
the number of jobs arrived and not completed, Σ_j F_j / (that span) (Little's law, exact for a
finished schedule); ``mean_jobs_waiting`` the same for jobs arrived and not yet started (a job
starts with its first piece), Σ_j (S_j − r_j) / span; ``max_jobs_in_system`` the largest count.

Stretch is a job's delay over the time it would take alone on the empty cluster from its arrival
(a lower bound on that time, so every stretch is >= 1 up to round-off):

* packing: its longest task on that task's fastest usable machine;
* related: max(largest task on the fastest machine, p_j/μ_j);
* malleable (per flow, paper 000 §4.2 "based on the actual amount of work in each flow"):
  max(critical path at maximum processors, work / P), the bound of
  :func:`schedrelax.schedulers.chains.completion_lower_bounds`.

Weights: packing and related use w_j; a malleable flow uses its cost's weight where the cost is
a (weighted) completion time or a stretch, and 1 otherwise.
"""

from __future__ import annotations

import numpy as np

from schedrelax.instances import (
    Instance,
    MalleableInstance,
    PackingInstance,
    RelatedInstance,
)
from schedrelax.instances.costs import CompletionCost, StretchCost
from schedrelax.schedulers.chains import completion_lower_bounds, flow_chains
from schedrelax.schedulers.list_packing import fastest_machine
from schedrelax.schedules import Schedule, completion_times


def alone_time(instance: Instance) -> np.ndarray:
    """Per job (per flow for malleable instances): the lower bound on its time alone (module docstring)."""
    if isinstance(instance, PackingInstance):
        _, ptime = fastest_machine(instance)
        return np.maximum.reduceat(ptime, instance.job_offset[:-1])
    if isinstance(instance, RelatedInstance):
        biggest = np.maximum.reduceat(instance.task_size, instance.job_offset[:-1])
        return np.maximum(biggest / np.max(instance.speeds), instance.p / instance.mu_j)
    if isinstance(instance, MalleableInstance):
        return completion_lower_bounds(flow_chains(instance)) - instance.flow_release
    raise TypeError(f"no stretch rule for the {instance.family} family")


def _arrival_and_weight(instance: Instance) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(instance, MalleableInstance):
        w = [fl.cost.weight if isinstance(fl.cost, (CompletionCost, StretchCost)) else 1.0 for fl in instance.flows]
        return instance.flow_release, np.array(w, dtype=float)
    return np.asarray(instance.release, dtype=float), np.asarray(instance.weights, dtype=float)


def online_metrics(instance: Instance, schedule: Schedule) -> dict[str, float]:
    """Delay, flow time, stretch and queue lengths of a schedule (per flow for malleable
    instances; module docstring)."""
    C = completion_times(instance, schedule)
    n = len(C)
    start = np.full(n, np.inf)
    np.minimum.at(start, schedule.job, schedule.start)
    if isinstance(instance, MalleableInstance):
        C = np.maximum.reduceat(C, instance.flow_offset[:-1])
        start = np.minimum.reduceat(start, instance.flow_offset[:-1])
    r, w = _arrival_and_weight(instance)
    delay = C - r
    stretch = delay / alone_time(instance)
    wsum = float(w.sum())
    span = float(C.max() - r.min())
    # Jobs in system over time: +1 at each arrival, -1 at each completion (a completion at the
    # same time as an arrival counted first).
    times = np.r_[r, C]
    steps = np.r_[np.ones(len(r)), -np.ones(len(C))]
    order = np.lexsort((steps, times))
    in_system = np.cumsum(steps[order])
    return {
        "weighted_flow_time": float(w @ delay),
        "weighted_completion": float(w @ C),
        "mean_jobs_in_system": float(delay.sum()) / span if span > 0 else float("nan"),
        "mean_jobs_waiting": float(np.maximum(start - r, 0.0).sum()) / span if span > 0 else float("nan"),
        "max_jobs_in_system": float(in_system.max()),
        "weighted_average_delay": float(w @ delay) / wsum if wsum > 0 else float("nan"),
        "average_delay": float(delay.mean()),
        "total_flow_time": float(delay.sum()),
        "max_flow_time": float(delay.max()),
        "average_completion": float(C.mean()),
        "makespan": float(C.max()),
        "average_stretch": float(stretch.mean()),
        "max_stretch": float(stretch.max()),
    }
