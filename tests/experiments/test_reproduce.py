"""``schedrelax reproduce``: the registry of declarations, ``reproduce all`` on fake entries (a
failure recorded without stopping the others, the index, resume), the CLI's options, and the
real registry: every declaration loads, and (``--runslow``) a killed ``reproduce all --quick``
resumed ends with the uninterrupted run's reports."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from schedrelax.cli import main
from schedrelax.experiments import engine as E
from schedrelax.experiments import reproduce as rep

ROOT = Path(__file__).resolve().parents[2]


def toy_a():
    from tests.experiments.test_engine import toy

    return toy(name="alpha")


def toy_b():
    from tests.experiments.test_engine import toy

    return toy(name="gamma", params={"mu": 5.0})


ALPHA = toy_a()
GAMMA = toy_b()


@pytest.fixture
def fakes(monkeypatch):
    """Fake entries: one that works, one whose module is missing, one after it."""
    here = "tests.experiments.test_reproduce"
    monkeypatch.setattr(rep, "REPRODUCTIONS", {
        "alpha": rep.Entry("alpha", f"{here}:ALPHA", "900 Fake §1", "a toy that works"),
        "beta": rep.Entry("beta", "tests.experiments.no_such_module:EXPERIMENT", "901 Fake §2", "cannot load"),
        "gamma": rep.Entry("gamma", f"{here}:GAMMA", "902 Fake §3", "another toy"),
    })


def test_every_reproduction_runs_and_a_failure_is_recorded(tmp_path, fakes):
    lines: list[str] = []
    index, outcomes = rep.reproduce_all(tmp_path, quick=True, echo=lines.append, progress=False)
    assert [(o.name, o.status) for o in outcomes] == [("alpha", "ok"), ("beta", "failed"), ("gamma", "ok")]
    assert "No module named 'tests.experiments.no_such_module'" in outcomes[1].error
    assert [line.split(":")[0] for line in lines] == ["[1/3] alpha"] * 2 + ["[2/3] beta"] * 2 + ["[3/3] gamma"] * 2 \
        + [f"index written to {index} (2 of 3 ok)"]
    text = index.read_text()
    assert "| [alpha](#reproduction-alpha) | A beats B |" in text  # the headline claims come first
    assert text.index("## Headline claims") < text.index("## Verdicts per reproduction")
    assert "**failed**" in text and (tmp_path / "beta" / "error.txt").exists()
    timings = pd.read_csv(tmp_path / rep.TIMINGS)
    assert list(timings["reproduction"]) == ["alpha", "beta", "gamma"]
    assert "seconds" not in text.lower().split("wall times")[0]  # nothing that changes run to run


def test_resume_all_redoes_nothing_and_gives_the_same_index(tmp_path, fakes):
    first, _ = rep.reproduce_all(tmp_path / "a", quick=True, echo=None, progress=False)
    cells = E.cells_file(tmp_path / "a" / "gamma", "gamma")
    header, *lines = cells.read_text().splitlines(keepends=True)  # as if killed in gamma: its last seed
    seed = header.split(",").index("seed")
    last = max(int(x.split(",")[seed]) for x in lines)
    cells.write_text(header + "".join(x for x in lines if int(x.split(",")[seed]) != last))
    again, _ = rep.reproduce_all(tmp_path / "a", quick=True, resume=True, echo=None, progress=False)
    fresh, _ = rep.reproduce_all(tmp_path / "b", quick=True, echo=None, progress=False)
    assert again.read_text() == fresh.read_text()
    for name in ("alpha", "gamma"):
        assert (tmp_path / "a" / name / f"{name}.md").read_text() == (tmp_path / "b" / name / f"{name}.md").read_text()


def test_overrides_reach_the_reproductions_that_have_them(tmp_path, fakes):
    rep.reproduce_all(tmp_path, names=["alpha"], quick=True, overrides={"mu": 30.0}, echo=None, progress=False)
    cells = pd.read_csv(E.cells_file(tmp_path / "alpha", "alpha"))
    main_cells = cells[(cells["setting"] == "main") & (cells["algorithm"] == "A")]
    assert main_cells["cost"].between(29.0, 31.0).all()
    with pytest.raises(ValueError, match="no reproduction has the parameter 'nope'"):
        rep.reproduce_all(tmp_path, names=["alpha"], quick=True, overrides={"nope": 1}, echo=None, progress=False)


def test_cli_set_config_workers_and_resume(tmp_path, fakes, capsys):
    out = tmp_path / "out"
    assert main(["reproduce", "alpha", "--quick", "--out", str(out), "--set", "mu=12", "--workers", "2"]) == 0
    assert "report written to" in capsys.readouterr().out
    assert main(["reproduce", "alpha", "--quick", "--out", str(out), "--set", "nope=1"]) == 2
    assert "reproduction 'alpha' has no parameter 'nope'" in capsys.readouterr().err
    config = tmp_path / "c.toml"
    config.write_text("mu = 12.0\n")
    assert main(["reproduce", "alpha", "--quick", "--out", str(out), "--config", str(config), "--resume"]) == 0
    assert main(["reproduce", "alpha", "--quick", "--out", str(out), "--set", "mu=13", "--resume"]) == 2
    assert "its cells were made by another grid" in capsys.readouterr().err
    assert main(["reproduce", "alpha", "--quick", "--out", str(out), "--workers", "0"]) == 2
    assert main(["reproduce", "nope", "--out", str(out)]) == 2
    assert "unknown reproduction 'nope'" in capsys.readouterr().err


def test_parse_sets_and_config_errors(tmp_path):
    assert rep.parse_sets(["a=1", "b=[2, 3]", "c=fair-paper", "d=true"]) == {"a": 1, "b": (2, 3), "c": "fair-paper",
                                                                            "d": True}
    with pytest.raises(ValueError, match="expected KEY=VALUE"):
        rep.parse_sets(["novalue"])
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(ValueError, match="must hold a table"):
        rep.read_config(bad)
    with pytest.raises(ValueError, match="cannot be read"):
        rep.read_config(tmp_path / "missing.json")


@pytest.mark.parametrize("via", ["option", "variable"])
def test_a_google_path_leading_nowhere_fails_before_any_run(tmp_path, monkeypatch, capsys, via):
    missing = tmp_path / "nowhere.csv.gz"
    out = tmp_path / "out"
    if via == "option":
        monkeypatch.delenv(rep.GOOGLE_ENV, raising=False)
        argv, label = ["--google", str(missing)], f"--google {missing}"
    else:
        monkeypatch.setenv(rep.GOOGLE_ENV, str(missing))
        argv, label = [], f"SCHEDRELAX_GOOGLE_TRACE={missing}"
    assert main(["reproduce", "all", "--quick", "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"schedrelax reproduce: error: {label}: no such file or folder; expected a task_events "
                          'part of the Google cluster-data 2011 trace ("clusterdata-2011-2"')
    assert not out.exists()  # nothing ran


def test_every_registered_declaration_loads_with_its_name_and_paper():
    for name, entry in rep.available().items():
        exp = entry.load()
        assert exp.name == name
        assert exp.rows and all(r.paper is not None for r in exp.rows)
        assert any(r.claim for r in exp.rows) or exp.joints, f"{name}: no headline claim"
        E.plan(exp, quick=True)  # the declaration expands (fit seeds apart, points known)


KILL = """
import sys
from schedrelax.experiments.reproduce import reproduce_all
reproduce_all(sys.argv[1], quick=True, resume=True, workers=2, echo=None, progress=False)
"""


@pytest.mark.slow
def test_reproduce_all_quick_killed_and_resumed_equals_an_uninterrupted_run(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(rep.GOOGLE_ENV, None)
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-c", KILL, str(killed)], cwd=ROOT, env=env)
    time.sleep(90)  # well into the run: some reproductions done, one midway
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    subprocess.run([sys.executable, "-c", KILL, str(killed)], cwd=ROOT, env=env, check=True)
    fresh = tmp_path / "fresh"
    subprocess.run([sys.executable, "-c", KILL.replace("resume=True", "resume=False"), str(fresh)], cwd=ROOT, env=env,
                   check=True)
    assert (killed / rep.INDEX).read_text() == (fresh / rep.INDEX).read_text()
    for name in rep.available():
        for suffix in (".md", "_side_by_side.csv"):
            a, b = killed / name / f"{name}{suffix}", fresh / name / f"{name}{suffix}"
            assert a.read_text() == b.read_text(), f"{a} differs from the uninterrupted run"
