"""The reproduction of paper 000 §4.1 (Tables 1 and 2): quick run, report layout, sane ratios."""

import csv

import pytest

from schedrelax.experiments.flowflex import PAPER_TABLE1, PAPER_TABLE2, TABLE1, TABLE2, Row, run_table
from schedrelax.experiments.reproduce import available, reproduce


def test_registered():
    assert "flowflex" in available()


def test_quick_reproduction_writes_both_tables_with_the_papers_numbers(tmp_path, capsys):
    (report,) = reproduce("flowflex", tmp_path, quick=True)
    text = report.read_text()
    assert "Table 1: Minisum" in text and "Table 2: Minimax" in text
    for row in TABLE1 + TABLE2:
        assert f"| {row.label} |" in text
    # The paper's own cells sit beside ours: Table 1's FlowFlex on completion time, Table 2's
    # FIFO on stretch.
    assert "1.23/1.46" in text and "15.67/55.00" in text
    printed = capsys.readouterr().out
    assert "Table 1" in printed and "Table 2" in printed
    with open(tmp_path / "flowflex_runs.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 3 * (len(TABLE1) + len(TABLE2))
    # Every ratio is against a lower bound: none may be below 1.
    ratios = [float(v) for r in rows for k, v in r.items() if k.endswith("_ratio") and v]
    assert ratios and min(ratios) >= 1 - 1e-6


def test_paper_tables_cover_every_row():
    assert set(PAPER_TABLE1) == {r.label for r in TABLE1}
    assert set(PAPER_TABLE2) == {r.label for r in TABLE2}


def test_run_table_summary():
    summary = run_table((Row("Completion Time", "completion", "minisum"),), n_instances=2, n_flows=3,
                        jobs_per_flow=(2, 3), processors=10)
    cell = summary["Completion Time"]
    assert cell["instances"] == 2 and cell["left_out"] == 0
    for name in ("flowflex-knapsack", "fair", "fifo", "flowflex"):
        avg, worst = cell[name]
        assert 1 - 1e-9 <= avg <= worst


def _row(**fields):
    base = {"instances": 3, "left_out": 0, "all_zero": 0, "near_zero": [], "best_left_out": 0}
    nan = (float("nan"), float("nan"))
    names = ("flowflex-knapsack", "fair", "fifo", "flowflex")
    return {**base, **{n: nan for n in names}, "best": {n: nan for n in names}, **fields}


def test_a_row_without_any_ratio_reads_as_a_dash_with_its_reason_never_nan():
    from schedrelax.experiments.flowflex import _markdown, _markdown_best

    row = Row("Number of Tardy Jobs", "tardy", "minisum")
    summary = {row.label: _row(left_out=3, best_left_out=3)}
    text = _markdown("T", (row,), summary, PAPER_TABLE1) + _markdown_best("B", (row,), summary)
    assert "nan" not in text.lower()
    assert text.count("— (bound 0)") == 4 and text.count("— (cheapest costs 0)") == 4
    assert "| 3 of 3 | lower bound 0 on all 3 instances with a positive cost: no ratio |" in text


def test_row_note_names_each_cause_from_the_bounds():
    from schedrelax.experiments.flowflex import row_note

    assert row_note(_row(left_out=1, near_zero=[(402, 0.123, 20.5), (400, 1.0, 13.0)], all_zero=1)) == (
        "lower bound 0 on 1 of 3 (left out); bound and every cost 0 on 1 of 3 (ratio 1); lower bound near 0 on 2 "
        "of 3 (seed 402: 0.123 against a cheapest cost of 20.5): ratios inflated")
    assert row_note(_row()) == "-"


def test_near_zero_bounds_are_found_by_run_table():
    # The quick Table 1's weighted number of tardy jobs (seeds 400-402): the bounds are 6.79, 0 and
    # 0.123 against cheapest costs 13.57, 7.14 and 20.50 (read from flowflex_runs.csv of a quick run
    # made before this check existed): one instance left out, one with a bound near 0.
    from schedrelax.experiments.flowflex import QUICK_SIZES

    summary = run_table(TABLE1, **QUICK_SIZES)
    cell = summary["Weighted Number of Tardy"]
    assert cell["left_out"] == 1 and cell["all_zero"] == 0
    [(seed, bound, cheapest)] = cell["near_zero"]
    assert seed == 402 and bound == pytest.approx(0.12326, rel=1e-3) and cheapest == pytest.approx(20.498, rel=1e-3)
    assert summary["Number of Tardy Jobs"]["left_out"] == 3  # bound 0 on all three: no ratio
