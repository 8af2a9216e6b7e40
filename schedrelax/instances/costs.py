"""Cost (penalty) functions of a flow's or job's completion time, and the minisum/minimax objectives.

Paper 000 (Nagarajan et al. 2019, FlowFlex) §1.1 gives every flow ``j`` an arbitrary
non-decreasing cost function ``w_j(t)`` of its completion time ``t`` and minimises either the sum
(*minisum*) or the maximum (*minimax*) of the costs; Theorem 1 (§1.2) adds the l_p norm of the
completion times. Paper 002 (Wolf et al. 2010, FLEX) §2.1 lists the penalty
families used in practice, each weighted or not: response time, stretch, number of tardy jobs,
tardiness, lateness and SLA step functions. This module holds one frozen dataclass per family:

==============  ==============================  ==========================================
kind            cost of completing at ``t``      parameters
==============  ==============================  ==========================================
``completion``  ``w * t``                        ``weight`` (response time; makespan if minimax)
``stretch``     ``t / W``                        ``work`` W > 0 (a completion cost, weight 1/W)
``tardy``       ``w * [t > d]``                  ``deadline``, ``weight``
``tardiness``   ``w * max(0, t - d)``            ``deadline``, ``weight``
``lateness``    ``w * (t - d)``                  ``deadline``, ``weight``
``sla``         ``sum_i h_i * [t > d_i]``        ``deadlines`` d_1 < ... < d_k, ``heights`` h_i > 0
``power``       ``w * t**p``                     ``p`` >= 1, ``weight`` (minisum gives l_p^p)
==============  ==============================  ==========================================

Conventions every user of this module relies on:

* Every function is non-decreasing in ``t``, as paper 000 §1.1 requires: weights and SLA heights
  are >= 0 (weight 0 is allowed and gives the zero function).
* Deadlines are strict: finishing exactly at ``d`` is on time, so ``tardy(d)(d) == 0`` and an SLA
  step ``i`` is charged only for ``t > d_i``. SLA ``heights`` are the increments: the cost just
  after ``d_i`` is ``h_1 + ... + h_i``.
* Lateness is the one family that can be negative (early jobs are rewarded, paper 002 §2.1). Ratios
  of lateness objectives (algorithm / optimum) are then meaningless, which is why paper 002 §4.1
  drops such experiments; callers computing ratios must check the sign themselves.
* Costs are defined for ``t >= 0``; ``__call__`` does not check this, it evaluates the formula.
* ``inverse(c)`` is the deadline FlowFlex's minimax bisection needs (paper 000 §2.3.3, Theorem 9,
  step 1: ``D_j = argmax{t : w_j(t) <= M}``). Every sublevel set ``{t >= 0 : cost(t) <= c}`` is a
  closed interval (the step functions jump just *after* their deadlines), so the latest such ``t``
  exists: ``inverse`` returns it, ``+inf`` when the cost never exceeds ``c`` and ``-inf`` when even
  ``cost(0) > c`` (no completion time meets the budget; ``-inf`` fails every deadline check and
  keeps ``inverse`` vectorised, where raising would not).
* Bad parameters raise :class:`~schedrelax.errors.InstanceError` naming the field, the value and
  the rule; nothing is clipped or repaired.
* ``shifted(now)`` re-bases a cost at time ``now`` for the online layer, which re-plans the work
  that remains with time shifted so that ``now`` is 0: it returns ``(g, k)`` with
  ``cost(now + t) == g(t) + k`` for every ``t >= 0``, ``g`` of a kind the algorithms know (deadlines
  already passed turn into constants). ``power`` has no such form and raises ValueError.
"""

from __future__ import annotations

import abc
import dataclasses
import math
import numbers
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from schedrelax.errors import InstanceError
from schedrelax.instances._checks import show

__all__ = [
    "COST_KINDS",
    "OBJECTIVES",
    "CompletionCost",
    "CostFunction",
    "LatenessCost",
    "PowerCost",
    "SLACost",
    "StretchCost",
    "TardinessCost",
    "TardyCost",
    "aggregate",
    "completion",
    "cost_from_dict",
    "lateness",
    "power",
    "sla",
    "stretch",
    "tardiness",
    "tardy",
]

OBJECTIVES = ("minisum", "minimax")


def _show(value: Any) -> str:
    """The value as the user wrote it, without numpy's ``np.float64(...)`` wrapping."""
    if isinstance(value, np.ndarray):
        return show(value.tolist())
    if isinstance(value, np.generic):
        return show(value.item())
    return show(value)


def _fail(where: str, message: str) -> InstanceError:
    return InstanceError(f"{where}: {message}" if where else message)


def _number(where: str, field: str, value: Any, *, bound: str) -> float:
    """``value`` as a float, or InstanceError unless it is a finite real satisfying ``bound``.

    ``bound`` is one of ">= 0", "> 0", ">= 1"; it appears verbatim in the message.
    """
    rule = f"{field} must be a finite number {bound}, got {_show(value)}"
    # bool is an int subclass, but a weight of True is a data error, not the number 1.
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise _fail(where, rule)
    try:
        x = float(value)
    except OverflowError:
        raise _fail(where, rule) from None
    ok = {">= 0": x >= 0.0, "> 0": x > 0.0, ">= 1": x >= 1.0}[bound]
    if not (math.isfinite(x) and ok):
        raise _fail(where, rule)
    return x


def _numbers(where: str, field: str, value: Any, *, bound: str) -> tuple[float, ...]:
    """A non-empty list of finite reals satisfying ``bound``, as a tuple of floats."""
    if isinstance(value, np.ndarray):
        value = value.tolist() if value.ndim == 1 else value
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) == 0:
        raise _fail(where, f"{field} must be a non-empty list of numbers, got {_show(value)}")
    return tuple(
        _number(where, f"{field}[{i}]", v, bound=bound) for i, v in enumerate(value)
    )


@dataclass(frozen=True)
class CostFunction(abc.ABC):
    """A non-decreasing cost of completing at time ``t`` (paper 000 §1.1; paper 002 §2.1).

    Subclasses are frozen dataclasses whose fields are the parameters; they are validated in
    ``__post_init__`` and normalised to floats (tuples of floats for SLA lists) so that instances
    are hashable, comparable and JSON-ready. ``is_step`` (piecewise constant) and ``is_convex``
    are fixed by the kind, whatever the parameters (a zero weight does not change them).
    """

    kind: ClassVar[str]
    is_step: ClassVar[bool]
    is_convex: ClassVar[bool]

    def __post_init__(self) -> None:
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        checked = type(self)._check(values, "", type(self).__name__)
        for name, value in checked.items():
            # frozen: the normalised value replaces the given one exactly once, at construction.
            object.__setattr__(self, name, value)

    @classmethod
    @abc.abstractmethod
    def _check(cls, values: dict[str, Any], where: str, label: str) -> dict[str, Any]:
        """Validate raw field values; return them normalised. ``label`` prefixes field names."""

    @abc.abstractmethod
    def _evaluate(self, t: np.ndarray) -> np.ndarray:
        """The cost at each entry of a float array ``t``."""

    @abc.abstractmethod
    def _latest_within(self, c: np.ndarray) -> np.ndarray:
        """The closed-form latest ``t`` with cost <= c, for c >= cost(0), up to rounding."""

    @abc.abstractmethod
    def breakpoints(self) -> np.ndarray:
        """Sorted times where the cost jumps or changes slope (empty for smooth kinds)."""

    def __call__(self, t: ArrayLike) -> float | np.ndarray:
        """The cost of completing at ``t`` (a number or an array; the result has its shape)."""
        out = self._evaluate(np.asarray(t, dtype=float))
        return float(out) if out.ndim == 0 else out

    def inverse(self, c: ArrayLike) -> float | np.ndarray:
        """The latest completion time ``t >= 0`` with ``cost(t) <= c`` (paper 000 §2.3.3, step 1).

        ``+inf`` if the cost never exceeds ``c``; ``-inf`` if even ``cost(0) > c``. Vectorised over
        ``c``. The result satisfies ``cost(t) <= c`` in floating point: where the closed form
        overshoots by rounding, it is the largest float below it that does. A NaN budget raises
        ValueError.
        """
        budget = np.asarray(c, dtype=float)
        if np.isnan(budget).any():
            raise ValueError(f"inverse: the cost budget c must not be NaN, got {_show(c)}")
        # Work on a flat array so boolean-mask assignment also works for a scalar budget.
        c = budget.reshape(-1)
        below_start = c < self._evaluate(np.zeros(()))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            t = np.broadcast_to(np.asarray(self._latest_within(c), dtype=float), c.shape)
            t = np.where(below_start, -np.inf, np.maximum(t, 0.0))
            # The closed forms (c / w, d + c / w, (c / w) ** (1 / p)) can round past the exact
            # maximum (or overflow to inf for a tiny weight), so cost(t) may exceed c; a deadline
            # that overshoots its budget would break the minimax bisection's "feasible => cost
            # <= M". Where it does, search below it. At t = +inf a zero weight evaluates to
            # 0 * inf = NaN, which compares False: the cost never exceeds c, +inf is right.
            over = t > -np.inf
            over[over] = self._evaluate(t[over]) > c[over]
            if over.any():
                t[over] = self._largest_float_within(t[over], c[over])
            # And the closed form can stop short: it inverts the float c exactly, while every t up
            # to the next change of the float cost(t) also has cost(t) <= c. A lateness of deadline
            # 1000 evaluates t = 2e-9 to c = -999.999999998 and inverts that to 1.99997885e-9,
            # 1e-5 short of a completion whose cost is c (the minimax search then called its own
            # schedule infeasible). Search up to the last float that keeps cost(t) <= c.
            up = np.isfinite(t) & ~over
            if up.any():
                t[up] = self._latest_float_from(t[up], c[up])
        return float(t[0]) if budget.ndim == 0 else t.reshape(budget.shape)

    def _latest_float_from(self, start: np.ndarray, c: np.ndarray) -> np.ndarray:
        """The largest float ``t >= start`` with ``cost(t) <= c``, given ``cost(start) <= c`` and
        ``start >= 0`` (``+inf`` if the cost never exceeds ``c``): steps of 1, 2, 4, ... floats
        (bit patterns, ordered like the floats for t >= 0) until one is over, then bisection. One
        evaluation where the closed form was already the last float (the usual case)."""
        inf_bits = np.float64(np.inf).view(np.int64)
        lo = start.astype(np.float64).view(np.int64).copy()
        hi = np.full(lo.shape, inf_bits)
        step = np.ones(lo.shape, dtype=np.int64)
        active = np.ones(lo.shape, dtype=bool)
        while active.any():
            probe = lo[active] + np.minimum(step[active], inf_bits - lo[active])  # no int64 overflow
            within = self._evaluate(probe.view(np.float64)) <= c[active]
            idx = np.flatnonzero(active)
            lo[idx[within]] = probe[within]
            hi[idx[~within]] = probe[~within]
            step[idx] *= 2
            active[idx[~within | (probe == inf_bits)]] = False
        return self._bisect_bits(lo, hi, c)

    def _largest_float_within(self, above: np.ndarray, c: np.ndarray) -> np.ndarray:
        """The largest float ``t`` in ``[0, above)`` with ``cost(t) <= c``, given cost(0) <= c.

        Bisects on the bit patterns of the floats, which are ordered like the floats themselves
        for t >= 0: at most 63 vectorised steps, and the exact boundary wherever the float
        evaluation is monotone (and ``cost(t) <= c`` always). Stepping down one ulp at a time
        would be shorter in the usual case but can take billions of steps where ``t**p`` or
        ``w * t`` underflows to coarse subnormals.
        """
        return self._bisect_bits(np.zeros(above.shape, dtype=np.int64), above.astype(np.float64).view(np.int64), c)

    def _bisect_bits(self, lo: np.ndarray, hi: np.ndarray, c: np.ndarray) -> np.ndarray:
        """The last float with ``cost(t) <= c`` between the bit patterns *lo* (within) and *hi*
        (over, or the end of the search), by bisection on the patterns (ordered like the floats for
        t >= 0)."""
        while np.any(hi - lo > 1):
            mid = lo + (hi - lo) // 2
            within = self._evaluate(mid.view(np.float64)) <= c
            lo = np.where(within, mid, lo)
            hi = np.where(within, hi, mid)
        return lo.view(np.float64)

    def shifted(self, now: float) -> tuple[CostFunction, float]:
        """``(g, k)`` with ``self(now + t) == g(t) + k`` for all ``t >= 0`` (module docstring)."""
        now = _number("", "now", now, bound=">= 0")
        return (self, 0.0) if now == 0 else self._shifted(now)

    def _shifted(self, now: float) -> tuple[CostFunction, float]:
        raise ValueError(f"a {self.kind} cost cannot be re-based at a later time as g(t) + constant")

    def rescaled(self, time_factor: float, cost_factor: float = 1.0) -> CostFunction:
        """The cost g with ``g(t) == cost_factor * self(t / time_factor)``: the same cost for an
        instance whose times are multiplied by *time_factor*, in units *cost_factor* times
        smaller. Exact when both are powers of 2 (a power cost's f^p aside) and no number leaves
        the normal floats (below about 2.2e-308, scaling drops low bits)."""
        time_factor = _number("", "time_factor", time_factor, bound="> 0")
        cost_factor = _number("", "cost_factor", cost_factor, bound="> 0")
        return self._rescaled(float(time_factor), float(cost_factor))

    def _rescaled(self, f: float, c: float) -> CostFunction:
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``"kind"`` and every parameter (SLA lists as lists)."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True)
class CompletionCost(CostFunction):
    """Weighted completion (response) time ``w * t`` (paper 002 §2.1, Response Time)."""

    weight: float = 1.0

    kind: ClassVar[str] = "completion"
    is_step: ClassVar[bool] = False
    is_convex: ClassVar[bool] = True

    @classmethod
    def _check(cls, values, where, label):
        return {"weight": _number(where, f"{label}.weight", values["weight"], bound=">= 0")}

    def _evaluate(self, t):
        return self.weight * t

    def _shifted(self, now):
        return self, self.weight * now

    def _rescaled(self, f, c):
        return CompletionCost(self.weight * c / f)

    def _latest_within(self, c):
        return c / self.weight if self.weight > 0 else np.inf

    def breakpoints(self):
        return np.empty(0)


@dataclass(frozen=True)
class StretchCost(CostFunction):
    """Stretch ``t / W``: completion time weighted by ``1 / W``, W the work (paper 002 §2.1)."""

    work: float

    kind: ClassVar[str] = "stretch"
    is_step: ClassVar[bool] = False
    is_convex: ClassVar[bool] = True

    @property
    def weight(self) -> float:
        """The equivalent completion-time weight ``1 / work``."""
        return 1.0 / self.work

    @classmethod
    def _check(cls, values, where, label):
        return {"work": _number(where, f"{label}.work", values["work"], bound="> 0")}

    def _evaluate(self, t):
        # t / W rather than t * (1 / W): a flow finishing at exactly its work has stretch 1.0.
        return t / self.work

    def _shifted(self, now):
        return self, now / self.work

    def _rescaled(self, f, c):
        return StretchCost(self.work * f / c)

    def _latest_within(self, c):
        return c * self.work

    def breakpoints(self):
        return np.empty(0)


@dataclass(frozen=True)
class _DeadlineCost(CostFunction):
    """The shared parts of the costs with one deadline d and a weight w (paper 002 §2.1)."""

    deadline: float
    weight: float = 1.0

    @classmethod
    def _check(cls, values, where, label):
        return {
            "deadline": _number(where, f"{label}.deadline", values["deadline"], bound=">= 0"),
            "weight": _number(where, f"{label}.weight", values["weight"], bound=">= 0"),
        }

    def _shifted(self, now):
        if self.deadline >= now:
            return type(self)(self.deadline - now, self.weight), 0.0
        return self._shifted_past_deadline(now)

    def _shifted_past_deadline(self, now):
        """cost(now + t) as (g, k) once the deadline has passed (``now > deadline``)."""
        # Tardiness and lateness: w (now + t − d) = w t + w (now − d).
        return CompletionCost(self.weight), self.weight * (now - self.deadline)

    def _latest_within(self, c):
        return self.deadline + c / self.weight if self.weight > 0 else np.inf


@dataclass(frozen=True)
class TardyCost(_DeadlineCost):
    """Weighted number of tardy jobs ``w * [t > d]`` (paper 002 §2.1); on time at ``t == d``."""

    kind: ClassVar[str] = "tardy"
    is_step: ClassVar[bool] = True
    is_convex: ClassVar[bool] = False

    def _evaluate(self, t):
        return np.where(t > self.deadline, self.weight, 0.0)

    def _shifted_past_deadline(self, now):
        return CompletionCost(0.0), self.weight  # late whenever it completes

    def _rescaled(self, f, c):
        return TardyCost(self.deadline * f, self.weight * c)

    def _latest_within(self, c):
        return np.where(c >= self.weight, np.inf, self.deadline)

    def breakpoints(self):
        return np.array([self.deadline])


@dataclass(frozen=True)
class TardinessCost(_DeadlineCost):
    """Weighted tardiness ``w * max(0, t - d)`` (paper 002 §2.1)."""

    kind: ClassVar[str] = "tardiness"
    is_step: ClassVar[bool] = False
    is_convex: ClassVar[bool] = True

    def _evaluate(self, t):
        return self.weight * np.maximum(t - self.deadline, 0.0)

    def _rescaled(self, f, c):
        return TardinessCost(self.deadline * f, self.weight * c / f)

    def breakpoints(self):
        return np.array([self.deadline])


@dataclass(frozen=True)
class LatenessCost(_DeadlineCost):
    """Weighted lateness ``w * (t - d)``, negative for early jobs (paper 002 §2.1).

    Affine, so it has no breakpoints: the deadline only shifts it.
    """

    kind: ClassVar[str] = "lateness"
    is_step: ClassVar[bool] = False
    is_convex: ClassVar[bool] = True

    def _evaluate(self, t):
        return self.weight * (t - self.deadline)

    def _rescaled(self, f, c):
        return LatenessCost(self.deadline * f, self.weight * c / f)

    def breakpoints(self):
        return np.empty(0)


@dataclass(frozen=True)
class SLACost(CostFunction):
    """SLA (post-office) step cost ``sum_i h_i * [t > d_i]`` (paper 002 §2.1; paper 000 §1.1).

    ``heights`` are the increments: after the i-th deadline the cost is ``h_1 + ... + h_i``.
    Deadlines must be strictly increasing (equal deadlines would be one step of summed height;
    we ask the data to say so rather than merge silently).
    """

    deadlines: tuple[float, ...]
    heights: tuple[float, ...]

    kind: ClassVar[str] = "sla"
    is_step: ClassVar[bool] = True
    is_convex: ClassVar[bool] = False

    @classmethod
    def _check(cls, values, where, label):
        deadlines = _numbers(where, f"{label}.deadlines", values["deadlines"], bound=">= 0")
        heights = _numbers(where, f"{label}.heights", values["heights"], bound="> 0")
        if len(heights) != len(deadlines):
            raise _fail(
                where,
                f"{label}.heights must have one entry per deadline ({len(deadlines)}), "
                f"got {len(heights)}: {list(heights)}",
            )
        if any(b <= a for a, b in zip(deadlines, deadlines[1:])):
            raise _fail(
                where, f"{label}.deadlines must be strictly increasing, got {list(deadlines)}"
            )
        return {"deadlines": deadlines, "heights": heights}

    def _levels(self) -> np.ndarray:
        """The cost on each interval: 0 before d_1, then the running sums of the heights.

        Both evaluation and inverse read these same floats, so they agree exactly.
        """
        return np.concatenate(([0.0], np.cumsum(self.heights)))

    def _evaluate(self, t):
        # side="left" counts the deadlines strictly below t: a step is charged only for t > d_i.
        return self._levels()[np.searchsorted(self.deadlines, t, side="left")]

    def _shifted(self, now):
        # A step at d_i >= now is still ahead (charged for now + t > d_i); the others are paid.
        ahead = [k for k, d in enumerate(self.deadlines) if d >= now]
        paid = float(sum(h for k, h in enumerate(self.heights) if k not in ahead))
        if not ahead:
            return CompletionCost(0.0), paid
        return SLACost(tuple(self.deadlines[k] - now for k in ahead), tuple(self.heights[k] for k in ahead)), paid

    def _rescaled(self, f, c):
        return SLACost(tuple(d * f for d in self.deadlines), tuple(h * c for h in self.heights))

    def _latest_within(self, c):
        # The number of steps affordable within c picks the deadline that ends the budget.
        affordable = np.searchsorted(self._levels()[1:], c, side="right")
        return np.append(self.deadlines, np.inf)[affordable]

    def breakpoints(self):
        return np.array(self.deadlines)


@dataclass(frozen=True)
class PowerCost(CostFunction):
    """``w * t**p`` with ``p >= 1``: minisum gives the l_p norm to the power p (paper 000 §1.2)."""

    p: float
    weight: float = 1.0

    kind: ClassVar[str] = "power"
    is_step: ClassVar[bool] = False
    is_convex: ClassVar[bool] = True

    @classmethod
    def _check(cls, values, where, label):
        return {
            "p": _number(where, f"{label}.p", values["p"], bound=">= 1"),
            "weight": _number(where, f"{label}.weight", values["weight"], bound=">= 0"),
        }

    def _evaluate(self, t):
        return self.weight * t**self.p

    def _rescaled(self, f, c):
        return PowerCost(self.p, self.weight * c / f**self.p)

    def _latest_within(self, c):
        return (c / self.weight) ** (1.0 / self.p) if self.weight > 0 else np.inf

    def breakpoints(self):
        return np.empty(0)


COST_KINDS: Mapping[str, type[CostFunction]] = types.MappingProxyType(
    {
        cls.kind: cls
        for cls in (
            CompletionCost,
            StretchCost,
            TardyCost,
            TardinessCost,
            LatenessCost,
            SLACost,
            PowerCost,
        )
    }
)


def cost_from_dict(d: Any, where: str = "") -> CostFunction:
    """The cost function a JSON dict describes (the inverse of ``CostFunction.to_dict``).

    Parameters with a default (``weight``) may be omitted; every other parameter is required and
    unknown keys are an error. Messages are prefixed with ``where`` (e.g. ``"flow 3"``) and name
    fields as ``cost.<name>``.
    """
    if not isinstance(d, Mapping):
        raise _fail(where, f"cost must be an object with a 'kind', got {_show(d)}")
    if "kind" not in d:
        raise _fail(where, f"cost.kind is required, one of {list(COST_KINDS)}")
    kind = d["kind"]
    if not isinstance(kind, str) or kind not in COST_KINDS:
        raise _fail(where, f"cost.kind must be one of {list(COST_KINDS)}, got {_show(kind)}")
    cls = COST_KINDS[kind]
    params = dataclasses.fields(cls)
    allowed = {f.name for f in params}
    unknown = sorted(str(k) for k in d if k != "kind" and k not in allowed)
    if unknown:
        raise _fail(
            where,
            f"cost has unknown key(s) {unknown} for kind {kind!r}; allowed: "
            f"{['kind', *sorted(allowed)]}",
        )
    values = {f.name: f.default for f in params if f.default is not dataclasses.MISSING}
    for f in params:
        if f.name in d:
            values[f.name] = d[f.name]
        elif f.name not in values:
            raise _fail(where, f"cost.{f.name} is required for kind {kind!r}")
    return cls(**cls._check(values, where, "cost"))


def completion(weight: float = 1.0) -> CompletionCost:
    """Weighted completion time ``weight * t``."""
    return CompletionCost(weight=weight)


def stretch(work: float) -> StretchCost:
    """Stretch ``t / work``."""
    return StretchCost(work=work)


def tardy(deadline: float, weight: float = 1.0) -> TardyCost:
    """``weight`` if ``t > deadline``, else 0."""
    return TardyCost(deadline=deadline, weight=weight)


def tardiness(deadline: float, weight: float = 1.0) -> TardinessCost:
    """``weight * max(0, t - deadline)``."""
    return TardinessCost(deadline=deadline, weight=weight)


def lateness(deadline: float, weight: float = 1.0) -> LatenessCost:
    """``weight * (t - deadline)``, negative before the deadline."""
    return LatenessCost(deadline=deadline, weight=weight)


def sla(deadlines: ArrayLike, heights: ArrayLike) -> SLACost:
    """Step cost rising by ``heights[i]`` just after ``deadlines[i]``."""
    return SLACost(deadlines=deadlines, heights=heights)


def power(p: float, weight: float = 1.0) -> PowerCost:
    """``weight * t**p`` (p >= 1)."""
    return PowerCost(p=p, weight=weight)


def aggregate(values: ArrayLike, objective: str) -> float:
    """Combine per-flow costs: ``"minisum"`` sums them, ``"minimax"`` takes the largest
    (paper 000 §1.1; paper 002 §2.1)."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    v = np.asarray(values, dtype=float)
    if objective == "minisum":
        return float(np.sum(v))
    if v.size == 0:
        # No neutral value exists: lateness costs can be negative, so 0 would be a wrong maximum.
        raise ValueError("minimax of no costs is undefined: values is empty")
    return float(np.max(v))
