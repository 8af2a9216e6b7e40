"""The experiment engine: a paper reproduction as a declaration, run as cells on the shared runner,
every number given with its 95 % interval over seeds and a verdict against the paper's.

A reproduction is an :class:`Experiment`: a *cell* function (one instance, every algorithm on it,
records of metrics), the **settings** it runs in (the main one, and e.g. the package's defaults),
the **points** of its tables and figures, the **seeds**, and the paper's statements as
:class:`Row` s (a statistic over the runs, with the paper's number or relation). What makes a
number differ from the paper's is declared too, and measured in the same run:

* :class:`Variation`: one change of a setting (a parameter from a to b; one implementation of an
  algorithm for another), whose effect on the rows it names is printed with its interval;
* :class:`Band`: the values a parameter the paper leaves open can plausibly take (with the
  sentence of the paper that bounds them): the row's range over them, and whether any reaches the
  paper's number;
* :class:`Fit`: the rows a ``paper-fit`` setting was calibrated to, its parameters, the seeds it
  was fitted on and the candidates searched (re-run on those seeds and shown). Fitted rows say
  ``fitted`` and are never counted as agreement; every row is evaluated on seeds apart from the
  fit's.

A headline claim that several rows make together (a range "from X to Y": its two ends) is a
:class:`Joint`, judged as one: explained only when one variation explains all its rows.

Verdicts (:data:`VERDICTS`): ``agrees`` (the paper's number or range meets our 95 % interval, or
the interval reaches the side of the paper's relation), ``fitted``, ``differs-explained`` (a
declared variation moves the number to within reach of the paper's, or closes at least half the
gap: the row names it and by how much), ``differs-unexplained``, ``no-number`` (the paper states
none). Intervals: percentile bootstrap over seeds for means and gains (paired: the same seeds for
every algorithm); for a worst-of-N (best-of-N) cell, the distribution of the maximum (minimum) of
N draws from all the seeds run, so that the paper's single worst-of-N can be judged against what N
draws give.

:func:`run` expands a declaration into cells (setting × point × seed), runs them through
:func:`schedrelax.experiments.runner.execute` (local processes or Dask), keeps the finished ones
in one atomically written table (``<name>_cells.csv`` beside its ``<name>_grid.json``, so that
``resume`` redoes nothing finished and refuses a table of another grid), then evaluates the rows
and writes the report (``<name>.md``) and the side-by-side table (``<name>_side_by_side.csv``).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from schedrelax.experiments.runner import execute, write_atomic, write_csv

VERDICTS = ("agrees", "fitted", "differs-explained", "differs-unexplained", "no-number")
"""Every row's verdict is one of these."""

CONFIDENCE = 0.95
"""The level of every interval."""

BOOTSTRAP = 2000
"""Bootstrap resamples per interval."""

BOOTSTRAP_SEED = 20240601
"""The bootstrap's random seed: the same cells give the same intervals, run after run."""

HALF_GAP = 0.5
"""A variation that closes at least this share of a row's gap to the paper explains it."""

MISSING = "—"
"""How a missing number reads in the reports (always with its reason beside it)."""

GRID_FORMAT = "schedrelax-experiment-grid"
"""The ``format`` field of an experiment's grid file."""


def _frozen(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping or {}))


# ---------------------------------------------------------------------------------- the paper side

@dataclass(frozen=True)
class Paper:
    """The paper's statement for a row: its words (*text*) and, where it gives one, a number or
    range [*low*, *high*]; or a relation (*relation* ``">="`` / ``"<="``: ours must be at least /
    at most *low*). Build it with :meth:`value`, :meth:`range`, :meth:`at_least`, :meth:`at_most`
    or :meth:`words` (no number: the verdict is ``no-number``)."""

    text: str
    low: float | None = None
    high: float | None = None
    relation: str | None = None

    def __post_init__(self) -> None:
        if self.relation not in (None, ">=", "<="):
            raise ValueError(f"Paper {self.text!r}: relation must be '>=' or '<=', got {self.relation!r}")
        if (self.low is None) != (self.high is None):
            raise ValueError(f"Paper {self.text!r}: give both low and high, or neither")
        if self.low is not None and self.low > self.high:
            raise ValueError(f"Paper {self.text!r}: low {self.low} > high {self.high}")

    @classmethod
    def value(cls, x: float, text: str | None = None) -> Paper:
        return cls(text if text is not None else f"{x:g}", float(x), float(x))

    @classmethod
    def range(cls, low: float, high: float, text: str | None = None) -> Paper:
        return cls(text if text is not None else f"{low:g}-{high:g}", float(low), float(high))

    @classmethod
    def at_least(cls, x: float, text: str) -> Paper:
        return cls(text, float(x), float(x), ">=")

    @classmethod
    def at_most(cls, x: float, text: str) -> Paper:
        return cls(text, float(x), float(x), "<=")

    @classmethod
    def words(cls, text: str) -> Paper:
        return cls(text)

    @property
    def has_number(self) -> bool:
        return self.low is not None

    def meets(self, lo: float, hi: float) -> bool:
        """Whether an interval [lo, hi] of ours meets the paper's statement."""
        if self.relation == ">=":
            return hi >= self.low
        if self.relation == "<=":
            return lo <= self.low
        return lo <= self.high and hi >= self.low

    def distance(self, x: float) -> float:
        """How far a value of ours is from satisfying the statement (0 when it does)."""
        if self.relation == ">=":
            return max(0.0, self.low - x)
        if self.relation == "<=":
            return max(0.0, x - self.low)
        return max(0.0, self.low - x, x - self.high)


# ------------------------------------------------------------------------------ values and statistics

@dataclass(frozen=True)
class Metric:
    """One number per seed: column *column* of the record at *point* whose fields equal *where*
    (e.g. ``Metric("ratio", "t1-completion", (("algorithm", "fifo"),))``; build it with
    :func:`metric`)."""

    column: str
    point: str | None = None
    where: tuple[tuple[str, Any], ...] = ()

    def label(self) -> str:
        what = ", ".join(f"{k}={v}" for k, v in self.where)
        return f"{self.column}[{self.point or ''}{'; ' if self.point and what else ''}{what}]"


def metric(column: str, point: str | None = None, **where: Any) -> Metric:
    """A :class:`Metric`: *column* at *point*, of the record whose fields equal *where*."""
    return Metric(column, point, tuple(sorted(where.items())))


@dataclass(frozen=True)
class Mean:
    """The mean over seeds of a metric."""

    of: Metric
    name = "mean"

    def metrics(self) -> tuple[Metric, ...]:
        return (self.of,)

    def estimate(self, values: np.ndarray) -> float:
        return float(np.mean(values[:, 0]))

    def interval(self, values: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
        return _bootstrap(values, self.estimate_many, rng)

    @staticmethod
    def estimate_many(samples: np.ndarray) -> np.ndarray:  # (B, n, k) -> (B,)
        return samples[:, :, 0].mean(axis=1)

    def describe(self, n: int) -> str:
        return f"mean of {n}"


@dataclass(frozen=True)
class Worst:
    """The largest value of a metric over *n* instances (the paper's worst case over its *n*
    draws). Ours: the largest over our first *n* seeds; its interval: the 2.5-97.5 % range of the
    largest of *n* draws (with replacement) from all the seeds run."""

    of: Metric
    n: int
    name = "worst"
    sign = 1.0

    def metrics(self) -> tuple[Metric, ...]:
        return (self.of,)

    def estimate(self, values: np.ndarray) -> float:
        head = values[: self.n, 0]
        return float(self.sign * np.max(self.sign * head))

    def interval(self, values: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
        pool = self.sign * values[:, 0]
        draws = rng.integers(0, len(pool), size=(BOOTSTRAP, self.n))
        extremes = self.sign * pool[draws].max(axis=1)
        a = (1 - CONFIDENCE) / 2
        lo, hi = np.quantile(extremes, [a, 1 - a])
        return float(lo), float(hi)

    def describe(self, n: int) -> str:
        return f"{self.name} of {min(n, self.n)}" + (f" (distribution from {n} seeds)" if n > self.n else "")


@dataclass(frozen=True)
class Best(Worst):
    """The smallest value of a metric over *n* instances (see :class:`Worst`)."""

    name = "best"
    sign = -1.0


@dataclass(frozen=True)
class Gain:
    """How much better *ours* is than *base* (costs: smaller is better), over the same seeds.

    *form* ``"ratio"``: mean(base) / mean(ours) - 1 (the paper's "X % better" read as a ratio of
    averages); ``"reduction"``: 1 - mean(ours) / mean(base); ``"mean-ratio"``: the mean over
    seeds of base / ours, minus 1."""

    base: Metric
    ours: Metric
    form: str = "ratio"
    name = "gain"

    def __post_init__(self) -> None:
        if self.form not in ("ratio", "reduction", "mean-ratio"):
            raise ValueError(f"Gain form must be 'ratio', 'reduction' or 'mean-ratio', got {self.form!r}")

    def metrics(self) -> tuple[Metric, ...]:
        return (self.base, self.ours)

    def estimate(self, values: np.ndarray) -> float:
        return float(self.estimate_many(values[None])[0])

    def estimate_many(self, samples: np.ndarray) -> np.ndarray:
        base, ours = samples[:, :, 0], samples[:, :, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.form == "ratio":
                return base.mean(axis=1) / ours.mean(axis=1) - 1.0
            if self.form == "reduction":
                return 1.0 - ours.mean(axis=1) / base.mean(axis=1)
            return (base / ours).mean(axis=1) - 1.0

    def interval(self, values: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
        return _bootstrap(values, self.estimate_many, rng)

    def describe(self, n: int) -> str:
        return {"ratio": "ratio of means", "reduction": "reduction of the mean",
                "mean-ratio": "mean ratio"}[self.form] + f" over {n} seeds"


@dataclass(frozen=True)
class OfMeans:
    """A function *fn* of the means over seeds of several metrics (an increase mean(b) − mean(a),
    a ratio of two increases, the smallest of a figure's gains): *fn* maps an array (B, k) of B
    resamples of the k means to B values. Its interval is the paired percentile bootstrap over
    seeds; *what* names it in the report."""

    of: tuple[Metric, ...]
    fn: Callable[[np.ndarray], np.ndarray]
    what: str
    name = "of-means"

    def metrics(self) -> tuple[Metric, ...]:
        return self.of

    def estimate(self, values: np.ndarray) -> float:
        return float(self.fn(values.mean(axis=0)[None, :])[0])

    def estimate_many(self, samples: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.fn(samples.mean(axis=1))

    def interval(self, values: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
        return _bootstrap(values, self.estimate_many, rng)

    def describe(self, n: int) -> str:
        return f"{self.what} over {n} seeds"


def gain_range(pairs: Sequence[tuple[Metric, Metric]], end: str) -> OfMeans:
    """The smallest (*end* ``"min"``) or largest (``"max"``) of several gains mean(base) /
    mean(ours) − 1, one per (base, ours) pair: a paper's "varies from X to Y" over a figure's bars,
    all pairs resampled together."""
    if end not in ("min", "max"):
        raise ValueError(f"gain_range end must be 'min' or 'max', got {end!r}")
    pick = np.min if end == "min" else np.max

    def fn(means: np.ndarray) -> np.ndarray:
        return pick(means[:, 0::2] / means[:, 1::2] - 1.0, axis=1)

    return OfMeans(tuple(m for pair in pairs for m in pair), fn,
                   f"{'smallest' if end == 'min' else 'largest'} of {len(pairs)} gains (ratio of means)")


Statistic = Mean | Worst | Best | Gain | OfMeans


def _bootstrap(values: np.ndarray, many: Callable[[np.ndarray], np.ndarray],
               rng: np.random.Generator) -> tuple[float, float]:
    """The percentile bootstrap interval of a statistic over seeds (rows of *values* resampled
    together: a paired bootstrap)."""
    n = len(values)
    draws = rng.integers(0, n, size=(BOOTSTRAP, n))
    stats = many(values[draws])
    stats = stats[np.isfinite(stats)]
    if not len(stats):
        return math.nan, math.nan
    a = (1 - CONFIDENCE) / 2
    lo, hi = np.quantile(stats, [a, 1 - a])
    return float(lo), float(hi)


# ------------------------------------------------------------------------------------ the declaration

@dataclass(frozen=True)
class Row:
    """One statement of the paper: *item* (where: "Table 1", "Fig. 4(b)"), *quantity* (what),
    the *stat* that measures it on our runs in *setting*, and the *paper* 's statement. *claim*
    (non-empty) makes it a headline claim, shown first, in these words. *variations*: the declared
    variations (:class:`Variation` names) measured on it; bands of the setting apply to every row
    of it. *percent*: values are fractions shown as percentages."""

    id: str
    item: str
    quantity: str
    stat: Statistic
    paper: Paper | None
    setting: str = "main"
    claim: str = ""
    variations: tuple[str, ...] = ()
    percent: bool = False


@dataclass(frozen=True)
class Joint:
    """A headline claim that several rows make together: a paper's "from X to Y" (its two ends),
    or one range stated over several bars. *claim*: its words; *rows*: the ids of its rows.

    It is judged as one statement (:func:`judge`): ``agrees`` when every row agrees; explained
    only by **one** variation that explains every row that differs and keeps every row that
    agrees within reach of the paper's number. Two ends explained by two different values are
    not one setting of the paper's experiment, so that claim stays ``differs-unexplained``, and
    its evidence says which value explains which end."""

    id: str
    claim: str
    rows: tuple[str, ...]


@dataclass(frozen=True)
class Variation:
    """A declared change of setting *base*: parameters *params* replaced (a generator parameter
    from a to b; an algorithm name for another). *kind*: ``"setting"`` (what the paper leaves
    open or we chose) or ``"implementation"`` (ours against the paper's reading of an algorithm,
    a tie rule, a placement). *why*: the question it answers, in one line. *seeds*: how many
    evaluation seeds it runs (None: as the main setting)."""

    name: str
    base: str
    params: Mapping[str, Any]
    why: str
    kind: str = "setting"
    seeds: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", _frozen(self.params))
        if self.kind not in ("setting", "implementation"):
            raise ValueError(f"Variation {self.name!r}: kind must be 'setting' or 'implementation', got {self.kind!r}")


@dataclass(frozen=True)
class Band:
    """A parameter *param* that the paper leaves open, over its plausible *values* (each a run of
    setting *base* with it changed); *source*: the paper's sentence that bounds them. Applies to
    the rows of *rows* (empty: every row of *base*). *seeds*: evaluation seeds per value (None: as
    the main setting)."""

    param: str
    values: tuple[Any, ...]
    base: str
    source: str
    rows: tuple[str, ...] = ()
    seeds: int | None = None

    def variations(self) -> list[Variation]:
        return [Variation(band_name(self.param, v), self.base, {self.param: v},
                          f"sensitivity band: {self.param} over {_show_values(self.values)}", "setting", self.seeds)
                for v in self.values]


def band_name(param: str, value: Any) -> str:
    """The name of one value of a band, as the report prints it."""
    return f"{param}={_show(value)}"


@dataclass(frozen=True)
class Fit:
    """A calibrated setting: *setting*'s parameters *params* were chosen so that rows *targets*
    come near the paper's, using seeds *seeds* only (disjoint from the evaluation seeds). With
    *candidates* (parameter -> values), the engine re-runs that grid on the fit seeds and shows
    each candidate's distance to the targets beside the chosen one."""

    setting: str
    targets: tuple[str, ...]
    params: tuple[str, ...]
    seeds: tuple[int, ...]
    candidates: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    how: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "candidates", _frozen(self.candidates))


@dataclass(frozen=True)
class Point:
    """A point of the paper's tables or figures (a row of a table, an x value): its name, the
    cell parameters it sets, at most how many seeds it runs (None: every evaluation seed; for
    costly points whose paper number is not an average over instances), and the option it
    *needs* (e.g. a trace file: without it the point does not run and its rows are left out of
    the report, which says so)."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)
    seeds: int | None = None
    needs: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", _frozen(self.params))


@dataclass(frozen=True)
class Seeds:
    """*paper*: how many instances the paper averages over; *run*: how many evaluation seeds we
    run (at least *paper*; more makes worst-of-N intervals meaningful); *quick*: under
    ``--quick``; *start*: the first evaluation seed."""

    paper: int
    run: int
    quick: int = 2
    start: int = 0

    def __post_init__(self) -> None:
        if self.run < self.paper:
            raise ValueError(f"Seeds: run ({self.run}) must be at least the paper's count ({self.paper})")


@dataclass(frozen=True)
class Experiment:
    """A reproduction, declared. *cell* is ``"module:function"``: ``function(seed, **params) ->
    list[dict]`` (one instance, every algorithm on it: one record per algorithm or quantity, each
    a dict of plain values). *params*: the parameters of every cell; *quick*: those replaced under
    ``--quick``; *settings*: name -> parameters (``"main"`` must be one); *points*: the tables'
    and figures' points; *rows*, *variations*, *bands*, *fit*: see the module docstring.
    *compare*: a second setting whose value each row also shows (e.g. the package's defaults).
    *plots*: ``"module:function"`` taking (cells DataFrame, out_dir) and returning the files it
    wrote. *differences*: how the run differs from the paper's experiment (sizes, data), one line
    each. *options*: parameters a user may set that no setting names (e.g. a trace file).
    *quick_points*: the points ``--quick`` runs (None: all); rows of the others are left out of a
    quick report, which says how many. *tables*: ``"module:function"`` taking the cells DataFrame
    and returning markdown measured beside the rows (e.g. each online run's queue and load).
    *joints*: headline claims made of several rows, judged together (:class:`Joint`)."""

    name: str
    title: str
    paper: str
    summary: str
    cell: str
    params: Mapping[str, Any]
    seeds: Seeds
    points: tuple[Point, ...]
    rows: tuple[Row, ...]
    settings: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: {"main": {}})
    quick: Mapping[str, Any] = field(default_factory=dict)
    variations: tuple[Variation, ...] = ()
    bands: tuple[Band, ...] = ()
    fit: Fit | None = None
    compare: str | None = None
    plots: str | None = None
    differences: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    quick_points: tuple[str, ...] | None = None
    tables: str | None = None
    joints: tuple[Joint, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", _frozen(self.params))
        object.__setattr__(self, "quick", _frozen(self.quick))
        object.__setattr__(self, "settings", _frozen({k: _frozen(v) for k, v in self.settings.items()}))
        self.check()

    def all_variations(self) -> list[Variation]:
        """The declared variations and one per value of every band."""
        out = list(self.variations)
        for band in self.bands:
            out += band.variations()
        return out

    def check(self) -> None:
        """Raise ValueError naming the first inconsistency of the declaration."""
        where = f"experiment {self.name!r}"
        if "main" not in self.settings:
            raise ValueError(f"{where}: no 'main' setting")
        points = {p.name for p in self.points}
        if len(points) != len(self.points):
            raise ValueError(f"{where}: a point name is used twice")
        names = [v.name for v in self.all_variations()]
        dup = sorted({n for n in names if names.count(n) > 1} | (set(names) & set(self.settings)))
        if dup:
            raise ValueError(f"{where}: variation name {dup[0]!r} is used twice (or is a setting's name)")
        ids = [r.id for r in self.rows]
        if len(set(ids)) != len(ids):
            raise ValueError(f"{where}: a row id is used twice")
        for v in self.all_variations():
            if v.base not in self.settings:
                raise ValueError(f"{where}: variation {v.name!r} varies unknown setting {v.base!r}")
        for b in self.bands:
            unknown_rows = [r for r in b.rows if r not in ids]
            if unknown_rows:
                raise ValueError(f"{where}: band {b.param!r} names unknown row {unknown_rows[0]!r}")
        for r in self.rows:
            if r.setting not in self.settings:
                raise ValueError(f"{where}: row {r.id!r}: unknown setting {r.setting!r}")
            for m in r.stat.metrics():
                if m.point is not None and m.point not in points:
                    raise ValueError(f"{where}: row {r.id!r}: unknown point {m.point!r}")
            for name in r.variations:
                if name not in names:
                    raise ValueError(f"{where}: row {r.id!r}: unknown variation {name!r}")
        for j in self.joints:
            if j.id in ids or [k.id for k in self.joints].count(j.id) > 1:
                raise ValueError(f"{where}: joint claim id {j.id!r} is used twice (or is a row's id)")
            if len(j.rows) < 2 or len(set(j.rows)) != len(j.rows):
                raise ValueError(f"{where}: joint claim {j.id!r} must name at least two different rows")
            unknown_rows = [r for r in j.rows if r not in ids]
            if unknown_rows:
                raise ValueError(f"{where}: joint claim {j.id!r} names unknown row {unknown_rows[0]!r}")
            if not j.claim:
                raise ValueError(f"{where}: joint claim {j.id!r} has no words")
        if self.compare is not None and self.compare not in self.settings and self.compare not in names:
            raise ValueError(f"{where}: compare setting {self.compare!r} is neither a setting nor a variation")
        if self.quick_points is not None:
            unknown_points = [q for q in self.quick_points if q not in points]
            if unknown_points:
                raise ValueError(f"{where}: quick point {unknown_points[0]!r} is not a point")
        if self.fit is not None:
            if self.fit.setting not in self.settings:
                raise ValueError(f"{where}: fit of unknown setting {self.fit.setting!r}")
            unknown = [t for t in self.fit.targets if t not in ids]
            if unknown:
                raise ValueError(f"{where}: fit target {unknown[0]!r} is not a row")


# ----------------------------------------------------------------------------------------- the cells

@dataclass(frozen=True)
class Cell:
    """One unit of work: the cell function of experiment *experiment* on *seed* with *params*,
    recorded under (*setting*, *point*, *seed*)."""

    experiment: str
    function: str
    setting: str
    point: str
    seed: int
    params: tuple[tuple[str, Any], ...]

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.setting, self.point, self.seed)


def resolve(path: str) -> Any:
    """The object named ``"module:attribute"``."""
    import importlib

    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def run_cell(cell: Cell) -> dict[str, Any]:
    """Run one cell; never raises: a failed cell is returned with its one-line reason (the report
    counts it and the rows that miss its seed say so)."""
    t0 = time.perf_counter()
    try:
        records = list(resolve(cell.function)(cell.seed, **dict(cell.params)))
        status, reason = "ok", ""
    except Exception as exc:  # noqa: BLE001 - a failed cell is recorded, the run goes on
        records = []
        status, reason = "failed", f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    return {"key": cell.key, "status": status, "reason": reason, "records": records,
            "seconds": time.perf_counter() - t0}


@dataclass(frozen=True)
class Plan:
    """What a run of an experiment does: its evaluation seeds, the fit's, the parameters of each
    setting and variation, and the cells."""

    experiment: Experiment
    quick: bool
    eval_seeds: tuple[int, ...]
    setting_params: Mapping[str, Mapping[str, Any]]
    cells: tuple[Cell, ...]
    overrides: Mapping[str, Any]


def fit_setting_name(assignment: Mapping[str, Any]) -> str:
    """The name of one candidate of a fit's grid."""
    return "fit[" + ", ".join(f"{k}={_show(v)}" for k, v in assignment.items()) + "]"


def plan(exp: Experiment, *, quick: bool = False, overrides: Mapping[str, Any] | None = None,
         seeds: int | None = None) -> Plan:
    """Expand *exp* into cells: every (setting or variation) × the points its rows read × seeds.

    *overrides* replace parameters of every setting (``--set``; a key no cell takes is an error);
    *seeds*: evaluation seeds to run instead of the declaration's.
    """
    overrides = dict(overrides or {})
    known = set(exp.params) | {k for s in exp.settings.values() for k in s} | {
        k for p in exp.points for k in p.params} | set(exp.options)
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ValueError(f"reproduction {exp.name!r} has no parameter {unknown[0]!r}; its parameters: "
                         f"{', '.join(sorted(known))}")
    n = seeds if seeds is not None else (exp.seeds.quick if quick else exp.seeds.run)
    if n < 1:
        raise ValueError(f"--seeds must be >= 1, got {n}")
    eval_seeds = tuple(range(exp.seeds.start, exp.seeds.start + n))
    if exp.fit is not None:
        clash = sorted(set(eval_seeds) & set(exp.fit.seeds))
        if clash:
            raise ValueError(f"reproduction {exp.name!r}: evaluation seed {clash[0]} was used by the fit of "
                             f"{exp.fit.setting!r}: rows must be evaluated on seeds apart from the fit's")
    base = {**exp.params, **(exp.quick if quick else {})}
    setting_params: dict[str, dict[str, Any]] = {}
    for name, params in exp.settings.items():
        setting_params[name] = {**base, **params, **overrides}
    setting_seeds: dict[str, tuple[int, ...]] = {name: eval_seeds for name in exp.settings}
    for v in exp.all_variations():
        setting_params[v.name] = {**setting_params[v.base], **v.params}
        count = len(eval_seeds) if v.seeds is None or quick or seeds is not None else min(v.seeds, len(eval_seeds))
        setting_seeds[v.name] = eval_seeds[:count]
    fit_settings: list[str] = []
    if exp.fit is not None:
        fit_seeds = tuple(exp.fit.seeds)[: len(eval_seeds) if quick else None]
        for assignment in _grid(exp.fit.candidates):
            name = fit_setting_name(assignment)
            setting_params[name] = {**setting_params[exp.fit.setting], **assignment}
            setting_seeds[name] = fit_seeds
            fit_settings.append(name)
        # the chosen values themselves on the fit seeds: what the fit saw
        setting_params["fit"] = dict(setting_params[exp.fit.setting])
        setting_seeds["fit"] = fit_seeds
        fit_settings.append("fit")
    needed = _points_needed(exp, fit_settings, quick, setting_params["main"])
    points = {p.name: p for p in exp.points}
    cells = []
    for setting, params in setting_params.items():
        for point in needed.get(setting, ()):
            merged = {**params, **points[point].params} if point in points else dict(params)
            limit = points[point].seeds if point in points and not quick and seeds is None else None
            for s in setting_seeds[setting][:limit]:
                cells.append(Cell(exp.name, exp.cell, setting, point, s, _canonical(merged)))
    return Plan(exp, quick, eval_seeds, _frozen(setting_params), tuple(cells), _frozen(overrides))


def points_run(exp: Experiment, quick: bool, params: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    """The points a run runs: under ``--quick`` the quick points; without the option a point
    *needs* (a parameter of the main setting that is unset or empty), not that point."""
    params = exp.params if params is None else params
    out = []
    for p in exp.points:
        if quick and exp.quick_points is not None and p.name not in exp.quick_points:
            continue
        if p.needs is not None and params.get(p.needs) in (None, ""):
            continue
        out.append(p.name)
    return tuple(out)


def rows_run(exp: Experiment, quick: bool, params: Mapping[str, Any] | None = None) -> tuple[Row, ...]:
    """The rows a run evaluates: those that read only points it runs (:func:`points_run`)."""
    keep = set(points_run(exp, quick, params))
    return tuple(r for r in exp.rows if all(m.point is None or m.point in keep for m in r.stat.metrics()))


def _points_needed(exp: Experiment, fit_settings: Sequence[str], quick: bool = False,
                   params: Mapping[str, Any] | None = None) -> dict[str, list[str]]:
    """setting -> the points its rows (and the variations and fits of those rows) read, in the
    declaration's order."""
    order = [p.name for p in exp.points] or [""]
    need: dict[str, set[str]] = {}
    rows = rows_run(exp, quick, params)

    def add(setting: str, row: Row) -> None:
        for m in row.stat.metrics():
            need.setdefault(setting, set()).update([m.point] if m.point is not None else order)

    for row in rows:
        add(row.setting, row)
        if exp.compare is not None:
            add(exp.compare, row)
        for name in row.variations:
            add(name, row)
        for band in exp.bands:
            if band.base == row.setting and (not band.rows or row.id in band.rows):
                for v in band.variations():
                    add(v.name, row)
    if exp.fit is not None:
        for row in rows:
            if row.id in exp.fit.targets:
                for name in fit_settings:
                    add(name, row)
    return {s: [p for p in order if p in pts] for s, pts in need.items()}


def _grid(candidates: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    import itertools

    keys = list(candidates)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(candidates[k] for k in keys))] if keys else []


def _canonical(params: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((k, _hashable(v)) for k, v in params.items()))


def _hashable(v: Any) -> Any:
    if isinstance(v, list | tuple):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, Mapping):
        return tuple(sorted((k, _hashable(x)) for k, x in v.items()))
    return v


# ----------------------------------------------------------------------------------- running, storing

KEY = ("setting", "point", "seed")
"""The columns that identify a cell in the cells table."""

STATUS_COLUMNS = ("cell_status", "cell_reason", "cell_seconds")


def grid_identity(p: Plan) -> dict[str, Any]:
    """What defines the cells of a run (the grid file): the experiment, the schedrelax version,
    and every cell's key and parameters (hashed). A resume with another grid is refused."""
    from schedrelax import __version__

    digest = hashlib.sha256(json.dumps([[c.setting, c.point, c.seed, c.function, _numbers_alike(c.params)]
                                        for c in p.cells], sort_keys=True, default=str).encode()).hexdigest()
    return {"format": GRID_FORMAT, "experiment": p.experiment.name, "schedrelax": __version__,
            "quick": p.quick, "overrides": {k: _show(v) for k, v in sorted(p.overrides.items())},
            "seeds": list(p.eval_seeds), "cells": len(p.cells), "cells_sha256": digest}


def _numbers_alike(v: Any) -> Any:
    """*v* with every number as a float, so that 12 and 12.0 (``--set`` and a TOML file) name the
    same grid."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int | float | np.integer | np.floating):
        return float(v)
    if isinstance(v, tuple | list):
        return [_numbers_alike(x) for x in v]
    return repr(v)


def cells_file(out_dir: Path, name: str) -> Path:
    return Path(out_dir) / f"{name}_cells.csv"


def _grid_file(out_dir: Path, name: str) -> Path:
    return Path(out_dir) / f"{name}_grid.json"


def _check_grid(out_dir: Path, p: Plan) -> None:
    path = _grid_file(out_dir, p.experiment.name)
    how = "run it into another --out, or drop --resume to start afresh"
    if not path.exists():
        raise ValueError(f"cannot resume {out_dir}: no grid file {path.name} (nothing shows which grid made its "
                         f"cells); {how}")
    try:
        recorded = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot resume {out_dir}: its grid file {path} cannot be read ({exc}); {how}") from None
    mine = grid_identity(p)
    diffs = [f"{k}: table {json.dumps(recorded.get(k))}, this run {json.dumps(mine[k])}"
             for k in mine if recorded.get(k) != mine[k]]
    if diffs:
        raise ValueError(f"cannot resume {out_dir}: its cells were made by another grid: {'; '.join(diffs)}; {how}")


def _table(outcomes: Iterable[dict[str, Any]]):
    import pandas as pd

    rows = []
    for o in outcomes:
        setting, point, seed = o["key"]
        head = {"setting": setting, "point": point, "seed": int(seed), "cell_status": o["status"],
                "cell_reason": o["reason"], "cell_seconds": float(o["seconds"])}
        if o["records"]:
            rows += [{**head, **{k: v for k, v in rec.items() if k not in head}} for rec in o["records"]]
        else:
            rows.append(head)
    return pd.DataFrame(rows)


def _outcomes_of(table) -> list[dict[str, Any]]:
    """The finished cells of a table read back (the inverse of :func:`_table`)."""
    out = []
    if table is None or not len(table):
        return out
    extra = [c for c in table.columns if c not in (*KEY, *STATUS_COLUMNS)]
    for key, group in table.groupby(list(KEY), sort=False):
        first = group.iloc[0]
        records = []
        if first["cell_status"] == "ok":
            for rec in group[extra].to_dict("records"):
                records.append({k: v for k, v in rec.items() if not _isnan(v)})
        out.append({"key": (str(key[0]), str(key[1]), int(key[2])), "status": str(first["cell_status"]),
                    "reason": "" if _isnan(first["cell_reason"]) else str(first["cell_reason"]),
                    "records": records, "seconds": float(first["cell_seconds"])})
    return out


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def _read_cells(path: Path):
    import pandas as pd

    # a float read back must be the one written, so that a resumed run's statistics are the
    # uninterrupted run's to the last bit: pandas before 3 parses off by an ulp unless asked
    # (round_trip), pandas 3 parses exactly and deprecates the option
    exact = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
    table = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"point": str, "setting": str}, **exact)
    table["point"] = table["point"].fillna("")
    return table


def _write_cells(table, path: Path) -> Path:
    ordered = table[[*KEY, *STATUS_COLUMNS, *[c for c in table.columns if c not in (*KEY, *STATUS_COLUMNS)]]]
    ordered = ordered.sort_values(list(KEY), kind="stable")
    return write_atomic(path, lambda tmp: ordered.to_csv(tmp, index=False))


WRITE_EVERY_SECONDS = 1.0
"""While cells finish, the table is rewritten at most this often (and at the end): a SIGKILL
loses at most the cells of the last second."""


def run_cells(p: Plan, out_dir: Path, *, workers: int = 1, dask: Any = None, resume: bool = False,
              progress: bool | None = None):
    """Run the cells of plan *p* not already in ``out_dir`` (with *resume*) and return the whole
    cells table; it is written atomically as cells finish."""
    import pandas as pd

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = cells_file(out_dir, p.experiment.name)
    previous: list[dict[str, Any]] = []
    if resume and path.exists():
        _check_grid(out_dir, p)
        previous = _outcomes_of(_read_cells(path))
    elif path.exists() or _grid_file(out_dir, p.experiment.name).exists():
        path.unlink(missing_ok=True)  # the old table goes before the new grid file names it
    write_atomic(_grid_file(out_dir, p.experiment.name),
                 lambda tmp: tmp.write_text(json.dumps(grid_identity(p), indent=1) + "\n"))
    wanted = {c.key for c in p.cells}
    done = {tuple(o["key"]) for o in previous if tuple(o["key"]) in wanted}
    outcomes = [o for o in previous if tuple(o["key"]) in wanted]
    todo = [c for c in p.cells if c.key not in done]
    last = time.monotonic()
    if not path.exists():
        _write_cells(_table(outcomes) if outcomes else pd.DataFrame(columns=[*KEY, *STATUS_COLUMNS]), path)
    for outcome in execute(run_cell, todo, workers=workers, dask=dask, progress=progress,
                           desc=p.experiment.name, unit="cell"):
        outcomes.append(outcome)
        if time.monotonic() - last >= WRITE_EVERY_SECONDS:
            _write_cells(_table(outcomes), path)
            last = time.monotonic()
    table = _table(outcomes) if outcomes else pd.DataFrame(columns=[*KEY, *STATUS_COLUMNS])
    _write_cells(table, path)
    # read back: the evaluation sees exactly what a resumed run would (types as the file gives them)
    return _read_cells(path)


# --------------------------------------------------------------------------------------- evaluation

@dataclass(frozen=True)
class Estimate:
    """A statistic on the runs of one setting: its value, 95 % interval and how many seeds."""

    value: float
    low: float
    high: float
    n: int
    missing: int = 0

    @property
    def ok(self) -> bool:
        return self.n > 0 and math.isfinite(self.value)


NO_ESTIMATE = Estimate(math.nan, math.nan, math.nan, 0)


@dataclass(frozen=True)
class Effect:
    """A variation measured on a row: its name, kind, why, the row's estimate under it, the share
    of the main estimate's distance to the paper's number it closes (negative: it moves away;
    None: no distance to close), and whether its interval meets the paper's statement."""

    variation: str
    kind: str
    why: str
    estimate: Estimate
    share: float | None
    reaches: bool = False

    @property
    def explains(self) -> bool:
        """It closes at least :data:`HALF_GAP` of the gap, or moves toward the paper's number
        and its interval meets it."""
        return self.share is not None and (self.share >= HALF_GAP or (self.reaches and self.share > 0))


@dataclass(frozen=True)
class RowResult:
    """A row evaluated: estimate, verdict, the variation behind ``differs-explained``, every
    measured effect, the band's range, the compare setting's estimate, and the fit seeds' one."""

    row: Row
    estimate: Estimate
    verdict: str
    ablation: str
    effects: tuple[Effect, ...]
    band: tuple[float, float] | None
    band_reaches: tuple[str, ...]
    compare: Estimate | None
    fit_estimate: Estimate | None

    @property
    def note(self) -> str:
        """The measured evidence, generated from numbers (never free text): every effect."""
        return self.evidence()

    def evidence(self, most: int | None = None) -> str:
        """The measured evidence: the fit's seeds against the held-apart ones, the variation
        behind the verdict first, then the others by the share of the gap they close (*most*
        of them; None: all), then the band's range."""
        r = self.row
        parts = []
        if self.verdict == "fitted" and self.fit_estimate is not None and self.fit_estimate.ok:
            parts.append(f"fitted on seeds apart from these: {fmt(self.fit_estimate.value, r.percent)} on the fit's "
                         f"seeds, {fmt(self.estimate.value, r.percent)} on held-apart seeds")
        chosen = [e for e in self.effects if e.variation == self.ablation]
        others = sorted((e for e in self.effects if e.variation != self.ablation),
                        key=lambda e: -(e.share if e.share is not None else -math.inf))
        shown = chosen + others
        if most is not None:
            shown = shown[:most]
        for e in shown:
            if not e.estimate.ok:
                parts.append(f"{e.variation}: {MISSING} (no run)")
                continue
            share = "" if e.share is None else (f", closes {e.share:.0%} of the gap" if e.share >= 0
                                                 else f", widens the gap by {-e.share:.0%}")
            reach = ", its interval meets the paper's" if e.reaches and e.share is not None else ""
            parts.append(f"{e.variation}: {fmt_ci(self.estimate, r.percent)} → {fmt_ci(e.estimate, r.percent)}"
                         f"{share}{reach}")
        if most is not None and len(self.effects) > len(shown):
            parts.append(f"{len(self.effects) - len(shown)} more in the side-by-side table")
        if self.band is not None:
            if self.verdict in ("agrees", "fitted", "no-number"):
                reach = "nothing to explain"
            else:
                reach = (f"explained at {', '.join(self.band_reaches)}" if self.band_reaches
                         else "no plausible value explains the gap")
            parts.append(f"band {fmt(self.band[0], r.percent)} to {fmt(self.band[1], r.percent)}: {reach}")
        return "; ".join(parts)


def fmt(x: float | None, percent: bool = False) -> str:
    if x is None or not math.isfinite(x):
        return MISSING
    return f"{x:.1%}" if percent else f"{x:.3g}"


def fmt_ci(e: Estimate, percent: bool = False) -> str:
    if not e.ok:
        return MISSING
    if not math.isfinite(e.low):
        return f"{fmt(e.value, percent)} (n = {e.n}, no interval)"
    return f"{fmt(e.value, percent)} [{fmt(e.low, percent)}, {fmt(e.high, percent)}]"


def _values(cells, setting: str, metrics: Sequence[Metric]) -> tuple[np.ndarray, int]:
    """Per seed (rows, in seed order) the value of each metric (columns), for the seeds where
    every metric is a finite number; and how many of the seeds its points ran were left out."""
    import pandas as pd

    t = cells[(cells["setting"] == setting) & (cells["cell_status"] == "ok")]
    columns = []
    for m in metrics:
        sel = t
        if m.point is not None:
            sel = sel[sel["point"] == m.point]
        for k, v in m.where:
            if k not in sel.columns:
                sel = sel.iloc[0:0]
                break
            sel = sel[sel[k].astype(str) == str(v)]
        if m.column not in sel.columns:
            sel = sel.iloc[0:0].assign(**{m.column: []})
        if sel["seed"].duplicated().any():
            seed = int(sel.loc[sel["seed"].duplicated(), "seed"].iloc[0])
            raise ValueError(f"metric {m.label()} matches more than one record of seed {seed} in setting {setting!r}: "
                             "the row's filter must name one record")
        columns.append(pd.to_numeric(sel.set_index("seed")[m.column], errors="coerce").rename(m.label()))
    # the seeds the metrics' points ran (a point may run fewer seeds than the setting's others:
    # those are not "left out")
    points = {m.point for m in metrics}
    ran = t if None in points else t[t["point"].isin(points)]
    all_seeds = sorted(set(ran["seed"])) if len(ran) else []
    if not all_seeds:  # nothing of these points ran in this setting (e.g. a fit's re-run under --quick)
        return np.empty((0, len(metrics))), 0
    frame = pd.concat(columns, axis=1) if columns else pd.DataFrame()
    frame = frame.reindex(all_seeds)
    finite = frame.apply(lambda col: np.isfinite(col.to_numpy(dtype=float)))
    keep = finite.all(axis=1) if len(frame.columns) else frame.index.to_series().astype(bool)
    values = frame[keep].to_numpy(dtype=float)
    return values, int((~keep).sum())


def estimate(cells, setting: str, stat: Statistic, rng: np.random.Generator) -> Estimate:
    """*stat* on the cells of *setting*, with its 95 % interval."""
    values, missing = _values(cells, setting, stat.metrics())
    if not len(values):
        return Estimate(math.nan, math.nan, math.nan, 0, missing)
    value = stat.estimate(values)
    if len(values) < 2:
        return Estimate(value, math.nan, math.nan, len(values), missing)
    lo, hi = stat.interval(values, rng)
    # the interval always holds the estimate (a percentile bootstrap of a skewed statistic on few
    # seeds can leave it just outside)
    return Estimate(value, min(lo, value), max(hi, value), len(values), missing)


def evaluate(exp: Experiment, cells, quick: bool = False, params: Mapping[str, Any] | None = None) -> list[RowResult]:
    """Every row of *exp* that the run ran (:func:`rows_run`; *params*: the main setting's) on
    the cells table: estimates, intervals, verdicts, effects, bands."""
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    variations = {v.name: v for v in exp.all_variations()}
    present = set(cells["setting"]) if len(cells) else set()
    out = []
    for row in rows_run(exp, quick, params):
        est = estimate(cells, row.setting, row.stat, rng)
        names = list(row.variations)
        band_names: list[str] = []
        for band in exp.bands:
            if band.base == row.setting and (not band.rows or row.id in band.rows):
                band_names += [v.name for v in band.variations()]
        effects = []
        paper = row.paper
        gap = paper.distance(est.value) if paper is not None and paper.has_number and est.ok else None
        for name in names + band_names:
            v = variations[name]
            e = estimate(cells, name, row.stat, rng) if name in present else NO_ESTIMATE
            share, reaches = None, False
            if gap is not None and e.ok:
                lo, hi = (e.low, e.high) if math.isfinite(e.low) else (e.value, e.value)
                reaches = paper.meets(lo, hi)
                if gap > 0:
                    share = (gap - paper.distance(e.value)) / gap
            effects.append(Effect(name, v.kind, v.why, e, share, reaches))
        band = reaches = None
        if band_names:
            vals = [e.estimate for e in effects if e.variation in band_names and e.estimate.ok]
            if vals:
                band = (min(min(e.value for e in vals), est.value if est.ok else math.inf),
                        max(max(e.value for e in vals), est.value if est.ok else -math.inf))
            reaches = tuple(e.variation for e in effects if e.variation in band_names and e.explains)
        compare = estimate(cells, exp.compare, row.stat, rng) if exp.compare and exp.compare in present else None
        fit_est = None
        fitted = exp.fit is not None and row.setting == exp.fit.setting and row.id in exp.fit.targets
        if fitted and "fit" in present:
            fit_est = estimate(cells, "fit", row.stat, rng)
        verdict, ablation = _verdict(row, est, effects, fitted)
        out.append(RowResult(row, est, verdict, ablation, tuple(effects), band, tuple(reaches or ()), compare, fit_est))
    return out


def _verdict(row: Row, est: Estimate, effects: Sequence[Effect], fitted: bool) -> tuple[str, str]:
    if fitted:
        return "fitted", ""
    if row.paper is None or not row.paper.has_number:
        return "no-number", ""
    if not est.ok:
        return "differs-unexplained", ""
    lo, hi = (est.low, est.high) if math.isfinite(est.low) else (est.value, est.value)
    if row.paper.meets(lo, hi):
        return "agrees", ""
    best = max((e for e in effects if e.explains), key=lambda e: (e.reaches, e.share), default=None)
    if best is not None:
        return "differs-explained", best.variation
    return "differs-unexplained", ""


@dataclass(frozen=True)
class Headline:
    """A headline claim as judged, one line of the reports' claims tables: a row with a claim, or
    a :class:`Joint` of rows (*rows*: their ids). *ours*: the estimates with their intervals."""

    id: str
    claim: str
    paper: str
    ours: str
    verdict: str
    ablation: str
    evidence: str
    rows: tuple[str, ...] = ()


def _row_headline(r: RowResult) -> Headline:
    return Headline(r.row.id, r.row.claim, r.row.paper.text if r.row.paper else MISSING,
                    fmt_ci(r.estimate, r.row.percent), r.verdict, r.ablation, r.evidence(4), (r.row.id,))


def judge(joint: Joint, members: Sequence[RowResult]) -> Headline:
    """The verdict of a claim several rows make together (see :class:`Joint`): every row judged
    alone first; the claim agrees when each judged row does, and is explained only by a variation
    measured on every judged row that explains each one that differs and reaches the paper's
    number on each one that agrees. Fitted and no-number rows are not judged (all fitted: the
    claim is ``fitted``)."""
    paper = " · ".join(m.row.paper.text if m.row.paper else MISSING for m in members)
    ours = " · ".join(fmt_ci(m.estimate, m.row.percent) for m in members)
    ids = tuple(m.row.id for m in members)

    def done(verdict: str, ablation: str, evidence: str) -> Headline:
        return Headline(joint.id, joint.claim, paper, ours, verdict, ablation, evidence, ids)

    judged = [m for m in members if m.verdict not in ("fitted", "no-number")]
    aside = [f"{m.row.id}: {'fitted' if m.verdict == 'fitted' else 'no number'}" for m in members if m not in judged]
    note = f" ({', '.join(aside)}, not judged)" if aside and judged else ""
    if not judged:
        return done("fitted" if any(m.verdict == "fitted" for m in members) else "no-number", "",
                    "; ".join(m.evidence(1) for m in members if m.evidence(1)))
    if all(m.verdict == "agrees" for m in judged):
        return done("agrees", "", f"every row agrees{note}")
    differ = [m for m in judged if m.verdict != "agrees"]
    effects = [{e.variation: e for e in m.effects} for m in judged]
    common = set(effects[0]).intersection(*effects[1:]) if all(m.estimate.ok for m in judged) else set()
    ok = []
    for name in common:
        per = [fx[name] for fx in effects]
        if all((m.verdict == "agrees" and e.reaches) or (m.verdict != "agrees" and e.explains)
               for m, e in zip(judged, per)):
            ok.append((sum(e.reaches for e in per), min(e.share if e.share is not None else 1.0 for e in per), name))
    if ok:
        _, _, name = max(ok)
        moved = "; ".join(f"{m.row.id} {fmt_ci(m.estimate, m.row.percent)} → "
                          f"{fmt_ci(fx[name].estimate, m.row.percent)}" for m, fx in zip(judged, effects))
        return done("differs-explained", name, f"{name} explains every row: {moved}{note}")
    parts = []
    for m in differ:
        explaining = [e.variation for e in sorted(m.effects, key=lambda e: -(e.share or 0.0)) if e.explains]
        parts.append(f"{m.row.id} ({fmt_ci(m.estimate, m.row.percent)}): "
                     + (f"explained by {', '.join(explaining[:3])}" + (f" and {len(explaining) - 3} more"
                                                                       if len(explaining) > 3 else "")
                        if explaining else "no declared variation explains it"))
    single = ("no single variation explains every row that differs and keeps the others within reach"
              if any(m.verdict == "differs-explained" for m in differ) else "no declared variation explains it")
    return done("differs-unexplained", "", f"{'; '.join(parts)}; {single}{note}")


def headlines(exp: Experiment, results: Sequence[RowResult]) -> list[Headline]:
    """The headline claims of a run, in the order of the rows: each joint claim at its first row
    (judged on the rows the run evaluated, and saying which it did not), and every other row with
    a claim."""
    by_id = {r.row.id: r for r in results}
    at: dict[str, list[Joint]] = {}
    members: set[str] = set()
    for j in exp.joints:
        ran = [i for i in j.rows if i in by_id]
        if ran:
            at.setdefault(ran[0], []).append(j)
            members |= set(ran)
    out = []
    for r in results:
        for j in at.get(r.row.id, ()):
            h = judge(j, [by_id[i] for i in j.rows if i in by_id])
            left = [i for i in j.rows if i not in by_id]
            if left:  # e.g. --quick runs some of its points: said, never passed off as the whole claim
                h = replace(h, evidence=f"{h.evidence}; judged on {', '.join(h.rows)} only: "
                                        f"{', '.join(left)} not in this run")
            out.append(h)
        if r.row.claim and r.row.id not in members:
            out.append(_row_headline(r))
    return out


def fit_table(exp: Experiment, cells) -> list[dict[str, Any]]:
    """Per candidate of the fit's grid (and the chosen values, ``fit``): the targets' estimates on
    the fit seeds and the summed squared relative distance to the paper's numbers."""
    if exp.fit is None:
        return []
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    rows = {r.id: r for r in exp.rows}
    present = set(cells["setting"]) if len(cells) else set()
    out = []
    names = [fit_setting_name(a) for a in _grid(exp.fit.candidates)] + ["fit"]
    if any(t not in rows for t in exp.fit.targets):
        return out
    for name in names:
        if name not in present:
            continue
        values, loss = {}, 0.0
        for t in exp.fit.targets:
            r = rows[t]
            e = estimate(cells, name, r.stat, rng)
            values[t] = e.value
            if r.paper is not None and r.paper.has_number and e.ok:
                mid = (r.paper.low + r.paper.high) / 2
                loss += (r.paper.distance(e.value) / (abs(mid) if mid else 1.0)) ** 2
            else:
                loss = math.inf
        out.append({"candidate": "chosen" if name == "fit" else name, "loss": loss, **values})
    return out


# ------------------------------------------------------------------------------------------ the report

SIDE_BY_SIDE_FIELDS = ("id", "item", "quantity", "setting", "statistic", "paper", "paper_low", "paper_high",
                       "relation", "ours", "ci_low", "ci_high", "n", "verdict", "ablation", "evidence", "compare",
                       "compare_low", "compare_high", "gap", "percent", "claim", "joint", "joint_verdict")


def side_by_side_records(results: Sequence[RowResult], joint: Sequence[Headline] = ()) -> list[dict[str, Any]]:
    """The rows of ``<name>_side_by_side.csv``; *joint*: the judged claims of several rows, whose id
    and verdict go beside each of their rows."""
    rows = {r.row.id for r in results}
    of = {i: h for h in joint if h.id not in rows for i in h.rows}
    out = []
    for r in results:
        row, e = r.row, r.estimate
        p = row.paper
        gap = p.distance(e.value) if p is not None and p.has_number and e.ok else None
        out.append({
            "id": row.id, "item": row.item, "quantity": row.quantity, "setting": row.setting,
            "statistic": _described(r), "paper": p.text if p is not None else "",
            "paper_low": p.low if p is not None else None, "paper_high": p.high if p is not None else None,
            "relation": (p.relation or "") if p is not None else "", "ours": e.value if e.ok else None,
            "ci_low": e.low if e.ok and math.isfinite(e.low) else None,
            "ci_high": e.high if e.ok and math.isfinite(e.high) else None, "n": e.n, "verdict": r.verdict,
            "ablation": r.ablation, "evidence": r.note,
            "compare": r.compare.value if r.compare is not None and r.compare.ok else None,
            "compare_low": r.compare.low if r.compare is not None and r.compare.ok else None,
            "compare_high": r.compare.high if r.compare is not None and r.compare.ok else None,
            "gap": gap, "percent": row.percent, "claim": row.claim,
            "joint": of[row.id].id if row.id in of else "", "joint_verdict": of[row.id].verdict if row.id in of else ""})
    return out


def _described(r: RowResult) -> str:
    """The row's statistic in words, with the seeds left out (a metric not a finite number there,
    e.g. a ratio over a lower bound of 0)."""
    text = r.row.stat.describe(r.estimate.n)
    return text + (f", {r.estimate.missing} seed(s) left out" if r.estimate.missing else "")


def verdict_counts(results: Sequence[RowResult]) -> dict[str, int]:
    counts = {v: 0 for v in VERDICTS}
    for r in results:
        counts[r.verdict] += 1
    return counts


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def report_markdown(exp: Experiment, p: Plan, cells, results: Sequence[RowResult], fits: Sequence[dict],
                    plots: Sequence[Path] = (), tables: str = "") -> str:
    """The report of one experiment: its headline claims first, the verdict counts, every row, the
    variations and bands measured, the fit, the cells that failed, the figures."""
    counts = verdict_counts(results)
    failed = cells[cells["cell_status"] != "ok"].drop_duplicates(list(KEY)) if len(cells) else cells
    n_cells = len(cells.drop_duplicates(list(KEY))) if len(cells) else 0
    scale = "Quick (CI-sized) run, `--quick`" if p.quick else "Paper-scale run"
    seeds = f"{len(p.eval_seeds)} evaluation seeds ({p.eval_seeds[0]}-{p.eval_seeds[-1]})"
    lines = [f"# {exp.title}", "", f"{exp.summary}", "",
             f"{scale}: {seeds}; the paper averages over {exp.seeds.paper}. {n_cells} cells "
             f"({len(failed)} failed). Every schedule behind these numbers passed `verify`. Intervals: "
             f"{CONFIDENCE:.0%}, bootstrap over seeds ({BOOTSTRAP} resamples; worst/best-of-N: the extreme of N "
             "draws from all seeds run)."]
    if len(results) < len(exp.rows):
        ran = set(points_run(exp, p.quick, p.setting_params["main"]))
        skipped = [q for q in exp.points if q.name not in ran]
        why = [f"`{q.name}` ({'not a --quick point' if p.quick and exp.quick_points is not None and q.name not in exp.quick_points else f'needs --set {q.needs}=...'})"
               for q in skipped]
        lines += ["", f"This run evaluates {len(results)} of the {len(exp.rows)} statements; points not run: "
                  f"{', '.join(why)}."]
    if p.overrides:
        lines += ["", "Parameters set for this run (`--set`): "
                  + ", ".join(f"`{k}={_show(v)}`" for k, v in p.overrides.items()) + "."]
    if exp.differences:
        lines += ["", "How this run differs from the paper's experiment:", ""]
        lines += [f"- {d}" for d in exp.differences]
    claims = headlines(exp, results)
    lines += ["", "## Headline claims", ""]
    if claims:
        lines += ["| claim | paper | ours [95 % CI] | verdict | measured evidence |", "|---|---|---|---|---|"]
        lines += [f"| {_cell(h.claim)} | {_cell(h.paper)} | {_cell(h.ours)} | **{h.verdict}**"
                  f"{' (' + h.ablation + ')' if h.ablation else ''} | {_cell(h.evidence) or '-'} |" for h in claims]
        if exp.joints:
            lines += ["", "A claim over several rows (\"from X to Y\": its ends; one range over several bars) is "
                      "judged as one: explained only when one variation explains every row of it."]
    elif exp.joints or any(r.claim for r in exp.rows):
        lines += ["This run evaluates none of the headline claims: their rows read points it did not run (see above)."]
    else:
        lines += ["The paper's statements below have no headline claim marked."]
    lines += ["", "## Verdicts", "", "| " + " | ".join(VERDICTS) + " |", "|" + "---:|" * len(VERDICTS),
              "| " + " | ".join(str(counts[v]) for v in VERDICTS) + " |", "",
              "## Every statement of the paper", ""]
    comp = f" | {exp.compare} setting" if exp.compare else ""
    lines += [f"| item | quantity | setting | statistic | paper | ours [95 % CI]{comp} | verdict | evidence |",
              "|---|---|---|---|---|---|" + ("---|" if exp.compare else "") + "---|---|"]
    for r in results:
        c = f" | {fmt_ci(r.compare, r.row.percent) if r.compare is not None else MISSING}" if exp.compare else ""
        lines.append(f"| {_cell(r.row.item)} | {_cell(r.row.quantity)} | {r.row.setting} | "
                     f"{_described(r)} | {_cell(r.row.paper.text if r.row.paper else MISSING)} | "
                     f"{fmt_ci(r.estimate, r.row.percent)}{c} | {r.verdict}"
                     f"{' (' + r.ablation + ')' if r.ablation else ''} | {_cell(r.evidence(2)) or '-'} |")
    variations = exp.variations
    if variations:
        lines += ["", "## Variations measured beside the main runs", "",
                  "Each is one declared change, run on the same seeds; its effect on every row it bears on is in the "
                  "rows' evidence.", "", "| variation | kind | varies | change | why |", "|---|---|---|---|---|"]
        lines += [f"| {v.name} | {v.kind} | {v.base} | "
                  f"{_cell(', '.join(f'{k}={_show(x)}' for k, x in v.params.items()))} | {_cell(v.why)} |"
                  for v in variations]
        impl = [v for v in variations if v.kind == "implementation"]
        if impl:
            lines += ["", "Implementation choices examined (ours against the paper's reading): "
                      + ", ".join(v.name for v in impl) + "."]
    if exp.bands:
        lines += ["", "## Sensitivity bands: what the paper leaves open", "",
                  "| parameter | values | setting | the paper's words | rows whose band reaches the paper's |",
                  "|---|---|---|---|---|"]
        for b in exp.bands:
            names = {v.name for v in b.variations()}
            reached = [r.row.id for r in results if set(r.band_reaches) & names]
            lines.append(f"| {b.param} | {_cell(_show_values(b.values))} | {b.base} | {_cell(b.source)} | "
                         f"{len(reached)}: {', '.join(reached) or 'none'} |")
        lines += ["", "Rows whose gap each value explains (one value must explain them all for the band to "
                  "name a setting of the paper's experiment):", "", "| value | rows it explains | rows it moves away "
                  "from the paper's |", "|---|---:|---:|"]
        for b in exp.bands:
            for v in b.variations():
                effects = [e for r in results for e in r.effects if e.variation == v.name]
                lines.append(f"| {v.name} | {sum(e.explains for e in effects)} | "
                             f"{sum(e.share is not None and e.share < 0 for e in effects)} |")
    if exp.fit is not None:
        f = exp.fit
        lines += ["", "## The fit", "",
                  f"Setting `{f.setting}` was fitted ({_cell(f.how) or 'by hand'}) on parameters "
                  f"{', '.join(f'`{x}`' for x in f.params)} to rows {', '.join(f'`{t}`' for t in f.targets)}, "
                  f"using seeds {_seed_span(f.seeds)} only; every row is evaluated on the evaluation seeds above, "
                  "and the fitted rows say `fitted`, never `agrees`."]
        if fits:
            targets = list(f.targets)
            lines += ["", "Re-run on the fit seeds (distance: Σ of squared relative gaps to the paper's numbers):", "",
                      "| candidate | " + " | ".join(targets) + " | distance |", "|---" * (len(targets) + 2) + "|"]
            best = min(x["loss"] for x in fits)
            for x in fits:
                mark = " (smallest)" if x["loss"] == best else ""
                lines.append(f"| {_cell(x['candidate'])} | " + " | ".join(fmt(x.get(t)) for t in targets)
                             + f" | {fmt(x['loss'])}{mark} |")
    if tables:
        lines += ["", "## Measured beside the statements", "", tables.strip()]
    if len(failed):
        lines += ["", "## Cells that failed", "", "| setting | point | seed | reason |", "|---|---|---|---|"]
        lines += [f"| {r.setting} | {r.point} | {r.seed} | {_cell(r.cell_reason)} |" for r in failed.itertuples()]
    if plots:
        lines += ["", "## Figures", ""] + [f"![{q.stem}]({q.name})" for q in plots]
    lines += ["", f"Raw cells: `{cells_file(Path('.'), exp.name).name}`; the side-by-side table: "
              f"`{exp.name}_side_by_side.csv`."]
    return "\n".join(lines) + "\n"


def _seed_span(seeds: Sequence[int]) -> str:
    s = sorted(seeds)
    return f"{s[0]}-{s[-1]}" if s == list(range(s[0], s[-1] + 1)) and len(s) > 1 else ", ".join(map(str, s))


def _show(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, tuple | list):
        return "(" + ", ".join(_show(x) for x in v) + ")"
    return str(v)


def _show_values(values: Sequence[Any]) -> str:
    return ", ".join(_show(v) for v in values)


@dataclass(frozen=True)
class Outcome:
    """What :func:`run` wrote and found."""

    experiment: Experiment
    report: Path
    side_by_side: Path
    cells: Path
    results: tuple[RowResult, ...]
    seconds: float
    failed_cells: int
    headlines: tuple[Headline, ...] = ()

    @property
    def counts(self) -> dict[str, int]:
        return verdict_counts(self.results)


def run(exp: Experiment, out_dir: str | Path, *, quick: bool = False, overrides: Mapping[str, Any] | None = None,
        seeds: int | None = None, workers: int = 1, dask: Any = None, resume: bool = False,
        progress: bool | None = None) -> Outcome:
    """Run experiment *exp* into *out_dir*: its cells (resumable), then the report
    ``<name>.md`` and ``<name>_side_by_side.csv`` (see the module docstring)."""
    t0 = time.perf_counter()
    out = Path(out_dir)
    p = plan(exp, quick=quick, overrides=overrides, seeds=seeds)
    cells = run_cells(p, out, workers=workers, dask=dask, resume=resume, progress=progress)
    results = evaluate(exp, cells, quick, p.setting_params["main"])
    fits = fit_table(exp, cells)
    plots: list[Path] = []
    if exp.plots is not None and len(cells):
        plots = [Path(x) for x in resolve(exp.plots)(cells[cells["cell_status"] == "ok"], out)]
    tables = ""
    if exp.tables is not None and len(cells):
        tables = resolve(exp.tables)(cells[cells["cell_status"] == "ok"])
    claims = headlines(exp, results)
    side = write_csv(out / f"{exp.name}_side_by_side.csv", side_by_side_records(results, claims), SIDE_BY_SIDE_FIELDS)
    report = out / f"{exp.name}.md"
    write_atomic(report, lambda tmp: tmp.write_text(report_markdown(exp, p, cells, results, fits, plots, tables)))
    failed = int((cells.drop_duplicates(list(KEY))["cell_status"] != "ok").sum()) if len(cells) else 0
    return Outcome(exp, report, side, cells_file(out, exp.name), tuple(results), time.perf_counter() - t0, failed,
                   tuple(claims))


def with_params(exp: Experiment, **changes: Any) -> Experiment:
    """A copy of *exp* with fields replaced (a user's variant of a declaration)."""
    return replace(exp, **changes)
