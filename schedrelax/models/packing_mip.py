"""Exact time-indexed MIPs for small packing instances (paper 003 §2), the optima the relaxations
and algorithms are checked against.

Time is cut into slots of one *unit* from an *origin*, the earliest release (:func:`time_grid`):
the largest u such that every usable processing time, and every release and reservation end
measured from the origin, is a whole number of units (0.5 for data in halves). No task starts
before the origin, so a reservation that ends by it does not matter and one that ends later holds
its room from the origin to its end. The models count time in slots from the origin: their
objective is Σ w_j (C_j − origin) / unit, which :meth:`TimeGrid.cost` and :meth:`TimeGrid.bound`
map back to the instance's Σ w_j C_j, and their schedules are put back on the instance's clock.
So the model is the same, number for number, in any unit and from any origin: a millisecond task
released at 10^6 is one slot, not 10^9, and a solver's absolute tolerances (HiGHS took C_j >=
1.2e-8·s for C_j >= 0 and called 0 the optimum) meet numbers of the size of the slot counts.

Times are read as the numbers they stand for: a time within :data:`GRID_ULPS` units in the last
place of its time stamp of a grid point is on that grid (the round-off of writing the data in
another unit or from another origin), anything further off is refused, never rounded.

* :func:`build_nonpreemptive_mip` — PRP||Σ w_j C_j (§4: no preemption, hence no migration), exact
  for the continuous-time problem: with data in whole units, shifting every task as early as
  capacity allows gives a schedule no worse in which each task starts at a release time or at the
  completion of another task on its machine, hence at a whole unit.
* :func:`build_preemptive_mip` — PRP|pmtn|Σ w_j C_j without migration in the slotted model of §2
  (X^i_kj(t) ∈ {0, 1} per slot: preemption at slot boundaries). With single-machine placement it is
  PDP|pmtn|Σ w_j C_j (§5). Exact for the slotted model, which every event-driven list schedule on
  whole-unit data belongs to; continuous-time preemption can do better (three tasks of demand 1/2
  on a machine of capacity 1 finish by 1.5, not 2), so its optimum is an upper bound there.

Both take an optional ``upper_bound`` on the optimum (the cost of any feasible schedule): every job
of an optimal schedule then has w_j C_j <= upper_bound, which caps each job's slots. The horizon is
otherwise max_j r_j + Σ_tasks max_i p^i from the origin (as for the LPs, see :mod:`schedrelax.models.synchpack_lp`),
with the last reservation end in place of max_j r_j when that is later.

Reservations (room held on a machine over [0, until)) lower that machine's capacity row in the slots
they cover; their ends after the origin are on the time grid like the release times.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pyomo.environ as pyo
import scipy.sparse as sp
from pyomo.core.expr.numeric_expr import LinearExpression

from schedrelax.errors import AlgorithmError
from schedrelax.instances import PackingInstance
from schedrelax.instances._checks import flat_ranges
from schedrelax.models.synchpack_lp import add_linear_rows, usable_pairs, without_gc
from schedrelax.schedules import Schedule

MAX_DENOMINATOR = 1000
"""Largest q of the rationals k/q that the CP-SAT models' integer scaling
(:mod:`schedrelax.models.cpsat_packing`) and the online re-planning clock
(:mod:`schedrelax.online.remaining`) read a float as; the time-indexed MIPs' grid is
:func:`time_grid`'s, relative to the data and not bounded by it."""

MAX_BINARIES = 1_000_000
"""Most (task, machine, slot) binaries a time-indexed MIP is built with. Beyond, building takes
gigabytes and HiGHS's presolve can run for minutes past a time limit (it does not poll the clock
there), while no solver proves such an optimum anyway; the builders refuse up front instead."""


MAX_CAPACITY_TERMS = 5_000_000
"""Most terms the non-preemptive MIP's capacity rows may hold, counted in the form it is built in
(:func:`capacity_terms_of`): in start variables a start of a task p slots long is in p rows, so
long tasks make the rows far larger than the binaries (two tasks of 12,300 and 157 slots: 3.9 M
terms); in step variables, chosen for such tasks (:func:`choose_form`), a pair is in n + p - 1
rows, and this limit rarely binds before :data:`MAX_BINARIES`. The builder refuses past it up
front."""


MAX_GRID_CELLS = 10_000_000
"""Most (machine, slot) cells of the time grid: the capacity rows and the room left by reservations
are laid out over every slot up to the horizon, so a grid of tiny slots far from 0 (one task of
0.005 released at 10^6: 2·10^8 slots) would take minutes and gigabytes before any variable is
made. The builders refuse past this up front."""


def _check_grid(machines: int, slots: int, grid: TimeGrid) -> None:
    if machines * slots > MAX_GRID_CELLS:
        raise AlgorithmError(
            f"packing MIP: the time grid would have {slots:,} slots of {grid.unit:g} on each of {machines} machines "
            f"({machines * slots:,} cells, more than the limit of {MAX_GRID_CELLS:,}), up to {slots * grid.unit:g} "
            f"after the earliest release; the grid is the largest unit dividing every processing time, and every "
            f"release and reservation end measured from the earliest release ({grid.finest} needs it this fine): "
            f"coarser times, or releases closer together, make a smaller model")


def check_grid(instance: PackingInstance) -> None:
    """AlgorithmError, before any work, when the instance is off every grid the MIP accepts
    (:func:`time_grid`) or its grid up to the horizon would pass :data:`MAX_GRID_CELLS`; callers
    run it before their starts and relaxations, so a refusal comes at once."""
    grid = time_grid(instance)
    *_, end = _windows(instance, grid, None)
    _check_grid(instance.n_machines, int(end.max()), grid)


def _check_terms(count: int, grid: TimeGrid, slots: int, limit: int, form: str) -> None:
    if count > limit:
        how = ("each start of a task p slots long is in p rows" if form == "pulse" else
               "a task p slots long with n start slots is in n + p - 1 rows")
        raise AlgorithmError(
            f"packing MIP: the time-indexed model's capacity rows would hold {count:,} terms ({slots:,} slots of "
            f"{grid.unit:g}, as fine as {grid.finest} needs; {form} variables: {how}), more than the limit of "
            f"{limit:,}; coarser times or shorter tasks make a smaller model")


def _check_size(count: int, what: str, grid: TimeGrid, slots: int) -> None:
    if count > MAX_BINARIES:
        raise AlgorithmError(
            f"packing MIP: the time-indexed model would have {count:,} binary variables ({what}, {slots:,} slots "
            f"of {grid.unit:g}, as fine as {grid.finest} needs), more than the limit of {MAX_BINARIES:,}; its grid "
            f"is the largest unit dividing every processing time, release and reservation end: coarser times make "
            f"a smaller model")


GRID_ULPS = 4
"""How far a time may be from a grid point and still be put on it: this many units in the last
place (ulps) of its time stamp, its own magnitude for a processing time and the larger of itself
and the origin for a release or reservation end (it enters as their difference).

Why 4: data on a grid k·u written in another unit or from another origin are off it only by the
round-off of that rewriting. A time k/q times a unit is off by at most 1 ulp (the float of k/q,
then the product); adding an origin adds half an ulp of the stamp; a release and the origin each
so, their difference is off by at most 3 ulps of the larger. 4 covers that, and stays inside what
the verifier forgives a start before its release (:func:`~schedrelax.schedules.time_tolerance`:
4 ulps of the stamp plus TOL = 1e-6 of the shortest duration, which the resolution limit
:data:`~schedrelax.instances._checks.RESOLUTION` keeps at >= 5e-16 of the horizon, over 2 ulps),
with the half ulp of rounding the start itself. It is under 2·10^-6 of that resolution limit
(5e-10 of the horizon, 2·10^6 ulps or more): no duration the package resolves is moved by it, and a
time further off its grid is refused, never rounded (:func:`time_grid`)."""


def _simplest_between(lo: Fraction, hi: Fraction) -> Fraction:
    """The rational of least denominator in [lo, hi] (0 <= lo <= hi), by continued fractions."""
    whole = lo.numerator // lo.denominator
    if lo == whole:
        return Fraction(whole)
    if whole + 1 <= hi:
        return Fraction(whole + 1)
    return whole + 1 / _simplest_between(1 / (hi - whole), 1 / (lo - whole))


@dataclass(frozen=True)
class TimeGrid:
    """The time grid of the packing MIPs: slot k is [origin + k·unit, origin + (k+1)·unit).

    ``origin`` is the earliest release (a float of the instance, exactly); ``exact_unit`` the
    slot length as a rational (``unit`` its float); ``release_slots`` (per job),
    ``reserve_slots`` (per reservation, 0 for one that ends by the origin) and ``pair_slots``
    (per usable (task, machine) pair, in :func:`usable_pairs` order) the times in slots.
    ``shift`` is the most a release or reservation end was moved later to reach the grid and
    ``stretch`` the most a processing time was lengthened, relative to itself (both >= 0, exact):
    what :meth:`bound` takes back from a bound of the model. ``finest`` names the time that needs
    the finest grid, for the messages of the size limits."""

    origin: float
    exact_unit: Fraction
    release_slots: np.ndarray
    reserve_slots: np.ndarray
    pair_slots: np.ndarray
    shift: Fraction
    stretch: Fraction
    finest: str

    @property
    def unit(self) -> float:
        return float(self.exact_unit)

    def times(self, slots) -> np.ndarray:
        """origin + slot·unit, each rounded once to the nearest float (no product of floats)."""
        o = Fraction(self.origin)
        return np.array([float(o + int(k) * self.exact_unit) for k in np.asarray(slots).ravel()], dtype=float)

    def cost(self, model_value: float, weights) -> float:
        """A model objective Σ w_j C'_j (slots from the origin) as the instance's Σ w_j C_j."""
        return float(Fraction(model_value) * self.exact_unit + Fraction(self.origin) * _weight_sum(weights))

    def bound(self, model_bound: float, weights) -> float:
        """A lower bound B' on the model's objective as a lower bound on the instance's optimum,
        rounded down: (unit·B' − shift·Σw) / (1 + stretch) + origin·Σw.

        The model is the instance with each release and reservation end moved by at most
        ``shift`` later and each processing time lengthened by at most ``stretch`` of itself (moves
        the other way only relax it). Any schedule of the instance, stretched about the origin by
        1 + stretch and delayed by shift, is one of the model (each task's interval covers its
        model length, releases and reservation ends are met, the tasks running together are the
        same), of cost at most (1 + stretch)·C' + shift per job: so unit·B' <= (1 + stretch)·OPT' +
        shift·Σw, OPT' the instance's optimum less origin·Σw. Nothing is taken off when the times
        are on the grid exactly."""
        W = _weight_sum(weights)
        exact = (Fraction(model_bound) * self.exact_unit - self.shift * W) / (1 + self.stretch) + Fraction(self.origin) * W
        out = float(exact)
        return math.nextafter(out, -math.inf) if Fraction(out) > exact else out


def _weight_sum(weights) -> Fraction:
    return sum((Fraction(float(w)) for w in np.asarray(weights, dtype=float).ravel()), Fraction(0))


def _off_grid(what: str, v: float, origin: float, tau: tuple[str, float]) -> AlgorithmError:
    return AlgorithmError(
        f"packing MIP: {what} is {v!r}, on no time grid the MIP can use: measured from the earliest release "
        f"({origin!r}), every processing time, release and reservation end must be a whole number of one unit, "
        f"up to {GRID_ULPS} units in the last place of its time stamp (float round-off, never more), with at most "
        f"{MAX_GRID_CELLS:,} units in the longest processing time ({tau[0]}, {tau[1]!r}); the time-indexed MIP is exact only "
        f"on such a grid, and it does not round times onto one")


def time_grid(instance: PackingInstance) -> TimeGrid:
    """The coarsest grid the instance's times lie on, up to their round-off (see the module
    docstring): origin at the earliest release, slot length u, every processing time and every
    release and reservation end after the origin a whole number of slots.

    Each time v (a release or reservation end as v − origin) may be put on the grid only within
    :data:`GRID_ULPS` ulps of its time stamp. Its ratio to the longest processing time τ, over the
    interval those round-offs allow, is read as a fraction there, the times with the tightest
    intervals first: the one on the grid of the fractions so far (τ over the lcm of their
    denominators) if there is one, else the one that refines that grid least (the simplest
    fraction in the interval, or the least refinement of the grid that reaches it). The slot is
    then the simplest length that puts every time within its interval. A release far from the
    origin has a wide interval (ulps of its stamp), whose simplest fraction is seldom the grid's:
    taken first, it refused such copies of instances whose other copies were solved. The same in
    any unit and from any origin, since only ratios and each stamp's own ulps enter. Raises :class:`~schedrelax.errors.AlgorithmError`,
    naming the time, when no grid of at most :data:`MAX_GRID_CELLS` slots in τ fits: a time off
    the grid by more than its round-off is refused, not rounded (a release rounded down would let
    a task start before it). Exact: every float is a whole multiple of 2^-K for one K, and the
    arithmetic is on those whole numbers."""
    pairs = usable_pairs(instance)
    release = instance.release.astype(float)
    origin = float(release.min())
    until = np.atleast_1d(instance.reserve_until).astype(float)
    ptime = instance.place_time[pairs].astype(float)
    named = [(f"task {t}'s processing time on machine {m}", v, abs(v), False) for t, m, v in
             zip(instance.place_task[pairs].tolist(), instance.place_machine[pairs].tolist(), ptime.tolist())]
    named += [(f"job {j}'s release", v, max(abs(v), abs(origin)), True) for j, v in enumerate(release.tolist())]
    named += [(f"reservation {i}'s end", v, max(abs(v), abs(origin)), True)
              for i, v in enumerate(until.tolist()) if v > origin]
    longest = int(np.argmax(ptime))
    tau = float(ptime[longest])
    tau_named = (named[longest][0], tau)
    floats = [origin, *(v for _, v, _, _ in named), *(float(np.spacing(s)) for _, _, s, _ in named)]
    K = max(f.as_integer_ratio()[1].bit_length() - 1 for f in floats)

    def whole(x: float) -> int:  # x · 2^K, exactly
        num, den = x.as_integer_ratio()
        return num << (K - den.bit_length() + 1)

    O, Tau, TauT = whole(origin), whole(tau), GRID_ULPS * whole(float(np.spacing(tau)))
    seen: dict[tuple[float, bool], tuple[int, int, Fraction, str]] = {}
    count, finest = 1, (1, tau_named)
    def width(item) -> float:
        """A time's round-off interval relative to the time: its stamp's ulp over it."""
        _, v, stamp, is_stamp = item
        ulp = float(np.spacing(stamp))
        return ulp / max(abs(v - origin if is_stamp else v), ulp)

    # The tightest intervals first (processing times: a few ulps of themselves), the widest last
    # (releases far from the origin: ulps of the stamp, up to 1e-9 of a short time at 10^6): a
    # wide interval holds simpler fractions than the grid's, which the grid need not take.
    for what, v, stamp, is_stamp in sorted(named, key=width):
        if (v, is_stamp) in seen:
            continue
        V = whole(v) - O if is_stamp else whole(v)
        T = GRID_ULPS * whole(float(np.spacing(stamp)))
        lo_num, lo_den, hi_num, hi_den = max(V - T, 0), Tau + TauT, V + T, Tau - TauT
        # Most times are on the grid found so far: n / count, the nearest fraction of its
        # denominator, is kept when it lies in the interval (the grid stays as coarse as it is).
        # Otherwise the grid is refined as little as it can be: by the least k that puts a
        # multiple of 1 / (k·count) in the interval, or by the simplest fraction there, whichever
        # makes the coarser grid.
        x = (v - origin if is_stamp else v) / tau
        n = round(x * count)
        if lo_num * count <= n * lo_den and n * hi_den <= hi_num * count:
            ratio = Fraction(n, count)
        else:
            lo_x, hi_x = Fraction(lo_num, lo_den), Fraction(hi_num, hi_den)
            ratio = min(_simplest_between(lo_x * count, hi_x * count) / count, _simplest_between(lo_x, hi_x),
                        key=lambda r: math.lcm(count, r.denominator))
        count = math.lcm(count, ratio.denominator)
        finest = max(finest, (ratio.denominator, (what, v)), key=lambda f: f[0])
        if count > MAX_GRID_CELLS:
            raise _off_grid(what, v, origin, tau_named)
        seen[(v, is_stamp)] = (V, T, ratio, what)
    slots = {key: int(r * count) for key, (_, _, r, _) in seen.items()}
    # the slot lengths u (times 2^K) that put every time within its interval: [lo, hi]
    lo, hi = (0, 1), (Tau + TauT, 1)
    for key, (V, T, _, what) in seen.items():
        n = slots[key]
        if n:
            if (V - T) * lo[1] > lo[0] * n:
                lo = (V - T, n)
            if (V + T) * hi[1] < hi[0] * n:
                hi = (V + T, n)
            if lo[0] * hi[1] > hi[0] * lo[1]:
                raise _off_grid(what, key[0], origin, tau_named)
    unit = _simplest_between(Fraction(lo[0], lo[1] << K), Fraction(hi[0], hi[1] << K))
    # each time's move onto the grid, times 2^K·b for u = a/b: n·a·2^K − V·b
    a, b = unit.numerator << K, unit.denominator
    moves = [(slots[key] * a - V * b, V, key[1]) for key, (V, *_) in seen.items()]
    shift = Fraction(max((m for m, _, stamp in moves if stamp), default=0), b << K)
    m, V = max(((m, V) for m, V, stamp in moves if not stamp), key=lambda mv: Fraction(*mv))
    return TimeGrid(
        origin=origin, exact_unit=unit,
        release_slots=np.array([slots[(v, True)] for v in release.tolist()], dtype=np.int64),
        reserve_slots=np.array([slots[(v, True)] if v > origin else 0 for v in until.tolist()], dtype=np.int64),
        pair_slots=np.array([slots[(v, False)] for v in ptime.tolist()], dtype=np.int64),
        shift=max(shift, Fraction(0)), stretch=max(Fraction(m, V * b), Fraction(0)),
        finest=f"{finest[1][0]} ({finest[1][1]!r})")


def time_unit(instance: PackingInstance) -> float:
    """The slot length of :func:`time_grid` (its origin is the earliest release)."""
    return time_grid(instance).unit


@dataclass(frozen=True)
class MIPLayout:
    """Index arrays behind a packing MIP's variables, for the reader."""

    kind: str
    instance: PackingInstance
    grid: TimeGrid
    pair_task: np.ndarray
    pair_machine: np.ndarray
    pair_slots: np.ndarray
    var_pair: np.ndarray
    var_slot: np.ndarray
    form: str = "pulse"

    @property
    def unit(self) -> float:
        return self.grid.unit


def _windows(instance: PackingInstance, grid: TimeGrid, upper_bound: float | None):
    """Usable pairs with processing and release in slots, and each job's last usable slot end."""
    pairs = usable_pairs(instance)
    qt = instance.place_task[pairs]
    qm = instance.place_machine[pairs]
    qp = grid.pair_slots
    rel = grid.release_slots
    longest = np.zeros(instance.n_tasks, dtype=np.int64)
    np.maximum.at(longest, qt, qp)
    horizon = int(max(rel.max(), grid.reserve_slots.max(initial=0)) + longest.sum())
    end = np.full(instance.n_jobs, horizon)
    if upper_bound is not None:
        # w_j C_j <= upper_bound - Σ_{k≠j} w_k L_k, L_k = r_k + its longest task's shortest time
        # (no job completes earlier). Without the others' share the cap moved with the origin of
        # time: releases at 1,000 put every cap past the horizon, and a model the same instance
        # at 0 builds was refused as too large (the unit-invariance fuzz). The float sums and
        # quotient are off by a few ulps of upper_bound / w_j, which the slack covers (a window
        # one slot too long costs nothing).
        w = np.asarray(instance.weights, dtype=float)
        shortest = np.full(instance.n_tasks, np.inf)
        np.minimum.at(shortest, qt, instance.place_time[pairs])
        least = np.zeros(instance.n_jobs)
        np.maximum.at(least, instance.task_job, shortest)
        floor_cost = w * (np.asarray(instance.release, dtype=float) + least)
        latest = (upper_bound - (floor_cost.sum() - floor_cost)) / w
        slack = 4 * np.spacing(np.abs(latest)) + 4 * len(w) * np.spacing(abs(upper_bound) + floor_cost.sum()) / w
        cap = np.floor((latest - grid.origin) / grid.unit + 1e-9 + slack / grid.unit)
        end = np.minimum(end, cap.astype(np.int64))
    return qt, qm, qp, rel, end


def start_windows(instance: PackingInstance, upper_bound: float | None):
    """The time grid, the usable pairs (task, machine, slots), each job's last slot end, and each
    pair's first and last start slot (rj, last; none when last < rj), shared by the time-indexed
    MIP, its LP and its Lagrangian bound."""
    grid = time_grid(instance)
    qt, qm, qp, rel, end = _windows(instance, grid, upper_bound)
    job = instance.task_job[qt]
    return grid, qt, qm, qp, end, rel[job], end[job] - qp


def start_slots(instance: PackingInstance, upper_bound: float | None, max_terms: int | None,
                form: str | None = "pulse"):
    """The time-indexed model's variables, shared by the MIP and its LP built as arrays: the time
    grid, the usable (task, machine, slots) pairs, each job's last slot end, per variable its pair
    and slot (a pair's variables are consecutive, slots increasing), and the form (*form*, or
    :func:`choose_form`'s when None). AlgorithmError past the size limits (the capacity terms
    counted in that form), before anything is built."""
    grid, qt, qm, qp, end, rj, last = start_windows(instance, upper_bound)
    starts = np.maximum(last - rj + 1, 0)
    form = form or choose_form(starts, qp)
    _check_grid(instance.n_machines, int(end.max()), grid)
    _check_size(int(starts.sum()), "start slots of each task on each machine", grid, int(end.max()))
    _check_terms(capacity_terms_of(form, starts, qp), grid, int(end.max()),
                 MAX_CAPACITY_TERMS if max_terms is None else min(max_terms, MAX_CAPACITY_TERMS), form)
    vq, vs = flat_ranges(rj, last)
    return grid, qt, qm, qp, end, vq, vs, form


def capacity_terms_of(form: str, starts: np.ndarray, qp: np.ndarray) -> int:
    """Terms of the capacity rows in *form*, from each pair's number of start slots and length: a
    start is in p rows of the pulse form (n·p a pair); a pair with n start slots is in n + p - 1
    rows of the step form, twice in n - 1 of them (2n + p - 2)."""
    live = starts > 0
    if form == "pulse":
        return int((starts[live] * qp[live]).sum())
    return int((2 * (starts[live] - 1) + qp[live]).sum())


STEP_RATIO = 6
"""The MIP is built in step variables when its capacity rows in start variables would hold more
than this many times the terms (about: when its tasks average over 2·STEP_RATIO slots), and
HiGHS solves it without presolve (which segfaulted HiGHS 1.16 on one step model from the fuzz).
Measured with HiGHS 1.16 on the exact-reach packing instances, seconds to proof, start form /
step form without presolve: on whole numbers (ratio 2.9-3.8) 15 jobs 0.11/0.37, 20 jobs 11.1/none
in 60 s and 0.77/none, 25 jobs 48/none; with one task's time moved off the whole numbers to make
the grid finer, 10 jobs at ratio 3.1 0.05/0.02, 7.0 0.22/0.04, 13.5 1.9/0.06, 26 7.1/0.14, 65
45/0.27, 15 jobs at ratio 29 12.3/5.5; a 3-task instance in thousandths (ratio 315) 17.7/0.22 s.
6 lies between the largest ratio where the start form was measured to win (3.8; the exact-reach
instances stay at 4.3 or below up to 40 jobs) and the smallest where the step form won by 5x
(7.0); nothing was measured in between."""


def choose_form(starts: np.ndarray, qp: np.ndarray) -> str:
    """``"step"`` when the pulse form's capacity rows would hold more than :data:`STEP_RATIO` times
    the step form's terms, else ``"pulse"`` (*starts*: each pair's number of start slots)."""
    return "step" if capacity_terms_of("pulse", starts, qp) > STEP_RATIO * capacity_terms_of("step", starts, qp) \
        else "pulse"


def step_rows(instance: PackingInstance, grid: TimeGrid, qt, qm, qp, end, vq, vs):
    """The rows of the non-preemptive time-indexed model in *step* variables, over the columns
    (y, C): y[v] = 1 if task qt[q] has started on machine qm[q] by slot vs[v] (q = vq[v]), C_j the
    completion slot of job j. Returns (name, A, lower, upper) for each block of rows.

    With s[q, k] = y[q, k] - y[q, k-1] (y before the window is 0) the start variables of the
    textbook model (Sousa and Wolsey), these rows are exactly its rows: s >= 0 is ``monotone``;
    each task starts once, Σ_q y[q, b_q] = 1 (b_q the pair's last start slot); a task runs in slot
    u iff it started in [u-p+1, u], so its demand counts in u's capacity row as
    y[q, min(u, b_q)] - y[q, u-p]; and Σ_k (k+p) s[q, k] = (b_q+p) y[q, b_q] - Σ_{k<b_q} y[q, k].
    The map y <-> s is unimodular, so the LP relaxations have the same optimum and the 0/1 points
    are the same schedules; but a start is in at most two capacity rows, not p: 2n + p - 2 terms a
    pair instead of n·p (a 3-task instance in thousandths: 4.4 M capacity terms in start variables,
    14 k in step variables)."""
    nv, nT, nJ = len(vq), instance.n_tasks, instance.n_jobs
    n = nv + nJ
    count = np.bincount(vq, minlength=len(qt))
    live = np.flatnonzero(count > 0)
    first = (np.cumsum(count) - count)[live]
    lastv = first + count[live] - 1
    a, b, p = vs[first], vs[lastv], qp[live]
    S = int(end.max())
    inner = np.flatnonzero(np.r_[False, vq[1:] == vq[:-1]])  # every variable but its pair's first
    monotone = sp.csr_array((np.r_[np.ones(len(inner)), -np.ones(len(inner))],
                             (np.r_[np.arange(len(inner)), np.arange(len(inner))], np.r_[inner, inner - 1])),
                            shape=(len(inner), n))
    once = sp.csr_array((np.ones(len(live)), (qt[live], lastv)), shape=(nT, n))
    owner, u = flat_ranges(a, b + p - 1)
    plus = first[owner] + np.minimum(u, b[owner]) - a[owner]
    back = u - p[owner] >= a[owner]
    minus = (first[owner] + u - p[owner] - a[owner])[back]
    d = instance.demand[qt[live]]
    row = qm[live][owner] * S + u
    capacity = sp.csr_array((np.r_[d[owner], -d[owner][back]], (np.r_[row, row[back]], np.r_[plus, minus])),
                            shape=(instance.n_machines * S, n))
    used = np.flatnonzero(np.diff(capacity.indptr))
    not_last = np.ones(nv, dtype=bool)
    not_last[lastv] = False
    k = np.flatnonzero(not_last)
    completion = sp.csr_array((np.r_[np.ones(nT), -(b + p).astype(float), np.ones(len(k))],
                               (np.r_[np.arange(nT), qt[live], qt[vq[k]]], np.r_[nv + instance.task_job, lastv, k])),
                              shape=(nT, n))
    return [("starts_once", once, np.ones(nT), np.ones(nT)),
            ("monotone", monotone, np.zeros(len(inner)), np.full(len(inner), np.inf)),
            ("capacity", capacity[used], np.full(len(used), -np.inf), _free_room(instance, grid, S)[used]),
            ("completion", completion, np.zeros(nT), np.full(nT, np.inf))]


def pulse_rows(instance: PackingInstance, grid: TimeGrid, qt, qm, qp, end, vq, vs):
    """The rows of the non-preemptive time-indexed model in *start* variables (the textbook form),
    over the columns (x, C): x[v] = 1 if task qt[q] starts on machine qm[q] at slot vs[v]
    (q = vq[v]). Each start is in p capacity rows; same (name, A, lower, upper) blocks as
    :func:`step_rows`, with no ``monotone`` block."""
    nv, nT, nJ = len(vq), instance.n_tasks, instance.n_jobs
    n = nv + nJ
    once = sp.csr_array((np.ones(nv), (qt[vq], np.arange(nv))), shape=(nT, n))
    owner, slot = flat_ranges(vs, vs + qp[vq] - 1)  # a start at slot t occupies t .. t+p-1
    S = int(end.max())
    capacity = sp.csr_array((instance.demand[qt[vq[owner]]], (qm[vq[owner]] * S + slot, owner)),
                            shape=(instance.n_machines * S, n))
    used = np.flatnonzero(np.diff(capacity.indptr))
    completion = sp.csr_array((np.r_[np.ones(nT), -(vs + qp[vq]).astype(float)],
                               (np.r_[np.arange(nT), qt[vq]], np.r_[nv + instance.task_job, np.arange(nv)])),
                              shape=(nT, n))
    return [("starts_once", once, np.ones(nT), np.ones(nT)),
            ("capacity", capacity[used], np.full(len(used), -np.inf), _free_room(instance, grid, S)[used]),
            ("completion", completion, np.zeros(nT), np.full(nT, np.inf))]


FORMS = ("pulse", "step")
"""The two forms of the non-preemptive time-indexed model: :func:`pulse_rows` and :func:`step_rows`."""


def time_indexed_rows(form: str, instance, grid, qt, qm, qp, end, vq, vs):
    """The rows of the non-preemptive time-indexed model in *form* (see :data:`FORMS`)."""
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    return (step_rows if form == "step" else pulse_rows)(instance, grid, qt, qm, qp, end, vq, vs)


def step_starts(vq: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The variables of a 0/1 step solution *y* where a task starts: the first of its pair at 1."""
    on = y > 0.5
    return np.flatnonzero(on & ~np.r_[False, on[:-1] & (vq[1:] == vq[:-1])])


MIP_BUILD_TERMS_PER_SECOND = 250_000
"""The rate at which a packing MIP's terms go into Pyomo and through its standard-form compiler,
used to keep a build inside a time limit (:func:`build_terms`): measured on the shared 2-core
machine at load 2-3, 5.2 M terms (600 k binaries) took 7.7 s to build and 11.3 s to compile
(270 k a second); unloaded it is faster, so the estimate errs on the side of not building."""


def build_terms(instance: PackingInstance, *, upper_bound: float | None = None, preemptive: bool = False) -> int:
    """About how many terms a packing MIP on *instance* holds (what its build time grows with),
    before anything is built: the capacity terms of the form :func:`choose_form` picks plus two per
    binary (four in step form, :func:`step_rows`), or three per run binary and per completion binary
    of the preemptive model.
    AlgorithmError where the builder would refuse: times off every grid (:func:`time_grid`), a
    model past the size limits."""
    if preemptive:
        grid = time_grid(instance)
        qt, _, _, rel, end = _windows(instance, grid, upper_bound)
        return 3 * _preemptive_binaries(instance, grid, qt, rel, end)
    _, qt, _, qp, _, vq, _, form = start_slots(instance, upper_bound, None, None)
    return capacity_terms_of(form, np.bincount(vq, minlength=len(qt)), qp) + (4 if form == "step" else 2) * len(vq)


def _preemptive_binaries(instance: PackingInstance, grid: TimeGrid, qt, rel, end) -> int:
    """The preemptive model's run and completion binaries; AlgorithmError past the size limits."""
    job = instance.task_job
    S = int(end.max())
    _check_grid(instance.n_machines, S, grid)
    count = int(np.maximum(end[job[qt]] - rel[job[qt]], 0).sum()) + int(end.sum())
    _check_size(count, "run slots of each task on each machine, and completion slots of each job", grid, S)
    return count


def _free_room(instance: PackingInstance, grid: TimeGrid, S: int) -> np.ndarray:
    """Capacity left by the reservations on each (machine, slot), flattened as machine·S + slot
    (a reservation holds its room from the origin to its end)."""
    room = np.repeat(np.asarray(instance.capacities, dtype=float)[:, None], S, axis=1)
    slots = grid.reserve_slots
    for i, d, k in zip(instance.reserve_machine.tolist(), instance.reserve_demand.tolist(), slots.tolist()):
        room[i, :k] -= d
    return np.maximum(room, 0.0).ravel()


def build_nonpreemptive_mip(instance: PackingInstance, *, upper_bound: float | None = None,
                            lower_bound: float | None = None, max_terms: int | None = None,
                            form: str | None = None) -> pyo.ConcreteModel:
    """PRP||Σ w_j C_j (paper 003 §2 and §4) as a time-indexed MIP, exact (see the module docstring).

    A task starts once on one of its machines, within its job's window; on each machine and slot
    the demands of the tasks running sum to at most m_i; C_j >= (start + p) of each of its tasks,
    in slots from the grid's origin; minimise Σ w_j C_j
    (the instance's objective less origin·Σw, over the unit: ``model.layout.grid`` maps it back).
    In step variables y[v] = 1 if the task has started on the machine by the slot
    (:func:`step_rows`: the start-variable model's rows, with a start in two capacity rows, not p).
    *upper_bound* (a known schedule's cost) caps each job's window; *lower_bound* (a value no
    schedule beats, e.g. LP2's optimum) becomes the row ``bound_cut``: Σ w_j C_j >= (lower_bound
    − origin·Σw) / unit.
    AlgorithmError past :data:`MAX_BINARIES` binaries or past *max_terms* (at most
    :data:`MAX_CAPACITY_TERMS`) terms in the capacity rows, before anything is built.
    """
    grid, qt, qm, qp, end, vq, vs, form = start_slots(instance, upper_bound, max_terms, form)
    with without_gc():
        m = pyo.ConcreteModel(name=f"packing MIP (non-preemptive, {form} variables)")
        m.x = pyo.Var(range(len(vq)), within=pyo.Binary)
        m.C = pyo.Var(range(instance.n_jobs), bounds=(0, None))
        cols = [*m.x.values(), *m.C.values()]
        for name, A, lower, upper in time_indexed_rows(form, instance, grid, qt, qm, qp, end, vq, vs):
            add_linear_rows(m, name, A, cols, lower, upper)
        w = np.asarray(instance.weights, dtype=float)
        m.objective = pyo.Objective(expr=LinearExpression(linear_coefs=w.tolist(), linear_vars=list(m.C.values())))
        if lower_bound is not None:
            m.bound_cut = pyo.Constraint(expr=LinearExpression(linear_coefs=w.tolist(), linear_vars=list(
                m.C.values())) >= (float(lower_bound) - grid.origin * float(w.sum())) / grid.unit)
        m.layout = MIPLayout("nonpreemptive", instance, grid, qt, qm, qp, vq, vs, form)
    return m


def build_preemptive_mip(instance: PackingInstance, *, upper_bound: float | None = None) -> pyo.ConcreteModel:
    """PRP|pmtn|Σ w_j C_j without migration in §2's slotted model (PDP|pmtn|Σ w_j C_j when every
    task has one machine) as a time-indexed MIP, exact for that model (see the module docstring).

    y[q] = 1 if task t(q) runs on machine i(q) (one per task; no variable when the task has one
    usable machine); X[q, t] = 1 if it runs there in slot t, Σ_t X[q, t] = p·y[q]; per machine and
    slot the demands sum to at most m_i; D[j, t] = 1 if job j is complete by the end of slot t,
    allowed only if every task's processed share by then is 1, and nondecreasing in t;
    C_j = 1 + Σ_t (1 - D[j, t]) slots from the grid's origin, and D[j, last slot] = 1; minimise
    Σ w_j C_j in slots (``model.layout.grid`` maps it back).
    """
    grid = time_grid(instance)
    qt, qm, qp, rel, end = _windows(instance, grid, upper_bound)
    job = instance.task_job
    nT, nJ, M = instance.n_tasks, instance.n_jobs, instance.n_machines
    S = int(end.max())
    _preemptive_binaries(instance, grid, qt, rel, end)
    vq, vs = flat_ranges(rel[job[qt]], end[job[qt]] - 1)
    many = np.bincount(qt, minlength=nT)[qt] > 1
    yq = np.flatnonzero(many)
    dj, ds = flat_ranges(np.zeros(nJ, dtype=np.int64), end - 1)
    with without_gc():
        m = pyo.ConcreteModel(name="packing MIP (preemptive, no migration)")
        m.X = pyo.Var(range(len(vq)), within=pyo.Binary)
        m.y = pyo.Var(range(len(yq)), within=pyo.Binary)
        m.D = pyo.Var(range(len(dj)), within=pyo.Binary)
        for k in np.flatnonzero(ds == end[dj] - 1).tolist():
            m.D[k].fix(1)
        cols = [*m.X.values(), *m.y.values(), *m.D.values()]
        nX, ny = len(vq), len(yq)
        y_of = np.full(len(qt), -1)
        y_of[yq] = nX + np.arange(ny)
        # one machine per task
        A = sp.csr_array((np.ones(ny), (qt[yq], y_of[yq])), shape=(nT, len(cols)))
        multi = np.flatnonzero(np.diff(A.indptr))
        add_linear_rows(m, "one_machine", A[multi], cols, np.ones(len(multi)), np.ones(len(multi)))
        # Σ_t X[q, t] - p·y[q] = 0, or = p when the pair is the task's only one
        nq = len(qt)
        rows = np.r_[vq, yq]
        A = sp.csr_array((np.r_[np.ones(nX), -qp[yq].astype(float)], (rows, np.r_[np.arange(nX), y_of[yq]])),
                         shape=(nq, len(cols)))
        rhs = np.where(many, 0.0, qp.astype(float))
        add_linear_rows(m, "processing", A, cols, rhs, rhs)
        A = sp.csr_array((instance.demand[qt[vq]], (qm[vq] * S + vs, np.arange(nX))), shape=(M * S, len(cols)))
        used = np.flatnonzero(np.diff(A.indptr))
        add_linear_rows(m, "capacity", A[used], cols, np.full(len(used), -np.inf), _free_room(instance, grid, S)[used])
        # D[j, t] <= Σ_{q of task} Σ_{t' <= t} X[q, t'] / p_q for each task of j and slot t
        d_index = np.full((nJ, S), -1)
        d_index[dj, ds] = np.arange(len(dj))
        tk, tt = flat_ranges(np.zeros(nT, dtype=np.int64), end[job] - 1)
        row_of = np.full((nT, S), -1)
        row_of[tk, tt] = np.arange(len(tk))
        owner, upto = flat_ranges(vs, end[job[qt[vq]]] - 1)
        xr = row_of[qt[vq[owner]], upto]
        A = sp.csr_array((np.r_[np.ones(len(tk)), -1.0 / qp[vq[owner]]],
                         (np.r_[np.arange(len(tk)), xr], np.r_[nX + ny + d_index[job[tk], tt], owner])),
                         shape=(len(tk), len(cols)))
        add_linear_rows(m, "done_by", A, cols, np.full(len(tk), -np.inf), np.zeros(len(tk)))
        # D nondecreasing: implied at an optimum, but it prunes branch and bound (about 1.5x here)
        k = np.flatnonzero(ds < end[dj] - 1)
        A = sp.csr_array((np.r_[np.ones(len(k)), -np.ones(len(k))], (np.r_[np.arange(len(k)), np.arange(len(k))],
                         np.r_[nX + ny + k, nX + ny + k + 1])), shape=(len(k), len(cols)))
        add_linear_rows(m, "stays_done", A, cols, np.full(len(k), -np.inf), np.zeros(len(k)))
        w = np.asarray(instance.weights, dtype=float)
        m.objective = pyo.Objective(expr=LinearExpression(
            constant=float((w * (1 + end)).sum()), linear_coefs=(-w[dj]).tolist(),
            linear_vars=list(m.D.values())))
        m.layout = MIPLayout("preemptive", instance, grid, qt, qm, qp, vq, vs)
    return m


def packing_mip_schedule(model: pyo.ConcreteModel) -> Schedule:
    """The schedule of a solved packing MIP: pieces (job, task, machine, start, end, demand), one per
    task for the non-preemptive MIP, one per run of consecutive slots for the preemptive one."""
    lay: MIPLayout = model.layout
    if lay.kind == "nonpreemptive":
        x = np.fromiter((v.value or 0.0 for v in model.x.values()), float)
        on = step_starts(lay.var_pair, x) if lay.form == "step" else np.flatnonzero(x > 0.5)
        q, s = lay.var_pair[on], lay.var_slot[on]
        rows = list(zip(lay.pair_task[q], lay.pair_machine[q], lay.grid.times(s), lay.grid.times(s + lay.pair_slots[q])))
    else:
        on = np.fromiter((v.value or 0.0 for v in model.X.values()), float) > 0.5
        q, s = lay.var_pair[on], lay.var_slot[on]
        order = np.lexsort((s, q))
        q, s = q[order], s[order]
        brk = np.r_[True, (q[1:] != q[:-1]) | (s[1:] != s[:-1] + 1)]
        first = np.flatnonzero(brk)
        last = np.r_[first[1:], len(q)] - 1
        rows = list(zip(lay.pair_task[q[first]], lay.pair_machine[q[first]], lay.grid.times(s[first]),
                        lay.grid.times(s[last] + 1)))
    return _schedule(model, rows)


def _schedule(model: pyo.ConcreteModel, rows) -> Schedule:
    inst = model.layout.instance
    arr = np.array(rows, dtype=float).reshape(-1, 4)
    g = arr[:, 0].astype(np.int64)
    job = inst.task_job[g]
    return Schedule(job, g - inst.job_offset[job], arr[:, 1].astype(np.int64), arr[:, 2], arr[:, 3], inst.demand[g],
                    promises=frozenset({"non_preemptive", "no_migration"} if model.layout.kind == "nonpreemptive"
                                       else {"no_migration"}), meta={"algorithm": "mip"})


def packing_mip_start(model: pyo.ConcreteModel, schedule: Schedule) -> bool:
    """Set a non-preemptive packing MIP's variables to a feasible non-preemptive *schedule* (one
    piece per task), for ``solve(..., warm_start=True)``: each task's start on its machine (in
    step variables, 1 from its start slot on), C_j its job's last end. Returns False, setting
    nothing, for the preemptive model or a schedule the model cannot express (a start off the time grid, outside the task's window, on
    a pair the model does not have, or not one piece per task)."""
    lay: MIPLayout = model.layout
    inst = lay.instance
    if lay.kind != "nonpreemptive" or len(schedule) != inst.n_tasks:
        return False
    g = inst.job_offset[schedule.job] + schedule.task
    if sorted(g.tolist()) != list(range(inst.n_tasks)):
        return False
    unit = lay.grid.unit
    since = schedule.start - lay.grid.origin
    slot = np.rint(since / unit)
    # a start far from 0 carries the round-off of its stamp, as the data do (GRID_ULPS)
    if not np.all(np.abs(slot * unit - since) <= 1e-9 * unit + GRID_ULPS * np.spacing(np.abs(schedule.start))):
        return False
    index = {(int(t), int(i), int(s)): k for k, (t, i, s) in
             enumerate(zip(lay.pair_task[lay.var_pair].tolist(), lay.pair_machine[lay.var_pair].tolist(),
                           lay.var_slot.tolist()))}
    chosen = [index.get((int(t), int(i), int(s))) for t, i, s in zip(g, schedule.machine, slot)]
    if any(k is None for k in chosen):
        return False
    if lay.form == "step":
        started = np.full(len(lay.pair_task), np.iinfo(np.int64).max)
        started[lay.var_pair[chosen]] = lay.var_slot[chosen]
        on = lay.var_slot >= started[lay.var_pair]  # 1 from the start slot on, on the chosen pair
    else:
        on = np.zeros(len(lay.var_pair), dtype=bool)
        on[chosen] = True
    for k, var in enumerate(model.x.values()):
        var.value = float(on[k])
    ends = slot + lay.pair_slots[lay.var_pair[chosen]]
    C = np.zeros(inst.n_jobs)
    np.maximum.at(C, inst.task_job[g], ends)
    for j, var in enumerate(model.C.values()):
        var.value = float(C[j])
    return True
