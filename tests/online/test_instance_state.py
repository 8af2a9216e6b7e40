"""The online layer keeps what the instance itself says about its machines and costs (issue 13,
items 3 and 4): related ready times, packing reservations and power costs reach every
sub-instance, and malformed ``online:`` names are refused. Expected values are worked out by hand
in the comments."""

from __future__ import annotations

import json

import numpy as np
import pytest

from schedrelax import algorithms
from schedrelax.errors import AlgorithmError
from schedrelax.instances import (
    Flow,
    MalleableInstance,
    PackingInstance,
    PackingJob,
    PackingTask,
    RelatedInstance,
    RelatedJob,
)
from schedrelax.instances.base import from_dict
from schedrelax.instances.costs import completion, power, tardy
from schedrelax.online import Committed, remaining, simulate
from schedrelax.schedules import Schedule, verify

# ------------------------------------------------------------------------------------------
# related: machine ready times
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["fifo", "spc", "tetris", "huwf"])
def test_related_ready_time_of_the_instance_is_kept(name):
    # The fuzzer's case: one machine, ready at 5, one task of size 1 arriving at 0. Whatever the
    # algorithm, the task runs [5, 6]: C = 6.
    inst = from_dict(json.loads('{"family":"related","schema_version":1,"speeds":[1.0],"ready":[5.0],'
                                '"jobs":[{"tasks":[1.0]}]}'))
    r = algorithms.run(f"online:{name}", inst, params={"bound": False})
    assert r.schedule.start.tolist() == [5.0] and r.objective == pytest.approx(6.0)


def test_related_ready_is_the_later_of_own_ready_and_committed_work():
    # Speeds [1, 1], machine 1 ready at 4. FIFO at 0: A (size 3) starts earliest on machine 0,
    # [0, 3]. At 1 B (size 1) arrives; A has started and is committed. The sub-instance (clock
    # shifted by 1) must see machine 0 ready at 3 - 1 = 2 (committed end) and machine 1 at
    # 4 - 1 = 3 (its own ready time): B starts earliest on machine 0, [3, 4] in the original clock.
    # Objective 3 + 4 = 7.
    inst = RelatedInstance(speeds=[1.0, 1.0], ready=[0.0, 4.0],
                           jobs=(RelatedJob(tasks=[3.0]), RelatedJob(tasks=[1.0], release=1.0)))
    r = algorithms.run("online:fifo", inst, params={"bound": False, "trace": True})
    assert r.info["replan_times"] == [0.0, 1.0]
    assert r.info["plans"][1]["plan"].start.tolist() == [3.0]
    assert r.objective == pytest.approx(7.0)


def test_related_ready_reaches_a_late_replan_before_anything_started():
    # One machine ready at 3. A (size 2, at 0) is planned [3, 5]; at 1 B (size 1) arrives and A
    # has not started, so both are re-planned with the machine ready at 3 - 1 = 2 (shifted clock):
    # FIFO keeps A first, [3, 5], then B [5, 6]. Objective 5 + 6 = 11.
    inst = RelatedInstance(speeds=[1.0], ready=[3.0], jobs=(RelatedJob(tasks=[2.0]), RelatedJob(tasks=[1.0], release=1.0)))
    r = algorithms.run("online:fifo", inst, params={"bound": False})
    assert sorted(r.schedule.start.tolist()) == [3.0, 5.0]
    assert r.objective == pytest.approx(11.0)


# ------------------------------------------------------------------------------------------
# packing: reservations
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["fifo", "psrs", "tetris", "tetris-np", "jsq-mw"])
def test_packing_reservation_of_the_instance_is_kept(name):
    # The fuzzer's case: capacity 1, 0.8 reserved until 5; a task of demand 0.5 and length 1 fits
    # only once the reservation ends: [5, 6], C = 6.
    inst = PackingInstance(capacities=[1.0], reservations=[(0, 0.8, 5.0)],
                           jobs=(PackingJob(tasks=(PackingTask(0.5, [0], 1.0),)),))
    r = algorithms.run(f"online:{name}", inst, params={"bound": False})
    assert r.schedule.start.min() == pytest.approx(5.0) and r.objective == pytest.approx(6.0)


def test_packing_reservation_shrinks_with_the_clock_at_a_replan():
    # Capacity 1, 0.8 reserved until 5. FIFO at 0: A (0.5, length 1) waits for 5: [5, 6]. At 2
    # B (0.2, length 1) arrives and A has not started: the sub-instance holds 0.8 until 5 - 2 = 3.
    # B fits beside the reservation (0.8 + 0.2 = 1) and is backfilled at once: [2, 3]; A [5, 6].
    # Objective 6 + 3 = 9.
    inst = PackingInstance(capacities=[1.0], reservations=[(0, 0.8, 5.0)],
                           jobs=(PackingJob(tasks=(PackingTask(0.5, [0], 1.0),)),
                                 PackingJob(tasks=(PackingTask(0.2, [0], 1.0),), release=2.0)))
    r = algorithms.run("online:fifo", inst, params={"bound": False})
    starts = dict(zip(r.schedule.job.tolist(), r.schedule.start.tolist()))
    assert starts == {0: 5.0, 1: 2.0}
    assert r.objective == pytest.approx(9.0)


def test_packing_reservations_combine_with_committed_tasks():
    # Capacity 1, 0.5 reserved until 3. FIFO at 0: A (0.5, length 3) fits beside it: [0, 3]. At 1
    # B (0.5, length 1) arrives: A is committed and holds 0.5 until 3, the reservation the other
    # 0.5 until 3, so B waits: [3, 4]. Objective 3 + 4 = 7.
    inst = PackingInstance(capacities=[1.0], reservations=[(0, 0.5, 3.0)],
                           jobs=(PackingJob(tasks=(PackingTask(0.5, [0], 3.0),)),
                                 PackingJob(tasks=(PackingTask(0.5, [0], 1.0),), release=1.0)))
    r = algorithms.run("online:fifo", inst, params={"bound": False})
    starts = dict(zip(r.schedule.job.tolist(), r.schedule.start.tolist()))
    assert starts == {0: 0.0, 1: 3.0}
    assert r.objective == pytest.approx(7.0)


def test_packing_reservation_ended_before_the_replan_is_dropped():
    # Capacity 1, 1.0 reserved until 1. A (1.0, length 1) at 0 runs [1, 2]; B (1.0, length 1) at
    # 3 finds the machine free: [3, 4]. The sub-instance at 3 has no reservation left (a
    # reservation must end after its time 0). Objective 2 + 4 = 6.
    inst = PackingInstance(capacities=[1.0], reservations=[(0, 1.0, 1.0)],
                           jobs=(PackingJob(tasks=(PackingTask(1.0, [0], 1.0),)),
                                 PackingJob(tasks=(PackingTask(1.0, [0], 1.0),), release=3.0)))
    r = algorithms.run("online:fifo", inst, params={"bound": False})
    assert sorted(r.schedule.start.tolist()) == [1.0, 3.0] and r.objective == pytest.approx(6.0)


# ------------------------------------------------------------------------------------------
# malleable: power costs (and costs that re-base next to them)
# ------------------------------------------------------------------------------------------

def two_power_flows(objective: str = "minisum") -> MalleableInstance:
    # P = 2. Flow A: work 4 (up to 2 processors) at 0; flow B: work 2 at 1; both cost t².
    return MalleableInstance(processors=2, objective=objective,
                             flows=(Flow(sizes=[4.0], max_processors=[2], cost=power(2.0)),
                                    Flow(sizes=[2.0], max_processors=[2], release=1.0, cost=power(2.0))))


def test_power_costs_run_online_fifo_and_fair():
    # FIFO: A on 2 processors finishes at 2, B then runs [2, 3]: 2² + 3² = 13.
    assert algorithms.run("online:fifo", two_power_flows()).objective == pytest.approx(13.0)
    # Fair: A alone until 1 (2 work left), then one processor each: both finish at 3: 9 + 9 = 18.
    assert algorithms.run("online:fair", two_power_flows()).objective == pytest.approx(18.0)
    # Minimax: FIFO's largest cost is B's, 3² = 9.
    assert algorithms.run("online:fifo", two_power_flows("minimax")).objective == pytest.approx(9.0)


def test_power_cost_is_planned_on_the_absolute_clock():
    # P = 1. A: work 2, cost 4·t, at 0; B: work 1, cost t², at 1. At 1, A has 1 left and the
    # exhaustive search over orders picks the cheaper of: A first, C_A = 2, C_B = 3: 8 + 9 = 17;
    # B first, C_B = 2, C_A = 3: 4 + 12 = 16. B goes first: 16. (A plan that restarted B's clock
    # at 1, costing it τ², would compare 4·1 + 2² = 8 with 1² + 4·2 = 9 and put A first: 17.)
    inst = MalleableInstance(processors=1, flows=(Flow(sizes=[2.0], max_processors=[1], cost=completion(4.0)),
                                                  Flow(sizes=[1.0], max_processors=[1], release=1.0,
                                                       cost=power(2.0))))
    r = algorithms.run("online:exhaustive", inst, params={"bound": False})
    assert r.objective == pytest.approx(16.0)


def test_power_next_to_a_step_cost_keeps_the_step_on_the_absolute_clock():
    # P = 1. A: work 1, tardy after 1.5 with weight 5, at 0; B: work 1, cost t², at 0.5. FIFO runs
    # A [0, 1] then B [1, 2]: A is on time, B costs 4. Objective 0 + 4 = 4. The tardy deadline must
    # stay at 1.5 in the original clock however the sub-instance at 0.5 is built.
    inst = MalleableInstance(processors=1, flows=(Flow(sizes=[1.0], max_processors=[1], cost=tardy(1.5, 5.0)),
                                                  Flow(sizes=[1.0], max_processors=[1], release=0.5,
                                                       cost=power(2.0))))
    r = algorithms.run("online:fifo", inst, params={"bound": False, "trace": True})
    assert r.objective == pytest.approx(4.0)
    second = r.info["plans"][1]["plan"]
    assert second.start.min() >= 0.5 - 1e-12


# ------------------------------------------------------------------------------------------
# round-off: what lies a hair after the re-planning time still counts
# ------------------------------------------------------------------------------------------

HAIR = 1e-10
"""Below the simulator's arrival tolerance (1e-9 relative), far above one ulp of 1.0 (2.2e-16)."""


def _first_start(s, job):
    return float(s.start[s.job == job].min())


@pytest.mark.parametrize("family", ["packing", "related", "malleable"])
def test_a_job_arriving_a_hair_after_the_replan_does_not_start_before_it(family):
    # Two arrivals 1e-10 apart collapse into one re-plan at 1, but the later job still may not
    # start before its own release 1 + 1e-10: its sub-instance release is the 1e-10 left.
    late = 1.0 + HAIR
    if family == "packing":
        inst = PackingInstance(capacities=[2.0], jobs=(PackingJob(tasks=(PackingTask(1.0, [0], 1.0),), release=1.0),
                                                       PackingJob(tasks=(PackingTask(1.0, [0], 1.0),), release=late)))
    elif family == "related":
        inst = RelatedInstance(speeds=[1.0, 1.0], jobs=(RelatedJob(tasks=[1.0], release=1.0),
                                                        RelatedJob(tasks=[1.0], release=late)))
    else:
        inst = MalleableInstance(processors=2, flows=(Flow(sizes=[1.0], max_processors=[1], release=1.0),
                                                      Flow(sizes=[1.0], max_processors=[1], release=late)))
    r = algorithms.run("online:fifo", inst, params={"bound": False})
    assert r.info["replan_times"] == [1.0]
    assert _first_start(r.schedule, 1) >= late


def test_a_committed_task_ending_a_hair_after_the_replan_keeps_its_room():
    # Capacity 1. A (demand 1) runs [0, 1 + 1e-10] and is committed at B's arrival, 1. Its room
    # is reserved for the 1e-10 it still runs, so B (demand 1) starts at 1 + 1e-10, not at 1.
    inst = PackingInstance(capacities=[1.0], jobs=(PackingJob(tasks=(PackingTask(1.0, [0], 1.0 + HAIR),)),
                                                   PackingJob(tasks=(PackingTask(1.0, [0], 1.0),), release=1.0)))
    r = algorithms.run("online:fifo", inst, params={"bound": False})
    assert _first_start(r.schedule, 1) >= 1.0 + HAIR


# ------------------------------------------------------------------------------------------
# malformed online names
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, message", [
    ("online:online:fifo", "'online:online:fifo'.*nested"),
    ("online:", "'online:'.*no algorithm"),
    ("online:nope", "'online:nope': unknown algorithm 'nope'"),
    ("online:asrpt", "'online:asrpt': algorithm 'asrpt' accepts mapreduce instances, not related"),
])
def test_malformed_online_names_are_refused(name, message):
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob(tasks=[1.0]),))
    with pytest.raises(AlgorithmError, match=message):
        algorithms.run(name, inst)
    with pytest.raises(AlgorithmError, match=message):
        algorithms.get(name, "related")


def test_simulate_refuses_an_online_inner_algorithm():
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob(tasks=[1.0]),))
    with pytest.raises(AlgorithmError, match="'online:fifo'.*nested"):
        simulate(inst, "online:fifo")
    with pytest.raises(AlgorithmError, match="''.*no algorithm"):
        simulate(inst, "")


def test_simulate_schedule_verifies_against_the_original_instance():
    # simulate() itself does not verify (run() does): its composed schedule must still respect the
    # reservation of the instance it was given.
    inst = PackingInstance(capacities=[1.0], reservations=[(0, 0.8, 5.0)],
                           jobs=(PackingJob(tasks=(PackingTask(0.5, [0], 1.0),)),))
    r = simulate(inst, "fifo", bound=False)
    verify(inst, r.schedule)
    assert np.all(r.schedule.start >= 5.0)


def test_a_piece_that_rounds_to_nothing_on_the_original_clock_is_left_out():
    # A re-plan at now = 23.29...: a plan piece 1e-15 long in the sub-instance's clock (valid
    # there) rounds to zero length at 23.79... (one ulp there is 3.6e-15); it did no work on the
    # original clock and must not reach the schedule as an empty piece. The other two pieces do
    # the work 0.5 + 0.5 = 1 of the flow.
    now = 23.290817744999096
    inst = MalleableInstance(processors=1, flows=(Flow(sizes=[1.0], max_processors=[1], release=now),))
    rem = remaining(inst, Committed.empty(), now)
    eps = 1e-15
    plan = Schedule(np.array([0, 0, 0]), np.array([0, 0, 0]), np.array([-1, -1, -1]),
                    np.array([0.0, 0.5, 0.5 + eps]), np.array([0.5, 0.5 + eps, 1.0 + eps]), np.ones(3))
    verify(rem.instance, plan)
    back = rem.to_original(plan, inst)
    assert (back.end > back.start).all()
    verify(inst, back)
