"""Paper reproductions by name: ``schedrelax reproduce NAME [--quick] [--out DIR] [--workers N]
[--dask ADDRESS] [--resume] [--set KEY=VALUE ...]``, and ``reproduce all``: every one into one
folder with an index.

Each reproduction is a declaration (:class:`schedrelax.experiments.engine.Experiment`) in its
paper's module under :mod:`schedrelax.experiments.reproductions`; :data:`REPRODUCTIONS` names them
without importing them (``list`` and a wrong name cost nothing). The engine runs the cells on the
shared runner (local processes or Dask), keeps them in an atomically written table beside the
report, and with ``resume`` redoes nothing finished: a killed ``reproduce all`` resumed ends with
the same reports as an uninterrupted run. ``--set`` varies a declaration's parameters without
code (``reproduce synchpack --set machines=16``; ``--config FILE`` takes them from a JSON or
TOML table).

``reproduce all`` runs each reproduction into ``OUT/<name>/``; one that raises is recorded in the
index with its error (the traceback in ``OUT/<name>/error.txt``) and the others still run. The
index ``OUT/report.md`` opens with every paper's headline claims and verdicts; wall times go to
``OUT/timings.csv`` (the index holds nothing that changes from run to run).

Trace data a reproduction can use is found here too: :func:`google_trace` (``--google PATH``,
else ``$SCHEDRELAX_GOOGLE_TRACE``, else the source checkout's ``../shared/data/google2011``).
"""

from __future__ import annotations

import json
import os
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedrelax.experiments.runner import progress_bar, write_atomic, write_csv

GOOGLE_ENV = "SCHEDRELAX_GOOGLE_TRACE"
"""The environment variable naming the Google trace part when ``--google`` is not given."""

GOOGLE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "google2011"
"""The Google 2011 trace part beside a source checkout in the project's workspace: the last resort
of :func:`google_trace` (absent in a clone, and in an installed copy this path means nothing)."""

GOOGLE_SOURCE = (
    "the Google cluster-data 2011 trace (\"clusterdata-2011-2\", https://github.com/google/cluster-data, "
    "ClusterData2011_2.md; CC-BY): one part of its task_events table, a gzipped CSV without header, e.g. "
    "`gsutil cp gs://clusterdata-2011-2/task_events/part-00000-of-00500.csv.gz .`; give it with "
    f"`--google FILE` or `{GOOGLE_ENV}=FILE`")
"""Where the trace part a reproduction can use is obtained, and how to give it."""

INDEX = "report.md"
"""The index file ``reproduce all`` writes at the top of its output folder."""

TIMINGS = "timings.csv"
"""The wall time of each reproduction of ``reproduce all`` (kept out of the index)."""

MISSING = "—"


@dataclass(frozen=True)
class Entry:
    """A registered reproduction: where its declaration is (``"module:attribute"``), the paper and
    sections it reproduces, and a one-line summary (both read without importing it)."""

    name: str
    declaration: str
    paper: str
    summary: str

    def load(self):
        """The :class:`~schedrelax.experiments.engine.Experiment` (imports its module)."""
        from schedrelax.experiments.engine import resolve

        exp = resolve(self.declaration)
        if exp.name != self.name:
            raise ValueError(f"reproduction {self.name!r}: its declaration is named {exp.name!r}")
        return exp


_R = "schedrelax.experiments.reproductions"

REPRODUCTIONS: Mapping[str, Entry] = {e.name: e for e in (
    Entry("asrpt", f"{_R}.asrpt:EXPERIMENT", "001 ASRPT §VII",
          "ASRPT vs DSRPT, FIFO, Fair, LRPT: efficiency ratios, convergence over T, the SWIM trace (--swim)"),
    Entry("flex", f"{_R}.flex:EXPERIMENT", "002 FLEX §4.1",
          "FIFO, FAIR and FLEX vs the optimum: base case and the sweeps of Fig. 5"),
    Entry("flowflex", f"{_R}.flowflex:EXPERIMENT", "000 FlowFlex §4.1, §4.2",
          "Tables 1-2 (FlowFlex vs Fair and FIFO against lower bounds) and Tables 3-4"),
    Entry("online", f"{_R}.online:EXPERIMENT", "003 SynchPack §7.2; 004 S-PC §VI-B; 000 FlowFlex §4.2",
          "online re-planning: SynchPack Fig. 5, S-PC Fig. 6 against MarS, FlowFlex Fig. 6"),
    Entry("spc", f"{_R}.spc:EXPERIMENT", "004 S-PC §VI-B",
          "Fig. 7 (reduce data size) and Fig. 8 (W_max): S-PC vs HUWF, Tetris, FIFO"),
    Entry("spc-stochastic", f"{_R}.spc_stochastic:EXPERIMENT", "004 S-PC §VI-C",
          "Figs 10-13: S-PC vs FIFO, LATE, Identical-machine, Map-only under stochastic task times"),
    Entry("spc-hadoop", f"{_R}.spc_stochastic:HADOOP", "004 S-PC §VI-A",
          "Figs 4-5, simulated: S-PC vs FIFO and the baselines on the §VI-C cluster model (no Hadoop cluster)"),
    Entry("synchpack", f"{_R}.synchpack:EXPERIMENT", "003 SynchPack §7.1",
          "Table 1 (SynchPack-2/LP2, SynchPack-3/LP3) and Fig. 4 (SynchPack vs Tetris, PSRS, JSQ-MW)"),
)}
"""Every reproduction by name, in the order ``reproduce all`` runs them."""


def available() -> dict[str, Entry]:
    """The registered reproductions by name."""
    return dict(REPRODUCTIONS)


def _entry(name: str) -> Entry:
    if name not in REPRODUCTIONS:
        raise ValueError(f"unknown reproduction {name!r}; choose one of: {', '.join(['all', *REPRODUCTIONS])}")
    return REPRODUCTIONS[name]


def read_config(path: str | Path) -> dict[str, Any]:
    """Parameters from a JSON object or a TOML table file (``--config``)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ValueError(f"--config {path}: cannot be read ({exc.strerror or exc})") from None
    if path.suffix == ".toml":
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"--config {path}: not valid TOML ({exc})") from None
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"--config {path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise ValueError(f"--config {path}: must hold a table of parameters, got {type(data).__name__}")
    return {str(k): tuple(v) if isinstance(v, list) else v for k, v in data.items()}


def parse_sets(items: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs (``--set``); VALUE is JSON when it parses (numbers, true, lists), else a
    string. A list becomes a tuple (a range, as the generators take it)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {item!r}: expected KEY=VALUE")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        out[key.strip()] = tuple(value) if isinstance(value, list) else value
    return out


def reproduce(name: str, out_dir: str | Path, *, quick: bool = False, workers: int = 1, dask: Any = None,
              resume: bool = False, overrides: Mapping[str, Any] | None = None,
              where_known: Mapping[str, Any] | None = None, seeds: int | None = None,
              progress: bool | None = None) -> list[Path]:
    """Run reproduction *name* into *out_dir* and return its report; ``"all"`` runs every one
    (:func:`reproduce_all`, without progress lines) and returns the index followed by the
    reports written. *overrides*: declaration parameters to set (``--set``; one the reproduction
    lacks is an error); *where_known*: parameters set only where the reproduction has them (a
    trace named by the environment)."""
    if name == "all":
        index, outcomes = reproduce_all(out_dir, quick=quick, workers=workers, dask=dask, resume=resume,
                                        overrides=overrides, where_known=where_known, seeds=seeds, echo=None,
                                        progress=progress)
        return [index, *(o.report for o in outcomes if o.report is not None)]
    from schedrelax.experiments import engine

    exp = _entry(name).load()
    chosen = {**_known(exp, where_known or {}), **dict(overrides or {})}
    out = engine.run(exp, out_dir, quick=quick, overrides=chosen, seeds=seeds, workers=workers, dask=dask,
                     resume=resume, progress=progress)
    return [out.report]


@dataclass(frozen=True)
class Outcome:
    """How one reproduction of ``reproduce all`` went: ``status`` ``"ok"`` or ``"failed"``, its
    report, verdict counts and headline claims (:class:`~schedrelax.experiments.engine.Headline`)
    when it ran, the one-line error if not."""

    name: str
    status: str
    seconds: float
    folder: Path
    report: Path | None = None
    counts: Mapping[str, int] | None = None
    claims: tuple = ()
    failed_cells: int = 0
    error: str = ""


def _known(exp, overrides: Mapping[str, Any]) -> dict[str, Any]:
    params = set(exp.params) | {k for s in exp.settings.values() for k in s} | {
        k for p in exp.points for k in p.params} | set(exp.options)
    return {k: v for k, v in overrides.items() if k in params}


def reproduce_all(out_dir: str | Path, *, quick: bool = False, names: Sequence[str] | None = None, workers: int = 1,
                  dask: Any = None, resume: bool = False, overrides: Mapping[str, Any] | None = None,
                  where_known: Mapping[str, Any] | None = None, seeds: int | None = None,
                  echo: Callable[[str], None] | None = print,
                  progress: bool | None = None) -> tuple[Path, list[Outcome]]:
    """Run every registered reproduction (or those in *names*) into ``out_dir/<name>/`` and write
    the index ``out_dir/report.md``; returns it and one :class:`Outcome` per reproduction.

    *overrides* go to the reproductions that have those parameters (one that none has is an
    error). A reproduction that raises is recorded (one line in the index, the traceback in its
    folder's ``error.txt``) and the next one runs. *echo* gets a line as each one starts and ends
    (None: silent)."""
    from schedrelax.experiments import engine

    entries = dict(REPRODUCTIONS)
    if names is not None:
        entries = {n: _entry(n) for n in names}
    overrides = dict(overrides or {})
    exps: dict[str, Any] = {}
    load_errors: dict[str, str] = {}
    for name, entry in entries.items():
        try:
            exps[name] = entry.load()
        except Exception as exc:  # noqa: BLE001 - recorded in the index; the others still run
            load_errors[name] = f"{type(exc).__name__}: {exc}".splitlines()[0][:500]
    if overrides and exps:
        used = set().union(*(_known(e, overrides) for e in exps.values()))
        unknown = sorted(set(overrides) - used)
        if unknown:
            raise ValueError(f"no reproduction has the parameter {unknown[0]!r}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    outcomes: list[Outcome] = []
    timings: list[dict[str, Any]] = []

    def say(line: str) -> None:
        if echo is not None:
            echo(line)

    with progress_bar(len(entries), "reproduce all", progress, unit="reproduction", leave=True) as bar:
        for k, name in enumerate(entries, 1):
            folder = out / name
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "error.txt").unlink(missing_ok=True)
            say(f"[{k}/{len(entries)}] {name}: running{' (quick)' if quick else ''} ...")
            t0 = time.perf_counter()
            try:
                if name in load_errors:
                    raise ImportError(load_errors[name])
                exp = exps[name]
                chosen = {**_known(exp, where_known or {}), **_known(exp, overrides)}
                result = engine.run(exp, folder, quick=quick, overrides=chosen, seeds=seeds,
                                    workers=workers, dask=dask, resume=resume, progress=progress)
            except Exception as exc:  # noqa: BLE001 - recorded in the index; the others still run
                seconds = time.perf_counter() - t0
                error = f"{type(exc).__name__}: {exc}".splitlines()[0][:500]
                (folder / "error.txt").write_text(traceback.format_exc())
                outcomes.append(Outcome(name, "failed", seconds, folder, error=error))
                timings.append({"reproduction": name, "status": "failed", "seconds": round(seconds, 1)})
                say(f"[{k}/{len(entries)}] {name}: FAILED after {seconds:.1f} s: {error}")
                bar.update()
                continue
            seconds = time.perf_counter() - t0
            outcomes.append(Outcome(name, "ok", seconds, folder, result.report, result.counts, result.headlines,
                                    result.failed_cells))
            timings.append({"reproduction": name, "status": "ok", "seconds": round(seconds, 1)})
            say(f"[{k}/{len(entries)}] {name}: ok in {seconds:.1f} s, report {result.report}")
            bar.update()
    write_csv(out / TIMINGS, timings, ("reproduction", "status", "seconds"))
    index = out / INDEX
    text = index_markdown(out, outcomes, quick=quick)
    write_atomic(index, lambda tmp: tmp.write_text(text))
    ok = sum(o.status == "ok" for o in outcomes)
    say(f"index written to {index} ({ok} of {len(outcomes)} ok)")
    return index, outcomes


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def index_markdown(out: Path, outcomes: Sequence[Outcome], *, quick: bool) -> str:
    """The index of a ``reproduce all`` folder: every paper's headline claims with verdicts and
    intervals, then per reproduction its verdict counts and report."""
    from schedrelax.experiments.engine import VERDICTS

    ok = sum(o.status == "ok" for o in outcomes)
    lines = ["# schedrelax: paper reproductions", "",
             f"{'Quick (CI-sized) run, `--quick`: sizes and seeds too small for conclusions' if quick else 'Paper-scale run'}"
             f": {ok} of {len(outcomes)} reproductions ran. Each number is a statistic over seeds with its 95 % "
             "interval and a verdict against the paper's (agrees, fitted, differs-explained by a declared variation "
             "run beside it, differs-unexplained, no-number); every schedule behind them passed `verify`. Wall times: "
             f"`{TIMINGS}`.", "", "## Headline claims", "",
             "| reproduction | claim | paper | ours [95 % CI] | verdict |", "|---|---|---|---|---|"]
    for o in outcomes:
        for h in o.claims:
            lines.append(f"| [{o.name}](#{_anchor(o.name)}) | {_cell(h.claim)} | {_cell(h.paper)} | {_cell(h.ours)} | "
                         f"**{h.verdict}**{' (' + h.ablation + ')' if h.ablation else ''} |")
    lines += ["", "## Verdicts per reproduction", "",
              "| reproduction | paper | status | " + " | ".join(VERDICTS) + " | failed cells | report |",
              "|---|---|---|" + "---:|" * (len(VERDICTS) + 1) + "---|"]
    for o in outcomes:
        entry = REPRODUCTIONS.get(o.name)
        paper = entry.paper if entry else ""
        if o.status != "ok":
            lines.append(f"| <a id=\"{_anchor(o.name)}\"></a>{o.name} | {paper} | **failed**: {_cell(o.error)} | "
                         + " | ".join(MISSING for _ in VERDICTS) + f" | {MISSING} | `{o.name}/error.txt` |")
            continue
        report = o.report.relative_to(out).as_posix() if o.report and _inside(o.report, out) else str(o.report)
        lines.append(f"| <a id=\"{_anchor(o.name)}\"></a>{o.name} | {paper} | ok | "
                     + " | ".join(str(o.counts.get(v, 0)) for v in VERDICTS)
                     + f" | {o.failed_cells} | [{Path(report).name}]({report}) |")
    return "\n".join(lines) + "\n"


def _anchor(name: str) -> str:
    return f"reproduction-{name}"


def _inside(path: Path, base: Path) -> bool:
    try:
        path.resolve().relative_to(base.resolve())
    except ValueError:
        return False
    return True


def google_trace(path: str | Path | None = None) -> tuple[Path | None, str]:
    """The Google 2011 ``task_events`` file to run on and where it was found, or None and why not.

    In order: *path* (``--google``), the environment variable :data:`GOOGLE_ENV`, then the
    source-tree folder :data:`GOOGLE`. A folder stands for the first of its ``task_events*`` files
    (or, for a folder named ``task_events`` as in the trace's bucket, of its ``part-*`` files).
    A path given by option or variable that leads to no such file is an error (ValueError naming
    it); only the source-tree fallback is skipped quietly, with the reason returned.
    """
    given = None
    if path is not None:
        given = (Path(path), f"--google {path}")
    elif os.environ.get(GOOGLE_ENV):
        given = (Path(os.environ[GOOGLE_ENV]), f"{GOOGLE_ENV}={os.environ[GOOGLE_ENV]}")
    if given is not None:
        value, origin = given
        found = _task_events(value)
        if found is None:
            what = "no such file or folder" if not value.exists() else "a folder without a task_events file"
            raise ValueError(f"{origin}: {what}; expected a task_events part of {GOOGLE_SOURCE}")
        return found, origin
    found = _task_events(GOOGLE) if GOOGLE.is_dir() else None
    if found is not None:
        return found, f"the source checkout's {GOOGLE}"
    return None, (f"no Google trace given (no --google, {GOOGLE_ENV} not set, and no trace part beside the source "
                  "checkout)")


def _task_events(path: Path) -> Path | None:
    if path.is_file():
        return path
    if not path.is_dir():
        return None
    files = sorted(path.glob("task_events*")) or (sorted(path.glob("part-*")) if path.name == "task_events" else [])
    return files[0] if files else None
