"""The ``schedrelax`` command (also ``python -m schedrelax``).

A user error (bad file, unknown name, bad parameter, an output folder that does not exist ...)
prints one line on stderr and exits with code 2, before any work where it can be checked first.
``verify`` exits 0 for a feasible schedule and 1 for an infeasible one. An unexpected exception is
a bug: one line saying so, exit code 3. ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schedrelax import __version__, _log
from schedrelax.errors import InfeasibleScheduleError, SchedrelaxError

EXIT_USAGE = 2
EXIT_INFEASIBLE = 1
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130


def _param(text: str) -> tuple[str, Any]:
    """``key=value`` with the value read as JSON where it parses (numbers, true, lists), else a string."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--param must look like key=value, got {text!r}")
    key, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.strip(), value


def _positive(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return v


def _writable(option: str, path: str | None) -> None:
    """Check before any work that an output file can be made at *path*: its folder exists and the
    path is not a folder. (A run that ends in FileNotFoundError after printing its result wastes
    the run and writes half of what was asked.)"""
    if path is None:
        return
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"{option} {path}: is a folder, expected a file path")
    folder = target.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise ValueError(f"{option} {path}: the folder {str(folder)!r} {what} (create it first)")


def _common_options(parser: argparse.ArgumentParser, *, default: Any) -> None:
    """The options every command takes, before or after its name (``schedrelax -q compare ...`` or
    ``schedrelax compare ... -q``). On the subcommands their default is SUPPRESS, so that a flag
    given before the command name is not reset by the subcommand's own parser."""
    parser.add_argument("--debug", action="store_true", default=default if default is argparse.SUPPRESS else False,
                        help="show tracebacks instead of one-line errors")
    parser.add_argument("-v", "--verbose", action="count", default=default if default is argparse.SUPPRESS else 0,
                        help="more of the package's own messages (-v: what it does, -vv: details)")
    parser.add_argument("-q", "--quiet", action="store_true", default=default if default is argparse.SUPPRESS else False,
                        help="errors only: no notes, no progress bars")
    parser.add_argument("--solver-log", action="store_true",
                        default=default if default is argparse.SUPPRESS else False,
                        help="show the LP/MIP solvers' own log (off by default)")


class _SubParsers:
    """``add_parser`` with the one-line help also as the command's ``--help`` description, and the
    common options on every command."""

    def __init__(self, action: Any):
        self._action = action

    def add_parser(self, name: str, *, help: str, **kwargs: Any) -> argparse.ArgumentParser:
        parser = self._action.add_parser(name, help=help, description=help[0].upper() + help[1:] + ".", **kwargs)
        _common_options(parser, default=argparse.SUPPRESS)
        return parser


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="schedrelax", description="The schedrelax command (also python -m schedrelax): "
                                "LP relaxations, rounding and verified schedules for cluster scheduling.")
    _common_options(p, default=None)
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = _SubParsers(p.add_subparsers(dest="command", metavar="COMMAND"))

    s = sub.add_parser("solve", help="run an algorithm on an instance file; the schedule is verified")
    s.add_argument("instance", help="instance JSON file")
    s.add_argument("--algorithm", "-a", required=True, help="algorithm name (see `schedrelax list`)")
    s.add_argument("--solver", default="highs", help="LP/MIP solver for algorithms that use one (default: highs)")
    s.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    s.add_argument("--time-limit", type=_positive, help="solver time limit in seconds")
    s.add_argument("--param", "-p", type=_param, action="append", default=[], metavar="KEY=VALUE",
                   help="algorithm parameter (repeatable), value read as JSON where it parses")
    s.add_argument("--epoch", type=_positive, help="online:<algorithm> only: re-plan at multiples of this epoch")
    s.add_argument("--replan-on", choices=("arrivals", "events"),
                   help="online:<algorithm> only: re-plan at arrivals (default) or at arrivals and completions")
    s.add_argument("--out", "-o", help="write the schedule as JSON here")
    s.add_argument("--gantt", help="write a Gantt chart here (PNG, SVG or PDF)")

    g = sub.add_parser("generate", help="generate a seeded instance of a paper's experimental setup")
    g.add_argument("family", help="instance family: malleable, mapreduce, packing or related")
    g.add_argument("--setup", help="paper setup (default: a small size of the family's first paper setup)")
    g.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    g.add_argument("--param", "-p", type=_param, action="append", default=[], metavar="KEY=VALUE",
                   help="generator parameter (repeatable), e.g. -p n_jobs=20")
    g.add_argument("-o", "--out", required=True, help="output instance JSON file")

    cv = sub.add_parser("convert", help="turn a real trace (Google 2011, SWIM) into an instance file, printing "
                        "what was kept and left out")
    cvs = _SubParsers(cv.add_subparsers(dest="source", metavar="SOURCE", required=True))
    opt = argparse.SUPPRESS  # options not given are left to the loader's defaults
    cg = cvs.add_parser("google", help="a Google 2011 task_events file (CSV, gzipped or not) -> packing instance "
                        "(paper 003 §7; see schedrelax.instances.google)")
    cg.add_argument("trace", help="task_events file, e.g. task_events-part-00001-of-00500.csv.gz")
    cg.add_argument("-o", "--out", required=True, help="output instance JSON file")
    cg.add_argument("--machine-events", metavar="FILE", default=opt,
                    help="machine_events file for the memory capacities (default: every machine 1.0)")
    cg.add_argument("--max-jobs", type=int, metavar="N", default=opt,
                    help="keep the first N jobs by submission time (default: all)")
    cg.add_argument("--placement", metavar="MODE", default=opt,
                    help="trace (each task on the machine that ran it; default), local (§7: its machine plus "
                         "LOCAL_MACHINES - 1 others, other fitting machines ALPHA times slower) or any")
    cg.add_argument("--local-machines", type=int, metavar="N", default=opt,
                    help="placement local: machines that run a task in its trace time (default 3)")
    cg.add_argument("--alpha", type=_alpha, default=opt,
                    help="placement local: slowdown on the other fitting machines, or 'none' to leave them out "
                         "(default 2)")
    cg.add_argument("--weights", metavar="RULE", default=opt,
                    help="equal (default), priority (task priority + 1, max per job) or random (uniform [1, 10])")
    cg.add_argument("--online", action="store_true", default=opt,
                    help="release each job at its first SUBMIT (default: every job at 0)")
    cg.add_argument("--time-unit", type=float, metavar="SECONDS", default=opt,
                    help="seconds per time unit of the instance (default 1)")
    cg.add_argument("--seed", type=int, default=opt, help="seed of the local placement and random weights (default 0)")
    cg.add_argument("--name", default=opt, help="instance name (default: google2011 TRACE-FILE-NAME)")
    cg.add_argument("--load", type=_positive, metavar="RHO", dest="target_load", default=opt,
                    help="reach offered load RHO (work / (capacity x max(release span, longest task))): fold the "
                    "machines onto fewer (machine i's tasks on i mod k), then, with --online, compress the arrival "
                    "times if one machine is not enough; the report says what was done")
    cw = cvs.add_parser("swim", help="a SWIM workload file (tab-separated, gzipped or not) -> mapreduce instance "
                        "(paper 001 §III; see schedrelax.instances.swim)")
    cw.add_argument("trace", help="SWIM file, e.g. FB-2009_samples_24_times_1hr_0.tsv")
    cw.add_argument("-o", "--out", required=True, help="output instance JSON file")
    size = cw.add_mutually_exclusive_group(required=True)
    size.add_argument("--machines", type=int, metavar="N", default=opt, help="number of machines")
    size.add_argument("--load", type=float, metavar="RHO", default=opt,
                      help="instead of --machines: the fewest machines with traffic intensity at most RHO")
    cw.add_argument("--slot-seconds", type=float, metavar="S", default=opt, help="seconds per slot (default 60)")
    cw.add_argument("--block-bytes", type=int, metavar="B", default=opt,
                    help="bytes one machine processes per slot (default 134217728, 128 MiB)")
    cw.add_argument("--reduce-task-blocks", type=int, metavar="K", default=opt,
                    help="blocks of Reduce work per Reduce task (default 8)")
    cw.add_argument("--max-reduce-tasks", type=int, metavar="K", default=opt,
                    help="most Reduce tasks per job (default 999)")
    cw.add_argument("--duration", type=float, metavar="SECONDS", default=opt,
                    help="keep the jobs submitted within SECONDS of the first (default: all)")
    cw.add_argument("--unit-reduce-tasks", action="store_true",
                    help="cut every Reduce task into unit tasks: paper 001's preemptive model (eq. (1)), solved "
                         "with -p model=paper-preemptive")
    cu = cvs.add_parser("unit-reduce", help="a mapreduce instance file -> the same jobs with unit Reduce tasks "
                        "(paper 001's preemptive model, eq. (1): solve with -p model=paper-preemptive)")
    cu.add_argument("instance", help="mapreduce instance JSON file")
    cu.add_argument("-o", "--out", required=True, help="output instance JSON file")

    v = sub.add_parser("verify", help="check a schedule against an instance: exit 0 feasible, 1 infeasible, "
                       "2 bad input")
    v.add_argument("instance", help="instance JSON file")
    v.add_argument("schedule", help="schedule JSON file (as written by `solve --out`)")

    sc = sub.add_parser("schema", help="print the JSON Schema of an instance family's files or of schedule files")
    sc.add_argument("name", nargs="?", help="an instance family or 'schedule' (none: list the schemas)")
    sc.add_argument("--out", "-o", help="write the schema here instead of printing it")

    ls = sub.add_parser("list", help="families, algorithms and the solvers available on this machine")
    ls.add_argument("name", nargs="?", help="an algorithm or a setup: its parameters with type, default and meaning; "
                    "'solvers': ask every solver back end for its version and features")
    ls.add_argument("--markdown", action="store_true", help="print the algorithm table as Markdown (as in the README)")

    c = sub.add_parser("compare", help="a grid of instances x algorithms x solvers against bounds and MIP optima")
    c.add_argument("paths", nargs="*", metavar="INSTANCE_OR_FOLDER", help="instance files or folders of them")
    c.add_argument("--family", help="generate instances of this family (with --generate)")
    c.add_argument("--generate", type=int, metavar="N", help="generate N instances (seeds S, S+1, ...)")
    c.add_argument("--setup", help="paper setup of the generated instances (default: the family's first, small)")
    c.add_argument("--seed", type=int, default=0, help="first seed, also passed to the algorithms (default 0)")
    c.add_argument("--algorithms", help="comma-separated names (default: every algorithm of the family)")
    c.add_argument("--solvers", default="highs", help="comma-separated solvers (default: highs)")
    c.add_argument("--out", help="table file (.csv); summary and plots are written beside it")
    c.add_argument("--resume", action="store_true", help="keep the cells already in --out, run the rest")
    c.add_argument("--workers", type=int, metavar="N", help="local processes (default: the number of CPUs)")
    c.add_argument("--dask", metavar="ADDRESS", help="run on a Dask distributed cluster at ADDRESS instead")
    c.add_argument("--param", "-p", type=_param, action="append", default=[], metavar="KEY=VALUE",
                   help="generator parameter of the generated instances (repeatable), e.g. -p n_jobs=5")
    c.add_argument("--time-limit", type=_positive, metavar="SECONDS",
                   help="solver time limit per solve of the algorithms")
    c.add_argument("--opt-max-jobs", type=int, default=8, metavar="N",
                   help="run the exact MIP only on instances with at most N jobs (default 8)")
    c.add_argument("--opt-max-tasks", type=int, default=12, metavar="N",
                   help="and, for packing and related instances, at most N tasks (default 12)")
    c.add_argument("--opt-time-limit", type=_positive, default=30.0, metavar="SECONDS",
                   help="time limit of each exact MIP solve (default 30); an optimum counts only if proven")
    c.add_argument("--no-opt", action="store_true", help="do not run the exact MIP")
    c.add_argument("--bracket", action="store_true", help="add the columns best_lb, best_ub, alg_best_lb: each "
                   "instance's bracket (`schedrelax bracket`) in --opt-time-limit seconds")

    r = sub.add_parser("reproduce", help="run a paper's experiments: every number with its interval and verdict")
    r.add_argument("name", help="reproduction name, or 'all': every one into OUT/NAME/ with the index OUT/report.md "
                   "(exit code 1 if one failed; see `schedrelax list`)")
    r.add_argument("--quick", action="store_true", help="CI-sized runs: same pipeline, fewer and smaller instances")
    r.add_argument("--out", default="reports", help="output folder (default: reports)")
    r.add_argument("--seeds", type=int, metavar="N", help="evaluation seeds to run (default: the declaration's)")
    r.add_argument("--workers", type=int, default=1, metavar="N", help="local worker processes (default 1)")
    r.add_argument("--dask", metavar="ADDRESS", help="run the cells on this Dask scheduler instead")
    r.add_argument("--resume", action="store_true",
                   help="keep the cells already in OUT (same grid) and run only the others")
    r.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="sets",
                   help="set a declaration parameter (VALUE as JSON when it parses), e.g. --set machines=16; "
                   "repeatable")
    r.add_argument("--config", metavar="FILE", help="parameters from a JSON or TOML table (--set wins)")
    r.add_argument("--swim", metavar="FILE", help="asrpt: also run on this SWIM workload file (= --set swim=FILE)")
    r.add_argument("--google", metavar="PATH",
                   help="reproductions with a Google trace panel: this task_events part (a file, or a folder holding "
                   "one; default: $SCHEDRELAX_GOOGLE_TRACE, else the panel is left out and the report says so)")

    _bracket_parser(sub)

    d = sub.add_parser("demo", help="run every algorithm on the bundled example instances")
    d.add_argument("--solver", default="highs", help="solver for algorithms that use one (default: highs)")
    d.add_argument("--out-dir", help="also write each schedule's Gantt chart (PNG) here")
    return p


def _save_schedule(sched, algorithm: str, objective: float, instance: str, out: str) -> None:
    """Write *sched* to *out* with what made it (algorithm, objective, instance file) in its meta."""
    meta = {**sched.meta, "algorithm": algorithm, "objective": objective, "instance": str(instance)}
    type(sched)(sched.job, sched.task, sched.machine, sched.start, sched.end, sched.rate,
                promises=sched.promises, meta=meta).save(out)


def _cmd_solve(args: argparse.Namespace) -> int:
    from schedrelax.instances import load

    _writable("--out", args.out)
    _writable("--gantt", args.gantt)
    _gantt_format(args.gantt)
    inst = load(args.instance)
    from schedrelax import algorithms
    from schedrelax.solvers.registry import check_solver

    spec = algorithms.get(args.algorithm, inst.family)  # the registry's table: no implementation imported
    check_solver(args.solver)  # a misspelt --solver is an error even for algorithms that need none
    params = dict(args.param)
    for option, key in (("--epoch", "epoch"), ("--replan-on", "replan_on")):
        value = getattr(args, key)
        if value is None:
            continue
        if not args.algorithm.startswith(algorithms.ONLINE_PREFIX):
            raise ValueError(f"{option} applies to online algorithms only: use --algorithm "
                             f"{algorithms.ONLINE_PREFIX}{args.algorithm}")
        params[key] = value
    if args.time_limit is not None:
        if spec.uses_solver:
            params["time_limit"] = args.time_limit
        else:
            _log.logger().warning("note: --time-limit ignored: %s uses no solver", args.algorithm)
    result = algorithms.run(args.algorithm, inst, solver=args.solver, seed=args.seed, params=params)
    quiet = getattr(args, "quiet", False)
    _print_result(inst, result, quiet=quiet)
    if spec.note and not quiet:
        print(f"  note: {spec.note}")
    if spec.uses_solver and not quiet and args.solver.partition(":")[0] != "highs":
        print(f"  note: an LP with several optimal solutions may give {args.solver} another optimal vertex than "
              "HiGHS (the default): the same LP bound, possibly another schedule")
    if args.out:
        _save_schedule(result.schedule, result.algorithm, result.objective, args.instance, args.out)
        if not quiet:
            print(f"schedule written to {args.out}")
    if args.gantt:
        from schedrelax.experiments.plots import save_gantt

        save_gantt(inst, result.schedule, args.gantt, title=f"{args.algorithm} on {Path(args.instance).name}")
        if not quiet:
            print(f"Gantt chart written to {args.gantt}")
    return 0


GANTT_FORMATS = (".png", ".svg", ".pdf")
"""The chart formats ``--gantt`` writes, by the file's suffix."""


def _gantt_format(path: str | None) -> None:
    """ValueError before any work when the ``--gantt`` file's suffix names no format it writes."""
    if path is not None and Path(path).suffix.lower() not in GANTT_FORMATS:
        raise ValueError(f"--gantt {path}: the suffix gives the format, one of {', '.join(GANTT_FORMATS)}; "
                         f"got {Path(path).suffix or 'none'!r}")


def _print_result(inst, result, *, quiet: bool = False) -> None:
    """What ``solve`` prints: the objective by name, what the result proves (status), the lower
    bound and what kind of bound it is, the ratio, the guarantee, the model, the time; with
    *quiet* (``-q``) the first line only, with the status."""
    from schedrelax.schedules import objective_name

    print(f"{result.algorithm} on {inst.family} instance ({inst.n_jobs} jobs): "
          f"{objective_name(inst)} = {result.objective:.6g}; schedule verified" + (f"; {result.status}" if quiet else ""))
    if quiet:
        return
    print(f"  status: {result.status_line()}")
    if result.lower_bound is None:
        print("  lower bound: none proven by this algorithm")
    else:
        print(f"  lower bound: {result.lower_bound:.6g} — {result.bound_kind}")
    if result.ratio_to_bound is not None:
        print(f"  objective / lower bound: {result.ratio_to_bound:.4f}")
    if result.guarantee is not None and not result.exact:  # an exact search's status says what it proved
        print(f"  guarantee: objective <= {result.guarantee:.4g} x optimum (the paper's theorem)")
    if result.info.get("model"):
        print(f"  model: {result.info['model']}")
    engine = result.info.get("engine") or (result.params.get("solver") if result.exact else None)
    if engine:
        print(f"  engine: {engine}")
    print(f"  time {result.timings.get('total', float('nan')):.3f} s, {len(result.schedule)} pieces")
    if "replans" in result.info:
        m = result.info["metrics"]
        print(f"  online: {result.info['replans']} re-plans, {result.info['planning_seconds_per_event']:.4f} s "
              f"planning per event; weighted average delay {m['weighted_average_delay']:.6g}, "
              f"average stretch {m['average_stretch']:.4g}")


def _cmd_generate(args: argparse.Namespace) -> int:
    from schedrelax.instances.generate import generate

    _writable("--out", args.out)
    inst = generate(args.family, args.setup, seed=args.seed, **dict(args.param))
    inst.save(args.out)
    print(f"{inst.family} instance with {inst.n_jobs} jobs written to {args.out}")
    return 0


def _alpha(text: str) -> float | None:
    """``--alpha``: a number, or ``none`` (the loader checks the range)."""
    if text.strip().lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'none', got {text!r}") from None


_CONVERT_OPTIONS = {
    "google": ("machine_events", "max_jobs", "placement", "local_machines", "alpha", "weights", "online",
               "time_unit", "seed", "name"),
    "swim": ("machines", "load", "slot_seconds", "block_bytes", "reduce_task_blocks", "max_reduce_tasks", "duration"),
}
"""The ``convert`` flags that are the loaders' keyword arguments, by source."""


def _cmd_convert(args: argparse.Namespace) -> int:
    from schedrelax.instances import MapReduceInstance, load

    _writable("--out", args.out)
    given = vars(args)
    options = {k: given[k] for k in _CONVERT_OPTIONS.get(args.source, ()) if k in given}
    unit = args.source == "unit-reduce" or (args.source == "swim" and args.unit_reduce_tasks)
    if args.source == "google":
        from schedrelax.instances.google import load_google_tasks

        from schedrelax.instances.contention import contention, with_load

        trace = load_google_tasks(args.trace, **options)
        inst, report = trace.instance, str(trace.report)
        default_caps = given.get("machine_events") is None
        target = given.get("target_load")
        if target is not None:
            inst, note = with_load(inst, target)
            report += f"; --load {target:g}: {note}"
        report += f"; {contention(inst, default_capacities=default_caps)}"
    elif args.source == "swim":
        from schedrelax.instances.swim import convert_swim

        got = convert_swim(args.trace, **options)
        inst = got.instance
        report = f"{got.report}; {inst.machines} machines, load {inst.load:.3g}"
    else:
        inst = load(args.instance)
        if not isinstance(inst, MapReduceInstance):
            raise ValueError(f"{args.instance}: convert unit-reduce takes a mapreduce instance, got family "
                             f"{inst.family!r}")
        report = f"{inst.n_jobs} jobs, {len(inst.reduce_work)} Reduce tasks"
    if unit:
        from schedrelax.schedulers.mapreduce_sim import unit_reduce_tasks

        tasks = len(inst.reduce_work)
        inst = unit_reduce_tasks(inst)
        report += (f"; its {tasks} Reduce tasks cut into {len(inst.reduce_work)} unit tasks (paper 001's preemptive "
                   f"model: solve with -p model=paper-preemptive)")
    print(f"{args.source}: {report}")
    inst.save(args.out)
    print(f"{inst.family} instance with {inst.n_jobs} jobs written to {args.out}")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from schedrelax.instances import load
    from schedrelax.schedules import Schedule, evaluate, verify

    inst = load(args.instance)
    try:
        sched = Schedule.load(args.schedule)
    except ValueError as exc:
        raise SchedrelaxError(str(exc)) from exc
    try:
        verify(inst, sched)
    except InfeasibleScheduleError as exc:
        # Exit 1 is the answer "infeasible"; 2 stays for a command that could not be carried out.
        print(f"infeasible: {exc}")
        return EXIT_INFEASIBLE
    ev = evaluate(inst, sched)
    print(f"feasible: {len(sched)} pieces, objective {ev.objective:.6g}")
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    from schedrelax import schemas

    if args.name is None:
        if args.out:
            raise ValueError(f"--out needs a schema name, one of: {', '.join(schemas.names())}")
        for name in schemas.names():
            print(f"{name:<10} {schemas.schema(name)['title']}")
        return 0
    text = json.dumps(schemas.schema(args.name), indent=2, ensure_ascii=False) + "\n"
    _writable("--out", args.out)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"{args.name} schema written to {args.out}")
    else:
        sys.stdout.write(text)
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    from schedrelax import algorithms

    if args.markdown:
        if args.name is not None:
            raise ValueError(f"--markdown prints the whole algorithm table; leave out {args.name!r}")
        print(algorithms.markdown_table())
        return 0
    if args.name == "solvers":
        _list_solvers()
        return 0
    if args.name is not None:
        return _describe(args.name)
    from schedrelax.instances import FAMILIES
    from schedrelax.instances.generate import SETUPS

    print("families:")
    for fam in sorted(FAMILIES):
        setups = ", ".join(k for k, s in SETUPS.items() if s.family == fam)
        print(f"  {fam:<10} setups: {setups}")
    specs = algorithms.available()
    width = max(len(spec.name) for spec in specs)
    print("algorithms:")
    for spec in specs:
        print(f"  {spec.name:<{width}} {spec.family:<10} {spec.summary}")
    from schedrelax.experiments.reproduce import available as reproductions

    print("reproductions:")
    repro = list(reproductions().values())
    rwidth = max(len(spec.name) for spec in repro)
    for spec in repro:
        print(f"  {spec.name:<{rwidth}} {spec.paper}: {spec.summary}")
    _list_solvers_found()
    return 0


def _describe(name: str) -> int:
    """``list NAME``: an algorithm's parameters (from the registry's table, no implementation
    imported) or a setup's generator parameters, each with its type, default and meaning."""
    from schedrelax import algorithms

    specs = [s for s in algorithms.available() if s.name == name]
    if specs:
        for spec in specs:
            solver = "uses an LP/MIP solver (--solver)" if spec.uses_solver else "uses no solver"
            print(f"{spec.name} ({spec.family}, paper {spec.paper or '-'}; {solver}): {spec.summary}")
            if spec.note:
                print(f"  note: {spec.note}")
            if not spec.params:
                print("  no parameters of its own (besides --seed" + (", --solver" if spec.uses_solver else "") + ")")
                continue
            _table(["parameter (-p KEY=VALUE)", "type", "default", "meaning"], spec.parameter_rows())
    from schedrelax.instances.generate import SETUPS

    if name in SETUPS:  # a setup may share its paper's algorithm's name (flowflex, spc ...): both shown
        if specs:
            print()
        setup = SETUPS[name]
        print(f"setup {setup.name} ({setup.family}; {setup.paper}): {setup.description}")
        print(f"  generate {setup.family} --setup {setup.name} -p KEY=VALUE; 'paper' is the paper's size, "
              "'small' what generate and compare use")
        rows = [(key, type_, paper, str(setup.small_sizes.get(key, "= paper")), text)
                for key, type_, paper, text in _generator_params(setup.function)]
        _table(["parameter", "type", "paper", "small", "meaning (from the generator's docstring)"], rows)
    if specs or name in SETUPS:
        return 0
    known = sorted({s.name for s in algorithms.available()})
    raise ValueError(f"list {name}: no algorithm or setup of that name (algorithms: {', '.join(known)}; setups: "
                     f"{', '.join(SETUPS)}; or 'solvers')")


def _generator_params(function) -> list[tuple[str, str, str, str]]:
    """(name, type, default, the first sentence of the docstring naming it, cut at 110 characters)
    per keyword parameter; where no sentence names it, where to read about it."""
    import inspect
    import re

    doc = " ".join((function.__doc__ or "").split())
    sentences = re.split(r"(?<=[.;])\s+(?=[A-Z`(*])", doc)
    out = []
    for key, p in inspect.signature(function).parameters.items():
        if p.kind is not p.KEYWORD_ONLY:
            continue
        said = next((t for t in sentences if f"``{key}``" in t), None)
        if said is None:
            said = f"see help(schedrelax.instances.generate.{function.__name__})"
        said = said.replace("``", "").lstrip("* ")
        out.append((key, str(p.annotation), repr(p.default), said if len(said) <= 110 else said[:109] + "…"))
    return out


def _table(header: list[str], rows: list[tuple[str, ...]]) -> None:
    """Columns aligned to their widest cell; the last column is not padded."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        print("  " + "  ".join(f"{str(c):<{w}}" for c, w in zip(row, widths)) + "  " + str(row[-1]))


def _list_solvers_found() -> None:
    """The solver section of ``list``: what is found here without importing any back end."""
    from schedrelax.solvers.registry import _INSTALL, HIGHS_METHODS, PLUGINS, found_here

    print("solvers (--solver NAME; `schedrelax list solvers` asks each back end for its version and features):")
    names = ["highs", *PLUGINS, "cpsat", "cvxpy"]
    width = max(map(len, names))
    for name in names:
        found = found_here(name)
        print(f"  {name:<{width}} " + (f"found ({found})" if found else f"not installed: {_INSTALL[name]}"))
        if name == "highs" and found:
            print(f"  {'':<{width}} also {', '.join(f'highs:{m}' for m in HIGHS_METHODS)}: HiGHS with that LP method")
    print("  cvxpy:SOLVER for any solver cvxpy knows (`schedrelax list solvers` lists the installed ones)")


def _list_solvers() -> None:
    """``list solvers``: every solver back end asked for its version and features."""
    from schedrelax.solvers import available_solvers
    from schedrelax.solvers.registry import HIGHS_METHODS

    print("solvers (--solver NAME):")
    infos = available_solvers()
    swidth = max(len(info.name) for info in infos)
    for info in infos:
        if info.available:
            feats = ", ".join(sorted(info.features))
            print(f"  {info.name:<{swidth}} available ({info.version})  [{feats}]")
        else:
            print(f"  {info.name:<{swidth}} not installed: {info.install}")
        if info.name == "highs" and info.available:
            methods = ", ".join(f"highs:{m}" for m in HIGHS_METHODS)
            print(f"  {'':<{swidth}} also {methods}: HiGHS with that LP method")
    print("  cvxpy:SOLVER for any other solver cvxpy knows (installed ones are listed above)")


def _cmd_demo(args: argparse.Namespace) -> int:
    from schedrelax import algorithms
    from schedrelax.instances.generate import EXAMPLES, example
    from schedrelax.schedules import objective_name

    out_dir = Path(args.out_dir) if args.out_dir else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    for fam in EXAMPLES:
        inst = example(fam)
        results = [algorithms.run(spec.name, inst, solver=args.solver, seed=0)
                   for spec in algorithms.available(inst.family)]
        proven = [r.objective for r in results if r.status == "optimal"]
        opt = min(proven) if proven else None
        print(f"\n{fam}: the bundled example ({EXAMPLES[fam].file}, {inst.n_jobs} jobs); "
              f"objective = {objective_name(inst)}")
        opt_text = f"OPT = {opt:.6g}, proven by mip" if opt is not None else "OPT not proven"
        header = (f"  {'algorithm':<{_NAME_WIDTH}} {'status':<9} {'objective':>11} {'lower bound':>11} "
                  f"{'ALG/LB':>7} {'ALG/OPT':>7} {'time s':>7}  bound")
        print(f"  ({opt_text})")
        print(header)
        print("  " + "-" * (len(header) - 2))
        for result in results:
            lb = "-" if result.lower_bound is None else f"{result.lower_bound:.6g}"
            ratio = "-" if result.ratio_to_bound is None else f"{result.ratio_to_bound:.3f}"
            to_opt = "-" if opt is None or opt <= 0 else f"{result.objective / opt:.3f}"
            print(f"  {result.algorithm:<{_NAME_WIDTH}} {result.status:<9} {result.objective:>11.6g} {lb:>11} "
                  f"{ratio:>7} {to_opt:>7} {result.timings['total']:>7.3f}  {result.bound_kind or '-'}")
            if out_dir:
                from schedrelax.experiments.plots import save_gantt

                save_gantt(inst, result.schedule, str(out_dir / f"{inst.family}_{result.algorithm}.png"),
                           title=f"{result.algorithm} on the bundled {inst.family} example")
    print("\nALG/LB: the objective over the algorithm's own lower bound (kind in the last column); ALG/OPT: over "
          "the optimum\nthat mip proved (status optimal). status heuristic: a verified schedule with no optimality "
          "claim.\nEvery schedule above passed verify.")
    return 0


_NAME_WIDTH = 18
"""Width of the algorithm-name columns (the longest built-in name, flowflex-universal, is 18)."""


def _cmd_compare(args: argparse.Namespace) -> int:
    from schedrelax.experiments.compare import main_compare

    _writable("--out", args.out)
    try:
        main_compare(args.paths, args.family, args.generate, args.seed, args.setup, args.algorithms, args.solvers,
                     args.out, args.resume, args.workers, args.dask, args.time_limit, args.opt_max_jobs, args.no_opt,
                     params=dict(args.param), opt_max_tasks=args.opt_max_tasks, opt_time_limit=args.opt_time_limit,
                     progress=False if getattr(args, "quiet", False) else None, bracket=args.bracket)
    except KeyboardInterrupt:
        # The table holds every instance finished so far (written as each one ends).
        saved = f"; the finished cells are in {args.out}: run again with --resume to do the rest" if args.out else ""
        print(f"schedrelax compare: interrupted{saved}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from schedrelax.experiments.reproduce import (
        GOOGLE_ENV,
        google_trace,
        parse_sets,
        read_config,
        reproduce,
        reproduce_all,
    )

    if args.workers < 1:
        raise ValueError(f"--workers must be >= 1, got {args.workers}")
    overrides = {**(read_config(args.config) if args.config else {}), **parse_sets(args.sets)}
    if args.swim:
        overrides["swim"] = args.swim
    where_known = {}
    if args.google is not None:
        trace, _ = google_trace(args.google)  # a --google leading nowhere fails before any run
        overrides["google"] = str(trace)
    elif os.environ.get(GOOGLE_ENV):
        trace, _ = google_trace(None)
        where_known["google"] = str(trace)  # from the environment: for the reproductions that take it
    progress = False if getattr(args, "quiet", False) else None
    common = {"quick": args.quick, "workers": args.workers, "dask": args.dask, "resume": args.resume,
              "overrides": overrides, "where_known": where_known, "seeds": args.seeds, "progress": progress}
    if args.name == "all":
        # A progress line per reproduction; a failed one is in the index and the exit code.
        _, outcomes = reproduce_all(args.out, **common)
        return 0 if all(o.status == "ok" for o in outcomes) else 1
    for report in reproduce(args.name, args.out, **common):
        print(f"report written to {report}")
    return 0


def _bracket_parser(sub: _SubParsers) -> None:
    b = sub.add_parser("bracket", help="bracket an instance's optimum: the largest proven lower bound and the "
                       "cheapest verified schedule found within a time limit")
    b.add_argument("instance", help="instance JSON file")
    b.add_argument("--time-limit", type=_positive, default=60.0, metavar="SECONDS",
                   help="wall time of the whole call, every bound and algorithm included (default 60)")
    b.add_argument("--threads", type=int, metavar="N", help="CP-SAT workers (default: every available core)")
    b.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    b.add_argument("--out", "-o", help="write the best schedule as JSON here")


def _cmd_bracket(args: argparse.Namespace) -> int:
    """``schedrelax bracket``: what :func:`schedrelax.bracketing.bracket` found, source by source."""
    from schedrelax.instances import load

    _writable("--out", args.out)
    inst = load(args.instance)
    from schedrelax.bracketing import bracket

    if args.threads is not None and args.threads < 1:
        raise ValueError(f"--threads must be a positive integer, got {args.threads}")
    b = bracket(inst, time_limit=args.time_limit, threads=args.threads, seed=args.seed)
    print(f"bracket of {inst.family} instance ({inst.n_jobs} jobs), {b.problem}:")
    print(f"  {b.status_line()}")
    if b.lower_bound is None:
        print("  lower bound: none proven")
    else:
        print(f"  lower bound: {b.lower_bound:.6g} — {b.lower_bound_kind}")
    print(f"  upper bound: {b.upper_bound:.6g} — verified schedule of {b.upper_bound_kind}")
    print(f"  time {b.elapsed:.2f} s of {b.time_limit:g} s")
    for a in b.log:
        values = "".join(f"  {k} {v:.6g}" for k, v in (("UB", a.upper_bound), ("LB", a.lower_bound)) if v is not None)
        print(f"    {a.name:22s} {a.seconds:7.2f} s{values}{'  (' + a.note + ')' if a.note else ''}")
    if args.out:
        _save_schedule(b.schedule, b.upper_bound_kind, b.upper_bound, args.instance, args.out)
        print(f"schedule written to {args.out}")
    return 0


_COMMANDS = {"compare": _cmd_compare, "reproduce": _cmd_reproduce, "solve": _cmd_solve, "generate": _cmd_generate, "convert": _cmd_convert, "verify": _cmd_verify, "schema": _cmd_schema, "list": _cmd_list,
             "demo": _cmd_demo, "bracket": _cmd_bracket}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``schedrelax`` console script."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:  # a bare `schedrelax`: show what it can do
        parser.print_help()
        return 0
    _log.configure(args.verbose, args.quiet)
    if args.solver_log:
        _log.set_solver_log(True)
    try:
        return _COMMANDS[args.command](args)
    except (SchedrelaxError, ValueError, OSError) as exc:
        if args.debug:
            raise
        if isinstance(exc, BrokenPipeError):  # `schedrelax list | head`: the reader has all it wanted
            _silence_stdout()
            return 0
        print(f"schedrelax {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        if args.debug:
            raise
        print(f"schedrelax {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        if args.debug:
            raise
        print(f"schedrelax {args.command}: internal error ({type(exc).__name__}: {_one_line(exc)}); "
              "this is a bug in schedrelax: run again with --debug for the traceback and report it",
              file=sys.stderr)
        return EXIT_INTERNAL


def _one_line(exc: BaseException) -> str:
    """The error's message on one line (OSError's message with its file name, as Python prints it)."""
    text = str(exc) or type(exc).__name__
    return " ".join(text.split())


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush raises no second
    BrokenPipeError (the documented way; see the signal module's notes on SIGPIPE)."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
