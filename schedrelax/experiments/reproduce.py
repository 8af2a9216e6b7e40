"""Paper reproductions, by name: ``schedrelax reproduce NAME [--quick] [--out DIR]``, and
``schedrelax reproduce all``, every registered one into one report folder with an index.

Each paper module registers a function ``(out_dir: Path, *, quick: bool, seed: int, **options) ->
Path`` that writes its tables and plots into *out_dir* and returns the report file it wrote. A
reproduction may also write ``<name>_vs_paper.md``: its numbers beside the ones the paper's text
states (or a note that the paper only has a figure); :func:`reproduce_all` puts that file into
the index, in the reproduction's section.

``reproduce all`` runs each reproduction into ``OUT/<name>/``, with what it prints captured in
``OUT/<name>/output.log``; one that raises is recorded in the index with its error (the traceback
in ``OUT/<name>/error.txt``) and the others still run. The index is ``OUT/report.md``.
"""

from __future__ import annotations

import contextlib
import csv
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Reproduction = Callable[..., Path]

INDEX = "report.md"
"""The index file ``reproduce all`` writes at the top of its output folder."""


@dataclass(frozen=True)
class ReproductionSpec:
    """A registered reproduction: its function, one-line summary, the extra keyword options it
    accepts, and the paper (file number and sections) it reproduces, for the index."""

    name: str
    fn: Reproduction
    summary: str
    options: tuple[str, ...] = ()
    paper: str = ""


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


def _options_for(spec: ReproductionSpec, options: dict, strict: bool) -> dict:
    unknown = sorted(k for k, v in options.items() if v is not None and k not in spec.options)
    if unknown and strict:
        raise ValueError(f"reproduction {spec.name!r} has no option {unknown[0]!r}")
    return {k: v for k, v in options.items() if k in spec.options and v is not None}


def reproduce(name: str, out_dir: str | Path, *, quick: bool = False, seed: int = 0, **options) -> list[Path]:
    """Run reproduction *name* into *out_dir* and return its report; ``"all"`` runs every one
    (see :func:`reproduce_all`, silently) and returns the index followed by the reports written."""
    specs = available()
    if name == "all":
        index, outcomes = reproduce_all(out_dir, quick=quick, seed=seed, echo=None, **options)
        return [index, *(o.report for o in outcomes if o.report is not None)]
    if name not in specs:
        raise ValueError(f"unknown reproduction {name!r}; choose one of: {', '.join(['all', *specs])}")
    spec = specs[name]
    opts = _options_for(spec, options, strict=True)
    target = Path(out_dir)
    target.mkdir(parents=True, exist_ok=True)
    return [spec.fn(target, quick=quick, seed=seed, **opts)]


def reproduce_all(out_dir: str | Path, *, quick: bool = False, seed: int = 0, names: Sequence[str] | None = None,
                  echo: Callable[[str], None] | None = print, **options) -> tuple[Path, list[Outcome]]:
    """Run every registered reproduction (or those in *names*) into ``out_dir/<name>/`` and write
    the index ``out_dir/report.md``; returns it and one :class:`Outcome` per reproduction.

    A reproduction that raises is recorded (one line in the index, the traceback in its folder's
    ``error.txt``) and the next one runs. *echo* gets a progress line as each one starts and ends
    (None: silent); what the reproductions print goes to their folder's ``output.log``. Options
    (e.g. ``swim``) go to the reproductions that accept them.
    """
    specs = available()
    if names is not None:
        unknown = [n for n in names if n not in specs]
        if unknown:
            raise ValueError(f"unknown reproduction {unknown[0]!r}; choose among: {', '.join(specs)}")
        specs = {n: specs[n] for n in names}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    say = echo or (lambda _line: None)
    t_all = time.perf_counter()
    outcomes = []
    for k, spec in enumerate(specs.values(), 1):
        folder = out / spec.name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "error.txt").unlink(missing_ok=True)
        say(f"[{k}/{len(specs)}] {spec.name}: running{' (quick)' if quick else ''} ...")
        t0 = time.perf_counter()
        try:
            with open(folder / "output.log", "w") as log, contextlib.redirect_stdout(log):
                report = Path(spec.fn(folder, quick=quick, seed=seed, **_options_for(spec, options, strict=False)))
        except Exception as exc:  # noqa: BLE001 - recorded in the index; the others still run
            seconds = time.perf_counter() - t0
            error = f"{type(exc).__name__}: {exc}".splitlines()[0][:500]
            (folder / "error.txt").write_text(traceback.format_exc())
            outcomes.append(Outcome(spec.name, "failed", seconds, folder, error=error))
            say(f"[{k}/{len(specs)}] {spec.name}: FAILED after {seconds:.1f} s: {error}")
            continue
        seconds = time.perf_counter() - t0
        outcomes.append(Outcome(spec.name, "ok", seconds, folder, report=report))
        say(f"[{k}/{len(specs)}] {spec.name}: ok in {seconds:.1f} s, report {report}")
    index = out / INDEX
    index.write_text(index_markdown(out, outcomes, specs, quick=quick, seed=seed,
                                    seconds=time.perf_counter() - t_all, load_errors=list(_LOAD_ERRORS)))
    ok = sum(o.status == "ok" for o in outcomes)
    say(f"index written to {index} ({ok} of {len(outcomes)} ok"
        + (f"; {len(_LOAD_ERRORS)} module import error(s)" if _LOAD_ERRORS else "") + ")")
    return index, outcomes


def _link(path: Path, base: Path) -> str:
    rel = path.relative_to(base).as_posix()
    return f"[{path.name}]({rel})"


def index_markdown(out: Path, outcomes: Sequence[Outcome], specs: dict[str, ReproductionSpec], *, quick: bool,
                   seed: int, seconds: float, load_errors: Sequence[str] = ()) -> str:
    """The index of a ``reproduce all`` folder: a summary table, then one section per
    reproduction (its paper, status, report, tables, plots, and its numbers beside the paper's)."""
    ok = sum(o.status == "ok" for o in outcomes)
    lines = [
        "# schedrelax: paper reproductions",
        "",
        f"{'Quick (CI-sized) run, `--quick`' if quick else 'Paper-size run'}, seed {seed}: {ok} of {len(outcomes)} "
        f"reproductions ran, in {seconds:.1f} s. Each section links the reproduction's report, tables and plots, "
        "and shows its numbers beside those the paper's text states. Every schedule in them passed `verify`.",
        "",
    ]
    for err in load_errors:
        lines += [f"**Not every reproduction could be loaded**: {err}", ""]
    lines += ["| reproduction | paper | status | seconds | report |", "|---|---|---|---:|---|"]
    for o in outcomes:
        spec = specs[o.name]
        status = "ok" if o.status == "ok" else f"**failed**: {_cell(o.error)}"
        report = _link(o.report, out) if o.report is not None and _inside(o.report, out) else "-"
        lines.append(f"| [{o.name}](#{_anchor(o.name)}) | {_cell(spec.paper) or '-'} | {status} | {o.seconds:.1f} "
                     f"| {report} |")
    lines.append("")
    for o in outcomes:
        lines += _section(out, o, specs[o.name])
    return "\n".join(lines).rstrip() + "\n"


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
    tables = [p for p in files if p.suffix in (".csv", ".md") and p != o.report and p.name != f"{o.name}_vs_paper.md"]
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
