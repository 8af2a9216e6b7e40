"""Tests of schedrelax.schedulers.fifo: hand-checked schedules, true bounds on random instances,
the non-preemptive promise, and a paper-scale MapReduce run."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from schedrelax import algorithms
from schedrelax.algorithms import run
from schedrelax.errors import AlgorithmError, InfeasibleScheduleError
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
    single_job_flows,
)
from schedrelax.instances.costs import completion
from schedrelax.schedules import MAP_TASK, POOLED, Schedule, verify

SETTINGS = settings(max_examples=30, deadline=None)
REL = 1e-6  # slack for float comparisons of bounds, the verifier's own tolerance


def test_fifo_is_registered_for_every_family():
    families = {spec.family for spec in algorithms.available() if spec.name == "fifo"}
    assert families == {"malleable", "mapreduce", "packing", "related"}


# ------------------------------------------------------------------------------------ malleable

def test_malleable_two_single_job_flows():
    # P=4: flow 0 (size 8, max 4) takes all 4 processors until t=2; flow 1 (size 4, max 2) then
    # runs on 2 processors until t=4. Completions 2 and 4: Σ C = 6.
    inst = single_job_flows(4, [8, 4], [4, 2])
    res = run("fifo", inst)
    assert res.objective == pytest.approx(6.0)
    assert res.evaluation.completion.tolist() == pytest.approx([2.0, 4.0])
    assert res.lower_bound is None and res.guarantee is None


def test_malleable_dag_and_release():
    # P=4. Flow 0 (release 0): job a (size 4, max 2) -> job b (size 4, max 4). Flow 1 (release 1):
    # job c (size 6, max 4).
    # [0,1): only a is ready: 2 processors, 2 idle.          a has 2 left.
    # [1,2): a (flow 0 first) 2, c gets the other 2.         a done at 2; c has 4 left.
    # [2,3): b is ready and belongs to flow 0: it takes 4.   b done at 3.
    # [3,4): c alone on 4.                                   c done at 4.
    # Flow completions 3 and 4: Σ C = 7, makespan 4.
    inst = MalleableInstance(4, (Flow([4, 4], [2, 4], edges=[(0, 1)]), Flow([6], [4], release=1.0)))
    res = run("fifo", inst)
    assert res.objective == pytest.approx(7.0)
    assert res.evaluation.metrics["makespan"] == pytest.approx(4.0)
    # c runs at 2 then at 4 processors: two pieces, never merged across the rate change.
    c = res.schedule.job == 2
    assert sorted(zip(res.schedule.start[c], res.schedule.end[c], res.schedule.rate[c])) == [(1, 2, 2), (3, 4, 4)]


def test_malleable_ignores_minima():
    # P=3, three single-job flows of sizes 6, 4, 3, maxima 3, 2, 2 and minimum 2 each.
    # [0, 2):   job 0 on 3 processors: done at 2 (jobs 1 and 2 wait, below their minima).
    # [2, 4):   job 1 on 2, job 2 on the 1 left — below its minimum: done at 4, 1 left for job 2.
    # [4, 4.5): job 2 on 2: done at 4.5.  Σ C = 2 + 4 + 4.5 = 10.5.
    inst = single_job_flows(3, [6, 4, 3], [3, 2, 2], [2, 2, 2])
    res = run("fifo", inst)
    assert "respects_minima" not in res.schedule.promises
    assert res.objective == pytest.approx(10.5)


def test_malleable_merges_equal_rates():
    # P=4, sizes 8, 2, 4, all max 2. [0, 1): jobs 0 and 1 on 2 each, job 1 done at 1; [1, 3): job 2
    # takes over job 1's processors, done at 3; job 0 keeps 2 processors until 4. Σ C = 4 + 1 + 3.
    # Job 0's rate never changes across the events at 1 and 3: one piece [0, 4).
    inst = single_job_flows(4, [8, 2, 4], [2, 2, 2])
    res = run("fifo", inst)
    assert res.objective == pytest.approx(8.0)
    s = res.schedule
    assert len(s) == 3
    assert (s.start[s.job == 0].tolist(), s.end[s.job == 0].tolist()) == ([0.0], [4.0])


def test_malleable_minimax_cost():
    # Same schedule as the first test; minimax of weighted completions max(3·2, 1·4) = 6.
    inst = single_job_flows(4, [8, 4], [4, 2], costs=[completion(3.0), completion(1.0)], objective="minimax")
    assert run("fifo", inst).objective == pytest.approx(6.0)


@st.composite
def malleable_instances(draw):
    P = draw(st.integers(1, 6))
    flows = []
    for _ in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 4))
        sizes = draw(st.lists(st.floats(0.1, 10, allow_nan=False), min_size=n, max_size=n))
        maxp = draw(st.lists(st.integers(1, P), min_size=n, max_size=n))
        minp = [draw(st.integers(0, m)) for m in maxp]
        pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
        edges = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
        release = draw(st.one_of(st.integers(0, 5).map(float), st.floats(0, 5)))
        flows.append(Flow(sizes, maxp, minp, edges=edges, release=release))
    return MalleableInstance(P, tuple(flows))


def _longest_chain(inst: MalleableInstance) -> np.ndarray:
    """Per job: its flow's release plus the longest chain of size/max ending with it."""
    dur = inst.size / inst.max_procs
    ends = inst.job_release + dur
    # Edges go from a lower to a higher index within a flow: one pass in index order suffices.
    for a, b in sorted(inst.edges.tolist(), key=lambda e: e[1]):
        ends[b] = max(ends[b], ends[a] + dur[b])
    return ends


@SETTINGS
@given(malleable_instances())
def test_malleable_bounds(inst):
    res = run("fifo", inst)  # verifies
    cmax = res.evaluation.metrics["makespan"]
    chain = _longest_chain(inst)
    # Lower bounds true for every schedule: a job runs on at most max_processors, after its
    # predecessors and its flow's release; and the work released at or after τ needs at least
    # (that work)/P time after τ.
    rel = inst.job_release
    work_after = max(t + inst.size[rel >= t].sum() / inst.processors for t in np.unique(rel))
    assert cmax >= max(chain.max(), work_after) * (1 - REL)
    # Upper bound true for FIFO (Graham's argument): after the last release r_max, at an instant
    # when some processor idles every ready job runs at its maximum (a job held below its
    # maximum got all processors left). Following the last job's chain of predecessors back to
    # r_max, the idle instants cost at most Σ size/max along the chain, and the busy ones at
    # most W/P. So C_max <= r_max + W/P + longest chain of size/max.
    L = (chain - inst.job_release).max()
    assert cmax <= (rel.max() + inst.size.sum() / inst.processors + L) * (1 + REL)


def test_malleable_many_flows():
    rng = np.random.default_rng(7)
    flows = []
    for f in range(300):
        n = int(rng.integers(1, 6))
        edges = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < 0.3]
        flows.append(Flow(rng.uniform(1, 50, n).tolist(), rng.integers(1, 21, n).tolist(), edges=edges,
                          release=float(rng.uniform(0, 200))))
    inst = MalleableInstance(20, tuple(flows))
    res = run("fifo", inst)
    assert res.evaluation.metrics["makespan"] >= inst.size.sum() / 20 * (1 - REL)
    assert res.info["events"] <= inst.n_jobs + inst.n_flows + 1


# ------------------------------------------------------------------------------------ mapreduce

def test_mapreduce_preemptive_and_not():
    # N=2. Job 0 (slot 0): 3 Map tasks, Reduce [1, 1, 1]. Job 1 (slot 0): no Map, Reduce [4].
    # Slot 0: job 0 Map on 2 machines.
    # Slot 1: job 0 last Map task; job 1's Reduce task takes the other machine (1 unit, 3 left).
    # Preemptive: slot 2 both machines to job 0's Reduce tasks 0 and 1; slot 3 its task 2 and
    #   job 1; job 0 completes at 4; job 1 runs slots 3, 4, 5: completes at 6. Flow 4 + 6 = 10.
    # Non-preemptive: job 1's task holds its machine for slots 1-4 (ends 5); job 0's tasks run one
    #   at a time in slots 2, 3, 4: completes at 5. Flow 5 + 5 = 10, other completion times.
    inst = MapReduceInstance(2, (MapReduceJob(0, 3, [1, 1, 1]), MapReduceJob(0, 0, [4])))
    pre = run("fifo", inst)
    assert pre.evaluation.completion.tolist() == [4, 6]
    assert pre.objective == 10
    non = run("fifo", inst, params={"preemptive": False})
    assert non.evaluation.completion.tolist() == [5, 5]
    assert non.objective == 10
    assert non.schedule.promises == {"non_preemptive"}
    assert pre.schedule.promises == frozenset()


def test_mapreduce_reduce_waits_a_slot_and_pieces_merge():
    # N=3. Job 0 (slot 0): 7 Map tasks, Reduce [2, 5]. Job 1 (slot 1): 2 Map tasks, Reduce [1].
    # Slots 0, 1: job 0 Map on 3 machines (job 1 gets none in slot 1); slot 2: job 0's last Map
    # task, job 1's 2 Map tasks. Slot 3: job 0's Reduce tasks (2 machines), job 1's Reduce task.
    # Job 1 completes at 4 (flow 4 - 1 = 3). Job 0's task 0 ends at 5, task 1 runs slots 3-7:
    # completes at 8. Total flow 8 + 3 = 11.
    inst = MapReduceInstance(3, (MapReduceJob(0, 7, [2, 5]), MapReduceJob(1, 2, [1])))
    res = run("fifo", inst)
    assert res.objective == 11
    s = res.schedule
    rows = sorted(zip(s.job.tolist(), s.task.tolist(), s.start.tolist(), s.end.tolist(), s.rate.tolist()))
    assert rows == [(0, MAP_TASK, 0, 2, 3), (0, MAP_TASK, 2, 3, 1), (0, 0, 3, 5, 1), (0, 1, 3, 8, 1),
                    (1, MAP_TASK, 2, 3, 2), (1, 0, 3, 4, 1)]
    assert (s.machine == POOLED).all()


def test_mapreduce_more_tasks_than_machines():
    # N=2, one job without Map, Reduce [2, 1, 1]. Tasks in index order: slots 0, 1 tasks 0 and 1
    # (task 1 done after slot 0, so task 2 joins in slot 1); completes at 2.
    inst = MapReduceInstance(2, (MapReduceJob(0, 0, [2, 1, 1]),))
    assert run("fifo", inst).objective == 2
    assert run("fifo", inst, params={"preemptive": False}).objective == 2


def test_mapreduce_rejects_unknown_parameter():
    inst = MapReduceInstance(2, (MapReduceJob(0, 1, [1]),))
    with pytest.raises(AlgorithmError, match="preemptive"):
        run("fifo", inst, params={"preemtive": False})


def test_non_preemptive_promise_is_checked():
    inst = MapReduceInstance(2, (MapReduceJob(0, 3, [1, 1, 1]), MapReduceJob(0, 0, [4])))
    s = run("fifo", inst, params={"preemptive": False}).schedule
    # Job 1's Reduce task runs in one piece over slots [1, 5): cut it in two at slot 3.
    i = int(np.flatnonzero(s.job == 1)[0])
    assert (s.start[i], s.end[i]) == (1, 5)
    rows = [tuple(col[k] for col in (s.job, s.task, s.machine, s.start, s.end, s.rate)) for k in range(len(s))]
    split = rows[:i] + [(1, 0, POOLED, 1, 3, 1), (1, 0, POOLED, 3, 5, 1)] + rows[i + 1:]
    with pytest.raises(InfeasibleScheduleError, match="runs in 2 pieces"):
        verify(inst, Schedule.from_pieces(split, promises={"non_preemptive"}))
    verify(inst, Schedule.from_pieces(split))  # the same pieces without the promise are feasible


@st.composite
def mapreduce_instances(draw, map_at_least=0):
    N = draw(st.integers(1, 5))
    jobs = []
    for _ in range(draw(st.integers(1, 6))):
        m = draw(st.integers(map_at_least, 6))
        red = draw(st.lists(st.integers(1, 4), min_size=0 if m else 1, max_size=4))
        jobs.append(MapReduceJob(draw(st.integers(0, 5)), m, red))
    return MapReduceInstance(N, tuple(jobs))


def _flow_lower_bounds(inst: MapReduceInstance) -> np.ndarray:
    """Per job, a flow time no schedule beats: at most N Map tasks per slot, so Map takes
    ceil(M/N) slots from arrival; Reduce starts in the slot after the last Map slot; then a
    Reduce task runs on at most one machine per slot (max_k R^(k) slots) and all Reduce work on
    at most N (ceil(R/N) slots)."""
    N = inst.machines
    out = []
    for i in range(inst.n_jobs):
        red = inst.reduce_work[inst.reduce_offset[i]:inst.reduce_offset[i + 1]]
        reduce_slots = max(int(red.max()), math.ceil(red.sum() / N)) if len(red) else 0
        out.append(math.ceil(inst.map_work[i] / N) + reduce_slots)
    return np.array(out)


def _first_in_line(inst: MapReduceInstance) -> int:
    return int(np.lexsort((np.arange(inst.n_jobs), inst.arrival))[0])


@SETTINGS
@given(mapreduce_instances(), st.booleans())
def test_mapreduce_bounds(inst, preemptive):
    res = run("fifo", inst, params={"preemptive": preemptive})  # verifies, and the promise
    flow = res.evaluation.completion - inst.arrival
    lb = _flow_lower_bounds(inst)
    assert (flow >= lb).all()
    assert res.objective >= lb.sum()
    # Preemptive, the first job in line owns the cluster: its Map gets min(M left, N) machines a
    # slot, and its Reduce all N machines or one per unfinished task, most work left first, which
    # takes max(largest task, ceil(R / N)) slots (McNaughton's bound, met slot by slot). So its
    # flow time is exactly the bound. (Not so without preemption: a later job without Map may
    # start a Reduce task while the first job maps, and keep that machine.)
    first = _first_in_line(inst)
    if preemptive:
        assert flow[first] == lb[first]


def test_mapreduce_preemptive_reduce_runs_most_work_left_first():
    # N=2, one job: 1 Map task, Reduce [2, 2, 2]. Slot 0: Map. Preemptive, the two machines go to
    # the tasks with the most work left: slot 1 tasks 0, 1 (left 1, 1, 2); slot 2 tasks 2, 0
    # (left 0, 1, 1); slot 3 tasks 1, 2: completes at 4 = 1 + ceil(6 / 2). Non-preemptive, tasks 0
    # and 1 run slots 1-2 and task 2 slots 3-4: completes at 5.
    inst = MapReduceInstance(2, (MapReduceJob(0, 1, [2, 2, 2]),))
    assert run("fifo", inst).objective == 4
    assert run("fifo", inst, params={"preemptive": False}).objective == 5


def _paper_instance(seed: int, machines: int = 100, slots: int = 500) -> MapReduceInstance:
    """Paper 001 §VII-A's uniform setting: Poisson(2) arrivals per slot, Map U[1, 9], Reduce
    U[10, 70] split into up to 10 tasks (load ≈ 0.9)."""
    rng = np.random.default_rng(seed)
    jobs = []
    for t in range(slots):
        for _ in range(rng.poisson(2)):
            total, k = int(rng.integers(10, 71)), int(rng.integers(1, 11))
            cuts = np.sort(rng.choice(np.arange(1, total), k - 1, replace=False))
            jobs.append(MapReduceJob(t, int(rng.integers(1, 10)), np.diff(np.r_[0, cuts, total]).tolist()))
    return MapReduceInstance(machines, tuple(jobs))


def test_mapreduce_paper_scale():
    # Not a timed assertion: this runs in a few hundredths of a second, and would make the suite
    # visibly slow if the simulator regressed to per-machine loops.
    inst = _paper_instance(3)
    assert inst.n_jobs > 900
    pre = run("fifo", inst)
    non = run("fifo", inst, params={"preemptive": False})
    assert min(pre.objective, non.objective) >= _flow_lower_bounds(inst).sum()
    assert len(pre.schedule) < 10 * inst.n_jobs  # slots with equal allocations are merged


# ------------------------------------------------------------------------------------ packing

def test_packing_hand_case_with_backfilling():
    # Capacities 1 and 2.
    # t=0: job 0 task 0 (demand 1.5) fits only machine 1 (p 2): [0, 2); job 0 task 1 (demand 1,
    #      p 3 on machine 0, 1 on machine 1) prefers machine 1 but it has 0.5 free: machine 0,
    #      [0, 3); job 1's task (0.5, machine 1 only, p 1): [0, 1).
    # t=1: jobs 2 and 3 arrive. Job 2's task (demand 1 on machine 1) does not fit (0.5 free); job
    #      3's task (0.5) backfills: [1, 2).
    # t=2: machine 1 is empty: job 2's task [2, 3).
    # C = (3, 1, 3, 2), weights (1, 2, 1, 1): Σ w C = 3 + 2 + 3 + 2 = 10.
    T = PackingTask
    inst = PackingInstance([1.0, 2.0], (
        PackingJob([T(1.5, [0, 1], 2.0), T(1.0, [0, 1], [3.0, 1.0])]),
        PackingJob([T(0.5, [1], 1.0)], weight=2.0),
        PackingJob([T(1.0, [1], 1.0)], release=1.0),
        PackingJob([T(0.5, [1], 1.0)], release=1.0),
    ))
    res = run("fifo", inst)
    assert res.objective == pytest.approx(10.0)
    assert res.evaluation.completion.tolist() == pytest.approx([3, 1, 3, 2])
    assert res.schedule.promises == {"non_preemptive", "no_migration"}
    s = res.schedule
    assert s.machine[(s.job == 0) & (s.task == 1)].tolist() == [0]


def test_packing_picks_the_fastest_fitting_machine():
    # One task, machines 0, 1, 2 all in its placement with times 3, 2, 2: machine 1 (tie → lower index).
    inst = PackingInstance([1.0, 1.0, 1.0], (PackingJob([PackingTask(1.0, [0, 1, 2], [3.0, 2.0, 2.0])]),))
    res = run("fifo", inst)
    assert res.schedule.machine.tolist() == [1]
    assert res.objective == pytest.approx(2.0)


@st.composite
def packing_instances(draw):
    caps = draw(st.lists(st.floats(0.5, 4), min_size=1, max_size=3))
    M = len(caps)
    jobs = []
    for _ in range(draw(st.integers(1, 5))):
        tasks = []
        for _ in range(draw(st.integers(1, 3))):
            place = draw(st.lists(st.integers(0, M - 1), min_size=1, max_size=M, unique=True))
            demand = draw(st.floats(0.05, 1)) * max(caps[i] for i in place)
            times = draw(st.lists(st.floats(0.1, 5), min_size=len(place), max_size=len(place)))
            tasks.append(PackingTask(demand, place, times))
        jobs.append(PackingJob(tasks, weight=draw(st.floats(0.5, 3)), release=draw(st.integers(0, 4).map(float))))
    return PackingInstance(caps, tuple(jobs))


@SETTINGS
@given(packing_instances())
def test_packing_bounds(inst):
    res = run("fifo", inst)  # verifies: capacity, placement, no preemption, no migration
    C = res.evaluation.completion
    # Lower bound for every schedule: each task needs its fastest machine that can hold it.
    ptime = inst.processing_matrix()
    ptime[inst.demand[:, None] > inst.capacities[None, :]] = np.inf
    fastest = ptime.min(axis=1)
    lb = inst.release + np.maximum.reduceat(fastest, inst.job_offset[:-1])
    assert (C >= lb * (1 - REL)).all()
    assert res.objective >= inst.weights @ lb * (1 - REL)
    # Upper bound for FIFO: after the last release some task runs at every instant until the end
    # (a waiting task would start on an idle machine: it fits one of them), so the makespan is
    # at most r_max + Σ over tasks of its slowest allowed time.
    slowest = np.where(np.isfinite(ptime), ptime, -np.inf).max(axis=1)
    assert C.max() <= (inst.release.max() + slowest.sum()) * (1 + REL)


# ------------------------------------------------------------------------------------ related

def test_related_hand_case():
    # Speeds (2, 1). Job 0: tasks 4, 2; job 1: task 3, weight 2.
    # Job 0 first: task 4 on the faster idle machine 0, [0, 2); task 2 on machine 1, [0, 2).
    # Job 1: both machines free at 2, tie → the faster machine 0: [2, 3.5).
    # Σ w C = 1·2 + 2·3.5 = 9.
    inst = RelatedInstance([2.0, 1.0], (RelatedJob([4.0, 2.0]), RelatedJob([3.0], weight=2.0)))
    assert run("fifo", inst).objective == pytest.approx(9.0)


def test_related_precedence_reorders_the_list():
    # Same jobs with the edge 1 -> 0: job 1 goes first, [0, 1.5) on machine 0. Job 0 may start at
    # 1.5: task 4 on machine 0 [1.5, 3.5) (both free by 1.5, the faster wins), task 2 on machine 1
    # [1.5, 3.5). Σ w C = 3.5 + 2·1.5 = 6.5.
    inst = RelatedInstance([2.0, 1.0], (RelatedJob([4.0, 2.0]), RelatedJob([3.0], weight=2.0)), edges=[(1, 0)])
    assert run("fifo", inst).objective == pytest.approx(6.5)


def test_related_release_and_largest_task_first():
    # Speeds (1, 1). Job 0 (release 0): task 1. Job 1 (release 0.5): tasks 1, 3.
    # Job 0 on machine 0 [0, 1). Job 1: its task 3 first, on machine 1 (free) [0.5, 3.5); its task 1
    # on machine 0 at 1, [1, 2). C = (1, 3.5): Σ C = 4.5.
    inst = RelatedInstance([1.0, 1.0], (RelatedJob([1.0]), RelatedJob([1.0, 3.0], release=0.5)))
    res = run("fifo", inst)
    assert res.objective == pytest.approx(4.5)
    s = res.schedule
    assert sorted(zip(s.job.tolist(), s.task.tolist(), s.machine.tolist(), s.start.tolist())) == [
        (0, 0, 0, 0.0), (1, 0, 0, 1.0), (1, 1, 1, 0.5)]


@st.composite
def related_instances(draw):
    speeds = draw(st.lists(st.floats(0.5, 4), min_size=1, max_size=4))
    n = draw(st.integers(1, 5))
    jobs = [RelatedJob(draw(st.lists(st.floats(0.1, 10), min_size=1, max_size=4)),
                       weight=draw(st.floats(0.5, 3)), release=draw(st.integers(0, 5).map(float)))
            for _ in range(n)]
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    edges = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    return RelatedInstance(speeds, tuple(jobs), edges=edges)


@SETTINGS
@given(related_instances())
def test_related_bounds(inst):
    res = run("fifo", inst)  # verifies
    C = res.evaluation.completion
    # Lower bound for every schedule (paper 004 §II): job j's tasks run on at most q_j machines,
    # together at speed at most μ_j, so C_j >= r_j + p_j/μ_j; its largest task needs at least
    # max_t p_{j,t} / v_max.
    biggest = np.maximum.reduceat(inst.task_size, inst.job_offset[:-1])
    lb = inst.release + np.maximum(inst.p / inst.mu_j, biggest / np.max(inst.speeds))
    assert (C >= lb * (1 - REL)).all()
    assert res.objective >= inst.weights @ (inst.release + inst.p / inst.mu_j) * (1 - REL)
    # Upper bound for FIFO: each task starts by the latest release or the latest end placed so
    # far, whichever is larger, so C_max <= r_max + Σ p_{j,t} / v_min.
    assert C.max() <= (inst.release.max() + inst.task_size.sum() / np.min(inst.speeds)) * (1 + REL)


def test_fifo_malleable_never_emits_a_piece_shorter_than_the_clock():
    # Found by the --runslow fuzz: two jobs of 1.1e-9 start together at t = 0.0625; the one that
    # sets the event ends exactly, the other keeps ~1e-18 of work (t_next - t is not exactly
    # 1.1e-9), and its next piece, 5e-19 long, rounded to zero length at t = 0.0625.
    from schedrelax.algorithms import run
    from schedrelax.instances import from_dict

    inst = from_dict({"family": "malleable", "schema_version": 1, "processors": 2, "flows": [
        {"sizes": [1.1e-09], "max_processors": [2], "release": 0.001},
        {"sizes": [0.125], "max_processors": [2]},
        {"sizes": [1.1e-09], "max_processors": [1]}]})
    s = run("fifo", inst).schedule
    assert (s.end > s.start).all()
    # by hand: job 1 (0.125 on 2 processors) ends at 0.0625; then jobs 2 and 0 run on one each
    # and end together at 0.0625 + 1.1e-9
    assert np.allclose(np.sort(run("fifo", inst).evaluation.completion), [0.0625, 0.0625 + 1.1e-9, 0.0625 + 1.1e-9],
                       rtol=0, atol=1e-15)


def test_fifo_packing_takes_a_release_and_a_completion_an_ulp_apart_as_one_instant():
    # From the unit-invariance fuzz: at scale 0.1 and offset 1, job 1's first task ends at
    # 1 + 0.3 + 0.1 = 1.4000000000000001 and job 2 is released at 1.4. Taken as two instants, FIFO
    # put job 2's first task on machine 1 (the room of machine 0 not yet back): another schedule,
    # 9 % dearer than the same instance in its own unit. One instant: the same schedule.
    from schedrelax.instances import from_dict
    from tests.fuzz.units import transform

    doc = {"family": "packing", "schema_version": 1, "capacities": [0.5, 0.8], "jobs": [
        {"tasks": [{"demand": 0.113, "placement": [0, 1], "processing_time": [0.61, 6.239]},
                   {"demand": 0.15, "placement": [1], "processing_time": [4.87]},
                   {"demand": 0.416, "placement": [1], "processing_time": [1.33]}], "weight": 3.44, "release": 0.997},
        {"tasks": [{"demand": 0.251, "placement": [0], "processing_time": [1.0]},
                   {"demand": 0.479, "placement": [0, 1], "processing_time": [1.1, 6.24]}],
         "weight": 4.43, "release": 3.0},
        {"tasks": [{"demand": 0.342, "placement": [0, 1], "processing_time": [7.0, 9.1]},
                   {"demand": 0.37, "placement": [0, 1], "processing_time": [2.68, 1.18]},
                   {"demand": 0.241, "placement": [0, 1], "processing_time": [7.9, 8.0]}],
         "weight": 1.75, "release": 4.0}]}
    unit = algorithms.run("fifo", from_dict(doc))
    moved = algorithms.run("fifo", from_dict(transform(doc, 0.1, 1.0)))
    assert moved.objective == pytest.approx(0.1 * unit.objective + 1.0 * (3.44 + 4.43 + 1.75), rel=1e-12)
    assert (moved.schedule.machine == unit.schedule.machine).all()
