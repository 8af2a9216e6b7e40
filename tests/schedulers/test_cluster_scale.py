"""The class-aware packing schedulers (issue 17 item 4) against their former implementations,
kept in ``_reference_packing`` and run on the written-out placement: same schedules on random
explicit instances and on random compressed ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from schedrelax.schedulers import fifo, list_packing, packing_baselines
from schedrelax.schedulers.list_packing import MaxTree
from schedrelax.schedulers.packing_baselines import smith_rank
from tests.instances.test_packing_compressed import random_compressed
from tests.schedulers import _reference_packing as ref
from tests.schedulers import _reference_tetris as ref_tetris
from tests.strategies import packing_instances

SETTINGS = settings(max_examples=40, deadline=None)


def same(a, b) -> None:
    for col in ("job", "task", "machine", "start", "end", "rate"):
        assert getattr(a, col).tolist() == getattr(b, col).tolist(), col


def many_identical(seed: int, machines: int = 40) -> PackingInstance:
    """A cluster of identical machines (two capacities), most tasks placed by an elsewhere rule:
    the setting the class-aware code is for."""
    rng = np.random.default_rng(seed)
    caps = np.where(rng.random(machines) < 0.7, 1.0, 2.0)
    jobs = []
    for _ in range(12):
        tasks = []
        for _ in range(int(rng.integers(1, 5))):
            d = float(rng.choice([0.25, 0.5, 0.75, 1.5]))
            p = float(rng.integers(1, 6))
            fits = np.flatnonzero(caps >= d)
            local = rng.choice(fits, size=min(2, len(fits)), replace=False).tolist() if rng.random() < 0.5 else []
            tasks.append(PackingTask(d, local, p, elsewhere_time=p * float(rng.choice([1.0, 2.0]))))
        jobs.append(PackingJob(tuple(tasks), weight=float(rng.integers(1, 4)),
                               release=float(rng.integers(0, 5)) if rng.random() < 0.3 else 0.0))
    return PackingInstance(capacities=caps, jobs=tuple(jobs))


def runs(rows):
    """Tetris's runs with touching runs of a task on one machine joined (what its schedule keeps:
    the new code writes a run cut and restarted at once as one row)."""
    return list_packing._merge_runs(list(rows))


CASES = [("random", s) for s in range(30)] + [("cluster", s) for s in range(10)]


def case(kind: str, seed: int) -> PackingInstance:
    return random_compressed(seed) if kind == "random" else many_identical(seed)


def test_max_tree_against_a_scan():
    rng = np.random.default_rng(0)
    values = rng.integers(0, 5, size=37).astype(float)
    tree = MaxTree(values)
    for _ in range(300):
        if rng.random() < 0.5:
            i = int(rng.integers(0, 37))
            values[i] = float(rng.integers(0, 5))
            tree.set(i, values[i])
        x, lo = float(rng.integers(0, 6)), int(rng.integers(0, 40))
        hits = [i for i in range(lo, 37) if values[i] >= x]
        assert tree.first_at_least(x, lo) == (hits[0] if hits else -1)
        assert tree.max() == values.max()


@SETTINGS
@given(packing_instances(max_machines=4, max_jobs=5, max_tasks=3, releases=True))
def test_fifo_matches_the_former_fifo_on_explicit_instances(inst):
    same(fifo.fifo_packing(inst).schedule, ref.fifo_packing(inst))


@pytest.mark.parametrize("kind,seed", CASES)
def test_fifo_on_compressed_matches_the_former_fifo_written_out(kind, seed):
    inst = case(kind, seed)
    same(fifo.fifo_packing(inst).schedule, ref.fifo_packing(inst.expand_placement()))


@SETTINGS
@given(packing_instances(max_machines=4, max_jobs=5, max_tasks=3, releases=True))
def test_earliest_finish_matches_the_former_scan_on_explicit_instances(inst):
    rank = smith_rank(inst, *list_packing.fastest_machine(inst))
    got = list_packing.earliest_finish_machines(inst, rank)
    want = ref.earliest_finish_machines(inst, rank)
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


@pytest.mark.parametrize("kind,seed", CASES)
def test_earliest_finish_on_compressed_matches_the_former_scan_written_out(kind, seed):
    inst = case(kind, seed)
    rank = smith_rank(inst, *list_packing.fastest_machine(inst))
    got = list_packing.earliest_finish_machines(inst, rank)
    want = ref.earliest_finish_machines(inst.expand_placement(), rank)
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


@pytest.mark.parametrize("kind,seed", CASES)
def test_fastest_and_dedicated_machines_agree_with_the_written_out_placement(kind, seed):
    inst = case(kind, seed)
    full = inst.expand_placement()
    a, b = list_packing.fastest_machine(inst), list_packing.fastest_machine(full)
    assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()
    from schedrelax.models.synchpack_lp import dedicated_machine

    x, y = dedicated_machine(inst), dedicated_machine(full)
    assert (x is None and y is None) or x.tolist() == y.tolist()


@SETTINGS
@given(packing_instances(max_machines=4, max_jobs=5, max_tasks=3, releases=True))
def test_tetris_matches_the_former_tetris_on_explicit_instances(inst):
    for preemptive in (False, True):
        assert (runs(packing_baselines.tetris_packing(inst, preemptive=preemptive))
                == runs(ref.tetris_packing(inst, preemptive=preemptive)))


@pytest.mark.parametrize("kind,seed", CASES)
def test_tetris_on_compressed_matches_the_former_tetris_written_out(kind, seed):
    inst = case(kind, seed)
    full = inst.expand_placement()
    for preemptive in (False, True):
        assert (runs(packing_baselines.tetris_packing(inst, preemptive=preemptive))
                == runs(ref.tetris_packing(full, preemptive=preemptive)))


def tied(seed: int, machines: int = 30) -> PackingInstance:
    """Few distinct demands, times and weights on one or two machine classes: many pairs score
    alike, so the ties (lowest task, then placement order) decide most starts."""
    rng = np.random.default_rng(seed)
    caps = np.where(np.arange(machines) < machines // 3, 2.0, 1.0) if seed % 2 else np.ones(machines)
    jobs = []
    for _ in range(int(rng.integers(8, 20))):
        tasks = []
        for _ in range(int(rng.integers(1, 8))):
            local = rng.choice(machines, size=int(rng.integers(0, 3)), replace=False).tolist()
            tasks.append(PackingTask(0.5, local, 2.0, elsewhere_time=float(rng.choice([2.0, 4.0]))))
        jobs.append(PackingJob(tuple(tasks), weight=float(rng.choice([1.0, 2.0])),
                               release=float(rng.choice([0.0, 0.0, 3.0]))))
    return PackingInstance(capacities=caps, jobs=tuple(jobs))


@pytest.mark.parametrize("kind,seed", CASES + [("tied", s) for s in range(12)])
def test_tetris_runs_are_those_of_the_rescoring_tetris_bit_for_bit(kind, seed):
    """Issue 32 item 4: the incremental choice against the one that re-scored everything at every
    start (the same rows, unmerged, to the last bit)."""
    inst = tied(seed) if kind == "tied" else case(kind, seed)
    for preemptive in (False, True):
        assert (packing_baselines.tetris_packing(inst, preemptive=preemptive)
                == ref_tetris.tetris_packing(inst, preemptive=preemptive))


@SETTINGS
@given(packing_instances(max_machines=4, max_jobs=5, max_tasks=3, releases=True))
def test_tetris_runs_are_those_of_the_rescoring_tetris_on_explicit_instances(inst):
    for preemptive in (False, True):
        assert (packing_baselines.tetris_packing(inst, preemptive=preemptive)
                == ref_tetris.tetris_packing(inst, preemptive=preemptive))


def _jsq_orders(inst):
    fast = list_packing.fastest_machine(inst)
    job_order = np.lexsort((np.arange(inst.n_jobs), inst.release))
    job_pos = np.empty(inst.n_jobs, dtype=np.int64)
    job_pos[job_order] = np.arange(inst.n_jobs)
    return (np.argsort(smith_rank(inst, *fast)), np.lexsort((np.arange(inst.n_tasks), job_pos[inst.task_job])))


@SETTINGS
@given(packing_instances(max_machines=4, max_jobs=5, max_tasks=3, releases=True))
def test_jsq_mw_matches_the_former_jsq_mw_on_explicit_instances(inst):
    for order in _jsq_orders(inst):
        same(packing_baselines.jsq_maxweight(inst, order, "x").schedule, ref.jsq_maxweight(inst, order, "x"))


@pytest.mark.parametrize("kind,seed", CASES)
def test_jsq_mw_on_compressed_matches_the_former_jsq_mw_written_out(kind, seed):
    inst = case(kind, seed)
    for order in _jsq_orders(inst):
        same(packing_baselines.jsq_maxweight(inst, order, "x").schedule,
             ref.jsq_maxweight(inst.expand_placement(), order, "x"))


@pytest.mark.parametrize("seed", range(60))
def test_interval_fraction_packing_matches_the_former_scan(seed):
    rng = np.random.default_rng(seed)
    M, n = int(rng.integers(1, 5)), int(rng.integers(1, 40))
    caps = rng.choice([1.0, 2.0], size=M)
    machine = rng.integers(0, M, size=n)
    task = rng.integers(0, max(1, n // 2), size=n)
    demand = np.minimum(rng.choice([0.25, 0.5, 1.0, 1.5], size=n), caps[machine])
    interval = np.sort(rng.integers(0, 4, size=n))
    release = rng.choice([0.0, 0.0, 1.0, 2.5], size=n)
    duration = rng.integers(1, 6, size=n) / rng.choice([1.0, 2.0, 3.0], size=n)
    res = list_packing.Reservations(np.array([0]), np.array([caps[0] / 2]), np.array([1.5])) if seed % 3 == 0 \
        else None
    a = list_packing.interval_fraction_packing(machine, duration, demand, task, interval, release, caps, res)
    b = ref.interval_fraction_packing(machine, duration, demand, task, interval, release, caps, res)
    for col in ("item", "machine", "start", "end"):
        assert getattr(a, col).tolist() == getattr(b, col).tolist(), col
    assert np.array_equal(a.finish, b.finish, equal_nan=True)


@st.composite
def contended_compressed(draw) -> PackingInstance:
    """Many small tasks on few machines of one to three classes, most of them placed by an
    elsewhere rule and naming one to three machines from a small pool (so that many tasks name the
    class's emptiest machine and take the next one), few distinct demands, times and weights
    (ties), releases and reservations now and then: the fill of Tetris at its busiest."""
    M = draw(st.integers(1, 6))
    caps = draw(st.lists(st.sampled_from([1.0, 1.0, 2.0, 3.0]), min_size=M, max_size=M))
    pool = draw(st.lists(st.integers(0, M - 1), min_size=1, max_size=min(M, 3), unique=True))
    jobs = []
    for _ in range(draw(st.integers(1, 6))):
        tasks = []
        for _ in range(draw(st.integers(1, 5))):
            place = draw(st.lists(st.sampled_from(pool), max_size=3, unique=True))
            rule = draw(st.sampled_from([1.0, 2.0, 4.0])) if not place or draw(st.booleans()) else None
            limit = max(caps) if rule is not None else max(caps[m] for m in place)
            demand = draw(st.sampled_from([d for d in (0.25, 0.5, 1.0, 1.5) if d <= limit]))
            ptime = (draw(st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=len(place), max_size=len(place)))
                     if place and draw(st.booleans()) else draw(st.sampled_from([1.0, 2.0, 3.0])))
            tasks.append(PackingTask(demand=demand, placement=place, processing_time=ptime, elsewhere_time=rule))
        jobs.append(PackingJob(tasks=tuple(tasks), weight=draw(st.sampled_from([1.0, 2.0])),
                               release=draw(st.sampled_from([0.0, 0.0, 0.0, 1.0, 2.5]))))
    reservations = []
    for i in draw(st.lists(st.integers(0, M - 1), max_size=2, unique=True)):
        reservations.append((i, caps[i] * draw(st.sampled_from([0.5, 1.0])), draw(st.sampled_from([1.0, 3.0]))))
    return PackingInstance(capacities=caps, jobs=tuple(jobs), reservations=tuple(reservations))


@settings(max_examples=40, deadline=None)
@given(contended_compressed())
def test_tetris_runs_are_those_of_the_rescoring_tetris_on_contended_compressed_instances(inst):
    """The vectorised class choice (tasks that name the emptiest machine take the next one) and
    the explicit-room update after each start against the re-scoring reference, bit for bit."""
    for preemptive in (False, True):
        assert (packing_baselines.tetris_packing(inst, preemptive=preemptive)
                == ref_tetris.tetris_packing(inst, preemptive=preemptive))


def _certify_everything(mp) -> None:
    """The certified choice on from a fill's first start (it waits for big fills otherwise), every
    certified pick checked against the full pass's and the tracked sums against its exact ones."""
    mp.setattr(packing_baselines, "_CERTIFY_MIN", 0)
    mp.setattr(packing_baselines, "_CERTIFY_AFTER", 0)
    mp.setattr(packing_baselines, "_REANCHOR", 5)
    mp.setattr(packing_baselines, "_CHECK_BOOKS", True)


@pytest.fixture
def certify_everything(monkeypatch):
    _certify_everything(monkeypatch)


@pytest.mark.parametrize("kind,seed", CASES + [("tied", s) for s in range(12)])
def test_certified_tetris_choice_is_the_full_pass_choice(certify_everything, kind, seed):
    """Issue 32 item 4, third round: the certified choice (heaps per SRPT group, tracked ε) against
    the full pass at every pick, and the runs against the re-scoring reference."""
    inst = tied(seed) if kind == "tied" else case(kind, seed)
    for preemptive in (False, True):
        assert (packing_baselines.tetris_packing(inst, preemptive=preemptive)
                == ref_tetris.tetris_packing(inst, preemptive=preemptive))


@settings(max_examples=40, deadline=None)
@given(contended_compressed())
def test_certified_tetris_choice_on_contended_compressed_instances(inst):
    with pytest.MonkeyPatch.context() as mp:
        _certify_everything(mp)
        for preemptive in (False, True):
            assert (packing_baselines.tetris_packing(inst, preemptive=preemptive)
                    == ref_tetris.tetris_packing(inst, preemptive=preemptive))


@settings(max_examples=40, deadline=None)
@given(contended_compressed(), st.booleans())
def test_tetris_start_updates_whole_array_and_pair_by_pair_agree(inst, certified):
    """A start updates a machine's pairs in plain Python when it has at most ``_SCALAR_PAIRS`` of
    them (every machine of the small instances above), with whole-array steps otherwise: the
    whole-array steps, forced everywhere, give the reference's runs too."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(packing_baselines, "_SCALAR_PAIRS", -1)
        if certified:
            _certify_everything(mp)
        for preemptive in (False, True):
            assert (packing_baselines.tetris_packing(inst, preemptive=preemptive)
                    == ref_tetris.tetris_packing(inst, preemptive=preemptive))


def test_certified_tetris_choice_is_taken_on_a_large_fresh_fill():
    """The certified path is the one that runs on a big one-class fill (not only the full pass):
    a fill of 600 tasks on 400 identical machines certifies most of its starts, with the default
    thresholds, and gives the reference's runs."""
    rng = np.random.default_rng(5)
    jobs = []
    for _ in range(60):
        tasks = [PackingTask(float(rng.choice([0.05, 0.1, 0.2])), rng.choice(400, size=2, replace=False).tolist(),
                             float(rng.integers(1, 9)), elsewhere_time=20.0) for _ in range(10)]
        jobs.append(PackingJob(tuple(tasks), weight=float(rng.integers(1, 4))))
    inst = PackingInstance(capacities=np.ones(400), jobs=tuple(jobs))
    picks = []
    choose = packing_baselines._Certified.choose

    def counted(self):
        got = choose(self)
        picks.append(got is not None)
        return got

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(packing_baselines._Certified, "choose", counted)
        rows = packing_baselines.tetris_packing(inst, preemptive=False)
    assert sum(picks) > 400
    assert rows == ref_tetris.tetris_packing(inst, preemptive=False)


@pytest.mark.parametrize("over", [0.0, 0.999e-9])
def test_tetris_p_steady_completions_and_a_machine_packed_to_its_tolerance(over):
    """Tetris-p takes the completion times at which nothing waits and nothing is released on the
    running tasks' own arrays (the restart at home is :func:`restart_homed`'s first shortcut for
    them all). A machine packed within the fit tolerance over its capacity fails that shortcut's
    margin (``over`` > 0): the decision times are then the loop's own, restart by restart. Both
    give the reference's runs."""
    jobs = (PackingJob((PackingTask(0.5, [0], 2.0), PackingTask(0.5 + over, [0], 3.0),
                        PackingTask(0.25, [1], 1.5)), weight=2.0),
            PackingJob((PackingTask(0.25, [1], 4.0), PackingTask(0.5, [1], 1.0, elsewhere_time=5.0)),
                       weight=1.0),
            PackingJob((PackingTask(0.75, [2], 2.5),), weight=1.0, release=3.5))
    inst = PackingInstance(capacities=np.ones(3), jobs=jobs)
    assert (packing_baselines.tetris_packing(inst, preemptive=True)
            == ref_tetris.tetris_packing(inst, preemptive=True))


def inexact_rooms(seed: int, reserve: bool) -> PackingInstance:
    """Demands that are not binary fractions (0.1 + 0.2 != 0.3): a machine's room after some
    starts and their completions is not its capacity again unless it is reset when it goes idle."""
    rng = np.random.default_rng(seed)
    M = int(rng.integers(2, 5))
    jobs = []
    for _ in range(int(rng.integers(4, 10))):
        tasks = []
        for _ in range(int(rng.integers(1, 5))):
            place = rng.choice(M, size=int(rng.integers(0, 2)), replace=False).tolist()
            tasks.append(PackingTask(float(rng.choice([0.1, 0.2, 0.3, 0.7])), place, float(rng.integers(1, 5)),
                                     elsewhere_time=float(rng.choice([1.0, 2.0]))))
        jobs.append(PackingJob(tuple(tasks), weight=float(rng.integers(1, 3)),
                               release=float(rng.choice([0.0, 0.0, 1.0, 2.5]))))
    reservations = ((0, 0.3, 1.5), (M - 1, 0.1, 3.0)) if reserve else ()
    return PackingInstance(capacities=np.ones(M), jobs=tuple(jobs), reservations=reservations)


@pytest.mark.parametrize("seed", range(120))
@pytest.mark.parametrize("reserve", [False, True])
def test_tetris_np_resets_the_room_of_a_machine_gone_idle(seed, reserve):
    """Tetris-np's decision times come off a heap of end times; a machine left idle gets its
    capacity (less its reservations) back, as the loop over every machine gave it (without the
    reset, machines of equal room differ in the last bit and the class's emptiest one changes:
    about one seed in fourteen here). Tetris-p on the same instances too."""
    inst = inexact_rooms(seed, reserve)
    for preemptive in (False, True):
        assert (packing_baselines.tetris_packing(inst, preemptive=preemptive)
                == ref_tetris.tetris_packing(inst, preemptive=preemptive))
