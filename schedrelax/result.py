"""The result of a scheduling algorithm: :class:`Result`, and the rule that calls a schedule optimal.

It sits below every algorithm and the registry (:mod:`schedrelax.algorithms`), so that an
implementation needs nothing from the registry to return its result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from schedrelax import _display
from schedrelax.schedules import Evaluation, Schedule
from schedrelax.solvers.result import SolveStatus as Status

__all__ = ["COST_MATCH", "Result", "Status", "cost_gap_ok", "meets_bound", "refutes"]

COST_MATCH = 1e-6
"""Relative agreement (to the larger of |cost| and |bound|) required between the returned
schedule's cost and the proven bound for the result to be called optimal; the same rule as the
comparison's OPT column. Purely relative: an absolute floor (it was max(1, |cost|)) would let an
instance written in small units call a gap of 100 % optimal."""


def cost_gap_ok(larger: float, smaller: float, rel: float = COST_MATCH) -> bool:
    """*larger* exceeds *smaller* by at most *rel* of the larger magnitude of the two: the
    comparison behind :func:`meets_bound` and the refuted-bound guard, the same in any unit."""
    return larger - smaller <= rel * max(abs(larger), abs(smaller))


def meets_bound(cost: float, bound: float | None) -> bool:
    """A schedule of this *cost* is proven optimal by the lower *bound*: they agree within
    :data:`COST_MATCH` relative to the larger of |cost| and |bound|. The one rule behind every
    "optimal" label and the comparison's OPT column."""
    return bound is not None and math.isfinite(bound) and cost_gap_ok(cost, bound)


def refutes(cost: float, bound: float | None) -> bool:
    """A verified schedule of this *cost* refutes the lower *bound*: the bound is above it by
    more than :data:`COST_MATCH` relative (the mirror of :func:`meets_bound`)."""
    return bound is not None and bound - cost > COST_MATCH * max(abs(bound), abs(cost))  # NaN: not refuted


@dataclass(frozen=True, eq=False)
class Result:
    """What an algorithm returns.

    ``lower_bound`` is a value no feasible schedule can beat (the relaxation's optimum, or a
    combinatorial bound), None if the algorithm proves none; ``bound_kind`` says which bound it is
    (e.g. ``"LP2 optimum"``, ``"MIP dual bound"``, ``"SRPT bound"``). ``guarantee`` is the theorem's
    factor: objective <= guarantee × optimum (or × lower_bound where the proof says so) — None if
    there is no guarantee. ``timings`` holds seconds by phase (build, solve, round, total);
    ``info`` anything else worth reporting (solver status, rounds, speed augmentation ...).
    :attr:`status` and :meth:`status_line` say what the result proves.
    """

    algorithm: str
    schedule: Schedule
    objective: float = float("nan")
    lower_bound: float | None = None
    guarantee: float | None = None
    timings: dict[str, float] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    evaluation: Evaluation | None = None
    bound_kind: str | None = None

    @property
    def ratio_to_bound(self) -> float | None:
        """objective / lower_bound where both are positive, else None."""
        if self.lower_bound is None or self.lower_bound <= 0 or self.objective <= 0:
            return None
        return self.objective / self.lower_bound

    @property
    def exact(self) -> bool:
        """Whether the algorithm is an exact search (it reports ``info["optimal"]``)."""
        return "optimal" in self.info

    @property
    def status(self) -> Status:
        """What the result proves about its schedule (a :data:`Status`, a ``str`` enum: it equals
        its value, ``result.status == "optimal"``).

        ``OPTIMAL``: an exact algorithm proved the schedule's own cost optimal (it meets the
        proven lower bound, :func:`meets_bound`). ``FEASIBLE``: an exact algorithm's verified
        schedule that is not proven optimal (see :attr:`gap`); or the solver's own status when the
        search stopped early (``LIMIT_NO_SOLUTION`` ...). ``HEURISTIC``: an approximation or
        baseline — a verified schedule with no claim of optimality (its ``guarantee``, if any, is
        the theorem's factor).
        """
        if not self.exact:
            return Status.HEURISTIC
        return Status(self.info.get("status", "optimal" if self.info["optimal"] else "feasible"))

    @property
    def gap(self) -> float | None:
        """(objective − lower_bound) / objective: how far the bound leaves the optimum open, None
        without a bound or with a non-positive objective."""
        if self.lower_bound is None or not self.objective > 0:
            return None
        return max(0.0, (self.objective - self.lower_bound) / self.objective)

    def status_line(self) -> str:
        """One line for people: the status, the solver's own status where it differs, the gap."""
        if self.status == "heuristic":
            text = "heuristic (verified schedule, no optimality claim)"
            solver_status = self.info.get("lp_status")
            if solver_status is not None:
                text += f"; its LP ended {solver_status}"
            return text
        text = self.status
        if self.status == "optimal":
            text += " (proven: the schedule's cost meets the lower bound)"
        else:
            text += ", not proven optimal"
            solver_status = self.info.get("solver_status")
            message = self.info.get("solver_message")
            if message:
                text += f" (the solver: {message})"
            elif solver_status is not None and solver_status != self.status:
                text += f" (solver status {solver_status})"
            if self.gap is not None:
                text += f"; gap {100 * self.gap:.3g} % to the lower bound"
        return text

    def to_dict(self) -> dict[str, Any]:
        """The result's numbers as a JSON-ready dict: algorithm, status, objective, lower bound and
        its kind, ratio, gap, guarantee, pieces, seconds by phase, parameters. (The schedule:
        ``schedule.to_dict()``; the completion times: ``evaluation.to_dict()``.)"""
        return {"algorithm": self.algorithm, "status": str(self.status), "objective": float(self.objective),
                "lower_bound": self.lower_bound, "bound_kind": self.bound_kind,
                "ratio_to_bound": self.ratio_to_bound, "gap": self.gap, "guarantee": self.guarantee,
                "pieces": len(self.schedule), "timings": dict(self.timings), "params": dict(self.params)}

    def to_frame(self):
        """The result as a one-row pandas DataFrame indexed by the algorithm: the columns of
        :meth:`to_dict`, the timings as ``time_<phase>`` columns and the parameters left out, so
        that ``pd.concat([r.to_frame() for r in results])`` is a comparison table. (The pieces:
        ``schedule.to_frame()``; one row a job: ``evaluation.to_frame()``.)"""
        import pandas as pd

        row = {k: v for k, v in self.to_dict().items() if k not in ("timings", "params", "algorithm")}
        row.update((f"time_{k}", v) for k, v in self.timings.items())
        return pd.DataFrame([row], index=pd.Index([self.algorithm], name="algorithm"))

    def plot(self, instance=None, *, ax=None, title: str | None = None, legend: bool | None = None):
        """The schedule's Gantt chart (:meth:`Schedule.plot <schedrelax.schedules.Schedule.plot>`),
        titled with the algorithm and the objective; returns the axes."""
        title = title or f"{self.algorithm}: objective {_display.number(self.objective)} ({self.status})"
        return self.schedule.plot(instance, ax=ax, title=title, legend=legend)

    def _summary(self) -> list[tuple[str, str]]:
        rows = [("objective", _display.number(self.objective)), ("status", str(self.status))]
        if self.lower_bound is not None:
            rows.append(("lower bound", f"{_display.number(self.lower_bound)} ({self.bound_kind})"))
        if self.guarantee is not None:
            rows.append(("guarantee", f"{self.guarantee:.4g}"))
        rows.append(("pieces", str(len(self.schedule))))
        if "total" in self.timings:
            rows.append(("time", _display.seconds(self.timings["total"])))
        return rows

    def __repr__(self) -> str:
        return f"Result({self.algorithm!r}, {', '.join(f'{k}: {v}' for k, v in self._summary())})"

    def _repr_html_(self) -> str:
        return _display.html_table(f"Result of {self.algorithm}", self._summary())
