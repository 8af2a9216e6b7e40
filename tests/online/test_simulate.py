"""The online simulator (schedrelax.online): hand-derived tiny cases, the invariants of issue 9
(verify with releases, nothing starts before it arrives, committed non-preemptive tasks never
move, all arrivals at 0 give the offline schedule) and the lower bound below every policy."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from schedrelax import algorithms
from schedrelax.errors import AlgorithmError, InstanceError
from schedrelax.instances import (
    Flow,
    MalleableInstance,
    PackingInstance,
    PackingJob,
    PackingTask,
    RelatedInstance,
    RelatedJob,
)
from schedrelax.instances.generate import generate
from schedrelax.online import online_lower_bound, simulate
from schedrelax.online.remaining import job_release
from schedrelax.schedules import verify

FAMILY_ALGORITHMS = {f: [s.name for s in algorithms.available(f)] for f in ("malleable", "packing", "related")}


# ------------------------------------------------------------------------------------------
# tiny cases worked out by hand
# ------------------------------------------------------------------------------------------

def two_packing_jobs() -> PackingInstance:
    # One machine of capacity 1. A: demand 1, length 2, arrives at 0. B: demand 1, length 0.5, at 1.
    return PackingInstance(capacities=[1.0], jobs=(PackingJob(tasks=(PackingTask(1.0, [0], 2.0),)),
                                                   PackingJob(tasks=(PackingTask(1.0, [0], 0.5),), release=1.0)))


def test_packing_nonpreemptive_keeps_the_running_task():
    # FIFO plans A on [0, 2] at 0. At 1, A has started: it is committed whole and reserves the
    # machine until 2, so B runs [2, 2.5]: C = 2 + 2.5 = 4.5, delays 2 and 1.5.
    r = algorithms.run("online:fifo", two_packing_jobs(), params={"trace": True})
    assert r.objective == pytest.approx(4.5)
    assert r.info["replans"] == 2 and r.info["replan_times"] == [0.0, 1.0]
    assert r.info["metrics"]["weighted_average_delay"] == pytest.approx(1.75)
    second = r.info["plans"][1]["plan"]
    assert second.job.tolist() == [1] and second.start.tolist() == [2.0]


def test_packing_preemptive_replan_resumes_the_cut_task():
    # PSRS plans A on [0, 2]; at 1 it is cut with half done (1 time unit left). B's Smith ratio
    # 1/0.5 beats A's remaining 1/1, so B runs [1, 1.5] and A resumes [1.5, 2.5]: C = 2.5 + 1.5 = 4.
    r = algorithms.run("online:psrs", two_packing_jobs())
    assert r.objective == pytest.approx(4.0)
    a = r.schedule.job == 0
    assert sorted(zip(r.schedule.start[a].tolist(), r.schedule.end[a].tolist())) == [(0.0, 1.0), (1.5, 2.5)]
    assert "no_migration" in r.schedule.promises


def test_related_ready_time_from_the_running_task():
    # Speeds 1 and 2. A (size 4, at 0) goes to the fast machine: [0, 2]. At 1 B (size 2) arrives;
    # the fast machine is ready at 2: S-PC's earliest finish ties (slow: 1 + 2 = 3, fast: 2 + 1 = 3)
    # and goes to the faster machine: B on [2, 3]. C = 2 + 3 = 5.
    inst = RelatedInstance(speeds=[1.0, 2.0], jobs=(RelatedJob(tasks=[4.0]), RelatedJob(tasks=[2.0], release=1.0)))
    r = algorithms.run("online:spc", inst)
    assert r.objective == pytest.approx(5.0)
    b = np.flatnonzero(r.schedule.job == 1)[0]
    assert (r.schedule.machine[b], r.schedule.start[b]) == (1, 2.0)


def two_flows() -> MalleableInstance:
    # P = 2. Flow A: one job of work 4 (up to 2 processors) at 0; flow B: work 2 at 1.
    return MalleableInstance(processors=2, flows=(Flow(sizes=[4.0], max_processors=[2]),
                                                  Flow(sizes=[2.0], max_processors=[2], release=1.0)))


def test_malleable_fifo_and_fair_by_hand():
    # FIFO: A alone on 2 processors until 1 (2 left), then first in line: [1, 2]; B [2, 3]: 2 + 3.
    assert algorithms.run("online:fifo", two_flows()).objective == pytest.approx(5.0)
    # Fair: A alone until 1, then one processor each: both have 2 left and finish at 3: 3 + 3.
    assert algorithms.run("online:fair", two_flows()).objective == pytest.approx(6.0)


# ------------------------------------------------------------------------------------------
# invariants on generated instances
# ------------------------------------------------------------------------------------------

def online_malleable(seed: int) -> MalleableInstance:
    inst = generate("malleable", "flowflex", seed=seed, processors=10, n_flows=(3, 5), jobs_per_flow=(2, 4))
    rng = np.random.default_rng(seed)
    release = np.cumsum(rng.exponential(2.0, inst.n_flows)) - 1.0
    flows = tuple(dataclasses.replace(fl, release=float(max(r, 0.0))) for fl, r in zip(inst.flows, release))
    return MalleableInstance(inst.processors, flows, inst.objective)


def online_instance(family: str, seed: int):
    if family == "malleable":
        return online_malleable(seed)
    if family == "packing":
        return generate("packing", "synchpack", seed=seed, machines=3, n_jobs=6, tasks_per_job=(1, 3), online=True)
    return generate("related", "spc", seed=seed, n_jobs=4, tasks_per_job=(1, 3), machines=3, online=True)


CASES = [(f, a) for f, names in FAMILY_ALGORITHMS.items() for a in names if a not in ("mip", "exhaustive")]


@pytest.mark.parametrize("family, name", CASES)
@pytest.mark.parametrize("replan_on", ["arrivals", "events"])
def test_online_schedules_verify_and_respect_arrivals(family, name, replan_on):
    inst = online_instance(family, 1)
    r = algorithms.run(f"online:{name}", inst, params={"replan_on": replan_on, "bound": False, "trace": True})
    verify(inst, r.schedule)  # run() did too; against the original instance, releases included
    s = r.schedule
    assert (s.start >= job_release(inst)[s.job] - 1e-9).all()
    assert r.info["replans"] >= len(np.unique(job_release(inst)))
    # A plan made at time t never starts anything before t.
    for p in r.info["plans"]:
        assert (p["plan"].start >= p["time"] - 1e-9).all()


def _piece_rows(s, idx=None):
    idx = range(len(s)) if idx is None else idx
    return {(int(s.job[i]), int(s.task[i]), int(s.machine[i]), round(float(s.start[i]), 9), round(float(s.end[i]), 9))
            for i in idx}


@pytest.mark.parametrize("family, name", [("packing", a) for a in ("fifo", "jsq-mw", "synchpack2", "tetris-np")]
                         + [("related", a) for a in FAMILY_ALGORITHMS["related"] if a != "mip"])
def test_nonpreemptive_tasks_are_never_moved(family, name):
    inst = online_instance(family, 2)
    r = algorithms.run(f"online:{name}", inst, params={"trace": True, "bound": False})
    final = _piece_rows(r.schedule)
    for p in r.info["plans"]:
        committed = _piece_rows(p["committed"])
        # Committed pieces are plan pieces, whole, and every one of them is in the final schedule.
        assert committed <= _piece_rows(p["plan"])
        assert committed <= final
        # Every plan piece that starts before the next re-plan is committed.
        starts = p["plan"].start < p["until"] - 1e-9
        assert _piece_rows(p["plan"], np.flatnonzero(starts)) == committed
    # ... and each task runs in exactly one piece.
    g = inst.job_offset[r.schedule.job] + r.schedule.task
    assert np.bincount(g, minlength=inst.n_tasks).tolist() == [1] * inst.n_tasks


def at_time_zero(family: str):
    if family == "malleable":
        return generate("malleable", "flowflex", seed=4, processors=6, n_flows=(2, 3), jobs_per_flow=(1, 3))
    if family == "packing":
        # Whole-number times, so that the time-indexed MIP applies too.
        return PackingInstance(capacities=[2.0, 3.0], jobs=(
            PackingJob(tasks=(PackingTask(1.0, [0, 1], [2.0, 3.0]), PackingTask(2.0, [1], 1.0)), weight=2.0),
            PackingJob(tasks=(PackingTask(2.0, [0], 1.0),)),
            PackingJob(tasks=(PackingTask(1.0, [0, 1], 2.0),), weight=3.0)))
    return generate("related", "spc", seed=4, n_jobs=3, tasks_per_job=(1, 2), machines=2)


@pytest.mark.parametrize("family, name", [(f, a) for f, names in FAMILY_ALGORITHMS.items() for a in names])
def test_all_arrivals_at_zero_give_the_offline_cost(family, name):
    inst = at_time_zero(family)
    assert not job_release(inst).any()
    offline = algorithms.run(name, inst)
    online = algorithms.run(f"online:{name}", inst, params={"bound": False, "epoch": 5.0})
    assert online.info["replans"] == 1
    assert online.objective == pytest.approx(offline.objective, rel=1e-12)


def test_epoch_replans_at_boundaries_and_arrivals_wait():
    inst = online_instance("packing", 3)
    r = algorithms.run("online:fifo", inst, params={"epoch": 2.0, "bound": False})
    times = np.array(r.info["replan_times"])
    assert np.allclose(times / 2.0, np.round(times / 2.0))
    boundary = np.ceil(inst.release / 2.0 - 1e-9) * 2.0
    first = np.full(inst.n_jobs, np.inf)
    np.minimum.at(first, r.schedule.job, r.schedule.start)
    assert (first >= boundary - 1e-9).all()


def test_events_mode_replans_at_completions():
    inst = online_instance("related", 5)
    arrivals = simulate(inst, "spc", bound=False)
    events = simulate(inst, "spc", replan_on="events", bound=False)
    C = np.full(inst.n_jobs, -np.inf)
    np.maximum.at(C, events.schedule.job, events.schedule.end)
    assert events.info["replans"] > arrivals.info["replans"]
    extra = set(events.info["replan_times"]) - set(np.unique(inst.release).tolist())
    assert extra and all(np.isclose(C, t).any() for t in extra)


# ------------------------------------------------------------------------------------------
# lower bounds
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("family", ["malleable", "packing", "related"])
def test_lower_bound_is_below_every_online_policy(family):
    for seed in (0, 1):
        inst = online_instance(family, seed)
        lb, what, _ = online_lower_bound(inst)
        assert lb is not None and lb > 0, what
        for name in FAMILY_ALGORITHMS[family]:
            if name in ("mip", "exhaustive"):
                continue
            r = algorithms.run(f"online:{name}", inst, params={"bound": False})
            assert lb <= r.objective * (1 + 1e-9), (name, lb, r.objective)


def test_no_bound_names_no_bound_kind(monkeypatch):
    # LP-Schedule's segments loop stopped before converging gives no bound (lower_bound None): the
    # online result then carries neither a bound nor a name for one.
    import schedrelax.rounding.spc as spc_module

    real = spc_module.solve_lp_schedule

    def unconverged(*args, **kwargs):
        return dataclasses.replace(real(*args, **kwargs), relaxed=False)

    monkeypatch.setattr(spc_module, "solve_lp_schedule", unconverged)
    inst = online_instance("related", 0)
    lb, what, seconds = online_lower_bound(inst)
    assert lb is None and what is None and seconds >= 0
    r = algorithms.run("online:fifo", inst)
    assert r.lower_bound is None and r.bound_kind is None and r.info["lower_bound_method"] is None


def test_lower_bound_below_the_exact_optimum_below_online_policies():
    # Related: the MIP optimum of the whole instance with releases is the clairvoyant optimum.
    inst = RelatedInstance(speeds=[1.0, 2.0], jobs=(RelatedJob(tasks=[4.0, 2.0]), RelatedJob(tasks=[2.0], release=1.0),
                                                    RelatedJob(tasks=[3.0], release=2.0, weight=2.0)))
    opt = algorithms.run("mip", inst)
    assert opt.info["optimal"]
    lb = algorithms.run("online:fifo", inst).lower_bound
    assert lb <= opt.objective + 1e-9
    for name in FAMILY_ALGORITHMS["related"]:
        assert opt.objective <= algorithms.run(f"online:{name}", inst, params={"bound": False}).objective + 1e-9
    # Packing: the non-preemptive MIP optimum is below every non-preemptive online policy.
    pk = PackingInstance(capacities=[2.0], jobs=(PackingJob(tasks=(PackingTask(1.0, [0], 2.0),)),
                                                 PackingJob(tasks=(PackingTask(2.0, [0], 1.0),), release=1.0),
                                                 PackingJob(tasks=(PackingTask(1.0, [0], 1.0),), release=1.0)))
    opt = algorithms.run("mip", pk)
    lb, _, _ = online_lower_bound(pk)
    assert lb <= opt.objective + 1e-9
    for name in ("fifo", "jsq-mw", "synchpack2", "tetris-np", "mip"):
        assert opt.objective <= algorithms.run(f"online:{name}", pk, params={"bound": False}).objective + 1e-9


# ------------------------------------------------------------------------------------------
# errors
# ------------------------------------------------------------------------------------------

def test_unknown_or_unsupported_online_names():
    inst = two_packing_jobs()
    with pytest.raises(AlgorithmError, match="unknown algorithm 'nope'"):
        algorithms.run("online:nope", inst)
    with pytest.raises(AlgorithmError, match="online re-planning supports malleable, packing, related instances, "
                                             "not mapreduce"):
        algorithms.get("online:asrpt", "mapreduce")
    with pytest.raises(ValueError, match="replan_on must be one of arrivals, events"):
        algorithms.run("online:fifo", inst, params={"replan_on": "never"})
    with pytest.raises(ValueError, match="epoch must be a finite number > 0"):
        algorithms.run("online:fifo", inst, params={"epoch": 0})
    with pytest.raises(AlgorithmError, match="has no parameter 'speed'"):
        algorithms.run("online:fifo", inst, params={"speed": 2})


def test_online_names_are_not_listed():
    assert not any(s.name.startswith("online:") for s in algorithms.available())


# ------------------------------------------------------------------------------------------
# job sizes far below 1 (issue 13)
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("replan_on", ["arrivals", "events"])
def test_a_tiny_job_arriving_late_is_run_not_dropped(replan_on):
    # Flow 0 (1 work) at 0, flow 1 (2e-9 work) at 0.5, P = 1, completion costs. The "done"
    # tolerance was 1e-9 of max(1, size): at 0.5 flow 1 counted as finished before it ran.
    # FIFO by hand: flow 0 on [0, 1]; flow 1 arrives at 0.5, waits, runs [1, 1 + 2e-9]: cost
    # 1 + (1 + 2e-9) = 2 + 2e-9.
    inst = MalleableInstance(processors=1, flows=(Flow([1.0], [1]), Flow([2e-9], [1], release=0.5)))
    res = algorithms.run("online:fifo", inst, params={"replan_on": replan_on, "bound": False})  # verifies
    assert res.objective == pytest.approx(2 + 2e-9, rel=1e-12)
    mine = res.schedule.job == 1
    assert float(np.sum(res.schedule.rate[mine] * (res.schedule.end[mine] - res.schedule.start[mine]))) == \
        pytest.approx(2e-9, rel=1e-6)


def test_a_job_too_short_for_its_clock_is_refused_at_load():
    # 1e-12 work released at 1e6: the spacing of doubles at 1e6 is 1.16e-10, so the plan's piece
    # [0, 1e-12] on the sub-instance's clock is [1e6, 1e6] on the original one. The simulator
    # once said nothing, then named the job; since issue 31 the instance itself is refused (its
    # shortest job is below 1e-9 of its horizon).
    with pytest.raises(InstanceError, match=r"the shortest job .* is 1e-12, below the resolution of its times"):
        MalleableInstance(processors=1, flows=(Flow([1.0], [1]), Flow([1e-12], [1], release=1e6)))


def test_a_job_cut_at_an_epoch_leaves_a_residue_below_the_instances_resolution_and_it_is_run():
    # P = 1. Flow 0: 1 work at 0. Flow 1: 1e4 work at 0.5, planned from the epoch e = 1 - 1e-7 (arrivals
    # wait for the next epoch). FIFO by hand: flow 0 on [0, 1], flow 1 on [1, 1 + 1e4]. At the epoch e flow 0 is cut with 1e-7 of work left; the
    # re-planned sub-instance's shortest job, 1e-7, is 1e-11 of its worst-case horizon (all work on
    # one processor: 1e4 + 1e-7), below the 5e-10 a user's instance may have. It was refused there
    # (found by the online FlowFlex reproduction at 40 flows: 5.8e-6 left of a job at t = 163);
    # the residue is 1e-7 of the stamps around it, which double precision resolves, so it is run.
    e = 1 - 1e-7
    inst = MalleableInstance(processors=1, flows=(Flow([1.0], [1]), Flow([1e4], [1], release=0.5)))
    res = algorithms.run("online:fifo", inst, params={"epoch": e, "bound": False})  # verifies
    assert res.info["replans"] == 2  # at 0 and at e
    assert res.objective == pytest.approx(1 + (1 + 1e4), rel=1e-12)
    first = res.schedule.job == 0
    assert float(np.max(res.schedule.end[first])) == pytest.approx(1.0, abs=1e-12)
    assert float(np.min(res.schedule.start[first & (res.schedule.start > 0)])) == pytest.approx(e, abs=1e-12)


@pytest.mark.parametrize("name", [n for n in FAMILY_ALGORITHMS["packing"] if n not in ("mip", "exhaustive")])
def test_a_packing_task_cut_at_an_epoch_leaves_a_residue_below_the_resolution_and_it_is_run(name):
    # The packing sibling of the case above: one machine of capacity 1, task A (length 1) at 0, task
    # B (length 1e4) at 0.5, epoch e = 1 - 1e-7. A preemptive policy (psrs, psrs-paper, synchpack1,
    # synchpack3, tetris) cut A at e, and the sub-instance's rest of A, 1e-7, was refused beside
    # B's 1e4. By hand every policy runs A on [0, 1] and B on [1, 1 + 1e4]: cost 1 + 10001.
    inst = PackingInstance(capacities=[1.0], jobs=(PackingJob(tasks=(PackingTask(1.0, [0], 1.0),)),
                                                   PackingJob(tasks=(PackingTask(1.0, [0], 1e4),), release=0.5)))
    res = algorithms.run(f"online:{name}", inst, params={"epoch": 1 - 1e-7, "bound": False})  # verifies
    assert res.objective == pytest.approx(1 + (1 + 1e4), rel=1e-12)
