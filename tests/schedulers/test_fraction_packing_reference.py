"""SynchPack-1's rounding helpers (issue 17 item 3) against their pre-change versions, kept in
:mod:`tests.schedulers._reference_fraction_packing`: :func:`interval_fraction_packing`,
:func:`left_shift`, :func:`stretched_completion` and :func:`best_stretch` must give the same pieces,
start times and λ, bit for bit, on random inputs (machines, demands with exact fits, durations,
intervals in and out of order, releases, reservations; lists shaped like SynchPack-1's, whose
tasks spread over many machines, for the fraction packing's quiet machines) and on the real
SynchPack-1 path."""

import functools

import numpy as np
import pytest

import schedrelax.rounding.synchpack as sp
from schedrelax.instances.generate import synchpack
from schedrelax.models.synchpack_lp import lp1_program
from schedrelax.rounding.slow_motion import Timeline, best_stretch, stretched_completion
from schedrelax.schedulers.list_packing import (
    FIT_TOL,
    Reservations,
    interval_fraction_packing,
    left_shift,
)
from schedrelax.schedules import verify
from tests.schedulers import _reference_fraction_packing as ref


def same_pieces(a, b):
    for col in ("item", "machine", "start", "end"):
        assert getattr(a, col).tolist() == getattr(b, col).tolist(), col
    assert np.array_equal(a.finish, b.finish, equal_nan=True)


def random_fractions(seed):
    rng = np.random.default_rng(seed)
    M, n = int(rng.integers(1, 7)), int(rng.integers(1, 80))
    caps = rng.choice([0.5, 1.0, 2.0, 0.7], size=M)
    machine = rng.integers(0, M, size=n)
    task = rng.integers(0, max(1, int(rng.integers(1, n + 1))), size=n)
    # Exact fits (1/4 + 1/4 + 1/2 = 1) and awkward floats (0.1 + 0.2 + 0.7 != 1 in binary).
    pool = [0.25, 0.5, 1.0, 0.1, 0.2, 0.3, 0.7] if seed % 2 else list(rng.random(5))
    demand = np.minimum(rng.choice(pool, size=n), caps[machine])
    interval = rng.integers(0, int(rng.integers(1, 8)), size=n)
    if seed % 4:
        interval = np.sort(interval)  # the caller's order; unsorted lists must agree too
    release = rng.choice([0.0, 0.0, 0.5, 1.0, 2.5, 7.0], size=n) if seed % 3 else np.zeros(n)
    duration = rng.integers(1, 9, size=n) / rng.choice([1.0, 3.0, 7.0], size=n)
    res = None
    if seed % 5 == 0:
        r = int(rng.integers(1, 4))
        rm = rng.integers(0, M, size=r)
        res = Reservations(rm, caps[rm] * rng.choice([0.25, 0.5], size=r), rng.choice([0.5, 1.5, 3.0], size=r))
    return machine, duration, demand, task, interval, release, caps, res


@pytest.mark.parametrize("seed", range(300))
def test_interval_fraction_packing_matches_the_pre_change_version(seed):
    args = random_fractions(seed)
    same_pieces(interval_fraction_packing(*args), ref.interval_fraction_packing(*args))


def spread_fractions(seed):
    """Lists shaped like SynchPack-1's: each task's fractions on distinct machines (one demand per
    task, so a fraction often waits for its task's other fractions), sorted by interval, task and
    machine (every 7th list shuffled), up to 20 machines: the preempted fractions sit on many
    machines, most of them quiet from one decision time to the next. In every 4th list the tasks
    of lower intervals are released later, so that the least waiting interval also goes down."""
    rng = np.random.default_rng(50_000 + seed)
    M = int(rng.integers(2, 21))
    caps = rng.choice([0.25, 0.5, 1.0, 0.7, 2.0], size=M)
    T = int(rng.integers(2, 80))
    if seed % 2:
        tdem = rng.choice([0.25, 0.5, 0.125, 0.1, 0.2, 0.3, 0.7, 0.05], size=T)
    else:
        tdem = rng.random(T) * 0.6 + 0.01
    trel = rng.choice([0.0, 0.0, 0.0, 1.0, 2.5], size=T) if seed % 3 else np.zeros(T)
    L = int(rng.integers(1, 9))
    rows = []
    first = np.zeros(T)
    for t in range(T):
        base = first[t] = int(rng.integers(0, L))
        for m in rng.choice(M, size=int(rng.integers(1, min(M, 5) + 1)), replace=False).tolist():
            rows.append((base + int(rng.integers(0, 2)) if rng.random() < 0.5 else base, t, m))
    rows.sort()
    if seed % 7 == 0:
        rng.shuffle(rows)
    interval, task, machine = (np.array(c) for c in zip(*rows))
    demand = np.minimum(tdem[task], caps[machine])
    duration = rng.integers(1, 12, size=len(rows)) / rng.choice([1.0, 3.0, 7.0, 4.0], size=len(rows))
    res = None
    if seed % 5 == 0:
        r = int(rng.integers(1, 5))
        rm = rng.integers(0, M, size=r)
        res = Reservations(rm, caps[rm] * rng.choice([0.25, 0.5], size=r), rng.choice([0.5, 1.5, 3.0], size=r))
    if seed % 4 == 3:
        late = np.random.default_rng(90_000 + seed).choice([0.5, 1.0, 2.0])
        trel = (L - 1 - first) * late
    return machine, duration, demand, task, interval, trel[task], caps, res


@pytest.mark.parametrize("seed", range(150))
def test_interval_fraction_packing_on_spread_tasks_matches_the_pre_change_version(seed):
    args = spread_fractions(seed)
    same_pieces(interval_fraction_packing(*args), ref.interval_fraction_packing(*args))


def test_interval_fraction_packing_follows_the_float_drift_of_preempted_room():
    # Machine 0 holds fractions of 0.2 and 0.1 (interval 1) that are preempted and restarted at
    # every completion on machine 2 while a fraction of interval 0 waits on machine 1. Giving
    # their room back and taking it again leaves 0.7000000000000001, ...03, ...05: the free room
    # drifts up by an ulp a scan, so machine 0 never reaches a fixed point, and the fraction
    # of exactly the room after two scans (plus the slack) starts at t = 2, as the whole-list
    # scan finds. A machine taken as quiet while its room still drifts would never start it.
    free = 1.0 - 0.2 - 0.1
    for _ in range(2):
        free = ((free + 0.2) + 0.1) - 0.2 - 0.1
    assert free + FIT_TOL > 1.0 - 0.2 - 0.1 + FIT_TOL
    machine = np.array([1, 2, 2, 2, 2, 2, 1, 0, 0, 0])
    interval = np.array([0] * 7 + [1, 1, 1])
    demand = np.array([1.0] * 7 + [0.2, 0.1, free + FIT_TOL])
    duration = np.array([10.0] + [1.0] * 6 + [100.0, 100.0, 1.0])
    args = (machine, duration, demand, np.arange(10), interval, np.zeros(10), np.ones(3), None)
    new = interval_fraction_packing(*args)
    same_pieces(new, ref.interval_fraction_packing(*args))
    assert new.start[new.item == 9].tolist() == [2.0]


def test_interval_fraction_packing_restarts_a_task_blocked_until_l_min_went_down():
    # Task 2 runs r (interval 1) on machine 1 from t = 0; its fraction w (interval 1, before r in
    # the list) waits on machine 0, blocked by r at t = 1 (l_min = 1: r is not preempted). At
    # t = 2 a fraction of interval 0 is released: l_min = 0, r is preempted, and w comes first in
    # the scan and starts (r is cut). The fast scan had left w out while r blocked it: the drop of
    # l_min must bring it back.
    machine = np.array([0, 1, 0, 1])
    task = np.array([0, 1, 2, 2])
    interval = np.array([0, 0, 1, 1])
    demand = np.array([1.0, 1.0, 1.0, 0.5])
    duration = np.array([1.0, 1.0, 1.0, 10.0])
    release = np.array([0.0, 2.0, 0.0, 0.0])
    args = (machine, duration, demand, task, interval, release, np.ones(2), None)
    new = interval_fraction_packing(*args)
    same_pieces(new, ref.interval_fraction_packing(*args))
    runs = list(zip(new.item.tolist(), new.start.tolist(), new.end.tolist()))
    assert runs == [(0, 0.0, 1.0), (1, 2.0, 3.0), (2, 2.0, 3.0), (3, 0.0, 2.0), (3, 3.0, 11.0)]


@pytest.mark.parametrize("seed", range(300))
def test_left_shift_matches_the_pre_change_version(seed):
    machine, duration, demand, task, interval, release, caps, res = random_fractions(seed)
    rng = np.random.default_rng(10_000 + seed)
    p = ref.interval_fraction_packing(machine, duration, demand, task, interval, release, caps, res)
    start, end = p.start.copy(), p.end.copy()
    if seed % 2:  # stretched by 1/λ, as Slow-Motion leaves it: room to shift back
        lam = float(rng.uniform(0.3, 1.0))
        start, end = start / lam, end / lam
    m, t = p.machine, task[p.item]
    args = (m, start, end, t, demand[p.item], release[p.item], caps, res)
    new, old = left_shift(*args), ref.left_shift(*args)
    assert new.tolist() == old.tolist()


def random_timeline(seed):
    rng = np.random.default_rng(seed)
    n_units, n_jobs = int(rng.integers(1, 30)), int(rng.integers(1, 8))
    unit, start, end, amount = [], [], [], []
    for u in range(n_units):
        k = int(rng.integers(1, 6))
        t = np.cumsum(rng.choice([0.0, 0.5, 1.0, 2.0], size=2 * k) + (rng.random(2 * k) if seed % 2 else 0))
        t = np.maximum.accumulate(t)
        s, e = t[0::2], np.maximum(t[1::2], t[0::2] + 0.25)
        s[1:] = np.maximum(s[1:], e[:-1])
        e = np.maximum(e, s + 0.25)
        a = rng.random(k)
        unit += [u] * k
        start += s.tolist()
        end += e.tolist()
        amount += (a / a.sum() if seed % 3 else a / max(1.0, a.sum() * 1.5)).tolist()
    unit_job = rng.integers(0, n_jobs, size=n_units)
    unit_job[:n_jobs] = np.arange(min(n_jobs, n_units))
    order = rng.permutation(len(unit))
    tl = Timeline.build(np.array(unit)[order], np.array(start)[order], np.array(end)[order],
                        np.array(amount)[order], np.ones(n_units), unit_job)
    w = rng.choice([0.0, 1.0, 2.5], size=n_jobs) if seed % 4 else np.ones(n_jobs)
    return tl, w


@pytest.mark.filterwarnings("ignore:invalid value encountered")
@pytest.mark.parametrize("seed", range(200))
def test_best_stretch_matches_the_pre_change_version(seed):
    # Jobs without pieces (C = -inf) with weight 0 make the objective NaN: both versions agree.
    tl, w = random_timeline(seed)
    np.testing.assert_array_equal(best_stretch(tl, w), ref.best_stretch(tl, w))
    lams = np.sort(np.random.default_rng(seed).uniform(0.01, 1.0, size=7))
    assert np.array_equal(stretched_completion(tl, lams, len(w)), ref.stretched_completion(tl, lams, len(w)))


def test_best_stretch_with_many_blocks_matches_the_pre_change_version():
    # ~2,000 breakpoints: several blocks of 256, some skipped by the bound.
    for seed in range(3):
        rng = np.random.default_rng(seed)
        n = 2000
        unit = np.repeat(np.arange(200), 10)
        gaps = rng.random(n) + 0.01
        start = np.cumsum(gaps).reshape(200, 10)
        start = (start - start[:, :1] + rng.random((200, 1)) * 5).ravel()
        end = start + 0.005
        amount = rng.random(n)
        amount /= np.bincount(unit, weights=amount)[unit]
        tl = Timeline.build(unit, start, end, amount, np.ones(200), rng.integers(0, 20, size=200))
        w = rng.random(20)
        assert best_stretch(tl, w) == ref.best_stretch(tl, w)


@functools.cache
def lp1(seed, machines, n_jobs, local, online):
    inst = synchpack(seed, machines=machines, n_jobs=n_jobs, tasks_per_job=(1, 6), alpha=None,
                     local_machines=local, online=online)
    _, sol, _, _ = sp._interval_lp(inst, functools.partial(lp1_program, inst, eps=1.0), "highs", None, False)
    return inst, sol


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("machines,n_jobs,local,online", [(4, 8, 1, False), (6, 12, 3, False), (5, 10, 3, True),
                                                         (8, 15, 1, True)])
@pytest.mark.parametrize("mode", ["task", "machine"])
def test_synchpack1_rounding_matches_the_pre_change_version(seed, machines, n_jobs, local, online, mode, monkeypatch):
    inst, sol = lp1(seed, machines, n_jobs, local, online)
    new = sp.synchpack1_round(inst, sol, mode=mode)
    monkeypatch.setattr(sp, "interval_fraction_packing", ref.interval_fraction_packing)
    monkeypatch.setattr(sp, "left_shift", ref.left_shift)
    monkeypatch.setattr(sp, "best_stretch", ref.best_stretch)
    old = sp.synchpack1_round(inst, sol, mode=mode)
    same_pieces(new.packing, old.packing)
    assert new.lam == old.lam
    for col in ("task", "machine", "start", "end"):
        a, b = getattr(new.schedule, col, None), getattr(old.schedule, col, None)
        if a is not None:
            assert np.array_equal(a, b), col
    verify(inst, new.schedule)
