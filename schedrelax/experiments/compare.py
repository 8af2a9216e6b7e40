"""The comparison runner: instances × algorithms × solvers, against lower bounds and MIP optima.

For every instance and solver it runs each chosen algorithm once (through
:func:`schedrelax.algorithms.run`, so every schedule is verified), and the family's exact ``mip``
algorithm once when the instance is small enough (at most ``opt_max_jobs`` jobs and, for the
families with tasks, ``opt_max_tasks`` tasks) under its own time limit ``opt_time_limit``; each
row of the resulting table is one
(instance, algorithm, solver) cell with the algorithm's value, the lower bound its relaxation
proved, the MIP optimum, the ratios ALG/LB, ALG/OPT and OPT/LB, the theorem's guarantee and the
times. Algorithms that use no solver run once per instance, under solver ``"-"``.

A failed cell (an exception, a solver that ended without proof) is a row with ``status`` and
``reason``, never a stopped grid. ``resume=True`` keeps the rows already in the output file and
runs only the missing cells (an instance's MIP optimum already in the file is reused, not solved
again). What defines the cells (the instances and their generator, the algorithms, solvers, seed,
time limits, MIP settings and the schedrelax version: :func:`grid_identity`) is written beside
the table as ``<stem>_grid.json``, and a resume refuses a table whose grid differs, or that has
no grid file, instead of pooling rows of two grids. Integer columns (:data:`INTEGER`) are written
and read back as integers; the summary is per (family, algorithm, solver). A progress bar
(tqdm, on stderr) is drawn only on a terminal unless asked for. Work is spread over local
processes (``workers``) or a Dask distributed cluster (``dask=ADDRESS``, or a
``distributed.Client``); the rows do not depend on where they ran, only the timing columns do
(and the OPT column, when a MIP stopped by ``opt_time_limit`` is proven optimal on one run and
not on another).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedrelax.experiments.runner import execute, write_atomic

OPT_ALGORITHM = "mip"
"""Name of the exact algorithm each family registers; its value is the OPT column. Its Result's
``lower_bound`` is the solver's proven bound, so the optimum counts as proven only where the bound
meets the value (a MIP stopped by a limit has a gap, and gives no OPT)."""

KEY = ("instance", "algorithm", "solver")
"""The columns that identify a cell (what ``resume`` matches on)."""

NO_SOLVER = "-"

COLUMNS = [
    "instance", "family", "n_jobs", "n_tasks", "algorithm", "solver", "status", "reason", "result", "objective",
    "lower_bound", "bound_kind", "opt", "opt_status", "mip_lb", "alg_lb", "alg_opt", "opt_lb", "alg_mip_lb",
    "guarantee", "within_guarantee", "build_s", "solve_s", "round_s", "total_s", "seed", "best_lb", "best_ub",
    "alg_best_lb",
]
"""``result``: what the algorithm's Result proved (optimal / feasible / heuristic, see
:attr:`schedrelax.algorithms.Result.status`); ``bound_kind``: what its ``lower_bound`` is;
``mip_lb``: the exact algorithm's proven lower bound on OPT for the instance (OPT itself when
proven; a bound, still valid and often tighter than the relaxation's, when the MIP stopped at its
limit), and ``alg_mip_lb`` = objective / mip_lb. With ``bracket=True``: ``best_lb`` and ``best_ub``, the
instance's bracket (:func:`schedrelax.bracketing.bracket` in ``opt_time_limit`` seconds: the largest
proven lower bound, the cheapest verified schedule's cost), and ``alg_best_lb`` = objective / best_lb
(empty without ``bracket``)."""

INTEGER = ["n_jobs", "n_tasks", "seed"]
"""The integer columns (pandas' nullable ``Int64``: written as ``6``, not ``6.0``; empty where
missing, e.g. ``n_tasks`` of a family without tasks)."""

FLOAT = ["objective", "lower_bound", "opt", "mip_lb", "alg_lb", "alg_opt", "opt_lb", "alg_mip_lb", "guarantee",
         "build_s", "solve_s", "round_s", "total_s", "best_lb", "best_ub", "alg_best_lb"]
"""The float columns (NaN where missing)."""

GRID_FORMAT = "schedrelax-compare-grid"
"""The ``format`` field of a grid file (``<stem>_grid.json``, see :func:`grid_identity`)."""


@dataclass(frozen=True)
class InstanceSource:
    """Where an instance comes from: a file, or a generator call (family, setup, seed, params)."""

    name: str
    path: str | None = None
    family: str | None = None
    setup: str | None = None
    seed: int = 0
    params: tuple[tuple[str, Any], ...] = ()

    def load(self):
        from schedrelax.instances import load
        from schedrelax.instances.generate import generate

        if self.path is not None:
            return load(self.path)
        return generate(self.family, self.setup, seed=self.seed, **dict(self.params))


OPT_MAX_JOBS = 8
"""Default size limit of the exact MIP (jobs)."""

OPT_MAX_TASKS = 12
"""Default size limit of the exact MIP (tasks, for the packing and related families)."""

OPT_TIME_LIMIT = 30.0
"""Default time limit of one exact MIP solve, seconds."""


@dataclass(frozen=True)
class Task:
    """One unit of work: every missing cell of one instance. ``groups`` pairs each solver (or
    ``NO_SOLVER``) with the algorithms to run under it; ``solvers`` are the grid's solvers, each of
    which also runs the exact MIP once for the OPT column, unless ``known_opt`` holds its
    (solver, opt, opt_status, mip_lb) from an earlier run."""

    source: InstanceSource
    solvers: tuple[str, ...]
    groups: tuple[tuple[str, tuple[str, ...]], ...]
    with_opt: bool
    opt_max_jobs: int
    time_limit: float | None
    seed: int
    opt_max_tasks: int | None = OPT_MAX_TASKS
    opt_time_limit: float | None = OPT_TIME_LIMIT
    known_opt: tuple[tuple[str, float, str, float], ...] = ()
    bracket: bool = False


@dataclass
class CompareResult:
    """The table (a pandas DataFrame, one row a cell), its summary, and the files written."""

    table: Any
    summary: Any
    files: list[Path] = field(default_factory=list)

    def __str__(self) -> str:
        """``print(result)``: every column of the summary, numbers to 3 decimals, and the files."""
        files = "".join(f"\n{f}" for f in self.files)
        return format_summary(self.summary) + (f"\nwritten:{files}" if files else "")

    def __repr__(self) -> str:
        return (f"CompareResult({len(self.table)} cells, {len(self.summary)} summary rows, "
                f"{len(self.files)} files; print() it for the summary)")


def sources_from_paths(paths: Iterable[str | Path]) -> list[InstanceSource]:
    """Instance files, and every ``*.json`` in the folders among *paths* (sorted)."""
    out: list[InstanceSource] = []
    for p in map(Path, paths):
        if p.is_dir():
            files = sorted(p.glob("*.json"))
            if not files:
                raise ValueError(f"{p}: the folder holds no instance files (*.json)")
            out.extend(InstanceSource(name=str(f), path=str(f)) for f in files)
        elif p.exists():
            out.append(InstanceSource(name=str(p), path=str(p)))
        else:
            raise ValueError(f"{p}: no such instance file or folder")
    return out


def generated_sources(family: str, n: int, seed: int = 0, setup: str | None = None,
                      params: dict[str, Any] | None = None) -> list[InstanceSource]:
    """*n* generated instances of *family* with seeds ``seed, seed+1, ...``, named
    ``SETUP[-KEY=VALUE...]-seedS`` (the name is what ``resume`` matches, so it carries the
    generator parameters *params*)."""
    import json

    from schedrelax.instances.generate import generate

    if n < 1:
        raise ValueError(f"--generate must be >= 1, got {n}")
    # JSON lists (from --param) become tuples: a source is hashable and the generators take tuples.
    fixed = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in (params or {}).items()))
    generate(family, setup, seed=seed, **dict(fixed))  # fail now, with the generator's message
    tag = (setup or family) + "".join(f"-{k}={json.dumps(v, separators=(',', ':'))}" for k, v in fixed)
    return [InstanceSource(name=f"{tag}-seed{seed + i}", family=family, setup=setup, seed=seed + i, params=fixed)
            for i in range(n)]


def _ratio(a: float | None, b: float | None) -> float:
    """a / b when both are finite and positive (ratios of zero or negative values are meaningless:
    paper 002 §4.1 skips them), else NaN."""
    if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)) or a <= 0 or b <= 0:
        return math.nan
    return a / b


def _run_one(name: str, inst, solver: str, seed: int, time_limit: float | None,
             extra: dict[str, Any] | None = None) -> dict[str, Any]:
    from schedrelax import algorithms
    from schedrelax.rounding.exact import meets_bound

    spec = algorithms.get(name, inst.family)
    params: dict[str, Any] = dict(extra or {})
    accepted = algorithms._keyword_params(spec.fn)
    if time_limit is not None and spec.uses_solver and (accepted is None or "time_limit" in accepted):
        params["time_limit"] = time_limit
    t0 = time.perf_counter()
    try:
        res = algorithms.run(name, inst, solver=solver if spec.uses_solver else "highs", seed=seed, params=params)
    except Exception as exc:  # noqa: BLE001 - a failed cell is recorded, the grid goes on
        return {"status": "failed", "reason": f"{type(exc).__name__}: {exc}".splitlines()[0][:300],
                "total_s": time.perf_counter() - t0}
    return {
        "status": "ok", "reason": "", "result": res.status, "objective": res.objective,
        "lower_bound": res.lower_bound, "bound_kind": res.bound_kind, "guarantee": res.guarantee,
        "build_s": res.timings.get("build", math.nan), "solve_s": res.timings.get("solve", math.nan),
        "round_s": res.timings.get("round", math.nan), "total_s": res.timings.get("total", math.nan),
        "optimal": meets_bound(res.objective, res.lower_bound),
    }


def _opt(inst, solver: str, task: Task) -> tuple[float, str, float]:
    """The MIP optimum of *inst* with *solver*, a status saying why it is missing if it is, and
    the MIP's proven lower bound (OPT when proven; NaN when the MIP did not run or proved none)."""
    from schedrelax import algorithms

    if not task.with_opt:
        return math.nan, "not run", math.nan
    if not any(s.name == OPT_ALGORITHM for s in algorithms.available(inst.family)):
        return math.nan, f"no {OPT_ALGORITHM} for {inst.family}", math.nan
    for known, value, status, bound in task.known_opt:
        if known == solver:
            return value, status, bound
    if inst.n_jobs > task.opt_max_jobs:
        return math.nan, f"skipped: {inst.n_jobs} jobs > {task.opt_max_jobs}", math.nan
    n_tasks = getattr(inst, "n_tasks", None)
    if n_tasks is not None and task.opt_max_tasks is not None and n_tasks > task.opt_max_tasks:
        return math.nan, f"skipped: {n_tasks} tasks > {task.opt_max_tasks}", math.nan
    # FLEX's per-job minima bind only the schedules that promise to respect them (paper 002's own
    # FIFO runs with minima 0; see schedrelax.schedules), so the optimum every algorithm's schedule
    # is measured against is the one without minima: a value no verified schedule can beat.
    relaxed = inst.family == "malleable" and bool((inst.min_procs > 0).any())
    cell = _run_one(OPT_ALGORITHM, inst, solver, task.seed, task.opt_time_limit,
                    {"minima": False} if relaxed else None)
    if cell["status"] != "ok":
        return math.nan, f"failed: {cell['reason']}", math.nan
    bound = math.nan if cell["lower_bound"] is None else float(cell["lower_bound"])
    if not cell["optimal"]:
        # A MIP stopped by its limit gives an incumbent, not an optimum: no OPT column, but its
        # proven bound is a lower bound on OPT (mip_lb).
        limit = f" in {task.opt_time_limit:g} s" if task.opt_time_limit is not None else ""
        return math.nan, f"not proven optimal{limit}", bound
    return cell["objective"], f"optimal without minima ({solver})" if relaxed else f"optimal ({solver})", bound


def run_task(task: Task) -> list[dict[str, Any]]:
    """Every cell of one instance, with ratios against the instance's MIP optimum (proven by the
    first of the solvers that proves it). Never raises: an instance that cannot be loaded gives
    one failed row per cell."""
    from schedrelax.rounding.exact import COST_MATCH

    # A generated instance's family is known even if it fails to load; a file's is in the file.
    base = {"instance": task.source.name, "seed": task.seed, "family": task.source.family}
    try:
        inst = task.source.load()
    except Exception as exc:  # noqa: BLE001 - a failed cell is recorded, the grid goes on
        reason = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        return [{**base, "solver": s, "algorithm": a, "status": "failed", "reason": reason}
                for s, names in task.groups for a in names]
    base.update(family=inst.family, n_jobs=inst.n_jobs, n_tasks=getattr(inst, "n_tasks", None))
    # OPT is a property of the instance: the exact MIP runs with the solvers in the order given
    # until one proves it (not once per solver), and every row is measured against it;
    # the largest proven bound of the tries is mip_lb.
    opt, opt_status, mip_lb = math.nan, "not run", math.nan
    for s in task.solvers:
        opt, opt_status, bound = _opt(inst, s, task)
        if bound == bound and not mip_lb >= bound:  # NaN: no bound from this try
            mip_lb = bound
        if opt == opt or not opt_status.startswith(("not proven", "failed")):
            break
    best_lb = best_ub = math.nan
    if task.bracket:
        from schedrelax.bracketing import bracket

        try:  # one CP-SAT worker: the grid already runs a process per CPU
            found = bracket(inst, time_limit=task.opt_time_limit or OPT_TIME_LIMIT, threads=1, seed=task.seed)
            best_lb = math.nan if found.lower_bound is None else found.lower_bound
            best_ub = found.upper_bound
        except Exception as exc:  # noqa: BLE001 - no bracket leaves its columns empty; the cells still run
            from schedrelax._log import logger

            logger(__name__).warning("%s: no bracket (%s: %s)", task.source.name, type(exc).__name__, exc)
    rows = []
    for solver, names in task.groups:
        for name in names:
            cell = _run_one(name, inst, solver, task.seed, task.time_limit)
            cell.pop("optimal", None)
            row = {**base, "solver": solver, "algorithm": name, **cell, "opt": opt, "opt_status": opt_status,
                   "mip_lb": mip_lb}
            obj, lb = row.get("objective"), row.get("lower_bound")
            row["alg_lb"] = _ratio(obj, lb)
            row["alg_opt"] = _ratio(obj, opt)
            row["opt_lb"] = _ratio(opt, lb)
            row["alg_mip_lb"] = _ratio(obj, mip_lb)
            row.update(best_lb=best_lb, best_ub=best_ub, alg_best_lb=_ratio(obj, best_lb))
            g = row.get("guarantee")
            # the tolerance of every "optimal" (rounding.exact.COST_MATCH): an optimum proven to it
            # has a guarantee of 1 met to it, not to a stricter 1e-9
            row["within_guarantee"] = (obj <= g * lb + COST_MATCH * max(1.0, abs(obj))
                                       if g is not None and lb is not None and obj is not None else None)
            rows.append(row)
    return rows


def plan(sources: Sequence[InstanceSource], algorithms_: Sequence[str] | None, solvers: Sequence[str], *,
         with_opt: bool = True, opt_max_jobs: int = OPT_MAX_JOBS, time_limit: float | None = None,
         seed: int = 0, done: set[tuple[str, str, str]] | None = None, opt_max_tasks: int | None = OPT_MAX_TASKS,
         opt_time_limit: float | None = OPT_TIME_LIMIT,
         known_opt: dict[str, dict[str, tuple[float, str, float]]] | None = None, bracket: bool = False) -> list[Task]:
    """The tasks of a grid: per instance, the solver-using algorithms once per solver, the others
    once. Cells in *done* are left out; an instance whose cells are all done gives no task.
    *known_opt* maps instance -> solver -> (opt, opt_status, mip_lb) already computed (by a run being
    resumed)."""
    _check_request(sources, solvers)
    done = done or set()
    tasks: list[Task] = []
    for src in sources:
        resolved = _resolved(src.family or _family_of(src), algorithms_)
        solverless = tuple(s.name for s in resolved if not s.uses_solver)
        with_solver = tuple(s.name for s in resolved if s.uses_solver)
        groups = []
        for solver, group in [(NO_SOLVER, solverless)] + [(s, with_solver) for s in solvers]:
            todo = tuple(n for n in group if (src.name, n, solver) not in done)
            if todo:
                groups.append((solver, todo))
        if groups:
            known = tuple((s, v, st, b) for s, (v, st, b) in (known_opt or {}).get(src.name, {}).items()
                          if s in solvers)
            tasks.append(Task(src, tuple(solvers), tuple(groups), with_opt, opt_max_jobs, time_limit, seed,
                              opt_max_tasks, opt_time_limit, known, bracket))
    return tasks


def _check_request(sources: Sequence[InstanceSource], solvers: Sequence[str]) -> None:
    if not sources:
        raise ValueError("no instances to compare")
    if not solvers:
        raise ValueError("no solvers given")
    from schedrelax.solvers.registry import check_solver

    for s in solvers:
        check_solver(s)
    if len(set(solvers)) != len(solvers):
        raise ValueError(f"a solver is named twice in {', '.join(solvers)}")


def _resolved(family: str, algorithms_: Sequence[str] | None) -> list:
    """The specs of the algorithms a grid runs on *family*: those named, else every one but the
    exact MIP. An unknown name, or one of another family, raises before any work."""
    from schedrelax import algorithms

    if algorithms_:
        return [algorithms.get(n, family) for n in algorithms_]
    return sorted((s for s in algorithms.available(family) if s.name != OPT_ALGORITHM), key=lambda s: s.name)


def _family_of(src: InstanceSource) -> str:
    import json

    with open(src.path) as fh:
        family = json.load(fh).get("family")
    if not isinstance(family, str):
        raise ValueError(f"{src.path}: the file names no family")
    return family


def compare(sources: Sequence[InstanceSource], algorithms: Sequence[str] | None = None,
            solvers: Sequence[str] = ("highs",), *, out: str | Path | None = None, resume: bool = False,
            workers: int | None = None, dask: Any = None, with_opt: bool = True, opt_max_jobs: int = OPT_MAX_JOBS,
            time_limit: float | None = None, seed: int = 0, plots: bool = True,
            progress: bool | None = None, opt_max_tasks: int | None = OPT_MAX_TASKS,
            opt_time_limit: float | None = OPT_TIME_LIMIT, bracket: bool = False) -> CompareResult:
    """Run the grid and return (and, with *out*, write) the table and its summary.

    *out* names the table file (``.csv``; a Parquet copy is written beside it when pyarrow is
    installed); the summary goes to ``<stem>_summary.csv``, the plots to ``<stem>_ratios.png``
    and ``<stem>_times.png``, and what defines the grid to ``<stem>_grid.json``
    (:func:`grid_identity`). With *resume*, the cells already in *out* are kept and only the
    others run, provided its grid file records the same grid; otherwise ValueError names each
    field that differs (a table without a grid file is refused too: nothing shows which grid made
    it). *workers* defaults to the number of CPUs. *time_limit* applies to every solve of the
    algorithms, *opt_time_limit* to each exact MIP solve (the OPT column); the MIP runs only on
    instances with at most *opt_max_jobs* jobs and (packing, related) at most *opt_max_tasks*
    tasks (None: no task limit). *progress*: a progress bar on stderr (None: only when stderr
    is a terminal). *bracket*: fill the columns best_lb, best_ub and alg_best_lb (one bracket per
    instance, in *opt_time_limit* seconds).
    """
    out_path = Path(out) if out is not None else None
    if resume and out_path is None:
        raise ValueError("--resume needs --out (the table to resume)")
    _check_request(sources, solvers)
    workers = (os.cpu_count() or 1) if workers is None else workers
    if workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")
    identity = None
    if out_path is not None:
        identity = grid_identity(sources, algorithms, solvers, with_opt=with_opt, opt_max_jobs=opt_max_jobs,
                                 opt_max_tasks=opt_max_tasks, opt_time_limit=opt_time_limit,
                                 time_limit=time_limit, seed=seed)
    previous = None
    done: set[tuple[str, str, str]] = set()
    known_opt: dict[str, dict[str, tuple[float, str, float]]] = {}
    if resume and out_path.exists():
        check_grid(out_path, identity)
        previous = _read_table(out_path)
        done = set(map(tuple, previous[list(KEY)].astype(str).itertuples(index=False, name=None)))
        known_opt = _known_opts(previous)
    tasks = plan(sources, algorithms, solvers, with_opt=with_opt, opt_max_jobs=opt_max_jobs,
                 time_limit=time_limit, seed=seed, done=done, opt_max_tasks=opt_max_tasks,
                 opt_time_limit=opt_time_limit, known_opt=known_opt, bracket=bracket)

    files: list[Path] = []
    if out_path is not None:
        if previous is None:
            # The old table goes before the new grid file is written: a run killed in between
            # must not leave the old rows under the new grid's name, for a --resume to pool.
            for stale in (out_path, out_path.with_suffix(".parquet")):
                stale.unlink(missing_ok=True)
        files.append(_write_grid(identity, out_path))
        if previous is None:
            _write_table(_concat([], []), out_path)
    frames = [previous] if previous is not None and len(previous) else []
    new_rows: list[dict[str, Any]] = []
    for rows in execute(run_task, tasks, workers=workers, dask=dask, progress=progress, desc="compare",
                        unit="instance"):
        new_rows.extend(rows)
        if out_path is not None:
            # Append as cells finish, so an interrupted grid can be resumed.
            _write_table(_concat(frames, new_rows), out_path)
    table = _concat(frames, new_rows)
    table = table.sort_values(list(KEY), kind="stable", ignore_index=True)
    summary = summarise(table)
    if out_path is not None:
        files = _write_table(table, out_path) + files
        summary_path = out_path.with_name(out_path.stem + "_summary.csv")
        summary.to_csv(summary_path, index=False)
        files.append(summary_path)
        if plots and len(table):
            files += plot(table, out_path.with_name(out_path.stem))
    return CompareResult(table, summary, files)


GRID_FIELDS = ("schedrelax", "families", "generator", "instances", "algorithms", "solvers", "seed", "time_limit",
               "opt", "opt_max_jobs", "opt_max_tasks", "opt_time_limit")
"""The fields of a grid identity that a resume compares, in the order an error names them."""


def grid_identity(sources: Sequence[InstanceSource], algorithms_: Sequence[str] | None, solvers: Sequence[str], *,
                  with_opt: bool = True, opt_max_jobs: int = OPT_MAX_JOBS, opt_max_tasks: int | None = OPT_MAX_TASKS,
                  opt_time_limit: float | None = OPT_TIME_LIMIT, time_limit: float | None = None,
                  seed: int = 0) -> dict[str, Any]:
    """What defines the cells of a grid, as the JSON object written to ``<stem>_grid.json``.

    Fields: ``schedrelax`` (the version: algorithms may change between versions), ``families``,
    ``generator`` (per generated family its setup and parameters; ``"instance files"`` for
    instances read from files), ``instances`` (their names, which carry each generated
    instance's seed), ``algorithms`` (per family the names run, every one of the family
    resolved), ``solvers`` (in order: solverless cells use the first one's OPT), ``seed``,
    ``time_limit``, ``opt`` and, when it runs, the exact MIP's limits ``opt_max_jobs``,
    ``opt_max_tasks`` and ``opt_time_limit``. Not in it: where and how fast cells ran (workers,
    Dask), plots, progress. A file's content is not hashed: an instance file edited between two
    runs keeps its name.
    """
    import json

    from schedrelax import __version__

    families: dict[str, list[str]] = {}
    generators: list[Any] = []
    for src in sources:
        family = src.family or _family_of(src)
        if family not in families:
            families[family] = sorted(s.name for s in _resolved(family, algorithms_))
        gen = ({"family": family, "setup": src.setup, "params": dict(src.params)} if src.path is None
               else "instance files")
        if gen not in generators:
            generators.append(gen)
    identity = {
        "format": GRID_FORMAT, "schedrelax": __version__, "families": sorted(families),
        "generator": sorted(generators, key=lambda g: json.dumps(g, sort_keys=True)),
        "instances": sorted(src.name for src in sources),
        "algorithms": dict(sorted(families.items())), "solvers": list(solvers), "seed": seed,
        "time_limit": time_limit, "opt": with_opt,
        # Limits of a MIP that does not run define no cell.
        "opt_max_jobs": opt_max_jobs if with_opt else None, "opt_max_tasks": opt_max_tasks if with_opt else None,
        "opt_time_limit": opt_time_limit if with_opt else None,
    }
    return json.loads(json.dumps(identity))  # tuples as lists: the form it is read back in


def grid_file(out: str | Path) -> Path:
    """The grid file of the table *out*: ``<stem>_grid.json`` beside it."""
    out = Path(out)
    return out.with_name(out.stem + "_grid.json")


def _write_grid(identity: dict[str, Any], out: Path) -> Path:
    import json

    path = grid_file(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(identity, indent=1) + "\n")
    tmp.replace(path)
    return path


def check_grid(out: str | Path, identity: dict[str, Any]) -> None:
    """Raise ValueError unless the grid file beside the table *out* records the grid *identity*
    (:func:`grid_identity`): the message names each field that differs with both values, and
    how to go on."""
    import json

    out, path = Path(out), grid_file(out)
    how = (f"write this grid to a new table (another --out), or drop --resume to run it afresh into {out} "
           "(its rows are replaced)")
    if not path.exists():
        raise ValueError(f"cannot resume {out}: it has no grid file {path.name} beside it (a table from a schedrelax "
                         "that did not record its grid, or not written by compare), so nothing shows that its rows "
                         f"were made by this grid; {how}")
    try:
        recorded = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot resume {out}: its grid file {path} cannot be read ({exc}); {how}") from None
    if not isinstance(recorded, dict) or recorded.get("format") != GRID_FORMAT:
        raise ValueError(f"cannot resume {out}: {path} is not a compare grid file (no \"format\": "
                         f"\"{GRID_FORMAT}\"); {how}")
    diffs = [_difference(k, recorded.get(k, _ABSENT), identity[k])
             for k in GRID_FIELDS if recorded.get(k, _ABSENT) != identity[k]]
    if diffs:
        raise ValueError(f"cannot resume {out}: it was made by another grid ({path.name}): " + "; ".join(diffs)
                         + f"; {how}")


_ABSENT = object()
"""A field one side of a grid comparison does not have."""


def _difference(field: str, recorded: Any, requested: Any) -> str:
    """One field's difference, short: a long list by what only one side has."""
    import json

    def show(v: Any) -> str:
        return "(none)" if v is _ABSENT else json.dumps(v, separators=(", ", ": "))

    if isinstance(recorded, list) and isinstance(requested, list) and max(len(recorded), len(requested)) > 4:
        def some(items: list) -> str:
            return ", ".join(map(show, items[:3])) + (f" and {len(items) - 3} more" if len(items) > 3 else "")

        only = [f"only in the table's: {some(v)}" for v in [[x for x in recorded if x not in requested]] if v]
        only += [f"only in this run's: {some(v)}" for v in [[x for x in requested if x not in recorded]] if v]
        return f"{field}: table {len(recorded)}, this run {len(requested)} ({'; '.join(only) or 'in another order'})"
    if isinstance(recorded, dict) and isinstance(requested, dict):
        keys = sorted(k for k in set(recorded) | set(requested) if recorded.get(k) != requested.get(k))
        return f"{field}: " + ", ".join(f"{k}: table {show(recorded.get(k, _ABSENT))}, this run "
                                        f"{show(requested.get(k, _ABSENT))}" for k in keys)
    return f"{field}: table {show(recorded)}, this run {show(requested)}"


def _read_table(path: Path):
    """A table written by :func:`compare`, with the columns a resumed run appends to (a column
    an older version did not write is added empty) and the integer columns as integers."""
    import pandas as pd

    table = pd.read_csv(path, keep_default_na=False, na_values=[""])
    missing = [c for c in KEY if c not in table.columns]
    if missing:
        raise ValueError(f"{path}: not a compare table (no column {missing[0]!r}); cannot resume from it")
    for c in COLUMNS:
        if c not in table.columns:
            table[c] = math.nan
    return _typed(table[COLUMNS], path)


def _known_opts(table) -> dict[str, dict[str, tuple[float, str, float]]]:
    """instance -> solver -> (opt, opt_status, mip_lb) from the rows of an earlier run. Left out:
    rows under NO_SOLVER (they name no solver), rows without a status (an instance that failed to
    load) and rows whose MIP was not asked for (``--no-opt``)."""
    out: dict[str, dict[str, tuple[float, str, float]]] = {}
    rows = table[(table["solver"] != NO_SOLVER) & table["opt_status"].notna() & (table["opt_status"] != "not run")]
    for inst, solver, opt, status, bound in rows[["instance", "solver", "opt", "opt_status",
                                                  "mip_lb"]].itertuples(index=False):
        out.setdefault(str(inst), {})[str(solver)] = (float(opt), str(status), float(bound))
    return out


def _frame(rows: list[dict[str, Any]]):
    import pandas as pd

    return pd.DataFrame(rows, columns=COLUMNS)


def _concat(frames: list, rows: list[dict[str, Any]]):
    """The earlier table and the new rows as one, with the column types of :func:`_typed`."""
    import pandas as pd

    parts = [f for f in frames if len(f)] + ([_frame(rows)] if rows else [])
    return _typed(pd.concat(parts, ignore_index=True) if parts else _frame([]))


def _typed(table, source: Path | None = None):
    """*table* with the INTEGER columns as nullable integers and the FLOAT ones as floats (an
    empty frame or a column of only missing values would otherwise turn them into objects). A
    non-whole number in an integer column of a table read from *source* is an error."""
    import pandas as pd

    for c in FLOAT:
        table[c] = pd.to_numeric(table[c], errors="coerce").astype(float)
    for c in INTEGER:
        values = pd.to_numeric(table[c], errors="coerce")
        bad = values.notna() & (values != values.round())
        if bad.any():
            row = int(bad.to_numpy().nonzero()[0][0])
            where = f"{source}, line {row + 2}" if source is not None else f"row {row}"
            raise ValueError(f"{where}: column {c!r} must hold whole numbers, got {table[c][bad].iloc[0]}")
        table[c] = values.astype("Int64")
    return table


def _write_table(table, path: Path) -> list[Path]:
    # atomic: a kill mid-write never leaves half a table to resume from
    written = [write_atomic(path, lambda tmp: table.to_csv(tmp, index=False))]
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return written
    pq = path.with_suffix(".parquet")
    table.astype({"reason": str, "opt_status": str}).to_parquet(pq, index=False)
    return written + [pq]


UNKNOWN_FAMILY = "(not loaded)"
"""The summary's family of an instance file that could not be loaded (its rows say why)."""


def summarise(table):
    """Mean and worst ratio, share within the guarantee, failures and mean time per
    (family, algorithm, solver): an algorithm's ratios on two families are never pooled. Rows of
    an instance file that failed to load are under the family :data:`UNKNOWN_FAMILY`."""
    import pandas as pd

    if not len(table):
        return pd.DataFrame(columns=["family", "algorithm", "solver", "cells", "failed"])
    t = table.copy()
    t["family"] = t["family"].astype(object).where(t["family"].notna(), UNKNOWN_FAMILY)
    t["failed"] = t["status"] != "ok"
    t["within_guarantee"] = t["within_guarantee"].map({True: 1.0, False: 0.0, "True": 1.0, "False": 0.0})
    g = t.groupby(["family", "algorithm", "solver"], sort=True)
    summary = pd.DataFrame({
        "cells": g.size(),
        "failed": g["failed"].sum(),
        "mean_alg_lb": g["alg_lb"].mean(), "worst_alg_lb": g["alg_lb"].max(),
        "mean_alg_opt": g["alg_opt"].mean(), "worst_alg_opt": g["alg_opt"].max(),
        "mean_opt_lb": g["opt_lb"].mean(), "worst_opt_lb": g["opt_lb"].max(),
        "within_guarantee": g["within_guarantee"].mean(),
        "mean_total_s": g["total_s"].mean(),
    })
    return summary.reset_index()


def plot(table, stem: Path) -> list[Path]:
    """Ratio box plots (ALG/LB and ALG/OPT per algorithm and solver) and time against size
    (tasks where the family has them, else jobs)."""
    from matplotlib.figure import Figure

    files = []
    ok = table[table["status"] == "ok"]
    cell = ok["algorithm"] + " / " + ok["solver"]
    labels = sorted(set(cell))
    fig = Figure(figsize=(12, 0.4 * max(4, len(labels)) + 1.5))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, col, title in ((axes[0], "alg_lb", "ALG / lower bound"), (axes[1], "alg_opt", "ALG / MIP optimum")):
        # One row per label on both panels (sharey): a label without ratios leaves its row empty.
        data = [(k, ok.loc[cell == lab, col].dropna().to_numpy(dtype=float)) for k, lab in enumerate(labels)]
        shown = [(k, d) for k, d in data if len(d)]
        if shown:
            ax.boxplot([d for _, d in shown], positions=[k for k, _ in shown], orientation="horizontal",
                       widths=0.6, manage_ticks=False)
            ax.axvline(1.0, color="grey", linewidth=0.8)
        else:
            ax.text(0.5, 0.5, "no ratio available", ha="center", va="center", transform=ax.transAxes)
        ax.set_title(title)
        ax.set_xlabel("ratio")
    axes[0].set_yticks(range(len(labels)), labels)
    axes[0].set_ylim(len(labels) - 0.5, -0.5)
    fig.tight_layout()
    p = stem.with_name(stem.name + "_ratios.png")
    fig.savefig(p, dpi=110)
    files.append(p)

    fig = Figure(figsize=(8, 4.8))
    ax = fig.subplots()
    size = ok["n_tasks"].astype(float).fillna(ok["n_jobs"].astype(float))
    markers = "osD^v<>P*X"
    for k, lab in enumerate(labels):
        sel = (cell == lab).to_numpy()
        ax.scatter(size[sel], ok.loc[sel, "total_s"].astype(float), label=lab, s=16,
                   color=f"C{k % 10}", marker=markers[(k // 10) % len(markers)])
    with_tasks = ok["n_tasks"].notna()
    ax.set_xlabel("tasks in the instance" if with_tasks.all() else
                  "jobs in the instance" if not with_tasks.any() else "tasks (jobs where the family has no tasks)")
    ax.set_ylabel("seconds (algorithm, incl. solve)")
    ax.set_yscale("log")
    if len(ok):
        ax.legend(fontsize="small", frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    p = stem.with_name(stem.name + "_times.png")
    fig.savefig(p, dpi=110)
    files.append(p)
    return files


def other_vertex_cells(table) -> int:
    """Cells whose lower bound equals (within COST_MATCH) that of the same instance and algorithm
    under another solver, with another objective: the same LP optimum at another vertex."""
    from schedrelax.result import COST_MATCH

    needed = {"instance", "algorithm", "solver", "objective", "lower_bound", "status"}
    if not len(table) or not needed <= set(table.columns):
        return 0
    ok = table[(table["status"] == "ok") & table["lower_bound"].notna()]
    count = 0
    for _, group in ok.groupby(["instance", "algorithm"]):
        rows = list(zip(group["lower_bound"], group["objective"]))
        count += sum(any(abs(lb - lb2) <= COST_MATCH * max(1.0, abs(lb)) and
                         abs(obj - obj2) > COST_MATCH * max(1.0, abs(obj)) for lb2, obj2 in rows)
                     for lb, obj in rows)
    return count


def format_summary(summary) -> str:
    """The summary as an aligned text table for the terminal."""
    if not len(summary):
        return "(no cells)"
    shown = summary.copy()
    for c in shown.columns:
        if shown[c].dtype.kind == "f":
            shown[c] = shown[c].map(lambda v: "-" if v != v else f"{v:.3f}")
    return shown.to_string(index=False)


def main_compare(paths: Sequence[str], family: str | None, generate: int | None, seed: int, setup: str | None,
                 algorithms_: str | None, solvers: str, out: str | None, resume: bool, workers: int | None,
                 dask: str | None, time_limit: float | None, opt_max_jobs: int, no_opt: bool,
                 echo: Callable[[str], None] = print, *, params: dict[str, Any] | None = None,
                 opt_max_tasks: int | None = OPT_MAX_TASKS, opt_time_limit: float | None = OPT_TIME_LIMIT,
                 progress: bool | None = None, bracket: bool = False) -> CompareResult:
    """What ``schedrelax compare`` does, given its parsed options (*params*: generator
    parameters, ``--param``; *progress*: a progress bar on stderr, None: only when stderr is a
    terminal)."""
    if paths and generate:
        raise ValueError("give instance files/folders or --generate, not both")
    if params and not generate:
        raise ValueError("--param sets generator parameters: it needs --generate")
    if generate is not None and generate < 1:
        raise ValueError(f"--generate must be >= 1, got {generate}")
    if generate:
        if not family:
            raise ValueError("--generate needs --family")
        sources = generated_sources(family, generate, seed, setup, params)
    elif paths:
        sources = sources_from_paths(paths)
    else:
        raise ValueError("nothing to compare: give instance files or folders, or --family F --generate N")
    algos = [a.strip() for a in algorithms_.split(",") if a.strip()] if algorithms_ else None
    solver_list = [s.strip() for s in solvers.split(",") if s.strip()]
    result = compare(sources, algos, solver_list, out=out, resume=resume, workers=workers, dask=dask,
                     with_opt=not no_opt, opt_max_jobs=opt_max_jobs, time_limit=time_limit, seed=seed,
                     opt_max_tasks=opt_max_tasks, opt_time_limit=opt_time_limit, progress=progress,
                     bracket=bracket)
    echo(format_summary(result.summary))
    other_vertex = other_vertex_cells(result.table)
    if other_vertex:
        echo(f"note: {other_vertex} cell(s) have the same lower bound (LP optimum) under two solvers but another "
             "objective: the solvers reached different optimal vertices of the same LP, and rounding them gives "
             "different schedules")
    failed = int((result.table["status"] != "ok").sum())
    if failed:
        echo(f"{failed} cell(s) failed; see the 'reason' column")
    for f in result.files:
        echo(f"wrote {f}")
    return result
