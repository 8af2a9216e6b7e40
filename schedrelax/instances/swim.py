"""SWIM workload files (Facebook MapReduce traces, UC Berkeley SWIM suite) as MapReduce instances
of paper 001 §III: the real workload to run ASRPT and the baselines on.

A SWIM file is tab-separated text without header (gzipped or not), one job per line: job id, submit time (s), gap
since the previous job (s), map input bytes, shuffle bytes, reduce output bytes. The conversion:

* Time: job i arrives in slot floor((submit_i − first submit) / ``slot_seconds``).
* Work unit: one machine processes one block (``block_bytes``, default 128 MiB, HDFS's default
  block) in one slot.
* Map: ceil(input / block) unit Map tasks — one per input block, as Hadoop splits input; a job
  with no input bytes gets one Map task, because every job runs a Map phase (counted in the report).
* Reduce: a job with no shuffle bytes is map-only (its Map tasks write its output): no Reduce
  tasks, and its output bytes add no work (counted in the report when there are any). Otherwise its Reduce workload is R = ceil((shuffle + output) / block) units (reading the
  shuffled data and writing the output), split as evenly as possible into
  K = min(``max_reduce_tasks``, ceil(R / ``reduce_task_blocks``)) tasks — by default one Reduce
  task per 1 GiB (8 blocks), at most 999, the rule Hive (which produced most of Facebook's
  MapReduce jobs) used to pick its number of reducers (jobs the cap applied to are counted).
* Machines: ``machines`` directly, or ``load``: the fewest machines for which the traffic
  intensity ρ = (all work) / (N × slots spanned by the arrivals) is at most that value.

:func:`convert_swim` returns the instance with a :class:`SwimLoadReport` counting the jobs each
rule above applied to; :func:`load_swim` returns the instance alone.
"""

from __future__ import annotations

import gzip
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from schedrelax.errors import InstanceError
from schedrelax.instances._checks import MAX_WHOLE, show
from schedrelax.instances.mapreduce import MapReduceInstance, MapReduceJob

MiB = 2**20
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class SwimLoadReport:
    """How many jobs of the file were converted, and how many each rule of the module docstring
    applied to."""

    jobs_read: int
    jobs_loaded: int
    jobs_beyond_duration: int
    no_input_one_map_task: int
    map_only_output_ignored: int
    reduce_tasks_capped: int

    def __str__(self) -> str:
        return (f"{self.jobs_read} jobs read, {self.jobs_loaded} loaded; left out: {self.jobs_beyond_duration} "
                f"submitted later than the duration after the first; rules applied: {self.no_input_one_map_task} "
                f"without input bytes given one Map task, {self.map_only_output_ignored} map-only (no shuffle) "
                f"with output bytes not counted as work, {self.reduce_tasks_capped} with their Reduce tasks "
                f"capped at max_reduce_tasks")


@dataclass(frozen=True, eq=False)
class SwimLoad:
    """A converted SWIM file: the instance and its report."""

    instance: MapReduceInstance
    report: SwimLoadReport


@dataclass(frozen=True, eq=False)
class SwimTrace:
    """The columns of a SWIM file, one entry per job, in file order."""

    job_id: tuple[str, ...]
    submit: np.ndarray
    gap: np.ndarray
    input_bytes: np.ndarray
    shuffle_bytes: np.ndarray
    output_bytes: np.ndarray


def read_swim(path: str | Path) -> SwimTrace:
    """Parse a SWIM workload file, plain or gzipped (the real workload for paper 001's policies);
    InstanceError names the line and field of any bad entry."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError as exc:
        raise InstanceError(f"{path}: no such SWIM file") from exc
    except OSError as exc:
        raise InstanceError(f"{path}: cannot read the SWIM file ({exc})") from exc
    try:
        if raw[:2] == GZIP_MAGIC:
            raw = gzip.decompress(raw)
        text = raw.decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise InstanceError(f"{path}: not a SWIM text file (tab-separated, optionally gzipped): {exc}") from exc
    fields = ("submit time", "gap", "map input bytes", "shuffle bytes", "reduce output bytes")
    ids: list[str] = []
    cols: list[list[int]] = [[] for _ in fields]
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 6:
            hint = "; the line is comma-separated: a Google trace? (`schedrelax convert google`)" if (
                len(parts) == 1 and "," in line) else ""
            raise InstanceError(f"{path}, line {lineno}: expected 6 tab-separated fields (job id, submit time, gap, "
                                f"map input, shuffle, reduce output bytes), got {len(parts)}{hint}")
        ids.append(parts[0])
        for k, (name, raw) in enumerate(zip(fields, parts[1:])):
            try:
                value = int(raw)
            except ValueError:
                raise InstanceError(f"{path}, line {lineno}: {name} must be a whole number, got {show(raw)}") from None
            if value < 0:
                raise InstanceError(f"{path}, line {lineno}: {name} must be >= 0, got {value}")
            if value > MAX_WHOLE:
                raise InstanceError(f"{path}, line {lineno}: {name} must be at most 2^53 = {int(MAX_WHOLE)}, got "
                                    f"{show(value)} (beyond it sums of such numbers are no longer exact)")
            cols[k].append(value)
    if not ids:
        raise InstanceError(f"{path}: no jobs in the SWIM file")
    arrays = [np.array(c, dtype=np.int64) for c in cols]
    return SwimTrace(tuple(ids), *arrays)


def _split_evenly(total: int, parts: int) -> list[int]:
    base, extra = divmod(total, parts)
    return [base + 1] * extra + [base] * (parts - extra)


def load_swim(path: str | Path, *, machines: int | None = None, load: float | None = None,
              slot_seconds: float = 60.0, block_bytes: int = 128 * MiB, reduce_task_blocks: int = 8,
              max_reduce_tasks: int = 999, duration: float | None = None) -> MapReduceInstance:
    """A SWIM file as a paper 001 §III :class:`MapReduceInstance`, by the rules of the module docstring.

    Give exactly one of *machines* and *load*. *duration* (seconds) keeps only the jobs submitted
    within that long after the first one (e.g. ``3600`` for the first hour). Bad options raise
    InstanceError. :func:`convert_swim` also returns the counts of the rules applied.
    """
    return convert_swim(path, machines=machines, load=load, slot_seconds=slot_seconds, block_bytes=block_bytes,
                        reduce_task_blocks=reduce_task_blocks, max_reduce_tasks=max_reduce_tasks,
                        duration=duration).instance


def _positive_number(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
        raise InstanceError(f"load_swim: {name} must be a finite number > 0, got {value!r}")
    return value


def _whole(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InstanceError(f"load_swim: {name} must be a whole number >= 1, got {value!r}")
    return value


def convert_swim(path: str | Path, *, machines: int | None = None, load: float | None = None,
                 slot_seconds: float = 60.0, block_bytes: int = 128 * MiB, reduce_task_blocks: int = 8,
                 max_reduce_tasks: int = 999, duration: float | None = None) -> SwimLoad:
    """:func:`load_swim`, returning the instance with its :class:`SwimLoadReport`."""
    if (machines is None) == (load is None):
        raise InstanceError("load_swim: give exactly one of machines and load")
    if machines is not None:
        _whole("machines", machines)
    if load is not None:
        _positive_number("load", load)
    _positive_number("slot_seconds", slot_seconds)
    for name, value in (("block_bytes", block_bytes), ("reduce_task_blocks", reduce_task_blocks),
                        ("max_reduce_tasks", max_reduce_tasks)):
        _whole(name, value)
    if duration is not None:
        _positive_number("duration", duration)
    trace = read_swim(path)
    rel = trace.submit - trace.submit.min()
    keep = np.ones(len(rel), dtype=bool) if duration is None else rel < duration
    arrival = np.floor(rel[keep] / slot_seconds).astype(np.int64)
    input_bytes = trace.input_bytes[keep]
    maps = np.where(input_bytes > 0, -(-input_bytes // block_bytes), 1)
    shuffle, output = trace.shuffle_bytes[keep], trace.output_bytes[keep]
    reduce_units = np.where(shuffle > 0, -(-(shuffle + output) // block_bytes), 0)
    jobs = []
    capped = 0
    for a, m, r in zip(arrival.tolist(), maps.tolist(), reduce_units.tolist()):
        wanted = -(-r // reduce_task_blocks)
        k = min(max_reduce_tasks, wanted)
        capped += wanted > max_reduce_tasks
        jobs.append(MapReduceJob(a, m, _split_evenly(r, k) if k else []))
    if machines is None:
        # Every job has at least one Map task, so the work, and the ceiling, is at least 1.
        span = int(arrival.max()) + 1
        machines = math.ceil((maps.sum() + reduce_units.sum()) / (span * load))
    instance = MapReduceInstance(machines=machines, jobs=tuple(jobs), name=f"swim {Path(path).name}")
    report = SwimLoadReport(jobs_read=len(keep), jobs_loaded=len(jobs), jobs_beyond_duration=int((~keep).sum()),
                            no_input_one_map_task=int((input_bytes == 0).sum()),
                            map_only_output_ignored=int(((shuffle == 0) & (output > 0)).sum()),
                            reduce_tasks_capped=int(capped))
    return SwimLoad(instance, report)
