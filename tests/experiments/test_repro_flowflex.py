"""FlowFlex §4.1-4.2 declared: the cell's ratios against true lower bounds, the paper's numbers
against the paper's text, the deadline-slack knob, the fit's seeds apart, and one quick run."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from schedrelax.experiments import engine as E
from schedrelax.experiments.reproductions import flowflex as ff
from schedrelax.instances.generate import flowflex as generate

PAPER = Path(__file__).resolve().parents[3] / "shared" / "papers" / "000_5822dddcf782b397.txt"
SMALL = {"processors": 8, "n_flows": (3, 3), "jobs_per_flow": (2, 4), "max_procs_low": 0.5, "size_decades": 0.5,
         "integer_weights": True, "deadline_slack": 1.0, "fair": "fair-paper"}


@pytest.mark.parametrize("cost,objective", [("completion", "minisum"), ("tardiness", "minisum"),
                                            ("weighted_completion", "minimax")])
def test_table_cell_ratios_are_against_a_true_lower_bound(cost, objective):
    records = ff.cell(1003, kind="table", row=0, cost=cost, objective=objective, **SMALL)
    roles = {r["algorithm"] for r in records}
    assert {"FlowFlex", "Fair", "FIFO"} <= roles
    bound = records[0]["lower_bound"]
    for r in records:
        assert r["lower_bound"] == bound  # one bound per instance, the best of those computed
        assert r["cost"] >= bound - 1e-9 * max(1.0, abs(bound))  # a verified schedule never beats a lower bound
        if bound > 0:
            assert r["ratio"] == pytest.approx(r["cost"] / bound)
    cheapest = min(r["cost"] for r in records)
    assert min(r["to_cheapest"] for r in records) == pytest.approx(1.0) or cheapest == 0


def test_cluster_cell_scores_each_variant_over_the_column_best():
    records = ff.cell(5, kind="cluster", processors=100, n_flows=(5, 20), jobs_per_flow=(2, 20), max_procs_low=0.5,
                      size_decades=0.5, integer_weights=True, deadline_slack=1.0, fair="fair", cluster_processors=12,
                      cluster_flows=3, cluster_jobs_per_flow=(2, 3))
    assert [r["algorithm"] for r in records] == [label for label, _, _ in ff.CLUSTER_ROWS]
    for m in ff.CLUSTER_METRICS:
        column = np.array([r[m] for r in records])
        rel = np.array([r[f"rel_{m}"] for r in records])
        assert rel == pytest.approx(column / column.min()) and rel.min() == pytest.approx(1.0)


def test_deadline_slack_scales_only_the_deadlines():
    a = generate(11, cost="tardy", deadline_slack=1.0)
    b = generate(11, cost="tardy", deadline_slack=0.25)
    for fa, fb in zip(a.flows, b.flows):
        assert np.array_equal(fa.sizes, fb.sizes)
        lower = fa.cost.deadline / 2.0  # deadline = L (1 + U), U <= 1: L >= deadline / 2
        assert fb.cost.deadline <= fa.cost.deadline + 1e-12 and fb.cost.deadline >= lower - 1e-12


def test_fit_seeds_draw_the_development_instances_and_evaluation_seeds_others():
    fit = {ff._instance_seed(s, r) for s in ff.EXPERIMENT.fit.seeds for r in range(17)}
    evaluation = {ff._instance_seed(s, r) for s in range(1000, 1050) for r in range(17)}
    assert ff._instance_seed(3, 2) == 203  # row 2, the 4th instance of the earlier run
    assert not fit & evaluation


@pytest.mark.skipif(not PAPER.exists(), reason="the papers' texts are beside the source checkout only")
def test_paper_numbers_are_the_papers():
    text = PAPER.read_text()
    for label, cells in ff.PAPER_TABLE1.items():
        line = next(x for x in text.splitlines() if x.startswith(label + "\t"))
        numbers = [float(v) for v in re.findall(r"\d+\.\d+", line)]
        assert numbers == [v for pair in cells for v in pair], label


def test_quick_run_gives_every_row_a_verdict_and_an_interval(tmp_path):
    out = E.run(ff.EXPERIMENT, tmp_path, quick=True, progress=False)
    assert out.failed_cells == 0
    assert out.results and all(r.verdict in E.VERDICTS for r in out.results)
    assert all(r.estimate.n >= 1 for r in out.results)
    assert sum(out.counts.values()) == len(out.results)
    assert (tmp_path / "flowflex_table1.png").exists()
