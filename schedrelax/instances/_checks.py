"""Validation helpers shared by the instance families.

Every check raises :class:`~schedrelax.errors.InstanceError` whose message starts with *where*
(e.g. ``"flow 3, job 7"``), then names the field, the rule and the offending value. Nothing is
clipped or repaired: a value that breaks a rule is an error.
"""

from __future__ import annotations

import contextlib
import contextvars
import reprlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from schedrelax.errors import InstanceError


def _prefix(where: str) -> str:
    return f"{where}: " if where else ""


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict, _REPR.maxstring, _REPR.maxother = 3, 6, 4, 40, 40


def show(value: Any) -> str:
    """A short repr of *value* for messages: cut in length and depth, so that a huge or deeply
    nested input cannot make the error message itself fail or flood the screen."""
    try:
        return _REPR.repr(value)
    except ValueError:
        # Python refuses to print integers of more than 4300 digits.
        return f"<a number of {value.bit_length()} bits>" if isinstance(value, int) else f"<{type(value).__name__}>"


def as_array(values: Any, field: str, where: str = "", dtype=float) -> np.ndarray:
    """A read-only 1-D numpy copy of *values*, or InstanceError naming *field*.

    Only numbers are accepted: strings such as ``"5"`` and booleans are errors, not converted;
    nested, ragged or too deeply nested lists are errors too.
    """
    try:
        raw = np.asarray(values, dtype=object if isinstance(values, (list, tuple)) else None)
    except (ValueError, RecursionError):
        raise InstanceError(f"{_prefix(where)}{field} must be a flat list of numbers, got {show(values)}") from None
    if raw.dtype == object:
        for i, v in enumerate(raw.ravel()):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise InstanceError(f"{_prefix(where)}{field}[{i}] must be a number, got {show(v)}")

    elif raw.dtype.kind not in "iuf":
        raise InstanceError(f"{_prefix(where)}{field} must hold numbers, got {show(values)}")
    try:
        arr = np.array(raw, dtype=dtype)
    except OverflowError:
        raise InstanceError(f"{_prefix(where)}{field} holds a number too large to represent: {show(values)}") from None
    if raw.dtype == object:
        for i, v in enumerate(raw.ravel()):
            inexact_whole(v, f"{_prefix(where)}{field}[{i}]")
    if arr.ndim != 1:
        raise InstanceError(f"{_prefix(where)}{field} must be a flat list of numbers, got shape {arr.shape}")
    arr.setflags(write=False)
    return arr


MAX_WHOLE = float(2**53)
"""Whole numbers above this are not exact in floating point (nor safe in int64 arithmetic)."""


def inexact_whole(value: Any, label: str) -> None:
    """InstanceError when *value* is a whole number (int) beyond 2^53 in magnitude: the float it
    would become is another number (2^53 + 1 reads as 2^53), and nothing is silently changed.
    Call it after the conversion to float succeeded (beyond the float range, that error says more)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and abs(int(value)) > 2**53:
        raise InstanceError(f"{label} = {show(value)} is a whole number beyond 2^53, which floating point cannot "
                            f"hold exactly (it would become {float(value):.17g})")


def check_horizon(start: float, duration: float, what: str) -> None:
    """InstanceError unless *start* + *duration* — a time by which some schedule of the instance
    is done (latest release plus all the work at the slowest rate) — is at most :data:`MAX_WHOLE`.
    Beyond it a double no longer resolves one unit of time, and sums of such times overflow (a task
    of 1e308 on a machine of speed 0.5 ends at infinity); the instance is refused, not scheduled."""
    with np.errstate(over="ignore"):
        horizon = float(start) + float(duration)
    if not horizon <= MAX_WHOLE:
        raise InstanceError(f"instance: {what} is {horizon:.6g}, beyond the largest time schedrelax handles "
                            f"({MAX_WHOLE:.6g} = 2^53, where a double still resolves one unit)")


RESOLUTION = 5e-10
"""Shortest duration an instance may have, relative to the largest time it can reach.

A duration d between two time stamps near T, each rounded to the nearest double, is off by up to
one unit in the last place of T (2.2e-16·T, float64's epsilon); that must stay below the
verifier's relative tolerance TOL = 1e-6 of the duration: d >= 2.2e-16 / 1e-6 · T = 2.2e-10 · T.
The limit 5e-10 leaves a factor 2 for the few further operations a scheduler does on a stamp
(the verifier allows 4 ulps per stamp). Below it no schedule of the instance can be judged to
TOL, so the instance is refused at load (:func:`check_resolution`)."""


_DERIVED: contextvars.ContextVar[bool] = contextvars.ContextVar("schedrelax_derived_instance", default=False)


@contextlib.contextmanager
def derived_instances() -> Iterator[None]:
    """Inside this block, instances are built from one already validated: :func:`check_resolution`
    checks the horizon but not the shortest duration against it.

    For the online re-planner's sub-instances (:mod:`schedrelax.online.remaining`). A job cut at a
    re-planning time leaves any fraction of itself (a FlowFlex flow job of size 51 on 162
    processors, cut 1.8e-5 of itself short at t = 163, runs 5.8e-6 more), and the check's
    horizon is a worst case (every job on one processor: 46,046 there), so a residue that the
    schedule resolves well (5.8e-6 at t = 163: 3.6e-8 of the time stamp, far above 2.2e-10) would
    be refused. The original instance passed the check, and the composed schedule is verified
    against it (its tolerances include the stamps' round-off)."""
    token = _DERIVED.set(True)
    try:
        yield
    finally:
        _DERIVED.reset(token)


def check_resolution(start: float, duration: float, shortest: float, what: str, short: str) -> None:
    """InstanceError unless *start* + *duration* is at most :data:`MAX_WHOLE` (see
    :func:`check_horizon`) and the *shortest* duration of the instance is at least
    :data:`RESOLUTION` times that horizon (not checked inside :func:`derived_instances`). *what*
    says what the horizon is, *short* what the shortest duration is."""
    check_horizon(start, duration, what)
    horizon = float(start) + float(duration)
    if shortest < RESOLUTION * horizon and not _DERIVED.get():
        raise InstanceError(
            f"instance: {short} is {shortest:.6g}, below the resolution of its times: {what} reaches "
            f"{horizon:.6g}, and a duration under {RESOLUTION:g} of that is lost in the round-off of "
            f"double-precision time stamps; move the origin of time closer (subtract the earliest release from "
            f"every release and ready time), or leave out durations this short beside the others (multiplying "
            f"every time by one factor does not change the ratio)")


Locate = Callable[[int], str]
"""Maps an entry's index to its location in the user's terms, e.g. ``lambda i: f"job {i}"``."""


def check_array(arr: np.ndarray, field: str, at: Locate, *, positive: bool = False, nonnegative: bool = False,
                integral: bool = False, low: np.ndarray | float | None = None,
                high: np.ndarray | float | None = None, high_name: str = "") -> None:
    """Check every entry of *arr* against the rules asked for; the first breach raises.

    Finite always; then > 0 (*positive*), >= 0 (*nonnegative*), whole numbers (*integral*), and
    ``low <= arr <= high`` (scalars or arrays of the same length; *high_name* names the bound in
    the message, e.g. ``"P=100"``).
    """
    def fail(mask: np.ndarray, rule: str) -> None:
        if mask.any():
            i = int(np.flatnonzero(mask)[0])
            raise InstanceError(f"{at(i)}: {field} {rule}, got {_fmt(arr[i])}")

    fail(~np.isfinite(arr), "must be finite")
    if positive:
        fail(arr <= 0, "must be > 0")
    if nonnegative:
        fail(arr < 0, "must be >= 0")
    if integral:
        fail(arr != np.round(arr), "must be a whole number")
        fail(np.abs(arr) > MAX_WHOLE, f"must be at most {MAX_WHOLE:.0f} in magnitude (exact in floating point)")
    if low is not None or high is not None:
        lo = -np.inf if low is None else low
        hi = np.inf if high is None else high
        mask = (arr < lo) | (arr > hi)
        if mask.any():
            i = int(np.flatnonzero(mask)[0])
            lo_i = lo if np.isscalar(lo) else lo[i]
            hi_i = hi if np.isscalar(hi) else hi[i]
            if high is None:
                rule = f"must be >= {_fmt(lo_i)}"
            elif low is None:
                rule = f"must be <= {high_name or _fmt(hi_i)}"
            else:
                rule = f"must be in [{_fmt(lo_i)}, {high_name or _fmt(hi_i)}]"
            raise InstanceError(f"{at(i)}: {field} {rule}, got {_fmt(arr[i])}")


def _fmt(v) -> str:
    v = float(v)
    return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)


def check_scalar(value: Any, field: str, where: str = "", *, positive: bool = False, integral: bool = False,
                 minimum: float | None = None) -> float:
    """A finite scalar obeying the stated rule; returns it as float (int if *integral*)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InstanceError(f"{_prefix(where)}{field} must be a number, got {show(value)}")
    try:
        v = float(value)
    except OverflowError:
        raise InstanceError(f"{_prefix(where)}{field} is too large to represent, got {show(value)}") from None
    inexact_whole(value, f"{_prefix(where)}{field}")
    if not np.isfinite(v):
        raise InstanceError(f"{_prefix(where)}{field} must be finite, got {show(value)}")
    if positive and v <= 0:
        raise InstanceError(f"{_prefix(where)}{field} must be > 0, got {show(value)}")
    if minimum is not None and v < minimum:
        raise InstanceError(f"{_prefix(where)}{field} must be >= {minimum:g}, got {show(value)}")
    if integral:
        if v != round(v):
            raise InstanceError(f"{_prefix(where)}{field} must be a whole number, got {show(value)}")
        if abs(v) > MAX_WHOLE:
            raise InstanceError(f"{_prefix(where)}{field} must be at most {MAX_WHOLE:.0f}, got {show(value)}")
        return int(round(v))
    return v


def check_edges(edges: Any, n: int, field: str = "edges", where: str = "",
                names: Sequence[str] | None = None) -> np.ndarray:
    """Precedence edges as an (E, 2) int array over nodes 0..n-1, acyclic, no self-loops.

    A cycle is named node by node (``"precedence cycle: job 2 -> job 5 -> job 2"``), using
    *names* for the nodes when given.
    """
    if not isinstance(edges, (list, tuple, np.ndarray)):  # an object {} or a string is not a list of pairs
        raise InstanceError(f"{_prefix(where)}{field} must be a list of [from, to] pairs, got {show(edges)}")
    pairs = np.asarray(edges, dtype=object) if len(edges) else np.zeros((0, 2), dtype=object)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise InstanceError(f"{_prefix(where)}{field} must be a list of [from, to] pairs, got {show(edges)}")
    for e, pair in enumerate(pairs.tolist()):
        for v in pair:
            ok = isinstance(v, (int, np.integer)) or (isinstance(v, (float, np.floating)) and float(v).is_integer())
            if isinstance(v, (bool, np.bool_)) or not ok or abs(v) > MAX_WHOLE:
                raise InstanceError(f"{_prefix(where)}{field}[{e}] = {show(list(pair))} must be a pair of whole-number "
                                    f"node indices")
    arr = np.array(pairs.tolist(), dtype=np.int64).reshape(-1, 2)
    bad = (arr < 0) | (arr >= n)
    if bad.any():
        e = int(np.flatnonzero(bad.any(axis=1))[0])
        raise InstanceError(
            f"{_prefix(where)}{field}[{e}] = {arr[e].tolist()} names a node outside 0..{n - 1}"
        )
    loops = arr[:, 0] == arr[:, 1]
    if loops.any():
        e = int(np.flatnonzero(loops)[0])
        label = names[arr[e, 0]] if names else f"node {arr[e, 0]}"
        raise InstanceError(f"{_prefix(where)}precedence cycle: {label} -> {label} ({field}[{e}] is a self-loop)")
    if arr.size:
        cycle = find_cycle(n, arr)
        if cycle:
            nodes = [*cycle, cycle[0]]
            text = " -> ".join(names[u] if names else f"node {u}" for u in nodes)
            raise InstanceError(f"{_prefix(where)}precedence cycle: {text}")
    arr.setflags(write=False)
    return arr


def check_keys(data: Any, required: Iterable[str], optional: Iterable[str], where: str) -> Mapping[str, Any]:
    """A JSON object with exactly the *required* keys and some of the *optional* ones."""
    if not isinstance(data, Mapping):
        raise InstanceError(f"{_prefix(where)}expected a JSON object, got {type(data).__name__}: {show(data)}")
    required = list(required)
    allowed = set(required) | set(optional)
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise InstanceError(
            f"{_prefix(where)}unknown field {show(unknown[0])} (allowed: {', '.join(sorted(allowed))})"
        )
    missing = [k for k in required if k not in data]
    if missing:
        raise InstanceError(f"{_prefix(where)}missing required field {missing[0]!r}")
    return data


def check_list(data: Any, field: str, where: str, *, nonempty: bool = True) -> list:
    """A JSON array (a non-empty one if *nonempty*)."""
    if not isinstance(data, list):
        raise InstanceError(f"{_prefix(where)}{field} must be a list, got {type(data).__name__}: {show(data)}")
    if nonempty and not data:
        raise InstanceError(f"{_prefix(where)}{field} must not be empty")
    return data


def offsets(counts: np.ndarray) -> np.ndarray:
    """Start offsets of consecutive groups of the given sizes (length len(counts) + 1)."""
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def flat_ranges(first: np.ndarray, last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nested ranges, vectorised: (k repeated, first[k]..last[k]) for every k, flattened (none if first > last)."""
    first = np.asarray(first, dtype=np.int64)
    count = np.maximum(np.asarray(last, dtype=np.int64) - first + 1, 0)
    owner = np.repeat(np.arange(len(first)), count)
    start = np.cumsum(count) - count
    return owner, np.arange(int(count.sum())) - np.repeat(start, count) + first[owner]


def positions(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """For each wanted key, its index in *keys* (distinct, any order), -1 where it is absent."""
    keys, wanted = np.asarray(keys), np.asarray(wanted)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    if not len(keys):
        return np.full(len(wanted), -1, dtype=np.int64)
    pos = np.minimum(np.searchsorted(sorted_keys, wanted), len(keys) - 1)
    return np.where(sorted_keys[pos] == wanted, order[pos], -1).astype(np.int64)


def readonly(arr: np.ndarray) -> np.ndarray:
    """Mark *arr* read-only (instances are immutable all the way down) and return it."""
    arr.setflags(write=False)
    return arr


def find_cycle(n: int, edges: np.ndarray) -> list[int] | None:
    """A directed cycle of the graph on nodes 0..n-1 with *edges* (rows u, v: u -> v), as its
    nodes in order, or None when the graph is acyclic. Kahn's algorithm removes every node that no
    cycle reaches; each node left has a predecessor left, so walking back through those
    predecessors must meet itself. O(n + edges), without importing a graph library (which costs
    half a second at start-up)."""
    u, v = edges[:, 0].astype(np.int64), edges[:, 1].astype(np.int64)
    indegree = np.bincount(v, minlength=n)
    order = np.argsort(u, kind="stable")
    succ_start = np.searchsorted(u[order], np.arange(n + 1))
    succ = v[order]
    stack = list(np.flatnonzero(indegree == 0))
    left = indegree.copy()
    removed = 0
    while stack:
        x = stack.pop()
        removed += 1
        for y in succ[succ_start[x]:succ_start[x + 1]]:
            left[y] -= 1
            if left[y] == 0:
                stack.append(int(y))
    if removed == n:
        return None
    remaining = left > 0
    pred = np.full(n, -1)
    inside = remaining[u] & remaining[v]
    pred[v[inside]] = u[inside]
    x = int(np.flatnonzero(remaining)[0])
    seen: dict[int, int] = {}
    walk: list[int] = []
    while x not in seen:
        seen[x] = len(walk)
        walk.append(x)
        x = int(pred[x])
    return walk[seen[x]:][::-1]

