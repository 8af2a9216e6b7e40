"""Reproduction of the papers' online experiments with :mod:`schedrelax.online` (issue 9).

``schedrelax reproduce online [--quick]`` writes into the output folder:

* ``online_runs.csv``: one row per (experiment, setting, seed, algorithm): the objective, the
  online metrics (weighted average delay, average delay, makespan, average and maximum stretch),
  the lower bound of :func:`schedrelax.online.online_lower_bound` and the ratio to it, the number
  of re-plans and the planning seconds per event;
* ``online_synchpack.md`` / ``.png``: paper 003 §7.2 (Fig. 5). (a) SynchPack-3, Tetris-p and PSRS
  on single-machine placement, per weight type; (b) SynchPack-2, Tetris-np and JSQ-MW with three
  local machines and α = 2, per weight type; (c) the (b) algorithms with equal weights across
  traffic intensities (the generator's offered ``load``; the paper scales the arrival times). The
  measure is the weighted average delay Σ w_j (C_j − r_j) / Σ w_j, and each baseline's gain over
  SynchPack ((baseline − ours) / ours) sits beside the paper's ranges. Every policy re-plans at each
  arrival. Given a part of the Google 2011 trace's ``task_events`` table
  (:func:`schedrelax.experiments.reproduce.google_trace`:
  ``--google PATH``, else the environment variable ``SCHEDRELAX_GOOGLE_TRACE``, else
  ``../shared/data/google2011`` beside a source checkout if it is there), panels (a) and (b)'s
  algorithms also run on its first jobs with their submission times; otherwise that part is
  skipped and the report says why and where the trace can be obtained.
* ``online_spc.md`` / ``.png``: paper 004 §VI-B Fig. 6 layout: S-PC re-optimising at every arrival
  and departure on m = 50, 100, 150 machines with speed-ups uniform in [1, 3], weights uniform in
  [1, 10], 60 % map tasks; total weighted completion time (a) and its accumulation over time (b).
  MarS (the paper's comparison) is not implemented: Identical-machine (S-PC believing every
  machine runs at the mean speed, which is MarS's identical-speed assumption) and FIFO stand in.
* ``online_flowflex.md`` / ``.png``: paper 000 §4.2 with random arrivals (exponential
  inter-arrival times): average completion time (from arrival), makespan, average and maximum
  stretch of FlowFlex, Fair and FIFO, re-planned every epoch; the paper's Table 4 (cluster seconds,
  not comparable in units) is quoted beside ours.
* ``online.md``: the report.

``--quick`` runs every panel on a few small instances, one seed. ``online_differences.md`` lists
how the setting differs from the papers' (for the index of ``reproduce all``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schedrelax.algorithms import run
from schedrelax.experiments.reproduce import (GOOGLE_SOURCE, google_trace, progress_bar, register_reproduction,
                                              write_csv, write_differences)
from schedrelax.instances import MalleableInstance, RelatedInstance
from schedrelax.instances.generate import PACKING_WEIGHTS
from schedrelax.instances.generate import flowflex as flowflex_setting
from schedrelax.instances.generate import spc as spc_setting
from schedrelax.instances.generate import synchpack as synchpack_setting
from schedrelax.online import online_lower_bound

SYNCHPACK_PANELS = {"a": ("synchpack3", "tetris", "psrs"), "b": ("synchpack2", "tetris-np", "jsq-mw"),
                    "c": ("synchpack2", "tetris-np", "jsq-mw")}
PAPER_SYNCHPACK_GAINS = {"a": {"tetris": (0.11, 0.27), "psrs": (0.36, 0.65)},
                         "b": {"tetris-np": (1.09, 1.89), "jsq-mw": (1.09, 1.89)}}
"""Paper 003 §7.2: baselines' weighted average delay over SynchPack's, minus 1 (Fig. 5(a), (b))."""

SPC_ALGORITHMS = ("spc", "identical-machine", "fifo")
PAPER_SPC = "S-PC outperforms MarS by up to 34 % (m = 50, high load); the gap grows over time (Fig. 6(b))"

FLOWFLEX_ALGORITHMS = ("flowflex", "fair", "fifo")
PAPER_TABLE4 = {"average completion time": 170, "average stretch": 1.33, "makespan": 757, "maximum stretch": 2.20}
"""Paper 000 Table 4 (random arrivals): the best FlowFlex variant per column (cluster seconds)."""


def _record(experiment: str, setting: str, seed: int, algorithm: str, result, lb: float | None, seconds: float,
            weights: np.ndarray) -> dict:
    m = result.info["metrics"]
    return {"experiment": experiment, "setting": setting, "seed": seed, "algorithm": algorithm,
            "objective": result.objective, **m, "lower_bound": lb,
            "ratio": result.objective / lb if lb else None, "replans": result.info["replans"],
            "planning_seconds_per_event": result.info["planning_seconds_per_event"], "seconds": seconds,
            "accumulation": _accumulation(result.evaluation.completion, weights)}


def _accumulation(C: np.ndarray, w: np.ndarray) -> list[tuple[float, float]]:
    """(time, Σ w_j C_j of the jobs completed by then), the curve of paper 004 Fig. 6(b)."""
    order = np.argsort(C)
    return list(zip(C[order].tolist(), np.cumsum((w * C)[order]).tolist()))


def _run_all(experiment: str, setting: str, seed: int, instance, names: Sequence[str],
             step: Callable[[], Any] | None = None, **params) -> list[dict]:
    lb, _, _ = online_lower_bound(instance)
    weights = np.ones(instance.n_flows) if isinstance(instance, MalleableInstance) else np.asarray(instance.weights)
    out = []
    for name in names:
        t0 = time.perf_counter()
        r = run(f"online:{name}", instance, seed=seed, params={"bound": False, **params})
        out.append(_record(experiment, setting, seed, name, r, lb, time.perf_counter() - t0, weights))
    if step is not None:
        step()
    return out


# ------------------------------------------------------------------------------------------
# paper 003 §7.2
# ------------------------------------------------------------------------------------------

def synchpack_sizes(quick: bool) -> dict:
    """Generator sizes of the §7.2 runs: ours (the paper's are in its online appendix only)."""
    return {"machines": 4, "n_jobs": 10, "tasks_per_job": (1, 4)} if quick else \
        {"machines": 20, "n_jobs": 60, "tasks_per_job": (1, 20)}


def _synchpack_plan(quick: bool, seed: int) -> tuple[list[int], tuple[float, ...]]:
    return ([seed] if quick else [seed, seed + 1, seed + 2]), ((0.5, 0.9) if quick else (0.3, 0.5, 0.7, 0.9))


def synchpack_runs(quick: bool, seed: int, google: str | Path | None = None,
                   step: Callable[[], Any] | None = None) -> tuple[list[dict], str]:
    """Paper 003 §7.2's panels on the synthetic stand-in, and on a Google 2011 trace part when
    :func:`google_trace` finds one (*google*: ``--google``); returns the rows and a note saying
    which trace part ran, or why none did and where to obtain it. *step* is called per instance."""
    size = synchpack_sizes(quick)
    seeds, loads = _synchpack_plan(quick, seed)
    trace_file, origin = google_trace(google)  # a bad --google fails here, before any run
    rows: list[dict] = []
    for s in seeds:
        for weights in PACKING_WEIGHTS:
            a = synchpack_setting(s, weights=weights, alpha=None, local_machines=1, online=True, **size)
            rows += _run_all("synchpack-a", weights, s, a, SYNCHPACK_PANELS["a"], step)
            b = synchpack_setting(s, weights=weights, alpha=2.0, online=True, **size)
            rows += _run_all("synchpack-b", weights, s, b, SYNCHPACK_PANELS["b"], step)
        for load in loads:
            c = synchpack_setting(s, weights="equal", alpha=2.0, online=True, load=load, **size)
            rows += _run_all("synchpack-c", f"load {load:g}", s, c, SYNCHPACK_PANELS["c"], step)
    if trace_file is None:
        return rows, f"Google 2011 trace part skipped: {origin}. It is {GOOGLE_SOURCE}."
    from schedrelax.instances.google import load_google_tasks

    trace = load_google_tasks(trace_file, max_jobs=15 if quick else 150, online=True, seed=seed)
    g = trace.instance
    rows += _run_all("synchpack-google", "trace placement", seed, g, SYNCHPACK_PANELS["a"] + SYNCHPACK_PANELS["b"],
                     step)
    note = (f"Google 2011 trace part `{trace_file.name}` (from {origin}): {g.n_jobs} jobs, {g.n_tasks} tasks on "
            f"{g.n_machines} machines.")
    return rows, note


# ------------------------------------------------------------------------------------------
# paper 004 §VI-B, Fig. 6
# ------------------------------------------------------------------------------------------

def spc_instance(seed: int, machines: int, n_jobs: int, tasks: tuple[int, int]) -> RelatedInstance:
    """The Fig. 6 setup on the spc generator: Poisson arrivals, weights U[1, 10], speeds U[1, 3]
    (the paper's "speed-up ranging from 1 to 3"; sizes in the generator's MB, speeds rescaled)."""
    base = spc_setting(seed, n_jobs=n_jobs, tasks_per_job=tasks, machines=machines, w_max=10.0, online=True)
    speeds = np.random.default_rng(seed).uniform(1.0, 3.0, machines) * 50.0
    # Arrival times scaled by the change in total speed keep the generator's offered load (0.7)
    # and keep a job's map and reduce nodes arriving together.
    scale = float(np.sum(base.speeds)) / float(speeds.sum())
    jobs = tuple(dataclasses.replace(job, release=float(base.release[j]) * scale) for j, job in enumerate(base.jobs))
    return RelatedInstance(speeds=speeds, jobs=jobs, edges=base.edges, name=f"fig6 m={machines}")


def _spc_sizes(quick: bool) -> tuple[tuple[int, ...], int, tuple[int, int]]:
    return ((5, 10, 15), 8, (1, 6)) if quick else ((50, 100, 150), 100, (1, 50))


def spc_runs(quick: bool, seed: int, step: Callable[[], Any] | None = None) -> list[dict]:
    """Paper 004 Fig. 6's runs (*step* is called per instance)."""
    ms, n_jobs, tasks = _spc_sizes(quick)
    rows = []
    for m in ms:
        inst = spc_instance(seed, m, n_jobs, tasks)
        rows += _run_all("spc-fig6", f"m={m}", seed, inst, SPC_ALGORITHMS, step, replan_on="events")
    return rows


# ------------------------------------------------------------------------------------------
# paper 000 §4.2
# ------------------------------------------------------------------------------------------

def flowflex_instance(seed: int, quick: bool) -> MalleableInstance:
    """10 flows of 2 to 10 jobs on P = 190 (paper 000 §4.2), released with exponential gaps whose
    mean is the mean flow's work over P (the cluster kept busy, as in the paper's runs)."""
    P = 20 if quick else 190
    base = flowflex_setting(seed, processors=P, n_flows=(4, 4) if quick else (10, 10), jobs_per_flow=(2, 10),
                            cost="completion", objective="minisum")
    gap = float(np.mean(base.flow_work())) / P
    release = np.cumsum(np.random.default_rng(seed).exponential(gap, base.n_flows)) - gap
    flows = tuple(dataclasses.replace(fl, release=float(max(r, 0.0))) for fl, r in zip(base.flows, release))
    return MalleableInstance(P, flows, "minisum", name="flowflex random arrivals")


def flowflex_runs(quick: bool, seed: int, step: Callable[[], Any] | None = None) -> list[dict]:
    """Paper 000 §4.2's runs with random arrivals (*step* is called per instance)."""
    seeds = [seed] if quick else [seed, seed + 1, seed + 2]
    rows = []
    for s in seeds:
        inst = flowflex_instance(s, quick)
        epoch = float(np.mean(inst.flow_work())) / inst.processors / 4
        rows += _run_all("flowflex-4.2", "random arrivals", s, inst, FLOWFLEX_ALGORITHMS, step, epoch=epoch)
    return rows


def _instances(quick: bool, seed: int, google: bool) -> int:
    """How many instances :func:`reproduce_online` runs (for its progress bar)."""
    seeds, loads = _synchpack_plan(quick, seed)
    return len(seeds) * (2 * len(PACKING_WEIGHTS) + len(loads)) + int(google) + len(_spc_sizes(quick)[0]) \
        + (1 if quick else 3)


# ------------------------------------------------------------------------------------------
# tables and plots
# ------------------------------------------------------------------------------------------

def _mean(rows, experiment, setting, algorithm, key):
    vals = [r[key] for r in rows if r["experiment"] == experiment and r["setting"] == setting
            and r["algorithm"] == algorithm]
    return float(np.mean(vals)) if vals else float("nan")


def _settings(rows, experiment):
    return list(dict.fromkeys(r["setting"] for r in rows if r["experiment"] == experiment))


def synchpack_markdown(rows: Sequence[dict], note: str) -> str:
    out = ["# Paper 003 §7.2 (Fig. 5): weighted average delay, online, re-planned at every arrival", ""]
    for panel in ("a", "b", "c", "google"):
        exp = f"synchpack-{panel}"
        algs = SYNCHPACK_PANELS.get(panel, SYNCHPACK_PANELS["a"] + SYNCHPACK_PANELS["b"])
        if not _settings(rows, exp):
            continue
        out += [f"## ({panel})", "", "| setting | " + " | ".join(algs) + " | gains over SynchPack | paper's gains |",
                "|---|" + "---|" * (len(algs) + 2)]
        for setting in _settings(rows, exp):
            v = {a: _mean(rows, exp, setting, a, "weighted_average_delay") for a in algs}
            ours = v[algs[0]]
            gains = ", ".join(f"{a} {v[a] / ours - 1:+.0%}" for a in algs[1:]) if panel != "google" else "-"
            paper = ", ".join(f"{a} {lo:.0%}-{hi:.0%}" for a, (lo, hi) in PAPER_SYNCHPACK_GAINS.get(panel, {}).items())
            out.append(f"| {setting} | " + " | ".join(f"{v[a]:.4g}" for a in algs) + f" | {gains} | {paper or '-'} |")
        out.append("")
    out += [note, ""]
    return "\n".join(out)


def spc_markdown(rows: Sequence[dict]) -> str:
    out = ["# Paper 004 §VI-B (Fig. 6): S-PC re-optimised at every arrival and departure", "",
           "| machines | " + " | ".join(SPC_ALGORITHMS) + " | LP bound | S-PC gain over Identical-machine | "
           "re-plans | planning s/event (S-PC) |", "|---|" + "---|" * (len(SPC_ALGORITHMS) + 4)]
    for setting in _settings(rows, "spc-fig6"):
        v = {a: _mean(rows, "spc-fig6", setting, a, "objective") for a in SPC_ALGORITHMS}
        lb = _mean(rows, "spc-fig6", setting, "spc", "lower_bound")
        out.append(f"| {setting} | " + " | ".join(f"{v[a]:.4g}" for a in SPC_ALGORITHMS)
                   + f" | {lb:.4g} | {v['identical-machine'] / v['spc'] - 1:+.0%} | "
                   f"{_mean(rows, 'spc-fig6', setting, 'spc', 'replans'):.0f} | "
                   f"{_mean(rows, 'spc-fig6', setting, 'spc', 'planning_seconds_per_event'):.3f} |")
    out += ["", f"Paper: {PAPER_SPC}. MarS is not implemented; Identical-machine stands in for it.", ""]
    return "\n".join(out)


def flowflex_markdown(rows: Sequence[dict]) -> str:
    keys = (("average completion time", "average_delay"), ("average stretch", "average_stretch"),
            ("makespan", "makespan"), ("maximum stretch", "max_stretch"))
    out = ["# Paper 000 §4.2: FlowFlex, Fair and FIFO with random arrivals (epoch re-planning)", "",
           "| algorithm | " + " | ".join(k for k, _ in keys) + " | ratio to bound (Σ C) |",
           "|---|" + "---|" * (len(keys) + 1)]
    for a in FLOWFLEX_ALGORITHMS:
        out.append(f"| {a} | " + " | ".join(f"{_mean(rows, 'flowflex-4.2', 'random arrivals', a, k):.4g}"
                                           for _, k in keys)
                   + f" | {_mean(rows, 'flowflex-4.2', 'random arrivals', a, 'ratio'):.3f} |")
    out.append("| paper Table 4 (cluster seconds) | " + " | ".join(f"{PAPER_TABLE4[k]}" for k, _ in keys) + " | - |")
    out += ["", "Paper: for all objectives but makespan Fair and FIFO are at least 50 % worse than FlowFlex; "
            "makespans are about equal.", ""]
    return "\n".join(out)


def _plot(rows: Sequence[dict], path: Path, experiment_prefix: str, key: str, ylabel: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    exps = sorted({r["experiment"] for r in rows if r["experiment"].startswith(experiment_prefix)})
    fig, axes = plt.subplots(1, len(exps), figsize=(4.5 * len(exps), 3.5), squeeze=False)
    for ax, exp in zip(axes[0], exps):
        settings = _settings(rows, exp)
        algs = list(dict.fromkeys(r["algorithm"] for r in rows if r["experiment"] == exp))
        x = np.arange(len(settings))
        for k, a in enumerate(algs):
            ax.bar(x + (k - (len(algs) - 1) / 2) * 0.8 / len(algs), [_mean(rows, exp, s, a, key) for s in settings],
                   0.8 / len(algs), label=a)
        ax.set_xticks(x, settings, rotation=20)
        ax.set_title(exp)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _plot_accumulation(rows: Sequence[dict], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    settings = _settings(rows, "spc-fig6")
    fig, axes = plt.subplots(1, len(settings), figsize=(4.5 * len(settings), 3.5), squeeze=False)
    for ax, setting in zip(axes[0], settings):
        for r in rows:
            if r["experiment"] == "spc-fig6" and r["setting"] == setting:
                t, c = zip(*r["accumulation"])
                ax.step(t, c, where="post", label=r["algorithm"])
        ax.set_title(f"Fig. 6(b) {setting}")
        ax.set_xlabel("time")
        ax.set_ylabel("accumulated completion time")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path



def differences(quick: bool, google_ran: bool) -> list[str]:
    """How the setting differs from the papers', in the words of the report's parts."""
    sp = synchpack_sizes(quick)
    ms, n_jobs, tasks = _spc_sizes(quick)
    return [
        "§7.2 (Fig. 5): the paper ran a subset of the Google 2011 trace; we run the synthetic stand-in "
        f"({sp['n_jobs']} jobs of {sp['tasks_per_job'][0]}-{sp['tasks_per_job'][1]} tasks on {sp['machines']} "
        "machines), so only the shape of the results can agree"
        + ("" if google_ran else "; the run on a trace part was skipped (no trace given: see the note under "
                                 "the §7.2 tables)"),
        "Fig. 5(c) varies the generator's offered load; the paper scales the arrival times",
        f"Fig. 6 on {', '.join(map(str, ms))} machines with {n_jobs} jobs"
        + (" (--quick; paper: 50, 100, 150 machines)" if quick else "")
        + "; MarS is not implemented: Identical-machine stands in for it",
        "§4.2" + (" on P = 20 processors, 4 flows (--quick; paper: P = 190, 10 flows)" if quick else "")
        + ": the paper's Table 4 is in cluster seconds, not comparable in units with our simulated times",
    ]


@register_reproduction("online", "online re-planning: SynchPack §7.2, S-PC Fig. 6, FlowFlex §4.2 random arrivals",
                       options=("google",), paper="000 FlowFlex §4.2; 003 SynchPack §7.2; 004 S-PC §VI-B")
def reproduce_online(out_dir: Path, *, quick: bool = False, seed: int = 0, google: str | None = None,
                     progress: bool | None = None) -> Path:
    """Write the online reproduction into *out_dir* (module docstring); returns the report.
    *google*: a Google 2011 ``task_events`` part (see :func:`google_trace`); *progress*: a
    progress bar over the instances on stderr (None: only when stderr is a terminal)."""
    out_dir = Path(out_dir)
    t0 = time.perf_counter()
    trace_file, _ = google_trace(google)
    with progress_bar(_instances(quick, seed, trace_file is not None), "online", progress, unit="instance") as bar:
        sp_rows, note = synchpack_runs(quick, seed, google, bar.update)
        spc_rows = spc_runs(quick, seed, bar.update)
        ff_rows = flowflex_runs(quick, seed, bar.update)
    rows = sp_rows + spc_rows + ff_rows
    write_csv(out_dir / "online_runs.csv", rows, [k for k in rows[0] if k != "accumulation"])
    parts = [synchpack_markdown(sp_rows, note), spc_markdown(spc_rows), flowflex_markdown(ff_rows)]
    for name, text in zip(("online_synchpack.md", "online_spc.md", "online_flowflex.md"), parts):
        (out_dir / name).write_text(text)
    # Each part's tables carry the papers' reported gains and Table 4 beside ours.
    (out_dir / "online_vs_paper.md").write_text("\n".join(parts))
    _plot(sp_rows, out_dir / "online_synchpack.png", "synchpack", "weighted_average_delay", "weighted average delay")
    _plot(spc_rows, out_dir / "online_spc.png", "spc", "objective", "Σ w_j C_j")
    _plot_accumulation(spc_rows, out_dir / "online_spc_accumulation.png")
    _plot(ff_rows, out_dir / "online_flowflex.png", "flowflex", "average_delay", "average completion time")
    why = differences(quick, trace_file is not None)
    write_differences(out_dir, "online", why)
    report = out_dir / "online.md"
    report.write_text("# Online re-planning (issue 9)\n\n" + ("quick run (CI sizes)\n\n" if quick else "")
                      + "\n".join(parts) + "\n## How the setting differs from the papers'\n\n"
                      + "".join(f"- {line}.\n" for line in why) + f"\nTotal {time.perf_counter() - t0:.1f} s.\n")
    return report
