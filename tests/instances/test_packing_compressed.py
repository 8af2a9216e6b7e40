"""Compressed placement (elsewhere rules) and machine classes of packing instances (issue 17, item 4).

The written-out form is checked against an expansion done here by brute force; every packing
algorithm must give the same schedule on an instance and on its written-out twin.
"""

from __future__ import annotations

import json

import jsonschema
import numpy as np
import pytest

from schedrelax import algorithms, schemas
from schedrelax.errors import InfeasibleScheduleError, InstanceError
from schedrelax.instances import PackingInstance, PackingJob, PackingTask, load
from schedrelax.schedules import Schedule, evaluate, verify


def random_compressed(seed: int, max_machines: int = 7, max_jobs: int = 4, reservations: bool = True,
                      releases: bool = True) -> PackingInstance:
    """A small instance whose tasks mix explicit lists and elsewhere rules; capacities from
    {1, 2, 3} so that machines fall into classes."""
    rng = np.random.default_rng(seed)
    M = int(rng.integers(1, max_machines + 1))
    caps = rng.choice([1.0, 2.0, 3.0], size=M)
    jobs = []
    for _ in range(int(rng.integers(1, max_jobs + 1))):
        tasks = []
        for _ in range(int(rng.integers(1, 4))):
            k = int(rng.integers(0, min(M, 3) + 1))
            place = rng.choice(M, size=k, replace=False).tolist()
            rule = None if (k and rng.random() < 0.3) else float(rng.integers(1, 9))
            limit = caps.max() if rule is not None else caps[place].max()
            demand = float(rng.integers(1, int(2 * limit) + 1)) / 2
            ptime = rng.integers(1, 9, size=k).astype(float).tolist() if rng.random() < 0.5 else float(
                rng.integers(1, 9))
            tasks.append(PackingTask(demand=demand, placement=place, processing_time=ptime, elsewhere_time=rule))
        jobs.append(PackingJob(tasks=tuple(tasks), weight=float(rng.integers(1, 4)),
                               release=float(rng.integers(0, 4)) if releases and rng.random() < 0.4 else 0.0))
    res = []
    if reservations and rng.random() < 0.3:
        i = int(rng.integers(0, M))
        res = [(i, float(caps[i]) / 2, float(rng.integers(1, 5)))]
    return PackingInstance(capacities=caps, jobs=tuple(jobs), reservations=res)


def brute_expand(inst: PackingInstance) -> list[list[tuple[int, float]]]:
    """Each task's placement pairs, written out here independently of the instance's code: its
    explicit pairs in order, then every other machine with capacity >= demand, by index."""
    out = []
    for job in inst.jobs:
        for task in job.tasks:
            pairs = [(int(m), float(p)) for m, p in zip(task.placement, task.processing_time)]
            if task.elsewhere_time is not None:
                named = {m for m, _ in pairs}
                pairs += [(i, float(task.elsewhere_time)) for i in range(inst.n_machines)
                          if i not in named and inst.capacities[i] >= task.demand]
            out.append(pairs)
    return out


SEEDS = range(40)


@pytest.mark.parametrize("seed", SEEDS)
def test_written_out_placement_matches_brute_force(seed):
    inst = random_compressed(seed)
    want = brute_expand(inst)
    got = [list(zip(inst.place_machine[inst.place_offset[t]:inst.place_offset[t + 1]].tolist(),
                    inst.place_time[inst.place_offset[t]:inst.place_offset[t + 1]].tolist()))
           for t in range(inst.n_tasks)]
    assert got == want
    full = inst.expand_placement()
    assert not full.compressed
    assert full.place_machine.tolist() == inst.place_machine.tolist()
    assert full.place_time.tolist() == inst.place_time.tolist()
    for t, pairs in enumerate(want):
        for i in range(inst.n_machines):
            expect = dict(pairs).get(i, np.inf)
            assert inst.time_on(t, i) == expect


# Every packing algorithm but the exact MIP (the MIP reads the written-out arrays directly).
ALGORITHMS = [spec.name for spec in algorithms.available("packing") if spec.name != "mip"]
POOLING = ("synchpack1", "synchpack2")


@pytest.mark.parametrize("seed", SEEDS)
def test_every_algorithm_gives_the_same_schedule_on_both_forms(seed):
    inst = random_compressed(seed)
    full = inst.expand_placement()
    for name in ALGORITHMS:
        # SynchPack-1/2 pool machine classes by default on a compressed instance, which may
        # reach another optimal LP vertex: the same data structures are compared written out.
        params = {"aggregate": False} if name in POOLING else None
        a = algorithms.run(name, inst, params=params).schedule
        b = algorithms.run(name, full, params=params).schedule
        for col in ("job", "task", "machine", "start", "end", "rate"):
            assert getattr(a, col).tolist() == getattr(b, col).tolist(), (name, col)
        verify(full, a)  # the compressed run's schedule is valid for the written-out instance too
        assert evaluate(inst, a).objective == evaluate(full, b).objective
    for name in POOLING:
        # the default on the compressed form: pooled when the pool spreads (a certificate of the
        # written-out LP's optimum, so the same bound), else the written-out LP
        pooled, written = algorithms.run(name, inst), algorithms.run(name, full)
        expected = ("pooled", "written out (the pooled solution did not spread") if inst.compressed else ("written out",)
        assert pooled.info["lp_form"].startswith(expected), pooled.info["lp_form"]
        assert pooled.lower_bound == pytest.approx(written.lower_bound, rel=1e-6, abs=1e-9), name
        verify(full, pooled.schedule)


def test_machine_classes_by_hand():
    # caps 1, 2, 1, 2, 1 and a reservation on machine 4: classes {0, 2}, {1, 3}, {4}.
    inst = PackingInstance(capacities=[1, 2, 1, 2, 1],
                           jobs=(PackingJob(tasks=(PackingTask(0.5, [], [], elsewhere_time=2.0),)),),
                           reservations=[(4, 0.5, 1.0)])
    assert inst.machine_class.tolist() == [0, 1, 0, 1, 2]
    assert inst.class_capacity.tolist() == [1.0, 2.0, 1.0]
    assert inst.class_offset.tolist() == [0, 2, 4, 5]
    assert inst.class_member.tolist() == [0, 2, 1, 3, 4]
    assert inst.elsewhere_count.tolist() == [5]


def test_elsewhere_rule_skips_small_machines_and_explicit_ones():
    # demand 1.5: machines 1 and 3 (capacity 2) fit; machine 1 is explicit at time 4.
    inst = PackingInstance(capacities=[1, 2, 1, 2],
                           jobs=(PackingJob(tasks=(PackingTask(1.5, [1], 4.0, elsewhere_time=6.0),)),))
    assert inst.elsewhere_count.tolist() == [1]
    assert inst.place_machine.tolist() == [1, 3] and inst.place_time.tolist() == [4.0, 6.0]
    assert inst.time_on(0, 0) == np.inf and inst.time_on(0, 3) == 6.0


def _one(machine: int, start: float, end: float, demand: float = 1.5) -> Schedule:
    return Schedule([0], [0], [machine], [start], [end], [demand])


def test_verify_accepts_the_rule_and_refuses_what_it_does_not_cover():
    inst = PackingInstance(capacities=[1, 2, 1, 2],
                           jobs=(PackingJob(tasks=(PackingTask(1.5, [1], 4.0, elsewhere_time=6.0),)),))
    verify(inst, _one(3, 0.0, 6.0))   # elsewhere machine, elsewhere time
    verify(inst, _one(1, 0.0, 4.0))   # explicit machine, explicit time
    with pytest.raises(InfeasibleScheduleError, match=r"machine 0, outside its placement set \[1\] and every other machine"):
        verify(inst, _one(0, 0.0, 6.0))  # capacity 1 < demand 1.5: the rule does not cover it
    with pytest.raises(InfeasibleScheduleError, match="fraction of the task"):
        verify(inst, _one(3, 0.0, 4.0))  # 4 of the 6 time units it needs there


def test_validation_names_the_field_and_value():
    def make(**kw):
        task = {"demand": 0.5, "placement": [0], "processing_time": 1.0} | kw
        return PackingInstance(capacities=[1.0, 1.0], jobs=(PackingJob(tasks=(PackingTask(**task),)),))

    with pytest.raises(InstanceError, match=r"job 0, task 0: elsewhere_time must be > 0, got -1"):
        make(elsewhere_time=-1)
    with pytest.raises(InstanceError, match="elsewhere_time must be finite, got inf"):
        make(elsewhere_time=float("inf"))
    with pytest.raises(InstanceError, match="elsewhere_time must be a number, got '2'"):
        make(elsewhere_time="2")
    with pytest.raises(InstanceError, match="placement must not be empty .* unless elsewhere_time is given"):
        make(placement=[], processing_time=[])
    with pytest.raises(InstanceError, match="elsewhere_time 2 covers no other machine: the largest capacity is 1"):
        make(demand=1.5, placement=[], processing_time=[], elsewhere_time=2.0)
    # A rule that covers nothing beside usable explicit machines is allowed and adds no pair.
    inst = make(placement=[0, 1], processing_time=1.0, elsewhere_time=3.0)
    assert not inst.compressed and inst.place_machine.tolist() == [0, 1]


@pytest.mark.parametrize("seed", range(10))
def test_json_round_trip_keeps_the_rule_and_matches_the_schema(tmp_path, seed):
    inst = random_compressed(seed)
    path = inst.save(tmp_path / "i.json")
    doc = json.loads(path.read_text())
    jsonschema.validate(doc, schemas.schema("packing"))
    back = load(path)
    assert back.to_dict() == inst.to_dict()
    assert back.place_machine.tolist() == inst.place_machine.tolist()
    assert back.elsewhere_time.tolist() == inst.elsewhere_time.tolist()


def test_json_with_a_bad_rule_names_it(tmp_path):
    doc = {"family": "packing", "schema_version": 1, "capacities": [1.0],
           "jobs": [{"tasks": [{"demand": 0.5, "placement": [], "processing_time": [], "elsewhere_time": 0}]}]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InstanceError, match="job 0, task 0: elsewhere_time must be > 0, got 0"):
        load(path)
