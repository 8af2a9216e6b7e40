"""The generated-runs checker shared by tests/fuzz/test_runs.py and benchmarks/fuzz_runs.py.

:func:`check_run` runs one registered algorithm on one instance through
:func:`schedrelax.algorithms.run` under a hang guard and classifies the outcome:

* ``"ok"``: a Result whose schedule passes ``verify`` against a fresh copy of the ORIGINAL
  instance (rebuilt from its JSON before the run, so an algorithm that mutated the instance it was
  given cannot hide it), whose objective equals ``evaluate``'s recomputation, whose lower bound
  (if any) is finite and <= the objective and <= a proven MIP optimum, and, when a guarantee is
  reported and the relaxation converged, objective <= guarantee · lower bound;
* ``"refused"``: a typed :class:`~schedrelax.errors.SchedrelaxError` (not an infeasible schedule)
  with a non-empty message — the algorithm says it cannot take this input;
* a failure kind: ``crash:<ExceptionType>``, ``hang``, ``infeasible`` (run()'s own verify
  rejected the schedule), ``infeasible-vs-original``, ``objective-mismatch``, ``bad-bound``
  (NaN/inf), ``lb-above-objective``, ``lb-above-optimum``, ``beats-optimum``,
  ``guarantee-violated``, ``optimal-label-wrong`` (an exact engine says optimal but its schedule
  costs more than its proven bound, or a Result's ``status`` says optimal without the proof),
  ``unnamed-bound`` (a lower bound without ``bound_kind``), ``engines-disagree`` (CP-SAT and the
  HiGHS MIP both prove an optimum, and they differ), ``empty-refusal``.

:func:`shrink` greedily minimises a failing instance's JSON.
"""

from __future__ import annotations

import copy
import math
import random
import signal
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedrelax import algorithms
from schedrelax.errors import InfeasibleScheduleError, InstanceError, SchedrelaxError
from schedrelax.instances import Instance, PackingInstance
from schedrelax.instances.base import from_dict
from schedrelax.rounding.exact import meets_bound
from schedrelax.schedules import evaluate, verify

REL_TOL = 1e-6
"""Relative slack of the value comparisons (the verifier's own TOL)."""

OPTIMAL_GAP = 1e-4
"""Relative gap between a MIP's proven bound and its schedule's cost beyond which its "optimal"
label is wrong (the solvers are asked for a zero gap; this leaves room for their tolerances)."""

HANG_SECONDS = 10.0
"""Per-run hang guard for the fast algorithms."""

MIP_SECONDS = 3.0
"""Time limit handed to ``mip``; its hang guard is a few times longer."""

ONLINE_FAMILIES = ("malleable", "packing", "related")


class RunHang(BaseException):
    """Raised by the alarm of :func:`hang_guard` (a BaseException: ``except Exception`` inside an
    algorithm must not swallow it)."""


@contextmanager
def hang_guard(seconds: float) -> Iterator[None]:
    """Raise RunHang in the main thread after *seconds* (only between Python bytecodes: a solver
    stuck in C code is stopped by its own time limit)."""
    def on_alarm(signum, frame):
        raise RunHang(f"no answer after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Outcome:
    """What one run gave: ``kind`` (see the module docstring), a message, and the Result."""

    algorithm: str
    family: str
    params: dict[str, Any]
    kind: str
    message: str = ""
    result: Any = None
    instance: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.kind not in ("ok", "refused")

    def reproducer(self) -> dict[str, Any]:
        return {"algorithm": self.algorithm, "params": self.params, "kind": self.kind,
                "message": self.message[:400], "instance": self.instance}


def _close(a: float, b: float) -> bool:
    """Equal within REL_TOL relative (no absolute floor: the same in any unit, issue 31)."""
    return abs(a - b) <= REL_TOL * max(abs(a), abs(b))


def _at_most(a: float, b: float) -> bool:
    return a <= b + REL_TOL * max(abs(a), abs(b))


def mip_proved_optimal(result) -> bool:
    """The exact engine says it proved optimality (``info["optimal"]`` or a status "optimal")."""
    info = result.info
    if "optimal" in info:
        return bool(info["optimal"])
    return info.get("status") == "optimal"


def converged(result) -> bool:
    """No flag of the Result says its relaxation stopped short."""
    return all(result.info.get(k, True) is not False for k in ("converged", "lp_converged")) and \
        result.info.get("lp_status", "optimal") == "optimal"


def comparable_to_mip(family: str, instance: Instance, schedule) -> bool:
    """Whether the MIP's optimum bounds this schedule's cost: the packing and related MIPs are
    non-preemptive, the malleable MIP honours minima (by default), so only schedules under the
    same rules are compared."""
    if family == "packing":
        return "non_preemptive" in schedule.promises
    if family == "malleable":
        return "respects_minima" in schedule.promises or not np.any(instance.min_procs)
    return True


def check_run(name: str, instance: Instance, *, params: dict | None = None, optimum: float | None = None,
              seconds: float | None = None, solver: str = "highs", seed: int = 0) -> Outcome:
    """Run *name* on *instance* and classify the outcome (module docstring). *optimum*: a cost the
    MIP proved optimal on the same instance (comparable schedules must not beat it)."""
    params = dict(params or {})
    snapshot = instance.to_dict()
    family = instance.family
    out = Outcome(name, family, params, "ok", instance=snapshot)
    original = from_dict(copy.deepcopy(snapshot))
    if seconds is None:
        seconds = 4 * MIP_SECONDS + HANG_SECONDS if name.split(":")[-1] == "mip" else HANG_SECONDS
    try:
        with hang_guard(seconds):
            res = algorithms.run(name, instance, solver=solver, seed=seed, params=params)
    except RunHang as exc:
        out.kind, out.message = "hang", str(exc)
        return out
    except InfeasibleScheduleError as exc:
        out.kind, out.message = "infeasible", str(exc)
        return out
    except SchedrelaxError as exc:
        out.kind, out.message = ("refused", f"{type(exc).__name__}: {exc}") if str(exc).strip() else \
            ("empty-refusal", type(exc).__name__)
        return out
    except Exception as exc:  # noqa: BLE001 - every other exception is the failure we look for
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" at {tb[-1].filename.split('schedrelax/')[-1]}:{tb[-1].lineno}" if tb else ""
        out.kind, out.message = f"crash:{type(exc).__name__}", f"{exc}{where}"
        return out
    out.result = res
    try:
        verify(original, res.schedule)
    except InfeasibleScheduleError as exc:
        out.kind, out.message = "infeasible-vs-original", str(exc)
        return out
    ev = evaluate(original, res.schedule)
    if not _close(ev.objective, res.objective):
        out.kind, out.message = "objective-mismatch", f"Result says {res.objective!r}, evaluate {ev.objective!r}"
        return out
    if res.info.get("bound_refuted"):  # run() dropped it: the algorithm still produced a false bound
        out.kind, out.message = "lb-above-objective", res.info["bound_refuted"]
        return out
    lb = res.lower_bound
    if lb is not None:
        if not math.isfinite(lb):
            out.kind, out.message = "bad-bound", f"lower bound {lb!r}"
            return out
        if not _at_most(lb, res.objective):
            out.kind, out.message = "lb-above-objective", f"lower bound {lb!r} > objective {res.objective!r}"
            return out
        if optimum is not None and not _at_most(lb, optimum):
            out.kind, out.message = "lb-above-optimum", f"lower bound {lb!r} > MIP optimum {optimum!r}"
            return out
        if not res.bound_kind:
            out.kind, out.message = "unnamed-bound", f"lower bound {lb!r} with no bound_kind saying what it is"
            return out
    if res.status == "optimal" and (lb is None or not meets_bound(res.objective, lb)):
        out.kind, out.message = "optimal-label-wrong", (f"status 'optimal' but the schedule's cost {res.objective!r} "
                                                        f"does not meet its lower bound {lb!r}")
        return out
    if optimum is not None and comparable_to_mip(family, original, res.schedule) and \
            not _at_most(optimum, res.objective) and not name.endswith("mip"):
        out.kind, out.message = "beats-optimum", f"objective {res.objective!r} < proven MIP optimum {optimum!r}"
        return out
    if name.split(":")[-1] == "mip" and ":" not in name and mip_proved_optimal(res) and lb is not None and \
            abs(res.objective - lb) > OPTIMAL_GAP * abs(lb):
        out.kind, out.message = "optimal-label-wrong", (f"mip says optimal (status {res.info.get('status')!r}) with "
                                                        f"bound {lb!r} but its schedule costs {res.objective!r}")
        return out
    g = res.guarantee
    if g is not None and lb is not None and lb > 0 and converged(res) and not _at_most(res.objective, g * lb):
        out.kind, out.message = "guarantee-violated", (f"objective {res.objective!r} > guarantee {g!r} x lower "
                                                       f"bound {lb!r} = {g * lb!r}")
        return out
    return out


# ------------------------------------------------------------------------------------ the plan

def offline_names(family: str) -> list[str]:
    """Every registered algorithm of *family*, from the registry (a new one is covered at once)."""
    return [spec.name for spec in algorithms.available(family)]


MAX_PACKING_SLOTS = 400
"""Most time slots of a packing instance given to the (time-indexed) MIP: beyond, HiGHS's presolve
can run for minutes, past its time limit, where the hang guard cannot stop it (C code)."""


def packing_slots(instance: PackingInstance) -> int | None:
    """Slots of the packing MIP's time grid (latest release or reservation end plus every task's
    longest time, in slots from the earliest release), None when the times are on no grid the MIP
    accepts."""
    from schedrelax.models.packing_mip import time_grid

    try:
        grid = time_grid(instance)
    except (ValueError, SchedrelaxError):  # off every grid: untyped before the fix, typed after
        return None
    longest = np.maximum.reduceat(instance.place_time, instance.place_offset[:-1])
    top = max(int(grid.release_slots.max()), int(grid.reserve_slots.max(initial=0)))
    return top + round(float(longest.sum()) / grid.unit)


def is_tiny(instance: Instance) -> bool:
    """Small enough for the exact MIP under a few seconds' limit. A packing instance whose times
    are on no grid counts as tiny when it has few tasks: the MIP must refuse it with a typed error."""
    fam = instance.family
    if fam == "malleable":
        return instance.n_jobs <= 4
    if fam == "related":
        return len(instance.task_size) <= 5
    if fam == "packing":
        if len(instance.demand) > 4:
            return False
        slots = packing_slots(instance)
        return slots is None or slots <= MAX_PACKING_SLOTS
    total = int(np.sum(instance.map_work) + np.sum(instance.reduce_total))
    return total <= 40 and instance.n_jobs <= 3


def mip_params(family: str) -> dict[str, Any]:
    return {"time_limit": MIP_SECONDS}


def run_plan(instance: Instance, rng: random.Random, online_sample: int = 2) -> list[tuple[str, dict[str, Any]]]:
    """(algorithm, params) pairs for one instance: every offline algorithm of its family (``mip``
    only when :func:`is_tiny`), then ``online:<name>`` for *online_sample* of them drawn by *rng*
    (never mip), with the re-planning rule drawn too."""
    fam = instance.family
    names = offline_names(fam)
    plan = [(n, mip_params(fam) if n == "mip" else {}) for n in names if n != "mip" or is_tiny(instance)]
    if fam in ONLINE_FAMILIES and online_sample:
        pool = [n for n in names if n != "mip"]
        for n in rng.sample(pool, min(online_sample, len(pool))):
            plan.append((f"online:{n}", {"replan_on": rng.choice(["arrivals", "events"])}))
    return plan


def check_instance(instance: Instance, rng: random.Random, online_sample: int = 2,
                   on_start: Callable[[str], None] | None = None) -> list[Outcome]:
    """Run the whole plan on *instance*; ``mip`` first so the others are compared to its optimum.
    *on_start* is told each algorithm's name before it runs (the runner's watchdog uses it)."""
    plan = run_plan(instance, rng, online_sample)
    plan.sort(key=lambda p: p[0] != "mip")
    outcomes, optimum = [], None
    for name, params in plan:
        if on_start is not None:
            on_start(name)
        o = check_run(name, instance, params=params, optimum=optimum)
        if name == "mip" and o.kind == "ok" and mip_proved_optimal(o.result):
            optimum = o.result.objective
        outcomes.append(o)
        if name == "mip" and instance.family in CPSAT_FAMILIES and cpsat_present():
            if on_start is not None:
                on_start("mip --solver cpsat")
            outcomes.append(second_engine(instance, params, optimum))
    return outcomes


CPSAT_FAMILIES = frozenset({"packing", "related"})
"""The families whose ``mip`` also runs on CP-SAT: a second, independent exact engine."""


def cpsat_present() -> bool:
    from schedrelax.solvers.cpsat_backend import cpsat_version

    return cpsat_version() is not None


def second_engine(instance: Instance, params: dict[str, Any], optimum: float | None) -> Outcome:
    """``mip --solver cpsat`` checked like any run, and against the HiGHS MIP's proven *optimum*:
    two engines that both prove an optimum must agree (``engines-disagree`` otherwise)."""
    o = check_run("mip", instance, params=params, optimum=optimum, solver="cpsat")
    o.algorithm = "mip --solver cpsat"
    if o.kind == "ok" and optimum is not None and mip_proved_optimal(o.result) and \
            abs(o.result.objective - optimum) > OPTIMAL_GAP * abs(optimum):
        o.kind, o.message = "engines-disagree", (f"cpsat proves {o.result.objective!r}, the HiGHS MIP "
                                                 f"{optimum!r}")
    return o


# ------------------------------------------------------------------------------------ shrinking

def _candidates(doc: Any, path: tuple = ()) -> Iterator[tuple[tuple, str, Any]]:
    """(path, action, value) edits of a JSON document, the most reducing first."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k in ("family", "schema_version"):
                continue
            yield from _candidates(v, (*path, k))
    elif isinstance(doc, list):
        if len(doc) > 1 or (path and path[-1] in ("edges", "reduce_tasks", "reservations", "min_processors")):
            for i in range(len(doc)):
                yield path, "delete", i
        for i, v in enumerate(doc):
            yield from _candidates(v, (*path, i))
    elif isinstance(doc, bool):
        return
    elif isinstance(doc, (int, float)):
        for v in (0, 1, round(doc), round(doc, 2)):
            if v != doc:
                yield path, "set", v


def _apply(doc: Any, path: tuple, action: str, value: Any) -> Any:
    new = copy.deepcopy(doc)
    obj = new
    for p in path[:-1] if action == "set" else path:
        obj = obj[p]
    if action == "delete":
        del obj[value]
    else:
        obj[path[-1]] = value
    return new


def shrink(outcome: Outcome, budget: int = 150) -> Outcome:
    """A smaller instance failing the same way (same algorithm, params and kind), by greedy edits
    of its JSON (delete list items, round numbers) while the failure reproduces."""
    best = outcome
    tries = 0
    improved = True
    while improved and tries < budget:
        improved = False
        edits = list(_candidates(best.instance))
        edits.sort(key=lambda e: e[1] != "delete")  # structure first, numbers after
        for path, action, value in edits:
            if tries >= budget:
                break
            doc = _apply(best.instance, path, action, value)
            try:
                inst = from_dict(doc)
            except (InstanceError, KeyError, IndexError, TypeError, ValueError):
                continue
            tries += 1
            o = check_run(best.algorithm, inst, params=best.params)
            if o.kind == best.kind:
                best = o
                improved = True
                break
    return best

