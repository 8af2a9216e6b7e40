"""schedrelax.schedules: hand-made schedules checked against values computed by hand, one rejected
schedule per verifier rule, the tolerance, Schedule I/O, and a property test per family.

Pieces are rows ``(job, task, machine, start, end, rate)``; ``P`` below is POOLED (-1) and ``MAP``
is MAP_TASK (-1).
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

from schedrelax.errors import InfeasibleScheduleError, ScheduleError
from schedrelax.instances import (
    Flow,
    MalleableInstance,
    MapReduceInstance,
    MapReduceJob,
    PackingInstance,
    PackingJob,
    PackingTask,
    RelatedInstance,
    RelatedJob,
)
from schedrelax.instances.costs import completion
from schedrelax.schedules import (
    MAP_TASK,
    POOLED,
    PROMISES,
    TOL,
    Schedule,
    completion_times,
    evaluate,
    verify,
)
from tests.strategies import malleable_instances, mapreduce_instances, packing_instances, related_instances

P = POOLED
MAP = MAP_TASK


def rejects(instance, pieces, fragment, promises=()):
    """verify raises InfeasibleScheduleError whose message contains *fragment* verbatim."""
    with pytest.raises(InfeasibleScheduleError, match=re.escape(fragment)):
        verify(instance, Schedule.from_pieces(pieces, promises))


def accepts(instance, pieces, promises=()):
    verify(instance, Schedule.from_pieces(pieces, promises))


# =============================================================================== the instances

def malleable():
    """P = 4. Flow 0: job 0 (size 4, δ 2) -> job 1 (size 6, δ 4, min 2), released at 0, cost C.
    Flow 1: job 2 globally (size 2, δ 2, min 2), released at 1, cost 2C. Minisum."""
    return MalleableInstance(processors=4, flows=(
        Flow(sizes=[4.0, 6.0], max_processors=[2, 4], min_processors=[0, 2], edges=[[0, 1]]),
        Flow(sizes=[2.0], max_processors=[2], min_processors=[2], release=1.0, cost=completion(2.0)),
    ))


# job 0 on 2 processors over [0, 2) = 4; job 2 on 2 over [1, 2) = 2 (4 in use); job 1 on 4 over
# [2, 3.5) = 6, after job 0.
MALLEABLE_OK = [(0, 0, P, 0, 2, 2), (2, 0, P, 1, 2, 2), (1, 0, P, 2, 3.5, 4)]


def mapreduce():
    """N = 2. Job 0: arrives in slot 0, 3 Map tasks, Reduce tasks of work 2 and 1.
    Job 1: arrives in slot 1, 1 Map task, no Reduce."""
    return MapReduceInstance(machines=2, jobs=(MapReduceJob(0, 3, [2, 1]), MapReduceJob(1, 1, [])))


# slot 0: two Map tasks of job 0; slot 1: the last Map task of job 0 and job 1's; slots 2-3:
# Reduce task 0 (work 2) on one machine, slot 2: Reduce task 1 (work 1) on the other.
MAPREDUCE_OK = [(0, MAP, P, 0, 1, 2), (0, MAP, P, 1, 2, 1), (1, MAP, P, 1, 2, 1),
                (0, 0, P, 2, 4, 1), (0, 1, P, 2, 3, 1)]


def packing():
    """Capacities [2, 1]. Job 0 (weight 1): task 0 needs 1 on machine 0 (time 2) or 1 (time 4);
    task 1 needs 1 on machine 0 only (time 3). Job 1 (weight 2, released at 1): task 0 needs 2 on
    machine 0 (time 1) or machine 1, which is too small for it (capacity 1)."""
    return PackingInstance(capacities=[2.0, 1.0], jobs=(
        PackingJob(tasks=(PackingTask(1.0, [0, 1], [2.0, 4.0]), PackingTask(1.0, [0], 3.0))),
        PackingJob(tasks=(PackingTask(2.0, [0, 1], 1.0),), weight=2.0, release=1.0),
    ))


# machine 0: job 0's tasks side by side (1 + 1 = 2) over [0, 2) and [0, 3), then job 1 alone [3, 4).
PACKING_OK = [(0, 0, 0, 0, 2, 1), (0, 1, 0, 0, 3, 1), (1, 0, 0, 3, 4, 2)]


def related():
    """Speeds [1, 2]. Job 0: tasks of size 2 and 4; job 1 (weight 2, released at 1): one task of
    size 3; job 0 -> job 1."""
    return RelatedInstance(speeds=[1.0, 2.0], jobs=(RelatedJob([2.0, 4.0]), RelatedJob([3.0], weight=2.0, release=1.0)),
                           edges=[[0, 1]])


# job 0: size 2 on speed 1 over [0, 2), size 4 on speed 2 over [0, 2); job 1: size 3 on speed 2 over [2, 3.5).
RELATED_OK = [(0, 0, 0, 0, 2, 1), (0, 1, 1, 0, 2, 1), (1, 0, 1, 2, 3.5, 1)]

CASES = {
    "malleable": (malleable, MALLEABLE_OK),
    "mapreduce": (mapreduce, MAPREDUCE_OK),
    "packing": (packing, PACKING_OK),
    "related": (related, RELATED_OK),
}


def replace(pieces, i, **changes):
    """*pieces* with piece i's named columns changed."""
    cols = ("job", "task", "machine", "start", "end", "rate")
    row = dict(zip(cols, pieces[i]))
    row.update(changes)
    return [tuple(row[c] for c in cols) if k == i else p for k, p in enumerate(pieces)]


# =============================================================================== feasible + evaluate

@pytest.mark.parametrize("family", sorted(CASES))
def test_the_reference_schedules_are_feasible(family):
    make, pieces = CASES[family]
    accepts(make(), pieces)


def test_evaluate_malleable_by_hand():
    ev = evaluate(malleable(), Schedule.from_pieces(MALLEABLE_OK))
    # jobs end at 2, 3.5, 2; flow 0 = max(2, 3.5) = 3.5, flow 1 = 2.
    assert ev.job_completion.tolist() == [2.0, 3.5, 2.0]
    assert ev.completion.tolist() == [3.5, 2.0]
    # minisum: 1 * 3.5 + 2 * 2 = 7.5
    assert ev.objective == 7.5
    assert ev.metrics == {"cost_sum": 7.5, "cost_max": 4.0, "total_completion": 5.5, "makespan": 3.5,
                          # (3.5 - 0) + (2 - 1) = 4.5
                          "total_flow_time": 4.5}


def test_evaluate_malleable_minimax_by_hand():
    inst = malleable()
    inst = MalleableInstance(processors=4, flows=inst.flows, objective="minimax")
    # max(1 * 3.5, 2 * 2) = 4
    assert evaluate(inst, Schedule.from_pieces(MALLEABLE_OK)).objective == 4.0


def test_evaluate_mapreduce_by_hand():
    ev = evaluate(mapreduce(), Schedule.from_pieces(MAPREDUCE_OK))
    # job 0's last Reduce slot is 3, ending at 4; job 1 (Map only) ends at 2.
    assert ev.completion.tolist() == [4.0, 2.0]
    # flow times: (4 - 0) + (2 - 1) = 5
    assert ev.objective == 5.0
    assert ev.metrics == {"total_flow_time": 5.0, "mean_flow_time": 2.5, "max_flow_time": 4.0, "makespan": 4.0}


def test_evaluate_packing_by_hand():
    ev = evaluate(packing(), Schedule.from_pieces(PACKING_OK))
    assert ev.completion.tolist() == [3.0, 4.0]
    # Σ w C = 1 * 3 + 2 * 4 = 11; Σ w (C - r) = 1 * 3 + 2 * 3 = 9; weights sum to 3.
    assert ev.objective == 11.0
    assert ev.metrics == pytest.approx({"weighted_completion": 11.0, "weighted_average_completion": 11 / 3,
                                        "weighted_delay": 9.0, "weighted_average_delay": 3.0,
                                        "total_completion": 7.0, "makespan": 4.0}, rel=1e-12)


def test_evaluate_related_by_hand():
    ev = evaluate(related(), Schedule.from_pieces(RELATED_OK))
    assert ev.completion.tolist() == [2.0, 3.5]
    # Σ w C = 2 + 2 * 3.5 = 9; Σ w (C - r) = 2 + 2 * 2.5 = 7
    assert ev.objective == 9.0
    assert ev.metrics == {"weighted_completion": 9.0, "weighted_average_completion": 3.0, "weighted_delay": 7.0,
                          "weighted_average_delay": 7 / 3, "total_completion": 5.5, "makespan": 3.5}


def test_evaluate_related_with_zero_weights():
    # paper 004 allows w_j = 0; with every weight 0 the weighted averages are undefined.
    inst = RelatedInstance(speeds=[1.0, 2.0], jobs=(RelatedJob([2.0, 4.0], weight=0.0),
                                                    RelatedJob([3.0], weight=0.0, release=1.0)), edges=[[0, 1]])
    ev = evaluate(inst, Schedule.from_pieces(RELATED_OK))
    assert ev.objective == 0.0
    assert np.isnan(ev.metrics["weighted_average_completion"])
    assert ev.metrics["total_completion"] == 5.5


def test_completion_times_need_every_job():
    with pytest.raises(InfeasibleScheduleError, match=re.escape("job 1: has no pieces in the schedule")):
        completion_times(related(), Schedule.from_pieces(RELATED_OK[:2]))


# =============================================================================== rules of every family

COMMON = sorted(CASES)


def _n_jobs(family):
    return CASES[family][0]().n_jobs


@pytest.mark.parametrize("family", COMMON)
@pytest.mark.parametrize("column", ["start", "end", "rate"])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_values_are_rejected(family, column, value):
    make, pieces = CASES[family]
    rejects(make(), replace(pieces, 1, **{column: value}),
            f"piece 1 (job {pieces[1][0]}): {column} must be finite, got {value}")


@pytest.mark.parametrize("family", COMMON)
@pytest.mark.parametrize("shift", [0.0, -0.5])
def test_end_must_be_after_start(family, shift):
    make, pieces = CASES[family]
    start = pieces[0][3]
    rejects(make(), replace(pieces, 0, end=start + shift),
            f"piece 0 (job 0): end {start + shift:g} must be after start {start:g}")


@pytest.mark.parametrize("family", COMMON)
@pytest.mark.parametrize("rate", [0.0, -1.0])
def test_rate_must_be_positive(family, rate):
    make, pieces = CASES[family]
    rejects(make(), replace(pieces, 0, rate=rate), f"piece 0 (job 0): rate must be > 0, got {rate:g}")


@pytest.mark.parametrize("family", COMMON)
def test_start_must_be_nonnegative(family):
    make, pieces = CASES[family]
    rejects(make(), replace(pieces, 0, start=-1.0), "piece 0 (job 0): start must be >= 0, got -1")


@pytest.mark.parametrize("family", COMMON)
@pytest.mark.parametrize("job", ["n", -1])
def test_unknown_job(family, job):
    make, pieces = CASES[family]
    n = _n_jobs(family)
    j = n if job == "n" else job
    rejects(make(), [*pieces, (j, 0, 0, 0, 1, 1)],
            f"piece {len(pieces)}: job {j} does not exist (the {family} instance has jobs 0..{n - 1})")


NO_PIECES = {
    "malleable": "flow 1, job 0: work done is 0, must be 2",
    "mapreduce": "job 1: Map work done is 0, must be 1",
    "packing": "job 1, task 0: fraction of the task done is 0, must be 1",
    "related": "job 1, task 0: runs in 0 pieces, but tasks run without preemption on related machines",
}


@pytest.mark.parametrize("family", COMMON)
def test_a_job_without_pieces_is_rejected(family):
    make, pieces = CASES[family]
    last = _n_jobs(family) - 1
    rejects(make(), [p for p in pieces if p[0] != last], NO_PIECES[family])


@pytest.mark.parametrize("family", COMMON)
def test_an_empty_schedule_is_rejected(family):
    make, _ = CASES[family]
    with pytest.raises(InfeasibleScheduleError):
        verify(make(), Schedule.from_pieces([]))


WORK = {
    # (piece to change, new end, message)
    "malleable": (0, 1.5, "flow 0, job 0: work done is 3, must be 4"),
    "mapreduce": (3, 3, "job 0, reduce task 0: Reduce work done is 1, must be 2"),
    "packing": (1, 2, "job 0, task 1: fraction of the task done is 0.666667, must be 1"),
    "related": (0, 1, "job 0, task 0: runs for 1 on machine 0, but size 2 at speed 1 takes 2"),
}
WORK_TOO_MUCH = {
    "malleable": (1, 3, "flow 1, job 0: work done is 4, must be 2"),
    "mapreduce": (4, 4, "job 0, reduce task 1: Reduce work done is 2, must be 1"),
    "packing": (0, 3, "job 0, task 0: fraction of the task done is 1.5, must be 1"),
    "related": (2, 4, "job 1, task 0: runs for 2 on machine 1, but size 3 at speed 2 takes 1.5"),
}


@pytest.mark.parametrize("family", COMMON)
def test_work_short_is_rejected(family):
    make, pieces = CASES[family]
    i, end, message = WORK[family]
    rejects(make(), replace(pieces, i, end=end), message)


@pytest.mark.parametrize("family", COMMON)
def test_too_much_work_is_rejected(family):
    make, pieces = CASES[family]
    i, end, message = WORK_TOO_MUCH[family]
    rejects(make(), replace(pieces, i, end=end), message)


def test_start_before_release_malleable():
    # flow 1 released at 1: job 2 on [0, 1) at 2 processors does its work 2 too early.
    rejects(malleable(), replace(MALLEABLE_OK, 1, start=0, end=1),
            "job 2: starts at 0, before its release time 1")


def test_start_before_arrival_mapreduce():
    # job 1 arrives in slot 1; its Map task in slot 0 (job 0 uses only one machine there).
    pieces = [(0, MAP, P, 0, 1, 1), (1, MAP, P, 0, 1, 1), (0, MAP, P, 1, 2, 2), (0, 0, P, 2, 4, 1), (0, 1, P, 2, 3, 1)]
    rejects(mapreduce(), pieces, "job 1: starts at 0, before its release time 1")


def test_start_before_release_packing():
    rejects(packing(), [(0, 0, 1, 0, 4, 1), (0, 1, 0, 0, 3, 1), (1, 0, 0, 0.5, 1.5, 2)],
            "job 1: starts at 0.5, before its release time 1")


def test_start_before_release_related():
    rejects(related(), replace(RELATED_OK, 2, start=0.5, end=2.0), "job 1: starts at 0.5, before its release time 1")


def test_release_is_inclusive():
    accepts(packing(), [(0, 0, 1, 0, 4, 1), (0, 1, 0, 0, 3, 1), (1, 0, 0, 3, 4, 2)])
    inst = malleable()
    accepts(inst, [(0, 0, P, 0, 2, 2), (2, 0, P, 1, 2, 2), (1, 0, P, 2, 3.5, 4)])  # job 2 starts at its release 1


# =============================================================================== malleable

def test_malleable_more_than_max_processors_for_a_job():
    # job 0 (δ = 2) runs 1 + 2 = 3 processors over [0, 1); work 1 * 2 + 2 * 1 = 4 is right.
    pieces = [(0, 0, P, 0, 2, 1), (0, 0, P, 0, 1, 2), (2, 0, P, 1, 2, 1), (2, 0, P, 2, 3, 1), (1, 0, P, 3, 4.5, 4)]
    rejects(malleable(), pieces,
            "flow 0, job 0 (max_processors 2): 3 processors in use at time 0, more than the 2 available")


def test_malleable_more_than_P_in_total():
    # job 1 on 4 over [2, 3.5) while job 2 runs on 2 over [2, 3): 6 > P = 4.
    pieces = [(0, 0, P, 0, 2, 2), (2, 0, P, 2, 3, 2), (1, 0, P, 2, 3.5, 4)]
    rejects(malleable(), pieces, "all jobs: 6 processors in use at time 2, more than the 4 available")


def test_malleable_rate_must_be_a_whole_number_of_processors():
    # job 0 on 1.5 processors for 8/3: the work is right, the processor count is not.
    rejects(malleable(), replace(MALLEABLE_OK, 0, end=8 / 3, rate=1.5),
            "piece 0 (job 0): rate (a number of processors) must be a whole number, got 1.5")


def test_malleable_precedence():
    # job 1 on 2 processors over [1, 4) = 6 starts before job 0 completes at 2; never more than 4 in use.
    pieces = [(0, 0, P, 0, 2, 2), (2, 0, P, 2, 3, 2), (1, 0, P, 1, 4, 2)]
    rejects(malleable(), pieces,
            "precedence flow 0, job 0 -> flow 0, job 1: flow 0, job 1 starts at 1 before flow 0, job 0 completes at 2")


def test_malleable_precedence_back_to_back_is_fine():
    accepts(malleable(), [(0, 0, P, 0, 2, 2), (2, 0, P, 1, 2, 2), (1, 0, P, 2, 3.5, 4)])


# job 2 (min 2) on one processor over [1, 3); job 1 on 3 over [2, 4).
BELOW_MINIMUM = [(0, 0, P, 0, 2, 2), (2, 0, P, 1, 3, 1), (1, 0, P, 2, 4, 3)]


def test_malleable_minima_are_enforced_under_the_promise():
    rejects(malleable(), BELOW_MINIMUM,
            "flow 1, job 0: runs on 1 processors over [1, 3) between its start and completion, below its "
            "min_processors 2", promises=["respects_minima"])


def test_malleable_minima_are_not_enforced_without_the_promise():
    accepts(malleable(), BELOW_MINIMUM)


def test_malleable_minima_count_a_gap_as_zero_processors():
    # job 2 (min 2) on 2 processors over [1, 1.5) and [2.5, 3): idle in between.
    pieces = [(0, 0, P, 0, 2, 2), (2, 0, P, 1, 1.5, 2), (2, 0, P, 2.5, 3, 2), (1, 0, P, 2, 5, 2)]
    accepts(malleable(), pieces)
    rejects(malleable(), pieces, "flow 1, job 0: runs on 0 processors over [1.5, 2.5)", promises=["respects_minima"])


def test_malleable_minima_ignore_a_rounding_gap_between_back_to_back_pieces():
    # job 2 (min 2) in two pieces: [1, 1.3) and [1.3 + 1 ulp, 2 + 1 ulp), a gap of 2e-16.
    a, b = 1.3, float(np.nextafter(1.3, 2.0))
    pieces = [(0, 0, P, 0, 2, 2), (2, 0, P, 1, a, 2), (2, 0, P, b, b + 0.7, 2), (1, 0, P, 2, 5, 2)]
    accepts(malleable(), pieces, promises=["respects_minima"])


def test_malleable_minima_satisfied_under_the_promise():
    accepts(malleable(), MALLEABLE_OK, promises=["respects_minima"])


def test_malleable_processor_id_must_exist():
    pieces = [(0, 0, 0, 0, 4, 1), (2, 0, 4, 1, 3, 1), (1, 0, P, 4, 5.5, 4)]
    rejects(malleable(), pieces, "piece 1 (job 2): processor 4 does not exist (allowed: -1 (pooled) or 0..3)")


def test_malleable_named_processors_feasible():
    # job 0 on processors 0 and 1 over [0, 2); job 2 on 2 and 3 over [1, 2); job 1 pooled on 4.
    pieces = [(0, 0, 0, 0, 2, 1), (0, 0, 1, 0, 2, 1), (2, 0, 2, 1, 2, 1), (2, 0, 3, 1, 2, 1), (1, 0, P, 2, 3.5, 4)]
    accepts(malleable(), pieces)
    ev = evaluate(malleable(), Schedule.from_pieces(pieces))
    assert ev.completion.tolist() == [3.5, 2.0]


def test_malleable_two_pieces_on_one_named_processor_overlap():
    # job 0 on processor 0 over [0, 4) and job 2 on processor 0 over [1, 3): both have the right work.
    pieces = [(0, 0, 0, 0, 4, 1), (2, 0, 0, 1, 3, 1), (1, 0, P, 4, 5.5, 4)]
    rejects(malleable(), pieces, "processor 0: 2 pieces in use at time 1, more than the 1 available")


def test_malleable_named_processor_back_to_back_is_fine():
    # job 2 takes over processor 0 when job 0 leaves it at 4; job 1 runs on 3 other processors.
    accepts(malleable(), [(0, 0, 0, 0, 4, 1), (2, 0, 0, 4, 6, 1), (1, 0, P, 4, 6, 3)])


def test_malleable_rate_on_a_named_processor_must_be_1():
    rejects(malleable(), replace(MALLEABLE_OK, 0, machine=0),
            "piece 0 (job 0): on processor 0 the rate must be 1, got 2")


def test_malleable_task_must_be_0():
    rejects(malleable(), replace(MALLEABLE_OK, 2, task=1),
            "piece 2 (flow 0, job 1): task must be 0 for malleable jobs, got 1")


# =============================================================================== mapreduce

def test_mapreduce_slot_boundaries_must_be_whole():
    # job 0's 3 Map tasks as 2 machines over 1.5 slots: the work is right, the slots are not.
    pieces = [(0, MAP, P, 0, 1.5, 2), (1, MAP, P, 2, 3, 1), (0, 0, P, 2, 4, 1), (0, 1, P, 2, 3, 1)]
    rejects(mapreduce(), pieces, "piece 0 (job 0): end (a slot boundary) must be a whole number, got 1.5")


def test_mapreduce_start_must_be_whole():
    rejects(mapreduce(), replace(MAPREDUCE_OK, 4, start=2.5, end=3.5),
            "piece 4 (job 0): start (a slot boundary) must be a whole number, got 2.5")


def test_mapreduce_machines_per_piece_must_be_whole():
    pieces = [(0, MAP, P, 0, 2, 1.5), (1, MAP, P, 1, 2, 1), (0, 0, P, 2, 4, 1), (0, 1, P, 2, 3, 1)]
    rejects(mapreduce(), pieces, "piece 0 (job 0): rate (a number of machines) must be a whole number, got 1.5")


def test_mapreduce_reduce_in_the_slot_of_the_last_map():
    # Reduce task 1 runs in slot 1, where job 0's last Map task also runs.
    rejects(mapreduce(), replace(MAPREDUCE_OK, 4, start=1, end=2),
            "job 0: Reduce work starts in slot 1, but its last Map task runs in slot 1")


def test_mapreduce_reduce_before_map():
    pieces = [(0, 1, P, 0, 1, 1), (0, MAP, P, 0, 1, 1), (0, MAP, P, 1, 2, 1), (1, MAP, P, 1, 2, 1),
              (0, MAP, P, 2, 3, 1), (0, 0, P, 3, 5, 1)]
    rejects(mapreduce(), pieces, "job 0: Reduce work starts in slot 0, but its last Map task runs in slot 2")


def test_mapreduce_more_than_N_machines_in_a_slot():
    pieces = [(0, MAP, P, 0, 1, 3), (1, MAP, P, 1, 2, 1), (0, 0, P, 2, 4, 1), (0, 1, P, 2, 3, 1)]
    rejects(mapreduce(), pieces, "all jobs: 3 machines in use at time 0, more than the 2 available")


def test_mapreduce_map_work_mismatch():
    rejects(mapreduce(), replace(MAPREDUCE_OK, 1, end=3), "job 0: Map work done is 4, must be 3")
    rejects(mapreduce(), MAPREDUCE_OK[:1] + MAPREDUCE_OK[2:], "job 0: Map work done is 2, must be 3")


def test_mapreduce_map_work_for_a_job_without_map_tasks():
    inst = MapReduceInstance(machines=1, jobs=(MapReduceJob(0, 0, [1]),))
    accepts(inst, [(0, 0, P, 0, 1, 1)])
    rejects(inst, [(0, MAP, P, 0, 1, 1), (0, 0, P, 1, 2, 1)], "job 0: Map work done is 1, must be 0")


def test_mapreduce_reduce_work_mismatch_is_per_task():
    # total Reduce work is right (3) but split 1 + 2 instead of 2 + 1.
    pieces = replace(replace(MAPREDUCE_OK, 3, end=3), 4, end=4)
    rejects(mapreduce(), pieces, "job 0, reduce task 0: Reduce work done is 1, must be 2")


@pytest.mark.parametrize("job, task, message", [
    (0, 2, "piece 4 (job 0): task 2 does not exist (Map is -1, Reduce tasks are 0..1)"),
    (0, -2, "piece 4 (job 0): task -2 does not exist (Map is -1, Reduce tasks are 0..1)"),
    (1, 0, "piece 4 (job 1): task 0 does not exist"),
])
def test_mapreduce_reduce_task_out_of_range(job, task, message):
    rejects(mapreduce(), replace(MAPREDUCE_OK, 4, job=job, task=task), message)


def test_mapreduce_one_reduce_task_on_two_machines_at_once_pooled():
    # Reduce task 0 (work 2) on 2 machines in slot 2, Reduce task 1 in slot 3.
    pieces = MAPREDUCE_OK[:3] + [(0, 0, P, 2, 3, 2), (0, 1, P, 3, 4, 1)]
    rejects(mapreduce(), pieces,
            "job 0, reduce task 0 (one machine at a time): 2 machines in use at time 2, more than the 1 available")


def test_mapreduce_one_reduce_task_on_two_machines_at_once_named():
    pieces = MAPREDUCE_OK[:3] + [(0, 0, 0, 2, 3, 1), (0, 0, 1, 2, 3, 1), (0, 1, 0, 3, 4, 1)]
    rejects(mapreduce(), pieces, "job 0, reduce task 0 (one machine at a time): 2 machines in use at time 2")


# Reduce task 0 preempted: slot 2 on one machine, slot 3 on the other (Reduce task 1 fills the gap).
REDUCE_SPLIT = MAPREDUCE_OK[:3] + [(0, 0, 0, 2, 3, 1), (0, 1, 0, 3, 4, 1), (0, 0, 1, 3, 4, 1)]


def test_mapreduce_split_reduce_task_is_fine_without_the_promise():
    accepts(mapreduce(), REDUCE_SPLIT)


def test_mapreduce_non_preemptive_promise_rejects_a_split_reduce_task():
    rejects(mapreduce(), REDUCE_SPLIT,
            "job 0, reduce task 0: runs in 2 pieces, but the schedule promises non-preemptive Reduce tasks",
            promises=["non_preemptive"])


def test_mapreduce_reference_schedule_keeps_the_non_preemptive_promise():
    accepts(mapreduce(), MAPREDUCE_OK, promises=["non_preemptive"])


def test_mapreduce_named_machines():
    named = [(0, MAP, 0, 0, 1, 1), (0, MAP, 1, 0, 1, 1), (0, MAP, 0, 1, 2, 1), (1, MAP, 1, 1, 2, 1),
             (0, 0, 0, 2, 4, 1), (0, 1, 1, 2, 3, 1)]
    accepts(mapreduce(), named)
    rejects(mapreduce(), replace(named, 3, machine=0),
            "machine 0: 2 pieces in use at time 1, more than the 1 available")
    rejects(mapreduce(), replace(named, 3, machine=2),
            "piece 3 (job 1): machine 2 does not exist (allowed: -1 (pooled) or 0..1)")
    rejects(mapreduce(), replace(named, 0, end=0.5 + 0.5, rate=2),
            "piece 0 (job 0): on machine 0 the rate must be 1, got 2")


# =============================================================================== packing

def test_packing_machine_outside_the_placement_set():
    # task 1 of job 0 may only use machine 0.
    rejects(packing(), [(0, 0, 0, 0, 2, 1), (0, 1, 1, 0, 3, 1), (1, 0, 0, 3, 4, 2)],
            "job 0, task 1: runs on machine 1, outside its placement set [0]")


def test_packing_machine_that_does_not_exist():
    rejects(packing(), replace(PACKING_OK, 0, machine=2), "piece 0 (job 0): machine 2 does not exist (allowed: 0..1)")
    rejects(packing(), replace(PACKING_OK, 0, machine=P), "piece 0 (job 0): machine -1 does not exist (allowed: 0..1)")


def test_packing_task_that_does_not_exist():
    rejects(packing(), replace(PACKING_OK, 2, task=1), "piece 2: job 1 has no task 1 (it has tasks 0..0)")


def test_packing_rate_must_equal_the_demand():
    # task 0 of job 0 at half its demand (the time is right): a packed task is rigid.
    rejects(packing(), replace(PACKING_OK, 0, rate=0.5),
            "job 0, task 0: piece 0 uses 0.5 of the resource, but the task needs exactly 1 while it runs")


def test_packing_capacity_exceeded():
    # job 1's task (demand 2) on machine 0 over [1, 2), while job 0's two tasks use 2 there.
    rejects(packing(), replace(PACKING_OK, 2, start=1, end=2),
            "machine 0: 4 resource in use at time 1, more than the 2 available")


def test_packing_task_larger_than_a_machine_of_its_set_cannot_run_there():
    # machine 1 is in job 1's placement set but has capacity 1 < demand 2.
    rejects(packing(), replace(PACKING_OK, 2, machine=1),
            "machine 1: 2 resource in use at time 3, more than the 1 available")


def test_packing_task_on_two_machines_at_the_same_time():
    # task 0 of job 0 half on machine 0 (1 of 2) and half on machine 1 (2 of 4), simultaneously.
    pieces = [(0, 0, 0, 0, 1, 1), (0, 0, 1, 0, 2, 1), (0, 1, 0, 0, 3, 1), (1, 0, 0, 3, 4, 2)]
    rejects(packing(), pieces,
            "job 0, task 0 (one machine at a time): 2 machines in use at time 0, more than the 1 available")


# task 0 of job 0 half on machine 0 over [0, 1) (time 2 there) then half on machine 1 over [1, 3) (time 4).
MIGRATING = [(0, 0, 0, 0, 1, 1), (0, 0, 1, 1, 3, 1), (0, 1, 0, 0, 3, 1), (1, 0, 0, 3, 4, 2)]


def test_packing_fraction_uses_each_machines_own_time():
    accepts(packing(), MIGRATING)
    # 1/2 + 1/4: the same second half at machine 0's speed would be short.
    rejects(packing(), replace(MIGRATING, 1, end=2), "job 0, task 0: fraction of the task done is 0.75, must be 1")


def test_packing_no_migration_promise():
    rejects(packing(), MIGRATING, "job 0, task 0: runs on machines 0 and 1, but the schedule promises no migration",
            promises=["no_migration"])


# task 0 of job 0 on machine 0 over [0, 1) and again over [2, 3): preempted, not migrated.
PREEMPTED = [(0, 0, 0, 0, 1, 1), (0, 0, 0, 2, 3, 1), (0, 1, 0, 0, 3, 1), (1, 0, 0, 3, 4, 2)]


def test_packing_preemption_is_fine_without_the_promise():
    accepts(packing(), PREEMPTED)
    accepts(packing(), PREEMPTED, promises=["no_migration"])


def test_packing_non_preemptive_promise():
    rejects(packing(), PREEMPTED, "job 0, task 0: runs in 2 pieces, but the schedule promises no preemption",
            promises=["non_preemptive"])


def test_packing_reference_schedule_keeps_both_promises():
    accepts(packing(), PACKING_OK, promises=["non_preemptive", "no_migration"])


def test_packing_capacity_full_back_to_back_is_fine():
    # machine 1 (capacity 1): job 0's task 0 over [0, 4); machine 0 full over [3, 4) with job 1.
    accepts(packing(), [(0, 0, 1, 0, 4, 1), (0, 1, 0, 0, 3, 1), (1, 0, 0, 3, 4, 2)])


# =============================================================================== related

def test_related_duration_must_be_size_over_speed():
    # size 4 at speed 2 takes 2, not 4 (whatever machine 1's neighbour does).
    rejects(related(), replace(RELATED_OK, 1, end=4),
            "job 0, task 1: runs for 4 on machine 1, but size 4 at speed 2 takes 2")


def test_related_duration_depends_on_the_machine():
    # task 1 of job 0 (size 4) on the slow machine 0 after task 0: takes 4 there.
    accepts(related(), [(0, 0, 0, 0, 2, 1), (0, 1, 0, 2, 6, 1), (1, 0, 1, 6, 7.5, 1)])
    rejects(related(), [(0, 0, 0, 0, 2, 1), (0, 1, 0, 2, 4, 1), (1, 0, 1, 4, 5.5, 1)],
            "job 0, task 1: runs for 2 on machine 0, but size 4 at speed 1 takes 4")


def test_related_task_split_in_two_pieces():
    pieces = [(0, 0, 0, 0, 1, 1), (0, 0, 0, 1, 2, 1), (0, 1, 1, 0, 2, 1), (1, 0, 1, 2, 3.5, 1)]
    rejects(related(), pieces, "job 0, task 0: runs in 2 pieces, but tasks run without preemption on related machines")


def test_related_two_tasks_overlap_on_one_machine():
    # both tasks of job 0 on machine 1 (durations 1 and 2), the second starting at 0.5.
    pieces = [(0, 0, 1, 0, 1, 1), (0, 1, 1, 0.5, 2.5, 1), (1, 0, 0, 3, 6, 1)]
    rejects(related(), pieces, "machine 1: 2 tasks in use at time 0.5, more than the 1 available")


def test_related_back_to_back_on_one_machine_is_fine():
    accepts(related(), [(0, 0, 1, 0, 1, 1), (0, 1, 1, 1, 3, 1), (1, 0, 1, 3, 4.5, 1)])


def test_related_precedence():
    # job 0 ends at 6 (task 1 on the slow machine); job 1 starts at 1 on the other machine.
    pieces = [(0, 0, 0, 0, 2, 1), (0, 1, 0, 2, 6, 1), (1, 0, 1, 1, 2.5, 1)]
    rejects(related(), pieces, "precedence job 0 -> job 1: job 1 starts at 1 before job 0 completes at 6")


def test_related_rate_must_be_1():
    rejects(related(), replace(RELATED_OK, 2, rate=2),
            "job 1, task 0: rate must be 1 (a machine runs one task at a time), got 2")


def test_related_machine_and_task_must_exist():
    rejects(related(), replace(RELATED_OK, 2, machine=2), "piece 2 (job 1): machine 2 does not exist (allowed: 0..1)")
    rejects(related(), replace(RELATED_OK, 2, task=1), "piece 2: job 1 has no task 1 (it has tasks 0..0)")


# =============================================================================== tolerance

def _scale_end(pieces, i, factor):
    return replace(pieces, i, end=pieces[i][4] * factor)


@pytest.mark.parametrize("family", COMMON)
def test_an_error_of_1e_9_relative_is_accepted(family):
    make, pieces = CASES[family]
    accepts(make(), _scale_end(pieces, 0, 1 + 1e-9))
    accepts(make(), _scale_end(pieces, len(pieces) - 1, 1 - 1e-9))


@pytest.mark.parametrize("family", COMMON)
def test_an_error_of_1e_3_relative_is_rejected(family):
    make, pieces = CASES[family]
    with pytest.raises(InfeasibleScheduleError):
        verify(make(), Schedule.from_pieces(_scale_end(pieces, len(pieces) - 1, 1 + 1e-3)))
    with pytest.raises(InfeasibleScheduleError):
        verify(make(), Schedule.from_pieces(_scale_end(pieces, len(pieces) - 1, 1 - 1e-3)))


def test_time_tolerance_does_not_grow_with_the_time():
    # Tasks of 1 at t = 1e6: an ulp is 1.16e-10, so the time tolerance is TOL · 1 + 4 ulp =
    # 1.0000005e-6: an overlap of 5e-7 is tolerated, one of 1e-5 (1e-11 relative to the time,
    # tolerated before issue 13) is not.
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([1.0]), RelatedJob([1.0])))
    T = 1e6
    accepts(inst, [(0, 0, 0, T, T + 1, 1), (1, 0, 0, T + 1 - 5e-7, T + 2 - 5e-7, 1)])
    rejects(inst, [(0, 0, 0, T, T + 1, 1), (1, 0, 0, T + 1 - 1e-5, T + 2 - 1e-5, 1)],
            "machine 0: 2 tasks in use at time 1000000.99999, more than the 1 available")


@pytest.mark.parametrize("unit", [1e-9, 1e-3, 1.0, 1e6])
def test_time_tolerance_follows_the_unit_of_the_durations(unit):
    # Issue 31: the same instance and schedules written in another unit get the same verdicts.
    # TOL is 1e-6 of the shortest duration (here 1 unit): an overlap of 0.5e-6 of it is
    # tolerated, one of 1e-5 is not. Before, the tolerance was 1e-6 time units whatever the unit:
    # at unit 1e-9 it was 1000 times the task, and an overlap of the whole task passed.
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([unit]), RelatedJob([unit])))
    accepts(inst, [(0, 0, 0, 0, unit, 1), (1, 0, 0, unit * (1 - 5e-7), unit * (2 - 5e-7), 1)])
    rejects(inst, [(0, 0, 0, 0, unit, 1), (1, 0, 0, unit * (1 - 1e-5), unit * (2 - 1e-5), 1)],
            "machine 0: 2 tasks in use at time")
    rejects(inst, [(0, 0, 0, 0, unit, 1), (1, 0, 0, unit * 0.5, unit * 1.5, 1)], "machine 0: 2 tasks in use")


# Issue 13, item 5: each schedule breaks one rule by a wide margin (half a unit, one unit, 20% of
# capacity) at time T. Before the fix the tolerance TOL · max(1, |t|) was one whole time unit at
# T = 1e6, so every one of them was accepted there while rejected at T = 10.
SHIFTS = [10.0, 1e6]


@pytest.mark.parametrize("T", SHIFTS)
def test_overlap_of_half_a_task_is_rejected_at_any_time(T):
    # [T, T + 1) and [T + 0.5, T + 1.5) on machine 0: two tasks at once over [T + 0.5, T + 1).
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([1.0, 1.0]),))
    rejects(inst, [(0, 0, 0, T, T + 1, 1), (0, 1, 0, T + 0.5, T + 1.5, 1)],
            f"machine 0: 2 tasks in use at time {T + 0.5:.12g}, more than the 1 available")


@pytest.mark.parametrize("T", SHIFTS)
def test_start_one_unit_before_release_is_rejected_at_any_time(T):
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([1.0], release=T),))
    rejects(inst, [(0, 0, 0, T - 1, T, 1)], f"job 0: starts at {T - 1:.12g}, before its release time {T:.12g}")


@pytest.mark.parametrize("T", SHIFTS)
def test_capacity_exceeded_by_a_fifth_is_rejected_at_any_time(T):
    # two tasks of demand 0.6 on capacity 1 overlap over [T + 0.5, T + 1): 1.2 in use.
    inst = PackingInstance(capacities=[1.0], jobs=(PackingJob(tasks=(PackingTask(0.6, [0], 1.0),
                                                                     PackingTask(0.6, [0], 1.0))),))
    rejects(inst, [(0, 0, 0, T, T + 1, 0.6), (0, 1, 0, T + 0.5, T + 1.5, 0.6)],
            f"machine 0: 1.2 resource in use at time {T + 0.5:.12g}, more than the 1 available")


@pytest.mark.parametrize("T", SHIFTS)
def test_precedence_violated_by_one_unit_is_rejected_at_any_time(T):
    # job 0 runs [T, T + 2) on machine 0; job 1 (after job 0) starts at T + 1 on machine 1.
    inst = RelatedInstance(speeds=[1.0, 1.0], jobs=(RelatedJob([2.0]), RelatedJob([1.0])), edges=[[0, 1]])
    rejects(inst, [(0, 0, 0, T, T + 2, 1), (1, 0, 1, T + 1, T + 2, 1)],
            f"precedence job 0 -> job 1: job 1 starts at {T + 1:.12g} before job 0 completes at {T + 2:.12g}")


@pytest.mark.parametrize("T", SHIFTS)
def test_start_before_machine_ready_time_is_rejected_at_any_time(T):
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([1.0]),), ready=[T])
    rejects(inst, [(0, 0, 0, T - 1, T, 1)],
            f"job 0, task 0: starts at {T - 1:.12g} on machine 0, before the machine's ready time {T:.12g}")


@pytest.mark.parametrize("T", [10, 1_000_000])
def test_half_slot_boundary_is_rejected_at_any_time(T):
    # one Map task over [T + 0.5, T + 1.5): work 1 as needed, but not on slot boundaries.
    inst = MapReduceInstance(machines=1, jobs=(MapReduceJob(T, 1, []),))
    rejects(inst, [(0, MAP, P, T + 0.5, T + 1.5, 1)], f"start (a slot boundary) must be a whole number, got {T + 0.5}")


@pytest.mark.parametrize("T", [10, 1_000_000])
def test_reduce_one_slot_before_its_map_ends_is_rejected_at_any_time(T):
    # Map in slot T on machine 0, its Reduce task also in slot T on machine 1.
    inst = MapReduceInstance(machines=2, jobs=(MapReduceJob(T, 1, [1]),))
    rejects(inst, [(0, MAP, 0, T, T + 1, 1), (0, 0, 1, T, T + 1, 1)],
            f"job 0: Reduce work starts in slot {T}, but its last Map task runs in slot {T}")


@pytest.mark.parametrize("T", SHIFTS)
def test_a_dip_below_minima_for_one_unit_is_rejected_at_any_time(T):
    # min 2 processors; 2 over [T, T + 1), 1 over [T + 1, T + 2), 2 over [T + 2, T + 3): work 5.
    inst = MalleableInstance(processors=2, flows=(Flow(sizes=[5.0], max_processors=[2], min_processors=[2],
                                                       release=T),))
    rejects(inst, [(0, 0, P, T, T + 1, 2), (0, 0, P, T + 1, T + 2, 1), (0, 0, P, T + 2, T + 3, 2)],
            f"flow 0, job 0: runs on 1 processors over [{T + 1:.12g}, {T + 2:.12g}) between its start and "
            f"completion, below its min_processors 2", promises=["respects_minima"])


def test_half_a_processor_is_not_whole_for_a_million_processors():
    # TOL · 1000000.5 = 1.0000005 > 0.5: the relative rule called any rate near 1e6 whole.
    inst = MalleableInstance(processors=2_000_000, flows=(Flow(sizes=[1_000_000.5], max_processors=[2_000_000]),))
    rejects(inst, [(0, 0, P, 0, 1, 1_000_000.5)],
            "piece 0 (job 0): rate (a number of processors) must be a whole number, got 1000000.5")


@pytest.mark.parametrize("family", sorted(CASES))
@pytest.mark.parametrize("T", SHIFTS)
def test_the_hand_made_schedules_shifted_far_still_pass(family, T):
    # every start, end and release moves by the whole number T: each piece keeps its length (up to
    # the ulps of T + x), so the shifted schedule is exactly as feasible as the original.
    shifted = {
        "malleable": lambda: MalleableInstance(processors=4, flows=(
            Flow(sizes=[4.0, 6.0], max_processors=[2, 4], min_processors=[0, 2], edges=[[0, 1]], release=T),
            Flow(sizes=[2.0], max_processors=[2], min_processors=[2], release=T + 1, cost=completion(2.0)))),
        "mapreduce": lambda: MapReduceInstance(machines=2, jobs=(MapReduceJob(int(T), 3, [2, 1]),
                                                                  MapReduceJob(int(T) + 1, 1, []))),
        "packing": lambda: PackingInstance(capacities=[2.0, 1.0], jobs=(
            PackingJob(tasks=(PackingTask(1.0, [0, 1], [2.0, 4.0]), PackingTask(1.0, [0], 3.0)), release=T),
            PackingJob(tasks=(PackingTask(2.0, [0, 1], 1.0),), weight=2.0, release=T + 1))),
        "related": lambda: RelatedInstance(speeds=[1.0, 2.0], jobs=(RelatedJob([2.0, 4.0], release=T),
                                                                    RelatedJob([3.0], weight=2.0, release=T + 1)),
                                           edges=[[0, 1]]),
    }
    pieces = [(j, k, m, T + a, T + b, r) for j, k, m, a, b, r in CASES[family][1]]
    accepts(shifted[family](), pieces)


def test_back_to_back_with_rounding_far_from_zero_is_not_an_overlap():
    # (1e6 + 0.3) + 0.3 rounds to 1000000.6000000001 > 1e6 + 0.6: an ulp of overlap.
    T = 1e6
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([0.3, 0.3]), RelatedJob([0.4])))
    assert (T + 0.3) + 0.3 > T + 0.6
    accepts(inst, [(0, 0, 0, T, T + 0.3, 1), (0, 1, 0, T + 0.3, (T + 0.3) + 0.3, 1), (1, 0, 0, T + 0.6, T + 1.0, 1)])


def test_an_overlap_cut_into_short_segments_is_still_an_overlap():
    # task 0 holds machine 0 over [0, 1); ten tasks of 4e-7 run back to back from 0.2 on the same
    # machine: each segment of the overlap is 4e-7 < TOL long, together 4e-6 > TOL.
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([1.0] + [4e-7] * 10),))
    pieces = [(0, 0, 0, 0.0, 1.0, 1)] + [(0, k + 1, 0, 0.2 + k * 4e-7, 0.2 + (k + 1) * 4e-7, 1) for k in range(10)]
    rejects(inst, pieces, "machine 0: 2 tasks in use at time 0.2, more than the 1 available")


def test_tol_is_the_documented_value():
    assert TOL == 1e-6


def _overlap_cases(big):
    """Two unit pieces (two slots for mapreduce) overlapping over [0.6, 1) ([1, 2)), then a third
    job whose length *big* sets the schedule's horizon."""
    return {
        "related": (RelatedInstance(speeds=[1.0], jobs=(RelatedJob([1.0, 1.0]), RelatedJob([float(big)]))),
                    [(0, 0, 0, 0, 1, 1), (0, 1, 0, 0.6, 1.6, 1), (1, 0, 0, 2, big + 2, 1)],
                    "machine 0: 2 tasks in use at time 0.6"),
        "malleable": (MalleableInstance(processors=1, flows=(Flow(sizes=[1.0, 1.0], max_processors=[1, 1]),
                                                             Flow(sizes=[float(big)], max_processors=[1]))),
                      [(0, 0, P, 0, 1, 1), (1, 0, P, 0.6, 1.6, 1), (2, 0, P, 2, big + 2, 1)],
                      "all jobs: 2 processors in use at time 0.6"),
        "packing": (PackingInstance(capacities=[1.0], jobs=(
                        PackingJob(tasks=(PackingTask(1.0, [0], 1.0), PackingTask(1.0, [0], 1.0))),
                        PackingJob(tasks=(PackingTask(1.0, [0], float(big)),)))),
                    [(0, 0, 0, 0, 1, 1), (0, 1, 0, 0.6, 1.6, 1), (1, 0, 0, 2, big + 2, 1)],
                    "machine 0: 2 resource in use at time 0.6"),
        "mapreduce": (MapReduceInstance(machines=1, jobs=(MapReduceJob(0, 2, []), MapReduceJob(0, 2, []),
                                                           MapReduceJob(0, big, []))),
                      [(0, MAP, P, 0, 2, 1), (1, MAP, P, 1, 3, 1), (2, MAP, P, 3, big + 3, 1)],
                      "all jobs: 2 machines in use at time 1"),
    }


@pytest.mark.parametrize("family", ["malleable", "mapreduce", "packing", "related"])
def test_an_early_overlap_is_caught_on_a_short_horizon(family):
    inst, pieces, message = _overlap_cases(1)[family]
    rejects(inst, pieces, message)



@pytest.mark.parametrize("family", ["malleable", "mapreduce", "packing", "related"])
def test_overlap_tolerance_does_not_grow_with_the_horizon(family):
    inst, pieces, message = _overlap_cases(1_000_000)[family]
    rejects(inst, pieces, message)


def test_back_to_back_with_rounding_is_not_an_overlap():
    # 0.1 + 0.2 = 0.30000000000000004 > 0.3: a floating-point overlap of 5e-17.
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([0.1, 0.2]), RelatedJob([0.7])))
    accepts(inst, [(0, 0, 0, 0, 0.1, 1), (0, 1, 0, 0.1, 0.1 + 0.2, 1), (1, 0, 0, 0.3, 1.0, 1)])


def test_a_real_overlap_at_a_shared_boundary_is_caught():
    # piece b starts where piece a ends, but piece c overlaps both ends.
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([1.0, 1.0, 1.0]),))
    rejects(inst, [(0, 0, 0, 0, 1, 1), (0, 1, 0, 1, 2, 1), (0, 2, 0, 0.5, 1.5, 1)],
            "machine 0: 2 tasks in use at time 0.5")


# =============================================================================== Schedule itself

def test_schedule_json_round_trip(tmp_path):
    s = Schedule.from_pieces(PACKING_OK, promises=["no_migration", "non_preemptive"], meta={"algorithm": "hand"})
    back = Schedule.load(s.save(tmp_path / "s.json"))
    for col in ("job", "task", "machine", "start", "end", "rate"):
        np.testing.assert_array_equal(getattr(back, col), getattr(s, col))
        assert getattr(back, col).dtype == getattr(s, col).dtype
    assert back.promises == frozenset({"no_migration", "non_preemptive"})
    assert back.meta == {"algorithm": "hand"}
    verify(packing(), back)


def test_schedule_round_trip_keeps_floats_exactly(tmp_path):
    s = Schedule.from_pieces([(0, 0, 0, 0.1, 0.1 + 0.2, 1 / 3)])
    back = Schedule.load(s.save(tmp_path / "s.json"))
    assert back.end[0] == 0.1 + 0.2 and back.rate[0] == 1 / 3


def test_unknown_promise_is_rejected():
    with pytest.raises(ValueError, match=re.escape("schedule: unknown promise 'fast'")):
        Schedule.from_pieces(PACKING_OK, promises=["fast"])


def test_known_promises():
    assert PROMISES == {"non_preemptive", "no_migration", "respects_minima"}


def test_schedule_from_dict_rejects_unknown_and_missing_fields():
    d = Schedule.from_pieces(PACKING_OK).to_dict()
    with pytest.raises(ValueError, match=re.escape("schedule: unknown field 'colour'")):
        Schedule.from_dict({**d, "colour": []})
    with pytest.raises(ValueError, match=re.escape("schedule: missing column 'rate'")):
        Schedule.from_dict({k: v for k, v in d.items() if k != "rate"})


def test_schedule_load_errors(tmp_path):
    with pytest.raises(ValueError, match="no such schedule file"):
        Schedule.load(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(ValueError, match="not a JSON file"):
        Schedule.load(bad)


def test_schedule_columns_must_have_one_length():
    with pytest.raises(ValueError, match="column task has 1 entries, job has 2"):
        Schedule(job=[0, 1], task=[0], machine=[0, 0], start=[0, 0], end=[1, 1], rate=[1, 1])


def test_schedule_columns_are_read_only():
    s = Schedule.from_pieces(PACKING_OK)
    with pytest.raises(ValueError, match="read-only"):
        s.start[0] = 5.0



@pytest.mark.parametrize("column", ["job", "task", "machine"])
def test_non_integral_ids_are_not_truncated(column):
    pieces = replace(RELATED_OK, 0, **{column: 0.5})
    try:
        s = Schedule.from_pieces(pieces)
    except ValueError:
        return
    with pytest.raises(InfeasibleScheduleError):
        verify(related(), s)


# Issue 13: malformed schedule files. Each raises one ScheduleError naming the field and value;
# before, these raised RecursionError, TypeError, IndexError, IsADirectoryError, were converted
# ("4.0" -> 4.0, true -> 1), wrapped around (2^63 -> -2^63) or went through to verify.

def _doc(**changes):
    """PACKING_OK as a schedule file's dict, with the given keys replaced."""
    return {**Schedule.from_pieces(PACKING_OK).to_dict(), **changes}


def _write(tmp_path, text, name="s.json"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_deeply_nested_json_is_a_schedule_error(tmp_path):
    path = _write(tmp_path, '{"job": ' + "[" * 5000 + "]" * 5000 + "}")
    with pytest.raises(ScheduleError, match=re.escape(f"{path}: the document is nested too deeply for the JSON reader")):
        Schedule.load(path)


def test_a_directory_is_not_a_schedule_file(tmp_path):
    with pytest.raises(ScheduleError, match=re.escape(f"{tmp_path}: is a directory, not a schedule file")):
        Schedule.load(tmp_path)


def test_a_missing_file_is_a_schedule_error(tmp_path):
    with pytest.raises(ScheduleError, match=re.escape(f"{tmp_path / 'none.json'}: no such schedule file")):
        Schedule.load(tmp_path / "none.json")


def test_a_binary_file_is_a_schedule_error(tmp_path):
    path = tmp_path / "s.json"
    path.write_bytes(b"\xff\xfe{")
    with pytest.raises(ScheduleError, match="cannot read the schedule file"):
        Schedule.load(path)


def test_bad_json_is_a_schedule_error(tmp_path):
    with pytest.raises(ScheduleError, match="not a JSON file"):
        Schedule.load(_write(tmp_path, "{"))


@pytest.mark.parametrize("value", [None, 5, 2.5, "0, 1, 2", {"0": 0}, True])
@pytest.mark.parametrize("column", ["job", "start"])
def test_a_column_that_is_not_a_list_is_a_schedule_error(tmp_path, column, value):
    path = _write(tmp_path, json.dumps(_doc(**{column: value})))
    with pytest.raises(ScheduleError, match=re.escape(f"{path}: schedule: column {column} must be a list, got ")):
        Schedule.load(path)


@pytest.mark.parametrize("value", [None, 5, "x", {"a": 1}])
def test_a_column_that_is_not_a_list_is_a_schedule_error_in_memory_too(value):
    with pytest.raises(ScheduleError, match=re.escape(f"schedule: column start must be a list of numbers, got {value!r}")):
        Schedule(job=[0], task=[0], machine=[0], start=value, end=[1], rate=[1])


@pytest.mark.parametrize("column, value", [
    ("job", "0"), ("job", True), ("job", None), ("job", [0]),
    ("task", "0"), ("machine", False),
    ("start", "4.0"), ("start", True), ("end", [2, 3]), ("end", None), ("rate", "1"), ("rate", {"r": 1}),
])
def test_a_cell_that_is_not_a_number_is_a_schedule_error(column, value):
    d = _doc()
    d[column] = [value, *d[column][1:]]
    with pytest.raises(ScheduleError, match=re.escape(f"schedule: piece 0: {column} must be a number, got {value!r}")):
        Schedule.from_dict(d)


def test_strings_and_booleans_are_not_numbers_in_memory_either():
    with pytest.raises(ScheduleError, match=re.escape("schedule: piece 1: start must be a number, got '4.0'")):
        Schedule.from_pieces([(0, 0, 0, 0.0, 2.0, 1), (0, 1, 0, "4.0", 5.0, 1)])
    with pytest.raises(ScheduleError, match=re.escape("schedule: piece 0: job must be a number, got True")):
        Schedule.from_pieces([(True, 0, 0, 0.0, 2.0, 1)])
    with pytest.raises(ScheduleError, match=re.escape("schedule: piece 0: rate must be a number, got True")):
        Schedule(job=[0], task=[0], machine=[0], start=[0.0], end=[1.0], rate=np.array([True]))


def test_a_two_dimensional_array_column_is_a_schedule_error():
    with pytest.raises(ScheduleError, match=re.escape("schedule: column start must be a flat list of numbers, got shape (1, 1)")):
        Schedule(job=[0], task=[0], machine=[0], start=np.zeros((1, 1)), end=[1.0], rate=[1.0])


@pytest.mark.parametrize("value", [2**63, 2**64, 2**53 + 2, -(2**63), 10**400])
def test_ids_beyond_2_to_the_53_are_rejected_not_wrapped(value):
    # 2^63 used to become -2^63 in int64; above 2^53 a float no longer holds every whole number.
    d = _doc()
    d["job"] = [value, *d["job"][1:]]
    with pytest.raises(ScheduleError, match=r"schedule: (piece 0: job must be at most 2\^53 in magnitude, got "
                       + re.escape(repr(value)) + "|column job holds a number too large for a float)"):
        Schedule.from_dict(d)


def test_ids_up_to_2_to_the_53_are_kept_exactly():
    s = Schedule.from_pieces([(2**53, 0, 0, 0.0, 1.0, 1)])
    assert int(s.job[0]) == 2**53


@pytest.mark.parametrize("column", ["start", "end", "rate"])
@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_in_a_file_are_a_schedule_error(tmp_path, column, text):
    d = _doc()
    d[column] = ["@", *d[column][1:]]
    path = _write(tmp_path, json.dumps(d).replace('"@"', text))
    with pytest.raises(ScheduleError, match=re.escape(f"{path}: schedule: piece 0: {column} must be finite, got ")):
        Schedule.load(path)


@pytest.mark.parametrize("column, value, rule", [
    ("job", -1, "job must be >= 0"), ("task", -2, "task must be >= -1 (MAP_TASK)"),
    ("machine", -2, "machine must be >= -1 (POOLED)"),
])
def test_negative_ids_in_a_file_are_a_schedule_error(column, value, rule):
    d = _doc()
    d[column] = [value, *d[column][1:]]
    with pytest.raises(ScheduleError, match=re.escape(f"schedule: piece 0: {rule}, got {value}")):
        Schedule.from_dict(d)


@pytest.mark.parametrize("value", [5, "non_preemptive", {"non_preemptive": True}, None])
def test_promises_of_the_wrong_type_are_a_schedule_error(value):
    with pytest.raises(ScheduleError, match=re.escape(f"schedule: promises must be a list of names, got {value!r}")):
        Schedule.from_dict(_doc(promises=value))


def test_promises_must_be_strings():
    with pytest.raises(ScheduleError, match=re.escape("schedule: promises must be names (strings), got 7")):
        Schedule.from_dict(_doc(promises=[7]))


@pytest.mark.parametrize("value", [5, [["algorithm", "x"]], "x", None])
def test_meta_of_the_wrong_type_is_a_schedule_error(value):
    # [["algorithm", "x"]] used to be turned into {"algorithm": "x"} by dict().
    with pytest.raises(ScheduleError, match=re.escape(f"schedule: meta must be a JSON object, got {value!r}")):
        Schedule.from_dict(_doc(meta=value))
    with pytest.raises(ScheduleError, match=re.escape(f"schedule: meta must be a mapping (a JSON object), got {value!r}")):
        Schedule(job=[0], task=[0], machine=[0], start=[0.0], end=[1.0], rate=[1.0], meta=value)


def test_a_file_without_promises_and_meta_loads(tmp_path):
    d = _doc()
    del d["promises"], d["meta"]
    s = Schedule.load(_write(tmp_path, json.dumps(d)))
    assert s.promises == frozenset() and s.meta == {}
    verify(packing(), s)


def test_schedule_error_is_still_a_value_error():
    # callers (the CLI's verify command) catch ValueError from Schedule.load
    assert issubclass(ScheduleError, ValueError)


def test_to_frame_columns():
    frame = Schedule.from_pieces(MAPREDUCE_OK).to_frame()
    assert list(frame.columns) == ["job", "task", "machine", "start", "end", "rate"]
    assert len(frame) == len(MAPREDUCE_OK)
    assert frame["task"].tolist() == [MAP, MAP, MAP, 0, 1]
    assert frame["end"].tolist() == [1.0, 2.0, 2.0, 4.0, 3.0]


def test_concat_keeps_only_shared_promises():
    a = Schedule.from_pieces(PACKING_OK[:2], promises=["non_preemptive", "no_migration"])
    b = Schedule.from_pieces(PACKING_OK[2:], promises=["non_preemptive"])
    both = Schedule.concat([a, b])
    assert both.promises == {"non_preemptive"}
    assert len(both) == 3
    verify(packing(), both)


def test_verify_rejects_what_is_not_a_schedule():
    with pytest.raises(TypeError, match="expected a Schedule"):
        verify(packing(), PACKING_OK)


# =============================================================================== property tests

def _topological(n, edges):
    """Kahn's order of nodes 0..n-1 under *edges* (smallest ready node first)."""
    indeg = [0] * n
    succ = [[] for _ in range(n)]
    for a, b in np.asarray(edges, dtype=int).reshape(-1, 2).tolist():
        indeg[b] += 1
        succ[a].append(b)
    ready = sorted(i for i in range(n) if indeg[i] == 0)
    order = []
    while ready:
        u = ready.pop(0)
        order.append(u)
        for v in succ[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                ready.append(v)
        ready.sort()
    assert len(order) == n
    return order


def sequential_malleable(inst):
    """Each job alone on its maximum of processors, in topological order, after its release."""
    t, pieces = 0.0, []
    for j in _topological(inst.n_jobs, inst.edges):
        t = max(t, float(inst.job_release[j]))
        d = float(inst.max_procs[j])
        end = t + inst.size[j] / d
        pieces.append((j, 0, P, t, end, d))
        t = end
    return pieces


def sequential_mapreduce(inst):
    """Everything on machine 0, one job after another: its Map tasks, then each Reduce task."""
    t, pieces = 0, []
    for j in range(inst.n_jobs):
        t = max(t, int(inst.arrival[j]))
        m = int(inst.map_work[j])
        if m:
            pieces.append((j, MAP, 0, t, t + m, 1))
            t += m
        for k in range(inst.reduce_offset[j], inst.reduce_offset[j + 1]):
            w = int(inst.reduce_work[k])
            pieces.append((j, int(k - inst.reduce_offset[j]), 0, t, t + w, 1))
            t += w
    return pieces


def sequential_packing(inst):
    """Each task alone, one after another, on the first machine of its set big enough for it."""
    t, pieces = 0.0, []
    for j in range(inst.n_jobs):
        t = max(t, float(inst.release[j]))
        for g in range(inst.job_offset[j], inst.job_offset[j + 1]):
            for q in range(inst.place_offset[g], inst.place_offset[g + 1]):
                m = int(inst.place_machine[q])
                if inst.demand[g] <= inst.capacities[m]:
                    end = t + float(inst.place_time[q])
                    pieces.append((j, int(g - inst.job_offset[j]), m, t, end, float(inst.demand[g])))
                    t = end
                    break
    return pieces


def sequential_related(inst):
    """Every task on the fastest machine, jobs in topological order, after their release."""
    fastest = int(np.argmax(inst.speeds))
    t, pieces = 0.0, []
    for j in _topological(inst.n_jobs, inst.edges):
        t = max(t, float(inst.release[j]))
        for g in range(inst.job_offset[j], inst.job_offset[j + 1]):
            end = t + inst.task_size[g] / inst.speeds[fastest]
            pieces.append((j, int(g - inst.job_offset[j]), fastest, t, end, 1))
            t = end
    return pieces


PROPERTY_CASES = {
    "malleable": (malleable_instances(minima=True, releases=True), sequential_malleable, ["respects_minima"]),
    "mapreduce": (mapreduce_instances(), sequential_mapreduce, ["non_preemptive"]),
    "packing": (packing_instances(releases=True), sequential_packing, ["non_preemptive", "no_migration"]),
    "related": (related_instances(releases=True), sequential_related, []),
}


@pytest.mark.parametrize("family", sorted(PROPERTY_CASES))
def test_sequential_schedules_pass_and_a_stretched_piece_fails(family):
    strategy, build, promises = PROPERTY_CASES[family]

    @given(strategy, st.data())
    def check(inst, data):
        pieces = build(inst)
        s = Schedule.from_pieces(pieces, promises)
        verify(inst, s)
        ev = evaluate(inst, s)
        assert ev.objective == ev.objective  # not NaN
        i = data.draw(st.integers(0, len(pieces) - 1), label="piece")
        start, end = pieces[i][3], pieces[i][4]
        with pytest.raises(InfeasibleScheduleError):
            verify(inst, Schedule.from_pieces(replace(pieces, i, end=end + 0.1 * (end - start)), promises))

    check()


@pytest.mark.parametrize("promises", [[["non_preemptive"]], [{"a": 1}], [1]])
def test_a_promise_that_is_not_a_name_is_a_schedule_error(promises):
    # A nested list inside promises reached frozenset() and raised TypeError (unhashable type).
    data = {"job": [0], "task": [0], "machine": [0], "start": [0.0], "end": [1.0], "rate": [1.0],
            "promises": promises}
    with pytest.raises(ScheduleError, match="promises must be"):
        Schedule.from_dict(data)
    with pytest.raises(ScheduleError, match="promises must be"):
        Schedule([0], [0], [0], [0.0], [1.0], [1.0], promises=promises)


# Issue 16: schedule files carry a schema version, as instance files do.

def test_a_saved_schedule_file_starts_with_schema_version_1(tmp_path):
    s = Schedule.from_pieces(PACKING_OK, promises=["non_preemptive"], meta={"algorithm": "hand"})
    doc = json.loads(s.save(tmp_path / "s.json").read_text())
    assert next(iter(doc)) == "schema_version" and doc["schema_version"] == 1
    back = Schedule.load(tmp_path / "s.json")
    assert back.start.tolist() == [0.0, 0.0, 3.0] and back.promises == {"non_preemptive"}
    verify(packing(), back)


def test_a_schedule_file_without_schema_version_is_read_as_version_1(tmp_path):
    # The text schedrelax 0.1.0 wrote (Schedule.save before the field existed): same keys, no version.
    path = _write(tmp_path, '{"job": [0, 0, 1], "task": [0, 1, 0], "machine": [0, 0, 0], "start": [0.0, 0.0, 3.0], '
                            '"end": [2.0, 3.0, 4.0], "rate": [1.0, 1.0, 2.0], "promises": [], '
                            '"meta": {"algorithm": "fifo"}}\n')
    s = Schedule.load(path)
    assert s.end.tolist() == [2.0, 3.0, 4.0] and s.meta == {"algorithm": "fifo"}
    verify(packing(), s)


def test_a_newer_schema_version_is_a_schedule_error_naming_field_and_value(tmp_path):
    path = _write(tmp_path, json.dumps(_doc(schema_version=2)))
    with pytest.raises(ScheduleError, match=re.escape(
            f"{path}: schedule: unsupported schema_version 2 (a newer format: upgrade schedrelax to read it); "
            "this schedrelax reads schedule files of version 1")):
        Schedule.load(path)


def test_a_newer_version_with_new_fields_names_the_version_not_the_fields():
    with pytest.raises(ScheduleError, match="unsupported schema_version 3 "):
        Schedule.from_dict(_doc(schema_version=3, machine_names=["a"]))


@pytest.mark.parametrize("version", [0, -1, 1.0, "1", True, None, [1], {"v": 1}])
def test_a_schema_version_other_than_the_integer_1_is_a_schedule_error(version):
    with pytest.raises(ScheduleError, match=re.escape(
            f"schedule: unsupported schema_version {version!r}; this schedrelax reads schedule files of version 1")):
        Schedule.from_dict(_doc(schema_version=version))


def test_tie_order_ties_times_an_ulp_apart_and_orders_by_index():
    from schedrelax.schedules import tie_classes, tie_order

    t = 1e6 + np.array([3.0, 1.0, 1.0 + 2 * np.spacing(1e6), 2.0])  # 1 and 2: equal up to round-off
    assert tie_order(t, scale=1.0).tolist() == [1, 2, 3, 0]
    assert tie_order(t[[0, 2, 1, 3]], scale=1.0).tolist() == [1, 2, 3, 0]  # by index, not by the ulp
    assert tie_classes(t, scale=1.0).tolist() == [2, 0, 0, 1]
    # A real difference (1e-6 of the unit) is not a tie.
    assert tie_order(np.array([1.0 + 1e-6, 1.0]), scale=1.0).tolist() == [1, 0]
    assert tie_order(np.array([]), scale=1.0).tolist() == []


def test_unit_factor_is_the_power_of_two_that_brings_a_size_near_one():
    from schedrelax.schedules import unit_factor

    for size in (1e-9, 3.7e-6, 0.74, 1.0, 1.41, 5.0, 1e6):
        f = unit_factor(size)
        assert math.log2(f) == round(math.log2(f))  # a power of 2, so scaling by it is exact
        assert 2 ** -0.5 <= size * f <= 2 ** 0.5
    assert unit_factor(0.0) == unit_factor(math.inf) == unit_factor(math.nan) == 1.0
