"""The incremental sub-instances of :class:`schedrelax.online.remaining.RemainingWork` (issue 17
item 3) against a plain recomputation from every committed piece, written here independently:
each task's done fraction as the sum of its pieces' time over its time on their machine, its
last machine the one of its latest-starting piece, the reservations as the instance's own still
held plus the committed pieces still running, the jobs those arrived with unfinished tasks."""

from __future__ import annotations

import numpy as np
import pytest

from schedrelax import algorithms
from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from schedrelax.instances.generate import generate
from schedrelax.online.remaining import Committed, RemainingWork
from schedrelax.schedules import Schedule


def expected(inst: PackingInstance, pieces: list[tuple], now: float, keep_machine: bool):
    """(jobs, tasks as (original task, demand, placement, times, done fraction), reservations) by hand."""
    ptime = {(t, int(m)): float(p) for t in range(inst.n_tasks)
             for m, p in zip(inst.place_machine[inst.place_offset[t]:inst.place_offset[t + 1]],
                             inst.place_time[inst.place_offset[t]:inst.place_offset[t + 1]])}
    frac = [0.0] * inst.n_tasks
    last: dict[int, tuple[float, int]] = {}
    for j, k, m, s, e, _ in pieces:
        t = int(inst.job_offset[j]) + k
        frac[t] += (e - s) / ptime[(t, m)]
        if t not in last or s >= last[t][0]:
            last[t] = (s, m)
    held = [(int(i), float(a), float(u - now)) for i, a, u in
            zip(inst.reserve_machine, inst.reserve_demand, inst.reserve_until) if u > now]
    held += [(m, r, e - now) for _, _, m, _, e, r in pieces if e > now]
    jobs, tasks = [], []
    for j in range(inst.n_jobs):
        if inst.release[j] > now + 1e-9 * max(1.0, now):
            continue
        mine = []
        for t in range(inst.job_offset[j], inst.job_offset[j + 1]):
            if frac[t] >= 1 - 1e-9:
                continue
            sl = slice(inst.place_offset[t], inst.place_offset[t + 1])
            place, times = inst.place_machine[sl].tolist(), (inst.place_time[sl] * (1 - frac[t])).tolist()
            if keep_machine and frac[t] > 0:
                q = place.index(last[t][1])
                place, times = place[q:q + 1], times[q:q + 1]
            mine.append((t, float(inst.demand[t]), place, times, frac[t]))
        if mine:
            jobs.append((j, float(inst.weights[j]), max(0.0, float(inst.release[j]) - now)))
            tasks += mine
    return jobs, tasks, held


def observed(rem):
    sub = rem.instance
    jobs = [(int(j), float(w), float(r)) for j, w, r in zip(rem.job_map, sub.weights, sub.release)]
    tasks = [(int(rem.task_map[t]), float(sub.demand[t]),
              sub.place_machine[sub.place_offset[t]:sub.place_offset[t + 1]].tolist(),
              sub.place_time[sub.place_offset[t]:sub.place_offset[t + 1]].tolist()) for t in range(sub.n_tasks)]
    held = [(int(i), float(a), float(u)) for i, a, u in zip(sub.reserve_machine, sub.reserve_demand,
                                                             sub.reserve_until)]
    return jobs, tasks, held


def with_reservations(seed: int) -> PackingInstance:
    inst = generate("packing", "synchpack", seed=seed, machines=4, n_jobs=12, tasks_per_job=(1, 4), alpha=2.0,
                    local_machines=2, online=True)
    res = [(i, 0.25 * float(c), 3.0 + i) for i, c in enumerate(inst.capacities.tolist())]
    return PackingInstance(capacities=inst.capacities, jobs=inst.jobs, reservations=res)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", ["fifo", "psrs", "tetris", "synchpack3"])
def test_every_sub_instance_matches_the_recomputation(seed, name):
    # psrs and synchpack3 cut tasks and promise no migration (a cut task keeps its machine);
    # tetris cuts and may migrate; fifo commits tasks whole (reservations).
    inst = with_reservations(seed)
    r = algorithms.run(f"online:{name}", inst, params={"trace": True, "bound": False, "replan_on": "events"})
    work, pieces, keep = RemainingWork(inst), [], False
    seen_running = seen_cut = False
    for p in r.info["plans"]:
        rem = work.at(p["time"], keep_machine=keep)
        want = expected(inst, pieces, p["time"], keep)
        got = observed(rem)
        assert [j[0] for j in got[0]] == [j[0] for j in want[0]]
        assert np.allclose([j[1:] for j in got[0]], [j[1:] for j in want[0]], rtol=1e-12, atol=1e-12)
        assert [(t[0], t[2]) for t in got[1]] == [(t[0], t[2]) for t in want[1]]
        assert np.allclose(np.concatenate([[t[1], *t[3]] for t in got[1]]),
                           np.concatenate([[t[1], *t[3]] for t in want[1]]), rtol=1e-12, atol=1e-12)
        assert [h[0] for h in got[2]] == [h[0] for h in want[2]]
        assert np.allclose([h[1:] for h in got[2]], [h[1:] for h in want[2]], rtol=1e-12, atol=1e-12)
        seen_running |= any(e > p["time"] for *_, e, _ in pieces)
        seen_cut |= any(t[4] > 0 for t in want[1])
        c = p["committed"]
        work.commit(c)
        pieces += list(zip(c.job.tolist(), c.task.tolist(), c.machine.tolist(), c.start.tolist(), c.end.tolist(),
                           c.rate.tolist()))
        keep = "no_migration" in p["plan"].promises
    # The cases the state exists for did occur: fifo's whole tasks still running at a re-plan
    # (held as reservations), the preemptive plans' cut tasks (never running past a re-plan).
    assert seen_running == (name == "fifo")
    assert seen_cut == (name != "fifo")


def test_committed_parts_join_in_order_and_running_pieces_follow_the_clock():
    done = Committed.empty()
    done.add(Schedule([1, 0], [0, 0], [0, 1], [0.0, 0.0], [2.0, 5.0], [0.5, 1.0]))
    done.add(Schedule([], [], [], [], [], []))
    done.add(Schedule([2], [1], [0], [3.0], [4.0], [0.25]))
    assert done.job.tolist() == [1, 0, 2] and done.end.tolist() == [2.0, 5.0, 4.0]
    # Latest end per job: job 0 at 5, job 1 at 2, job 2 at 4.
    assert done.job_end[:3].tolist() == [5.0, 2.0, 4.0] and (done.job_end[3:] == -np.inf).all()
    assert done.running(2.0)["job"].tolist() == [0, 2]  # job 1's piece ends at 2: not running
    assert done.running(4.5)["job"].tolist() == [0]
    with pytest.raises(ValueError, match="now 1.0 is before the time asked before"):
        done.running(1.0)


def test_remaining_work_refuses_an_earlier_time():
    inst = PackingInstance(capacities=[1.0], jobs=(PackingJob(tasks=(PackingTask(1.0, [0], 2.0),)),))
    work = RemainingWork(inst)
    assert work.at(1.0) is not None
    with pytest.raises(ValueError, match="now 0.5 is before the time asked before"):
        work.at(0.5)


def test_committed_joins_a_piece_into_the_run_it_continues_by_hand():
    # Tasks: job 0 has tasks 0, 1; job 1 has task 0 (global 2).
    done = Committed(np.array([0, 2, 3]))
    done.add(Schedule([0, 1, 0], [0, 0, 1], [0, 1, 2], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.5, 1.0, 0.5]))
    # Task 0 goes on on machine 0 from 1 (joined), then again within the part from 2 (joined);
    # job 1's task moves to machine 0 (a new run); task 1 resumes at the same rate after a gap.
    done.add(Schedule([0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 0, 2], [1.0, 1.0, 2.0, 1.5], [2.0, 3.0, 4.0, 2.0],
                      [0.5, 1.0, 0.5, 0.5]))
    # A rate change on the same machine is a new run too.
    done.add(Schedule([0], [0], [0], [4.0], [5.0], [0.25]))
    assert done.job.tolist() == [0, 1, 0, 1, 0, 0]
    assert done.task.tolist() == [0, 0, 1, 0, 1, 0]
    assert done.machine.tolist() == [0, 1, 2, 0, 2, 0]
    assert done.start.tolist() == [0.0, 0.0, 0.0, 1.0, 1.5, 4.0]
    assert done.end.tolist() == [4.0, 1.0, 1.0, 3.0, 2.0, 5.0]
    # running() still sees the pieces as committed.
    assert done.running(1.0)["end"].tolist() == [2.0, 3.0, 4.0, 2.0, 5.0]


@pytest.mark.parametrize("seed", range(200))
def test_committed_runs_are_those_of_joining_piece_by_piece(seed):
    rng = np.random.default_rng(seed)
    n_jobs = int(rng.integers(1, 4))
    offset = np.r_[0, np.cumsum(rng.integers(1, 3, n_jobs))]
    done, runs, latest = Committed(offset), [], {}
    for _ in range(int(rng.integers(1, 6))):
        n = int(rng.integers(0, 7))
        job = rng.integers(0, n_jobs, n)
        task = np.array([rng.integers(0, offset[j + 1] - offset[j]) for j in job], dtype=np.int64)
        start = rng.integers(0, 4, n).astype(float)
        part = Schedule(job, task, rng.integers(0, 2, n), start, start + rng.integers(1, 3, n), rng.choice([0.5, 1.0], n))
        done.add(part)
        for j, k, m, s, e, r in zip(*(getattr(part, c).tolist() for c in ("job", "task", "machine", "start", "end",
                                                                           "rate"))):
            at = latest.get((j, k))
            if at is not None and runs[at][2] == m and runs[at][5] == r and runs[at][4] == s:
                runs[at][4] = e
            else:
                latest[(j, k)] = len(runs)
                runs.append([j, k, m, s, e, r])
    got = list(zip(*(getattr(done, c).tolist() for c in ("job", "task", "machine", "start", "end", "rate"))))
    assert got == [tuple(r) for r in runs]
