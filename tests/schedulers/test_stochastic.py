"""Tests of the stochastic-times simulator with LATE speculation (paper 004 §VI-C).

The hand-solved cases give the draws explicitly, so every time below is arithmetic on the sizes,
speeds and factors, written out in the comments; random runs are checked by ``verify`` on the
realised and on the occupancy schedule and by the independent machine sweep."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.schedulers.stochastic import (
    Draws,
    GreedyPlan,
    Late,
    QueuePlan,
    TaskTimes,
    fifo_plan,
    queue_plan,
    simulate,
)
from schedrelax.schedules import evaluate, verify

# One job of three tasks (expected sizes 20, 30, 40) on machines of speeds 1, 1, 4.
ONE_JOB = RelatedInstance(speeds=[1.0, 1.0, 4.0], jobs=(RelatedJob(tasks=[20.0, 30.0, 40.0], weight=2.0),))
PLAN = QueuePlan(((0,), (1,), (2,)))  # task a=0 on M0, b=1 on M1, c=2 on M2
# Task a's original copy straggles (S = 2), everything else runs at its expected size.
DRAWS = Draws(task=np.ones(3), copy=np.array([[2.0, 1.0], [1.0, 1.0], [1.0, 1.0]]))


def test_late_backs_up_the_straggler_on_the_idle_fast_machine():
    run = simulate(ONE_JOB, PLAN, late=Late(heartbeat=None), draws=DRAWS)
    # Durations: a 20*2/1 = 40 on M0, b 30/1 = 30 on M1, c 40/4 = 10 on M2.
    # t = 10: c done, M2 (fast) is idle with an empty queue and asks for a speculative task.
    #   cap = max(1, floor(0.1*3)) = 1, no backup runs.
    #   node progress: M0 10/40 = 0.25, M1 10/30 = 0.333, M2 1 (c succeeded);
    #   25th percentile of [0.25, 0.333, 1] = 0.25 + 0.5*(0.333-0.25) = 0.2917 <= 1: M2 is not slow.
    #   rates: a 1/40 = 0.025, b 1/30 = 0.0333; 25th percentile = 0.025 + 0.25*0.00833 = 0.0271:
    #   only a is below SlowTaskThreshold, so its backup starts on M2 at t = 10,
    #   size 20*1*1 = 20 at speed 4: 5 s, it ends at 15 and wins; the original is killed at 15.
    by = {(c.task, c.speculative): c for c in run.copies}
    backup, original = by[(0, True)], by[(0, False)]
    assert (backup.machine, backup.launch, backup.start, backup.end, backup.won) == (2, 10.0, 10.0, 15.0, True)
    assert (original.machine, original.launch, original.end, original.won) == (0, 0.0, 15.0, False)
    assert run.backups == 1 and run.backups_won == 1
    # killed machine time: the original's 15 s on M0.
    assert run.killed_seconds == pytest.approx(15.0)
    # the job completes with b at 30; weight 2: objective 60 (without LATE: a at 40, 2*40 = 80).
    assert run.objective == pytest.approx(60.0)
    assert simulate(ONE_JOB, PLAN, late=None, draws=DRAWS).objective == pytest.approx(80.0)
    # the realised instance carries the winning copy's size: a = 20 (the backup's), b = 30, c = 40.
    assert run.realised.task_size.tolist() == [20.0, 30.0, 40.0]
    run.verify()


def test_late_refuses_a_slow_node():
    # Same, but M2 has speed 1/4 and c (size 40) takes 40/0.25 = 160 s; b (size 2) takes 2 s on M1,
    # so M1 asks at t = 2: node progress M0 2/40 = 0.05, M1 1, M2 2/160 = 0.0125; percentile 25 of
    # [0.0125, 0.05, 1] = 0.0125 + 0.5*0.0375 = 0.03125 <= 1, M1 is not slow. Rates: a 1/40 = 0.025,
    # c 1/160 = 0.00625; percentile 25 = 0.00625 + 0.25*0.01875 = 0.0109: only c is below; its time
    # left is 158 s, so M1 backs up c: 40/1 = 40 s, ending at 42 < 160: the backup wins at 42.
    inst = RelatedInstance(speeds=[1.0, 1.0, 0.25], jobs=(RelatedJob(tasks=[20.0, 2.0, 40.0]),))
    run = simulate(inst, PLAN, late=Late(heartbeat=None), draws=DRAWS)
    backup = next(c for c in run.copies if c.speculative)
    assert (backup.task, backup.machine, backup.launch, backup.end, backup.won) == (2, 1, 2.0, 42.0, True)
    # M2, slow (progress 0 after its copy of c is killed at 42, below the 25th percentile of
    # [progress of M0 at 42 = 42/40 -> a is done at 40 so M0 = 1, M1 = 2, M2 = 0] = 0.5), asks at 42
    # and is refused: nothing else runs then anyway. The job ends at max(40, 2, 42) = 42.
    assert run.objective == pytest.approx(42.0)
    run.verify()


def test_node_below_slow_node_threshold_gets_no_backup():
    # Four machines: M0 speed 1 runs a (20*2 = 40 s), M1 speed 1 runs b (30 s), M2 speed 1 runs
    # d (size 1, 1 s), M3 speed 1 runs e (size 1.5, 1.5 s). At t = 1 M2 asks: progress M0 1/40,
    # M1 1/30, M2 1, M3 1/1.5: M2 is fast enough; rates a 0.025, b 0.0333, e 0.667: percentile 25
    # of [0.025, 0.0333, 0.667] = 0.025 + 0.5*0.00833 = 0.0292, a is below: M2 backs up a at t = 1.
    # SpeculativeCap = max(1, floor(0.4)) = 1: at t = 1.5 M3 asks, but one backup already runs.
    inst = RelatedInstance(speeds=[1.0] * 4, jobs=(RelatedJob(tasks=[20.0, 30.0, 1.0, 1.5]),))
    draws = Draws(np.ones(4), np.array([[2.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]))
    run = simulate(inst, QueuePlan(((0,), (1,), (2,), (3,))), late=Late(heartbeat=None), draws=draws)
    backups = [c for c in run.copies if c.speculative]
    # the backup of a: 20/1 = 20 s from t = 1, ends at 21 < 40 and wins.
    assert [(c.task, c.machine, c.launch, c.end) for c in backups] == [(0, 2, 1.0, 21.0)]
    # at 21 M0 (killed, progress 0) is below the 25th percentile, M2 asks again but b (the only
    # running copy) is not strictly below its own percentile: no second backup. Job ends at 30.
    assert run.objective == pytest.approx(30.0)
    run.verify()


def test_greedy_slowstart_holds_reduce_tasks():
    # Map node (two tasks of 4) -> reduce node (one task of 2) on machines of speeds 2 and 1.
    # FIFO with slowstart 0.5: t = 0, M0 (fast) takes map 0 (4/2 = 2 s), M1 takes map 1 (4/1 = 4 s).
    # t = 2: map 0 done, 1 of 2 >= ceil(0.5*2) = 1 completed: the reduce launches on M0 and holds it
    # until the map phase ends at t = 4, then runs 2/2 = 1 s: done at 5 (held 2 s).
    inst = RelatedInstance(speeds=[2.0, 1.0], jobs=(RelatedJob(tasks=[4.0, 4.0], weight=0.0),
                                                    RelatedJob(tasks=[2.0], weight=1.0)), edges=[(0, 1)])
    draws = Draws(np.ones(3), np.ones((3, 2)))
    run = simulate(inst, fifo_plan(inst, slowstart=0.5), draws=draws)
    red = next(c for c in run.copies if c.job == 1)
    assert (red.machine, red.launch, red.start, red.end) == (0, 2.0, 4.0, 5.0)
    assert run.held_seconds == pytest.approx(2.0)
    assert run.objective == pytest.approx(5.0)
    # slowstart 1 (the package's FIFO): the reduce waits for both maps and launches at 4 on M0: 5 too,
    # but never holds a machine.
    full = simulate(inst, fifo_plan(inst, slowstart=1.0), draws=draws)
    assert full.held_seconds == 0.0 and full.objective == pytest.approx(5.0)
    run.verify()


def test_queue_plan_reads_machines_and_order():
    from schedrelax.algorithms import run

    inst = RelatedInstance(speeds=[2.0, 1.0], jobs=(RelatedJob(tasks=[4.0, 2.0]), RelatedJob(tasks=[1.0])))
    sched = run("fifo", inst).schedule
    plan = queue_plan(inst, sched)
    # with fixed times the plan runs exactly as the schedule on the expected sizes
    out = simulate(inst, plan, TaskTimes(distribution="fixed"), seed=0)
    assert out.objective == pytest.approx(evaluate(inst, sched).objective)
    assert sorted(t for q in plan.queues for t in q) == [0, 1, 2]


def _random_instance(seed: int) -> RelatedInstance:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    jobs, edges = [], []
    for j in range(n):
        jobs.append(RelatedJob(tasks=rng.uniform(1, 10, int(rng.integers(1, 5))).tolist(),
                               weight=float(rng.uniform(0, 5)), release=float(rng.choice([0.0, rng.uniform(0, 10)]))))
        if j and rng.random() < 0.5:
            edges.append((int(rng.integers(0, j)), j))
    return RelatedInstance(speeds=rng.choice([1.0, 8.0], int(rng.integers(1, 5))).tolist(), jobs=tuple(jobs),
                           edges=edges)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), greedy=st.booleans(), slowstart=st.sampled_from([0.0, 0.05, 0.5, 1.0]),
       use_late=st.booleans(), straggle=st.booleans())
def test_random_runs_verify(seed, greedy, slowstart, use_late, straggle):
    from schedrelax.algorithms import run

    inst = _random_instance(seed)
    plan = fifo_plan(inst, slowstart) if greedy else queue_plan(inst, run("fifo", inst).schedule)
    times = TaskTimes("lognormal", 0.4, straggler_prob=0.3 if straggle else 0.0, straggler_factor=4.0)
    out = simulate(inst, plan, times, late=Late() if use_late else None, seed=seed)
    out.verify()
    # an independent look at the result: each task's winning copy length is its realised size
    # over its machine's speed, and the job completions give the objective.
    w = [c for c in out.copies if c.won]
    assert len(w) == inst.n_tasks == len({c.task for c in w})
    for c in w:
        assert c.end - c.start == pytest.approx(out.realised.task_size[c.task] / inst.speeds[c.machine])
    C = np.zeros(inst.n_jobs)
    for c in w:
        C[c.job] = max(C[c.job], c.end)
    assert out.objective == pytest.approx(float(np.dot(inst.weights, C)))
    # killed copies end when their task's winner does
    end = {c.task: c.end for c in w}
    assert all(c.end == end[c.task] for c in out.copies if not c.won)


def test_same_seed_same_run_other_seed_other_run():
    inst = _random_instance(3)
    plan = fifo_plan(inst, 0.05)
    times = TaskTimes("lognormal", 0.3, straggler_prob=0.2, straggler_factor=3.0)
    a = simulate(inst, plan, times, late=Late(), seed=7)
    b = simulate(inst, plan, times, late=Late(), seed=7)
    c = simulate(inst, plan, times, late=Late(), seed=8)
    assert a.copies == b.copies and a.objective == b.objective
    assert a.realised.task_size.tolist() != c.realised.task_size.tolist()


def test_draws_have_mean_one():
    # E[X] = 1 and E[S] = 1 by construction; 200,000 draws put the sample means within 1 %.
    d = TaskTimes("lognormal", 0.25, straggler_prob=0.1, straggler_factor=5.0).draw(200_000, np.random.default_rng(0))
    assert d.task.mean() == pytest.approx(1.0, abs=0.01)
    assert d.task.std() == pytest.approx(0.25, abs=0.01)
    assert d.copy.mean() == pytest.approx(1.0, abs=0.01)
    u = TaskTimes("uniform", 0.12).draw(200_000, np.random.default_rng(1))
    assert u.task.min() >= 0.88 and u.task.max() <= 1.12


def test_verify_catches_an_overlapping_killed_copy():
    # The occupancy check must fail if a killed copy overlapped another: forge one.
    from dataclasses import replace

    from schedrelax.errors import InfeasibleScheduleError

    run = simulate(ONE_JOB, PLAN, late=Late(heartbeat=None), draws=DRAWS)
    forged = tuple(replace(c, end=20.0) if not c.won else c for c in run.copies)  # original of a kept to 20
    bad = type(run)(run.expected, run.realised, run.schedule, forged
                    + (replace(forged[-1], task=1, launch=16.0, start=16.0, end=18.0, won=False, machine=0),))
    with pytest.raises(InfeasibleScheduleError):
        verify(*bad.occupancy())
    with pytest.raises(AssertionError):
        bad.check_machines()


@pytest.mark.parametrize("bad, match", [
    ({"distribution": "gamma"}, "distribution"),
    ({"spread": -1.0}, "spread"),
    ({"distribution": "uniform", "spread": 1.0}, "spread"),
    ({"straggler_prob": 1.5}, "straggler_prob"),
    ({"straggler_factor": 0.0}, "straggler_factor"),
])
def test_bad_task_times_raise(bad, match):
    with pytest.raises(ValueError, match=match):
        TaskTimes(**bad)


def test_bad_plans_raise():
    with pytest.raises(ValueError, match="slowstart"):
        GreedyPlan((0,), slowstart=2.0)
    with pytest.raises(ValueError, match="queues"):
        simulate(ONE_JOB, QueuePlan(((0, 1), (), ())), draws=DRAWS)
    with pytest.raises(ValueError, match="heartbeat"):
        Late(heartbeat=0.0)
    with pytest.raises(ValueError, match="speculative_cap"):
        Late(speculative_cap=2.0)
