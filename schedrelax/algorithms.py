"""The algorithm registry: name -> function ``(instance, *, solver, seed, **params) -> Result``.

Algorithms register themselves with :func:`register`. :func:`run` is the one way the CLI, the
comparison runner and the online layer call them: it checks the family, times the call, and
re-checks the returned schedule with :func:`schedrelax.schedules.verify` before the number
reaches anybody, then fills in the objective from :func:`schedrelax.schedules.evaluate` — so an
algorithm cannot report a value its schedule does not achieve.
"""

from __future__ import annotations

import inspect
import math
import time
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from schedrelax._log import logger
from schedrelax.errors import AlgorithmError
from schedrelax.instances import Instance
from schedrelax.schedules import Evaluation, Schedule, evaluate, verify


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
    def status(self) -> str:
        """What the result proves about its schedule.

        ``"optimal"``: an exact algorithm proved the schedule's own cost optimal (it meets the
        proven lower bound, :func:`schedrelax.rounding.exact.meets_bound`). ``"feasible"``: an exact
        algorithm's verified schedule that is not proven optimal (see :attr:`gap`); or the
        solver's own status when the search stopped early (``"time_limit"`` ...). ``"heuristic"``:
        an approximation or baseline — a verified schedule with no claim of optimality (its
        ``guarantee``, if any, is the theorem's factor).
        """
        if not self.exact:
            return "heuristic"
        return str(self.info.get("status", "optimal" if self.info["optimal"] else "feasible"))

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


AlgorithmFn = Callable[..., Result]

_LOG = logger(__name__)


@dataclass(frozen=True)
class AlgorithmSpec:
    """A registered algorithm: its function, the family it accepts and a one-line summary."""

    name: str
    family: str
    fn: AlgorithmFn
    summary: str
    uses_solver: bool = False
    paper: str = ""


_REGISTRY: dict[str, dict[str, AlgorithmSpec]] = {}
"""name -> family -> spec: one name (e.g. ``fifo``) may serve several families."""


def register(name: str, family: str, summary: str, *, uses_solver: bool = False,
             paper: str = "") -> Callable[[AlgorithmFn], AlgorithmFn]:
    """Decorator: register *fn* under *name* for instances of *family*."""
    def deco(fn: AlgorithmFn) -> AlgorithmFn:
        known = _REGISTRY.setdefault(name, {})
        if family in known and known[family].fn is not fn:
            raise ValueError(f"algorithm {name!r} is registered twice for family {family!r}")
        known[family] = AlgorithmSpec(name, family, fn, summary, uses_solver, paper)
        return fn
    return deco


def _load_builtin() -> None:
    # Importing the packages registers their algorithms; done lazily to keep imports acyclic.
    import schedrelax.rounding  # noqa: F401
    import schedrelax.schedulers  # noqa: F401


def available(family: str | None = None) -> list[AlgorithmSpec]:
    """Registered algorithms sorted by name then family, optionally only those for *family*."""
    _load_builtin()
    return [spec for name in sorted(_REGISTRY) for fam, spec in sorted(_REGISTRY[name].items())
            if family is None or fam == family]


ONLINE_PREFIX = "online:"
"""``online:<name>`` is the offline algorithm *name* re-planned as jobs arrive (schedrelax.online)."""


def get(name: str, family: str) -> AlgorithmSpec:
    """The algorithm *name* for *family*, or AlgorithmError listing what exists.

    ``online:<name>`` resolves to :func:`schedrelax.online.simulate` around *name* (not listed by
    :func:`available`: every algorithm of the malleable, packing and related families has one).
    """
    if name.startswith(ONLINE_PREFIX):
        from schedrelax.online import online_spec  # lazy: online sits above the registry

        return online_spec(name, family)
    _load_builtin()
    if name not in _REGISTRY:
        raise AlgorithmError(f"unknown algorithm {name!r}; known: {', '.join(sorted(_REGISTRY))}")
    if family not in _REGISTRY[name]:
        accepting = sorted(s.name for s in available(family))
        raise AlgorithmError(
            f"algorithm {name!r} accepts {', '.join(sorted(_REGISTRY[name]))} instances, not {family} "
            f"(algorithms for {family}: {', '.join(accepting) or 'none'})"
        )
    return _REGISTRY[name][family]


def markdown_table(family: str | None = None) -> str:
    """The registered algorithms as a Markdown table (name, family, paper, solver?, summary): the
    README's algorithm table is this text, and a test keeps the two equal."""
    lines = ["| algorithm | family | paper | LP/MIP solver | what it does |", "|---|---|---|---|---|"]
    for s in available(family):
        summary = s.summary.replace("|", "\\|")
        lines.append(f"| `{s.name}` | {s.family} | {s.paper or '-'} | {'yes' if s.uses_solver else 'no'} | {summary} |")
    return "\n".join(lines)


def _keyword_params(fn: AlgorithmFn) -> set[str] | None:
    """The tunable keyword parameters of *fn* (None if it takes ``**kwargs``)."""
    sig = inspect.signature(fn)
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return None
    return {k for k, p in sig.parameters.items() if p.kind is p.KEYWORD_ONLY} - {"solver", "seed"}


def _accepts(value: Any, hint: Any) -> bool | None:
    """Whether *value* fits the type *hint*: True, False, or None where the hint is not one of the
    plain kinds checked here (numbers, bools, strings, None, Literal and unions of them)."""
    if hint is Any:
        return None
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, (bool, np.bool_))
    if hint is int:
        return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if hint is float:
        return (isinstance(value, (int, float, np.integer, np.floating))
                and not isinstance(value, (bool, np.bool_)) and not (isinstance(value, float) and math.isnan(value)))
    if hint is str:
        return isinstance(value, str)
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return any(value == a and type(value) is type(a) for a in typing.get_args(hint))
    if origin in (typing.Union, types.UnionType):
        verdicts = [_accepts(value, h) for h in typing.get_args(hint)]
        if any(v is True for v in verdicts):
            return True
        return None if any(v is None for v in verdicts) else False
    return None


def _check_param_types(name: str, fn: AlgorithmFn, params: Mapping[str, Any]) -> None:
    """AlgorithmError naming the parameter, the value and the expected type when a value cannot be
    what the algorithm's signature says (``-p eps=abc``, ``-p eps=true``, NaN for a number), before
    any work starts."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - an annotation this check cannot read is left to the algorithm
        return
    for key, value in params.items():
        hint = hints.get(key)
        if hint is None or _accepts(value, hint) is not False:
            continue
        expected = " or ".join(getattr(h, "__name__", str(h)) for h in (typing.get_args(hint) or (hint,)))
        raise AlgorithmError(f"algorithm {name!r}: parameter {key!r} must be {expected}, got {value!r}")


def _drop_refuted_bound(result: Result) -> Result:
    """A lower bound above the verified cost of the result's own schedule is refuted (a solver's
    wrong proof, or a bug): it is dropped with the guarantee and any optimality claim, and
    ``info["bound_refuted"]`` says what was refuted. Tolerance: COST_MATCH, the optimality rule."""
    from schedrelax.rounding.exact import refutes

    bound, cost = result.lower_bound, result.objective
    if not refutes(cost, bound):
        return result
    message = (f"lower bound {bound!r} ({result.bound_kind}) is above the verified cost {cost!r} of the "
               "algorithm's own schedule: refuted, so dropped")
    _LOG.warning("%s: %s", result.algorithm, message)
    info = {**result.info, "bound_refuted": message}
    if "optimal" in info:
        info.update(optimal=False, status="feasible")
    return replace(result, lower_bound=None, bound_kind=None, guarantee=None, info=info)


def run(name: str, instance: Instance, *, solver: str = "highs", seed: int | None = 0,
        params: Mapping[str, Any] | None = None, time_limit: float | None = None, **kwargs: Any) -> Result:
    """Run algorithm *name* on *instance*, verify its schedule and evaluate it.

    Parameters
    ----------
    name:
        A registered algorithm (``schedrelax list``; ``online:NAME`` re-plans NAME as jobs arrive).
    instance:
        An instance of the family the algorithm accepts.
    solver:
        LP/MIP back end for algorithms that solve a model (``"highs"``, ``"glpk"``, ``"cvxpy"`` ...).
    seed:
        Random seed of randomised algorithms (ignored by the others).
    params:
        The algorithm's own parameters as a mapping (what ``solve -p KEY=VALUE`` passes).
    time_limit:
        Seconds for each solver call of an algorithm that uses a solver; an error for one that
        does not (it has no ``time_limit`` parameter).
    **kwargs:
        The algorithm's own parameters as keywords, e.g. ``run("spc", inst, cuts="prefixes")``;
        merged with *params* (a parameter given both ways is an error).

    Raises
    ------
    AlgorithmError
        An unknown name, the wrong family or an unknown parameter.
    InfeasibleScheduleError
        The algorithm's schedule breaks a constraint (a bug in the algorithm: it is never
        passed on silently).
    """
    spec = get(name, instance.family)
    params = dict(params or {})
    both = sorted(set(params) & set(kwargs))
    if both:
        raise AlgorithmError(f"algorithm {name!r}: parameter {both[0]!r} given both in params and as a keyword")
    params.update(kwargs)
    if time_limit is not None:
        if "time_limit" in params:
            raise AlgorithmError(f"algorithm {name!r}: time_limit given both in params and as a keyword")
        params["time_limit"] = time_limit
    accepted = _keyword_params(spec.fn)
    if accepted is not None:
        unknown = sorted(set(params) - accepted)
        if unknown:
            raise AlgorithmError(f"algorithm {name!r} has no parameter {unknown[0]!r} "
                                 f"(its parameters: {', '.join(sorted(accepted)) or 'none'})")
    _check_param_types(name, spec.fn, params)
    t0 = time.perf_counter()
    result = spec.fn(instance, solver=solver, seed=seed, **params)
    elapsed = time.perf_counter() - t0
    verify(instance, result.schedule)
    ev = evaluate(instance, result.schedule)
    timings = {**result.timings, "total": elapsed}
    done = replace(result, algorithm=name, objective=ev.objective, evaluation=ev, timings=timings,
                   params={**params, **result.params, "seed": seed, "solver": solver if spec.uses_solver else None})
    done = _drop_refuted_bound(done)
    _LOG.info("%s on a %s instance (%d jobs): objective %.6g, %s, %.3f s", name, instance.family, instance.n_jobs,
              done.objective, done.status, elapsed)
    _LOG.debug("%s timings %s", name, {k: round(v, 4) for k, v in timings.items()})
    return done
