"""CP-SAT model of the non-preemptive packing problem PRP||Σ w_j C_j (paper 003 §2 and §4), and
the integer scaling that both CP-SAT models (this one and :mod:`schedrelax.models.cpsat_related`)
use. Building only: :mod:`schedrelax.solvers.cpsat_backend` solves, :mod:`schedrelax.rounding.cpsat`
maps the solution back to a schedule.

The model (after PyJobShop's machine-assignment models): per task one start variable and, per
usable machine of its placement set (demand <= capacity), a presence literal with an optional
fixed-size interval on that start; exactly one presence per task; one ``Cumulative`` per machine
over its optional intervals and its reservations (fixed intervals from 0); C_j = max of its tasks'
ends; minimise Σ W_j C_j. Tasks of one job with the same demand, placement and times are
interchangeable, so their starts are ordered by index.

Integer data
------------
CP-SAT needs integers. Each number is read as the rational it stands for: a float equal to the
nearest float to k/q for some q <= :data:`~schedrelax.models.packing_mip.MAX_DENOMINATOR` is k/q
(0.1 is 1/10, as the time-indexed MIPs read it), any other float is its exact binary value.

*The frame.* Time is counted from the origin o, the earliest release (:func:`time_origin`): no
task starts before it, so a release r becomes r - o, and a reservation end or a ready time before
o becomes 0. The model minimises Σ W_j C'_j with C'_j measured from o, i.e. Σ w_j (C_j - o) in
model units, and o·Σ w_j (:attr:`Scaling.cost_offset`, exact) is added back to every objective and
bound mapped out (rounded toward -inf for bounds). A shift of the instance's origin thus leaves
the model unchanged, and a large offset no longer widens its numbers.

Times (processing times, releases, reservation ends, all from o), weights and demands (with
capacities) each get a positive integer factor: the model's numbers are ``floor(factor · value)``.

*Exact* when every number of a kind is a whole multiple of 1/factor (the factor is the lcm of
their denominators): the model then is the instance, up to the unit and the origin. With
whole-unit times an optimal schedule exists whose starts are all whole units (shift every task as
early as capacity allows: each start becomes a release, a reservation end or another task's end),
so integer starts lose nothing and the model's optimum / (time factor · weight factor) + o·Σ w_j
is the optimum.

*Rounded down* otherwise (factors chosen for the precision the objective needs, see
:func:`choose_scaling`: rounding times by < 1/s moves a semi-active schedule's Σ w_j C_j by less
than (tasks + 1)·Σ w / s, rounding weights by < 1/w by less than Σ_j (C_j - o) / w, and together
they are kept within :data:`PRECISION` of the known schedule's cost in the frame, inside the
64-bit room): the model is a relaxation, and its optimum (and CP-SAT's best bound) divided by
the factors, plus o·Σ w_j, is still a **lower bound** on the instance's optimum. Every feasible
schedule of the instance, with starts S_t, maps to a feasible model schedule
S'_t = floor(s·(S_t - o)) of no larger cost / (s·w) (below, every time is measured from o):

* release: S_t >= r gives floor(s S_t) >= floor(s r) = R;
* durations: floor(s S_t) + floor(s p_t) <= floor(s (S_t + p_t)), so a task that ends before
  another starts still does, and C'_j = max_t (S'_t + P_t) <= floor(s C_j) <= s C_j;
* capacity: a task in the model interval [S'_t, S'_t + P_t) at integer time τ runs, in the
  instance, at the real time (τ + 1 − ε)/s for every small ε > 0 (S_t < (τ+1)/s <= S_t + p_t);
  so the tasks the model runs at τ all run together at one real instant, where their demands fit:
  Σ floor(d·a) <= floor(d·Σ a) <= floor(d·m_i). Reservations [0, u) rounded to [0, floor(s u))
  likewise;
* objective: W_j = floor(w·w_j) <= w·w_j and W_j, C'_j >= 0, so Σ W_j C'_j <= s·w·Σ w_j (C_j - o).

Hence OPT(model) <= s·w·(OPT - o·Σ w_j) and any lower bound of the model over s·w, plus o·Σ w_j,
is one of the instance.
A schedule for the instance is then rebuilt from the model's machines and start order (the
rounding layer), and its own cost is what is reported.

Relaxation bound: a lower bound on the *instance* (an LP optimum) is not one on a rounded-down
model, whose optimum may lie below s·w·OPT. :func:`relaxed_packing_instance` is an instance whose
optimum is at most the model's (every model solution over the factors is one of its schedules,
with the model's cost over the factors: its times, demands and weights are the model's over the
factors as floats rounded down, capacities rounded up, its time 0 the origin o); a relaxation
bound of *that* instance, times the factors, is a valid ``lower_limit`` of the model's objective
(exact model or not), and plus o·Σ w_j (:meth:`Scaling.bound_out`) one of the instance.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from schedrelax.errors import AlgorithmError
from schedrelax.instances import PackingInstance
from schedrelax.models.packing_mip import MAX_DENOMINATOR
from schedrelax.models.synchpack_lp import usable_pairs
from schedrelax.schedules import Schedule

PRECISION = 1e-7
"""Relative error wanted from a rounded-down scaling: rounding times and weights may move the
objective Σ w_j (C_j - o) of a semi-active schedule by at most PRECISION of the known schedule's
(:func:`choose_scaling`; a completion gathers the round-off of at most every task once and its
release). Kept well under :data:`schedrelax.rounding.exact.COST_MATCH` so that an optimum of the
rounded model can still be proven optimal for the instance. Before the models counted time from
the earliest release, the factors were sized by the least time and weight and shrunk to fit 64
bits: copies of an instance at 10^5 or 10^-5 (or shifted by 10^6) lost this precision and were
"feasible" where the unit copy was "optimal"."""

EXACT_SCALE_LIMIT = 10**9
"""Largest lcm of denominators used as an exact factor; beyond it the kind is rounded down."""

INT_LIMIT = 2**60
"""What the model's largest sums (objective activity, horizon, cumulative energy) must stay
under: CP-SAT refuses models whose linear expressions can overflow 64-bit integers."""

DEMAND_LIMIT = 2**31
"""Largest scaled capacity of a machine (demands are rounded down to this resolution)."""


# --------------------------------------------------------------------------------------------
# integer scaling (shared with cpsat_related)
# --------------------------------------------------------------------------------------------

def as_rational(value: float) -> tuple[Fraction, bool]:
    """The rational a float stands for (see the module docstring) and whether it is on a grid
    k/q with q <= MAX_DENOMINATOR."""
    f = Fraction(value).limit_denominator(MAX_DENOMINATOR)
    if float(f) == value:
        return f, True
    return Fraction(value), False


def floor_scaled(value: Fraction, factor: int) -> int:
    """floor(factor · value), exactly."""
    return math.floor(value * factor)


def _exact_factor(values: list[tuple[Fraction, bool]]) -> int | None:
    if not all(on_grid for _, on_grid in values):
        return None
    factor = math.lcm(1, *(f.denominator for f, _ in values))
    return factor if factor <= EXACT_SCALE_LIMIT else None


@dataclass(frozen=True)
class Scaling:
    """Model units per instance unit: ``time`` (times), ``weight`` (weights), ``demand``
    (demands and capacities; 1 for the related family), and whether each kind is exact (every
    value a whole number of units) or rounded down (a relaxation; see the module docstring).

    ``origin`` is the instance time of the model's time 0 (the earliest release, as read by
    :func:`as_rational`) and ``cost_offset`` is origin · Σ w_j (exact): the model's objective
    Σ W_j C'_j is Σ w_j (C_j - origin) in model units, and ``cost_offset`` is added back when a
    model objective or bound is mapped out (:meth:`to_instance`, :meth:`objective_out`,
    :meth:`bound_out`)."""

    time: int
    weight: int
    demand: int = 1
    time_exact: bool = True
    weight_exact: bool = True
    demand_exact: bool = True
    origin: Fraction = Fraction(0)
    cost_offset: Fraction = Fraction(0)

    @property
    def exact(self) -> bool:
        """The model is the instance up to units: its optimum is the instance's, scaled."""
        return self.time_exact and self.weight_exact and self.demand_exact

    @property
    def objective_factor(self) -> int:
        """Model objective units per instance objective unit (time × weight)."""
        return self.time * self.weight

    def to_instance(self, model_bound: float) -> float:
        """A lower bound on the model's (integer) objective as one in the instance's units (plus
        ``cost_offset``), rounded toward -inf: ceil(bound) is a bound too, taken after 1e-6 of float
        slack."""
        return _float_down(Fraction(math.ceil(model_bound - 1e-6)) / self.objective_factor + self.cost_offset)

    def objective_out(self, model_objective: float) -> float:
        """A model objective in the instance's units (nearest float)."""
        return float(Fraction(model_objective) / self.objective_factor + self.cost_offset)

    def cost_in(self, cost: float, n_jobs: int) -> float:
        """A schedule's evaluated cost Σ w_j C_j as an upper bound in the frame (:func:`frame_cost`),
        e.g. to cap the windows of a relaxation of the frame's instance."""
        return frame_cost(cost, self.cost_offset, n_jobs)

    def bound_out(self, frame_bound: float | None) -> float | None:
        """A lower bound on Σ w_j (C_j - origin) (e.g. a relaxation's optimum on
        :func:`relaxed_packing_instance`, whose time 0 is the origin) as a lower bound on the
        instance's Σ w_j C_j: plus ``cost_offset``, rounded toward -inf. None stays None."""
        if frame_bound is None or not math.isfinite(frame_bound):
            return None
        return _float_down(Fraction(frame_bound) + self.cost_offset)

    def as_dict(self) -> dict[str, Any]:
        """The factors and flags, for a Result's ``info``."""
        return {"time": self.time, "weight": self.weight, "demand": self.demand, "time_exact": self.time_exact,
                "weight_exact": self.weight_exact, "demand_exact": self.demand_exact,
                "origin": float(self.origin), "cost_offset": float(self.cost_offset)}


def _float_down(x: Fraction) -> float:
    """The largest float <= *x*."""
    out = float(x)
    return math.nextafter(out, -math.inf) if Fraction(out) > x else out


def _float_up(x: Fraction) -> float:
    """The smallest float >= *x*."""
    out = float(x)
    return math.nextafter(out, math.inf) if Fraction(out) < x else out


def time_origin(releases: list[tuple[Fraction, bool]]) -> tuple[Fraction, bool]:
    """The model's time 0: the earliest of the *releases* (from :func:`as_rational`). No task
    starts before it, so times before it (ready times, reservation ends) count from it."""
    return min(releases, key=lambda fg: fg[0]) if releases else (Fraction(0), True)


def in_frame(value: tuple[Fraction, bool], origin: tuple[Fraction, bool]) -> tuple[Fraction, bool]:
    """A time (from :func:`as_rational`) measured from *origin*, at least 0; on the grid when both
    are (0 always is)."""
    d = value[0] - origin[0]
    if d <= 0:
        return Fraction(0), True
    return d, value[1] and origin[1]


def frame_cost(cost: float, cost_offset: Fraction, n_jobs: int) -> float:
    """An upper bound on Σ w_j (C_j - origin) of a schedule whose evaluated cost (a float sum
    Σ w_j C_j) is *cost*: cost - *cost_offset* plus room for the float sum's round-off
    ((n_jobs + 2) · 2^-50 of |cost|), rounded up, at least 0."""
    exact = Fraction(cost) - cost_offset + Fraction(abs(cost)) * (n_jobs + 2) / 2**50
    return max(0.0, _float_up(exact))


def choose_scaling(times: list[tuple[Fraction, bool]], weights: list[tuple[Fraction, bool]], *, n_tasks: int,
                   n_jobs: int, horizon: Fraction, cost_bound: float | None,
                   cost_offset: Fraction = Fraction(0)) -> Scaling:
    """Time and weight factors for the values *times* (already measured from the model's origin)
    and *weights* (from :func:`as_rational`).

    *horizon* is the latest time any schedule considered needs, from the origin; *cost_bound* the
    cost Σ w_j C_j of a known schedule and *cost_offset* origin · Σ w_j, so that K = cost_bound -
    cost_offset (:func:`frame_cost`) is that schedule's cost in the model's frame (None: Σ w ×
    horizon). Candidates, each fitting the 64-bit room (a time is at most the factor × horizon,
    (tasks + 1) of them in a row; the objective over every job at most n_jobs × factors × K):

    * the exact factors (lcm of the denominators, <= :data:`EXACT_SCALE_LIMIT`);
    * factors chosen from the precision the *objective* needs: rounding every time down by < 1/s
      moves a semi-active schedule's completions by < (tasks + 1)/s, so Σ w_j C_j by < A/s with
      A = (tasks + 1) Σ w; rounding weights down by < 1/w moves it by < B/w with
      B = min(K / least positive weight, positive-weight jobs × horizon). Wanted:
      A/s + B/w <= :data:`PRECISION` · K (half each when both kinds are rounded; the whole of it
      when the other kind is exact);
    * when the wanted factors do not fit: one kind exact and the other the room left, and the
      split s = sqrt(room · A / B) that minimises A/s + B/w under s·w <= room.

    Kept: among the candidates whose error A/s + B/w (a kind whose factor is a multiple of its
    exact factor adds none: it is exact) is within the target, the one with more exact kinds, then
    the smaller product; if none is, the one of least error. AlgorithmError if even factor 1
    overflows.
    """
    ft, fw = _exact_factor(times), _exact_factor(weights)
    positive_w = [f for f, _ in weights if f > 0]
    total_w = float(sum(positive_w, Fraction(0)))
    H = float(horizon)
    K = frame_cost(cost_bound, cost_offset, n_jobs) if cost_bound is not None else total_w * H
    A = (n_tasks + 1) * total_w
    B = min(K / float(min(positive_w)), len(positive_w) * H) if positive_w else 0.0
    target = PRECISION * K
    time_room = INT_LIMIT / (4 * (n_tasks + 1) * max(H, 1e-300))
    product_room = INT_LIMIT / (4 * max(n_jobs, 1) * K) if K > 0 else math.inf

    def want(term: float, share: float) -> int:
        if term <= 0 or not target > 0:
            return 1
        return max(1, math.ceil(min(term / (share * target), 1e300)))

    def cap(x: float) -> int:
        return max(1, math.floor(min(x, 1e300)))

    cands: list[tuple[int, int]] = [(want(A, 0.5), want(B, 0.5)), (1, 1)]
    if ft is not None and fw is not None:
        cands.append((ft, fw))
    if ft is not None:
        cands.append((ft, min(want(B, 1.0), cap(product_room / ft))))
    if fw is not None:
        cands.append((min(want(A, 1.0), cap(time_room), cap(product_room / fw)), fw))
    if A > 0 and B > 0 and math.isfinite(product_room):
        s = min(cap(math.sqrt(product_room * A / B)), cap(time_room))
        cands.append((s, cap(product_room / s)))

    def exactness(s: int, w: int) -> tuple[bool, bool]:
        return ft is not None and s % ft == 0, fw is not None and w % fw == 0

    def error(s: int, w: int) -> float:
        te, we = exactness(s, w)
        return (0.0 if te else A / s) + (0.0 if we else B / w)

    fitting = [(s, w) for s, w in cands if s <= time_room and s * w <= product_room]
    if not fitting:
        cost = K if cost_bound is None else float(cost_bound)
        raise AlgorithmError(
            f"cpsat: the instance's numbers are too large for CP-SAT's 64-bit integers even unscaled "
            f"(horizon {H:g}, objective bound {cost:g}, {n_jobs} jobs)")
    def rank(sw: tuple[int, int]) -> tuple:
        e = error(*sw)
        # within the target: more exact kinds, then smaller numbers; past it: the least error
        return (e > target, e if e > target else 0.0, -sum(exactness(*sw)), sw[0] * sw[1])

    s, w = min(fitting, key=rank)
    te, we = exactness(s, w)
    return Scaling(time=int(s), weight=int(w), time_exact=te, weight_exact=we)


def job_order_by_start(start: np.ndarray, tiebreak: np.ndarray) -> np.ndarray:
    """Task indices by start, then *tiebreak*, then index."""
    return np.lexsort((np.arange(len(start)), tiebreak, start))


# --------------------------------------------------------------------------------------------
# the integer packing data and its list schedule
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class PackingIntData:
    """The instance in model units: usable pairs (task, machine, duration), releases per task,
    demands, capacities, reservations, weights, and the scaling that made them."""

    scaling: Scaling
    pair_task: np.ndarray
    pair_machine: np.ndarray
    pair_time: np.ndarray
    task_release: np.ndarray
    demand: np.ndarray
    capacity: np.ndarray
    reserve_machine: np.ndarray
    reserve_demand: np.ndarray
    reserve_until: np.ndarray
    weight: np.ndarray
    horizon: int


def _packing_times(instance: PackingInstance, pairs: np.ndarray):
    times = [as_rational(v) for v in instance.place_time[pairs].tolist()]
    rel = [as_rational(v) for v in instance.release.tolist()]
    until = [as_rational(v) for v in np.atleast_1d(instance.reserve_until).tolist()]
    return times, rel, until


def packing_int_data(instance: PackingInstance, cost_bound: float | None = None) -> PackingIntData:
    """The instance's numbers scaled to integers (:func:`choose_scaling`), times from the earliest
    release (:func:`time_origin`; a reservation ends there at the earliest); *cost_bound* is the
    cost of a known schedule (it decides how fine the scale must be and may be)."""
    pairs = usable_pairs(instance)
    times, rel, until = _packing_times(instance, pairs)
    origin = time_origin(rel)
    rel = [in_frame(v, origin) for v in rel]
    until = [in_frame(v, origin) for v in until]
    pt = instance.place_task[pairs]
    longest = np.zeros(instance.n_tasks)
    np.maximum.at(longest, pt, instance.place_time[pairs])
    start = max([f for f, _ in rel] + [f for f, _ in until])
    horizon = start + sum(as_rational(v)[0] for v in longest.tolist())
    weights = [as_rational(v) for v in instance.weights.tolist()]
    cost_offset = origin[0] * sum((f for f, _ in weights), Fraction(0))
    sc = choose_scaling(times + rel + until, weights, n_tasks=instance.n_tasks, n_jobs=instance.n_jobs,
                        horizon=horizon, cost_bound=cost_bound, cost_offset=cost_offset)
    s = sc.time
    ptime = np.array([floor_scaled(f, s) for f, _ in times], dtype=np.int64)
    release = np.array([floor_scaled(f, s) for f, _ in rel], dtype=np.int64)
    r_until = np.array([floor_scaled(f, s) for f, _ in until], dtype=np.int64)
    longest_int = np.zeros(instance.n_tasks, dtype=np.int64)
    np.maximum.at(longest_int, pt, ptime)
    H = int(max(release.max(), r_until.max(initial=0)) + longest_int.sum())
    # Demands: exact on a small grid, else rounded down with capacities (module docstring).
    amounts = [as_rational(v) for v in (*instance.demand.tolist(), *np.asarray(instance.capacities).tolist(),
                                         *np.atleast_1d(instance.reserve_demand).tolist())]
    cap_max = float(np.max(instance.capacities))
    energy_room = INT_LIMIT / (4 * max(H, 1) * (instance.n_tasks + len(instance.reserve_demand) + 1) * cap_max)
    fd = _exact_factor(amounts)
    room = min(DEMAND_LIMIT / cap_max, energy_room)
    if fd is not None and fd <= room:
        sd, de = fd, True
    else:
        sd, de = max(1, math.floor(room)), False
    n_d, n_c = instance.n_tasks, instance.n_machines
    scaled = np.array([floor_scaled(f, sd) for f, _ in amounts], dtype=np.int64)
    w = np.array([floor_scaled(f, sc.weight) for f, _ in weights], dtype=np.int64)
    scaling = Scaling(sc.time, sc.weight, sd, sc.time_exact, sc.weight_exact, de, origin[0], cost_offset)
    return PackingIntData(scaling, pt, instance.place_machine[pairs], ptime, release[instance.task_job],
                          scaled[:n_d], scaled[n_d:n_d + n_c], np.asarray(instance.reserve_machine, dtype=np.int64),
                          scaled[n_d + n_c:], r_until, w, H)


class MachineProfile:
    """Resource use of one machine as a list of (start, end, demand) runs: enough for the tiny
    to medium instances an exact engine sees."""

    def __init__(self, capacity, relative_tolerance=0) -> None:
        self.capacity = capacity
        # Float sums of demands: the slack list_packing allows (0 for the model's integers).
        self.tolerance = relative_tolerance * max(1, capacity) if relative_tolerance else 0
        self.runs: list[tuple[Any, Any, Any]] = []

    def fits(self, a, b, demand) -> bool:
        """The machine has room for *demand* throughout [a, b)."""
        if b <= a:
            return True
        # The load over [a, b) peaks at a or at a start inside it.
        points = [a] + [s for s, _, _ in self.runs if a < s < b]
        limit = self.capacity + self.tolerance - demand
        return all(sum(d for s, e, d in self.runs if s <= t < e) <= limit for t in points)

    def earliest(self, release, duration, demand):
        """The earliest time >= *release* at which *demand* fits for *duration*: *release* or
        the end of a run (where the load drops)."""
        candidates = sorted({release, *(e for _, e, _ in self.runs if e > release)})
        for t in candidates:
            if self.fits(t, t + duration, demand):
                return t
        raise ValueError(f"demand {demand} never fits capacity {self.capacity}")

    def add(self, a, b, demand) -> None:
        """Hold *demand* over [a, b)."""
        self.runs.append((a, b, demand))


def serial_packing(order, machine, duration, demand, release, capacity, reservations=(), relative_tolerance=0):
    """Serial list scheduling: tasks in *order*, each on its *machine* at the earliest time >= its
    release at which its demand fits beside the tasks already placed and the *reservations*
    ((machine, demand, until) from time 0). Returns the start of every task. Exact in integers;
    with floats pass *relative_tolerance* (a demand fits within that fraction of the capacity).

    Placed in the start order of a feasible schedule with the same machines and times, no task
    starts later than there (the tasks placed before it use, at any time from its old start on,
    a subset of what they used in that schedule), so no completion is later.
    """
    profiles = [MachineProfile(c, relative_tolerance) for c in capacity]
    for i, d, u in reservations:
        profiles[i].add(0, u, d)
    start: list[Any] = [None] * len(machine)
    for t in order:
        i = machine[t]
        s = profiles[i].earliest(release[t], duration[t], demand[t])
        profiles[i].add(s, s + duration[t], demand[t])
        start[t] = s
    return start


# --------------------------------------------------------------------------------------------
# the model
# --------------------------------------------------------------------------------------------

@dataclass(eq=False)
class PackingCpModel:
    """A built CP-SAT packing model and what reading it back needs: the CpModel, each task's
    start variable, each usable pair's presence literal (pairs as in ``data``), each job's
    completion variable, the objective's known upper (the hint's cost) and lower limits in model
    units (None if not set), and whether a complete hint was given."""

    model: Any
    data: PackingIntData
    start: list
    presence: list
    completion: list
    upper_limit: int | None
    lower_limit: int | None
    hinted: bool


def _task_pairs(data: PackingIntData, n_tasks: int) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in range(n_tasks)]
    for q, t in enumerate(data.pair_task.tolist()):
        out[t].append(q)
    return out


def task_machine_and_start(instance, schedule: Schedule, who: str) -> tuple[np.ndarray, np.ndarray]:
    """Each task's machine and start in a schedule that runs every task in exactly one piece (in
    the instance's global task order); ValueError naming *who* otherwise."""
    task = instance.job_offset[schedule.job] + schedule.task
    if len(task) != instance.n_tasks or len(np.unique(task)) != instance.n_tasks:
        raise ValueError(f"{who}: the schedule must run every task in exactly one piece (non-preemptive)")
    machine = np.empty(instance.n_tasks, dtype=np.int64)
    start = np.empty(instance.n_tasks)
    machine[task] = schedule.machine
    start[task] = schedule.start
    return machine, start


def packing_hint(instance: PackingInstance, data: PackingIntData, schedule: Schedule) -> tuple[list[int], list[int]]:
    """A non-preemptive *schedule* of the instance as a feasible model solution: each task's
    machine from the schedule, started by :func:`serial_packing` in the model's integers in the
    schedule's start order. Returns (pair index per task, start per task)."""
    machine_of, start_of = task_machine_and_start(instance, schedule, "packing_hint")
    pair_of = {(t, i): q for q, (t, i) in enumerate(zip(data.pair_task.tolist(), data.pair_machine.tolist()))}
    pair = [pair_of.get((t, int(machine_of[t]))) for t in range(instance.n_tasks)]
    if any(q is None for q in pair):
        raise ValueError("packing_hint: the schedule runs a task on a machine it may not use")
    order = job_order_by_start(start_of, np.zeros(instance.n_tasks)).tolist()
    res = list(zip(data.reserve_machine.tolist(), data.reserve_demand.tolist(), data.reserve_until.tolist()))
    starts = serial_packing(order, data.pair_machine[pair].tolist(), data.pair_time[pair].tolist(),
                            data.demand.tolist(), data.task_release.tolist(), data.capacity.tolist(), res)
    return pair, [int(s) for s in starts]


def relaxed_packing_instance(instance: PackingInstance, data: PackingIntData) -> PackingInstance | None:
    """An instance whose optimum is at most the model's optimum over the factors (see the module
    docstring; its time 0 is the model's origin, so its objective is Σ w_j (C_j - o): add
    ``scaling.cost_offset`` to a bound of it, :meth:`Scaling.bound_out`): the model's usable pairs
    and numbers over the factors, reservations left out. A
    demand rounded down to 0 becomes a tiny ε (an instance's demands are positive), and every
    capacity grows by (tasks × ε), so that every set of tasks the model packs still fits. None
    when a duration or weight is 0 in the model (the instance cannot hold it)."""
    from schedrelax.instances import PackingJob, PackingTask

    sc = data.scaling
    if (data.pair_time <= 0).any() or (data.weight <= 0).any() or (data.capacity <= 0).any():
        return None
    eps = 1e-9 / sc.demand
    per_task = _task_pairs(data, instance.n_tasks)
    jobs = []
    for j in range(instance.n_jobs):
        tasks = [PackingTask(demand=ratio_down(int(data.demand[t]), sc.demand) or eps,
                             placement=[int(data.pair_machine[q]) for q in per_task[t]],
                             processing_time=[ratio_down(int(data.pair_time[q]), sc.time) for q in per_task[t]])
                 for t in range(instance.job_offset[j], instance.job_offset[j + 1])]
        r = int(data.task_release[instance.job_offset[j]])
        jobs.append(PackingJob(tasks=tuple(tasks), weight=ratio_down(int(data.weight[j]), sc.weight),
                               release=ratio_down(r, sc.time)))
    caps = [ratio_up(int(c), sc.demand) + instance.n_tasks * eps for c in data.capacity.tolist()]
    return PackingInstance(capacities=caps, jobs=tuple(jobs), name=f"{instance.name} (relaxed for CP-SAT)")


def ratio_down(a: int, b: int) -> float:
    """The largest float <= a / b."""
    return _float_down(Fraction(a, b))


def ratio_up(a: int, b: int) -> float:
    """The smallest float >= a / b."""
    return _float_up(Fraction(a, b))


def model_lower_limit(relaxed_bound: float | None, scaling: Scaling) -> int | None:
    """A lower bound of :func:`relaxed_packing_instance` (or its related twin), as a lower limit of
    the model's objective: times the factors, less 1e-6 relative for the LP solver's tolerance."""
    if relaxed_bound is None or not relaxed_bound > 0:
        return None
    return math.ceil(relaxed_bound * scaling.objective_factor * (1 - 1e-6))


def build_cpsat_packing(instance: PackingInstance, *, data: PackingIntData | None = None,
                        start_schedule: Schedule | None = None, cost_bound: float | None = None,
                        lower_limit: int | None = None) -> PackingCpModel:
    """The CP-SAT model of PRP||Σ w_j C_j of the module docstring.

    *start_schedule*: a non-preemptive schedule of the instance, given to CP-SAT as a complete
    hint (via :func:`packing_hint`, feasible in the model) whose model cost caps the objective.
    *cost_bound*: the cost of a known schedule (that schedule's), deciding the scale's room.
    *data*: the scaled numbers (default :func:`packing_int_data` with *cost_bound*).
    *lower_limit*: a lower bound on the *model's* optimum in model units (see
    :func:`model_lower_limit`), the objective's lower limit.
    """
    from schedrelax._ortools import cp_model_module

    cp_model = cp_model_module()
    data = data if data is not None else packing_int_data(instance, cost_bound)
    m = cp_model.CpModel()
    m.name = f"packing CP-SAT {instance.name}".strip()
    T, n, M = instance.n_tasks, instance.n_jobs, instance.n_machines
    H = data.horizon
    per_task = _task_pairs(data, T)
    hint_pair = hint_start = None
    hint_cost = None
    twins = _twin_groups(instance, data, per_task)
    if start_schedule is not None:
        hint_pair, hint_start = packing_hint(instance, data, start_schedule)
        hint_machine = [int(data.pair_machine[q]) for q in hint_pair]
        order_twins_hint(twins, hint_machine, hint_start)
        hint_pair = [next(q for q in per_task[t] if int(data.pair_machine[q]) == hint_machine[t]) for t in range(T)]
        ends = [hint_start[t] + int(data.pair_time[hint_pair[t]]) for t in range(T)]
        hint_C = [max(ends[t] for t in range(instance.job_offset[j], instance.job_offset[j + 1])) for j in range(n)]
        hint_cost = int(sum(int(w) * c for w, c in zip(data.weight.tolist(), hint_C)))
    upper = hint_cost
    lower = lower_limit if upper is None or lower_limit is None else min(lower_limit, upper)
    w = data.weight.tolist()
    # A job's completion is at most the horizon and, when its weight counts, the objective cap / W_j.
    c_max = [min(H, upper // w[j]) if (upper is not None and w[j] > 0) else H for j in range(n)]
    shortest = [min(int(data.pair_time[q]) for q in per_task[t]) for t in range(T)]
    rel = data.task_release.tolist()
    job = instance.task_job.tolist()
    start = [m.new_int_var(rel[t], max(rel[t], c_max[job[t]] - shortest[t]), f"s{t}") for t in range(T)]
    presence = [None] * len(data.pair_task)
    by_machine: list[list[int]] = [[] for _ in range(M)]
    intervals = [None] * len(data.pair_task)
    for t in range(T):
        lits = []
        for q in per_task[t]:
            lit = m.new_bool_var(f"x{t}_{int(data.pair_machine[q])}")
            presence[q] = lit
            intervals[q] = m.new_optional_fixed_size_interval_var(start[t], int(data.pair_time[q]), lit, f"i{t}_{q}")
            by_machine[int(data.pair_machine[q])].append(q)
            lits.append(lit)
        m.add_exactly_one(lits)
    end = []
    for t in range(T):
        e = m.new_int_var(rel[t] + shortest[t], c_max[job[t]], f"e{t}")
        m.add(e == start[t] + sum(int(data.pair_time[q]) * presence[q] for q in per_task[t]))
        end.append(e)
    demand = data.demand.tolist()
    for i in range(M):
        ivs = [intervals[q] for q in by_machine[i]]
        dem = [demand[int(data.pair_task[q])] for q in by_machine[i]]
        for r in np.flatnonzero(data.reserve_machine == i).tolist():
            u = int(data.reserve_until[r])
            if u > 0 and data.reserve_demand[r] > 0:
                ivs.append(m.new_fixed_size_interval_var(0, u, f"reserved{r}"))
                dem.append(int(data.reserve_demand[r]))
        if ivs:
            m.add_cumulative(ivs, dem, int(data.capacity[i]))
    completion = []
    for j in range(n):
        lo = max(rel[t] + shortest[t] for t in range(instance.job_offset[j], instance.job_offset[j + 1]))
        C = m.new_int_var(lo, max(lo, c_max[j]), f"C{j}")
        m.add_max_equality(C, end[instance.job_offset[j]:instance.job_offset[j + 1]])
        completion.append(C)
    # Interchangeable tasks of a job: keep the solutions where the lower index starts no later.
    order_twins_and_minimise(m, twins, start, w, completion, upper, lower)
    if hint_pair is not None:
        for t in range(T):
            m.add_hint(start[t], hint_start[t])
            m.add_hint(end[t], hint_start[t] + int(data.pair_time[hint_pair[t]]))
            for q in per_task[t]:
                m.add_hint(presence[q], q == hint_pair[t])
        for j in range(n):
            m.add_hint(completion[j], hint_C[j])
    return PackingCpModel(m, data, start, presence, completion, upper, lower, hint_pair is not None)


def _twin_groups(instance: PackingInstance, data: PackingIntData, per_task) -> list[list[int]]:
    """Tasks of one job with equal demand and equal (machine, time) pairs in the model's numbers,
    in index order: interchangeable in every model solution."""
    groups = []
    for j in range(instance.n_jobs):
        seen: dict[tuple, list[int]] = {}
        for t in range(instance.job_offset[j], instance.job_offset[j + 1]):
            key = (int(data.demand[t]), tuple((int(data.pair_machine[q]), int(data.pair_time[q])) for q in per_task[t]))
            seen.setdefault(key, []).append(t)
        groups += [g for g in seen.values() if len(g) > 1]
    return groups


def order_twins_hint(groups: list[list[int]], machine: list[int], start: list[int]) -> None:
    """Relabel interchangeable tasks of a solution (in place) so that starts increase with the index,
    as the model's twin rows ask; the solution stays feasible with the same cost."""
    for g in groups:
        slots = sorted((start[t], machine[t]) for t in g)
        for t, (s, i) in zip(g, slots):
            start[t], machine[t] = s, i


def order_twins_and_minimise(m, twins, start, w, completion, upper, lower) -> None:
    """The rows both CP-SAT models end with: interchangeable tasks of a job (each group in
    *twins*) start in index order, and Σ w_j C_j, kept within the integer limits *upper* and
    *lower* where given, is minimised."""
    for g in twins:
        for a, b in itertools.pairwise(g):
            m.add(start[a] <= start[b])
    objective = sum(w[j] * completion[j] for j in range(len(completion)))
    if upper is not None:
        m.add(objective <= upper)
    if lower is not None:
        m.add(objective >= lower)
    m.minimize(objective)
