"""ASRPT (Zheng, Shroff, Sinha, INFOCOM 2013, paper 001) §VII, declared: ASRPT against DSRPT,
FIFO, Fair and LRPT — the efficiency ratios of Figs 5-8, their convergence over T (Fig. 9) and the
flow-time tails of Figs 10-13, as the relations the text states; and an optional SWIM trace panel.

Setup (§VII-A): instances of the ``asrpt`` generator (:func:`schedrelax.instances.generate.asrpt`
states its own choices): N = 100 machines, Poisson(λ = 2) arrivals per slot over T = 500 slots, up
to 10 Reduce tasks per job, the four workload cases of Figs 5-8 (traffic intensity 0.9). The
efficiency ratio is total flow time over the SRPT bound of Lemma 1 (§VII-B). Every policy runs
through ``run`` (verified).

Scenarios (the cell's ``scenario``): ``preemptive`` is the paper's eq. (1) — a job's Reduce
workload runs on as many machines as it has units, expressed as unit Reduce tasks
(:func:`~schedrelax.schedulers.mapreduce_sim.unit_reduce_tasks`); ``non-preemptive`` is eq. (2);
``preemptive-tasks`` (a variation: our reading with one machine per Reduce task at a time) keeps
the instance's tasks and lets them be interrupted. Setting ``main`` is preemptive, setting
``non-preemptive`` the other scenario the paper claims ("ASRPT performs better than other
schedulers in both preemptive and non-preemptive scenarios").

Figs 5-13 are plots: the text gives no efficiency ratio, so each figure statement is a relation
(ASRPT's total flow time below each baseline's: a gain of at least 0; within 3 × the bound; the
ratios converging as T grows, read as within ±5 % from T/2 to T on the same sample path). Fig. 9's
points are prefixes (the jobs that arrive before t) of the T = 500 paths of its workload.

SWIM panel: ``--set swim=PATH`` runs the policies once on a SWIM trace
(:func:`schedrelax.instances.swim.load_swim`: 60 s slots, 128 MiB blocks, machines for load
``swim_load``, 0.8 unless set; ``swim_hours`` keeps the first hours). The paper runs no trace: its
rows hold ASRPT to its synthetic claim. Without a trace the ``swim`` point does not run and its rows
are left out of the report, which says so.

§IV (no constant competitive ratio): the Case II instance on one machine, non-preemptive, for Q =
5, 20, 50 — ASRPT's flow time over the offline S_2's against eq. (6)'s Q / (c_0 + 2).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from schedrelax.experiments.engine import (
    Band,
    Experiment,
    Gain,
    Mean,
    Paper,
    Point,
    Row,
    Seeds,
    Variation,
    Worst,
    metric,
)

POLICIES = ("asrpt", "dsrpt", "fifo", "fair", "lrpt")
BASELINES = ("dsrpt", "fifo", "fair", "lrpt")
LABEL = {"asrpt": "ASRPT", "dsrpt": "DSRPT", "fifo": "FIFO", "fair": "Fair", "lrpt": "LRPT"}
SCENARIOS = ("preemptive", "preemptive-tasks", "non-preemptive")

FIGURES = {"exp-large-reduce": "Fig. 5", "exp-small-reduce": "Fig. 6", "uniform-large-reduce": "Fig. 7",
           "uniform-small-reduce": "Fig. 8"}
"""Figs 5-8: the workload cases of §VII-B (Map, Reduce): Exp(5)/Exp(40), Exp(30)/Exp(15),
U[1, 9]/U[10, 70], U[10, 50]/U[10, 20]."""

CONVERGENCE_WORKLOAD = "uniform-small-reduce"
CONVERGENCE_FRACTIONS = (0.1, 0.2, 0.5)
"""Fig. 9 (U[10, 50]/U[10, 20]): the prefixes of T run besides T itself (T = 50, 100, 250 of 500)."""

CDF_LIMIT = 100
"""§VII-C: "We plot the CDF only for flow-time up to 100 units"."""

PAPER_BOUND_FACTOR = 3.0
"""After Corollary 2: "the total flow-time of ASRPT is not greater than 3 times of the lower bound
given by Lemma 1 with probability 1, when n goes to infinity"."""

SMALLER = "§VII-B: \"the total flow-time of ASRPT is much smaller than all the other schedulers\" (gain ≥ 0)"
BOTH = ("§VI: \"ASRPT performs better than other schedulers in both preemptive and non-preemptive scenarios\" "
        "(gain ≥ 0)")
TAIL_SIMILAR = ("§VII-C: \"the ASRPT scheduler has a very light tail in the CDF of flow-time, compared to the FIFO "
                "and Fair schedulers. In other words, the fairness of the ASRPT scheduler is similar\" (read: ASRPT's "
                "95th percentile at most 10 % above theirs, gain ≥ -9.1 %)")
TAIL_LRPT = "§VII-C: \"the LRPT scheduler has a long tail\" (ASRPT's 95th percentile below LRPT's: gain ≥ 0)"
SIMILAR = 1 / 1.1 - 1
"""A 95th percentile "similar" to FIFO's and Fair's: ASRPT's at most 10 % above theirs."""
CONVERGE = ("Fig. 9: the efficiency ratios converge as T grows (read: within ±5 % from T = 250 to T = 500 on the "
            "same path)")
NO_TRACE = "the paper runs no trace; Figs 5-8: ASRPT's total flow time below {x}'s (gain ≥ 0)"
SWIM_LOAD_SENTENCE = ("§VII-A: N = 100, λ = 2 and mean work 45 per job make a traffic intensity of 0.9; the trace's "
                      "load is set by our conversion (machines for a target load): 0.6 to 0.95")


# ------------------------------------------------------------------------------------------ the cell

def scenario_instance(instance, scenario: str):
    from schedrelax.schedulers.mapreduce_sim import unit_reduce_tasks

    if scenario == "preemptive":
        return unit_reduce_tasks(instance), True
    if scenario == "preemptive-tasks":
        return instance, True
    if scenario == "non-preemptive":
        return instance, False
    raise ValueError(f"scenario must be one of {', '.join(SCENARIOS)}, got {scenario!r}")


def prefix(instance, slots: int):
    """The jobs that arrive in the first *slots* slots: the system observed up to T = *slots*."""
    from schedrelax.instances import MapReduceInstance

    jobs = tuple(job for job in instance.jobs if job.arrival < slots)
    return MapReduceInstance(instance.machines, jobs, name=f"{instance.name} T={slots}")


def policy_records(instance, scenario: str) -> list[dict]:
    """Every policy on *instance* in *scenario* (each schedule verified by ``run``): total flow
    time, the SRPT bound of Lemma 1 and their ratio, the tail of the flow times (95th percentile,
    the share within 100 slots), ASRPT over DSRPT, the mean jobs in system and the offered load."""
    from schedrelax.algorithms import run
    from schedrelax.schedulers.mapreduce_sim import srpt_lower_bound

    bound = float(srpt_lower_bound(instance))
    inst, preemptive = scenario_instance(instance, scenario)
    out = {}
    for name in POLICIES:
        res = run(name, inst, params={"preemptive": preemptive})
        flow = np.asarray(res.evaluation.completion, dtype=float) - inst.arrival
        span = float(np.max(res.evaluation.completion)) - float(inst.arrival.min())
        out[name] = {"algorithm": name, "scenario": scenario, "jobs": inst.n_jobs, "total_flow": float(res.objective),
                     "srpt_bound": bound, "ratio": float(res.objective) / bound,
                     "p95": float(np.percentile(flow, 95)), "within_100": float(np.mean(flow <= CDF_LIMIT)),
                     "jobs_in_system": float(flow.sum()) / span, "offered_load": float(inst.load),
                     "machines": inst.machines}
    out["asrpt"]["over_dsrpt"] = out["asrpt"]["total_flow"] / out["dsrpt"]["total_flow"]
    return list(out.values())


def cell(seed: int, *, kind: str = "synthetic", scenario: str, machines: int, rate: float, slots: int,
         workload: str = "exp-large-reduce", max_reduce_tasks: int = 10, fraction: float = 1.0, swim=None,
         swim_load: float = 0.8, swim_hours=None, Q: int = 5) -> list[dict]:
    """One run of every policy: *kind* ``"synthetic"`` (a §VII-A instance; *fraction* < 1 keeps
    the prefix of its first fraction·T slots, Fig. 9), ``"swim"`` (the trace *swim*; no record
    when none is given) or ``"section-iv"`` (§IV's construction for *Q*, :func:`section_iv_records`)."""
    if kind == "section-iv":
        return section_iv_records(int(Q))
    if kind == "synthetic":
        from schedrelax.instances.generate import asrpt as generate

        inst = generate(seed, machines=machines, rate=rate, slots=slots, workload=workload,
                        max_reduce_tasks=max_reduce_tasks)
        if not 0 < float(fraction) <= 1:
            raise ValueError(f"fraction must be in (0, 1], got {fraction!r}")
        if fraction < 1:
            inst = prefix(inst, max(1, int(round(fraction * slots))))
        return policy_records(inst, scenario)
    if kind == "swim":
        if swim is None or swim == "":
            return []
        from schedrelax.instances.swim import load_swim

        duration = None if swim_hours is None else float(swim_hours) * 3600
        return policy_records(load_swim(str(swim), load=float(swim_load), duration=duration), scenario)
    raise ValueError(f"kind must be 'synthetic', 'swim' or 'section-iv', got {kind!r}")


def section_iv_records(Q: int) -> list[dict]:
    """Paper 001 §IV (Case II) on N = 1, non-preemptive: each work-conserving policy's flow time
    (run and verified) over that of S_2, the offline scheduler of the construction (simulated and
    verified); the ratio bounds the competitive ratio from below."""
    from schedrelax.algorithms import run
    from schedrelax.schedulers.asrpt_theory import S2Policy, section_iv_instance
    from schedrelax.schedulers.mapreduce_sim import simulate
    from schedrelax.schedules import verify

    inst = section_iv_instance(Q)
    sim = simulate(inst, S2Policy(), preemptive=False)
    verify(inst, sim.schedule)
    s2 = float(sim.total_flow)
    out = [{"algorithm": "s2", "total_flow": s2, "over_s2": 1.0}]
    for name in ("asrpt", "fifo", "fair", "lrpt"):
        flow = float(run(name, inst, params={"preemptive": False}).objective)
        out.append({"algorithm": name, "total_flow": flow, "over_s2": flow / s2})
    return out


# ----------------------------------------------------------------------------------- the declaration

def _conv_point(f: float) -> str:
    return f"conv-{round(f * 100)}"


def _points() -> tuple[Point, ...]:
    pts = [Point(w, {"workload": w}) for w in FIGURES]
    pts += [Point(_conv_point(f), {"workload": CONVERGENCE_WORKLOAD, "fraction": f}) for f in CONVERGENCE_FRACTIONS]
    pts.append(Point("swim", {"kind": "swim"}, seeds=1, needs="swim"))
    pts += [Point(f"sec4-{q}", {"kind": "section-iv", "Q": q}, seeds=1) for q in SECTION_IV_Q]
    return tuple(pts)


SECTION_IV_Q = (5, 20, 50)
"""The Q of §IV's construction run (one deterministic instance each)."""

SECTION_IV_C0 = 2.0
"""§IV eq. (6): the competitive ratio of a work-conserving scheduler exceeds Q / (c_0 + 2); c_0 = 2
is the smallest constant its Case II allows."""


def _rows() -> tuple[Row, ...]:
    rows = []
    for setting, words in (("main", SMALLER), ("non-preemptive", BOTH)):
        for w, fig in FIGURES.items():
            for x in BASELINES:
                claim = ""
                if setting == "main" and w == "exp-large-reduce":
                    claim = f"ASRPT's total flow time is below {LABEL[x]}'s ({fig}, preemptive)"
                rows.append(Row(f"{w}-{setting}-vs-{x}", fig, f"{LABEL[x]}'s total flow time over ASRPT's, - 1 "
                                f"({setting} Reduce)",
                                Gain(metric("total_flow", w, algorithm=x), metric("total_flow", w, algorithm="asrpt")),
                                Paper.at_least(0.0, words), setting=setting, claim=claim, percent=True,
                                variations=("preemptive-tasks",) if setting == "main" else ()))
    for w, fig in FIGURES.items():
        rows.append(Row(f"{w}-bound", f"{fig}; after Corollary 2", "ASRPT's total flow time / the SRPT bound (Lemma 1)",
                        Mean(metric("ratio", w, algorithm="asrpt")),
                        Paper.at_most(PAPER_BOUND_FACTOR, "\"not greater than 3 times of the lower bound given by "
                                                          "Lemma 1 with probability 1, when n goes to infinity\""),
                        claim=("ASRPT's total flow time is within 3 times the SRPT lower bound (after Corollary 2; "
                               f"{fig})") if w == "exp-large-reduce" else "",
                        variations=("preemptive-tasks",)))
        rows.append(Row(f"{w}-not-above-dsrpt", f"{fig}; Corollary 2", "ASRPT / DSRPT total flow time, largest",
                        Worst(metric("over_dsrpt", w, algorithm="asrpt"), 10),
                        Paper.at_most(1.0, "Corollary 2's proof: \"the total flow-time of ASRPT will not be greater "
                                           "than DSRPT\" (preemptive)"),
                        claim="ASRPT's total flow time is never above DSRPT's (Corollary 2)"
                        if w == "exp-large-reduce" else ""))
        for x in ("fifo", "fair", "lrpt"):
            rows.append(Row(f"{w}-tail-vs-{x}", f"Figs 10-13 ({fig}'s case)",
                            f"{LABEL[x]}'s 95th-percentile flow time over ASRPT's, - 1",
                            Gain(metric("p95", w, algorithm=x), metric("p95", w, algorithm="asrpt")),
                            Paper.at_least(0.0, TAIL_LRPT) if x == "lrpt" else Paper.at_least(SIMILAR, TAIL_SIMILAR),
                            percent=True,
                            claim="ASRPT's flow-time tail is lighter than LRPT's (§VII-C)"
                            if (w, x) == ("exp-large-reduce", "lrpt") else ""))
        for p in POLICIES:
            rows.append(Row(f"{w}-ratio-{p}", fig, f"{LABEL[p]}'s efficiency ratio (flow time / SRPT bound)",
                            Mean(metric("ratio", w, algorithm=p)), Paper.words(f"{fig}: a bar, no number in the text")))
    full = CONVERGENCE_WORKLOAD
    half = _conv_point(0.5)
    for p, text in (("asrpt", CONVERGE), ("lrpt", "Fig. 9: \"the LRPT scheduler also has a constant (maybe relative "
                                                  "large) efficiency ratio\" (read: within ±5 % from T = 250 to 500)")):
        rows.append(Row(f"converge-{p}", "Fig. 9", f"{LABEL[p]}'s efficiency ratio at T over its ratio at T/2, - 1",
                        Gain(metric("ratio", full, algorithm=p), metric("ratio", half, algorithm=p)),
                        Paper.range(-0.05, 0.05, text), percent=True,
                        claim="ASRPT's efficiency ratio converges as T grows (Fig. 9)" if p == "asrpt" else ""))
    for f in CONVERGENCE_FRACTIONS:
        for x in ("fifo", "fair"):
            pt = _conv_point(f)
            rows.append(Row(f"{pt}-vs-{x}", "Fig. 9", f"{LABEL[x]}'s efficiency ratio over ASRPT's at T·{f:g}, - 1",
                            Gain(metric("ratio", pt, algorithm=x), metric("ratio", pt, algorithm="asrpt")),
                            Paper.at_least(0.0, "Fig. 9: ASRPT's curve below the others' at every T (gain ≥ 0)"),
                            percent=True))
    for q in SECTION_IV_Q:
        bound = q / (SECTION_IV_C0 + 2)
        rows.append(Row(f"sec4-{q}", "§IV, eq. (6)", f"ASRPT's flow time over S_2's on the Case II instance, Q = {q}",
                        Mean(metric("over_s2", f"sec4-{q}", algorithm="asrpt")),
                        Paper.at_least(bound, f"no work-conserving scheduler has a constant competitive ratio: "
                                              f"> Q/(c0 + 2) = {bound:g} (c0 = 2)"),
                        setting="non-preemptive",
                        claim="No work-conserving scheduler, ASRPT included, has a constant competitive ratio (§IV, "
                              f"Q = {q})" if q == SECTION_IV_Q[-1] else ""))
    for x in BASELINES:
        rows.append(Row(f"swim-vs-{x}", "SWIM trace (ours)", f"{LABEL[x]}'s total flow time over ASRPT's on the trace, - 1",
                        Gain(metric("total_flow", "swim", algorithm=x), metric("total_flow", "swim", algorithm="asrpt")),
                        Paper.at_least(0.0, NO_TRACE.format(x=LABEL[x])), percent=True,
                        variations=("preemptive-tasks", "non-preemptive-reduce"),
                        claim="On a SWIM Facebook trace ASRPT's total flow time is below Fair's (as in Figs 5-8)"
                        if x == "fair" else ""))
    return tuple(rows)


EXPERIMENT = Experiment(
    name="asrpt",
    title="ASRPT (Zheng, Shroff, Sinha 2013) §VII: Figs 5-13 as relations, and a SWIM trace",
    paper="001 ASRPT §VII",
    summary=("ASRPT against DSRPT, FIFO, Fair and LRPT on §VII-A's four workloads: total flow time (Figs 5-8), "
             "the SRPT bound, convergence over T (Fig. 9), flow-time tails (Figs 10-13), preemptive and "
             "non-preemptive; optionally a SWIM trace (`--set swim=PATH`)"),
    cell="schedrelax.experiments.reproductions.asrpt:cell",
    params={"kind": "synthetic", "machines": 100, "rate": 2.0, "slots": 500, "max_reduce_tasks": 10,
            "fraction": 1.0, "swim": None, "swim_load": 0.8, "swim_hours": None},
    quick={"machines": 10, "rate": 0.2, "slots": 60},
    settings={"main": {"scenario": "preemptive"}, "non-preemptive": {"scenario": "non-preemptive"}},
    seeds=Seeds(paper=1, run=10, quick=2, start=1000),
    points=_points(),
    rows=_rows(),
    variations=(
        Variation("preemptive-tasks", "main", {"scenario": "preemptive-tasks"},
                  "a Reduce task runs on one machine at a time (interruptible) instead of eq. (1)'s Reduce workload "
                  "on as many machines as it has units", kind="implementation", seeds=5),
        Variation("non-preemptive-reduce", "main", {"scenario": "non-preemptive"},
                  "the trace run with eq. (2)'s non-preemptive Reduce tasks"),
    ),
    bands=(Band("swim_load", (0.6, 0.9, 0.95), "main", SWIM_LOAD_SENTENCE,
                rows=tuple(f"swim-vs-{x}" for x in BASELINES)),),
    options=("swim",),
    quick_points=("exp-large-reduce", "uniform-small-reduce", "conv-50", "sec4-5"),
    plots="schedrelax.experiments.reproductions.asrpt:plots",
    differences=("our draws of §VII-A's setting; the paper shows one run per figure (plots, no numbers in the text): "
                 "we run 10 sample paths per workload",
                 "Fig. 9: prefixes T = 50, 100, 250 of each T = 500 path (the paper does not say how its T grow)",
                 "the SWIM panel is ours (the paper runs no trace): 60 s slots, 128 MiB blocks, machines for the "
                 "load; it runs only with `--set swim=PATH`"),
)


def plots(cells, out_dir: Path) -> list[Path]:
    """Figs 5-8 as one chart: the mean efficiency ratio of each policy per workload, preemptive
    and non-preemptive, with the seeds' spread."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, setting in zip(axes, ("main", "non-preemptive")):
        t = cells[(cells["setting"] == setting) & cells["point"].isin(list(FIGURES))]
        width = 0.8 / len(POLICIES)
        for k, p in enumerate(POLICIES):
            means, errs, xs = [], [], []
            for i, w in enumerate(FIGURES):
                r = t[(t["point"] == w) & (t["algorithm"] == p)]["ratio"].astype(float).dropna()
                if len(r):
                    xs.append(i + (k - 2) * width)
                    means.append(r.mean())
                    errs.append(r.std(ddof=0))
            ax.bar(xs, means, width, yerr=errs, color=f"C{k}", label=LABEL[p])
        ax.set_xticks(range(len(FIGURES)), [f"{f}\n{w}" for w, f in FIGURES.items()], fontsize="small")
        ax.set_title("preemptive (eq. 1)" if setting == "main" else "non-preemptive (eq. 2)")
        ax.grid(alpha=0.3, axis="y")
    axes[0].set_ylabel("total flow time / SRPT bound")
    axes[-1].legend(fontsize="small", frameon=False)
    fig.tight_layout()
    path = Path(out_dir) / "asrpt_ratios.png"
    fig.savefig(path, dpi=100)
    return [path]
