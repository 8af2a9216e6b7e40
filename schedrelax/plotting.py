"""The Gantt chart of any schedule (:meth:`Schedule.plot <schedrelax.schedules.Schedule.plot>`,
:meth:`Result.plot <schedrelax.result.Result.plot>`); matplotlib is imported when one is drawn."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import schedrelax
from schedrelax._markers import MAP_TASK, POOLED
from schedrelax.instances import (
    Instance,
    MalleableInstance,
    MapReduceInstance,
    PackingInstance,
    RelatedInstance,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def _peak(schedule: schedrelax.schedules.Schedule, rows: np.ndarray, n_rows: int) -> np.ndarray:
    """Each row's largest total rate at any moment (at least 1): the capacity a row is drawn at
    when no instance gives it."""
    peak = np.ones(n_rows)
    for r in range(n_rows):
        idx = np.flatnonzero(rows == r)
        if not len(idx):
            continue
        times = np.r_[schedule.start[idx], schedule.end[idx]]
        change = np.r_[schedule.rate[idx], -schedule.rate[idx]]
        order = np.lexsort((change, times))  # at a tie the ends (negative) come first
        peak[r] = max(1.0, float(np.max(np.cumsum(change[order]))))
    return peak


def _rows(instance: Instance | None, schedule: schedrelax.schedules.Schedule) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Row of each piece, the row labels, and each row's capacity (the height a full row means).
    Without an *instance*: one row per machine id of the schedule (one row for pooled pieces),
    each as tall as its own peak."""
    if instance is None:
        pooled = schedule.machine == POOLED
        n = int(schedule.machine.max()) + 1 if len(schedule) and not pooled.all() else 0
        rows = np.where(pooled, n, schedule.machine)
        labels = [f"machine {i}" for i in range(n)] + (["pool"] if pooled.any() else [])
        return rows, labels, _peak(schedule, rows, len(labels))
    if isinstance(instance, (PackingInstance, RelatedInstance)):
        n = instance.n_machines
        cap = instance.capacities if isinstance(instance, PackingInstance) else np.ones(n)
        return schedule.machine.copy(), [f"machine {i}" for i in range(n)], np.asarray(cap, dtype=float)
    units = instance.processors if isinstance(instance, MalleableInstance) else instance.machines
    word = "processors" if isinstance(instance, MalleableInstance) else "machines"
    if (schedule.machine == POOLED).all():
        return np.zeros(len(schedule), dtype=np.int64), [f"{units} {word}"], np.array([float(units)])
    # Named units: one row each; pooled pieces (if mixed) go to an extra row.
    rows = np.where(schedule.machine == POOLED, units, schedule.machine)
    labels = [f"{word[:-1]} {i}" for i in range(units)] + [f"pool ({units} {word})"]
    return rows, labels, np.r_[np.ones(units), float(units)]


def gantt(instance: Instance | None, schedule: schedrelax.schedules.Schedule, ax: Axes | None = None, title: str | None = None,
          legend: bool | None = None) -> Axes:
    """Draw *schedule* as a Gantt chart on *ax* (a new figure if None) and return the axes.

    One row per machine (packing, related, named processors) or one row for a pool of
    interchangeable processors (malleable, MapReduce); without the *instance*, one row per machine
    id in the schedule, each as tall as its busiest moment. Within a row the pieces running at each
    moment are stacked, each as tall as its share of the row's capacity, coloured by job; MapReduce
    Map work is hatched. Time runs along x.
    """
    import matplotlib.pyplot as plt
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle

    if ax is None:
        _, ax = plt.subplots(figsize=(10, 1.0 + 0.5 * max(2, _n_rows(instance, schedule))))
    rows, labels, cap = _rows(instance, schedule)
    colour_of = plt.get_cmap("tab20")
    n_jobs = instance.n_jobs if instance is not None else len(np.unique(schedule.job))
    patches, colours, hatched = [], [], []
    for r in range(len(labels)):  # each row's band is its full capacity
        ax.axhspan(r - 0.45, r + 0.45, color="0.95", zorder=0)
    for r in np.unique(rows):
        idx = np.flatnonzero(rows == r)
        times = np.unique(np.r_[schedule.start[idx], schedule.end[idx]])
        # Stack the pieces active in each elementary interval, in job order, so colours line up.
        order = idx[np.lexsort((schedule.task[idx], schedule.job[idx]))]
        for t0, t1 in zip(times[:-1], times[1:]):
            active = order[(schedule.start[order] <= t0) & (schedule.end[order] >= t1)]
            y = float(r)
            for p in active:
                h = schedule.rate[p] / cap[r] * 0.9
                patches.append(Rectangle((t0, y - 0.45), t1 - t0, h))
                colours.append(colour_of(int(schedule.job[p]) % 20))
                hatched.append(isinstance(instance, MapReduceInstance) and schedule.task[p] == MAP_TASK)
                y += h
    coll = PatchCollection(patches, facecolors=colours, edgecolors="none")
    ax.add_collection(coll)
    for rect, colour, h in zip(patches, colours, hatched):
        if h:
            ax.add_patch(Rectangle(rect.get_xy(), rect.get_width(), rect.get_height(), fill=False, hatch="//",
                                   edgecolor="white", linewidth=0))
    end = float(schedule.end.max()) if len(schedule) else 1.0
    ax.set_xlim(0, end * 1.02)
    ax.set_ylim(-0.6, len(labels) - 0.4)
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel("time")
    family = f"{instance.family} " if instance is not None else ""
    ax.set_title(title or f"{family}schedule: {n_jobs} jobs")
    if legend is None:
        legend = n_jobs <= 20
    if legend:
        from matplotlib.patches import Patch

        jobs = np.unique(schedule.job)
        ax.legend(handles=[Patch(color=colour_of(int(j) % 20), label=f"job {j}") for j in jobs],
                  loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small", frameon=False)
    return ax


def _n_rows(instance: Instance | None, schedule: schedrelax.schedules.Schedule) -> int:
    return len(_rows(instance, schedule)[1])


def save_gantt(instance: Instance, schedule: schedrelax.schedules.Schedule, path: str, title: str | None = None) -> str:
    """Write the Gantt chart of *schedule* to *path* (PNG, SVG or PDF by its suffix)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    ax = gantt(instance, schedule, title=title)
    fig = ax.figure
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
