"""verify against mutated schedules (issue 13): feasible schedules from several algorithms, each
broken in one way per constraint of its family, must be rejected near time 0 and with the
schedule and the instance shifted to near 1e6, with the same verdict at both.

The shift moves every start, end, release, arrival and ready time by T (and packing reservations'
ends, which lie in [0, T) after it). T + x is monotone in x, so orders, back-to-back pieces and
slot boundaries (T whole) survive the shift exactly; each duration changes by at most an ulp of T.
So the unmutated shifted schedule must still pass, and each mutation, which breaks its rule by a
half unit or more, must fail with the same first violation at both places: the verdict may not
depend on where on the time axis the schedule sits.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from schedrelax import algorithms
from schedrelax.errors import InfeasibleScheduleError
from schedrelax.instances import (
    Instance,
    MalleableInstance,
    MapReduceInstance,
    PackingInstance,
    PackingJob,
    PackingTask,
    RelatedInstance,
    from_dict,
    load,
)
from schedrelax.schedules import POOLED, Schedule, verify
from tests.strategies import malleable_instances, mapreduce_instances, packing_instances, related_instances

FAR = 1_000_000
"""Where the shifted copy sits (a whole number, so MapReduce slots stay whole)."""

ALGORITHMS = {
    "malleable": ["fifo", "fair", "flex"],
    "mapreduce": ["asrpt", "fifo", "fair", "lrpt"],
    "packing": ["fifo", "tetris", "psrs", "jsq-mw"],
    "related": ["fifo", "huwf", "tetris"],
}
"""Combinatorial algorithms (no LP solver) whose schedules are mutated. They all run malleable and
MapReduce work pooled, so named processors are left to the hand-made cases of test_schedules."""

STRATEGIES = {
    "malleable": malleable_instances(max_flows=2, max_jobs=3, minima=True, releases=True),
    "mapreduce": mapreduce_instances(max_jobs=4),
    "packing": packing_instances(max_jobs=3, max_tasks=2, releases=True),
    "related": related_instances(max_jobs=3, releases=True),
}

DATA = Path(__file__).resolve().parents[2] / "schedrelax" / "instances" / "data"

Rows = list[list[float]]
Pick = Callable[[list], object]
"""Chooses one element of a non-empty list (hypothesis draws it; the example test takes the first)."""


# ------------------------------------------------------------------------------------- shifting

def shift_instance(inst: Instance, T: int) -> Instance:
    """*inst* with every release, arrival and ready time (and reservation end) later by T."""
    d = inst.to_dict()
    if isinstance(inst, MalleableInstance):
        for fl in d["flows"]:
            fl["release"] = fl.get("release", 0.0) + T
    elif isinstance(inst, MapReduceInstance):
        for job in d["jobs"]:
            job["arrival"] += T
    else:
        for job in d["jobs"]:
            job["release"] = job.get("release", 0.0) + T
        if isinstance(inst, RelatedInstance):
            d["ready"] = [r + T for r in d.get("ready", [0.0] * len(d["speeds"]))]
        elif d.get("reservations"):
            d["reservations"] = [_later_reservation(r, T) for r in d["reservations"]]
    return from_dict(d)


def _later_reservation(r, T: int):
    if isinstance(r, dict):
        return {**r, "until": r["until"] + T}
    m, demand, until = r
    return [m, demand, until + T]


def shift_rows(rows: Rows, T: int) -> Rows:
    return [[j, k, m, s + T, e + T, r] for j, k, m, s, e, r in rows]


def releases(inst: Instance) -> np.ndarray:
    if isinstance(inst, MalleableInstance):
        return inst.job_release
    if isinstance(inst, MapReduceInstance):
        return inst.arrival.astype(float)
    return inst.release


# ------------------------------------------------------------------------------------ mutations
# Each takes (instance, rows, promises, pick) and returns new rows breaking one rule, or None when
# the schedule offers nothing to break that way. Rows are [job, task, machine, start, end, rate].

def _move(row: list, start: float) -> list:
    """The piece moved to begin at *start*, same length."""
    return [*row[:3], start, start + (row[4] - row[3]), row[5]]


def _replace(rows: Rows, i: int, row: list) -> Rows:
    return [row if k == i else list(r) for k, r in enumerate(rows)]


def start_before_release(inst, rows, promises, pick):
    # the job's earliest piece moved to one unit before its release (kept >= 0: r >= 1)
    r = releases(inst)
    firsts = {}
    for i, row in enumerate(rows):
        j = int(row[0])
        if r[j] >= 1 and (j not in firsts or row[3] < rows[firsts[j]][3]):
            firsts[j] = i
    if not firsts:
        return None
    i = pick(sorted(firsts.values()))
    return _replace(rows, i, _move(rows[i], float(r[int(rows[i][0])]) - 1))


def drop_a_piece(inst, rows, promises, pick):
    i = pick(list(range(len(rows))))
    return [list(r) for k, r in enumerate(rows) if k != i]


def stretch_a_piece(inst, rows, promises, pick):
    # one slot longer for MapReduce, half as long again otherwise: more work than needed
    i = pick(list(range(len(rows))))
    row = list(rows[i])
    row[4] += 1 if isinstance(inst, MapReduceInstance) else (row[4] - row[3]) / 2
    return _replace(rows, i, row)


def violate_precedence(inst, rows, promises, pick):
    # the successor's pieces all move earlier, so that it starts 0.5 (MapReduce: n/a) before its
    # predecessor completes; only where its release allows that start.
    if not len(getattr(inst, "edges", ())):
        return None
    r = releases(inst)
    first, last = {}, {}
    for row in rows:
        j = int(row[0])
        first[j] = min(first.get(j, np.inf), row[3])
        last[j] = max(last.get(j, -np.inf), row[4])
    options = [(int(a), int(b)) for a, b in inst.edges if last[int(a)] - 0.5 >= r[int(b)]]
    if not options:
        return None
    a, b = pick(options)
    by = first[b] - (last[a] - 0.5)
    return [_move(row, row[3] - by) if int(row[0]) == b else list(row) for row in rows]


def _overlap_pair(rows, ok) -> list[tuple[int, int]]:
    return [(a, b) for a in range(len(rows)) for b in range(len(rows)) if a != b and ok(rows[a], rows[b])]


def overlap_on_a_machine(inst, rows, promises, pick):
    # piece b moved onto piece a's start on the same named machine/processor: two at once there
    # (packing: only where the two demands together exceed the machine's capacity)
    def ok(pa, pb):
        if pa[2] < 0 or pa[2] != pb[2]:
            return False
        if isinstance(inst, PackingInstance):
            return pa[5] + pb[5] >= inst.capacities[int(pa[2])] + 0.25
        return True

    pairs = _overlap_pair(rows, ok)
    if not pairs:
        return None
    a, b = pick(pairs)
    return _replace(rows, b, _move(rows[b], rows[a][3]))


def exceed_the_pool(inst, rows, promises, pick):
    # pooled pieces a and b whose rates add up to more than P (N) made to start together
    limit = inst.processors if isinstance(inst, MalleableInstance) else inst.machines
    pairs = _overlap_pair(rows, lambda pa, pb: pa[2] == POOLED and pb[2] == POOLED and pa[5] + pb[5] > limit)
    if not pairs:
        return None
    a, b = pick(pairs)
    return _replace(rows, b, _move(rows[b], rows[a][3]))


def over_max_processors(inst, rows, promises, pick):
    # one pooled piece on max + 1 processors for proportionally less time: same work
    pooled = [i for i, row in enumerate(rows) if row[2] == POOLED]
    if not pooled:
        return None
    i = pick(pooled)
    row = list(rows[i])
    d = float(inst.max_procs[int(row[0])]) + 1
    row[4] = row[3] + (row[4] - row[3]) * row[5] / d
    row[5] = d
    return _replace(rows, i, row)


def non_whole_rate(inst, rows, promises, pick):
    # half a processor (machine) less, for proportionally longer (MapReduce: one slot) time
    pooled = [i for i, row in enumerate(rows) if row[2] == POOLED]
    if not pooled:
        return None
    i = pick(pooled)
    row = list(rows[i])
    if not isinstance(inst, MapReduceInstance):
        row[4] = row[3] + (row[4] - row[3]) * row[5] / (row[5] - 0.5)
    row[5] -= 0.5
    return _replace(rows, i, row)


def off_slot_boundary(inst, rows, promises, pick):
    i = pick(list(range(len(rows))))
    return _replace(rows, i, _move(rows[i], rows[i][3] + 0.5))


def reduce_before_map_ends(inst, rows, promises, pick):
    # a job's first Reduce piece moved into the slot of its last Map piece
    map_end, red = {}, {}
    for i, row in enumerate(rows):
        j = int(row[0])
        if row[1] == -1:
            map_end[j] = max(map_end.get(j, -np.inf), row[4])
        elif j not in red or row[3] < rows[red[j]][3]:
            red[j] = i
    options = [i for j, i in sorted(red.items()) if j in map_end]
    if not options:
        return None
    i = pick(options)
    return _replace(rows, i, _move(rows[i], map_end[int(rows[i][0])] - 1))


def outside_placement(inst, rows, promises, pick):
    options = []
    for i, row in enumerate(rows):
        g = inst.job_offset[int(row[0])] + int(row[1])
        placed = set(inst.place_machine[inst.place_offset[g]:inst.place_offset[g + 1]].tolist())
        options += [(i, m) for m in range(inst.n_machines) if m not in placed]
    if not options:
        return None
    i, m = pick(options)
    row = list(rows[i])
    row[2] = m
    return _replace(rows, i, row)


def wrong_demand(inst, rows, promises, pick):
    i = pick(list(range(len(rows))))
    row = list(rows[i])
    row[5] += 0.5
    return _replace(rows, i, row)


def preempt_a_task(inst, rows, promises, pick):
    # one piece cut in two halves with a gap of 0.5 between: same work, two pieces. Breaks
    # related's rule always, packing's only when the schedule promises no preemption.
    if isinstance(inst, PackingInstance) and "non_preemptive" not in promises:
        return None
    i = pick(list(range(len(rows))))
    j, k, m, s, e, r = rows[i]
    mid = (s + e) / 2
    return [list(x) for n, x in enumerate(rows) if n != i] + [[j, k, m, s, mid, r], [j, k, m, mid + 0.5, e + 0.5, r]]


def rate_not_one(inst, rows, promises, pick):
    # a related task at rate 2 for half the time: the same p/v of "work", but one machine runs
    # one task at a time
    i = pick(list(range(len(rows))))
    row = list(rows[i])
    row[4] = row[3] + (row[4] - row[3]) / 2
    row[5] = 2.0
    return _replace(rows, i, row)


def to_a_machine_of_another_speed(inst, rows, promises, pick):
    options = [(i, m) for i, row in enumerate(rows) for m in range(inst.n_machines)
               if inst.speeds[m] != inst.speeds[int(row[2])]]
    if not options:
        return None
    i, m = pick(options)
    row = list(rows[i])
    row[2] = m
    return _replace(rows, i, row)


COMMON = [start_before_release, drop_a_piece, stretch_a_piece]
MUTATIONS = {
    "malleable": [*COMMON, violate_precedence, exceed_the_pool, over_max_processors, non_whole_rate],
    "mapreduce": [*COMMON, exceed_the_pool, non_whole_rate, off_slot_boundary, reduce_before_map_ends],
    "packing": [*COMMON, overlap_on_a_machine, outside_placement, wrong_demand, preempt_a_task],
    "related": [*COMMON, violate_precedence, overlap_on_a_machine, preempt_a_task, rate_not_one,
                to_a_machine_of_another_speed],
}


# --------------------------------------------------------------------------------------- checks

def _rows(s: Schedule) -> Rows:
    return [list(r) for r in zip(s.job.tolist(), s.task.tolist(), s.machine.tolist(), s.start.tolist(),
                                 s.end.tolist(), s.rate.tolist())]


def _verdict(message: str) -> str:
    """The message with its numbers blanked: the same violation reads the same at any shift."""
    return re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "#", message)


def check_rejected_at_both_shifts(inst: Instance, schedule: Schedule, mutated: Rows) -> None:
    """The schedule passes near 0 and near FAR; the mutated rows fail at both, for one reason."""
    verdicts = []
    for T in (0, FAR):
        shifted = shift_instance(inst, T) if T else inst
        verify(shifted, Schedule.from_pieces(shift_rows(_rows(schedule), T), schedule.promises))
        with pytest.raises(InfeasibleScheduleError) as err:
            verify(shifted, Schedule.from_pieces(shift_rows(mutated, T), schedule.promises))
        verdicts.append(_verdict(str(err.value)))
    assert verdicts[0] == verdicts[1]


def _fuzz(family: str):
    @given(STRATEGIES[family], st.data())
    def check(inst, data):
        name = data.draw(st.sampled_from(ALGORITHMS[family]), label="algorithm")
        schedule = algorithms.run(name, inst).schedule
        rows = _rows(schedule)

        def pick(options):
            return data.draw(st.sampled_from(options))

        applicable = [m for m in MUTATIONS[family] if m(inst, rows, schedule.promises, lambda o: o[0]) is not None]
        mutation = data.draw(st.sampled_from(applicable), label="mutation")
        check_rejected_at_both_shifts(inst, schedule, mutation(inst, rows, schedule.promises, pick))

    return check


@pytest.mark.parametrize("family", sorted(MUTATIONS))
def test_mutated_schedules_are_rejected_near_zero_and_far_out(family):
    settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])(_fuzz(family))()


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(MUTATIONS))
def test_mutated_schedules_are_rejected_near_zero_and_far_out_long(family):
    settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])(_fuzz(family))()


def _examples(family: str) -> list[Instance]:
    """The bundled example, released at 2 or later (so that a piece can start a unit before its
    release at a time >= 0); for packing also a case where placements exclude machines and two
    tasks cannot share one (the bundled one fits every task everywhere, two at a time)."""
    out = [shift_instance(load(DATA / f"{family}_small.json"), 2)]
    if family == "packing":
        out.append(PackingInstance(capacities=[2.0, 1.0], jobs=(
            PackingJob(tasks=(PackingTask(1.0, [0, 1], [2.0, 4.0]), PackingTask(1.0, [0], 3.0)), release=2.0),
            PackingJob(tasks=(PackingTask(2.0, [0], 1.0),), weight=2.0, release=3.0))))
    return out


@pytest.mark.parametrize("family", sorted(MUTATIONS))
def test_every_mutation_kind_breaks_an_example(family):
    # each kind must apply to some algorithm's schedule of an example, so none of them is
    # silently never exercised
    unused = {m.__name__ for m in MUTATIONS[family]}
    for inst, name in [(inst, name) for inst in _examples(family) for name in ALGORITHMS[family]]:
        schedule = algorithms.run(name, inst).schedule
        rows = _rows(schedule)
        for mutation in MUTATIONS[family]:
            mutated = mutation(inst, rows, schedule.promises, lambda options: options[0])
            if mutated is not None:
                check_rejected_at_both_shifts(inst, schedule, mutated)
                unused.discard(mutation.__name__)
    assert not unused, f"mutation kinds that never applied to the {family} example: {sorted(unused)}"
