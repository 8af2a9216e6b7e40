"""The comparison runner: instances × algorithms × solvers, against lower bounds and MIP optima.

For every instance and solver it runs each chosen algorithm once (through
:func:`schedrelax.algorithms.run`, so every schedule is verified), and the family's exact ``mip``
algorithm once when the instance is small enough; each row of the resulting table is one
(instance, algorithm, solver) cell with the algorithm's value, the lower bound its relaxation
proved, the MIP optimum, the ratios ALG/LB, ALG/OPT and OPT/LB, the theorem's guarantee and the
times. Algorithms that use no solver run once per instance, under solver ``"-"``.

A failed cell (an exception, a solver that ended without proof) is a row with ``status`` and
``reason``, never a stopped grid. ``resume=True`` keeps the rows already in the output file and
runs only the missing cells. Work is spread over local processes (``workers``) or a Dask
distributed cluster (``dask=ADDRESS``, or a ``distributed.Client``); the rows do not depend on
where they ran, only the timing columns do.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OPT_ALGORITHM = "mip"
"""Name of the exact algorithm each family registers; its value is the OPT column. Its Result's
``lower_bound`` is the solver's proven bound, so the optimum counts as proven only where the bound
meets the value (a MIP stopped by a limit has a gap, and gives no OPT)."""

KEY = ("instance", "algorithm", "solver")
"""The columns that identify a cell (what ``resume`` matches on)."""

NO_SOLVER = "-"

COLUMNS = [
    "instance", "family", "n_jobs", "algorithm", "solver", "status", "reason", "objective", "lower_bound",
    "opt", "opt_status", "alg_lb", "alg_opt", "opt_lb", "guarantee", "within_guarantee",
    "build_s", "solve_s", "round_s", "total_s", "seed",
]


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


@dataclass(frozen=True)
class Task:
    """One unit of work: every missing cell of one instance. ``groups`` pairs each solver (or
    ``NO_SOLVER``) with the algorithms to run under it; ``solvers`` are the grid's solvers, each of
    which also runs the exact MIP once for the OPT column."""

    source: InstanceSource
    solvers: tuple[str, ...]
    groups: tuple[tuple[str, tuple[str, ...]], ...]
    with_opt: bool
    opt_max_jobs: int
    time_limit: float | None
    seed: int


@dataclass
class CompareResult:
    """The table (a pandas DataFrame, one row a cell), its summary, and the files written."""

    table: Any
    summary: Any
    files: list[Path] = field(default_factory=list)


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
    """*n* generated instances of *family* with seeds ``seed, seed+1, ...``."""
    from schedrelax.instances.generate import generate

    if n < 1:
        raise ValueError(f"--generate must be >= 1, got {n}")
    generate(family, setup, seed=seed, **(params or {}))  # fail now, with the generator's message
    tag = setup or family
    return [InstanceSource(name=f"{tag}-seed{seed + i}", family=family, setup=setup, seed=seed + i,
                           params=tuple(sorted((params or {}).items()))) for i in range(n)]


def _ratio(a: float | None, b: float | None) -> float:
    """a / b when both are finite and positive (ratios of zero or negative values are meaningless:
    paper 002 §4.1 skips them), else NaN."""
    if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)) or a <= 0 or b <= 0:
        return math.nan
    return a / b


def _run_one(name: str, inst, solver: str, seed: int, time_limit: float | None) -> dict[str, Any]:
    from schedrelax import algorithms

    spec = algorithms.get(name, inst.family)
    params: dict[str, Any] = {}
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
        "status": "ok", "reason": "", "objective": res.objective, "lower_bound": res.lower_bound,
        "guarantee": res.guarantee,
        "build_s": res.timings.get("build", math.nan), "solve_s": res.timings.get("solve", math.nan),
        "round_s": res.timings.get("round", math.nan), "total_s": res.timings.get("total", math.nan),
        "optimal": _proven_optimal(res.objective, res.lower_bound),
    }


def _proven_optimal(objective: float, bound: float | None, rel: float = 1e-6) -> bool:
    """An exact algorithm proves optimality by a lower bound equal to its value (see OPT_ALGORITHM)."""
    if bound is None or not math.isfinite(bound):
        return False
    return objective - bound <= rel * max(1.0, abs(objective))


def _opt(inst, solver: str, task: Task) -> tuple[float, str]:
    """The MIP optimum of *inst* with *solver*, and a status saying why it is missing if it is."""
    from schedrelax import algorithms

    if not task.with_opt:
        return math.nan, "not run"
    if not any(s.name == OPT_ALGORITHM for s in algorithms.available(inst.family)):
        return math.nan, f"no {OPT_ALGORITHM} for {inst.family}"
    if inst.n_jobs > task.opt_max_jobs:
        return math.nan, f"skipped: {inst.n_jobs} jobs > {task.opt_max_jobs}"
    cell = _run_one(OPT_ALGORITHM, inst, solver, task.seed, task.time_limit)
    if cell["status"] != "ok":
        return math.nan, f"failed: {cell['reason']}"
    if not cell["optimal"]:
        # A MIP stopped by its limit gives an incumbent, not an optimum: no OPT column.
        return math.nan, "not proven optimal"
    return cell["objective"], f"optimal ({solver})"


def run_task(task: Task) -> list[dict[str, Any]]:
    """Every cell of one instance, with ratios against the MIP optimum of the same solver (the
    first solver's for algorithms that use none). Never raises: an instance that cannot be
    loaded gives one failed row per cell."""
    base = {"instance": task.source.name, "seed": task.seed}
    try:
        inst = task.source.load()
    except Exception as exc:  # noqa: BLE001 - a failed cell is recorded, the grid goes on
        reason = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        return [{**base, "solver": s, "algorithm": a, "status": "failed", "reason": reason}
                for s, names in task.groups for a in names]
    base.update(family=inst.family, n_jobs=inst.n_jobs)
    opts = {s: _opt(inst, s, task) for s in task.solvers}
    rows = []
    for solver, names in task.groups:
        opt, opt_status = opts[solver if solver != NO_SOLVER else task.solvers[0]]
        for name in names:
            cell = _run_one(name, inst, solver, task.seed, task.time_limit)
            cell.pop("optimal", None)
            row = {**base, "solver": solver, "algorithm": name, **cell, "opt": opt, "opt_status": opt_status}
            obj, lb = row.get("objective"), row.get("lower_bound")
            row["alg_lb"] = _ratio(obj, lb)
            row["alg_opt"] = _ratio(obj, opt)
            row["opt_lb"] = _ratio(opt, lb)
            g = row.get("guarantee")
            row["within_guarantee"] = (obj <= g * lb * (1 + 1e-9) + 1e-9
                                       if g is not None and lb is not None and obj is not None else None)
            rows.append(row)
    return rows


def plan(sources: Sequence[InstanceSource], algorithms_: Sequence[str] | None, solvers: Sequence[str], *,
         with_opt: bool = True, opt_max_jobs: int = 8, time_limit: float | None = None,
         seed: int = 0, done: set[tuple[str, str, str]] | None = None) -> list[Task]:
    """The tasks of a grid: per instance, the solver-using algorithms once per solver, the others
    once. Cells in *done* are left out; an instance whose cells are all done gives no task."""
    from schedrelax import algorithms

    if not sources:
        raise ValueError("no instances to compare")
    if not solvers:
        raise ValueError("no solvers given")
    from schedrelax.solvers.registry import check_solver

    for s in solvers:
        check_solver(s)
    done = done or set()
    tasks: list[Task] = []
    for src in sources:
        family = src.family or _family_of(src)
        specs = {s.name: s for s in algorithms.available(family) if s.name != OPT_ALGORITHM}
        names = list(algorithms_) if algorithms_ else sorted(specs)
        resolved = [algorithms.get(n, family) for n in names]  # unknown or wrong family: fail before any work
        solverless = tuple(s.name for s in resolved if not s.uses_solver)
        with_solver = tuple(s.name for s in resolved if s.uses_solver)
        groups = []
        for solver, group in [(NO_SOLVER, solverless)] + [(s, with_solver) for s in solvers]:
            todo = tuple(n for n in group if (src.name, n, solver) not in done)
            if todo:
                groups.append((solver, todo))
        if groups:
            tasks.append(Task(src, tuple(solvers), tuple(groups), with_opt, opt_max_jobs, time_limit, seed))
    return tasks


def _family_of(src: InstanceSource) -> str:
    import json

    with open(src.path) as fh:
        family = json.load(fh).get("family")
    if not isinstance(family, str):
        raise ValueError(f"{src.path}: the file names no family")
    return family


class _Progress:
    """A one-line progress bar on stderr (redrawn in place on a terminal, else every 10 %)."""

    def __init__(self, total: int, enabled: bool = True):
        self.total, self.done, self.t0 = total, 0, time.perf_counter()
        self.enabled = enabled and total > 0
        self.tty = sys.stderr.isatty()
        self._last_decile = -1

    def step(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        frac = self.done / self.total
        elapsed = time.perf_counter() - self.t0
        eta = elapsed / frac - elapsed if frac > 0 else math.nan
        bar = "#" * int(30 * frac)
        line = f"compare [{bar:<30}] {self.done}/{self.total} tasks, {elapsed:.0f} s elapsed, ~{eta:.0f} s left"
        if self.tty:
            print("\r" + line, end="" if self.done < self.total else "\n", file=sys.stderr, flush=True)
        elif int(frac * 10) > self._last_decile:
            self._last_decile = int(frac * 10)
            print(line, file=sys.stderr, flush=True)


def _execute(tasks: list[Task], workers: int, dask: Any, progress: bool) -> Iterable[list[dict[str, Any]]]:
    bar = _Progress(len(tasks), progress)
    if dask is not None:
        from distributed import Client, as_completed as dask_completed

        client = dask if isinstance(dask, Client) else Client(dask)
        try:
            futures = client.map(run_task, tasks, pure=False)
            for fut in dask_completed(futures):
                bar.step()
                yield fut.result()
        finally:
            if client is not dask:
                client.close()
        return
    if workers <= 1 or len(tasks) <= 1:
        for t in tasks:
            rows = run_task(t)
            bar.step()
            yield rows
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for fut in as_completed([pool.submit(run_task, t) for t in tasks]):
            bar.step()
            yield fut.result()


def compare(sources: Sequence[InstanceSource], algorithms: Sequence[str] | None = None,
            solvers: Sequence[str] = ("highs",), *, out: str | Path | None = None, resume: bool = False,
            workers: int | None = None, dask: Any = None, with_opt: bool = True, opt_max_jobs: int = 8,
            time_limit: float | None = None, seed: int = 0, plots: bool = True,
            progress: bool = True) -> CompareResult:
    """Run the grid and return (and, with *out*, write) the table and its summary.

    *out* names the table file (``.csv``; a Parquet copy is written beside it when pyarrow is
    installed); the summary goes to ``<stem>_summary.csv`` and the plots to ``<stem>_ratios.png``
    and ``<stem>_times.png``. *workers* defaults to the number of CPUs.
    """
    import pandas as pd

    out_path = Path(out) if out is not None else None
    previous = None
    done: set[tuple[str, str, str]] = set()
    if resume:
        if out_path is None:
            raise ValueError("--resume needs --out (the table to resume)")
        if out_path.exists():
            previous = pd.read_csv(out_path, keep_default_na=False, na_values=[""])
            done = set(map(tuple, previous[list(KEY)].astype(str).itertuples(index=False, name=None)))
    tasks = plan(sources, algorithms, solvers, with_opt=with_opt, opt_max_jobs=opt_max_jobs,
                 time_limit=time_limit, seed=seed, done=done)
    workers = (os.cpu_count() or 1) if workers is None else workers
    if workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")

    frames = [previous] if previous is not None else []
    new_rows: list[dict[str, Any]] = []
    for rows in _execute(tasks, workers, dask, progress):
        new_rows.extend(rows)
        if out_path is not None:
            # Append as cells finish, so an interrupted grid can be resumed.
            _write_table(pd.concat(frames + [_frame(new_rows)], ignore_index=True), out_path)
    table = pd.concat(frames + [_frame(new_rows)], ignore_index=True)
    table = table.sort_values(list(KEY), kind="stable", ignore_index=True)
    summary = summarise(table)
    files: list[Path] = []
    if out_path is not None:
        files += _write_table(table, out_path)
        summary_path = out_path.with_name(out_path.stem + "_summary.csv")
        summary.to_csv(summary_path, index=False)
        files.append(summary_path)
        if plots and len(table):
            files += plot(table, out_path.with_name(out_path.stem))
    return CompareResult(table, summary, files)


def _frame(rows: list[dict[str, Any]]):
    import pandas as pd

    return pd.DataFrame(rows, columns=COLUMNS)


def _write_table(table, path: Path) -> list[Path]:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    table.to_csv(tmp, index=False)
    tmp.replace(path)  # atomic: a kill mid-write never leaves half a table to resume from
    written = [path]
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return written
    pq = path.with_suffix(".parquet")
    table.astype({"reason": str, "opt_status": str}).to_parquet(pq, index=False)
    return written + [pq]


def summarise(table):
    """Mean and worst ratio, share within the guarantee, failures and mean time per
    (algorithm, solver)."""
    import pandas as pd

    if not len(table):
        return pd.DataFrame(columns=["algorithm", "solver", "cells", "failed"])
    t = table.copy()
    t["failed"] = t["status"] != "ok"
    t["within_guarantee"] = t["within_guarantee"].map({True: 1.0, False: 0.0, "True": 1.0, "False": 0.0})
    g = t.groupby(["algorithm", "solver"], sort=True)
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
    """Ratio box plots (ALG/LB and ALG/OPT per algorithm and solver) and time against size."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    files = []
    ok = table[table["status"] == "ok"]
    labels = sorted({f"{a} / {s}" for a, s in zip(ok["algorithm"], ok["solver"])})
    fig, axes = plt.subplots(1, 2, figsize=(12, 0.4 * max(4, len(labels)) + 1.5), sharey=True)
    for ax, col, title in ((axes[0], "alg_lb", "ALG / lower bound"), (axes[1], "alg_opt", "ALG / MIP optimum")):
        data = [ok[(ok["algorithm"] + " / " + ok["solver"]) == lab][col].dropna().to_numpy() for lab in labels]
        shown = [(lab, d) for lab, d in zip(labels, data) if len(d)]
        if shown:
            ax.boxplot([d for _, d in shown], orientation="horizontal", tick_labels=[lab for lab, _ in shown])
            ax.axvline(1.0, color="grey", linewidth=0.8)
        else:
            ax.text(0.5, 0.5, "no ratio available", ha="center", va="center", transform=ax.transAxes)
        ax.set_title(title)
        ax.set_xlabel("ratio")
    fig.tight_layout()
    p = stem.with_name(stem.name + "_ratios.png")
    fig.savefig(p, dpi=110)
    plt.close(fig)
    files.append(p)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (alg, solver), grp in ok.groupby(["algorithm", "solver"]):
        ax.scatter(grp["n_jobs"], grp["total_s"], label=f"{alg} / {solver}", s=14)
    ax.set_xlabel("jobs in the instance")
    ax.set_ylabel("seconds (algorithm, incl. solve)")
    ax.set_yscale("log")
    if len(ok):
        ax.legend(fontsize="small", frameon=False)
    fig.tight_layout()
    p = stem.with_name(stem.name + "_times.png")
    fig.savefig(p, dpi=110)
    plt.close(fig)
    files.append(p)
    return files


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
                 echo: Callable[[str], None] = print) -> CompareResult:
    """What ``schedrelax compare`` does, given its parsed options."""
    if paths and generate:
        raise ValueError("give instance files/folders or --generate, not both")
    if generate:
        if not family:
            raise ValueError("--generate needs --family")
        sources = generated_sources(family, generate, seed, setup)
    elif paths:
        sources = sources_from_paths(paths)
    else:
        raise ValueError("nothing to compare: give instance files or folders, or --family F --generate N")
    algos = [a.strip() for a in algorithms_.split(",") if a.strip()] if algorithms_ else None
    solver_list = [s.strip() for s in solvers.split(",") if s.strip()]
    result = compare(sources, algos, solver_list, out=out, resume=resume, workers=workers, dask=dask,
                     with_opt=not no_opt, opt_max_jobs=opt_max_jobs, time_limit=time_limit, seed=seed)
    echo(format_summary(result.summary))
    failed = int((result.table["status"] != "ok").sum())
    if failed:
        echo(f"{failed} cell(s) failed; see the 'reason' column")
    for f in result.files:
        echo(f"wrote {f}")
    return result
