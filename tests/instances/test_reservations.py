"""Packing reservations and related ready times (the online layer's busy machines): one test per
validation rule, the JSON round trip, and the verifier's rejections of hand-made schedules."""

from __future__ import annotations

import numpy as np
import pytest

from schedrelax.errors import InfeasibleScheduleError, InstanceError
from schedrelax.instances import PackingInstance, PackingJob, PackingTask, RelatedInstance, RelatedJob, from_dict
from schedrelax.instances.packing import Reservation
from schedrelax.schedules import Schedule, verify


def packing(reservations=(), caps=(4.0, 4.0)):
    return PackingInstance(capacities=list(caps), jobs=(PackingJob(tasks=(PackingTask(2.0, [0, 1], 1.0),)),),
                           reservations=reservations)


def related(ready=None):
    return RelatedInstance(speeds=[1.0, 2.0], jobs=(RelatedJob(tasks=[2.0]),), ready=ready)


@pytest.mark.parametrize("bad, message", [
    ([(0, 1.0)], r"reservation 0: expected \(machine, demand, until\)"),
    ([(0, 1.0, 2.0), "x"], r"reservation 1: expected \(machine, demand, until\)"),
    ([(2, 1.0, 2.0)], r"reservation 0: machine must be in \[0, 1\], got 2"),
    ([(-1, 1.0, 2.0)], r"reservation 0: machine must be >= 0, got -1"),
    ([(0.5, 1.0, 2.0)], r"reservation 0: machine must be a whole number, got 0.5"),
    ([(0, 0.0, 2.0)], r"reservation 0: demand must be > 0, got 0.0"),
    ([(0, 1.0, 0.0)], r"reservation 0: until must be > 0, got 0.0"),
    ([(0, 1.0, float("inf"))], r"reservation 0: until must be finite"),
    ([(1, 3.0, 2.0), (1, 1.5, 9.0)], r"machine 1: reservations hold 4.5 of the resource at time 0, more than its "
                                     r"capacity 4"),
    (5, r"reservations must be a list of \(machine, demand, until\)"),
])
def test_reservation_rules(bad, message):
    with pytest.raises(InstanceError, match=message):
        packing(bad)


def test_reservation_json_unknown_key_is_an_error():
    data = packing([(0, 1.0, 2.0)]).to_dict()
    data["reservations"][0]["owner"] = 3
    with pytest.raises(InstanceError, match=r"reservation 0: unknown field 'owner'"):
        from_dict(data)


def test_reservations_round_trip_and_are_omitted_when_empty():
    inst = packing([(1, 2.5, 3.0), Reservation(0, 1.0, 0.5)])
    data = inst.to_dict()
    assert data["reservations"] == [{"machine": 1, "demand": 2.5, "until": 3.0},
                                    {"machine": 0, "demand": 1.0, "until": 0.5}]
    back = from_dict(data)
    assert back.reservations == inst.reservations
    assert back.reserved_at(0.0).tolist() == [1.0, 2.5]
    assert back.reserved_at(0.5).tolist() == [0.0, 2.5]  # a reservation holds [0, until)
    assert back.reserved_at(3.0).tolist() == [0.0, 0.0]
    assert "reservations" not in packing().to_dict()


@pytest.mark.parametrize("bad, message", [
    ([0.0], r"instance: ready has 1 entries but speeds has 2"),
    ([0.0, -1.0], r"machine 1: ready must be >= 0, got -1"),
    ([float("nan"), 0.0], r"machine 0: ready must be finite"),
    (["a", 0.0], r"ready\[0\] must be a number"),
])
def test_ready_rules(bad, message):
    with pytest.raises(InstanceError, match=message):
        related(bad)


def test_ready_round_trip_and_is_omitted_when_zero():
    inst = related([0.0, 2.5])
    assert inst.to_dict()["ready"] == [0.0, 2.5]
    assert from_dict(inst.to_dict()).ready.tolist() == [0.0, 2.5]
    assert "ready" not in related().to_dict()
    assert related().ready.tolist() == [0.0, 0.0]


def test_verify_counts_reserved_room():
    # Machine 0 has 4, 3 of it reserved until 2: a task of demand 2 fits there only from time 2.
    inst = packing([(0, 3.0, 2.0)])
    with pytest.raises(InfeasibleScheduleError, match=r"machine 0 \(with its reservations\): 5 resource in use at "
                                                      r"time 1, more than the 4 available"):
        verify(inst, Schedule.from_pieces([(0, 0, 0, 1.0, 2.0, 2.0)]))
    verify(inst, Schedule.from_pieces([(0, 0, 0, 2.0, 3.0, 2.0)]))  # right after the reservation ends
    verify(inst, Schedule.from_pieces([(0, 0, 1, 0.0, 1.0, 2.0)]))  # the other machine is free


def test_verify_rejects_a_task_on_a_busy_related_machine():
    inst = related([0.0, 2.5])
    with pytest.raises(InfeasibleScheduleError, match=r"job 0, task 0: starts at 2 on machine 1, before the "
                                                      r"machine's ready time 2.5"):
        verify(inst, Schedule.from_pieces([(0, 0, 1, 2.0, 3.0, 1.0)]))
    verify(inst, Schedule.from_pieces([(0, 0, 1, 2.5, 3.5, 1.0)]))
    verify(inst, Schedule.from_pieces([(0, 0, 0, 0.0, 2.0, 1.0)]))


def test_reservations_that_fill_a_small_capacity_leave_a_schedulable_instance():
    # Capacity 0.5, a reservation of 0.5000008 until 1: 1.6e-6 over, relative to 0.5. The old
    # check allowed 1e-6 absolute (max(1, cap)), so it accepted an instance on which verify (relative
    # to the capacity) rejects every schedule, since any task must overlap the held room or wait.
    with pytest.raises(InstanceError, match="reservations hold"):
        PackingInstance(capacities=[0.5], jobs=(PackingJob(tasks=(PackingTask(0.25, [0], 1.0),)),),
                        reservations=[Reservation(0, 0.5000008, 1.0)])
    PackingInstance(capacities=[0.5], jobs=(PackingJob(tasks=(PackingTask(0.25, [0], 1.0),)),),
                    reservations=[Reservation(0, 0.5000002, 1.0)])  # within 1e-6 of 0.5: accepted
