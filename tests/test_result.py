"""Results as users of pandas and PyJobShop expect them: to_dict/to_frame, short reprs, one
status type, Gantt plots, the per-call solver log switch, show_versions."""

from __future__ import annotations

import json

import numpy as np

import schedrelax as sr
from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.schedules import Schedule


def _tiny() -> RelatedInstance:
    # One task of size 4 on one machine of speed 2: it ends at 2; weight 3 -> objective 6 by hand.
    return RelatedInstance(speeds=[2.0], jobs=(RelatedJob([4.0], weight=3.0),))


def _two_jobs() -> RelatedInstance:
    # Sizes 1 and 3 on one machine of speed 1, weights 1: shortest first, C = 1 and 4, OPT = 5.
    return RelatedInstance(speeds=[1.0], jobs=(RelatedJob([1.0], weight=1.0), RelatedJob([3.0], weight=1.0)))


def test_result_to_dict_and_to_frame():
    r = sr.run("fifo", _tiny())
    d = r.to_dict()
    assert d["algorithm"] == "fifo" and d["status"] == "heuristic" and d["objective"] == 6.0
    assert d["pieces"] == 1 and d["lower_bound"] is None and d["gap"] is None and "total" in d["timings"]
    assert all(round(v, 6) == v for v in r.timings.values())  # microseconds, not 17 digits
    json.dumps(d)  # JSON-ready
    frame = r.to_frame()
    assert list(frame.index) == ["fifo"] and frame.index.name == "algorithm"
    assert frame.loc["fifo", "objective"] == 6.0 and "time_total" in frame.columns and "params" not in frame.columns
    import pandas as pd

    both = pd.concat([r.to_frame(), sr.run("mip", _tiny()).to_frame()])
    assert list(both.index) == ["fifo", "mip"] and list(both["status"]) == ["heuristic", "optimal"]


def test_evaluation_to_dict_and_to_frame():
    r = sr.run("mip", _two_jobs())
    frame = r.evaluation.to_frame()
    assert frame.index.name == "job" and frame["completion"].tolist() == [1.0, 4.0]
    d = r.evaluation.to_dict()
    assert d["objective"] == 5.0 and d["completion"] == [1.0, 4.0] and "job_completion" not in d
    from schedrelax.instances.generate import example

    malleable = sr.run("fifo", example("malleable"))
    flows = malleable.evaluation.to_frame()
    assert flows.index.name == "flow" and len(flows) == example("malleable").n_flows
    assert len(malleable.evaluation.to_dict()["job_completion"]) == example("malleable").n_jobs


def test_reprs_are_short_and_show_no_array():
    from schedrelax.instances.generate import generate

    inst = generate("packing", seed=0, n_jobs=60)
    r = sr.run("fifo", inst)
    for obj in (inst, r, r.schedule, r.evaluation):
        text = repr(obj)
        assert "array(" not in text and len(text) < 400, text
    assert repr(_tiny()) == "RelatedInstance(jobs: 1, tasks: 1, machines: 1)"
    tiny = sr.run("fifo", _tiny())
    assert repr(tiny).startswith("Result('fifo', objective: 6, status: heuristic, pieces: 1, time: ")
    assert repr(tiny.schedule) == "Schedule(pieces: 1, jobs: 1, time span: 0 to 2, promises: none)"
    for obj in (inst, r, r.schedule):
        html = obj._repr_html_()
        assert html.startswith("<div><strong>") and "<table>" in html and "array" not in html
    named = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([1.0]),), name="<b>x</b>")
    assert "&lt;b&gt;x&lt;/b&gt;" in named._repr_html_()  # escaped


def test_one_status_type_for_solves_and_results():
    r = sr.run("mip", _two_jobs())
    assert r.status is sr.Status.OPTIMAL and r.status == "optimal" and f"{r.status}" == "optimal"
    assert sr.run("fifo", _two_jobs()).status is sr.Status.HEURISTIC
    import pyomo.environ as pyo

    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.obj = pyo.Objective(expr=m.x)
    solved = sr.solve(m)
    assert type(solved.status) is type(r.status) and solved.status == "optimal"
    from schedrelax.solvers import SolveStatus

    assert SolveStatus is sr.Status


def test_plots_draw_one_rectangle_per_elementary_piece():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = sr.run("mip", _two_jobs())
    ax = r.plot(_two_jobs())
    assert len(ax.collections[0].get_paths()) == 2  # two pieces, one machine
    assert ax.get_title().startswith("mip: objective 5 (optimal)")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["machine 0"]
    plt.close(ax.figure)
    # Without the instance: rows from the schedule's machine ids, each as tall as its busiest moment.
    sched = Schedule.from_pieces([(0, 0, 1, 0.0, 2.0, 1.0), (1, 0, 1, 1.0, 3.0, 1.0)])
    ax = sched.plot()
    assert [t.get_text() for t in ax.get_yticklabels()] == ["machine 0", "machine 1"]
    heights = sorted(round(p.get_extents().height, 6) for p in ax.collections[0].get_paths())
    assert len(heights) == 4  # [0,1] one piece, [1,2] two stacked, [2,3] one
    plt.close(ax.figure)


def test_tee_shows_the_solver_log_for_one_call_only(capfd):
    import os

    from schedrelax._log import SOLVER_LOG_ENV

    before = os.environ.get(SOLVER_LOG_ENV)
    sr.run("mip", _two_jobs(), tee=True)
    shown = capfd.readouterr()
    assert "HiGHS" in shown.out + shown.err
    assert os.environ.get(SOLVER_LOG_ENV) == before
    sr.run("mip", _two_jobs())
    quiet = capfd.readouterr()
    assert "HiGHS" not in quiet.out + quiet.err
    import pyomo.environ as pyo

    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.obj = pyo.Objective(expr=m.x)
    sr.solve(m, tee=True)
    assert "HiGHS" in "".join(capfd.readouterr())


def test_show_versions_names_python_schedrelax_and_the_dependencies(capsys):
    sr.show_versions()
    out = capsys.readouterr().out
    from importlib.metadata import version

    assert ["schedrelax", version("schedrelax")] in [line.split() for line in out.splitlines()]
    for name in ("python", "numpy", "pyomo", "highspy"):
        assert any(line.split()[0] == name for line in out.splitlines()), name
    assert "solvers found: highs (highspy " in out


def test_a_comparison_prints_every_summary_column():
    import pandas as pd

    from schedrelax.experiments.compare import CompareResult

    columns = ["family", "algorithm", "solver", "cells", "failed", "mean_alg_lb", "worst_alg_lb", "mean_alg_opt",
               "worst_alg_opt", "mean_opt_lb", "worst_opt_lb", "within_guarantee", "mean_total_s"]
    summary = pd.DataFrame([["packing", "fifo", "highs", 3, 0, 1.23456789, 1.5, np.nan, np.nan, 1.0, 1.0, 1.0,
                             0.0123456789]], columns=columns)
    text = str(CompareResult(pd.DataFrame({"x": [1, 2, 3]}), summary))
    header, row = text.splitlines()[:2]
    assert header.split() == columns
    assert "1.235" in row and "0.012" in row and "0.0123456789" not in row
    assert "3 cells" in repr(CompareResult(pd.DataFrame({"x": [1, 2, 3]}), summary))
