"""Greedy list packing on capacitated machines (paper 003): the schedulers behind SynchPack-1/2/3.

A list is a sequence of *items*: each is a task, or a fraction of one, assigned to a machine, with a
duration, a demand (resource while it runs) and a release time; items of one task never run at the
same time. Three list schedulers, each event-driven (decisions at time 0, completions, releases):

* :func:`interval_fraction_packing` — §3.2 Step 2 (SynchPack-1): task fractions in interval order,
  the placement rule (one fraction of a task at a time), and preemption of higher-interval fractions
  when a lower-interval one waits.
* :func:`preemptive_list_packing` — §5.2 Step 2 (SynchPack-3): per machine, at every event the
  machine is refilled from the top of its list (preempting what no longer makes the cut).
* :func:`nonpreemptive_list_packing` — §4.2 substep 3.2 (SynchPack-2) and Garey-Graham: per machine,
  at every event the waiting items that fit are started in list order, never interrupted.

:func:`left_shift` is the optional "shift back" of §3.2 Step 3 and §4.2: pieces move earlier as far
as capacity, the one-machine-at-a-time rule and releases allow, never later. No Pyomo here.

Every scheduler takes optional :class:`Reservations` (the instance's reserved room, see
:mod:`schedrelax.instances.packing`): a machine's free capacity is its capacity minus what is
reserved at the time, and the end of a reservation is a decision time.
"""

from __future__ import annotations

import bisect
import heapq
import math
from dataclasses import dataclass

import numpy as np

from schedrelax.instances import PackingInstance
from schedrelax.schedules import Schedule, time_scale, time_slack

FIT_TOL = 1e-9
"""Relative slack when testing whether a demand fits the free capacity (float sums of demands)."""


@dataclass(frozen=True)
class Pieces:
    """Runs of list items: item ``item[k]`` runs on ``machine[k]`` over [start[k], end[k]).
    ``finish[i]`` is item i's completion time."""

    item: np.ndarray
    machine: np.ndarray
    start: np.ndarray
    end: np.ndarray
    finish: np.ndarray


def _pieces(rows: list[tuple[int, int, float, float]], n_items: int) -> Pieces:
    arr = np.array(rows, dtype=float).reshape(-1, 4)
    item = arr[:, 0].astype(np.int64)
    finish = np.full(n_items, np.nan)
    np.fmax.at(finish, item, arr[:, 3])
    return Pieces(item, arr[:, 1].astype(np.int64), arr[:, 2], arr[:, 3], finish)


def _fits(demand: float, free: float, capacity: float) -> bool:
    return demand <= free + FIT_TOL * max(1.0, capacity)


@dataclass(frozen=True)
class Reservations:
    """Room ``demand[r]`` held on ``machine[r]`` over [0, ``until[r]``) (instance reservations)."""

    machine: np.ndarray
    demand: np.ndarray
    until: np.ndarray

    @classmethod
    def of(cls, instance: PackingInstance) -> Reservations:
        """The reservations of *instance* (machines busy with committed work at time 0; see
        :class:`schedrelax.instances.packing.Reservation`)."""
        return cls(instance.reserve_machine, instance.reserve_demand, instance.reserve_until)

    @classmethod
    def none(cls) -> Reservations:
        """No reservation: every machine free from time 0 (paper 003's offline problem)."""
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0))

    def held(self, now: float, n_machines: int) -> np.ndarray:
        """Reserved room on each machine at time *now*."""
        on = self.until > now
        return np.bincount(self.machine[on], weights=self.demand[on], minlength=n_machines).astype(float)

    def ends(self) -> np.ndarray:
        """Sorted distinct end times (decision times of the schedulers)."""
        return np.unique(self.until)

    def on(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """(demand, until) of machine i's reservations."""
        k = self.machine == i
        return self.demand[k], self.until[k]


class MaxTree:
    """Maximum of an array under point updates (a segment tree over machine indices): the
    lowest index from a position on whose value reaches a threshold in O(log M), so that a
    scheduler picks "the lowest-index machine with room" among thousands without a scan."""

    def __init__(self, values: np.ndarray) -> None:
        n = len(values)
        size = 1
        while size < n:
            size *= 2
        tree = np.full(2 * size, -np.inf)
        tree[size:size + n] = values
        level = size
        while level > 1:
            tree[level // 2:level] = np.maximum(tree[level:2 * level:2], tree[level + 1:2 * level:2])
            level //= 2
        self.size = size
        self.tree = tree.tolist()

    def set(self, i: int, value: float) -> None:
        """Entry *i* becomes *value*. The walk up stops at the first node whose maximum does not
        change: every node above it is a maximum over unchanged children."""
        t = self.tree
        k = i + self.size
        t[k] = value
        k >>= 1
        while k:
            a, b = t[2 * k], t[2 * k + 1]
            m = max(a, b)
            if t[k] == m:
                return
            t[k] = m
            k >>= 1

    def max(self) -> float:
        """The largest entry."""
        return self.tree[1]

    def first_at_least(self, x: float, lo: int = 0) -> int:
        """The lowest index >= *lo* whose entry is >= *x*, or -1."""
        t, size = self.tree, self.size
        if lo >= size:
            return -1
        k = lo + size
        while True:
            if t[k] >= x:
                while k < size:
                    k = 2 * k if t[2 * k] >= x else 2 * k + 1
                return k - size
            while k & 1:
                k >>= 1
            if k == 0:
                return -1
            k += 1


# --------------------------------------------------------------------------------------------
# SynchPack-1, Step 2
# --------------------------------------------------------------------------------------------

def interval_fraction_packing(machine: np.ndarray, duration: np.ndarray, demand: np.ndarray, task: np.ndarray,
                              interval: np.ndarray, release: np.ndarray, capacities: np.ndarray,
                              reserved: Reservations | None = None) -> Pieces:
    """Greedy list scheduling of task fractions, paper 003 §3.2 Step 2 (SynchPack-1).

    Items are fractions (k, j, i, l) in list order (the caller sorts them by interval l first).
    At each decision time (the first release, every release and every fraction completion): if a
    released, unscheduled fraction of interval l_min waits anywhere, the running fractions of
    intervals > l_min are preempted on all machines (the paper's rule on completions; we apply it
    at releases too); then the list is scanned from the top and fraction (k, j, i, l) starts on
    machine i if no fraction of task (k, j) is running (placement rule ii) and
    h_i(t) + a_kj <= m_i (h_i counting *reserved* room). A preempted fraction keeps its remaining
    duration and its place.

    Implementation: the result, float operations included, is that of scanning the whole list at
    every decision time (the oracle of tests/schedulers/_reference_fraction_packing.py does just
    that), but a scan visits few fractions. A test that fails changes nothing, so a scan visits,
    in list order, only the preempted ("held") fractions and the waiting fractions that may pass;
    a waiting fraction that fails is not visited again until something that could let it pass
    has happened:

    * Its machine changed (a completion, release, cut or start there, the end of a reservation,
      other fractions held): the machine is *dirty*, and the next scan gives its held room back
      and visits its waiting fractions whose demand fits the room of their stretch. The room on
      machine i only shrinks during a scan, from free_i (held room given back) by each held
      fraction of i that restarts, in list order: its held fractions cut its waiting list into
      stretches, and a stretch's room is at most free_i less the held demands before it (float
      subtraction is monotone, so starts only lower it). When a held fraction does not restart,
      its machine's later stretches are bounded again from the room at that point.
    * Its task stops blocking it. A task running a fraction that is not held (interval <= l_min,
      never preempted) blocks its other fractions until that one completes, or l_min goes below
      its interval. A task's held fraction restarts before the task's fractions that come after
      it in the list (they are not visited) unless it misses its turn, and then queues them.

    Held fractions are not all visited either. A *quiet* machine, whose last scan was a fixed
    point (each held fraction restarted, nothing else started or was cut there, and its free
    room, given back and taken again, came out as the same float) and on which nothing happened
    since, would replay that scan exactly. It is left as it is, its held fractions running,
    unless the scan reaches it: one of its waiting fractions finds its task idle at its turn, or
    a waiting fraction elsewhere belongs to the task of one of its held fractions and comes first
    in the list (the task is idle until the held fraction's turn). Then it wakes: its held room is
    given back, the held fractions before that point restart as they did in the fixed point
    (neither the machine nor their tasks have changed), and the later ones are visited in turn.
    Completions come from a heap of end times.

    SynchPack-1 at 100 jobs x 10 tasks on 50 machines (benchmarks/test_synchpack_speed.py): 3,846
    scans, each of which tested ~1,400 waiting fractions (to start ~2) and gave back the room of
    ~116 held ones; now it visits ~33 fractions, ~16 of them held: 0.84 s -> 0.15 s. On 300 jobs of
    the Google trace over 5,000 machines (benchmarks/cluster_scale.py), local placement: 8.8 s ->
    0.27 s; any placement, where nothing is held and a scan starts a few fractions among
    thousands of machines, the per-machine bookkeeping costs more: 0.09 s -> 0.15 s.
    """
    n = len(machine)
    caps = np.asarray(capacities, dtype=float)
    reserved = reserved or Reservations.none()
    if not n:
        return _pieces([], 0)
    n_machines = len(caps)
    mach = np.asarray(machine, dtype=np.int64).tolist()
    tsk = np.asarray(task, dtype=np.int64).tolist()
    dem = np.asarray(demand, dtype=float).tolist()
    rem = np.asarray(duration, dtype=float).tolist()
    itv = np.asarray(interval).tolist()
    release = np.asarray(release, dtype=float)
    cap = caps.tolist()
    slack = (FIT_TOL * np.maximum(1.0, caps)).tolist()
    by_release = np.argsort(release, kind="stable").tolist()
    rel_sorted = release[by_release].tolist()
    res_ends = reserved.ends().tolist()
    events = np.union1d(np.unique(release), reserved.ends()).tolist()

    running = [False] * n
    waiting = [False] * n
    began = [0.0] * n
    busy = [False] * (max(tsk) + 1)
    run_of = [-1] * len(busy)  # the task's running (or held) fraction, -1 if none
    run_on: list[set[int]] = [set() for _ in range(n_machines)]  # running fractions of each machine
    run_itv: dict[object, set[int]] = {}  # running fractions by interval
    wait_on: list[list[int]] = [[] for _ in range(n_machines)]  # waiting fractions of each machine, sorted
    wait_of: dict[int, set[int]] = {}  # waiting fractions of each task
    # Per machine: quiet (see the docstring; False while the scan replays it), its held fractions
    # at its last replay, its free room before the held room was given back, the last scan in
    # which a fraction started or was cut on it.
    quiet = [False] * n_machines
    held_of: list[tuple[int, ...]] = [()] * n_machines
    free_at = [0.0] * n_machines
    moved_at = [-1] * n_machines
    dirty = set(mach)  # machines to replay at the next scan
    unblocked: list[int] = []  # waiting fractions whose task stopped blocking them
    held_at = [-1] * n  # the scan that preempted the fraction
    held_pos = [0] * n  # its place among its machine's held fractions
    queued = [-1] * n  # the scan that is to visit the fraction
    scan_no = 0
    l_last = None
    wait_heap: list[tuple[object, int]] = []  # (interval, k) of waiting fractions; stale entries skipped
    end_heap: list[tuple[float, int]] = []  # (began + rem, k) of running fractions; stale entries skipped
    rows: list[tuple[int, int, float, float]] = []

    now = rel_sorted[0]
    taken = reserved.held(now, n_machines).tolist()
    free = [c - h for c, h in zip(cap, taken)]
    res_seen = bisect.bisect_right(res_ends, now)
    n_done = n_wait = 0
    next_rel = next_event = 0
    touched: set[int] = set()  # machines whose free room grew since the last idle reset

    def wait(k: int) -> None:
        nonlocal n_wait
        i = mach[k]
        waiting[k] = True
        n_wait += 1
        bisect.insort(wait_on[i], k)
        wait_of.setdefault(tsk[k], set()).add(k)
        quiet[i] = False
        dirty.add(i)
        heapq.heappush(wait_heap, (itv[k], k))

    def fitting(i: int, hs: tuple[int, ...], first: int, room: float) -> list[int]:
        """The waiting fractions of machine i in stretches *first*, first + 1, ... (cut by its held
        fractions *hs*) whose demand fits the most room they can see: *room* in stretch *first*,
        less the held demands before each later one (the float operations of the scan)."""
        w = wait_on[i]
        s_i = slack[i]
        lim = room + s_i
        if not hs:  # one stretch
            return [k for k in w if dem[k] <= lim]
        lo = 0 if first == 0 else bisect.bisect_left(w, hs[first - 1])
        out: list[int] = []
        p = first
        last = len(hs)
        nxt = hs[p] if p < last else n
        for k in w[lo:]:
            while k > nxt:
                room -= dem[nxt]
                lim = room + s_i
                p += 1
                nxt = hs[p] if p < last else n
            if dem[k] <= lim:
                out.append(k)
        return out

    def enqueue(ks, out: list[int]) -> None:
        """Add to *out* the fractions of *ks* not yet to visit whose task can be idle at their turn.
        Not so: the task runs a fraction that is not held, or a held one that restarted; or it
        has a held fraction r (given back, or on a quiet machine) before them in the list, which
        restarts first unless it misses its turn, and then queues them itself."""
        for k in ks:
            if queued[k] == scan_no:
                continue
            t = tsk[k]
            r = run_of[t]
            if busy[t] and (not quiet[mach[r]] or itv[r] <= l_min):
                continue
            if 0 <= r < k:
                continue
            queued[k] = scan_no
            out.append(k)

    def give_back(i: int, hs: tuple[int, ...]) -> None:
        """Preempt machine i's held fractions *hs*: their room and tasks are free."""
        quiet[i] = False
        free_at[i] = free[i]
        for pos, k in enumerate(hs):
            running[k] = False
            busy[tsk[k]] = False
            free[i] += dem[k]
            held_at[k] = scan_no
            held_pos[k] = pos
        held.extend(hs)
        replayed.append(i)

    def wake(i: int, k: int, visit: list[int], j: int) -> None:
        """The scan reaches quiet machine i at fraction k (next to visit: visit[j:]): replay it."""
        hs = held_of[i]
        give_back(i, hs)
        s_i = slack[i]
        for h in hs:
            if h > k:
                bisect.insort(visit, h, j)
                continue
            t = tsk[h]
            if busy[t] or not dem[h] <= free[i] + s_i:  # as in the fixed point: cannot happen
                raise RuntimeError("interval_fraction_packing: a quiet machine did not replay its fixed point")
            running[h] = True
            busy[t] = True
            free[i] -= dem[h]

    # Ends within a sliver of the shortest fraction (plus ulps of the clock) are one event: a
    # tolerance relative to the time itself would be longer than the tasks late in time.
    scale = float(np.min(duration)) if n else 1.0
    while n_done < n:
        limit = now + time_slack(scale, now)
        ending = set()
        while end_heap and end_heap[0][0] <= limit:
            e, k = heapq.heappop(end_heap)
            if running[k] and began[k] + rem[k] == e:
                ending.add(k)
        for k in sorted(ending):
            i, t = mach[k], tsk[k]
            rows.append((k, i, began[k], now))
            rem[k] -= now - began[k]
            running[k] = False
            busy[t] = False
            run_of[t] = -1
            free[i] += dem[k]
            run_on[i].discard(k)
            run_itv[itv[k]].discard(k)
            quiet[i] = False
            dirty.add(i)
            unblocked.extend(wait_of.get(t, ()))
            n_done += 1
            touched.add(i)
        seen = bisect.bisect_right(res_ends, now)
        if seen != res_seen:
            res_seen = seen
            now_taken = reserved.held(now, n_machines).tolist()
            for i in range(n_machines):
                if now_taken[i] != taken[i]:
                    free[i] += taken[i] - now_taken[i]
                    quiet[i] = False
                    dirty.add(i)
                    touched.add(i)
            taken = now_taken
        for i in touched:
            if not run_on[i]:  # an empty machine sheds accumulated rounding
                free[i] = cap[i] - taken[i]
        touched.clear()
        while next_rel < n and rel_sorted[next_rel] <= now:
            wait(by_release[next_rel])
            next_rel += 1
        if n_wait:
            scan_no += 1
            while not waiting[wait_heap[0][1]]:
                heapq.heappop(wait_heap)
            l_min = wait_heap[0][0]
            if l_min != l_last and l_last is not None:
                # Running fractions of intervals between the two become held or stop being held:
                # their machines replay, and the tasks they stop blocking may start elsewhere.
                lo, hi = min(l_min, l_last), max(l_min, l_last)
                for l, ks in run_itv.items():
                    if lo < l <= hi:
                        for r in ks:
                            quiet[mach[r]] = False
                            dirty.add(mach[r])
                            if l_min < l_last:
                                unblocked.extend(wait_of.get(tsk[r], ()))
            l_last = l_min
            # Preempted fractions give their room back but keep running without a break if the
            # scan (in list order) picks them again at once; only the others are cut here.
            held: list[int] = []
            replayed: list[int] = []
            visit: list[int] = []
            for i in dirty:
                run = run_on[i]
                held_of[i] = hs = tuple(sorted(k for k in run if itv[k] > l_min)) if run else ()
                if hs:
                    give_back(i, hs)
                else:  # nothing to replay
                    quiet[i] = True
            for i in dirty:  # once every held fraction is given back (its task idle)
                if wait_on[i]:
                    enqueue(fitting(i, held_of[i], 0, free[i]), visit)
            for k in unblocked:
                i = mach[k]
                if waiting[k] and i not in dirty and queued[k] != scan_no:
                    room = free[i]  # k's stretch's room, as fitting() finds it
                    hs = held_of[i]
                    for h in hs:
                        room += dem[h]
                    for h in hs:
                        if h > k:
                            break
                        room -= dem[h]
                    if dem[k] <= room + slack[i]:
                        enqueue((k,), visit)
            unblocked.clear()
            dirty.clear()
            visit += held
            visit.sort()
            j = 0
            while j < len(visit):
                k = visit[j]
                j += 1
                t = tsk[k]
                i = mach[k]
                if held_at[k] != scan_no:  # a waiting fraction: may reach a quiet machine
                    if busy[t]:
                        r = run_of[t]
                        if r < k or not quiet[mach[r]] or itv[r] <= l_min:
                            continue
                        wake(mach[r], k, visit, j)
                    if quiet[i] and held_of[i]:
                        wake(i, k, visit, j)
                if busy[t] or not dem[k] <= free[i] + slack[i]:
                    if held_at[k] == scan_no:  # a held fraction that does not restart
                        if run_of[t] == k:  # its task is idle: its later fractions may start
                            run_of[t] = -1
                            for w in wait_of.get(t, ()):
                                if w > k and queued[w] != scan_no:
                                    queued[w] = scan_no
                                    bisect.insort(visit, w, j)
                        more: list[int] = []  # its room stays free: later stretches may fit more
                        enqueue(fitting(i, held_of[i], held_pos[k] + 1, free[i]), more)
                        for m in more:
                            bisect.insort(visit, m, j)
                    continue
                running[k] = True
                busy[t] = True
                free[i] -= dem[k]
                if held_at[k] != scan_no:
                    began[k] = now
                    heapq.heappush(end_heap, (now + rem[k], k))
                    run_on[i].add(k)
                    run_itv.setdefault(itv[k], set()).add(k)
                    run_of[t] = k
                    moved_at[i] = scan_no
                    if itv[k] > l_min:  # held from the next scan on
                        quiet[i] = False
                        dirty.add(i)
                    waiting[k] = False
                    n_wait -= 1
                    w = wait_on[i]
                    del w[bisect.bisect_left(w, k)]
                    wait_of[t].discard(k)
            for k in sorted(held):
                if not running[k]:
                    i = mach[k]
                    rows.append((k, i, began[k], now))
                    rem[k] -= now - began[k]
                    run_on[i].discard(k)
                    run_itv[itv[k]].discard(k)
                    if run_of[tsk[k]] == k:
                        run_of[tsk[k]] = -1
                    moved_at[i] = scan_no
                    touched.add(i)
                    wait(k)
            for i in replayed:
                quiet[i] = moved_at[i] != scan_no and free[i] == free_at[i]
                if not quiet[i]:
                    dirty.add(i)
        if n_done == n:
            break
        while end_heap and not (running[end_heap[0][1]] and began[end_heap[0][1]] + rem[end_heap[0][1]]
                                == end_heap[0][0]):
            heapq.heappop(end_heap)
        nxt = end_heap[0][0] if end_heap else np.inf
        while next_event < len(events) and events[next_event] <= now:
            next_event += 1
        if next_event < len(events):
            nxt = min(nxt, events[next_event])
        if not np.isfinite(nxt):
            raise RuntimeError("interval_fraction_packing: fractions wait on idle machines (a fraction larger "
                               "than its machine?)")
        now = nxt
    return _pieces(_merge_runs(rows), n)


def _merge_runs(rows: list[tuple[int, int, float, float]]) -> list[tuple[int, int, float, float]]:
    """Join runs of one item that touch (a preemption immediately followed by a restart)."""
    rows.sort(key=lambda r: (r[0], r[2]))
    out: list[tuple[int, int, float, float]] = []
    for r in rows:
        if r[3] <= r[2]:
            continue
        if out and out[-1][0] == r[0] and out[-1][1] == r[1] and out[-1][3] == r[2]:
            out[-1] = (r[0], r[1], out[-1][2], r[3])
        else:
            out.append(r)
    return out


# --------------------------------------------------------------------------------------------
# SynchPack-3, Step 2 (and PSRS)
# --------------------------------------------------------------------------------------------

def preemptive_list_packing(machine: np.ndarray, duration: np.ndarray, demand: np.ndarray, rank: np.ndarray,
                            release: np.ndarray, capacities: np.ndarray,
                            reserved: Reservations | None = None) -> Pieces:
    """Preemptive list scheduling on each machine, paper 003 §5.2 Step 2 (SynchPack-3).

    Each machine keeps its items in the order of ``rank`` (ties by item index). At each decision
    time of the machine (a release of one of its items, a completion on it) the machine is emptied
    and refilled: the list is scanned from the top and every released, unfinished item that fits
    the remaining capacity runs ("upon completion of a task, the algorithm preempts the schedule
    ... and starts scheduling the tasks in the updated list"). An item that keeps its place runs
    on without a break; an item is whole task, so one machine per task holds trivially. The
    capacity refilled is what *reserved* room leaves at the time.
    """
    reserved = reserved or Reservations.none()
    machine = np.asarray(machine, dtype=np.int64)
    caps = np.asarray(capacities, dtype=float)
    order = np.lexsort((np.arange(len(machine)), np.asarray(rank), machine))
    rows: list[tuple[int, int, float, float]] = []
    bounds = np.searchsorted(machine[order], np.arange(len(caps) + 1)).tolist()
    # Everything per machine from whole-array steps, once: a machine's own work is then plain
    # Python over its items (a plan has ~M machines with a few items each; numpy calls per machine
    # were most of the cost).
    dur = np.asarray(duration, dtype=float)[order].tolist()
    dem = np.asarray(demand, dtype=float)[order].tolist()
    rel = np.asarray(release, dtype=float)[order].tolist()
    item = order.tolist()
    r_order = np.argsort(reserved.machine, kind="stable")
    r_machine = reserved.machine[r_order]
    r_bounds = np.searchsorted(r_machine, np.arange(len(caps) + 1)).tolist()
    r_demand, r_until = reserved.demand[r_order], reserved.until[r_order]
    cap = caps.tolist()
    for i in range(len(caps)):
        a, b = bounds[i], bounds[i + 1]
        if a < b:
            c, d = r_bounds[i], r_bounds[i + 1]
            rows.extend(_preemptive_machine(i, item[a:b], dur[a:b], dem[a:b], rel[a:b], cap[i],
                                            r_demand[c:d], r_until[c:d]))
    return _pieces(rows, len(machine))


_TREE_FROM = 256
"""Lists at least this long are refilled through a segment tree (:func:`_preemptive_machine`);
shorter ones are scanned over their waiting items. Measured: on
the lists of 40 consecutive online re-plans (~100 machines, median 4 and at most 75 items)
3.6 ms per plan with the tree from 32 items, 1.95 ms from 128 or 256; with one item fitting at a
time (demands U[0.5, 1] of the capacity, one machine) the tree takes 2.1 ms at 300 items against
the scan's 1.6, and 15.8 ms at 2,000 against 49.6."""


def _preemptive_machine(i: int, items: list[int], duration: list[float], demand: list[float], release: list[float],
                        cap: float, held: np.ndarray, until: np.ndarray) -> list[tuple[int, int, float, float]]:
    """One machine of :func:`preemptive_list_packing`: its items in list order (item numbers,
    durations, demands, releases) and its reservations (*held* room until *until*).

    The refill at each event is the scan from the top of the list. On a long list the items that
    do not fit are skipped in O(log n) each run of them: a segment tree over the list holds each
    released, unfinished item's negated demand (others are -inf), and the next item to run is the
    first after the last one chosen whose demand fits what is left — the same test on the same
    float values as checking every item in turn (the scan was half of
    SynchPack-3's planning time). An event then costs O(items chosen · log n), not O(n).

    A short list is scanned over the items not yet finished only (a list kept in order, items
    removed as they finish), and everything per item that does not change (the completion
    tolerance) is computed once: an online re-plan calls this for ~100 machines of a few items
    each, ~10^6 times over 10,000 arrivals."""
    n = len(items)
    inf = math.inf
    rem = list(duration)
    finish_tol = [FIT_TOL * d for d in duration]
    until_list = until.tolist()
    now = min(release)
    events = sorted(set(release).union(until_list))
    by_release = sorted(range(n), key=release.__getitem__)
    slack = FIT_TOL * max(1.0, cap)
    tree = MaxTree(np.full(n, -np.inf)) if n >= _TREE_FROM else None
    waiting: list[int] = []  # short lists: the released, unfinished items, in list order
    # The reserved room held at a time depends only on how many reservations have ended; summed
    # as numpy sums it (the same float), once per such count.
    until_sorted = sorted(until_list)
    free_at: dict[int, float] = {}
    began: dict[int, float] = {}
    rows: list[tuple[int, int, float, float]] = []
    left, nxt_rel, nxt_ev, n_events = n, 0, 0, len(events)
    while left:
        while nxt_rel < n and release[by_release[nxt_rel]] <= now:
            k = by_release[nxt_rel]
            if tree is not None:
                tree.set(k, -demand[k])
            else:
                bisect.insort(waiting, k)
            nxt_rel += 1
        if until_list:
            ended = bisect.bisect_right(until_sorted, now)
            free = free_at.get(ended)
            if free is None:
                free = free_at[ended] = cap - float(held[until > now].sum())
        else:
            free = cap - 0.0
        chosen: list[int] = []
        if tree is None:
            for k in waiting:
                if demand[k] <= free + slack:
                    chosen.append(k)
                    free -= demand[k]
        else:
            k = tree.first_at_least(-(free + slack))
            while k >= 0:
                chosen.append(k)
                free -= demand[k]
                k = tree.first_at_least(-(free + slack), k + 1)
        keep = set(chosen)
        for k in [k for k in began if k not in keep]:
            rows.append((items[k], i, began.pop(k), now))
        for k in chosen:
            began.setdefault(k, now)
        while nxt_ev < n_events and events[nxt_ev] <= now:
            nxt_ev += 1
        step = min([rem[k] for k in chosen], default=inf)
        nxt = min(now + step, events[nxt_ev] if nxt_ev < n_events else inf)
        if nxt == inf:
            raise RuntimeError(f"preemptive_list_packing: an item larger than machine {i}")
        for k in chosen:
            rem[k] -= nxt - now
            if rem[k] <= finish_tol[k] + time_slack(0.0, nxt):
                left -= 1
                if tree is not None:
                    tree.set(k, -np.inf)
                else:
                    waiting.remove(k)
                rows.append((items[k], i, began.pop(k), nxt))
        now = nxt
    return rows


# --------------------------------------------------------------------------------------------
# SynchPack-2, substep 3.2
# --------------------------------------------------------------------------------------------

def nonpreemptive_list_packing(machine: np.ndarray, duration: np.ndarray, demand: np.ndarray, rank: np.ndarray,
                               release: np.ndarray, capacities: np.ndarray,
                               reserved: Reservations | None = None) -> Pieces:
    """Non-preemptive greedy packing on each machine, paper 003 §4.2 substep 3.2 (Garey-Graham).

    Each machine's items are listed by ``rank`` (ties by index). At time min(release) and at each
    completion or release on the machine (or end of a reservation), the list is scanned from the
    top and every released waiting item that fits the free capacity (what *reserved* room and the
    running items leave) starts; items run to completion.
    """
    reserved = reserved or Reservations.none()
    machine = np.asarray(machine, dtype=np.int64)
    caps = np.asarray(capacities, dtype=float)
    duration = np.asarray(duration, dtype=float)
    demand = np.asarray(demand, dtype=float)
    release = np.asarray(release, dtype=float)
    order = np.lexsort((np.arange(len(machine)), np.asarray(rank), machine))
    bounds = np.searchsorted(machine[order], np.arange(len(caps) + 1))
    rows: list[tuple[int, int, float, float]] = []
    for i in range(len(caps)):
        items = order[bounds[i]:bounds[i + 1]].tolist()
        cap = float(caps[i])
        held, until = reserved.on(i)
        running: list[tuple[float, int]] = []
        waiting = items
        now = float(release[items].min()) if items else 0.0
        while waiting:
            while running and running[0][0] <= now:
                heapq.heappop(running)
            # Recomputed at each event rather than updated: no rounding accumulates.
            free = cap - float(held[until > now].sum()) - sum(demand[k] for _, k in running)
            still = []
            for k in waiting:
                if release[k] <= now and _fits(demand[k], free, cap):
                    rows.append((k, i, now, now + duration[k]))
                    heapq.heappush(running, (now + duration[k], k))
                    free -= demand[k]
                else:
                    still.append(k)
            waiting = still
            if waiting:
                later = [release[k] for k in waiting if release[k] > now] + until[until > now].tolist()
                now = min(running[0][0] if running else np.inf, min(later, default=np.inf))
                if not np.isfinite(now):
                    raise RuntimeError(f"nonpreemptive_list_packing: an item larger than machine {i}")
    return _pieces(rows, len(machine))


# --------------------------------------------------------------------------------------------
# shift back
# --------------------------------------------------------------------------------------------

class _Profile:
    """Resource use of one machine over time: ``level[k]`` on [times[k], times[k+1])."""

    def __init__(self) -> None:
        self.times = np.array([0.0, np.inf])
        self.level = np.array([0.0])

    def peak(self, a: float, b: float) -> float:
        lo = np.searchsorted(self.times, a, side="right") - 1
        hi = np.searchsorted(self.times, b, side="left")
        return float(self.level[lo:hi].max())

    def add(self, a: float, b: float, d: float) -> None:
        for t in (a, b):
            k = np.searchsorted(self.times, t)
            if self.times[k] != t:
                self.times = np.insert(self.times, k, t)
                self.level = np.insert(self.level, k, self.level[k - 1])
        lo, hi = np.searchsorted(self.times, a), np.searchsorted(self.times, b)
        self.level[lo:hi] += d

    def runs(self, release: float, duration: float, room: float) -> list[tuple[float, float]]:
        """The runs of a task of length *duration* released at *release* that runs whenever the
        level is at most *room* (the lowest-ranked task of a preemptive list packing)."""
        out: list[tuple[float, float]] = []
        left = duration
        k = int(np.searchsorted(self.times, release, side="right")) - 1
        while left > 0:
            s = max(float(self.times[k]), release)
            e = float(self.times[k + 1])
            if self.level[k] <= room and e > s:
                take = min(left, e - s)
                out.append((s, s + take))
                left -= take
            k += 1
            if left > 0 and k >= len(self.level):
                raise RuntimeError("profile: the task never fits (larger than the machine?)")
        return out

    def finish(self, release: float, duration: float, room: float) -> float:
        """When :meth:`runs` ends."""
        return self.runs(release, duration, room)[-1][1]


def left_shift(machine: np.ndarray, start: np.ndarray, end: np.ndarray, task: np.ndarray, demand: np.ndarray,
               release: np.ndarray, capacities: np.ndarray, reserved: Reservations | None = None) -> np.ndarray:
    """Shift pieces earlier ("shift back future tasks' schedules as far as the machine capacity
    allows and placement constraint is respected", paper 003 §3.2 Step 3 and §4.2 substep 3.2).

    Pieces are taken in order of start time; each moves to the earliest time >= its release, and
    not after its own start, at which its machine has room for it throughout and no other piece
    of its task runs (*reserved* room counts as used). Returns the new start times (durations are kept). No piece ends later than
    before: the pieces already placed use, at any time in a piece's old slot, a subset of what
    they used there before, so the old slot always remains feasible.

    Implementation: the candidate times are the release, the machine's breakpoints and the ends of
    the task's pieces before the old start, tried in increasing order. A candidate whose window
    meets a too-full stretch of the profile, or a piece of the task, fails, and so does every
    candidate before that stretch's (piece's) end, so the search jumps there. Profiles are sorted
    Python lists (bisect and list insertion), levels summed in the order pieces are placed.
    """
    caps = np.asarray(capacities, dtype=float)
    dur = (np.asarray(end, dtype=float) - np.asarray(start, dtype=float)).tolist()
    new = np.asarray(start, dtype=float).copy()
    starts = new.tolist()
    mach = np.asarray(machine).tolist()
    tsk = np.asarray(task).tolist()
    dem = np.asarray(demand, dtype=float).tolist()
    rel = np.asarray(release, dtype=float).tolist()
    cap = caps.tolist()
    times: list[list[float]] = [[0.0, np.inf] for _ in cap]
    levels: list[list[float]] = [[0.0] for _ in cap]
    reserved = reserved or Reservations.none()

    def add(ts: list[float], lv: list[float], a: float, b: float, d: float) -> None:
        for t in (a, b):
            k = bisect.bisect_left(ts, t)
            if ts[k] != t:
                ts.insert(k, t)
                lv.insert(k, lv[k - 1])
        for k in range(bisect.bisect_left(ts, a), bisect.bisect_left(ts, b)):
            lv[k] += d

    for i, d, u in zip(reserved.machine.tolist(), reserved.demand.tolist(), reserved.until.tolist()):
        add(times[i], levels[i], 0.0, u, d)
    task_runs: dict[int, list[tuple[float, float]]] = {}
    for p in np.lexsort((end, start)).tolist():
        i, d, s0, r = mach[p], dur[p], starts[p], rel[p]
        ts, lv, runs = times[i], levels[i], task_runs.setdefault(tsk[p], [])
        # As computed before: caps[i] - demand + tol, in numpy float64 (same IEEE operations).
        room = cap[i] - dem[p] + FIT_TOL * max(1.0, cap[i])  # the same float operations as numpy's
        ends = [e for _, e in runs if r < e < s0]
        c = r
        found = s0
        while True:
            stop = c + d
            skip = None
            for b, e in runs:
                if e > c and b < stop and (skip is None or e > skip):
                    skip = e
            if skip is None:
                lo = bisect.bisect_right(ts, c) - 1
                hi = bisect.bisect_left(ts, stop)
                if max(lv[lo:hi]) <= room:
                    found = c
                    break
                j = hi - 1
                while lv[j] <= room:
                    j -= 1
                skip = ts[j + 1]
            # the next candidate >= skip (and > c): a breakpoint or a run end in (r, s0)
            nxt = ts[bisect.bisect_left(ts, skip)]  # > c: skip is beyond c
            for e in ends:
                if skip <= e < nxt and e > c:
                    nxt = e
            if not (r < nxt < s0):
                break
            c = nxt
        new[p] = found
        add(ts, lv, found, found + d, dem[p])
        runs.append((found, found + d))
    return new


# --------------------------------------------------------------------------------------------
# from items to schedules
# --------------------------------------------------------------------------------------------

def fastest_machine(instance: PackingInstance) -> tuple[np.ndarray, np.ndarray]:
    """Each task's usable machine with the shortest processing time (ties to the lowest index) and
    that time: the machine a per-machine algorithm uses when a task may run on several. A task's
    elsewhere rule offers its lowest-index covered machine (found in a tree of capacities)."""
    caps = np.asarray(instance.capacities, dtype=float)
    demand = instance.demand
    usable = demand[instance.explicit_task] <= caps[instance.explicit_machine]
    q = np.flatnonzero(usable)
    order = q[np.lexsort((instance.explicit_machine[q], instance.explicit_time[q], instance.explicit_task[q]))]
    tasks = instance.explicit_task[order]
    first = order[np.r_[True, tasks[1:] != tasks[:-1]]] if len(order) else order
    machine = np.full(instance.n_tasks, -1, dtype=np.int64)
    ptime = np.full(instance.n_tasks, np.inf)
    machine[instance.explicit_task[first]] = instance.explicit_machine[first]
    ptime[instance.explicit_task[first]] = instance.explicit_time[first]
    ruled = np.flatnonzero(np.isfinite(instance.elsewhere_time) & (instance.elsewhere_time <= ptime))
    if len(ruled):
        tree = MaxTree(caps)
        off, named = instance.explicit_offset, instance.explicit_machine
        for t in ruled.tolist():
            mine = named[off[t]:off[t + 1]]
            i = tree.first_at_least(demand[t])
            while (mine == i).any():
                i = tree.first_at_least(demand[t], i + 1)
            e = instance.elsewhere_time[t]
            if e < ptime[t] or i < machine[t]:
                machine[t], ptime[t] = i, e
    return machine, ptime


class _Profiles:
    """The :class:`_Profile` of every machine, mirrored in padded (machines × breakpoints) arrays
    so that the finish time of one task on thousands of machines is a few vector operations."""

    def __init__(self, n_machines: int) -> None:
        self.profiles = [_Profile() for _ in range(n_machines)]
        self.times = np.full((n_machines, 4), np.inf)
        self.times[:, 0] = 0.0
        self.level = np.zeros((n_machines, 4))
        self.count = np.ones(n_machines, dtype=np.int64)  # segments per machine

    def add(self, i: int, runs: list[tuple[float, float]], d: float) -> None:
        prof = self.profiles[i]
        for s, e in runs:
            prof.add(s, e, d)
        n = len(prof.level)
        if n + 1 > self.times.shape[1]:
            grow = max(n + 1, 2 * self.times.shape[1]) - self.times.shape[1]
            self.times = np.pad(self.times, ((0, 0), (0, grow)), constant_values=np.inf)
            self.level = np.pad(self.level, ((0, 0), (0, grow)))
        self.times[i, :n + 1] = prof.times
        self.level[i, :n] = prof.level
        self.count[i] = n

    def finish(self, ms: np.ndarray, release: float, duration: np.ndarray, room: np.ndarray) -> np.ndarray:
        """:meth:`_Profile.finish` on each machine of *ms*, the same float operations in the same
        order per machine (so the same numbers)."""
        T, Lv, n = self.times[ms], self.level[ms], self.count[ms]
        rows = np.arange(len(ms))
        k = (T <= release).sum(axis=1) - 1
        left = np.asarray(duration, dtype=float).copy()
        out = np.full(len(ms), np.nan)
        active = rows
        while len(active):
            kk = k[active]
            if (kk >= n[active]).any():
                raise RuntimeError("profile: the task never fits (larger than the machine?)")
            s = np.maximum(T[active, kk], release)
            e = T[active, kk + 1]
            ok = (Lv[active, kk] <= room[active]) & (e > s)
            take = np.minimum(left[active], e - s)
            a = active[ok]
            left[a] -= take[ok]
            done = ok & (left[active] <= 0)
            out[active[done]] = (s + take)[done]
            k[active] += 1
            active = active[~done]
        return out


def earliest_finish_machines(instance: PackingInstance, rank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each task's machine chosen when it is list-scheduled: tasks are taken in the order of
    ``rank`` (ties by index) and each goes to the usable machine of its placement set on which
    it would finish earliest under :func:`preemptive_list_packing`, given the tasks already
    placed. Returns (machine, processing time there) per task, for
    :func:`preemptive_list_packing` with the same ``rank``.

    On one machine, preemptive list packing gives a task exactly the room its higher-ranked tasks
    leave (they are scanned first and never see it), and every task placed before it ranks
    higher. So its run is known when it is placed: it runs whenever the machine's free room
    (capacity, less reservations and the higher tasks' runs) holds its demand, from its release
    until its processing time is done; that finish time is what is compared. Ties (several
    machines finish it equally early, e.g. all empty) go to the machine with the least volume
    placed on it so far relative to capacity, then to the lowest index — not to the lowest index
    alone, which piles every task of an idle cluster with identical machines onto machine 0.

    Two finish times tie when they are within :func:`~schedrelax.schedules.time_slack` of each
    other: ``FIT_TOL`` of the instance's shortest processing time plus the stamps' round-off, the
    same in any unit and from any origin (it was ``FIT_TOL`` of max(1, finish): a tenth of every
    task at 1e-8 s, and 1e-3 s from t = 1e6). A machine idle from the release on finishes the
    task at release + time; another one whose lower bound release + time already exceeds the
    best finish found by more than that is not examined (it cannot tie). The finish times on all
    candidate machines are computed at once on padded profile arrays (:class:`_Profiles`), so a
    task with an elsewhere rule over thousands of machines costs vector operations, not a loop.
    """
    caps = np.asarray(instance.capacities, dtype=float)
    M, nT = len(caps), instance.n_tasks
    usable = np.flatnonzero(instance.demand[instance.explicit_task] <= caps[instance.explicit_machine])
    pt, pm, pp = (instance.explicit_task[usable], instance.explicit_machine[usable],
                  instance.explicit_time[usable])
    bounds = np.searchsorted(pt, np.arange(nT + 1))  # explicit_task is sorted (rows grouped by task)
    elsewhere = instance.elsewhere_time
    release = instance.release[instance.task_job]
    demand = instance.demand
    profiles = _Profiles(M)
    busy_until = np.zeros(M)
    reserved = Reservations.of(instance)
    for i, d, u in zip(reserved.machine.tolist(), reserved.demand.tolist(), reserved.until.tolist()):
        profiles.add(i, [(0.0, u)], d)
        busy_until[i] = max(busy_until[i], u)
    tol = FIT_TOL * np.maximum(1.0, caps)
    scale = time_scale(instance)
    load = np.zeros(M)
    machine = np.empty(nT, dtype=np.int64)
    ptime = np.empty(nT)
    for t in np.lexsort((np.arange(nT), np.asarray(rank))).tolist():
        ms, ps = pm[bounds[t]:bounds[t + 1]], pp[bounds[t]:bounds[t + 1]]
        if np.isfinite(elsewhere[t]):
            other = caps >= demand[t]
            other[instance.explicit_machine[instance.explicit_offset[t]:instance.explicit_offset[t + 1]]] = False
            extra = np.flatnonzero(other)
            ms, ps = np.r_[ms, extra], np.r_[ps, np.full(len(extra), elsewhere[t])]
        if not len(ms):
            raise ValueError(f"task {t} fits no machine of its placement set")
        r, a = float(release[t]), float(demand[t])
        lower = r + ps  # exact where the machine is free from r on, a lower bound elsewhere
        exact = busy_until[ms] <= r
        best = float(lower[exact].min()) if exact.any() else np.inf
        finish = lower.copy()
        # One tie slack per task: a machine whose lower bound exceeds a finish found by more than
        # it cannot tie with the best, so skipping it (here, or in any scan order) changes nothing.
        tie = time_slack(scale, r + float(ps.max()), FIT_TOL)
        look = np.flatnonzero(~exact & (lower <= best + tie))
        if len(look):
            finish[look] = profiles.finish(ms[look], r, ps[look], caps[ms[look]] - a + tol[ms[look]])
        finish[~exact & (lower > best + tie)] = np.inf
        best = float(finish.min())
        near = np.flatnonzero(finish <= best + tie)
        k = int(near[np.lexsort((ms[near], load[ms[near]]))[0]])
        i = int(ms[k])
        machine[t], ptime[t] = i, ps[k]
        profiles.add(i, profiles.profiles[i].runs(r, float(ps[k]), caps[i] - a + tol[i]), a)
        busy_until[i] = max(busy_until[i], float(finish[k]))
        load[i] += a * ps[k] / caps[i]
    return machine, ptime


def packing_schedule(instance: PackingInstance, task: np.ndarray, machine: np.ndarray, start: np.ndarray,
                     end: np.ndarray, promises=(), meta=None) -> Schedule:
    """A packing Schedule from runs of global tasks: (job, task index in job, machine, start, end,
    demand). Runs of one task on one machine that touch are joined."""
    rows = _merge_runs([(int(t), int(i), float(s), float(e)) for t, i, s, e in zip(task, machine, start, end)])
    arr = np.array(rows, dtype=float).reshape(-1, 4)
    g = arr[:, 0].astype(np.int64)
    job = instance.task_job[g]
    return Schedule(job, g - instance.job_offset[job], arr[:, 1].astype(np.int64), arr[:, 2], arr[:, 3],
                    instance.demand[g], promises=frozenset(promises), meta=dict(meta or {}))
