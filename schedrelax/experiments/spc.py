"""Reproduction of paper 004 §VI-B (S-PC, "Evaluation of scalability"): Fig. 7 and Fig. 8, in two
columns.

* **calibrated**: the paper's baselines as we read them (HUWF with the job's execution time as
  total data / mean speed, ``huwf-paper``) on the ``spc-paper-fit`` setup (3.5 GB map tasks, each
  job a chain map -> 4 reduce rounds; :data:`schedrelax.instances.generate.SPC_PAPER_FIT`, fitted to
  S-PC's two numbers of Fig. 7: its TWCT at 600 MB and its increase to 1400 MB);
* **default**: the package's own HUWF (``huwf``, execution time = span on an empty cluster) on the
  ``spc`` setup (128 MB map tasks, one map -> reduce round).

Both columns run S-PC, HUWF, Tetris and FIFO (:data:`ROLES`; :data:`COLUMNS` names the registered
algorithm of each role). ``schedrelax reproduce spc [--quick]`` writes into the output folder:

* ``spc_runs.csv``: one row per (column, figure, x value, seed, role): Σ w_j C_j (the paper's total
  weighted job completion time, TWCT), the LP-Schedule bound for S-PC, their ratio, seconds;
* ``spc_fig7.png``, ``spc_fig8.png``: mean TWCT of the four against the reduce tasks' data size
  (Fig. 7, 600 to 1400 MB) and against W_max (Fig. 8, 2 to 18), both columns;
* ``spc.md``: the report; ``spc_vs_paper.md``: the increases, ours beside the paper's;
* ``spc_side_by_side.csv``: one :class:`~schedrelax.experiments.reproduce.PaperRow` per number §VI-B
  states or that follows from two stated numbers (:func:`paper_rows`);
* ``spc_differences.md``: how our setting differs from the paper's.

Instances: 100 MapReduce jobs of 1 to 50 tasks, 100 machines with Normal(50, 10) MB/s speeds,
weights U[1, W_max], 60 % map tasks; each point the mean over 20 seeds, as in the paper. Fig. 7
keeps W_max = 10, Fig. 8 keeps 1000 MB reduce tasks (the middle of Fig. 7). ``--quick`` runs 8 jobs
of 1 to 8 tasks on 6 machines, 2 seeds, 3 points each.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schedrelax.algorithms import run
from schedrelax.experiments.reproduce import (
    PaperRow,
    progress_bar,
    register_reproduction,
    side_by_side_markdown,
    write_csv,
    write_differences,
    write_side_by_side,
)
from schedrelax.instances.generate import spc as spc_setting
from schedrelax.instances.generate import spc_paper_fit

ROLES = ("spc", "huwf", "tetris", "fifo")
"""The four schedulers of Fig. 7 and Fig. 8, by role."""

ALGORITHMS = ROLES
"""Kept for callers of the single-column version: the roles."""

LABEL = {"spc": "S-PC", "huwf": "HUWF", "tetris": "Tetris", "fifo": "FIFO"}


@dataclass(frozen=True)
class Column:
    """One column of the comparison: its generator and the registered algorithm of each role."""

    name: str
    setup: str
    generator: Callable[..., Any]
    algorithms: Mapping[str, str]


COLUMNS = {
    "calibrated": Column("calibrated", "spc-paper-fit", spc_paper_fit,
                         {"spc": "spc", "huwf": "huwf-paper", "tetris": "tetris", "fifo": "fifo"}),
    "default": Column("default", "spc", spc_setting, {"spc": "spc", "huwf": "huwf", "tetris": "tetris", "fifo": "fifo"}),
}
"""calibrated: the paper's baselines on the paper-fit setup; default: ours on the spc setup."""

FIGURES = {
    "fig7": ("reduce_size", "reduce task data size (MB)", (600.0, 800.0, 1000.0, 1200.0, 1400.0)),
    "fig8": ("w_max", "W_max", (2.0, 6.0, 10.0, 14.0, 18.0)),
}
"""Figure -> (generator parameter, axis label, x values)."""

PAPER_INCREASE = {
    "fig7": {"spc": (44680, 0.2098), "huwf": (48730, 0.2169), "tetris": (51321, 0.218), "fifo": (78977, 0.2358)},
    "fig8": {"spc": (330873, None), "huwf": (361123, None), "tetris": (388214, None), "fifo": (561185, None)},
}
"""§VI-B text: each algorithm's TWCT increase over the x range (absolute, and relative where given)."""


def paper_fig7_twct(role: str) -> tuple[float, float]:
    """The paper's TWCT of *role* at 600 and at 1400 MB, from its two stated numbers (increase
    and relative increase): 600 MB = increase / relative, 1400 MB = that + increase."""
    inc, rel = PAPER_INCREASE["fig7"][role]
    return inc / rel, inc / rel + inc


@dataclass(frozen=True)
class RunRecord:
    """One algorithm (its role and registered name) on one instance of one column."""

    figure: str
    x: float
    seed: int
    algorithm: str
    n_nodes: int
    n_tasks: int
    objective: float
    lower_bound: float | None
    ratio: float | None
    seconds: float
    column: str = "default"
    role: str = ""

    @property
    def who(self) -> str:
        """The role (records made without one: the algorithm's name)."""
        return self.role or self.algorithm


def sizes(quick: bool) -> dict:
    """Generator sizes: the paper's, or a small one for ``--quick``."""
    if quick:
        return {"n_jobs": 8, "tasks_per_job": (1, 8), "machines": 6}
    return {"n_jobs": 100, "tasks_per_job": (1, 50), "machines": 100}


def _points(quick: bool, seed: int) -> list[tuple[str, str, str, float, int]]:
    """(column, figure, parameter, x, seed) of every instance."""
    seeds = range(seed, seed + (2 if quick else 20))
    return [(column, figure, param, x, s) for column in COLUMNS for figure, (param, _, xs) in FIGURES.items()
            for x in ((xs[0], xs[len(xs) // 2], xs[-1]) if quick else xs) for s in seeds]


def collect(quick: bool, seed: int, step: Callable[[], Any] | None = None) -> list[RunRecord]:
    """Every run of both figures in both columns; each schedule is verified by :func:`run`.
    *step* is called once per instance."""
    records = []
    for column, figure, param, x, s in _points(quick, seed):
        col = COLUMNS[column]
        inst = col.generator(s, **sizes(quick), **{param: x})
        for role in ROLES:
            t0 = time.perf_counter()
            res = run(col.algorithms[role], inst)
            records.append(RunRecord(figure, x, s, col.algorithms[role], inst.n_jobs, inst.n_tasks, res.objective,
                                     res.lower_bound, res.ratio_to_bound, time.perf_counter() - t0, column, role))
        if step is not None:
            step()
    return records


def differences(quick: bool) -> list[str]:
    """How our setting differs from §VI-B's, in the report's words (``spc_differences.md``)."""
    lines = []
    if quick:
        q, full = sizes(True), sizes(False)
        lines.append(f"--quick: {q['n_jobs']} jobs of {q['tasks_per_job'][0]}-{q['tasks_per_job'][1]} tasks on "
                     f"{q['machines']} machines, 2 seeds, 3 points per figure (paper: {full['n_jobs']} jobs of "
                     f"{full['tasks_per_job'][0]}-{full['tasks_per_job'][1]} tasks, {full['machines']} machines, "
                     "20 seeds, 5 points)")
    lines += [
        "the paper does not give the map tasks' data size, the number of rounds or the map/reduce split of "
        "§VI-B: the calibrated column fits map size (3.5 GB) and rounds (4) to S-PC's two Fig. 7 numbers; "
        "the default column keeps 128 MB map tasks and one round",
        "the paper does not define HUWF's \"job execution time\": the calibrated column reads it as total data / "
        "mean speed (huwf-paper), the default column as the span on an empty cluster (huwf)",
        "the paper's simulator is not published: its Tetris direction (smallest score first) and FIFO's order "
        "(index = release order, all released at 0) are our reading",
    ]
    return lines


def means(records: Sequence[RunRecord], figure: str, column: str | None = None) -> dict[str, dict[float, float]]:
    """Mean TWCT per role and x value (of one column; None: records of any column)."""
    out: dict[str, dict[float, list[float]]] = {}
    for r in records:
        if r.figure == figure and (column is None or r.column == column):
            out.setdefault(r.who, {}).setdefault(r.x, []).append(r.objective)
    return {a: {x: float(np.mean(v)) for x, v in sorted(xs.items())} for a, xs in out.items()}


def plot(records: Sequence[RunRecord], figure: str, path: Path) -> Path:
    """The figure's curves of mean TWCT, one panel per column."""
    from matplotlib.figure import Figure

    param, label, _ = FIGURES[figure]
    columns = [c for c in COLUMNS if any(r.column == c for r in records)]
    fig = Figure(figsize=(5.5 * len(columns), 3.8))
    axes = fig.subplots(1, len(columns), squeeze=False)[0]
    for ax, column in zip(axes, columns):
        for name, series in means(records, figure, column).items():
            ax.plot(list(series), list(series.values()), marker="o", label=COLUMNS[column].algorithms.get(name, name))
        ax.set_xlabel(label)
        ax.set_ylabel("total weighted completion time")
        ax.set_title(f"Fig. {figure[3:]} ({column}, {COLUMNS[column].setup}): TWCT vs {param}")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def figure_markdown(records: Sequence[RunRecord], figure: str, column: str | None = None) -> str:
    """Mean TWCT per x, then each algorithm's increase over the range beside the paper's."""
    table = means(records, figure, column)
    xs = list(next(iter(table.values())))
    lines = ["| algorithm | " + " | ".join(f"{x:g}" for x in xs) + " | increase | paper's increase |",
             "|---|" + "---:|" * (len(xs) + 2)]
    for name in ROLES:
        if name not in table:
            continue
        row = table[name]
        first, last = row[xs[0]], row[xs[-1]]
        paper_abs, paper_rel = PAPER_INCREASE[figure][name]
        paper = f"{paper_abs:,}" + (f" ({paper_rel:.2%})" if paper_rel is not None else "")
        shown = COLUMNS[column].algorithms[name] if column in COLUMNS else name
        lines.append(f"| {shown} | " + " | ".join(f"{row[x]:,.0f}" for x in xs)
                     + f" | {last - first:,.0f} ({(last - first) / first:.2%}) | {paper} |")
    return "\n".join(lines) + "\n"


QUICK_CAUSE = ("--quick: 8 jobs on 6 machines, 2 seeds (paper: 100 jobs, 100 machines, 20 seeds); "
               "run without --quick for the comparison")

_FIFO = ("FIFO is further above S-PC than in the paper (+80 to +90 % vs +57 to +61 %); measured (spc-paper-fit, "
         "3 seeds, 600 MB): giving FIFO Algorithm 2's earliest-finish placement instead of the first available "
         "machine moves it from +87 % to +78 % over S-PC; the rest (its job order, by index, i.e. random in weight "
         "and size) is unexplained")
_TETRIS = ("unexplained: our Tetris (score = tasks x span, smallest first; the paper gives no direction) is +18 % "
           "over S-PC against the paper's +11 %, which scales its absolute numbers")
CAUSES: dict[tuple[str, str], str] = {
    ("Fig. 7", "FIFO TWCT at 600 MB (derived: increase / relative increase)"): _FIFO,
    ("Fig. 7", "FIFO TWCT increase, reduce 600 -> 1400 MB"): _FIFO,
    ("Fig. 7", "FIFO / S-PC - 1, mean over the x values (derived: at 600 and 1400 MB)"): _FIFO,
    ("Fig. 8", "FIFO TWCT increase, W_max 2 -> 18"): _FIFO,
    ("Fig. 8", "FIFO's increase / S-PC's - 1 (derived)"): _FIFO,
    ("Fig. 7", "Tetris TWCT at 600 MB (derived: increase / relative increase)"): _TETRIS,
    ("Fig. 7", "Tetris TWCT increase, reduce 600 -> 1400 MB"): _TETRIS,
    ("Fig. 8", "Tetris TWCT increase, W_max 2 -> 18"): _TETRIS,
    ("Fig. 8", "Tetris's increase / S-PC's - 1 (derived)"): _TETRIS,
    ("Fig. 7", "Tetris / S-PC - 1, mean over the x values (derived: at 600 and 1400 MB)"): _TETRIS,
}
"""(item, quantity) -> the measured cause of a flagged paper-scale row (measured on the paper sizes
with 4 seeds at the end points of each figure; other flagged rows say "unexplained")."""


def _stats(records: Sequence[RunRecord], column: str) -> dict[str, Any]:
    m7, m8 = means(records, "fig7", column), means(records, "fig8", column)
    out: dict[str, Any] = {}
    if not m7 or not m8:
        return out
    x7, x8 = list(m7["spc"]), list(m8["spc"])
    for role in ROLES:
        a7, a8 = m7[role], m8[role]
        out[role, "inc7"] = a7[x7[-1]] - a7[x7[0]]
        out[role, "rel7"] = a7[x7[-1]] / a7[x7[0]] - 1
        out[role, "base7"] = a7[x7[0]]
        out[role, "gain7"] = float(np.mean([a7[x] / m7["spc"][x] - 1 for x in x7]))
        out[role, "inc8"] = a8[x8[-1]] - a8[x8[0]]
    for role in ROLES:
        out[role, "incratio8"] = out[role, "inc8"] / out["spc", "inc8"] - 1
    low = [m8[r][x8[0]] for r in ("spc", "huwf", "tetris")]
    out["spread8"] = max(low) / min(low) - 1
    return out


def paper_rows(records: Sequence[RunRecord], quick: bool = False) -> list[PaperRow]:
    """One row per number §VI-B states for Figs 7-8 (or derives from two stated ones), with the
    calibrated and default columns; a flagged row gets its cause from :data:`CAUSES` (paper
    scale), :data:`QUICK_CAUSE` (``--quick``) or "unexplained"."""
    cal, dft = _stats(records, "calibrated"), _stats(records, "default")
    rows: list[PaperRow] = []

    def add(item: str, quantity: str, paper: str, low: float | None, high: float | None, key: Any,
            percent: bool = False) -> None:
        row = PaperRow(item, quantity, paper, low, high, cal.get(key), dft.get(key), percent=percent)
        if row.flagged:
            cause = QUICK_CAUSE if quick else CAUSES.get((item, quantity), "unexplained")
            row = PaperRow(item, quantity, paper, low, high, row.calibrated, row.default, cause, percent)
        rows.append(row)

    for role in ROLES:
        inc, rel = PAPER_INCREASE["fig7"][role]
        name = LABEL[role]
        add("Fig. 7", f"{name} TWCT increase, reduce 600 -> 1400 MB", f"{inc:,}", inc, inc, (role, "inc7"))
        add("Fig. 7", f"{name} relative TWCT increase, 600 -> 1400 MB", f"{rel:.2%}", rel, rel, (role, "rel7"),
            percent=True)
        base = paper_fig7_twct(role)[0]
        add("Fig. 7", f"{name} TWCT at 600 MB (derived: increase / relative increase)", f"{base:,.0f}", base, base,
            (role, "base7"))
    spc600, spc1400 = paper_fig7_twct("spc")
    for role in ("huwf", "tetris", "fifo"):
        a, b = paper_fig7_twct(role)
        g600, g1400 = a / spc600 - 1, b / spc1400 - 1
        add("Fig. 7", f"{LABEL[role]} / S-PC - 1, mean over the x values (derived: at 600 and 1400 MB)",
            f"{g600:.1%} - {g1400:.1%}", min(g600, g1400), max(g600, g1400), (role, "gain7"), percent=True)
    for role in ROLES:
        inc = PAPER_INCREASE["fig8"][role][0]
        add("Fig. 8", f"{LABEL[role]} TWCT increase, W_max 2 -> 18", f"{inc:,}", inc, inc, (role, "inc8"))
    for role in ("huwf", "tetris", "fifo"):
        ratio = PAPER_INCREASE["fig8"][role][0] / PAPER_INCREASE["fig8"]["spc"][0] - 1
        add("Fig. 8", f"{LABEL[role]}'s increase / S-PC's - 1 (derived)", f"{ratio:.1%}", ratio, ratio,
            (role, "incratio8"), percent=True)
    add("Fig. 8", "S-PC, HUWF, Tetris at W_max = 2: max / min - 1", "\"almost the same\"", None, None, "spread8",
        percent=True)
    return rows


@register_reproduction("spc", "paper 004 §VI-B: Fig. 7 (reduce data size) and Fig. 8 (W_max), S-PC vs HUWF, "
                       "Tetris, FIFO; calibrated (huwf-paper, spc-paper-fit) and default columns",
                       paper="004 S-PC §VI-B")
def reproduce_spc(out_dir: Path, *, quick: bool = False, seed: int = 0, progress: bool | None = None) -> Path:
    """Paper 004 §VI-B in both columns; see the module docstring. Returns ``spc.md``.
    *progress*: a progress bar over the instances on stderr (None: only when stderr is a terminal)."""
    out_dir = Path(out_dir)
    t0 = time.perf_counter()
    with progress_bar(len(_points(quick, seed)), "spc", progress, unit="instance") as bar:
        records = collect(quick, seed, bar.update)
    why = differences(quick)
    write_differences(out_dir, "spc", why)
    write_csv(out_dir / "spc_runs.csv", [asdict(r) for r in records])
    rows = paper_rows(records, quick)
    write_side_by_side(out_dir, "spc", rows)
    pngs = {f: plot(records, f, out_dir / f"spc_{f}.png") for f in FIGURES}
    spc_runs = [r for r in records if r.role == "spc"]
    ratios = [r.ratio for r in spc_runs if r.ratio is not None]
    size = sizes(quick)
    seconds: dict[str, list[float]] = {}
    for r in records:
        seconds.setdefault(f"{r.algorithm} ({r.column})", []).append(r.seconds)
    sections = []
    for column, col in COLUMNS.items():
        sections += [
            f"## {column.capitalize()} column: {col.setup} setup, "
            + ", ".join(f"{LABEL[k]} = `{v}`" for k, v in col.algorithms.items()),
            "",
            "### Fig. 7: TWCT against the reduce tasks' data size (MB), W_max = 10",
            "",
            figure_markdown(records, "fig7", column),
            "### Fig. 8: TWCT against W_max, reduce tasks of 1000 MB",
            "",
            figure_markdown(records, "fig8", column),
        ]
    lines = [
        "# Paper 004 (S-PC), §VI-B reproduction: Fig. 7 and Fig. 8",
        "",
        f"{size['n_jobs']} MapReduce jobs of {size['tasks_per_job'][0]}-{size['tasks_per_job'][1]} tasks, "
        f"{size['machines']} machines, {len({r.seed for r in records})} seed(s) from {seed} per point"
        f"{', --quick' if quick else ''}. Two columns: **calibrated** (the paper's HUWF reading `huwf-paper` on "
        "the `spc-paper-fit` setup: 3.5 GB map tasks, map -> 4 reduce rounds) and **default** (our `huwf` on "
        "the `spc` setup: 128 MB map tasks, one round); see `schedrelax.instances.generate`. TWCT = Σ w_j C_j "
        "in seconds (MB over MB/s). Every schedule passed `verify`.",
        "",
        "## Beside the paper",
        "",
        side_by_side_markdown(rows),
        *sections,
        f"![Fig. 7]({pngs['fig7'].name})",
        "",
        f"![Fig. 8]({pngs['fig8'].name})",
        "",
        "## S-PC against its LP-Schedule bound",
        "",
        f"S-PC / LP over {len(ratios)} runs: mean {np.mean(ratios):.3f}, max {np.max(ratios):.3f} "
        f"(Theorem 2 allows 2(1 + (m-1)/D); here D = 1 whenever a phase has one task).",
        "",
        "## Why ours differ from the paper's",
        "",
        *[f"- {line}." for line in why],
        "",
        "## Seconds per run (mean, LP included)",
        "",
        *[f"- {name}: {np.mean(v):.3f} s" for name, v in seconds.items()],
        "",
        f"Total time {time.perf_counter() - t0:.1f} s.",
        "",
    ]
    (out_dir / "spc_vs_paper.md").write_text("\n".join([
        "Paper 004 §VI-B states, for Figs 7 and 8, each algorithm's increase in TWCT over the x range (and, for "
        "Fig. 7, the relative increase, from which the TWCT at 600 and 1400 MB follow). Three columns: the paper; "
        "ours with the paper's baselines on the fitted `spc-paper-fit` setup (calibrated); ours with our "
        "defaults. The calibrated setup was fitted on S-PC's two Fig. 7 numbers, so those two rows are not a test.",
        "",
        side_by_side_markdown(rows).rstrip(),
        "",
        *[line for column in COLUMNS for line in (
            f"Fig. 7, {column} column, reduce task data size 600 to 1400 MB (mean TWCT per x value, then the "
            "increase):", "", figure_markdown(records, "fig7", column).rstrip(), "",
            f"Fig. 8, {column} column, W_max 2 to 18:", "", figure_markdown(records, "fig8", column).rstrip(), "")],
        "The Hadoop experiments of §VI-A and §VI-C (Figs 4-5 and 10-13; \"up to 82%\" over the baselines, says "
        "the abstract) and the online re-optimisation of Fig. 6 (S-PC against MarS, `mars`) are not part of this "
        "reproduction (Fig. 6 is in the `online` one).",
        "",
    ]))
    report = out_dir / "spc.md"
    report.write_text("\n".join(lines))
    return report
