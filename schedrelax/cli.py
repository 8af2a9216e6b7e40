"""The ``schedrelax`` command (also ``python -m schedrelax``).

A user error (bad file, unknown name, bad parameter, an output folder that does not exist ...)
prints one line on stderr and exits with code 2, before any work where it can be checked first.
``verify`` exits 0 for a feasible schedule and 1 for an infeasible one. An unexpected exception is
a bug: one line saying so, exit code 3. ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schedrelax import __version__
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


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="schedrelax", description=__doc__.splitlines()[0] + " LP relaxations, "
                                "rounding and verified schedules for cluster scheduling.")
    p.add_argument("--debug", action="store_true", help="show tracebacks instead of one-line errors")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

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

    v = sub.add_parser("verify", help="check a schedule against an instance: exit 0 feasible, 1 infeasible, "
                       "2 bad input")
    v.add_argument("instance", help="instance JSON file")
    v.add_argument("schedule", help="schedule JSON file (as written by `solve --out`)")

    ls = sub.add_parser("list", help="families, algorithms and the solvers available on this machine")
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

    r = sub.add_parser("reproduce", help="run a paper's experiments and write its tables and plots")
    r.add_argument("name", help="reproduction name, or 'all': every one into OUT/NAME/ with the index OUT/report.md "
                   "(exit code 1 if one failed; see `schedrelax list`)")
    r.add_argument("--quick", action="store_true", help="CI-sized runs: same pipeline, fewer and smaller instances")
    r.add_argument("--out", default="reports", help="output folder (default: reports)")
    r.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    r.add_argument("--swim", metavar="FILE", help="also run asrpt on this SWIM workload file")

    d = sub.add_parser("demo", help="run every algorithm on the bundled example instances")
    d.add_argument("--solver", default="highs", help="solver for algorithms that use one (default: highs)")
    d.add_argument("--out-dir", help="also write each schedule's Gantt chart (PNG) here")
    return p


def _cmd_solve(args: argparse.Namespace) -> int:
    from schedrelax.instances import load

    _writable("--out", args.out)
    _writable("--gantt", args.gantt)
    inst = load(args.instance)  # before the algorithms' imports (Pyomo, SciPy): a bad file fails fast
    from schedrelax import algorithms
    from schedrelax.solvers.registry import check_solver

    spec = algorithms.get(args.algorithm, inst.family)
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
            print(f"note: --time-limit ignored: {args.algorithm} uses no solver", file=sys.stderr)
    result = algorithms.run(args.algorithm, inst, solver=args.solver, seed=args.seed, params=params)
    _print_result(inst, result)
    if args.out:
        sched = result.schedule
        meta = {**sched.meta, "algorithm": result.algorithm, "objective": result.objective,
                "instance": str(args.instance)}
        type(sched)(sched.job, sched.task, sched.machine, sched.start, sched.end, sched.rate,
                    promises=sched.promises, meta=meta).save(args.out)
        print(f"schedule written to {args.out}")
    if args.gantt:
        from schedrelax.experiments.plots import save_gantt

        save_gantt(inst, result.schedule, args.gantt, title=f"{args.algorithm} on {Path(args.instance).name}")
        print(f"Gantt chart written to {args.gantt}")
    return 0


def _print_result(inst, result) -> None:
    lb = "none" if result.lower_bound is None else f"{result.lower_bound:.6g}"
    print(f"{result.algorithm} on {inst.family} instance ({inst.n_jobs} jobs): objective {result.objective:.6g}, "
          f"lower bound {lb}, verified")
    if result.ratio_to_bound is not None:
        print(f"  ratio to lower bound {result.ratio_to_bound:.4f}")
    if result.guarantee is not None:
        print(f"  guarantee {result.guarantee:.4g}")
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


def _cmd_list(args: argparse.Namespace) -> int:
    from schedrelax import algorithms

    if args.markdown:
        print(algorithms.markdown_table())
        return 0
    from schedrelax.instances import FAMILIES
    from schedrelax.instances.generate import SETUPS
    from schedrelax.solvers import available_solvers

    print("families:")
    for fam in sorted(FAMILIES):
        setups = ", ".join(k for k, s in SETUPS.items() if s.family == fam)
        print(f"  {fam:<10} setups: {setups}")
    print("algorithms:")
    for spec in algorithms.available():
        print(f"  {spec.name:<16} {spec.family:<10} {spec.summary}")
    from schedrelax.experiments.reproduce import available as reproductions

    print("reproductions:")
    for spec in reproductions().values():
        print(f"  {spec.name:<16} {spec.summary}")
    print("solvers:")
    for info in available_solvers():
        state = f"available ({info.version})" if info.available else "not installed"
        feats = ", ".join(sorted(info.features)) if info.available else ""
        print(f"  {info.name:<16} {state}" + (f"  [{feats}]" if feats else ""))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from schedrelax import algorithms
    from schedrelax.instances.generate import EXAMPLES, example

    out_dir = Path(args.out_dir) if args.out_dir else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    header = f"{'instance':<16} {'algorithm':<16} {'objective':>12} {'lower bound':>12} {'ratio':>7} {'time s':>7}"
    print(header)
    print("-" * len(header))
    for fam in EXAMPLES:
        inst = example(fam)
        for spec in algorithms.available(inst.family):
            result = algorithms.run(spec.name, inst, solver=args.solver, seed=0)
            lb = "-" if result.lower_bound is None else f"{result.lower_bound:.6g}"
            ratio = "-" if result.ratio_to_bound is None else f"{result.ratio_to_bound:.3f}"
            print(f"{inst.family:<16} {spec.name:<16} {result.objective:>12.6g} {lb:>12} {ratio:>7} "
                  f"{result.timings['total']:>7.3f}")
            if out_dir:
                from schedrelax.experiments.plots import save_gantt

                save_gantt(inst, result.schedule, str(out_dir / f"{inst.family}_{spec.name}.png"),
                           title=f"{spec.name} on the bundled {inst.family} example")
    print("every schedule above passed verify")
    return 0



def _cmd_compare(args: argparse.Namespace) -> int:
    from schedrelax.experiments.compare import main_compare

    _writable("--out", args.out)
    try:
        main_compare(args.paths, args.family, args.generate, args.seed, args.setup, args.algorithms, args.solvers,
                     args.out, args.resume, args.workers, args.dask, args.time_limit, args.opt_max_jobs, args.no_opt,
                     params=dict(args.param), opt_max_tasks=args.opt_max_tasks, opt_time_limit=args.opt_time_limit)
    except KeyboardInterrupt:
        # The table holds every instance finished so far (written as each one ends).
        saved = f"; the finished cells are in {args.out}: run again with --resume to do the rest" if args.out else ""
        print(f"schedrelax compare: interrupted{saved}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from schedrelax.experiments.reproduce import reproduce, reproduce_all

    if args.name == "all":
        # A progress line per reproduction; a failed one is in the index and the exit code.
        _, outcomes = reproduce_all(args.out, quick=args.quick, seed=args.seed, swim=args.swim)
        return 0 if all(o.status == "ok" for o in outcomes) else 1
    for report in reproduce(args.name, args.out, quick=args.quick, seed=args.seed, swim=args.swim):
        print(f"report written to {report}")
    return 0


_COMMANDS = {"compare": _cmd_compare, "reproduce": _cmd_reproduce, "solve": _cmd_solve, "generate": _cmd_generate, "verify": _cmd_verify, "list": _cmd_list,
             "demo": _cmd_demo}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``schedrelax`` console script."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:  # a bare `schedrelax`: show what it can do
        parser.print_help()
        return 0
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
    except Exception as exc:  # noqa: BLE001 - a bug, not bad input: say so in one line, keep the code apart
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
