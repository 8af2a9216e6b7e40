"""The comparison runner: ratios by hand, failed cells, resume, local processes and Dask.

The three properties of issue 8's done-when each have a fast test on a small grid and a slow one
on 20 generated instances x every algorithm of the family x {highs, cvxpy}: the grid writes its
table, summary and plots; Dask on a LocalCluster gives the same numbers as local processes; a
grid interrupted and resumed ends with the table of an uninterrupted run without running a cell
twice.
"""

from __future__ import annotations

import math
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from schedrelax import algorithms
from schedrelax.algorithms import Result, register
from schedrelax.cli import main
from schedrelax.experiments import compare as cmp
from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.schedules import Schedule

CALLS: list[str] = []

NUMBERS = ["instance", "family", "n_jobs", "n_tasks", "algorithm", "solver", "status", "reason", "objective",
           "lower_bound", "opt", "opt_status", "alg_lb", "alg_opt", "opt_lb", "guarantee", "within_guarantee"]
"""Every column but the timings: what must not depend on where or when a cell ran."""

def _numbers(table):
    """The NUMBERS columns, in the same types whether the table was read from its CSV or not."""
    t = table[NUMBERS].copy()
    for c in ("reason", "opt_status"):
        t[c] = t[c].astype(object).where(t[c].notna(), "").astype(str)
    t["within_guarantee"] = t["within_guarantee"].map({True: 1.0, False: 0.0, "True": 1.0, "False": 0.0}).astype(float)
    for c in ("n_jobs", "n_tasks"):
        t[c] = t[c].astype(float)
    return t.reset_index(drop=True)


TINY_RELATED = {"n_jobs": 3, "tasks_per_job": (1, 2), "machines": 2}
"""Related instances small enough for the exact MIP to prove its optimum in well under a second."""

@pytest.fixture
def real_registry():
    """Asked for by the tests that run on the registry as it is (no test algorithms)."""


@pytest.fixture(autouse=True)
def _registry(request, monkeypatch):
    """Test algorithms on the related family; the exact one under a private name (not for the
    tests that ask for ``real_registry``)."""
    if "real_registry" in request.fixturenames:
        yield
        return
    algorithms.available()
    saved = {name: dict(specs) for name, specs in algorithms._REGISTRY.items()}
    monkeypatch.setattr(cmp, "OPT_ALGORITHM", "test-opt")
    CALLS.clear()

    def serial(instance):
        # Every task on machine 0, one after another: job j's task k.
        t, rows = 0.0, []
        for j in range(instance.n_jobs):
            for k in range(instance.job_offset[j + 1] - instance.job_offset[j]):
                d = instance.task_size[instance.job_offset[j] + k] / instance.speeds[0]
                rows.append((j, k, 0, t, t + d, 1.0))
                t += d
        return Schedule.from_pieces(rows)

    @register("test-serial", "related", "serial on machine 0, claims lower bound 2", uses_solver=True)
    def _serial(instance, *, solver, seed, time_limit=None):
        CALLS.append("serial")
        return Result("test-serial", serial(instance), lower_bound=2.0, guarantee=4.0)

    @register("test-opt", "related", "serial, claiming it is optimal", uses_solver=True)
    def _opt(instance, *, solver, seed, time_limit=None):
        CALLS.append("opt")
        sched = serial(instance)
        from schedrelax.schedules import evaluate

        return Result("test-opt", sched, lower_bound=evaluate(instance, sched).objective)

    @register("test-crash", "related", "always fails")
    def _crash(instance, *, solver, seed):
        raise RuntimeError("deliberate failure")

    yield
    algorithms._REGISTRY.clear()
    algorithms._REGISTRY.update(saved)


def _tiny(path):
    # Two jobs on one machine of speed 1: sizes 1 and 2, weights 1 and 1.
    # Serial order job 0 then job 1: C = (1, 3), so Σ w C = 4.
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([1.0]), RelatedJob([2.0])))
    inst.save(path)
    return path


def test_ratios_against_bound_and_optimum_by_hand(tmp_path):
    src = cmp.sources_from_paths([_tiny(tmp_path / "a.json")])
    res = cmp.compare(src, ["test-serial", "fifo", "test-crash"], ["highs"], workers=1, progress=False)
    t = res.table.set_index(["algorithm", "solver"])
    serial = t.loc[("test-serial", "highs")]
    assert serial["objective"] == pytest.approx(4.0)
    assert serial["opt"] == pytest.approx(4.0)          # test-opt's serial schedule, proven by its bound
    assert serial["alg_lb"] == pytest.approx(4.0 / 2.0)
    assert serial["alg_opt"] == pytest.approx(1.0)
    assert serial["opt_lb"] == pytest.approx(2.0)
    assert bool(serial["within_guarantee"]) is True     # 4 <= 4 * 2
    # FIFO uses no solver: one row under "-", ratios against the first solver's optimum.
    fifo = t.loc[("fifo", "-")]
    assert fifo["status"] == "ok" and fifo["opt"] == pytest.approx(4.0)
    crash = t.loc[("test-crash", "-")]
    assert crash["status"] == "failed" and "deliberate failure" in crash["reason"]
    assert math.isnan(crash["objective"])


def test_an_unproven_optimum_is_not_used(tmp_path, monkeypatch):
    @register("test-gap", "related", "an incumbent with a gap", uses_solver=True)
    def _gap(instance, *, solver, seed, time_limit=None):
        return Result("test-gap", Schedule.from_pieces([(0, 0, 0, 0, 1, 1), (1, 0, 0, 1, 3, 1)]), lower_bound=3.0)

    monkeypatch.setattr(cmp, "OPT_ALGORITHM", "test-gap")
    src = cmp.sources_from_paths([_tiny(tmp_path / "a.json")])
    row = cmp.compare(src, ["test-serial"], ["highs"], workers=1, progress=False).table.iloc[0]
    assert math.isnan(row["opt"]) and row["opt_status"].startswith("not proven optimal")


def test_resume_runs_only_missing_cells(tmp_path):
    out = tmp_path / "t.csv"
    src = cmp.sources_from_paths([_tiny(tmp_path / "a.json"), _tiny(tmp_path / "b.json")])
    first = cmp.compare(src, ["test-serial", "fifo"], ["highs"], out=out, workers=1, progress=False, plots=False)
    assert CALLS.count("serial") == 2
    table = pd.read_csv(out)
    drop = (table["instance"] == str(tmp_path / "b.json")) & (table["algorithm"] == "test-serial")
    table[~drop].to_csv(out, index=False)  # as if the run had been interrupted before that cell
    CALLS.clear()
    again = cmp.compare(src, ["test-serial", "fifo"], ["highs"], out=out, resume=True, workers=1, progress=False,
                        plots=False)
    assert CALLS.count("serial") == 1  # only the dropped cell ran again
    cols = ["instance", "algorithm", "solver", "objective"]
    pd.testing.assert_frame_equal(first.table[cols], again.table[cols])
    CALLS.clear()
    cmp.compare(src, ["test-serial", "fifo"], ["highs"], out=out, resume=True, workers=1, progress=False, plots=False)
    assert CALLS == []  # nothing left to do


def test_local_processes_and_dask_give_identical_numbers(tmp_path):
    distributed = pytest.importorskip("distributed")
    sources = cmp.generated_sources("related", 3, seed=5) + cmp.generated_sources("packing", 2, seed=1)
    serial = cmp.compare(sources, ["fifo"], ["highs"], workers=1, progress=False).table
    procs = cmp.compare(sources, ["fifo"], ["highs"], workers=2, progress=False).table
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        on_dask = cmp.compare(sources, ["fifo"], ["highs"], dask=client, progress=False).table
    cols = ["instance", "family", "n_jobs", "algorithm", "solver", "status", "objective"]
    pd.testing.assert_frame_equal(serial[cols], procs[cols])
    pd.testing.assert_frame_equal(serial[cols], on_dask[cols])
    assert (serial["status"] == "ok").all() and len(serial) == 5


def test_cli_compare_writes_table_summary_and_plots(tmp_path, capsys):
    out = tmp_path / "grid.csv"
    assert main(["compare", "--family", "related", "--generate", "3", "--algorithms", "fifo,test-serial",
                 "--out", str(out), "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "test-serial" in text and "wrote" in text
    for suffix in (".csv", "_summary.csv", "_ratios.png", "_times.png"):
        assert (tmp_path / f"grid{suffix}").exists()
    assert len(pd.read_csv(out)) == 6


@pytest.mark.parametrize("argv, fragment", [
    (["compare"], "nothing to compare"),
    (["compare", "--generate", "2"], "--generate needs --family"),
    (["compare", "--family", "related", "--generate", "2", "--algorithms", "nope"], "unknown algorithm 'nope'"),
    (["compare", "--family", "related", "--generate", "2", "--solvers", "hihgs"], "unknown solver 'hihgs'"),
    (["compare", "missing-folder"], "no such instance file or folder"),
    (["compare", "--family", "related", "--generate", "1", "--resume"], "--resume needs --out"),
    (["compare", "--family", "related", "--generate", "0"], "--generate must be >= 1, got 0"),
    (["compare", "a.json", "-p", "n_jobs=3"], "--param sets generator parameters: it needs --generate"),
    (["compare", "--family", "related", "--generate", "1", "-p", "nope=3"], "nope"),
    (["compare", "--family", "related", "--generate", "1", "--solvers", "highs,highs"], "a solver is named twice"),
])
def test_cli_compare_errors(argv, fragment, capsys):
    assert main(argv) == 2
    assert fragment in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------
# Issue 8's done-when on real algorithms: every algorithm of a family x {highs, cvxpy}
# ------------------------------------------------------------------------------------------------

SOLVERS = ["highs", "cvxpy"]


def _family_sizes(family: str) -> tuple[int, int]:
    """(algorithms that use a solver, algorithms that do not) registered for *family*."""
    specs = [s for s in algorithms.available(family) if s.name != cmp.OPT_ALGORITHM]
    with_solver = sum(s.uses_solver for s in specs)
    return with_solver, len(specs) - with_solver


def _check_grid(res, family: str, n_instances: int, stem) -> None:
    """The table has every cell, none failed, every MIP optimum proven, the ratios consistent with
    it; the summary has a row per (algorithm, solver) and the files are written."""
    with_solver, solverless = _family_sizes(family)
    table = res.table
    assert len(table) == n_instances * (solverless + len(SOLVERS) * with_solver)
    assert (table["status"] == "ok").all(), table.loc[table["status"] != "ok", "reason"].tolist()
    assert table["opt_status"].str.startswith("optimal").all()
    tol = 1e-6 * table["opt"].abs().clip(lower=1)
    # No algorithm beats the proven optimum, and no relaxation bound passes it.
    assert (table["objective"] >= table["opt"] - tol).all()
    bounded = table["lower_bound"].notna()
    assert (table.loc[bounded, "lower_bound"] <= table.loc[bounded, "opt"] + tol[bounded]).all()
    assert (table.loc[bounded, "within_guarantee"].dropna() == True).all()  # noqa: E712 - may be numpy bools
    assert set(zip(res.summary["algorithm"], res.summary["solver"])) == set(zip(table["algorithm"], table["solver"]))
    assert (res.summary["cells"] == n_instances).all()
    for suffix in (".csv", "_summary.csv", "_ratios.png", "_times.png"):
        path = stem.with_name(stem.name + suffix)
        assert path.stat().st_size > 0, path


@pytest.fixture(scope="module")
def tiny_grid(tmp_path_factory):
    """Two tiny related instances x every related algorithm x {highs, cvxpy}, in one process."""
    out = tmp_path_factory.mktemp("grid") / "grid.csv"
    sources = cmp.generated_sources("related", 2, seed=3, params=TINY_RELATED)
    return sources, out, cmp.compare(sources, None, SOLVERS, out=out, workers=1, progress=False)


def test_every_algorithm_and_two_solvers_give_table_summary_and_plots(tiny_grid, real_registry):
    _, out, res = tiny_grid
    _check_grid(res, "related", 2, out.with_suffix(""))
    written = pd.read_csv(out)
    pd.testing.assert_frame_equal(_numbers(written), _numbers(res.table))


def test_dask_gives_the_numbers_of_local_processes(tiny_grid, real_registry):
    distributed = pytest.importorskip("distributed")
    sources, _, res = tiny_grid
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        on_dask = cmp.compare(sources, None, SOLVERS, dask=client, progress=False).table
    pd.testing.assert_frame_equal(_numbers(res.table), _numbers(on_dask))


def test_an_interrupted_grid_resumes_without_recomputing(tmp_path, monkeypatch):
    # A Ctrl-C (KeyboardInterrupt) in the middle of the second instance: the first one's cells are
    # in the file; the resumed run runs only the others, and solves no MIP a second time.
    paths = [_tiny(tmp_path / f"{k}.json") for k in "abc"]
    sources = cmp.sources_from_paths(paths)
    names = ["test-serial", "fifo"]
    reference = cmp.compare(sources, names, ["highs"], workers=1, progress=False, plots=False).table

    calls = []

    @register("test-interrupt", "related", "a Ctrl-C on its second call ever", uses_solver=True)
    def _interrupt(instance, *, solver, seed, time_limit=None):
        CALLS.append("interrupt")
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return Result("test-interrupt", Schedule.from_pieces([(0, 0, 0, 0, 1, 1), (1, 0, 0, 1, 3, 1)]))

    out = tmp_path / "grid.csv"
    CALLS.clear()
    with pytest.raises(KeyboardInterrupt):
        cmp.compare(sources, names + ["test-interrupt"], ["highs"], out=out, workers=1, progress=False, plots=False)
    saved = pd.read_csv(out)
    assert set(saved["instance"]) == {str(paths[0])} and len(saved) == 3
    CALLS.clear()
    again = cmp.compare(sources, names + ["test-interrupt"], ["highs"], out=out, resume=True, workers=1,
                        progress=False, plots=False)
    # Two instances left, each: one MIP, one run of each solver-using algorithm.
    assert sorted(CALLS) == sorted(["opt", "serial", "interrupt"] * 2)
    table = again.table[again.table["algorithm"] != "test-interrupt"].reset_index(drop=True)
    pd.testing.assert_frame_equal(_numbers(reference), _numbers(table))
    first = again.table[again.table["instance"] == str(paths[0])].reset_index(drop=True)
    pd.testing.assert_series_equal(first["total_s"], saved.sort_values(list(cmp.KEY))["total_s"].reset_index(drop=True),
                                   check_dtype=False)  # kept from the first run, not re-timed


def test_resume_reuses_the_optimum_of_a_finished_instance(tmp_path):
    # A row removed from the table (say, to run a failed cell again) runs again on --resume; the
    # instance's MIP optimum, in the rows kept, is not solved a second time.
    out = tmp_path / "t.csv"
    src = cmp.sources_from_paths([_tiny(tmp_path / "a.json")])
    cmp.compare(src, ["test-serial", "fifo"], ["highs"], out=out, workers=1, progress=False, plots=False)
    table = pd.read_csv(out)
    table[table["algorithm"] != "fifo"].to_csv(out, index=False)
    CALLS.clear()
    res = cmp.compare(src, ["test-serial", "fifo"], ["highs"], out=out, resume=True, workers=1, progress=False,
                      plots=False)
    assert CALLS == []  # fifo ran (no solver, no CALLS entry); the MIP did not run again
    assert res.table.set_index("algorithm").loc["fifo", "opt"] == pytest.approx(4.0)


def test_generator_parameters_name_the_instances(tmp_path, capsys, real_registry):
    out = tmp_path / "g.csv"
    assert main(["compare", "--family", "related", "--generate", "2", "-p", "n_jobs=3", "-p", "tasks_per_job=[1,2]",
                 "-p", "machines=2", "--algorithms", "fifo", "--out", str(out), "--workers", "1"]) == 0
    table = pd.read_csv(out)
    from schedrelax.instances.generate import generate

    made = [generate("related", None, seed=k, **TINY_RELATED) for k in (0, 1)]
    assert list(table["n_tasks"]) == [m.n_tasks for m in made]
    assert list(table["instance"]) == ["related-machines=2-n_jobs=3-tasks_per_job=[1,2]-seed0",
                                       "related-machines=2-n_jobs=3-tasks_per_job=[1,2]-seed1"]


def test_size_limits_of_the_exact_mip_are_stated(tmp_path, real_registry):
    src = cmp.generated_sources("related", 1, params=TINY_RELATED)
    n_tasks = src[0].load().n_tasks
    res = cmp.compare(src, ["fifo"], ["highs"], workers=1, progress=False, opt_max_tasks=n_tasks - 1)
    assert res.table["opt_status"].iloc[0] == f"skipped: {n_tasks} tasks > {n_tasks - 1}"
    res = cmp.compare(src, ["fifo"], ["highs"], workers=1, progress=False, opt_max_jobs=2)
    assert res.table["opt_status"].iloc[0] == "skipped: 3 jobs > 2"


# ------------------------------------------------------------------------------------------------
# The same at the done-when's size (slow): 20 instances, two families, through the command line
# ------------------------------------------------------------------------------------------------

GRIDS = {"packing": [], "related": ["-p", "n_jobs=4", "-p", "tasks_per_job=[1,2]", "-p", "machines=3"]}
"""Families and generator parameters of the 20-instance grids: packing at its small size, related
at a size where the exact MIP proves its optimum in a second or two (at its small size it does
not within the time limit, and OPT would depend on the machine's speed)."""


def _cli(family: str, out, *extra: str) -> list[str]:
    return [sys.executable, "-m", "schedrelax", "compare", "--family", family, "--generate", "20",
            "--solvers", ",".join(SOLVERS), *GRIDS[family], "--out", str(out), *extra]


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(GRIDS))
def test_twenty_instance_grid_locally_on_dask_and_resumed(family, tmp_path, real_registry):
    distributed = pytest.importorskip("distributed")
    local = tmp_path / "local.csv"
    subprocess.run(_cli(family, local, "--workers", "2"), check=True, capture_output=True)
    table = pd.read_csv(local)

    class Result:  # what _check_grid reads
        pass

    res = Result()
    res.table, res.summary = table, pd.read_csv(tmp_path / "local_summary.csv")
    _check_grid(res, family, 20, local.with_suffix(""))

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        on_dask = tmp_path / "dask.csv"
        subprocess.run(_cli(family, on_dask, "--dask", cluster.scheduler_address), check=True, capture_output=True)
    pd.testing.assert_frame_equal(_numbers(table), _numbers(pd.read_csv(on_dask)))

    # Ctrl-C once the first instances are in the file, then --resume.
    resumed = tmp_path / "resumed.csv"
    proc = subprocess.Popen(_cli(family, resumed, "--workers", "2"), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    # The table (header only) is written at the start: wait for the first instance's rows.
    while proc.poll() is None and (not resumed.exists() or len(resumed.read_text().splitlines()) < 2):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    partial = pd.read_csv(resumed)
    if proc.returncode == 130:
        assert b"--resume" in err
        assert partial["instance"].nunique() < 20
    run = subprocess.run(_cli(family, resumed, "--workers", "2", "--resume"), check=True, capture_output=True)
    final = pd.read_csv(resumed)
    pd.testing.assert_frame_equal(_numbers(table), _numbers(final))
    kept = partial.merge(final, on=list(cmp.KEY), suffixes=("", "_final"))
    assert len(kept) == len(partial)
    assert (kept["total_s"].fillna(-1) == kept["total_s_final"].fillna(-1)).all()  # not run again
    assert b"20/20" not in run.stderr or partial.empty


def test_opt_of_an_instance_with_minima_is_the_optimum_without_them(real_registry):
    """FLEX's minima bind only schedules that promise them (paper 002's FIFO runs with minima 0),
    so OPT must be the minima-free optimum: with minima, the MIP's 4.646 was above FIFO's 4.534
    on this instance and ALG/OPT fell below 1."""
    params = {"n_jobs": 4, "processors": 6, "cost": "weighted_completion"}
    sources = cmp.generated_sources("malleable", 1, seed=1, setup="flex", params=params)
    inst = sources[0].load()
    assert (inst.min_procs > 0).any()
    res = cmp.compare(sources, ["fifo", "fair", "flex"], ["highs"], workers=1, progress=False, plots=False)
    table = res.table
    assert (table["status"] == "ok").all()
    assert table["opt_status"].str.startswith("optimal without minima").all()
    assert (table["alg_opt"] >= 1 - 1e-6).all()
    with_minima = algorithms.run("mip", inst).objective
    free = algorithms.run("mip", inst, params={"minima": False}).objective
    assert table["opt"].iloc[0] == pytest.approx(free)
    assert free <= with_minima + 1e-6


# ------------------------------------------------------------------------------------------------
# Issue 16: a resume refuses another grid's table; integer columns; the summary per family; progress
# ------------------------------------------------------------------------------------------------

def _grid(tmp_path, **changes):
    """compare()'s arguments for a small grid on two tiny related files, with *changes*."""
    files = [_tiny(tmp_path / "a.json"), _tiny(tmp_path / "b.json")]
    args = {"sources": cmp.sources_from_paths(files), "algorithms": ["test-serial", "fifo"], "solvers": ["highs"],
            "out": tmp_path / "t.csv", "workers": 1, "progress": False, "plots": False}
    args.update(changes)
    return args


@pytest.mark.parametrize("change, fragment", [
    ({"algorithms": ["test-serial"]}, 'algorithms: related: table ["fifo", "test-serial"], this run ["test-serial"]'),
    ({"solvers": ["highs", "cvxpy"]}, 'solvers: table ["highs"], this run ["highs", "cvxpy"]'),
    ({"seed": 3}, "seed: table 0, this run 3"),
    ({"time_limit": 5.0}, "time_limit: table null, this run 5.0"),
    ({"opt_time_limit": 7.0}, "opt_time_limit: table 30.0, this run 7.0"),
    ({"opt_max_jobs": 1}, "opt_max_jobs: table 8, this run 1"),
    ({"with_opt": False}, "opt: table true, this run false"),
])
def test_resume_refuses_a_table_of_another_grid(tmp_path, change, fragment):
    first = _grid(tmp_path)
    cmp.compare(**first)
    before = (tmp_path / "t.csv").read_text()
    CALLS.clear()
    with pytest.raises(ValueError) as err:
        cmp.compare(**_grid(tmp_path, resume=True, **change))
    message = str(err.value)
    assert fragment in message
    assert "another --out" in message and "drop --resume" in message
    assert CALLS == [] and (tmp_path / "t.csv").read_text() == before  # nothing ran, nothing written


def test_resume_refuses_other_instances_naming_those_only_on_one_side(tmp_path):
    out = tmp_path / "g.csv"
    cmp.compare(cmp.generated_sources("related", 5, params=TINY_RELATED), ["fifo"], ["highs"], out=out, workers=1,
                progress=False, plots=False, with_opt=False)
    more = cmp.generated_sources("related", 7, params=TINY_RELATED)
    with pytest.raises(ValueError, match=r"instances: table 5, this run 7 \(only in this run's: "
                                         r'"related-machines=2-n_jobs=3-tasks_per_job=\[1,2\]-seed5", '):
        cmp.compare(more, ["fifo"], ["highs"], out=out, resume=True, workers=1, progress=False, with_opt=False)
    other = cmp.generated_sources("related", 5, params={**TINY_RELATED, "n_jobs": 2})
    with pytest.raises(ValueError, match=r'generator: table \[\{"family": "related", "setup": null, "params": '
                                         r'\{"machines": 2, "n_jobs": 3'):
        cmp.compare(other, ["fifo"], ["highs"], out=out, resume=True, workers=1, progress=False, with_opt=False)


@pytest.mark.parametrize("damage, fragment", [
    ("delete", "no grid file t_grid.json beside it"),
    ("garbage", "cannot be read"),
    ("other json", "is not a compare grid file"),
])
def test_resume_refuses_a_table_without_a_readable_grid_file(tmp_path, damage, fragment):
    cmp.compare(**_grid(tmp_path))
    grid = cmp.grid_file(tmp_path / "t.csv")
    assert grid == tmp_path / "t_grid.json" and grid.exists()
    if damage == "delete":
        grid.unlink()  # a table written before compare recorded its grid
    else:
        grid.write_text("{not json" if damage == "garbage" else '{"families": ["related"]}')
    with pytest.raises(ValueError, match=fragment):
        cmp.compare(**_grid(tmp_path, resume=True))


def test_a_fresh_run_replaces_the_table_and_its_grid(tmp_path):
    cmp.compare(**_grid(tmp_path))
    cmp.compare(**_grid(tmp_path, algorithms=["fifo"]))  # no --resume: starts afresh
    assert set(pd.read_csv(tmp_path / "t.csv")["algorithm"]) == {"fifo"}
    CALLS.clear()
    cmp.compare(**_grid(tmp_path, algorithms=["fifo"], resume=True))  # the new grid resumes
    assert CALLS == []
    with pytest.raises(ValueError, match="algorithms: related"):
        cmp.compare(**_grid(tmp_path, resume=True))  # the old grid's no longer


def test_integer_columns_are_written_and_read_back_as_integers(tmp_path, real_registry):
    import csv

    out = tmp_path / "g.csv"
    sources = cmp.generated_sources("related", 1, seed=4, params=TINY_RELATED) \
        + cmp.generated_sources("malleable", 1, seed=2)
    res = cmp.compare(sources, ["fifo"], ["highs"], out=out, workers=1, progress=False, plots=False, seed=4,
                      with_opt=False)
    related, malleable = (s.load() for s in sources)
    with open(out) as fh:
        rows = {r["family"]: r for r in csv.DictReader(fh)}
    # Written as the instances' own counts, with no ".0"; empty where the family has no tasks.
    assert rows["related"]["n_jobs"] == str(related.n_jobs) and rows["related"]["n_tasks"] == str(related.n_tasks)
    assert rows["malleable"]["n_jobs"] == str(malleable.n_jobs) and rows["malleable"]["n_tasks"] == ""
    assert rows["related"]["seed"] == "4"
    read = cmp._read_table(out)
    for table in (read, res.table):
        assert all(str(table[c].dtype) == "Int64" for c in cmp.INTEGER)
    assert read.set_index("family").loc["related", "n_tasks"] == related.n_tasks
    assert pd.isna(read.set_index("family").loc["malleable", "n_tasks"])


def test_a_non_whole_number_in_an_integer_column_is_an_error(tmp_path):
    cmp.compare(**_grid(tmp_path))
    table = pd.read_csv(tmp_path / "t.csv", dtype={"n_jobs": object})
    table.loc[1, "n_jobs"] = "2.5"
    table.to_csv(tmp_path / "t.csv", index=False)
    with pytest.raises(ValueError, match=r"t.csv, line 3: column 'n_jobs' must hold whole numbers, got 2.5"):
        cmp.compare(**_grid(tmp_path, resume=True))


def test_the_summary_never_pools_two_families(tmp_path, real_registry):
    sources = cmp.generated_sources("packing", 2, seed=1) + cmp.generated_sources("related", 3, params=TINY_RELATED)
    res = cmp.compare(sources, ["fifo"], ["highs"], workers=1, progress=False, plots=False)
    table, summary = res.table, res.summary.set_index(["family", "algorithm", "solver"])
    assert list(summary.index) == [("packing", "fifo", "-"), ("related", "fifo", "-")]
    assert summary.loc[("packing", "fifo", "-"), "cells"] == 2 and summary.loc[("related", "fifo", "-"), "cells"] == 3
    for family in ("packing", "related"):
        # The mean of the family's own rows, computed from the table row by row.
        ratios = [r["objective"] / r["opt"] for _, r in table.iterrows() if r["family"] == family]
        assert summary.loc[(family, "fifo", "-"), "mean_alg_opt"] == pytest.approx(sum(ratios) / len(ratios))


def test_an_instance_that_fails_to_load_keeps_its_family_in_the_summary(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"family": "related", "schema_version": 1, "speeds": []}')
    res = cmp.compare(cmp.sources_from_paths([bad]), ["fifo"], ["highs"], workers=1, progress=False)
    assert res.table["status"].tolist() == ["failed"]
    assert res.summary["family"].tolist() == [cmp.UNKNOWN_FAMILY] and res.summary["failed"].tolist() == [1]


class _Terminal:
    """A stderr that says it is a terminal (tqdm draws into it)."""

    def __init__(self):
        import io

        self.buffer = io.StringIO()

    def isatty(self):
        return True

    def write(self, text):
        return self.buffer.write(text)

    def flush(self):
        pass


@pytest.mark.parametrize("progress, terminal, shown", [
    (None, False, False), (None, True, True), (False, True, False), (True, False, True),
])
def test_progress_bar_only_on_a_terminal_unless_asked(tmp_path, monkeypatch, progress, terminal, shown):
    stderr = _Terminal() if terminal else __import__("io").StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    cmp.compare(**_grid(tmp_path, out=None, progress=progress))
    text = stderr.buffer.getvalue() if terminal else stderr.getvalue()
    assert ("compare" in text and "2/2" in text) == shown, text
    assert shown or text == ""


def test_an_unproven_mip_still_gives_its_bound_as_a_lower_bound_on_opt(tmp_path, real_registry):
    # The related family's default small size (8 jobs, 16 tasks, 6 machines): HiGHS leaves a gap
    # of about 10 % after 20 s (measured), so 0.5 s proves nothing. Its proven bound still bounds
    # OPT from below, so it lies below every cell's objective (mip_lb); no OPT.
    from schedrelax.instances.generate import generate

    path = generate("related", None, seed=0).save(tmp_path / "r.json")
    grid = cmp.compare([cmp.InstanceSource("r", path=str(path))], ["fifo", "spc"], ["highs"], workers=1,
                       plots=False, opt_max_jobs=20,
                       opt_max_tasks=None, opt_time_limit=0.5)
    table = grid.table
    assert table["opt"].isna().all() and table["opt_status"].str.startswith("not proven optimal").all()
    assert (table["mip_lb"] <= table["objective"] * (1 + 1e-9)).all() and table["mip_lb"].gt(0).all()
    assert (table["alg_mip_lb"] >= 1 - 1e-9).all()
    rows = table.set_index("algorithm")
    assert rows.loc["fifo", "result"] == "heuristic" and pd.isna(rows.loc["fifo", "bound_kind"])
    assert rows.loc["spc", "bound_kind"].startswith("LP-Schedule optimum")
