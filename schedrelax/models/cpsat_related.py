"""CP-SAT model of paper 004's problem (§II): non-preemptive tasks on related machines (task t takes
p_t / v_i on machine i, one task per machine at a time), job release times, machine ready times, a
job precedence DAG, objective Σ w_j C_j. Building only (see :mod:`schedrelax.models.cpsat_packing`
for the layers and for the integer scaling both models share).

The model: per task one start variable and, per machine, a presence literal with an optional
fixed-size interval of duration P_ti on that start (and start >= the machine's ready time when
present); exactly one presence per task; ``NoOverlap`` per machine; C_j = max of its tasks' ends;
every task of j2 starts at or after C_j1 for each edge (j1, j2); minimise Σ W_j C_j. Two tasks of
one job with the same size are interchangeable, so their starts are ordered by index.

Integer data: time counts from the origin o, the earliest release (a machine ready before it is
ready at o); durations P_ti = floor(s · p_t / v_i) (p_t / v_i the exact rational of the two
numbers), releases and ready times floor(s · (r - o)), weights floor(w · w_j); the objective is
Σ w_j (C_j - o) in model units, and o·Σ w_j is added back to what is mapped out. The factors are
those of :func:`~schedrelax.models.cpsat_packing.choose_scaling` (exact where the data allow,
else sized by the precision the objective needs). Exact when every such number is a whole number
of units; otherwise rounded down, and the model's optimum and bound divided by s·w, plus o·Σ w_j,
are still lower bounds on the instance's optimum: a feasible schedule S maps to
S'_t = floor(s (S_t - o)), which keeps releases, ready times, machine order and precedence
(floor(s S_t) + floor(s p) <= floor(s (S_t + p)) <= floor(s S_u) when t ends before u starts,
times from o) and has C'_j <= s (C_j - o), so Σ W_j C'_j <= s·w·Σ w_j (C_j - o) (the argument of
:mod:`~schedrelax.models.cpsat_packing` without the capacity step). With whole-unit data an
optimal schedule has whole-unit starts (every start of a semi-active schedule is a release, a
ready time or another task's end), so the exact model loses nothing.

The horizon: the latest release or ready time plus every task once at its longest duration bounds
a semi-active optimal schedule (the chain argument of :mod:`schedrelax.models.related_mip`), all
from o.

Completion thresholds (redundant rows for the bound, :func:`completion_threshold_rows`)
------------------------------------------------------------------------------------------
CP-SAT's own LP of this model barely moves above the relaxation's bound: a ``NoOverlap`` and a
``max`` linearise weakly, and LP-Schedule is fluid, while the gap on the generated instances comes
from whole tasks on few machines (six reduce tasks of 1000 MB on six machines cannot be shared).
So the model also holds, for threshold times T (in model units), literals y[j, T] <=> C_j <= T
and rows over them that every model solution meets:

* y[j, T] implies y[j, T'] for T' > T, and y[b, T] implies y[a, T] for an edge (a, b)
  (C_a <= every start of b <= C_b);
* *count rows*, per class of tasks (the tasks of size >= p, for a few sizes p): on machine i every
  such task takes at least d_i (the least model duration of the class there) and starts at or after
  s_i = max(ready_i, e) (e: the least earliest start of a task of the class, from releases and
  predecessor chains at the shortest durations), and tasks on one machine do not overlap; so the
  class tasks of the jobs complete by T number at most Σ_i floor((T − s_i) / d_i):
  Σ_j n_j y[j, T] <= that, n_j the job's class tasks;
* *mixed rows*, per pair of classes (small: sizes in [p, q); big: sizes >= q): on machine i, a
  small and b big tasks of the jobs complete by T fit a·d^s_i + b·d^b_i <= T − ready_i, b·d^b_i <=
  T − s^b_i and a·d^s_i <= T − s^s_i; g(B), the most small tasks that fit beside B big ones over
  all machines, is a knapsack over machines (exact dynamic programme), and each facet A + c·B <= r
  of the upper concave envelope of (B, g(B)) is a valid row Σ_j (n^s_j + c·n^b_j) y[j, T] <= r
  (scaled to whole numbers; B's own limit is the big class's count row);
* the staircase C_j >= lo_j + Σ_T (T − T_prev)(1 − y[j, T]) (lo_j the least completion, T_prev the
  threshold before T, lo_j − 1 for the first), which is what links the rows to the objective in
  the LP.

Thresholds are the times just before a class's count can grow (s_i + k·d_i − 1): there the count
rows are tightest. Measured on the ``spc`` setup (``benchmarks/exact_reach.py``, 6 machines, 1-4
tasks per job, one worker, 60 s, with :data:`~schedrelax.rounding.cpsat.RELATED_LINEARIZATION`):
n_jobs 5 proven on 4 of 5 seeds (before the rows, same benchmark: 2; seeds 3 and 4 in 0.4 and
1.5 s against 4.5 and 5.7 s), n_jobs 6 on 3 of 5 (before: 0).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from schedrelax.instances import RelatedInstance
from schedrelax.models.cpsat_packing import (
    Scaling,
    as_rational,
    choose_scaling,
    floor_scaled,
    in_frame,
    order_twins_and_minimise,
    ratio_down,
    task_machine_and_start,
    time_origin,
)
from schedrelax.schedules import Schedule


@dataclass(frozen=True, eq=False)
class RelatedIntData:
    """The instance in model units: ``duration[t, i]``, ``release[j]``, ``ready[i]``,
    ``weight[j]``, the horizon, and the scaling that made them."""

    scaling: Scaling
    duration: np.ndarray
    release: np.ndarray
    ready: np.ndarray
    weight: np.ndarray
    horizon: int


def related_int_data(instance: RelatedInstance, cost_bound: float | None = None) -> RelatedIntData:
    """The instance's numbers scaled to integers (:func:`~schedrelax.models.cpsat_packing.choose_scaling`),
    times from the earliest release (:func:`~schedrelax.models.cpsat_packing.time_origin`; a machine
    ready before it is ready there); *cost_bound* is the cost of a known schedule."""
    sizes = [as_rational(v) for v in instance.task_size.tolist()]
    speeds = [as_rational(v) for v in np.asarray(instance.speeds, dtype=float).tolist()]
    durations = [(fs / fv, gs and gv) for fs, gs in sizes for fv, gv in speeds]
    rel = [as_rational(v) for v in instance.release.tolist()]
    origin = time_origin(rel)
    rel = [in_frame(v, origin) for v in rel]
    ready = [in_frame(as_rational(v), origin) for v in instance.ready.tolist()]
    M = instance.n_machines
    longest = [max(durations[t * M + i][0] for i in range(M)) for t in range(instance.n_tasks)]
    horizon = max(f for f, _ in rel + ready) + sum(longest, Fraction(0))
    weights = [as_rational(v) for v in instance.weights.tolist()]
    cost_offset = origin[0] * sum((f for f, _ in weights), Fraction(0))
    sc = choose_scaling(durations + rel + ready, weights, n_tasks=instance.n_tasks, n_jobs=instance.n_jobs,
                        horizon=horizon, cost_bound=cost_bound, cost_offset=cost_offset)
    s = sc.time
    dur = np.array([floor_scaled(f, s) for f, _ in durations], dtype=np.int64).reshape(instance.n_tasks, M)
    release = np.array([floor_scaled(f, s) for f, _ in rel], dtype=np.int64)
    ready_int = np.array([floor_scaled(f, s) for f, _ in ready], dtype=np.int64)
    H = int(max(release.max(), ready_int.max()) + dur.max(axis=1).sum())
    w = np.array([floor_scaled(f, sc.weight) for f, _ in weights], dtype=np.int64)
    return RelatedIntData(replace(sc, origin=origin[0], cost_offset=cost_offset), dur, release, ready_int, w, H)


def relaxed_related_instance(instance: RelatedInstance, data: RelatedIntData) -> RelatedInstance | None:
    """An instance whose optimum is at most the model's over the factors (its time 0 the model's
    origin, so its objective is Σ w_j (C_j - o): add ``scaling.cost_offset`` to a bound of it,
    :meth:`~schedrelax.models.cpsat_packing.Scaling.bound_out`): same speeds and DAG,
    task sizes min_i P_ti v_i / s (so no duration exceeds the model's), releases, ready times and
    weights the model's over the factors, as floats rounded down (sizes shaded by 1e-12 more, for
    the float product and quotient p / v the LP takes). None when some model duration is 0."""
    from schedrelax.instances import RelatedJob

    sc = data.scaling
    if (data.duration <= 0).any():
        return None
    speeds = np.asarray(instance.speeds, dtype=float)
    size = (data.duration * speeds[None, :]).min(axis=1) / sc.time * (1 - 1e-12)
    first = instance.job_offset
    jobs = tuple(RelatedJob(tasks=size[first[j]:first[j + 1]].tolist(),
                            weight=ratio_down(int(data.weight[j]), sc.weight),
                            release=ratio_down(int(data.release[j]), sc.time)) for j in range(instance.n_jobs))
    return RelatedInstance(speeds=speeds, jobs=jobs, edges=instance.edges,
                           ready=[ratio_down(int(r), sc.time) for r in data.ready.tolist()],
                           name=f"{instance.name} (relaxed for CP-SAT)")


def topological_rank(n: int, edges: np.ndarray) -> np.ndarray:
    """Each job's position in a linear extension of the DAG (Kahn's algorithm, lowest index first)."""
    import heapq

    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for a, b in np.asarray(edges, dtype=np.int64).reshape(-1, 2).tolist():
        succ[a].append(b)
        indeg[b] += 1
    heap = [j for j in range(n) if indeg[j] == 0]
    heapq.heapify(heap)
    rank = np.empty(n, dtype=np.int64)
    k = 0
    while heap:
        j = heapq.heappop(heap)
        rank[j] = k
        k += 1
        for b in succ[j]:
            indeg[b] -= 1
            if indeg[b] == 0:
                heapq.heappush(heap, b)
    return rank


def start_order(instance: RelatedInstance, start: np.ndarray) -> np.ndarray:
    """Tasks by start time, ties by their job's topological rank then index: a list in which every
    task of a job's predecessors comes before the job's tasks whenever *start* respects the DAG
    (a predecessor's task of zero duration may start when its successor does)."""
    rank = topological_rank(instance.n_jobs, instance.edges)[instance.task_job]
    return np.lexsort((np.arange(instance.n_tasks), rank, np.asarray(start)))


def semi_active_starts(instance: RelatedInstance, order, machine, duration, release, ready) -> list:
    """Start of each task when tasks are taken in *order*, each on its *machine* as early as its
    machine (from its *ready* time, after the tasks before it there), its job's *release* and its
    job's predecessors allow; *duration[t][i]*. Works in any exact number type (the model's
    integers here); :func:`schedrelax.schedulers.related_list.semi_active_schedule` is the same
    rule on the instance's floats."""
    n = instance.n_jobs
    preds: list[list[int]] = [[] for _ in range(n)]
    for a, b in instance.edges.tolist():
        preds[b].append(a)
    job = instance.task_job.tolist()
    left = np.diff(instance.job_offset).tolist()
    free = list(ready)
    done: list[Any] = [0] * n
    start: list[Any] = [None] * instance.n_tasks
    for t in order:
        j, i = job[t], machine[t]
        if any(left[a] for a in preds[j]):
            raise ValueError(f"the order puts a task of job {j} before a task of one of its predecessors")
        s = max([free[i], release[j], *(done[a] for a in preds[j])])
        e = s + duration[t][i]
        free[i] = e
        done[j] = max(done[j], e)
        left[j] -= 1
        start[t] = s
    return start


def _twin_groups(instance: RelatedInstance) -> list[list[int]]:
    """Tasks of one job with equal size, in index order: interchangeable."""
    groups = []
    size = instance.task_size.tolist()
    for j in range(instance.n_jobs):
        seen: dict[float, list[int]] = {}
        for t in range(instance.job_offset[j], instance.job_offset[j + 1]):
            seen.setdefault(size[t], []).append(t)
        groups += [g for g in seen.values() if len(g) > 1]
    return groups


def twin_span(duration: list[int], k: int) -> int:
    """The least T in which k equal tasks (taking ``duration[i]`` on machine i) all finish on the
    machines from a common start: min T with Σ_i floor(T / duration[i]) >= k. A valid lower bound
    on the span of a job holding them, in the model's integers."""
    if k <= 0 or min(duration) == 0:
        return 0
    lo, hi = 0, k * min(duration)
    while lo < hi:
        mid = (lo + hi) // 2
        if sum(mid // d for d in duration) >= k:
            hi = mid
        else:
            lo = mid + 1
    return lo


THRESHOLD_LITERALS = 20_000
"""Most threshold literals y[j, T] a model gets (jobs × thresholds kept): past it the thresholds are
thinned evenly. Every kept row stays valid; fewer thresholds only give a weaker LP."""

THRESHOLD_TIMES = 1_000
"""Most thresholds T a model gets, however few its jobs (the ``spc`` setup at n_jobs 5-8 has 400-700
step points; data over several decades can have millions), thinned evenly past it."""

MIXED_ROW_WORK = 200_000
"""Most steps the knapsack over machines may take for one mixed row (machines × big tasks × big
tasks a machine fits); past it that row is left out, so that large instances build quickly."""

SIZE_CLASSES = 3
"""Most task classes (sizes >= p) the threshold rows count: the distinct task sizes when there are
this few, otherwise the smallest size and quantiles above it. Any choice gives valid rows."""


@dataclass(frozen=True, eq=False)
class ThresholdRows:
    """Redundant rows over the literals y[j, T] <=> C_j <= T (see the module docstring).

    ``times``: the thresholds T, ascending, in model units. ``rows``: (k, coefficients per job,
    right-hand side): Σ_j coef_j y[j, times[k]] <= rhs, all whole numbers."""

    times: tuple[int, ...]
    rows: tuple[tuple[int, tuple[int, ...], int], ...]


def earliest_starts(instance: RelatedInstance, data: RelatedIntData) -> np.ndarray:
    """Per job, a time no task of it starts before in any model solution: its release and every
    predecessor's earliest completion (earliest start + its longest task at that task's shortest
    duration), in topological order; model units."""
    n = instance.n_jobs
    first = instance.job_offset
    shortest = data.duration.min(axis=1)
    longest_shortest = np.maximum.reduceat(shortest, first[:-1]) if instance.n_tasks else np.zeros(n, np.int64)
    preds: list[list[int]] = [[] for _ in range(n)]
    for a, b in np.asarray(instance.edges, dtype=np.int64).reshape(-1, 2).tolist():
        preds[b].append(a)
    est = np.zeros(n, dtype=np.int64)
    for j in np.argsort(topological_rank(n, instance.edges), kind="stable").tolist():
        est[j] = max([int(data.release[j])] + [int(est[a] + longest_shortest[a]) for a in preds[j]])
    return est


def upper_hull_facets(g: list[int]) -> list[tuple[int, int, int]]:
    """Facets of the upper concave envelope of the points (B, g[B]) (B = 0, 1, ...; g[B] < 0 marks
    an infeasible B, and every feasible B is a prefix), as whole-number rows (a, c, r):
    a·A + c·B <= r holds for every B in range and every A <= g[B]. a > 0 always."""
    pts = [(b, a) for b, a in enumerate(g) if a >= 0]
    hull: list[tuple[int, int]] = []
    for p in pts:
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            # drop the middle point when it lies on or under the chord from hull[-2] to p
            if (y2 - y1) * (p[0] - x1) <= (p[1] - y1) * (x2 - x1):
                hull.pop()
            else:
                break
        hull.append(p)
    if len(hull) == 1:  # only B = 0 fits: A <= g[0]
        return [(1, 0, hull[0][1])]
    facets = []
    for (x1, y1), (x2, y2) in zip(hull, hull[1:]):
        # the chord A = y1 + (y2 - y1)(B - x1)/(x2 - x1), times (x2 - x1) > 0
        facets.append((x2 - x1, y1 - y2, y1 * (x2 - x1) + (y1 - y2) * x1))
    return facets


def _size_classes(sizes: np.ndarray) -> list[float]:
    distinct = np.unique(sizes)
    if len(distinct) <= SIZE_CLASSES:
        return distinct.tolist()
    picks = np.quantile(distinct, np.linspace(0.0, 1.0, SIZE_CLASSES + 1)[:-1], method="lower")
    return np.unique(picks).tolist()


def completion_threshold_rows(instance: RelatedInstance, data: RelatedIntData, completion_high: list[int],
                              max_literals: int = THRESHOLD_LITERALS) -> ThresholdRows:
    """The thresholds and rows of the module docstring for the model of *data* whose job
    completions are at most *completion_high* (model units). Pure arithmetic: nothing is built.

    A class whose least duration is 0 on some machine (a model duration rounded down to 0) counts
    without bound there and gives no rows."""
    n, M = instance.n_jobs, instance.n_machines
    if n == 0 or instance.n_tasks == 0:
        return ThresholdRows((), ())
    dur = data.duration
    ready = data.ready.astype(np.int64)
    first = instance.job_offset
    task_est = earliest_starts(instance, data)[instance.task_job]
    size = instance.task_size
    t_max = int(max(completion_high))

    def cls(sel: np.ndarray):
        d = dur[sel].min(axis=0).astype(np.int64)
        s = np.maximum(ready, int(task_est[sel].min()))
        counts = np.add.reduceat(sel.astype(np.int64), first[:-1])
        return d, s, counts

    cuts = _size_classes(size)
    singles = [cls(size >= p) for p in cuts]
    singles = [c for c in singles if (c[0] > 0).all()]
    pairs = []
    for p, q in zip(cuts, cuts[1:]):
        small, big = cls((size >= p) & (size < q)), cls(size >= q)
        if (small[0] > 0).all() and (big[0] > 0).all():
            pairs.append((small, big))
    cap = max(1, min(THRESHOLD_TIMES, max_literals // n))
    times: set[int] = set()
    for d, s, _ in singles:
        for i in range(M):
            # T = s_i + k·d_i - 1 for k = 1 .. K (at most cap of them, evenly spread)
            count = (t_max + 1 - int(s[i])) // int(d[i])
            if count <= 0:
                continue
            ks = np.arange(1, count + 1) if count <= cap else np.unique(np.linspace(1, count, cap).round())
            times.update((int(s[i]) + ks.astype(np.int64) * int(d[i]) - 1).tolist())
    ordered = sorted(times)
    if len(ordered) > cap:
        ordered = [ordered[k] for k in np.unique(np.linspace(0, len(ordered) - 1, cap).round().astype(int))]
    rows: list[tuple[int, tuple[int, ...], int]] = []
    for k, T in enumerate(ordered):
        for d, s, counts in singles:
            rhs = int((np.maximum(T - s, 0) // d).sum())
            rows.append((k, tuple(counts.tolist()), rhs))
        for (ds, ss, cs), (db, sb, cb) in pairs:
            big_cap = (np.maximum(T - sb, 0) // db).tolist()
            total = min(int(sum(big_cap)), int(cb.sum()))  # no more big tasks than the instance has
            if (total + 1) * (sum(big_cap) + M) > MIXED_ROW_WORK:
                continue
            g = [0] + [-1] * total  # g[B]: most small tasks beside B big ones, -1 if B does not fit
            for i in range(M):
                room = int(T - ready[i])
                small_cap = max(0, int(T - ss[i])) // int(ds[i])
                new = [-1] * (total + 1)
                for b0, a0 in enumerate(g):
                    if a0 < 0:
                        continue
                    for b in range(int(big_cap[i]) + 1):
                        left = room - b * int(db[i])
                        if b0 + b > total or left < 0:
                            break
                        a = a0 + min(left // int(ds[i]), small_cap)
                        if a > new[b0 + b]:
                            new[b0 + b] = a
                g = new
            while g and g[-1] < 0:
                g.pop()
            for a, c, r in upper_hull_facets(g):
                rows.append((k, tuple((a * cs + c * cb).tolist()), r))
    return ThresholdRows(tuple(ordered), tuple(rows))


def _add_threshold_rows(m, instance: RelatedInstance, data: RelatedIntData, completion: list,
                        low: list[int], high: list[int]) -> tuple[int, int]:
    """Add the literals and rows of :func:`completion_threshold_rows` to model *m* whose job
    completions are *completion*, each in [low_j, high_j]. Returns (literals, rows) added."""
    th = completion_threshold_rows(instance, data, high)
    n = instance.n_jobs
    y: dict[tuple[int, int], Any] = {}
    for j in range(n):
        steps, before = [], low[j] - 1  # (T - the threshold before it, y[j, T]) for the staircase
        for k, T in enumerate(th.times):
            if not low[j] <= T < high[j]:
                continue
            lit = m.new_bool_var(f"y{j}_{T}")
            m.add(completion[j] <= T).only_enforce_if(lit)
            m.add(completion[j] >= T + 1).only_enforce_if(~lit)
            if steps:
                m.add_implication(steps[-1][1], lit)
            steps.append((T - before, lit))
            before = T
            y[j, k] = lit
        if steps:
            m.add(completion[j] >= low[j] + sum(step * (1 - lit) for step, lit in steps))

    def literal(j: int, k: int):
        """y[j, k] as a literal, or 0/1 where the completion's bounds decide it."""
        if (j, k) in y:
            return y[j, k]
        return int(th.times[k] >= high[j])

    for a, b in np.asarray(instance.edges, dtype=np.int64).reshape(-1, 2).tolist():
        for k in range(len(th.times)):
            if (a, k) in y and (b, k) in y:
                m.add_implication(y[b, k], y[a, k])
    added = 0
    for k, coefs, rhs in th.rows:
        fixed, terms = 0, []
        for j, c in enumerate(coefs):
            if c:
                lit = literal(j, k)
                if isinstance(lit, int):
                    fixed += c * lit
                else:
                    terms.append((c, lit))
        if terms and fixed + sum(c for c, _ in terms) > rhs:
            m.add(sum(c * lit for c, lit in terms) <= rhs - fixed)
            added += 1
    return len(y), added


@dataclass(eq=False)
class RelatedCpModel:
    """A built CP-SAT related-machines model: the CpModel, each task's start variable, the
    presence literal of task t on machine i at ``presence[t][i]``, each job's completion variable,
    the objective's upper (the hint's cost) and lower limits in model units (None if not set),
    whether a complete hint was given, and the threshold literals and rows the model holds."""

    model: Any
    data: RelatedIntData
    start: list
    presence: list
    completion: list
    upper_limit: int | None
    lower_limit: int | None
    hinted: bool
    threshold_literals: int = 0
    threshold_rows: int = 0


def related_hint(instance: RelatedInstance, data: RelatedIntData, schedule: Schedule) -> tuple[list[int], list[int]]:
    """A non-preemptive *schedule* as a feasible model solution: its machines and start order,
    started semi-actively in the model's integers. Returns (machine per task, start per task)."""
    machine, start = task_machine_and_start(instance, schedule, "related_hint")
    order = start_order(instance, start).tolist()
    starts = semi_active_starts(instance, order, machine.tolist(), data.duration.tolist(), data.release.tolist(),
                                data.ready.tolist())
    return machine.tolist(), [int(s) for s in starts]


def build_cpsat_related(instance: RelatedInstance, *, data: RelatedIntData | None = None,
                        start_schedule: Schedule | None = None, cost_bound: float | None = None,
                        lower_limit: int | None = None, thresholds: bool = True) -> RelatedCpModel:
    """The CP-SAT model of the module docstring. *start_schedule* (a schedule of the instance) is
    given as a complete hint (feasible in the model, via :func:`related_hint`) whose model cost
    caps the objective; *cost_bound* is a known schedule's cost (it decides the scale's room);
    *data* the scaled numbers (default :func:`related_int_data` with *cost_bound*); *lower_limit*
    a lower bound on the *model's* optimum in model units (from :func:`relaxed_related_instance`),
    the objective's lower limit; *thresholds* adds the completion-threshold rows
    (:func:`completion_threshold_rows`)."""
    from schedrelax._ortools import cp_model_module

    cp_model = cp_model_module()
    data = data if data is not None else related_int_data(instance, cost_bound)
    m = cp_model.CpModel()
    m.name = f"related CP-SAT {instance.name}".strip()
    T, n, M = instance.n_tasks, instance.n_jobs, instance.n_machines
    H = data.horizon
    dur = data.duration.tolist()
    rel = data.release.tolist()
    ready = data.ready.tolist()
    w = data.weight.tolist()
    job = instance.task_job.tolist()
    first = instance.job_offset.tolist()
    twins = _twin_groups(instance)
    hint_machine = hint_start = None
    upper = None
    if start_schedule is not None:
        hint_machine, hint_start = related_hint(instance, data, start_schedule)
        for g in twins:
            slots = sorted((hint_start[t], hint_machine[t]) for t in g)
            for t, (s, i) in zip(g, slots):
                hint_start[t], hint_machine[t] = s, i
        hint_end = [hint_start[t] + dur[t][hint_machine[t]] for t in range(T)]
        hint_C = [max(hint_end[first[j]:first[j + 1]]) for j in range(n)]
        upper = int(sum(wj * c for wj, c in zip(w, hint_C)))
    lower = lower_limit if upper is None or lower_limit is None else min(lower_limit, upper)
    c_max = [min(H, upper // w[j]) if (upper is not None and w[j] > 0) else H for j in range(n)]
    shortest = [min(dur[t]) for t in range(T)]
    start = [m.new_int_var(rel[job[t]], max(rel[job[t]], c_max[job[t]] - shortest[t]), f"s{t}") for t in range(T)]
    presence: list[list[Any]] = []
    by_machine: list[list[Any]] = [[] for _ in range(M)]
    end = []
    for t in range(T):
        lits = []
        for i in range(M):
            lit = m.new_bool_var(f"x{t}_{i}")
            by_machine[i].append(m.new_optional_fixed_size_interval_var(start[t], dur[t][i], lit, f"i{t}_{i}"))
            if ready[i] > rel[job[t]]:
                m.add(start[t] >= ready[i]).only_enforce_if(lit)
            lits.append(lit)
        m.add_exactly_one(lits)
        presence.append(lits)
        e = m.new_int_var(rel[job[t]] + shortest[t], max(rel[job[t]] + shortest[t], c_max[job[t]]), f"e{t}")
        m.add(e == start[t] + sum(dur[t][i] * lits[i] for i in range(M)))
        end.append(e)
    for i in range(M):
        m.add_no_overlap(by_machine[i])
    completion = []
    for j in range(n):
        lo = rel[j] + max(shortest[first[j]:first[j + 1]])
        C = m.new_int_var(lo, max(lo, c_max[j]), f"C{j}")
        m.add_max_equality(C, end[first[j]:first[j + 1]])
        completion.append(C)
    for a, b in instance.edges.tolist():
        for u in range(first[b], first[b + 1]):
            m.add(start[u] >= completion[a])
    # Redundant, for the bound: a job's tasks on one machine run one after another from its first
    # start (the related MIP's job_load rows).
    for j in range(n):
        tasks = range(first[j], first[j + 1])
        if len(tasks) < 2:
            continue
        S = m.new_int_var(rel[j], H, f"S{j}")
        m.add_min_equality(S, [start[t] for t in tasks])
        for i in range(M):
            m.add(completion[j] >= S + sum(dur[t][i] * presence[t][i] for t in tasks))
        span = max((twin_span(dur[g[0]], len(g)) for g in twins if first[j] <= g[0] < first[j + 1]), default=0)
        if span:
            m.add(completion[j] >= S + span)
    literals = rows = 0
    if thresholds:
        # No job completes before its earliest start plus its longest task at its shortest duration.
        est = earliest_starts(instance, data).tolist()
        low = [est[j] + max(shortest[first[j]:first[j + 1]]) for j in range(n)]  # est: release included
        literals, rows = _add_threshold_rows(m, instance, data, completion, low,
                                             [max(lo, c) for lo, c in zip(low, c_max)])
    order_twins_and_minimise(m, twins, start, w, completion, upper, lower)
    if hint_machine is not None:
        for t in range(T):
            m.add_hint(start[t], hint_start[t])
            m.add_hint(end[t], hint_end[t])
            for i in range(M):
                m.add_hint(presence[t][i], i == hint_machine[t])
        for j in range(n):
            m.add_hint(completion[j], hint_C[j])
    return RelatedCpModel(m, data, start, presence, completion, upper, lower, hint_machine is not None,
                          literals, rows)
