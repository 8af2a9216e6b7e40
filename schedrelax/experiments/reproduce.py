"""Paper reproductions, by name: ``schedrelax reproduce NAME [--quick] [--out DIR]``, and
``schedrelax reproduce all``, every registered one into one report folder with an index.

Each paper module registers a function ``(out_dir: Path, *, quick: bool, seed: int, **options) ->
Path`` that writes its tables and plots into *out_dir* and returns the report file it wrote; one
that also takes ``progress`` (``bool | None``) gets it and draws its own progress bar over its
instances (:func:`progress_bar`). A reproduction may also write ``<name>_vs_paper.md``: its
numbers beside the ones the paper's text states (or a note that the paper only has a figure),
and ``<name>_differences.md`` (:func:`write_differences`): one line per way its setting differs
from the paper's, as its report explains them. :func:`reproduce_all` puts both into the index.

Trace data a reproduction can use is found here too: :func:`google_trace` (``--google PATH``, else
``$SCHEDRELAX_GOOGLE_TRACE``, else the source checkout's ``../shared/data/google2011``).

``reproduce all`` runs each reproduction into ``OUT/<name>/``, with what it prints captured in
``OUT/<name>/output.log``; one that raises is recorded in the index with its error (the traceback
in ``OUT/<name>/error.txt``) and the others still run. The index is ``OUT/report.md``.
"""

from __future__ import annotations

import contextlib
import csv
import inspect
import os
import sys
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Reproduction = Callable[..., Path]

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
"""Where the trace part the online reproduction can use is obtained, and how to give it."""

INDEX = "report.md"
"""The index file ``reproduce all`` writes at the top of its output folder."""

DIFFERENCES = "{name}_differences.md"
"""The file (in a reproduction's folder) listing how its setting differs from the paper's."""

MISSING = "—"
"""How a missing number reads in the reports: never ``nan``, and always with its reason beside it."""


@dataclass(frozen=True)
class ReproductionSpec:
    """A registered reproduction: its function, one-line summary, the extra keyword options it
    accepts, and the paper (file number and sections) it reproduces, for the index."""

    name: str
    fn: Reproduction
    summary: str
    options: tuple[str, ...] = ()
    paper: str = ""

    @property
    def takes_progress(self) -> bool:
        """Whether the function accepts ``progress`` (it then draws its own progress bar)."""
        return "progress" in inspect.signature(self.fn).parameters


REPRODUCTIONS: dict[str, ReproductionSpec] = {}

_LOAD_ERRORS: list[str] = []


def register_reproduction(name: str, summary: str, options: tuple[str, ...] = (),
                          paper: str = "") -> Callable[[Reproduction], Reproduction]:
    """Decorator: register a paper reproduction under *name*; *options* are the extra keyword
    options it accepts (e.g. ``("swim",)``); *paper* names the paper and sections it reproduces
    (e.g. ``"000 FlowFlex §4.1"``)."""
    def deco(fn: Reproduction) -> Reproduction:
        REPRODUCTIONS[name] = ReproductionSpec(name, fn, summary, options, paper)
        return fn
    return deco


def write_csv(path: Path, rows: Sequence[Mapping[str, Any]], fields: Sequence[str] | None = None) -> Path:
    """Write *rows* (dicts) as a CSV table with a header: the keys of the first row (a row with
    another key is an error), or *fields* (then other keys are left out on purpose). The one CSV
    writer of the reproductions."""
    chosen = fields is not None
    with Path(path).open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(fields if chosen else rows[0]),
                                extrasaction="ignore" if chosen else "raise")
        writer.writeheader()
        writer.writerows(rows)
    return Path(path)


def show_progress(progress: bool | None) -> bool:
    """Whether to draw progress bars: *progress* when given, else only when stderr is a terminal
    (so that logs, pipes and CI output stay free of them)."""
    return sys.stderr.isatty() if progress is None else bool(progress)


def progress_bar(total: int, desc: str, progress: bool | None = None, *, unit: str = "run", leave: bool = False):
    """A tqdm progress bar on stderr over *total* steps (call ``update()`` per step; use it as a
    context manager), drawn only if :func:`show_progress` says so. *leave*: keep the finished
    bar on screen (a bar inside another one's run goes away)."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, leave=leave, file=sys.stderr, dynamic_ncols=True,
                disable=not show_progress(progress))


def write_differences(out_dir: Path, name: str, lines: Sequence[str]) -> Path:
    """Write ``<name>_differences.md`` into *out_dir*: one line per way the reproduction's setting
    differs from the paper's (smaller instances, a stand-in for a trace, another bound ...), in the
    words its report uses; the index of ``reproduce all`` shows them beside the numbers."""
    path = Path(out_dir) / DIFFERENCES.format(name=name)
    path.write_text("".join(f"- {line}\n" for line in lines))
    return path


SIDE_BY_SIDE = "{name}_side_by_side.csv"
"""The file (in a reproduction's folder) with its numbers in three columns: the paper's, ours with
the paper's baselines and calibrated setup, ours with our defaults (:func:`write_side_by_side`)."""

GAP_FLAG = 0.10
"""A calibrated number further than this (relative) from the paper's needs a measured cause."""

UNEXPLAINED = "unexplained"
"""The cause of a gap no measurement has explained yet (the report says so rather than guess)."""


@dataclass(frozen=True)
class PaperRow:
    """One number of a paper's table or figure, in the three columns of the reports.

    *item*: where in the paper ("Table 1", "Fig. 4(a)"); *quantity*: what the number is
    ("SynchPack-2 / LP2", "FIFO / lower bound, completion time"); *paper*: the paper's value as its
    text states it (a string: "2.87-2.98", "≈ 21 %"), with *paper_low* / *paper_high* its numeric
    range (equal for a single number; None when the paper gives no number, e.g. only a figure);
    *calibrated*: ours with the paper's baselines and the ``paper-fit`` setup; *default*: ours with
    the package's own baselines and default setup (None: not run in that column, say why in
    *cause*); *cause*: one line for a remaining gap between the paper and *calibrated*, measured
    (what was changed and what it moved), or :data:`UNEXPLAINED`. *percent*: the values are
    fractions shown as percentages (gains), else plain numbers.
    """

    item: str
    quantity: str
    paper: str
    paper_low: float | None
    paper_high: float | None
    calibrated: float | None
    default: float | None
    cause: str = ""
    percent: bool = False

    def __post_init__(self) -> None:
        if (self.paper_low is None) != (self.paper_high is None):
            raise ValueError(f"{self.item} / {self.quantity}: paper_low and paper_high must both be given or both None")
        if self.paper_low is not None and self.paper_low > self.paper_high:
            raise ValueError(f"{self.item} / {self.quantity}: paper_low {self.paper_low} > paper_high {self.paper_high}")

    @property
    def gap(self) -> float | None:
        """The relative distance of *calibrated* from the paper's range: 0 inside it, else
        |calibrated - nearest end| / |nearest end| (None when either side has no number; for
        percentages, the distance in percentage points / 100, as a fraction)."""
        if self.paper_low is None or self.calibrated is None:
            return None
        x = self.calibrated
        if self.paper_low <= x <= self.paper_high:
            return 0.0
        end = self.paper_low if x < self.paper_low else self.paper_high
        if self.percent:
            return abs(x - end)
        return abs(x - end) / abs(end) if end != 0 else float("inf")

    @property
    def flagged(self) -> bool:
        """Whether the gap exceeds :data:`GAP_FLAG` (the report then needs its cause)."""
        gap = self.gap
        return gap is not None and gap > GAP_FLAG

    def shown(self, value: float | None) -> str:
        if value is None:
            return MISSING
        return f"{value:.0%}" if self.percent else f"{value:.3g}"


SIDE_BY_SIDE_FIELDS = ("item", "quantity", "paper", "paper_low", "paper_high", "calibrated", "default", "gap",
                       "cause", "percent")


def write_side_by_side(out_dir: Path, name: str, rows: Sequence[PaperRow]) -> Path:
    """Write ``<name>_side_by_side.csv`` (one :class:`PaperRow` per line, with its gap) into
    *out_dir*; the index of ``reproduce all`` shows it as the three-column table. A flagged row
    (gap > :data:`GAP_FLAG`) without a cause is an error: name the cause, or say
    :data:`UNEXPLAINED`."""
    for r in rows:
        if r.flagged and not r.cause.strip():
            raise ValueError(f"{name}: {r.item} / {r.quantity}: calibrated {r.calibrated} is {r.gap:.0%} from the "
                             f"paper's {r.paper}; give its measured cause or {UNEXPLAINED!r}")
    path = Path(out_dir) / SIDE_BY_SIDE.format(name=name)
    return write_csv(path, [{**{f: getattr(r, f) for f in SIDE_BY_SIDE_FIELDS if f != "gap"}, "gap": r.gap}
                            for r in rows], fields=SIDE_BY_SIDE_FIELDS)


def read_side_by_side(path: Path) -> list[PaperRow]:
    """The rows :func:`write_side_by_side` wrote."""
    def num(text: str) -> float | None:
        return None if text in ("", "None") else float(text)

    with Path(path).open(newline="") as fh:
        return [PaperRow(r["item"], r["quantity"], r["paper"], num(r["paper_low"]), num(r["paper_high"]),
                         num(r["calibrated"]), num(r["default"]), r["cause"], r["percent"] == "True")
                for r in csv.DictReader(fh)]


def side_by_side_markdown(rows: Sequence[PaperRow]) -> str:
    """The three-column table: paper | ours, paper's baselines + paper-fit setup | ours, defaults |
    cause of the remaining gap (flagged rows, more than :data:`GAP_FLAG` from the paper, in bold)."""
    lines = ["| item | quantity | paper | ours: paper's baselines, paper-fit setup | ours: defaults | "
             "gap | cause of the remaining gap |",
             "|---|---|---|---:|---:|---:|---|"]
    for r in rows:
        gap = MISSING if r.gap is None else (f"**{r.gap:.0%}**" if r.flagged else f"{r.gap:.0%}")
        lines.append(f"| {_cell(r.item)} | {_cell(r.quantity)} | {_cell(r.paper) or MISSING} | "
                     f"{r.shown(r.calibrated)} | {r.shown(r.default)} | {gap} | {_cell(r.cause) or '-'} |")
    return "\n".join(lines) + "\n"


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


def _load_builtin() -> None:
    # A module that fails to import must not hide the others from `reproduce all`: the error is
    # kept and reported in the index (the modules imported before it have registered already).
    try:
        import schedrelax.experiments.papers  # noqa: F401  (registers the reproductions)
    except Exception as exc:  # noqa: BLE001
        message = f"importing the reproduction modules failed: {type(exc).__name__}: {exc}"
        if message not in _LOAD_ERRORS:
            _LOAD_ERRORS.append(message)


def available() -> dict[str, ReproductionSpec]:
    """Registered reproductions by name."""
    _load_builtin()
    return dict(sorted(REPRODUCTIONS.items()))


@dataclass(frozen=True)
class Outcome:
    """How one reproduction of ``reproduce all`` went: ``status`` is ``"ok"`` or ``"failed"``;
    ``report`` is the report it returned (None if it failed), ``error`` the one-line error."""

    name: str
    status: str
    seconds: float
    folder: Path
    report: Path | None = None
    error: str = ""


def _options_for(spec: ReproductionSpec, options: dict, strict: bool, progress: bool | None = None) -> dict:
    unknown = sorted(k for k, v in options.items() if v is not None and k not in spec.options)
    if unknown and strict:
        raise ValueError(f"reproduction {spec.name!r} has no option {unknown[0]!r}")
    chosen = {k: v for k, v in options.items() if k in spec.options and v is not None}
    return {**chosen, "progress": progress} if spec.takes_progress else chosen


def reproduce(name: str, out_dir: str | Path, *, quick: bool = False, seed: int = 0, progress: bool | None = None,
              **options) -> list[Path]:
    """Run reproduction *name* into *out_dir* and return its report; ``"all"`` runs every one
    (see :func:`reproduce_all`, without progress lines) and returns the index followed by the
    reports written. *progress*: progress bars on stderr (None: only when stderr is a terminal)."""
    specs = available()
    if name == "all":
        index, outcomes = reproduce_all(out_dir, quick=quick, seed=seed, echo=None, progress=progress, **options)
        return [index, *(o.report for o in outcomes if o.report is not None)]
    if name not in specs:
        raise ValueError(f"unknown reproduction {name!r}; choose one of: {', '.join(['all', *specs])}")
    spec = specs[name]
    opts = _options_for(spec, options, strict=True, progress=progress)
    target = Path(out_dir)
    target.mkdir(parents=True, exist_ok=True)
    return [spec.fn(target, quick=quick, seed=seed, **opts)]


def reproduce_all(out_dir: str | Path, *, quick: bool = False, seed: int = 0, names: Sequence[str] | None = None,
                  echo: Callable[[str], None] | None = print, progress: bool | None = None,
                  **options) -> tuple[Path, list[Outcome]]:
    """Run every registered reproduction (or those in *names*) into ``out_dir/<name>/`` and write
    the index ``out_dir/report.md``; returns it and one :class:`Outcome` per reproduction.

    A reproduction that raises is recorded (one line in the index, the traceback in its folder's
    ``error.txt``) and the next one runs. *echo* gets a progress line as each one starts and ends
    (None: silent); what the reproductions print goes to their folder's ``output.log``. Options
    (e.g. ``swim``) go to the reproductions that accept them. *progress*: a progress bar over the
    reproductions, and each reproduction's own over its instances, on stderr (None: only when
    stderr is a terminal).
    """
    specs = available()
    if names is not None:
        unknown = [n for n in names if n not in specs]
        if unknown:
            raise ValueError(f"unknown reproduction {unknown[0]!r}; choose among: {', '.join(specs)}")
        specs = {n: specs[n] for n in names}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t_all = time.perf_counter()
    outcomes = []
    with progress_bar(len(specs), "reproduce all", progress, unit="reproduction", leave=True) as bar:
        def say(line: str) -> None:
            if echo is not None:
                with bar.external_write_mode():  # the line above the bars, not through them
                    echo(line)

        for k, spec in enumerate(specs.values(), 1):
            folder = out / spec.name
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "error.txt").unlink(missing_ok=True)
            say(f"[{k}/{len(specs)}] {spec.name}: running{' (quick)' if quick else ''} ...")
            bar.set_postfix_str(spec.name)
            t0 = time.perf_counter()
            try:
                with open(folder / "output.log", "w") as log, contextlib.redirect_stdout(log):
                    report = Path(spec.fn(folder, quick=quick, seed=seed,
                                          **_options_for(spec, options, strict=False, progress=progress)))
            except Exception as exc:  # noqa: BLE001 - recorded in the index; the others still run
                seconds = time.perf_counter() - t0
                error = f"{type(exc).__name__}: {exc}".splitlines()[0][:500]
                (folder / "error.txt").write_text(traceback.format_exc())
                outcomes.append(Outcome(spec.name, "failed", seconds, folder, error=error))
                say(f"[{k}/{len(specs)}] {spec.name}: FAILED after {seconds:.1f} s: {error}")
                bar.update()
                continue
            seconds = time.perf_counter() - t0
            outcomes.append(Outcome(spec.name, "ok", seconds, folder, report=report))
            say(f"[{k}/{len(specs)}] {spec.name}: ok in {seconds:.1f} s, report {report}")
            bar.update()
    index = out / INDEX
    index.write_text(index_markdown(out, outcomes, specs, quick=quick, seed=seed,
                                    seconds=time.perf_counter() - t_all, load_errors=list(_LOAD_ERRORS)))
    ok = sum(o.status == "ok" for o in outcomes)
    if echo is not None:
        echo(f"index written to {index} ({ok} of {len(outcomes)} ok"
             + (f"; {len(_LOAD_ERRORS)} module import error(s)" if _LOAD_ERRORS else "") + ")")
    return index, outcomes


def _link(path: Path, base: Path) -> str:
    rel = path.relative_to(base).as_posix()
    return f"[{path.name}]({rel})"


def index_markdown(out: Path, outcomes: Sequence[Outcome], specs: dict[str, ReproductionSpec], *, quick: bool,
                   seed: int, seconds: float, load_errors: Sequence[str] = ()) -> str:
    """The index of a ``reproduce all`` folder: a summary table (with each reproduction's
    ``<name>_differences.md`` lines: why its numbers differ from the paper's), then one section per
    reproduction (its paper, status, report, tables, plots, and its numbers beside the paper's)."""
    ok = sum(o.status == "ok" for o in outcomes)
    lines = [
        "# schedrelax: paper reproductions",
        "",
        f"{'Quick (CI-sized) run, `--quick`' if quick else 'Paper-size run'}, seed {seed}: {ok} of {len(outcomes)} "
        f"reproductions ran, in {seconds:.1f} s. Each section links the reproduction's report, tables and plots, "
        "and shows its numbers beside those the paper's text states; the table's last column says why ours differ "
        "(smaller instances, a stand-in for a trace, a lower bound near 0 ...), in the words of each reproduction's "
        f"report. A missing number reads {MISSING}, with its reason. Every schedule in them passed `verify`.",
        "",
    ]
    for err in load_errors:
        lines += [f"**Not every reproduction could be loaded**: {err}", ""]
    lines += ["| reproduction | paper | status | seconds | report | why ours differ from the paper's (its report's "
              "words) |", "|---|---|---|---:|---|---|"]
    for o in outcomes:
        spec = specs[o.name]
        status = "ok" if o.status == "ok" else f"**failed**: {_cell(o.error)}"
        report = _link(o.report, out) if o.report is not None and _inside(o.report, out) else "-"
        if o.status != "ok":
            why = f"{MISSING} (failed)"
        else:
            why = "; ".join(_differences(o)) or (f"{MISSING} (its report names no difference: "
                                                  f"{DIFFERENCES.format(name=o.name)} not written)")
        lines.append(f"| [{o.name}](#{_anchor(o.name)}) | {_cell(spec.paper) or '-'} | {status} | {o.seconds:.1f} "
                     f"| {report} | {_cell(why)} |")
    lines.append("")
    lines += _flagged_section(outcomes)
    for o in outcomes:
        lines += _section(out, o, specs[o.name])
    return "\n".join(lines).rstrip() + "\n"


def _side_by_side(o: Outcome) -> list[PaperRow] | None:
    """The reproduction's three-column rows (None if it wrote no ``<name>_side_by_side.csv``)."""
    path = o.folder / SIDE_BY_SIDE.format(name=o.name)
    return read_side_by_side(path) if o.status == "ok" and path.exists() else None


def _flagged_section(outcomes: Sequence[Outcome]) -> list[str]:
    """Every row whose calibrated number is more than :data:`GAP_FLAG` from the paper's, with its
    cause, across all reproductions; and which reproductions wrote no three-column table."""
    flagged, without = [], []
    for o in outcomes:
        rows = _side_by_side(o)
        if rows is None:
            if o.status == "ok":
                without.append(o.name)
            continue
        flagged += [(o.name, r) for r in rows if r.flagged]
    lines = [f"## Where ours (the paper's baselines, paper-fit setup) differ from the paper's by more than "
             f"{GAP_FLAG:.0%}", ""]
    if flagged:
        lines += ["| reproduction | item | quantity | paper | ours, calibrated | gap | cause |",
                  "|---|---|---|---|---:|---:|---|"]
        lines += [f"| [{name}](#{_anchor(name)}) | {_cell(r.item)} | {_cell(r.quantity)} | {_cell(r.paper)} | "
                  f"{r.shown(r.calibrated)} | {r.gap:.0%} | {_cell(r.cause)} |" for name, r in flagged]
        unexplained = sum(r.cause.strip().lower() == UNEXPLAINED for _, r in flagged)
        lines += ["", f"{len(flagged)} row(s), {unexplained} of them {UNEXPLAINED}.", ""]
    else:
        lines += ["None: every number the reproductions put beside a paper's is within "
                  f"{GAP_FLAG:.0%} of it (or the paper states none).", ""]
    if without:
        lines += [f"No three-column table from: {', '.join(without)}.", ""]
    return lines


def _differences(o: Outcome) -> list[str]:
    """The lines of the reproduction's ``<name>_differences.md`` (none if it wrote no such file)."""
    path = o.folder / DIFFERENCES.format(name=o.name)
    if not path.exists():
        return []
    return [line[2:].strip() for line in path.read_text().splitlines() if line.startswith("- ")]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _anchor(name: str) -> str:
    return f"reproduction-{name}"


def _inside(path: Path, base: Path) -> bool:
    try:
        path.resolve().relative_to(base.resolve())
    except ValueError:
        return False
    return True


def _section(out: Path, o: Outcome, spec: ReproductionSpec) -> list[str]:
    title = f"Paper {spec.paper}: `{o.name}`" if spec.paper else f"`{o.name}`"
    lines = [f'<a id="{_anchor(o.name)}"></a>', "", f"## {title}", "", f"{spec.summary}.", ""]
    if o.status != "ok":
        lines += [f"**Failed** after {o.seconds:.1f} s: `{o.error}`. Traceback: "
                  f"{_link(o.folder / 'error.txt', out)}; output before the failure: "
                  f"{_link(o.folder / 'output.log', out)}.", ""]
        return lines
    files = sorted(p for p in o.folder.iterdir() if p.is_file())
    embedded = (f"{o.name}_vs_paper.md", DIFFERENCES.format(name=o.name), SIDE_BY_SIDE.format(name=o.name))
    tables = [p for p in files if p.suffix in (".csv", ".md") and p != o.report and p.name not in embedded]
    plots = [p for p in files if p.suffix in (".png", ".svg", ".pdf")]
    report = _link(o.report, out) if _inside(o.report, out) else f"`{o.report}`"
    lines += [f"Ran in {o.seconds:.1f} s. Report: {report}. What it printed: {_link(o.folder / 'output.log', out)}.",
              ""]
    if tables:
        lines += ["Tables: " + ", ".join(_link(p, out) for p in tables) + ".", ""]
    if plots:
        lines += ["Plots:", ""] + [f"![{p.stem}]({p.relative_to(out).as_posix()})" for p in plots] + [""]
    comparison = o.folder / f"{o.name}_vs_paper.md"
    lines += ["### Ours beside the paper's", ""]
    differences = _differences(o)
    if differences:
        lines += ["Why our numbers differ from the paper's (from the reproduction's report):", ""]
        lines += [f"- {d}" for d in differences] + [""]
    rows = _side_by_side(o)
    if rows is not None:
        lines += ["Three columns: the paper's number; ours with the paper's baselines and the `paper-fit` setup; "
                  f"ours with the package's defaults. A gap over {GAP_FLAG:.0%} (bold) has its measured cause.", "",
                  side_by_side_markdown(rows)]
    if comparison.exists():
        lines += [_demote(comparison.read_text().strip()), ""]
    else:
        lines += [f"This reproduction writes no side-by-side comparison (`{comparison.name}`); its report "
                  "says what the paper states.", ""]
    return lines


def _demote(markdown: str, top: int = 4) -> str:
    """The headings of an embedded file shifted so that its highest one is at level *top*, under
    the section's own."""
    lines = markdown.splitlines()
    levels = [len(line) - len(line.lstrip("#")) for line in lines if line.startswith("#")]
    if not levels:
        return markdown
    shift = top - min(levels)
    return "\n".join("#" * shift + line if line.startswith("#") and shift > 0 else line for line in lines)
