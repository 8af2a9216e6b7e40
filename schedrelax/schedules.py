"""One schedule representation for every family, its independent verifier, and its evaluation.

A :class:`Schedule` is a table of pieces ``(job, task, machine, start, end, rate)``: over
``[start, end)`` the piece runs at ``rate`` — processors for malleable jobs, resource for packed
tasks, machines for MapReduce work, 1 for a related-machine task. What ``task`` and ``machine``
mean per family:

============  =====================================  ==========================================
family        task                                   machine
============  =====================================  ==========================================
malleable     0 (a malleable job has no tasks)       ``POOLED`` (-1), or a processor 0..P-1
                                                     (then rate 1)
mapreduce     ``MAP_TASK`` (-1) for Map work, else   ``POOLED``, or a machine 0..N-1 (rate 1)
              the Reduce task's index k in its job
packing       the task's index k in its job          the machine 0..M-1 (must be in placement)
related       the task's index in its job            the machine 0..m-1
============  =====================================  ==========================================

:func:`verify` re-checks every constraint of the family from the pieces alone, with no help from
the code that made them, and raises :class:`InfeasibleScheduleError` naming the first violation.
The tolerance ``TOL`` (1e-6) is relative to the quantity compared, never scaled by where on the
time axis it sits, so a schedule shifted to t = 1e6 is judged exactly as at t = 0, and the same
instance written in another unit of time is judged the same:

* *time stamps* (start >= release or ready time, precedence and Map-before-Reduce end <= start,
  start >= 0): ``TOL`` of the instance's time scale (its shortest duration, :func:`time_scale`;
  one slot for MapReduce) plus ``ULPS`` (4) units in the last place of the larger stamp
  (``4 · np.spacing(|t|)``, 4.7e-10 at t = 1e6), which no arithmetic avoids
  (:func:`time_tolerance`); the loader refuses instances whose shortest duration is too short
  for those ulps (:data:`~schedrelax.instances._checks.RESOLUTION`);
* *overlaps*: a level (pieces, processors, machines, resource) above its limit counts only over
  a stretch of time longer than that time tolerance; adjacent over-limit segments of one key
  are merged first, so cutting an overlap into short segments does not hide it;
* *levels* (concurrent use, a piece's rate against 1 or a task's demand, processor minima):
  ``TOL`` relative to the limit or capacity they are compared with; whole numbers (processor
  and machine counts, slot boundaries) are whole up to ``TOL`` plus ulps, absolutely;
* *work* (a job's size, a Reduce task's work, a packing task's fraction done, a related task's
  duration p/v): ``TOL`` relative to the work needed, plus for each piece its rate times the
  ulps of its time stamps.

A schedule may carry *promises* (``"non_preemptive"``, ``"no_migration"``, ``"respects_minima"``)
that verify then enforces too. FLEX's per-job minima (paper 002) are a fairness guarantee of the
allocator, not a physical limit: paper 002's own FIFO baseline runs with minima 0. So minima are
checked for schedules that promise ``respects_minima`` (the minima-aware allocators make that
promise); maxima, capacity and everything physical are checked always.

A malformed schedule (a column that is not a list of ints and floats, an id that is not a whole
number, an unknown promise; from a file also a non-finite time, a job below 0 or a task or
machine below -1) raises :class:`ScheduleError` when it is built or loaded, before verify sees it.

Schedule files carry ``"schema_version"`` (:data:`SCHEDULE_SCHEMA_VERSION`); a file of another
version is a :class:`ScheduleError`, and a file without the field is version 1 (the format
schedrelax 0.1.0 wrote before the field existed). ``schedrelax.schemas.schema("schedule")`` is the
file format as a JSON Schema.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from schedrelax import _display
from schedrelax._files import read_json
from schedrelax._markers import MAP_TASK, POOLED
from schedrelax.errors import InfeasibleScheduleError, ScheduleError
from schedrelax.instances import (
    Instance,
    MalleableInstance,
    MapReduceInstance,
    PackingInstance,
    RelatedInstance,
)
from schedrelax.instances._checks import MAX_WHOLE
from schedrelax.instances.costs import aggregate

TOL = 1e-6
"""The verifier's single tolerance (see the module docstring)."""

PROMISES = frozenset({"non_preemptive", "no_migration", "respects_minima"})
"""What an algorithm may promise about its schedule, beyond the family's constraints."""

_COLUMNS = ("job", "task", "machine", "start", "end", "rate")

SCHEDULE_SCHEMA_VERSION = 1
"""The schedule file format this version of schedrelax reads and writes. A file without
``schema_version`` is read as version 1: schedrelax 0.1.0 wrote these same keys (the six columns,
``promises`` and ``meta``) before the field existed."""


@dataclass(frozen=True, eq=False)
class Schedule:
    """Pieces ``(job, task, machine, start, end, rate)`` as parallel read-only numpy arrays.

    Build one with :meth:`from_pieces` (rows) or the constructor (columns). ``promises`` are
    properties the producing algorithm guarantees (checked by :func:`verify`); ``meta`` holds
    free-form, JSON-serialisable notes (e.g. the algorithm's name). A column that is not a flat
    list of ints and floats, an id that is not a whole number of magnitude at most 2^53, unknown
    promises or a ``meta`` that is not a mapping raise :class:`ScheduleError`.
    """

    job: Any
    task: Any
    machine: Any
    start: Any
    end: Any
    rate: Any
    promises: frozenset[str] = frozenset()
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        cols = {name: _as_column(name, getattr(self, name)) for name in _COLUMNS}
        n = len(cols["job"])
        for name, arr in cols.items():
            if len(arr) != n:
                raise ScheduleError(f"schedule: column {name} has {len(arr)} entries, job has {n}")
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        if isinstance(self.promises, (str, bytes)) or not isinstance(self.promises, Iterable):
            raise ScheduleError(f"schedule: promises must be a list of names, got {self.promises!r:.80}")
        for p in self.promises:  # before frozenset(), which fails on an unhashable entry
            if not isinstance(p, str):
                raise ScheduleError(f"schedule: promises must be names (strings), got {p!r:.80}")
        promises = frozenset(self.promises)
        unknown = promises - PROMISES
        if unknown:
            raise ScheduleError(f"schedule: unknown promise {sorted(unknown)[0]!r} "
                                f"(known: {', '.join(sorted(PROMISES))})")
        object.__setattr__(self, "promises", promises)
        if not isinstance(self.meta, Mapping):
            raise ScheduleError(f"schedule: meta must be a mapping (a JSON object), got {self.meta!r:.80}")

    @classmethod
    def from_pieces(cls, pieces: Iterable[tuple], promises: Iterable[str] = (), meta: Mapping | None = None) -> Schedule:
        """A schedule from rows ``(job, task, machine, start, end, rate)``."""
        rows = list(pieces)
        cols = list(zip(*rows)) if rows else [()] * 6
        return cls(*cols, promises=frozenset(promises), meta=dict(meta or {}))

    @classmethod
    def concat(cls, parts: Iterable[Schedule], promises: Iterable[str] | None = None,
               meta: Mapping | None = None) -> Schedule:
        """The pieces of several schedules in one; promises kept only where all parts make them."""
        parts = list(parts)
        if not parts:
            return cls.from_pieces([], promises or (), meta)
        cols = [np.concatenate([getattr(p, c) for p in parts]) for c in _COLUMNS]
        if promises is None:
            promises = frozenset.intersection(*(p.promises for p in parts))
        return cls(*cols, promises=frozenset(promises), meta=dict(meta or {}))

    def __len__(self) -> int:
        return len(self.job)

    def _summary(self) -> list[tuple[str, str]]:
        n = len(self)
        rows = [("pieces", str(n)), ("jobs", str(len(np.unique(self.job))))]
        if n:
            rows.append(("time span", f"{_display.number(float(self.start.min()))} to "
                                      f"{_display.number(float(self.end.max()))}"))
        rows.append(("promises", ", ".join(sorted(self.promises)) or "none"))
        return rows

    def __repr__(self) -> str:
        return f"Schedule({', '.join(f'{k}: {v}' for k, v in self._summary())})"

    def _repr_html_(self) -> str:
        return _display.html_table("Schedule", self._summary())

    def plot(self, instance: Instance | None = None, *, ax=None, title: str | None = None, legend: bool | None = None):
        """The Gantt chart of the schedule on *ax* (a new figure if None); returns the axes.

        With the *instance*, rows are its machines (or its pool of processors) at their capacities;
        without it, one row per machine id in the schedule (see :func:`schedrelax.plotting.gantt`).
        """
        from schedrelax.plotting import gantt

        return gantt(instance, self, ax=ax, title=title, legend=legend)

    def to_frame(self):
        """The pieces as a pandas DataFrame, one row a piece."""
        import pandas as pd

        return pd.DataFrame({c: getattr(self, c) for c in _COLUMNS})

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: ``schema_version`` first, then the columns, the promises and the meta."""
        out: dict[str, Any] = {"schema_version": SCHEDULE_SCHEMA_VERSION}
        out.update((c, getattr(self, c).tolist()) for c in _COLUMNS)
        out["promises"] = sorted(self.promises)
        out["meta"] = dict(self.meta)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Schedule:
        """Inverse of :meth:`to_dict`, for data read from a file: raises :class:`ScheduleError`
        for anything :meth:`to_dict` cannot have written.

        Beyond the constructor's rules, a column must be a list, ``promises`` a list of names,
        ``meta`` an object, every start, end and rate finite, every job >= 0 and every task and
        machine >= -1 (the ``MAP_TASK`` / ``POOLED`` marker). Missing columns and unknown keys are
        errors too. ``schema_version``, if present, must be :data:`SCHEDULE_SCHEMA_VERSION`;
        without it the data is read as version 1 (see there).
        """
        if not isinstance(data, Mapping):
            raise ScheduleError(f"schedule: expected a JSON object, got {type(data).__name__}")
        # The version first: a newer format's new fields must not read as unknown fields.
        version = data.get("schema_version", 1)  # no field: version 1 (see SCHEDULE_SCHEMA_VERSION)
        if type(version) is not int or version != SCHEDULE_SCHEMA_VERSION:  # not bool, not 1.0
            newer = " (a newer format: upgrade schedrelax to read it)" if (
                type(version) is int and version > SCHEDULE_SCHEMA_VERSION) else ""
            raise ScheduleError(f"schedule: unsupported schema_version {version!r:.80}{newer}; this schedrelax reads "
                                f"schedule files of version {SCHEDULE_SCHEMA_VERSION}")
        unknown = set(data) - set(_COLUMNS) - {"schema_version", "promises", "meta"}
        if unknown:
            raise ScheduleError(f"schedule: unknown field {sorted(unknown, key=str)[0]!r}")
        missing = [c for c in _COLUMNS if c not in data]
        if missing:
            raise ScheduleError(f"schedule: missing column {missing[0]!r}")
        for c in _COLUMNS:
            if not isinstance(data[c], list):
                raise ScheduleError(f"schedule: column {c} must be a list, got {data[c]!r:.80}")
        promises = data.get("promises", [])
        if not isinstance(promises, list):
            raise ScheduleError(f"schedule: promises must be a list of names, got {promises!r:.80}")
        meta = data.get("meta", {})
        if not isinstance(meta, Mapping):
            raise ScheduleError(f"schedule: meta must be a JSON object, got {meta!r:.80}")
        s = cls(*(data[c] for c in _COLUMNS), promises=tuple(promises), meta=dict(meta))
        for c in ("start", "end", "rate"):
            _first_bad(~np.isfinite(getattr(s, c)), lambda i, c=c: f"{c} must be finite, got {data[c][i]!r}")
        _first_bad(s.job < 0, lambda i: f"job must be >= 0, got {data['job'][i]!r}")
        for c, marker in (("task", "MAP_TASK"), ("machine", "POOLED")):
            _first_bad(getattr(s, c) < -1, lambda i, c=c, marker=marker:
                       f"{c} must be >= -1 ({marker}), got {data[c][i]!r}")
        return s

    def save(self, path: str | Path) -> Path:
        """Write the schedule as JSON (the format of :data:`SCHEDULE_SCHEMA_VERSION`) and return the path."""
        path = Path(path)
        path.write_text(json.dumps(self.to_dict()) + "\n")
        return path

    @classmethod
    def load(cls, path: str | Path) -> Schedule:
        """Read a schedule written by :meth:`save` (a file without ``schema_version`` is version 1);
        any unreadable or malformed file, or one of another version, raises :class:`ScheduleError`
        whose message starts with the path."""
        path = Path(path)
        data = read_json(path, "schedule", ScheduleError, max_depth=3)
        try:
            return cls.from_dict(data)
        except ScheduleError as exc:
            raise ScheduleError(f"{path}: {exc}") from None


def _first_bad(mask: np.ndarray, message) -> None:
    """ScheduleError ``"schedule: piece i: <message(i)>"`` for the first piece *mask* marks."""
    if mask.any():
        i = int(np.flatnonzero(mask)[0])
        raise ScheduleError(f"schedule: piece {i}: {message(i)}")


def _is_number_type(t: type) -> bool:
    return issubclass(t, (int, float, np.integer, np.floating)) and not issubclass(t, (bool, np.bool_))


def _as_column(name: str, col: Any) -> np.ndarray:
    """Column *name* as a new 1-D array (int64 for job, task and machine, float otherwise).

    Only ints and floats are numbers here: strings such as ``"4.0"``, booleans, None and nested
    lists are errors, not converted. Ids must be whole and at most 2^53 in magnitude (exact as
    floats, so they cannot wrap around in int64).
    """
    if isinstance(col, np.ndarray) and col.dtype.kind in "iuf":
        if col.ndim != 1:
            raise ScheduleError(f"schedule: column {name} must be a flat list of numbers, got shape {col.shape}")
        values = col
    else:
        if isinstance(col, (str, bytes, Mapping)) or not isinstance(col, Iterable):
            raise ScheduleError(f"schedule: column {name} must be a list of numbers, got {col!r:.80}")
        values = col.tolist() if isinstance(col, np.ndarray) else list(col)
        bad_types = {t for t in set(map(type, values)) if not _is_number_type(t)}
        if bad_types:
            i = next(k for k, v in enumerate(values) if type(v) in bad_types)
            raise ScheduleError(f"schedule: piece {i}: {name} must be a number, got {values[i]!r:.80}")
    try:
        arr = np.array(values, dtype=float)
    except OverflowError:
        raise ScheduleError(f"schedule: column {name} holds a number too large for a float") from None
    if not isinstance(values, np.ndarray):  # a whole number a float cannot hold: refused, not rounded
        big = next((k for k, v in enumerate(values) if isinstance(v, int) and abs(v) > 2**53), None)
        if big is not None:
            raise ScheduleError(f"schedule: piece {big}: {name} must be at most 2^53 in magnitude, got {values[big]!r} "
                                f"(a float cannot hold it exactly)")
    if name in ("job", "task", "machine"):
        def shown(i: int):
            return values[i].item() if isinstance(values, np.ndarray) else values[i]

        _first_bad(~np.isfinite(arr) | (arr != np.round(arr)),
                   lambda i: f"{name} must be a whole number, got {shown(i)!r}")
        _first_bad(np.abs(arr) > MAX_WHOLE, lambda i: f"{name} must be at most 2^53 in magnitude, got {shown(i)!r}")
        return arr.astype(np.int64)
    return arr


# --------------------------------------------------------------------------------------------
# Tolerant comparisons and the sweep that measures concurrent use
# --------------------------------------------------------------------------------------------

ULPS = 4
"""Floating-point units in the last place of a time stamp added to every time tolerance."""


def stamp_round_off(rate, start, end) -> np.ndarray:
    """The work ``rate · (end − start)`` cannot resolve when each time stamp carries :data:`ULPS`
    units in its last place: what the verifier allows a piece's work to be off by beyond TOL, and
    what a scheduler may count as done (work left below it would need a piece shorter than the
    clock's spacing). Overflow gives inf (callers decide what that means)."""
    with np.errstate(over="ignore"):
        return rate * ULPS * np.spacing(np.maximum(np.abs(start), np.abs(end)))


def time_scale(instance: Instance) -> float:
    """The instance's own unit of time: its shortest duration (malleable: size / max_processors;
    packing: processing time; related: size / the fastest speed; MapReduce: one slot).

    Every time tolerance is a fraction of it (:func:`time_tolerance`), so a verdict does not
    depend on the unit the instance is written in; the loader refuses instances whose shortest
    duration is below :data:`~schedrelax.instances._checks.RESOLUTION` of their horizon, where
    the time stamps' round-off would exceed that fraction."""
    if isinstance(instance, MalleableInstance):
        return float(np.min(instance.size / instance.max_procs))
    if isinstance(instance, PackingInstance):
        return min(float(np.min(instance.explicit_time, initial=np.inf)), float(np.min(instance.elsewhere_time)))
    if isinstance(instance, RelatedInstance):
        return float(np.min(instance.task_size)) / float(np.max(instance.speeds))
    return 1.0


def time_tolerance(scale: float, *stamps, rel: float = TOL) -> np.ndarray:
    """How far time stamps near *stamps* may disagree and still count as the same time: *rel* of
    the instance's time *scale* (:func:`time_scale`) plus :data:`ULPS` units in the last place of
    the largest stamp. Never relative to the time itself: a schedule shifted to t = 1e6 is held to
    the same tolerance as at t = 0; only the ulps (4 · 1.2e-10 at 1e6) grow, since no arithmetic
    can do better. Schedulers use it with their own *rel* to decide that two events coincide."""
    mag = np.abs(np.asarray(stamps[0], dtype=float))
    for t in stamps[1:]:
        mag = np.maximum(mag, np.abs(np.asarray(t, dtype=float)))
    # jobs without pieces have spans of +-inf; their times compare as they are
    return rel * scale + ULPS * np.spacing(np.where(np.isfinite(mag), mag, 0.0))


def unit_factor(size: float) -> float:
    """The power of 2 that brings *size* (a time scale, a cost) to within a factor √2 of 1:
    2^-round(log2 size); 1 for 0, inf or NaN. Multiplying by it is exact, so the exact engines
    rescale their instances by it to solve in the instance's own units."""
    return 2.0 ** -round(math.log2(size)) if 0 < size < math.inf else 1.0


def tie_order(times, scale: float, rel: float = 1e-9) -> np.ndarray:
    """The indices of *times* in non-decreasing order, where a time within
    :func:`time_tolerance` (*rel* of the instance's time *scale*, plus the stamps' round-off) of
    the one before it ties with it, and ties go by index. Times that are equal in exact arithmetic
    come back through a change of unit or origin an ulp apart, in either order; a rule that reads
    their order (a list schedule's priority) must not see that."""
    return np.lexsort((np.arange(len(times)), tie_classes(times, scale, rel)))


def tie_classes(times, scale: float, rel: float = 1e-9) -> np.ndarray:
    """Each time's class among *times*: 0 for the earliest, one more at each step beyond
    :func:`time_tolerance` from the time before it (see :func:`tie_order`); sort keys made of
    times go through it before a lexsort."""
    t = np.asarray(times, dtype=float)
    order = np.argsort(t, kind="stable")
    tol = time_tolerance(scale, t[order], rel=rel)
    tie_class = np.empty(len(t), dtype=np.int64)
    tie_class[order] = np.concatenate(([0], np.cumsum(np.diff(t[order]) > tol[1:]))) if len(t) else []
    return tie_class


def time_slack(scale: float, t: float, rel: float = 1e-9) -> float:
    """:func:`time_tolerance` for one time stamp *t*, as a Python float (for schedulers' event
    loops): *rel* of the instance's time *scale* plus :data:`ULPS` ulps of *t*. Two event times
    within it of each other are the same event; the default *rel* is the schedulers' (1e-9, a
    thousandth of the verifier's TOL, so what they call simultaneous the verifier accepts)."""
    return rel * scale + ULPS * math.ulp(t)


def _time_slack(tol: float, *stamps) -> np.ndarray:
    """The verifier's time tolerance: *tol* (TOL · the instance's time scale) plus ulps."""
    return time_tolerance(tol, *stamps, rel=1.0)


def _before(a, b, tol: float) -> np.ndarray:
    """Time a is earlier than time b beyond the time tolerance *tol* (plus ulps)."""
    a, b = np.asarray(a), np.asarray(b)
    return a < b - _time_slack(tol, a, b)


def _exceeds(level, limit) -> np.ndarray:
    """A level (processors, machines, resource) above its limit beyond TOL of the limit."""
    limit = np.asarray(limit)
    return np.asarray(level) > limit + TOL * np.abs(limit)


def _fail(message: str) -> None:
    raise InfeasibleScheduleError(message)


def _fmt(v: float) -> str:
    return f"{float(v):.6g}"


def _fmt_t(t: float) -> str:
    """A time stamp (or a number that must be whole): twelve digits show TOL at t = 1e6."""
    return f"{float(t):.12g}"


@dataclass(frozen=True)
class _Levels:
    """A step function per key: on [t0, t1) the key's pieces sum to ``level``; the segments of a
    key are consecutive in time."""

    key: np.ndarray
    t0: np.ndarray
    t1: np.ndarray
    level: np.ndarray


def _levels(key: np.ndarray, start: np.ndarray, end: np.ndarray, rate: np.ndarray) -> _Levels:
    """The total rate of each key's pieces over time, as segments between events.

    At equal times ends come before starts, so that pieces exactly back to back do not overlap;
    pieces back to back up to rounding leave a segment no longer than the time tolerance, which
    :func:`_long_runs` ignores.
    """
    times = np.concatenate([start, end])
    delta = np.concatenate([rate, -rate])
    keys = np.concatenate([key, key])
    order = np.lexsort((delta, times, keys))
    delta, keys, times = delta[order], keys[order], times[order]
    level = np.cumsum(delta)
    first = np.r_[True, keys[1:] != keys[:-1]]
    base = np.maximum.accumulate(np.where(first, np.arange(len(keys)), 0))
    before = np.where(base > 0, level[base - 1], 0.0) if len(keys) else level
    level = level - before  # each key's running total starts from zero
    same_next = np.r_[keys[1:] == keys[:-1], False]
    t1 = np.r_[times[1:], times[-1:]] if len(times) else times
    keep = same_next & (t1 > times)
    return _Levels(keys[keep], times[keep], t1[keep], level[keep])


def _long_runs(lv: _Levels, mask: np.ndarray, worst, tol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The stretches of time where *mask* holds, longer than the time tolerance.

    Consecutive masked segments of one key merge into one run first, so a violation cannot hide
    by being cut into pieces each shorter than the tolerance. Returns, per long run in key and
    time order: its first segment, its start, its end, and the *worst* (``np.maximum`` or
    ``np.minimum``) level over it.
    """
    joined = np.zeros(len(mask), dtype=bool)
    joined[1:] = mask[:-1] & (lv.key[1:] == lv.key[:-1]) & (lv.t0[1:] == lv.t1[:-1])
    head = mask & ~joined
    heads = np.flatnonzero(head)
    run = (np.cumsum(head) - 1)[mask]
    t_end = lv.t1[heads].copy()
    np.maximum.at(t_end, run, lv.t1[mask])
    level = lv.level[heads].copy()
    worst.at(level, run, lv.level[mask])
    t_start = lv.t0[heads]
    long = t_end - t_start > _time_slack(tol, t_start, t_end)
    return heads[long], t_start[long], t_end[long], level[long]


def _check_peak(lv: _Levels, limit: np.ndarray | float, what, unit: str, tol: float) -> None:
    lim = np.broadcast_to(limit, lv.key.shape) if np.ndim(limit) == 0 else np.asarray(limit)[lv.key]
    heads, t0, _, peak = _long_runs(lv, _exceeds(lv.level, lim), np.maximum, tol)
    if len(heads):
        i = heads[0]
        _fail(f"{what(int(lv.key[i]))}: {_fmt(peak[0])} {unit} in use at time {_fmt_t(t0[0])}, "
              f"more than the {_fmt(lim[i])} available")


def _check_common(s: Schedule, n_jobs: int, family: str, tol: float) -> None:
    """Checks every family shares."""
    for name in ("start", "end", "rate"):
        col = getattr(s, name)
        bad = ~np.isfinite(col)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            _fail(f"piece {i} (job {s.job[i]}): {name} must be finite, got {col[i]}")
    bad = (s.job < 0) | (s.job >= n_jobs)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"piece {i}: job {s.job[i]} does not exist (the {family} instance has jobs 0..{n_jobs - 1})")
    bad = s.end <= s.start
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"piece {i} (job {s.job[i]}): end {_fmt_t(s.end[i])} must be after start {_fmt_t(s.start[i])}")
    bad = s.rate <= 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"piece {i} (job {s.job[i]}): rate must be > 0, got {_fmt(s.rate[i])}")
    bad = s.start < -tol
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"piece {i} (job {s.job[i]}): start must be >= 0, got {_fmt_t(s.start[i])}")


def _check_release(s: Schedule, release: np.ndarray, label: str, tol: float) -> None:
    r = release[s.job]
    bad = _before(s.start, r, tol)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"{label} {s.job[i]}: starts at {_fmt_t(s.start[i])}, before its release time {_fmt_t(r[i])}")


def _job_span(s: Schedule, n_jobs: int) -> tuple[np.ndarray, np.ndarray]:
    """First start and last end of each job (+inf / -inf for jobs without pieces)."""
    first = np.full(n_jobs, np.inf)
    last = np.full(n_jobs, -np.inf)
    np.minimum.at(first, s.job, s.start)
    np.maximum.at(last, s.job, s.end)
    return first, last


def _check_precedence(first: np.ndarray, last: np.ndarray, edges: np.ndarray, name, tol: float) -> None:
    if not len(edges):
        return
    a, b = edges[:, 0], edges[:, 1]
    bad = _before(first[b], last[a], tol)
    if bad.any():
        e = int(np.flatnonzero(bad)[0])
        _fail(f"precedence {name(a[e])} -> {name(b[e])}: {name(b[e])} starts at {_fmt_t(first[b[e]])} "
              f"before {name(a[e])} completes at {_fmt_t(last[a[e]])}")


def _check_work(done: np.ndarray, need: np.ndarray, round_off: np.ndarray, name, unit: str = "work") -> None:
    """Work done agrees with work needed to TOL of the need, plus the *round_off* the pieces'
    time stamps can carry (see :func:`_round_off`)."""
    bad = np.abs(done - need) > TOL * need + round_off
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"{name(i)}: {unit} done is {_fmt(done[i])}, must be {_fmt(need[i])}")


def _round_off(s: Schedule, weight: np.ndarray) -> np.ndarray:
    """Per piece, what a duration ``end - start`` times *weight* may be off by when its time
    stamps carry a few ulps of error each."""
    slack = stamp_round_off(weight, s.start, s.end)
    huge = ~np.isfinite(slack)
    if huge.any():  # an infinite slack would accept any work: refuse to judge instead
        i = int(np.flatnonzero(huge)[0])
        _fail(f"piece {i} (job {s.job[i]}): [{_fmt(s.start[i])}, {_fmt(s.end[i])}) at rate {_fmt(s.rate[i])} is "
              f"beyond what double precision can check (its work's round-off overflows)")
    return slack


def _check_whole(values: np.ndarray, s: Schedule, what: str) -> None:
    """Whole numbers up to TOL plus ulps: absolute, so 1e6 + 0.5 is not whole."""
    bad = np.abs(values - np.round(values)) > TOL + ULPS * np.spacing(np.abs(values))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"piece {i} (job {s.job[i]}): {what} must be a whole number, got {_fmt_t(values[i])}")


def _check_machine_ids(s: Schedule, n: int, word: str, pooled_ok: bool) -> None:
    low = POOLED if pooled_ok else 0
    bad = (s.machine < low) | (s.machine >= n)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        allowed = f"{POOLED} (pooled) or 0..{n - 1}" if pooled_ok else f"0..{n - 1}"
        _fail(f"piece {i} (job {s.job[i]}): {word} {s.machine[i]} does not exist (allowed: {allowed})")


def _check_identified_units(s: Schedule, n: int, word: str, tol: float) -> None:
    """Pieces on a named processor/machine run at rate 1, and a unit runs one piece at a time."""
    named = s.machine >= 0
    if not named.any():
        return
    bad = named & (np.abs(s.rate - 1.0) > TOL)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"piece {i} (job {s.job[i]}): on {word} {s.machine[i]} the rate must be 1, got {_fmt(s.rate[i])}")
    lv = _levels(s.machine[named], s.start[named], s.end[named], np.ones(int(named.sum())))
    _check_peak(lv, 1.0, lambda m: f"{word} {m}", "pieces", tol)


def _check_single_piece(key: np.ndarray, n_keys: int, name, rule: str) -> np.ndarray:
    count = np.bincount(key, minlength=n_keys)
    bad = count != 1
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"{name(i)}: runs in {count[i]} pieces, but {rule}")
    return count


# --------------------------------------------------------------------------------------------
# verify, per family
# --------------------------------------------------------------------------------------------

def verify(instance: Instance, schedule: Schedule) -> None:
    """Re-check every constraint of *instance*'s family from the pieces of *schedule*.

    Returns None when the schedule is feasible; raises :class:`InfeasibleScheduleError` naming
    the first violation otherwise. See the module docstring for the tolerance.
    """
    if not isinstance(schedule, Schedule):
        raise TypeError(f"verify: expected a Schedule, got {type(schedule).__name__}")
    checker = _VERIFIERS.get(type(instance))
    if checker is None:
        raise TypeError(f"verify: no verifier for {type(instance).__name__}")
    checker(instance, schedule)


def _verify_malleable(inst: MalleableInstance, s: Schedule) -> None:
    """Paper 000 §1.1 and 002 §3: work, processor maxima and minima, whole processors, P in
    total, flow release times, precedence inside flows."""
    n = inst.n_jobs
    tol = TOL * time_scale(inst)
    _check_common(s, n, "malleable", tol)
    name = lambda j: f"flow {inst.job_flow[j]}, job {j - inst.flow_offset[inst.job_flow[j]]}"  # noqa: E731
    bad = s.task != 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"piece {i} ({name(s.job[i])}): task must be 0 for malleable jobs, got {s.task[i]}")
    _check_machine_ids(s, inst.processors, "processor", pooled_ok=True)
    _check_whole(s.rate, s, "rate (a number of processors)")
    _check_identified_units(s, inst.processors, "processor", tol)
    _check_release(s, inst.job_release, "job", tol)
    work = np.bincount(s.job, weights=s.rate * (s.end - s.start), minlength=n)
    _check_work(work, inst.size, np.bincount(s.job, weights=_round_off(s, s.rate), minlength=n), name)
    per_job = _levels(s.job, s.start, s.end, s.rate)
    _check_peak(per_job, inst.max_procs, lambda j: f"{name(j)} (max_processors {inst.max_procs[j]})", "processors",
                tol)
    if "respects_minima" in s.promises:
        mins = inst.min_procs[per_job.key]
        heads, t0, t1, low = _long_runs(per_job, (mins > 0) & (per_job.level < mins - TOL * mins), np.minimum,
                                        tol)
        if len(heads):
            j = int(per_job.key[heads[0]])
            _fail(f"{name(j)}: runs on {_fmt(low[0])} processors over [{_fmt_t(t0[0])}, {_fmt_t(t1[0])}) between "
                  f"its start and completion, below its min_processors {inst.min_procs[j]}")
    total = _levels(np.zeros(len(s), dtype=np.int64), s.start, s.end, s.rate)
    _check_peak(total, float(inst.processors), lambda _: "all jobs", "processors", tol)
    first, last = _job_span(s, n)
    _check_precedence(first, last, inst.edges, name, tol)


def _verify_mapreduce(inst: MapReduceInstance, s: Schedule) -> None:
    """Paper 001 §III, eqs. (1)-(2): slots, arrivals, Map then Reduce, N machines per slot;
    non-preemptive Reduce tasks (eq. 2) when promised."""
    n = inst.n_jobs
    tol = TOL * time_scale(inst)
    _check_common(s, n, "mapreduce", tol)
    _check_whole(s.start, s, "start (a slot boundary)")
    _check_whole(s.end, s, "end (a slot boundary)")
    _check_whole(s.rate, s, "rate (a number of machines)")
    _check_machine_ids(s, inst.machines, "machine", pooled_ok=True)
    _check_identified_units(s, inst.machines, "machine", tol)
    n_red = np.diff(inst.reduce_offset)
    bad = (s.task < MAP_TASK) | (s.task >= n_red[s.job])
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"piece {i} (job {s.job[i]}): task {s.task[i]} does not exist (Map is {MAP_TASK}, "
              f"Reduce tasks are 0..{n_red[s.job[i]] - 1})")
    _check_release(s, inst.arrival.astype(float), "job", tol)
    is_map = s.task == MAP_TASK
    work = s.rate * (s.end - s.start)
    map_done = np.bincount(s.job[is_map], weights=work[is_map], minlength=n)
    round_off = _round_off(s, s.rate)
    _check_work(map_done, inst.map_work.astype(float),
                np.bincount(s.job[is_map], weights=round_off[is_map], minlength=n), lambda j: f"job {j}", "Map work")
    gtask = inst.reduce_offset[s.job[~is_map]] + s.task[~is_map]
    red_done = np.bincount(gtask, weights=work[~is_map], minlength=len(inst.reduce_work))
    _check_work(red_done, inst.reduce_work.astype(float),
                np.bincount(gtask, weights=round_off[~is_map], minlength=len(inst.reduce_work)),
                lambda t: f"job {inst.reduce_job[t]}, reduce task {t - inst.reduce_offset[inst.reduce_job[t]]}",
                "Reduce work")
    map_end = np.full(n, -np.inf)
    np.maximum.at(map_end, s.job[is_map], s.end[is_map])
    red_start = np.full(n, np.inf)
    np.minimum.at(red_start, s.job[~is_map], s.start[~is_map])
    bad = _before(red_start, map_end, tol)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        _fail(f"job {j}: Reduce work starts in slot {_fmt_t(red_start[j])}, but its last Map task runs in slot "
              f"{_fmt_t(map_end[j] - 1)}")
    total = _levels(np.zeros(len(s), dtype=np.int64), s.start, s.end, s.rate)
    _check_peak(total, float(inst.machines), lambda _: "all jobs", "machines", tol)
    red = ~is_map
    per_task = _levels(gtask, s.start[red], s.end[red], s.rate[red])
    _check_peak(per_task, 1.0, lambda t: f"job {inst.reduce_job[t]}, reduce task "
                f"{t - inst.reduce_offset[inst.reduce_job[t]]} (one machine at a time)", "machines", tol)
    if "non_preemptive" in s.promises:
        _check_single_piece(gtask, len(inst.reduce_work),
                            lambda t: f"job {inst.reduce_job[t]}, reduce task {t - inst.reduce_offset[inst.reduce_job[t]]}",
                            "the schedule promises non-preemptive Reduce tasks")
        bad = red & (np.abs(s.rate - 1.0) > TOL)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            _fail(f"job {s.job[i]}, reduce task {s.task[i]}: runs on {_fmt(s.rate[i])} machines at once, but the "
                  f"schedule promises non-preemptive Reduce tasks (one machine each)")


def _task_index(inst: PackingInstance | RelatedInstance, s: Schedule):
    """Global task index of each piece, and a namer ``t -> "job j, task k"``; unknown tasks fail."""
    n_tasks = np.diff(inst.job_offset)
    bad = (s.task < 0) | (s.task >= n_tasks[s.job])
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"piece {i}: job {s.job[i]} has no task {s.task[i]} (it has tasks 0..{n_tasks[s.job[i]] - 1})")

    def name(t: int) -> str:
        return f"job {inst.task_job[t]}, task {t - inst.job_offset[inst.task_job[t]]}"

    return inst.job_offset[s.job] + s.task, name


def _verify_packing(inst: PackingInstance, s: Schedule) -> None:
    """Paper 003 §2: processing, packing (capacity, reservations included), placement, one machine
    at a time per task, release times; non-preemption and no migration when promised."""
    n = inst.n_jobs
    tol = TOL * time_scale(inst)
    _check_common(s, n, "packing", tol)
    _check_machine_ids(s, inst.n_machines, "machine", pooled_ok=False)
    g, name = _task_index(inst, s)
    M = inst.n_machines
    # A piece's machine is allowed by an explicit (task, machine) pair, or else by the task's
    # elsewhere rule: any machine whose capacity holds its demand (packing.py's module docstring).
    keys = inst.explicit_task * M + inst.explicit_machine
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    want = g * M + s.machine
    pos = np.minimum(np.searchsorted(sorted_keys, want), max(len(sorted_keys) - 1, 0))
    found = (sorted_keys[pos] == want) if len(sorted_keys) else np.zeros(len(s), dtype=bool)
    ruled = ~found & np.isfinite(inst.elsewhere_time[g]) & (inst.capacities[s.machine] >= inst.demand[g])
    if not (found | ruled).all():
        i = int(np.flatnonzero(~(found | ruled))[0])
        allowed = inst.explicit_machine[inst.explicit_offset[g[i]]:inst.explicit_offset[g[i] + 1]].tolist()
        rule = (f" and every other machine of capacity >= {_fmt(inst.demand[g[i]])} (elsewhere rule)"
                if np.isfinite(inst.elsewhere_time[g[i]]) else "")
        _fail(f"{name(g[i])}: runs on machine {s.machine[i]}, outside its placement set {allowed}{rule}")
    ptime = np.where(found, inst.explicit_time[order[pos]] if len(sorted_keys) else 0.0, inst.elsewhere_time[g])
    bad = np.abs(s.rate - inst.demand[g]) > TOL * inst.capacities[s.machine]
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"{name(g[i])}: piece {i} uses {_fmt(s.rate[i])} of the resource, but the task needs exactly "
              f"{_fmt(inst.demand[g[i]])} while it runs")
    _check_release(s, inst.release, "job", tol)
    done = np.bincount(g, weights=(s.end - s.start) / ptime, minlength=inst.n_tasks)
    _check_work(done, np.ones(inst.n_tasks), np.bincount(g, weights=_round_off(s, 1 / ptime), minlength=inst.n_tasks),
                name, "fraction of the task")
    # Reserved room (instance reservations over [0, until)) counts as pieces in the capacity sweep.
    nr = len(inst.reserve_machine)
    _check_peak(_levels(np.r_[s.machine, inst.reserve_machine], np.r_[s.start, np.zeros(nr)],
                        np.r_[s.end, inst.reserve_until], np.r_[s.rate, inst.reserve_demand]),
                inst.capacities, lambda m: f"machine {m}" + (" (with its reservations)" if nr else ""), "resource", tol)
    _check_peak(_levels(g, s.start, s.end, np.ones(len(s))), 1.0, lambda t: f"{name(t)} (one machine at a time)",
                "machines", tol)
    if "non_preemptive" in s.promises:
        _check_single_piece(g, inst.n_tasks, name, "the schedule promises no preemption")
    if "no_migration" in s.promises and len(s):
        lo = np.full(inst.n_tasks, M)
        hi = np.full(inst.n_tasks, -1)
        np.minimum.at(lo, g, s.machine)
        np.maximum.at(hi, g, s.machine)
        bad = (hi >= 0) & (lo != hi)
        if bad.any():
            t = int(np.flatnonzero(bad)[0])
            _fail(f"{name(t)}: runs on machines {lo[t]} and {hi[t]}, but the schedule promises no migration")


def _verify_related(inst: RelatedInstance, s: Schedule) -> None:
    """Paper 004 §II: each task once, without preemption, on one machine for p/v, one task per
    machine at a time, release times, machine ready times, precedence between jobs."""
    n = inst.n_jobs
    tol = TOL * time_scale(inst)
    _check_common(s, n, "related", tol)
    _check_machine_ids(s, inst.n_machines, "machine", pooled_ok=False)
    g, name = _task_index(inst, s)
    _check_single_piece(g, inst.n_tasks, name, "tasks run without preemption on related machines")
    bad = np.abs(s.rate - 1.0) > TOL
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"{name(g[i])}: rate must be 1 (a machine runs one task at a time), got {_fmt(s.rate[i])}")
    need = inst.task_size[g] / inst.speeds[s.machine]
    bad = np.abs((s.end - s.start) - need) > TOL * need + _round_off(s, 1.0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"{name(g[i])}: runs for {_fmt(s.end[i] - s.start[i])} on machine {s.machine[i]}, but size "
              f"{_fmt(inst.task_size[g[i]])} at speed {_fmt(inst.speeds[s.machine[i]])} takes {_fmt(need[i])}")
    _check_release(s, inst.release, "job", tol)
    ready = inst.ready[s.machine]
    bad = _before(s.start, ready, tol)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"{name(g[i])}: starts at {_fmt_t(s.start[i])} on machine {s.machine[i]}, before the machine's ready "
              f"time {_fmt_t(ready[i])}")
    _check_peak(_levels(s.machine, s.start, s.end, np.ones(len(s))), 1.0, lambda m: f"machine {m}", "tasks", tol)
    first, last = _job_span(s, n)
    _check_precedence(first, last, inst.edges, lambda j: f"job {j}", tol)


_VERIFIERS = {
    MalleableInstance: _verify_malleable,
    MapReduceInstance: _verify_mapreduce,
    PackingInstance: _verify_packing,
    RelatedInstance: _verify_related,
}


# --------------------------------------------------------------------------------------------
# evaluate
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Evaluation:
    """Completion times and objective values of a schedule.

    ``completion`` is per job, except for the malleable family where it is per flow (the paper's
    unit of cost) and per-job times are in ``job_completion``. ``objective`` is the family's
    objective (malleable: the instance's minisum/minimax cost; mapreduce: total flow time;
    packing and related: Σ w_j C_j); ``metrics`` holds the others by name.
    """

    completion: np.ndarray
    objective: float
    metrics: dict[str, float]
    job_completion: np.ndarray | None = None

    @property
    def _unit(self) -> str:
        return "flow" if self.job_completion is not None else "job"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: the objective, the other metrics, and the completion times as lists."""
        out: dict[str, Any] = {"objective": float(self.objective),
                               "metrics": {k: float(v) for k, v in self.metrics.items()},
                               "completion": self.completion.tolist()}
        if self.job_completion is not None:
            out["job_completion"] = self.job_completion.tolist()
        return out

    def to_frame(self):
        """The completion times as a pandas DataFrame: one row a job (a flow for the malleable
        family, whose cost is per flow), indexed by ``job`` (``flow``), column ``completion``."""
        import pandas as pd

        return pd.DataFrame({"completion": self.completion},
                            index=pd.RangeIndex(len(self.completion), name=self._unit))

    def __repr__(self) -> str:
        metrics = ", ".join(f"{k}={_display.number(v)}" for k, v in self.metrics.items())
        return (f"Evaluation(objective={_display.number(self.objective)}, {len(self.completion)} "
                f"{self._unit}s{', ' + metrics if metrics else ''})")


def completion_times(instance: Instance, schedule: Schedule) -> np.ndarray:
    """Last end time of each job's pieces; a job without pieces is an error."""
    n = instance.n_jobs
    _, last = _job_span(schedule, n)
    missing = ~np.isfinite(last)
    if missing.any():
        raise InfeasibleScheduleError(f"job {int(np.flatnonzero(missing)[0])}: has no pieces in the schedule")
    return last


def objective_name(instance: Instance) -> str:
    """The family's objective in words and symbols, as :func:`evaluate`'s ``objective`` measures it."""
    if isinstance(instance, MalleableInstance):
        if instance.objective == "minimax":
            return "maximum flow cost max_j w_j(C_j)"
        return "total flow cost Σ_j w_j(C_j)"
    if isinstance(instance, MapReduceInstance):
        return "total flow time Σ_j (C_j − a_j)"
    return "total weighted completion time Σ_j w_j C_j"


def evaluate(instance: Instance, schedule: Schedule) -> Evaluation:
    """Completion times and every objective of the family (does not verify: call verify first)."""
    C = completion_times(instance, schedule)
    if isinstance(instance, MalleableInstance):
        flowC = np.maximum.reduceat(C, instance.flow_offset[:-1])
        costs = np.array([fl.cost(c) for fl, c in zip(instance.flows, flowC)], dtype=float)
        rel = instance.flow_release
        metrics = {
            "cost_sum": float(costs.sum()),
            "cost_max": float(costs.max()),
            "total_completion": float(flowC.sum()),
            "makespan": float(flowC.max()),
            "total_flow_time": float((flowC - rel).sum()),
        }
        return Evaluation(flowC, float(aggregate(costs, instance.objective)), metrics, job_completion=C)
    if isinstance(instance, MapReduceInstance):
        flow = C - instance.arrival
        metrics = {"total_flow_time": float(flow.sum()), "mean_flow_time": float(flow.mean()),
                   "max_flow_time": float(flow.max()), "makespan": float(C.max())}
        return Evaluation(C, metrics["total_flow_time"], metrics)
    w, r = instance.weights, instance.release
    wsum = float(w.sum()) or float("nan")  # related weights may all be 0
    metrics = {
        "weighted_completion": float(w @ C),
        "weighted_average_completion": float(w @ C) / wsum,
        "weighted_delay": float(w @ (C - r)),
        "weighted_average_delay": float(w @ (C - r)) / wsum,
        "total_completion": float(C.sum()),
        "makespan": float(C.max()),
    }
    return Evaluation(C, metrics["weighted_completion"], metrics)
