"""SWIM workload files (Facebook MapReduce traces, UC Berkeley SWIM suite) as MapReduce instances
of paper 001 §III: the real workload to run ASRPT and the baselines on.

A SWIM file is tab-separated text without header, one job per line: job id, submit time (s), gap
since the previous job (s), map input bytes, shuffle bytes, reduce output bytes. The conversion:

* Time: job i arrives in slot floor((submit_i − first submit) / ``slot_seconds``).
* Work unit: one machine processes one block (``block_bytes``, default 128 MiB, HDFS's default
  block) in one slot.
* Map: max(1, ceil(input / block)) unit Map tasks — one per input block, as Hadoop splits input,
  and at least one because every job runs a Map phase.
* Reduce: a job with no shuffle bytes is map-only (its Map tasks write its output): no Reduce
  tasks. Otherwise its Reduce workload is R = ceil((shuffle + output) / block) units (reading the
  shuffled data and writing the output), split as evenly as possible into
  K = min(``max_reduce_tasks``, ceil(R / ``reduce_task_blocks``)) tasks — by default one Reduce
  task per 1 GiB (8 blocks), at most 999, the rule Hive (which produced most of Facebook's
  MapReduce jobs) used to pick its number of reducers.
* Machines: ``machines`` directly, or ``load``: the fewest machines for which the traffic
  intensity ρ = (all work) / (N × slots spanned by the arrivals) is at most that value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from schedrelax.errors import InstanceError
from schedrelax.instances.mapreduce import MapReduceInstance, MapReduceJob

MiB = 2**20


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
    """Parse a SWIM workload file (the real workload for paper 001's policies); InstanceError names
    the line and field of any bad entry."""
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError as exc:
        raise InstanceError(f"{path}: no such SWIM file") from exc
    fields = ("submit time", "gap", "map input bytes", "shuffle bytes", "reduce output bytes")
    ids: list[str] = []
    cols: list[list[int]] = [[] for _ in fields]
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 6:
            raise InstanceError(f"{path}, line {lineno}: expected 6 tab-separated fields (job id, submit time, gap, "
                                f"map input, shuffle, reduce output bytes), got {len(parts)}")
        ids.append(parts[0])
        for k, (name, raw) in enumerate(zip(fields, parts[1:])):
            try:
                value = int(raw)
            except ValueError:
                raise InstanceError(f"{path}, line {lineno}: {name} must be a whole number, got {raw!r}") from None
            if value < 0:
                raise InstanceError(f"{path}, line {lineno}: {name} must be >= 0, got {value}")
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
    within that long after the first one (e.g. ``3600`` for the first hour).
    """
    if (machines is None) == (load is None):
        raise ValueError("load_swim: give exactly one of machines and load")
    for name, value in (("slot_seconds", slot_seconds), ("block_bytes", block_bytes),
                        ("reduce_task_blocks", reduce_task_blocks), ("max_reduce_tasks", max_reduce_tasks)):
        if not value > 0:
            raise ValueError(f"load_swim: {name} must be > 0, got {value}")
    trace = read_swim(path)
    rel = trace.submit - trace.submit.min()
    keep = np.ones(len(rel), dtype=bool) if duration is None else rel < duration
    arrival = np.floor(rel[keep] / slot_seconds).astype(np.int64)
    maps = np.maximum(1, -(-trace.input_bytes[keep] // block_bytes))
    shuffle, output = trace.shuffle_bytes[keep], trace.output_bytes[keep]
    reduce_units = np.where(shuffle > 0, -(-(shuffle + output) // block_bytes), 0)
    jobs = []
    for a, m, r in zip(arrival.tolist(), maps.tolist(), reduce_units.tolist()):
        k = min(max_reduce_tasks, -(-r // reduce_task_blocks)) if r else 0
        jobs.append(MapReduceJob(a, m, _split_evenly(r, k) if k else []))
    if machines is None:
        if not 0 < load:
            raise ValueError(f"load_swim: load must be > 0, got {load}")
        span = int(arrival.max()) + 1
        machines = max(1, math.ceil((maps.sum() + reduce_units.sum()) / (span * load)))
    return MapReduceInstance(machines=machines, jobs=tuple(jobs), name=f"swim {Path(path).name}")
