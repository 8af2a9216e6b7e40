"""The schedrelax command: generate -> solve -> verify round trips, errors, list, demo."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from schedrelax.cli import EXIT_INFEASIBLE, EXIT_USAGE, main
from schedrelax.instances import load
from schedrelax.instances.generate import SETUPS
from schedrelax.schedules import Schedule, verify


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_generate_solve_verify_round_trip(setup, tmp_path, capsys):
    family = SETUPS[setup].family
    inst_path, sched_path, png = tmp_path / "inst.json", tmp_path / "sched.json", tmp_path / "gantt.png"
    assert main(["generate", family, "--setup", setup, "--seed", "3", "-o", str(inst_path)]) == 0
    inst = load(inst_path)
    assert inst.family == family
    assert main(["solve", str(inst_path), "--algorithm", "fifo", "--out", str(sched_path),
                 "--gantt", str(png)]) == 0
    assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"
    sched = Schedule.load(sched_path)
    verify(inst, sched)  # the file on disk, re-read, is feasible: not just the in-memory object
    capsys.readouterr()
    assert main(["verify", str(inst_path), str(sched_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("feasible:")
    assert json.loads(sched_path.read_text())["meta"]["algorithm"] == "fifo"


def test_generate_is_seeded(tmp_path):
    a, b, c = (tmp_path / f"{n}.json" for n in "abc")
    main(["generate", "packing", "--seed", "7", "-o", str(a)])
    main(["generate", "packing", "--seed", "7", "-o", str(b)])
    main(["generate", "packing", "--seed", "8", "-o", str(c)])
    assert a.read_text() == b.read_text()
    assert a.read_text() != c.read_text()


def test_verify_rejects_a_broken_schedule_with_exit_1(tmp_path, capsys):
    inst_path, sched_path = tmp_path / "inst.json", tmp_path / "sched.json"
    main(["generate", "related", "--seed", "1", "-o", str(inst_path)])
    main(["solve", str(inst_path), "-a", "fifo", "-o", str(sched_path)])
    data = json.loads(sched_path.read_text())
    data["end"][0] = data["end"][0] + 5.0  # the task now runs longer than size/speed
    sched_path.write_text(json.dumps(data))
    capsys.readouterr()
    # Exit 1 answers "infeasible"; 2 is kept for input the command could not read.
    assert main(["verify", str(inst_path), str(sched_path)]) == EXIT_INFEASIBLE
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("infeasible:") and "runs for" in out
    (tmp_path / "bad.json").write_text('{"job": [0], "task": null}')
    assert main(["verify", str(inst_path), str(tmp_path / "bad.json")]) == EXIT_USAGE
    assert main(["verify", str(inst_path), str(tmp_path)]) == EXIT_USAGE  # a folder, not a file
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and err.count("error:") == 2


@pytest.mark.parametrize("argv, fragment", [
    (["solve", "nope.json", "-a", "fifo"], "no such instance file"),
    (["generate", "nofamily", "-o", "x.json"], "nofamily"),
    (["generate", "related", "--setup", "flex", "-o", "x.json"], "flex"),
    (["generate", "related", "-p", "bogus=1", "-o", "x.json"], "bogus"),
    (["solve", "INST", "-a", "fifo", "--solver", "hihgs"], "hihgs"),
])
def test_user_errors_are_one_line_and_exit_2(argv, fragment, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    if "INST" in argv:
        main(["generate", "related", "-o", "inst.json"])
        capsys.readouterr()
        argv = [a if a != "INST" else "inst.json" for a in argv]
    assert main(argv) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err


def test_unknown_algorithm_and_wrong_family(tmp_path, capsys):
    inst = tmp_path / "i.json"
    main(["generate", "mapreduce", "-o", str(inst)])
    capsys.readouterr()
    assert main(["solve", str(inst), "-a", "no-such-algo"]) == EXIT_USAGE
    assert "unknown algorithm 'no-such-algo'" in capsys.readouterr().err
    assert main(["solve", str(inst), "-a", "fifo", "-p", "bogus=1"]) == EXIT_USAGE
    assert "no parameter 'bogus'" in capsys.readouterr().err


def test_bad_instance_file_names_the_field(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"family": "related", "schema_version": 1, "speeds": [1, -2],
                               "jobs": [{"tasks": [1]}]}))
    assert main(["solve", str(bad), "-a", "fifo"]) == EXIT_USAGE
    assert "machine 1: speed must be > 0, got -2" in capsys.readouterr().err


def test_debug_shows_the_traceback(tmp_path):
    with pytest.raises(Exception, match="no such instance file"):
        main(["--debug", "solve", str(tmp_path / "missing.json"), "-a", "fifo"])


def test_list_names_families_algorithms_and_solvers(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for word in ("families:", "malleable", "mapreduce", "packing", "related", "algorithms:", "fifo",
                 "solvers (--solver NAME;", "highs"):
        assert word in out


def test_demo_runs_and_writes_charts(tmp_path, capsys):
    assert main(["demo", "--out-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Every schedule above passed verify." in out
    assert {p.name for p in tmp_path.glob("*.png")} >= {f"{f}_fifo.png" for f in
                                                        ("malleable", "mapreduce", "packing", "related")}


def test_python_dash_m_is_the_same_command():
    proc = subprocess.run([sys.executable, "-m", "schedrelax", "list"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "families:" in proc.stdout


def test_list_names_the_reproductions(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out.split("reproductions:")[1].split("solvers:")[0]
    for name in ("asrpt", "flex", "flowflex", "spc", "synchpack"):
        assert f"  {name} " in out


def test_reproduce_unknown_name_is_a_user_error(tmp_path, capsys):
    assert main(["reproduce", "nope", "--out", str(tmp_path)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "unknown reproduction 'nope'; choose one of: all, " in err and "flowflex" in err


def test_reproduce_option_of_another_reproduction_is_a_user_error(tmp_path, capsys):
    assert main(["reproduce", "spc", "--swim", "trace.tsv", "--out", str(tmp_path)]) == EXIT_USAGE
    assert "reproduction 'spc' has no parameter 'swim'" in capsys.readouterr().err


def test_interrupted_compare_exits_130_and_says_how_to_resume(tmp_path, monkeypatch, capsys):
    from schedrelax.cli import EXIT_INTERRUPTED
    from schedrelax.experiments import compare

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(compare, "main_compare", interrupted)
    out = tmp_path / "grid.csv"
    assert main(["compare", "--family", "related", "--generate", "2", "--out", str(out)]) == EXIT_INTERRUPTED == 130
    assert f"interrupted; the finished cells are in {out}: run again with --resume" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["solve", "{inst}", "-a", "fifo", "--out", "{tmp}/missing/s.json"],
    ["solve", "{inst}", "-a", "fifo", "--gantt", "{tmp}/missing/g.png"],
    ["solve", "{inst}", "-a", "fifo", "--out", "{tmp}"],
    ["generate", "packing", "-o", "{tmp}/missing/i.json"],
    ["compare", "{inst}", "--no-opt", "--out", "{tmp}/missing/t.csv"],
])
def test_an_output_path_in_a_missing_folder_is_an_error_before_any_work(argv, tmp_path, capsys):
    inst = tmp_path / "inst.json"
    main(["generate", "packing", "--seed", "1", "-o", str(inst)])
    capsys.readouterr()
    argv = [a.format(inst=inst, tmp=tmp_path) for a in argv]
    assert main(argv) == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing computed and printed before the error
    assert captured.err.count("\n") == 1 and ("does not exist" in captured.err or "is a folder" in captured.err)
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("param, fragment", [
    ("eps=abc", "'eps' must be float, got 'abc'"),
    ("eps=true", "'eps' must be float, got True"),
    ("slow_motion=3", "'slow_motion' must be str, got 3"),
])
def test_a_parameter_of_the_wrong_type_is_one_clear_line(param, fragment, tmp_path, capsys):
    inst = tmp_path / "inst.json"
    main(["generate", "packing", "--seed", "1", "-o", str(inst)])
    capsys.readouterr()
    assert main(["solve", str(inst), "-a", "synchpack1", "-p", param]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err


def test_list_into_a_closed_pipe_ends_quietly():
    # `schedrelax list | head -1`: the reader closes the pipe early; no BrokenPipeError traceback.
    proc = subprocess.run(f"{sys.executable} -m schedrelax list | head -1", shell=True, capture_output=True,
                          text=True, timeout=120)
    assert proc.stdout.startswith("families:")
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads worker pids from /proc")
def test_compare_workers_end_when_the_parent_is_killed(tmp_path):
    import os
    import signal
    import time

    folder = tmp_path / "insts"
    folder.mkdir()
    for seed in range(6):
        main(["generate", "related", "--seed", str(seed), "-o", str(folder / f"r{seed}.json")])
    proc = subprocess.Popen([sys.executable, "-m", "schedrelax", "compare", str(folder), "--workers", "2",
                             "--opt-time-limit", "60", "--out", str(tmp_path / "t.csv")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def children() -> set[int]:
        found = set()
        for task in os.listdir(f"/proc/{proc.pid}/task"):
            text = open(f"/proc/{proc.pid}/task/{task}/children").read()
            found.update(int(p) for p in text.split())
        return found

    workers: set[int] = set()
    deadline = time.monotonic() + 60
    while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
        workers = children()
    assert len(workers) >= 2, "compare never started its worker processes"
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    def running(pid: int) -> bool:
        try:
            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return False
        return state != "Z"

    deadline = time.monotonic() + 10
    while any(running(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in workers if running(p)]
    for p in left:  # do not leave them behind even when the test fails
        os.kill(p, signal.SIGKILL)
    assert not left, f"worker processes {left} outlived their killed parent"


def test_no_solver_banner_in_the_output(tmp_path):
    # HiGHS prints its copyright banner below Python's sys.stdout (descriptor 1) on the first
    # object made; capsys cannot see it, so this runs the command in a child process.
    inst = tmp_path / "inst.json"
    main(["generate", "packing", "--seed", "1", "-o", str(inst)])
    for argv in (["list"], ["solve", str(inst), "-a", "synchpack2"]):
        proc = subprocess.run([sys.executable, "-m", "schedrelax", *argv], capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert "Copyright" not in proc.stdout + proc.stderr and "Running HiGHS" not in proc.stdout


def test_version_and_bare_command(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"schedrelax {version('schedrelax')}"
    assert main([]) == 0  # a bare `schedrelax` shows the help, not an argparse error
    out = capsys.readouterr().out
    assert out.startswith("usage: schedrelax") and "solve" in out and "verify" in out


def test_the_command_starts_without_the_heavy_imports():
    # `schedrelax --help` and an input error must not wait for Pyomo, SciPy, cvxpy or NetworkX
    # (1.4-2.6 s of imports on a fresh machine); checked by what a fresh interpreter has imported.
    code = ("import sys; from schedrelax.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('pyomo', 'scipy', 'cvxpy', 'networkx', 'highspy') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stdout[-300:]
    code = ("import sys; from schedrelax.cli import main\nmain(['solve', 'nope.json', '-a', 'fifo'])\n"
            "print(sorted(m for m in ('pyomo', 'scipy', 'cvxpy', 'highspy') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip().splitlines()[-1] == "[]" and "no such instance file" in proc.stderr


_RUN_AND_LIST_HEAVY = """\
import runpy, sys
sys.argv = ['schedrelax', *sys.argv[1:]]
try:
    runpy.run_module('schedrelax', run_name='__main__')
except SystemExit:
    pass
print(sorted({m.split('.')[0] for m in sys.modules} & {'pyomo', 'scipy', 'cvxpy', 'highspy'}), file=sys.stderr)
"""


@pytest.mark.parametrize("argv", [["solve", "INSTANCE", "-a", "nope"], ["list"], ["--help"],
                                  ["solve", "INSTANCE", "-a", "online:nope"],
                                  ["solve", "INSTANCE", "-a", "fifo", "--solver", "nosuch"]])
def test_an_unknown_name_list_and_help_import_no_solver_or_pyomo(argv, tmp_path):
    # `python -m schedrelax ...` as a user runs it, in a fresh interpreter: what it imported
    # (the registry's table answers the name checks and `list` without any implementation).
    inst = tmp_path / "x.json"
    main(["generate", "malleable", "-o", str(inst)])
    argv = [str(inst) if a == "INSTANCE" else a for a in argv]
    proc = subprocess.run([sys.executable, "-c", _RUN_AND_LIST_HEAVY, *argv], capture_output=True, text=True,
                          timeout=300)
    assert proc.stderr.strip().splitlines()[-1] == "[]", proc.stderr
    if "nope" in argv or "online:nope" in argv:
        assert "unknown algorithm 'nope'" in proc.stderr
    elif "nosuch" in argv:
        assert "unknown solver 'nosuch'; installed here: " in proc.stderr
    else:
        assert proc.stdout.startswith(("usage: schedrelax", "families:"))


def _tiny_related(tmp_path):
    """Two jobs on one machine of speed 1: sizes 1 and 3, weights 1 and 1; by hand OPT = 1 + 4 = 5
    (shortest first), the other order costs 3 + 4 = 7."""
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({
        "family": "related", "schema_version": 1, "speeds": [1.0],
        "jobs": [{"tasks": [1.0], "weight": 1.0}, {"tasks": [3.0], "weight": 1.0}]}))
    return path


def test_solve_says_what_it_proved(tmp_path, capsys):
    inst = _tiny_related(tmp_path)
    assert main(["solve", str(inst), "-a", "mip"]) == 0
    out = capsys.readouterr().out
    assert "total weighted completion time Σ_j w_j C_j = 5;" in out  # the objective is named, OPT by hand
    assert "status: optimal (proven" in out
    assert "lower bound: 5 — MIP dual bound (highs)" in out or "lower bound: 5 — LP-Schedule optimum" in out
    assert main(["solve", str(inst), "-a", "fifo"]) == 0
    out = capsys.readouterr().out
    assert "status: heuristic" in out and "lower bound: none proven" in out
    assert main(["solve", str(inst), "-a", "spc"]) == 0
    out = capsys.readouterr().out
    assert "— LP-Schedule optimum (Queyranne cuts, paper 004 §III)" in out


def test_solve_with_a_time_limit_says_the_mip_was_not_proven(tmp_path, capsys):
    # 8 related jobs: HiGHS does not close the gap in 0.5 s on this machine class (the default
    # small related size is not proven in 60 s, issue 14); whatever it reaches, the words must
    # match the numbers: "optimal" only with objective == bound.
    inst = tmp_path / "r.json"
    main(["generate", "related", "--seed", "0", "-o", str(inst)])
    capsys.readouterr()
    assert main(["solve", str(inst), "-a", "mip", "--time-limit", "0.5"]) == 0
    out = capsys.readouterr().out
    status = next(line for line in out.splitlines() if "status:" in line)
    bound = next(line for line in out.splitlines() if "lower bound:" in line)
    objective = float(out.splitlines()[0].split("= ")[1].split(";")[0])
    value = float(bound.split(":")[1].split("—")[0])
    if "optimal (proven" in status:
        assert abs(objective - value) <= 1e-6 * max(1.0, objective)
    else:
        assert "not proven optimal" in status and "gap" in status
        assert "MIP dual bound" in bound or "LP-Schedule optimum" in bound  # the larger of the two
        assert value < objective


def test_demo_names_the_objective_and_divides_by_the_proven_optimum(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    for objective in ("total flow cost", "total flow time", "total weighted completion time"):
        assert f"objective = {objective}" in out
    assert "ALG/LB" in out and "ALG/OPT" in out and out.count("proven by mip") == 4
    for line in out.splitlines():
        fields = line.split()
        if fields and fields[0] == "mip":
            assert fields[1] == "optimal" and fields[5] == "1.000", line  # ALG/OPT of the optimum itself


def test_list_aligns_long_names_and_lists_solver_variants(capsys):
    from schedrelax import algorithms

    assert main(["list"]) == 0
    out = capsys.readouterr().out
    rows = out.split("algorithms:\n")[1].split("reproductions:")[0].splitlines()
    starts = {len(row) - len(row[2:].split(" ", 1)[1].lstrip()) for row in rows}
    assert len(rows) == len(algorithms.available()) and len(starts) == 1, rows  # one column for the families
    assert "highs:ipm" in out and "highs:simplex" in out
    from schedrelax.solvers import available_solvers

    for info in available_solvers():
        if not info.available:
            assert f"not installed: {info.install}" in out


def test_quiet_verbose_and_solver_log_flags(tmp_path):
    inst = _tiny_related(tmp_path)

    def run(*argv):
        return subprocess.run([sys.executable, "-m", "schedrelax", *argv], capture_output=True, text=True,
                              timeout=300)

    noted = run("solve", str(inst), "-a", "fifo", "--time-limit", "5")
    assert noted.returncode == 0 and "--time-limit ignored" in noted.stderr
    for argv in (["-q", "solve", str(inst), "-a", "fifo", "--time-limit", "5"],
                 ["solve", str(inst), "-a", "fifo", "--time-limit", "5", "-q"]):
        quiet = run(*argv)
        assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    verbose = run("solve", str(inst), "-a", "fifo", "-v")
    assert "schedrelax: fifo on a related instance (2 jobs): objective 5, heuristic" in verbose.stderr
    assert "timings" not in verbose.stderr and "timings" in run("-vv", "solve", str(inst), "-a", "fifo").stderr
    plain = run("solve", str(inst), "-a", "mip")
    logged = run("--solver-log", "solve", str(inst), "-a", "mip")
    assert "HiGHS" not in plain.stdout + plain.stderr
    assert "HiGHS" in logged.stdout + logged.stderr  # its banner and log, asked for


def test_every_subcommand_help_has_its_description(capsys):
    from schedrelax.cli import _parser

    parser = _parser()
    names = [a for a in parser._subparsers._group_actions[0].choices]
    for name in names:
        with pytest.raises(SystemExit):
            main([name, "--help"])
        out = capsys.readouterr().out
        summary = next(a.help for a in parser._subparsers._group_actions[0]._choices_actions if a.dest == name)
        assert summary[1:] in " ".join(out.split()), (name, summary)


def test_python_api_takes_the_common_options_as_keywords(tmp_path):
    import inspect

    import schedrelax as sr

    inst = sr.load(_tiny_related(tmp_path))
    res = sr.run("mip", inst, time_limit=30)
    assert res.status == "optimal" and res.objective == 5.0 and res.params["time_limit"] == 30
    assert sr.run("spc", inst, cuts="prefixes").params["cuts"] == "prefixes"
    with pytest.raises(sr.AlgorithmError, match="time_limit"):
        sr.run("fifo", inst, time_limit=3)
    with pytest.raises(sr.AlgorithmError, match="both"):
        sr.run("spc", inst, params={"cuts": "most"}, cuts="most")
    for fn, keys in ((sr.solve, {"time_limit", "mip_gap", "threads"}), (sr.compare, {"out", "resume", "workers"})):
        assert keys <= set(inspect.signature(fn).parameters)


def test_list_an_algorithm_shows_each_parameter_with_type_default_and_meaning(capsys):
    assert main(["list", "synchpack2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("synchpack2 (packing, paper 003 §4; uses an LP/MIP solver (--solver)): ")
    rows = {line.split()[0]: line for line in out.splitlines()[2:]}
    # the signature of rounding.synchpack.synchpack2, read by hand: tries: int = 4, lam: ... = None
    assert rows["tries"].split()[1:3] == ["int", "4"] and "stretch candidates" in rows["tries"]
    assert rows["lam"].split()[1:6] == ["float", "|", "str", "|", "None"] and "Slow-Motion" in rows["lam"]
    assert set(rows) == {"lam", "tries", "slow_motion", "shift_back", "time_limit", "aggregate"}
    assert main(["list", "mip"]) == 0  # one block per family
    assert capsys.readouterr().out.count("mip (") == 4
    assert main(["list", "fifo"]) == 0
    assert "no parameters of its own" in capsys.readouterr().out


def test_an_algorithms_parameters_as_a_frame_are_the_rows_list_prints(capsys):
    import inspect

    from schedrelax import algorithms

    spec = algorithms.get("synchpack2", "packing")
    frame = spec.parameters()
    assert list(frame.columns) == ["type", "default", "meaning"]
    # the implementation's own signature, read independently of the table
    signature = inspect.signature(spec.fn).parameters
    assert set(frame.index) == {k for k, p in signature.items() if p.kind is p.KEYWORD_ONLY} - {"solver", "seed"}
    assert frame.loc["tries", "default"] == repr(signature["tries"].default) == "4"
    assert main(["list", "synchpack2"]) == 0
    out = capsys.readouterr().out
    for name, row in frame.iterrows():
        assert any(line.split()[0] == name and row["meaning"] in line for line in out.splitlines())


def test_every_algorithm_parameter_has_a_meaning():
    from schedrelax import algorithms

    missing = [(s.name, s.family, p.name) for s in algorithms.available() for p in s.params
               if not algorithms.meaning(s, p.name)]
    assert missing == []


def test_list_a_setup_shows_its_generator_parameters(capsys):
    assert main(["list", "synchpack"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines()[3:]}
    # instances.generate.synchpack(seed, *, machines: int = 100, n_jobs: int = 100, ...); small: 4 machines
    assert rows["machines"][:4] == ["machines", "int", "100", "4"]
    assert rows["n_jobs"][:3] == ["n_jobs", "int", "100"]


def test_list_an_unknown_name_is_a_user_error(capsys):
    assert main(["list", "nope"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "list nope: no algorithm or setup of that name" in err and "synchpack2" in err


def test_gantt_format_is_checked_before_the_run(tmp_path, monkeypatch, capsys):
    inst = _tiny_related(tmp_path)
    from schedrelax import algorithms

    def never(*args, **kwargs):
        raise AssertionError("the algorithm ran before the --gantt check")

    monkeypatch.setattr(algorithms, "run", never)
    assert main(["solve", str(inst), "-a", "fifo", "--gantt", str(tmp_path / "out.txt")]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "--gantt" in err and "got '.txt'" in err and ".png, .svg, .pdf" in err


def test_an_exact_mip_prints_no_theorem_guarantee_and_exhaustive_says_why_it_is_heuristic(tmp_path, capsys):
    inst = _tiny_related(tmp_path)
    assert main(["solve", str(inst), "-a", "mip"]) == 0
    out = capsys.readouterr().out
    assert "status: optimal" in out and "guarantee" not in out and "theorem" not in out
    from schedrelax.instances.generate import example

    path = tmp_path / "malleable.json"
    example("malleable").save(path)
    assert main(["solve", str(path), "-a", "exhaustive"]) == 0
    out = capsys.readouterr().out
    assert "status: heuristic" in out and "note: status heuristic: the schedule is the best MPS schedule" in out
    assert "Lemma 1" in out


def test_quiet_solve_prints_one_line(tmp_path, capsys):
    inst = _tiny_related(tmp_path)
    assert main(["-q", "solve", str(inst), "-a", "fifo", "--out", str(tmp_path / "s.json")]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.rstrip().endswith("schedule verified; heuristic")
    assert main(["solve", str(inst), "-a", "fifo"]) == 0
    assert capsys.readouterr().out.count("\n") > 3


def test_unterminated_string_has_one_at(tmp_path, capsys):
    inst = _tiny_related(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text('{"job": "abc')
    assert main(["verify", str(inst), str(bad)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "Unterminated string starting at line 1, column 9" in err and "at at" not in err


def test_top_level_help_has_no_rest_markup(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "``" not in out and "The schedrelax command (also python -m schedrelax)" in " ".join(out.split())


def test_gurobi_hint_is_an_install_command():
    from schedrelax.errors import SolverNotAvailableError
    from schedrelax.solvers.registry import check_solver, found_here

    if found_here("gurobi"):
        pytest.skip("gurobi is found here")
    with pytest.raises(SolverNotAvailableError, match=r"install it with: pip install gurobipy"):
        check_solver("gurobi")


def test_another_solver_says_the_lp_may_have_another_optimal_vertex(tmp_path, capsys):
    inst = tmp_path / "p.json"
    main(["generate", "packing", "-o", str(inst)])
    capsys.readouterr()
    assert main(["solve", str(inst), "-a", "synchpack2", "--solver", "cvxpy"]) == 0
    assert "another optimal vertex than HiGHS" in capsys.readouterr().out
    assert main(["solve", str(inst), "-a", "synchpack2"]) == 0
    assert "optimal vertex" not in capsys.readouterr().out


def test_compare_counts_cells_at_another_vertex_of_the_same_lp():
    import pandas as pd

    from schedrelax.experiments.compare import other_vertex_cells

    table = pd.DataFrame({"instance": ["a", "a", "a", "b", "b"], "algorithm": ["x", "x", "x", "x", "x"],
                          "solver": ["highs", "cvxpy", "glpk", "highs", "cvxpy"], "status": ["ok"] * 5,
                          "lower_bound": [10.0, 10.0, 10.0, 7.0, 7.5], "objective": [49.0, 47.0, 49.0, 20.0, 21.0]})
    # instance a: highs and glpk (49) each differ from cvxpy (47) at the same bound 10 -> 3 cells;
    # instance b: different bounds -> none.
    assert other_vertex_cells(table) == 3


def test_compare_runs_the_exact_mip_once_per_instance_with_the_first_solver_that_proves_it(tmp_path, monkeypatch):
    import math

    from schedrelax.experiments import compare as cmp

    calls = []

    def fake_opt(inst, solver, task):
        calls.append(solver)
        return (5.0, f"optimal ({solver})", 5.0) if solver == "highs" else (math.nan, "not proven optimal in 30 s", 4.0)

    monkeypatch.setattr(cmp, "_opt", fake_opt)
    src = cmp.sources_from_paths([_tiny_related(tmp_path)])
    table = cmp.compare(src, ["fifo", "spc"], ["highs", "cvxpy"], workers=1, progress=False).table
    assert calls == ["highs"]  # OPT is the instance's: not run again for cvxpy's cells
    assert set(table["opt_status"]) == {"optimal (highs)"} and (table["opt"] == 5.0).all() and len(table) == 3
    calls.clear()
    table = cmp.compare(src, ["fifo", "spc"], ["cvxpy", "highs"], workers=1, progress=False).table
    assert calls == ["cvxpy", "highs"]  # the first did not prove it, so the next one tried
    assert (table["opt"] == 5.0).all() and (table["mip_lb"] == 5.0).all()


def test_list_a_name_of_both_an_algorithm_and_a_setup_shows_both(capsys):
    assert main(["list", "spc"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("spc (related, ") and "\nsetup spc (related; " in out
