"""The Google cluster trace 2011 (``clusterdata-2011``) as packing instances of paper 003 §2, §7.

A ``task_events`` file is CSV without header (gzipped or not), one event per line: timestamp (µs),
missing info, job ID, task index, machine ID, event type (0 SUBMIT, 1 SCHEDULE, 2 EVICT, 3 FAIL,
4 FINISH, 5 KILL, 6 LOST, 7/8 UPDATE), user, scheduling class, priority, CPU request, memory
request, disk request, different-machines restriction. Requests are normalised to the largest
machine (1.0). The conversion, as paper 003 §7 uses the trace:

* A task is the pair (job ID, task index). Its processing time is the length of its **first
  finished run**: from the SCHEDULE event that starts the run to the FINISH event that ends it, in
  units of ``time_unit`` seconds, rounded up to a whole number (paper 003 §2 takes integer
  processing times; a run of positive length is at least 1 unit); it runs on that SCHEDULE's
  machine. Paper 003 §7 gives each task of the trace one processing time and "the machine to
  which each task is assigned by the resource manager", and its jobs complete when all their
  tasks have finished once: the first finished run is that task. Two rules pick the run, and the
  report counts every task each one applied to (``tasks_by_rule``):

  - runs ended by EVICT, FAIL, KILL or LOST before the finished one are not the task's
    processing (the work was lost and redone); the finished run is kept;
  - a task SCHEDULEd again after its first FINISH (the trace resubmits some finished tasks) keeps
    its first finished run; the later runs are left out, as they would add a second execution
    of a task that, in the paper's model, is done.

* Its resource demand is its memory request (the issue's choice of resource): the last one given
  on its events up to the FINISH of the kept run (UPDATE events may change it), as is its priority.
* Tasks that cannot be converted are left out **and counted by reason** in the
  :class:`GoogleLoadReport` returned beside the instance: no FINISH event in the file (still
  running, killed, failed or lost), no SCHEDULE before the FINISH (scheduled in an earlier part of
  the trace; a later run in this part is not its first), a run whose SCHEDULE has timestamp 0 or whose FINISH has timestamp 2^63 − 1 (the
  trace's marks for "before the trace window" and "after it": the true length is unknown), a run
  of length zero (SCHEDULE and FINISH in the same microsecond: no work to schedule, and no whole
  number of units ≥ 1 would be its length), a zero or missing memory request, or no machine on
  the SCHEDULE event. A job keeps its converted tasks; a job with none is left out (counted).
  Nothing else is changed; with ``weights="priority"`` a kept task without a priority is an error.
* Machines: with a ``machine_events`` file, one machine per machine ID that ran a loaded task, with
  its memory capacity from its first ADD event (a machine missing from the file gets capacity
  1.0, the trace's normalisation, and is counted); without one, those machines all get capacity
  1.0 — the stated default.
* Placement (``placement``): ``"trace"`` — each task only on the machine that ran it (paper 003
  §5's single-machine placement, SynchPack-3's setting); ``"local"`` — §7's modification: the
  task's own machine plus ``local_machines − 1`` others drawn at random among those that fit it run
  it in the trace time, every other fitting machine in ``alpha`` × that time (``alpha=None``: local
  machines only); ``"any"`` — every fitting machine, trace time. The "every other fitting
  machine" parts are written as the task's ``elsewhere_time`` (compressed placement, see
  :mod:`schedrelax.instances.packing`); ``instance.expand_placement()`` lists them out.
* Weights: ``"equal"``, ``"priority"`` (the task's priority + 1, per job the maximum over its
  tasks) or ``"random"`` (uniform on [1, 10], seeded) — paper 003 §7.1's three cases.
* Release: 0 (offline, §7.1), or with ``online=True`` the job's first SUBMIT time (its first
  event if it has no SUBMIT in the file) after the earliest such time, in ``time_unit`` (§7.2).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from schedrelax.errors import InstanceError
from schedrelax.instances.packing import PackingInstance, PackingJob, PackingTask

TASK_EVENT_COLUMNS = ("timestamp", "missing", "job_id", "task_index", "machine_id", "event_type", "user",
                      "scheduling_class", "priority", "cpu_request", "memory_request", "disk_request",
                      "different_machine")
MACHINE_EVENT_COLUMNS = ("timestamp", "machine_id", "event_type", "platform_id", "cpus", "memory")
SUBMIT, SCHEDULE, FINISH = 0, 1, 4
RUN_ENDS = (2, 3, 5, 6)
"""EVICT, FAIL, KILL, LOST: events that end a run without finishing the task."""
BEFORE_WINDOW, AFTER_WINDOW = 0, 2**63 - 1
"""The trace's timestamps for events before its window starts and after it ends."""
RERUN = "SCHEDULEd again after its first FINISH (first finished run kept, later runs left out)"
LOST_RUNS = "runs ended by EVICT, FAIL, KILL or LOST before the finished run (finished run kept)"
PLACEMENTS = ("trace", "local", "any")
WEIGHTS = ("equal", "priority", "random")


@dataclass(frozen=True)
class GoogleLoadReport:
    """What the conversion kept and what it left out, by reason."""

    events: int
    tasks_loaded: int
    jobs_loaded: int
    machines: int
    tasks_skipped: dict[str, int] = field(default_factory=dict)
    jobs_skipped: int = 0
    jobs_beyond_max: int = 0
    machines_without_capacity: int = 0
    tasks_by_rule: dict[str, int] = field(default_factory=dict)
    """Loaded or not, the tasks whose run was picked by one of the module docstring's rules."""

    def __str__(self) -> str:
        skipped = ", ".join(f"{n} {why}" for why, n in sorted(self.tasks_skipped.items())) or "none"
        rules = ", ".join(f"{n} {why}" for why, n in sorted(self.tasks_by_rule.items())) or "none"
        return (f"{self.events} events -> {self.jobs_loaded} jobs, {self.tasks_loaded} tasks on {self.machines} "
                f"machines; tasks left out: {skipped}; tasks converted by a rule: {rules}; jobs left out "
                f"(no task): {self.jobs_skipped}; jobs beyond max_jobs: {self.jobs_beyond_max}; machines "
                f"given capacity 1.0 (no ADD event with memory): {self.machines_without_capacity}")


@dataclass(frozen=True)
class GoogleTrace:
    """A converted trace: the packing instance, the report, and the trace IDs behind its indices."""

    instance: PackingInstance
    report: GoogleLoadReport
    job_ids: tuple[int, ...]
    machine_ids: tuple[int, ...]


MAX_TIMESTAMP = 2**53
"""Largest timestamp (µs) read as a time: beyond it a double no longer holds every microsecond
(the conversion computes in doubles), and no trace lasts 285 years. The mark 2^63 − 1 (after
the window) is the one larger value the trace uses."""
EVENT_TYPES = 8
"""Largest event type (UPDATE_RUNNING); the types are 0..8."""


def _read(path: str | Path, columns: tuple[str, ...]):
    """The file's lines as a frame of strings, one column per field; InstanceError for a missing
    or unreadable file and for a line whose number of fields is not ``len(columns)``."""
    import gzip
    import io

    import pandas as pd

    path = Path(path)
    if not path.exists():
        raise InstanceError(f"{path}: no such trace file")
    try:
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":  # the trace's parts are gzipped, whatever their name says
            data = gzip.decompress(data)
    except (OSError, EOFError) as exc:
        raise InstanceError(f"{path}: not a Google trace CSV file ({exc})") from exc
    _check_field_counts(data, len(columns), path)
    try:
        frame = pd.read_csv(io.BytesIO(data), header=None, names=list(columns), dtype=str, keep_default_na=False,
                            skip_blank_lines=False)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InstanceError(f"{path}: not a Google trace CSV file ({exc})") from exc
    return path, frame


def _check_field_counts(data: bytes, expected: int, path: Path) -> None:
    """InstanceError naming the first line without *expected* comma-separated fields (a cut or
    padded row would otherwise read with its last fields empty). Quoted fields do not occur in
    the trace, so counting commas is exact."""
    buf = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(buf == ord("\n"))
    if len(buf) and buf[-1] != ord("\n"):
        ends = np.r_[ends, len(buf)]
    commas = np.r_[0, np.cumsum(buf == ord(","))]
    starts = np.r_[0, ends[:-1] + 1]
    fields = commas[ends] - commas[starts] + 1
    bad = np.flatnonzero(fields != expected)
    if len(bad):
        i = int(bad[0])
        line = data[starts[i]:ends[i]].decode("utf-8", errors="replace").rstrip("\r")
        if "\t" in line and fields[i] == 1:
            raise InstanceError(f"{path}: not a Google trace CSV file: line {i + 1} is tab-separated, not "
                                f"comma-separated (a SWIM workload file? `schedrelax convert swim`)")
        raise InstanceError(f"{path}, line {i + 1}: expected {expected} comma-separated fields, got "
                            f"{int(fields[i]) if line.strip() else 0}: {line[:80]!r}")


def _numeric(frame, column: str, path: Path, *, required: bool, whole: bool = False, low: float = 0.0,
             high: float | None = None, marks: tuple[str, ...] = ()):
    """Column *column* as floats (NaN where an optional field is empty); InstanceError naming the
    file, line, column and value of the first entry that is not a finite number >= *low* (and
    <= *high*, and whole if *whole*). Entries equal to one of the strings *marks* are exempt
    from the range (the trace's special timestamps)."""
    import pandas as pd

    raw = frame[column]
    given = raw != ""
    values = pd.to_numeric(raw.where(given, None), errors="coerce").to_numpy(dtype=float)

    def fail(mask, rule: str) -> None:
        if mask.any():
            line = int(np.flatnonzero(mask)[0]) + 1
            raise InstanceError(f"{path}, line {line}: column {column} must be {rule}, got {raw.iloc[line - 1]!r}")

    given = given.to_numpy()
    fail(~given if required else np.zeros(len(raw), dtype=bool), "given (it is required)")
    fail(given & np.isnan(values), "a number")
    exempt = raw.isin(marks).to_numpy() if marks else np.zeros(len(raw), dtype=bool)
    with np.errstate(invalid="ignore"):
        fail(given & ~exempt & ~np.isfinite(values), "finite")
        fail(given & (values < low), f"a number >= {low:g}")
        if whole:
            fail(given & ~exempt & (values != np.floor(values)), "a whole number")
        if high is not None:
            fail(given & ~exempt & (values > high), f"at most {high:.16g}")
    return values


def load_google_tasks(task_events: str | Path, *, machine_events: str | Path | None = None,
                      max_jobs: int | None = None, placement: str = "trace", local_machines: int = 3,
                      alpha: float | None = 2.0, weights: str = "equal", online: bool = False,
                      time_unit: float = 1.0, seed: int = 0, name: str = "") -> GoogleTrace:
    """Convert a Google 2011 ``task_events`` file into a packing instance (see the module docstring).

    ``max_jobs`` keeps the first jobs by submission time. Raises InstanceError for a missing or
    malformed file and for bad options.
    """
    def number(v) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

    def whole(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 1

    if placement not in PLACEMENTS:
        raise InstanceError(f"placement must be one of {', '.join(PLACEMENTS)}, got {placement!r}")
    if weights not in WEIGHTS:
        raise InstanceError(f"weights must be one of {', '.join(WEIGHTS)}, got {weights!r}")
    if not (number(time_unit) and time_unit > 0):
        raise InstanceError(f"time_unit must be a positive number of seconds, got {time_unit!r}")
    if alpha is not None and not (number(alpha) and alpha >= 1):
        raise InstanceError(f"alpha must be a number >= 1 or None, got {alpha!r}")
    if not whole(local_machines):
        raise InstanceError(f"local_machines must be a whole number >= 1, got {local_machines!r}")
    if max_jobs is not None and not whole(max_jobs):
        raise InstanceError(f"max_jobs must be a whole number >= 1, got {max_jobs!r}")

    path, ev = _read(task_events, TASK_EVENT_COLUMNS)
    if ev.empty:
        raise InstanceError(f"{path}: the file holds no events")
    after = (str(AFTER_WINDOW),)
    time_us = _numeric(ev, "timestamp", path, required=True, whole=True, high=MAX_TIMESTAMP, marks=after)
    time_us[ev["timestamp"].isin(after).to_numpy()] = AFTER_WINDOW
    job = _numeric(ev, "job_id", path, required=True, whole=True, high=MAX_TIMESTAMP).astype(np.int64)
    task = _numeric(ev, "task_index", path, required=True, whole=True, high=MAX_TIMESTAMP).astype(np.int64)
    kind = _numeric(ev, "event_type", path, required=True, whole=True, high=EVENT_TYPES).astype(np.int64)
    machine = _numeric(ev, "machine_id", path, required=False, whole=True, high=MAX_TIMESTAMP)
    memory = _numeric(ev, "memory_request", path, required=False)
    priority = _numeric(ev, "priority", path, required=False)
    for column in ("cpu_request", "disk_request"):
        _numeric(ev, column, path, required=False)

    skipped: Counter[str] = Counter()
    by_rule: Counter[str] = Counter()
    order = np.lexsort((time_us, task, job))
    tasks: dict[tuple[int, int], dict] = {}
    job_first: dict[int, float] = {}
    job_submit: dict[int, float] = {}
    for i in order:
        j, t, k = int(job[i]), int(task[i]), int(kind[i])
        job_first[j] = min(job_first.get(j, math.inf), time_us[i])
        if k == SUBMIT:
            job_submit[j] = min(job_submit.get(j, math.inf), time_us[i])
        rec = tasks.setdefault((j, t), {"open": None, "run": None, "lost_runs": False, "rerun": False,
                                        "finish_unscheduled": False, "memory": math.nan, "priority": math.nan})
        if rec["run"] is not None or rec["finish_unscheduled"]:
            # The task has finished once (in this part or, without its SCHEDULE, in an earlier
            # one): later events belong to later runs.
            rec["rerun"] = rec["rerun"] or k == SCHEDULE
            continue
        if not math.isnan(memory[i]):
            rec["memory"] = memory[i]
        if not math.isnan(priority[i]):
            rec["priority"] = priority[i]
        if k == SCHEDULE:
            if rec["open"] is not None:
                rec["lost_runs"] = True
            rec["open"] = (time_us[i], machine[i])
        elif k in RUN_ENDS and rec["open"] is not None:
            rec["open"] = None
            rec["lost_runs"] = True
        elif k == FINISH:
            if rec["open"] is None:
                rec["finish_unscheduled"] = True
            else:
                rec["run"] = (rec["open"][0], time_us[i], rec["open"][1])

    converted: dict[int, list[tuple[int, float, float, int, float]]] = {}
    for (j, t), rec in tasks.items():
        if rec["lost_runs"]:
            by_rule[LOST_RUNS] += 1
        if rec["rerun"]:
            by_rule[RERUN] += 1
        run = rec["run"]
        if run is None:
            skipped["no SCHEDULE before FINISH in the file" if rec["finish_unscheduled"]
                    else "no FINISH in the file"] += 1
            continue
        begin, end, on = run
        if begin == BEFORE_WINDOW or end == AFTER_WINDOW:
            skipped["run starts before or ends after the trace window (timestamp 0 or 2^63 - 1)"] += 1
        elif end == begin:
            skipped["zero-length run (SCHEDULE and FINISH at the same time)"] += 1
        elif not rec["memory"] > 0:
            skipped["zero or missing memory request"] += 1
        elif math.isnan(on):
            skipped["no machine on the SCHEDULE event"] += 1
        else:
            if weights == "priority" and math.isnan(rec["priority"]):
                raise InstanceError(f"{path}: job {j}, task {t}: weights='priority' needs a priority, but no event "
                                    f"of the task gives one")
            p = math.ceil((end - begin) / 1e6 / time_unit)
            converted.setdefault(j, []).append((t, float(rec["memory"]), float(p), int(on),
                                                float(rec["priority"])))
    all_jobs = {j for j, _ in tasks}
    jobs_skipped = len(all_jobs - set(converted))
    start = {j: job_submit.get(j, job_first[j]) for j in converted}
    chosen = sorted(converted, key=lambda j: (start[j], j))
    if max_jobs is not None:
        chosen = chosen[:max_jobs]
    if not chosen:
        raise InstanceError(f"{path}: no task could be converted ({dict(skipped)})")

    machine_ids = sorted({m for j in chosen for (_, _, _, m, _) in converted[j]})
    index = {m: i for i, m in enumerate(machine_ids)}
    caps = np.ones(len(machine_ids))
    missing_caps = 0
    if machine_events is not None:
        mpath, mev = _read(machine_events, MACHINE_EVENT_COLUMNS)
        _numeric(mev, "timestamp", mpath, required=True, whole=True, high=MAX_TIMESTAMP, marks=after)
        mid = _numeric(mev, "machine_id", mpath, required=True, whole=True, high=MAX_TIMESTAMP).astype(np.int64)
        mkind = _numeric(mev, "event_type", mpath, required=True, whole=True, high=2).astype(np.int64)
        mmem = _numeric(mev, "memory", mpath, required=False)
        _numeric(mev, "cpus", mpath, required=False)
        first_add: dict[int, float] = {}
        for m, k, mem in zip(mid, mkind, mmem):
            if k == 0 and int(m) not in first_add and mem > 0:
                first_add[int(m)] = float(mem)
        for m, i in index.items():
            if m in first_add:
                caps[i] = first_add[m]
            else:
                missing_caps += 1

    rng = np.random.default_rng(seed)
    origin = min(start[j] for j in chosen)
    # "any" and local's remote machines are written as an elsewhere rule (every other machine that
    # fits), not as lists of every machine: the placement stays O(tasks), not O(tasks × machines).
    by_cap = np.argsort(caps, kind="stable")
    sorted_caps = caps[by_cap]
    jobs = []
    for j in chosen:
        ptasks = []
        for (_, demand, p, m, _) in converted[j]:
            own = index[m]
            if placement == "trace":
                task = PackingTask(demand=demand, placement=[own], processing_time=p)
            elif placement == "any":
                task = PackingTask(demand=demand, placement=[], processing_time=[], elsewhere_time=p)
            else:
                fits = np.sort(by_cap[np.searchsorted(sorted_caps, demand, side="left"):])
                others = fits[fits != own]
                extra = rng.choice(others, size=min(local_machines - 1, len(others)), replace=False)
                local = [own, *sorted(int(x) for x in extra)]
                task = PackingTask(demand=demand, placement=local, processing_time=p,
                                   elsewhere_time=None if alpha is None else p * alpha)
            ptasks.append(task)
        if weights == "equal":
            w = 1.0
        elif weights == "priority":
            w = max(pr for (*_, pr) in converted[j]) + 1.0
        else:
            w = float(rng.uniform(1.0, 10.0))
        release = (start[j] - origin) / 1e6 / time_unit if online else 0.0
        jobs.append(PackingJob(tasks=tuple(ptasks), weight=w, release=release))
    inst = PackingInstance(capacities=caps, jobs=tuple(jobs), name=name or f"google2011 {path.name}")
    report = GoogleLoadReport(events=len(ev), tasks_loaded=sum(len(converted[j]) for j in chosen),
                              jobs_loaded=len(chosen), machines=len(machine_ids), tasks_skipped=dict(skipped),
                              jobs_skipped=jobs_skipped, jobs_beyond_max=len(converted) - len(chosen),
                              machines_without_capacity=missing_caps, tasks_by_rule=dict(by_rule))
    return GoogleTrace(inst, report, tuple(chosen), tuple(machine_ids))
