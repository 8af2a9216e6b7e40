"""The comparison runner: ratios by hand, failed cells, resume, local processes and Dask."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from schedrelax import algorithms
from schedrelax.algorithms import Result, register
from schedrelax.cli import main
from schedrelax.experiments import compare as cmp
from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.schedules import Schedule

CALLS: list[str] = []


@pytest.fixture(autouse=True)
def _registry(monkeypatch):
    """Test algorithms on the related family; the exact one under a private name."""
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
    assert math.isnan(row["opt"]) and row["opt_status"] == "not proven optimal"


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
])
def test_cli_compare_errors(argv, fragment, capsys):
    assert main(argv) == 2
    assert fragment in capsys.readouterr().err
