"""The schedrelax command: generate -> solve -> verify round trips, errors, list, demo."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from schedrelax.cli import EXIT_USAGE, main
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


def test_verify_rejects_a_broken_schedule_with_exit_2(tmp_path, capsys):
    inst_path, sched_path = tmp_path / "inst.json", tmp_path / "sched.json"
    main(["generate", "related", "--seed", "1", "-o", str(inst_path)])
    main(["solve", str(inst_path), "-a", "fifo", "-o", str(sched_path)])
    data = json.loads(sched_path.read_text())
    data["end"][0] = data["end"][0] + 5.0  # the task now runs longer than size/speed
    sched_path.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["verify", str(inst_path), str(sched_path)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error:" in err and "runs for" in err


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
                 "solvers:", "highs"):
        assert word in out


def test_demo_runs_and_writes_charts(tmp_path, capsys):
    assert main(["demo", "--out-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "every schedule above passed verify" in out
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
    assert "reproduction 'spc' has no option 'swim'" in capsys.readouterr().err


def test_interrupted_compare_exits_130_and_says_how_to_resume(tmp_path, monkeypatch, capsys):
    from schedrelax.cli import EXIT_INTERRUPTED
    from schedrelax.experiments import compare

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(compare, "main_compare", interrupted)
    out = tmp_path / "grid.csv"
    assert main(["compare", "--family", "related", "--generate", "2", "--out", str(out)]) == EXIT_INTERRUPTED == 130
    assert f"interrupted; the finished cells are in {out}: run again with --resume" in capsys.readouterr().err
