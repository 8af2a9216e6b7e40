"""Tests of the paper 001 reproduction: one quick run through the CLI (with a small SWIM file),
the tables it writes, and the helpers; the full-size run is marked slow."""

import csv
from pathlib import Path

import pytest

from schedrelax.cli import main
from schedrelax.experiments.asrpt import (
    POLICIES,
    SCENARIOS,
    RunRecord,
    asrpt_vs_dsrpt,
    efficiency_table,
    markdown_table,
    prefix,
    scenario_instance,
)
from schedrelax.experiments.reproduce import available, reproduce
from schedrelax.instances import MapReduceInstance, MapReduceJob
from schedrelax.instances.generate import WORKLOADS

MiB = 2**20


def _read(path: Path) -> list[dict]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("asrpt")
    swim = out / "mini.tsv"
    swim.write_text("".join(f"job{k}\t{30 * k}\t30\t{(k % 5 + 1) * 128 * MiB}\t{(k % 3) * 256 * MiB}\t{64 * MiB}\n"
                            for k in range(200)))
    assert main(["reproduce", "asrpt", "--quick", "--out", str(out), "--swim", str(swim)]) == 0
    return out


def test_registered():
    assert "swim" in available()["asrpt"].options


def test_quick_run_writes_everything(quick_run, capsys):
    out = quick_run
    for name in ["asrpt.md", "asrpt_runs.csv", "asrpt_efficiency.csv", "asrpt_efficiency.md", "asrpt_convergence.csv",
                 "asrpt_convergence.png", "asrpt_cdf_swim.png", *(f"asrpt_cdf_{w}.png" for w in WORKLOADS)]:
        assert (out / name).stat().st_size > 0, name
    runs = _read(out / "asrpt_runs.csv")
    # 4 workloads × 2 seeds + the SWIM file, × 3 scenarios × 5 policies.
    assert len(runs) == (4 * 2 + 1) * len(SCENARIOS) * len(POLICIES)
    # The SRPT bound of Lemma 1 is below every verified schedule: no ratio under 1.
    assert min(float(r["ratio"]) for r in runs) >= 1.0
    table = _read(out / "asrpt_efficiency.csv")
    assert len(table) == 5 * len(SCENARIOS) * len(POLICIES)
    report = (out / "asrpt.md").read_text()
    assert "ASRPT ≤ DSRPT in" in report and "Preemptive ASRPT / SRPT bound" in report
    assert report.count("\n| ") == 1 + 5 * len(SCENARIOS)  # header + a row per (workload, scenario)


def test_helpers():
    recs = [RunRecord("w", "preemptive", s, p, 3, flow, 10.0, flow / 10, 0.0)
            for s, (a, d) in enumerate([(12.0, 13.0), (15.0, 14.0)]) for p, flow in (("asrpt", a), ("dsrpt", d))]
    assert asrpt_vs_dsrpt(recs) == {"preemptive": (1, 2)}
    table = efficiency_table(recs)
    assert table[0] == {"workload": "w", "scenario": "preemptive", "policy": "asrpt", "runs": 2,
                        "mean_ratio": pytest.approx(1.35), "min_ratio": 1.2, "max_ratio": 1.5}
    assert "| w | preemptive | 1.350 | 1.350 | - | - | - |" in markdown_table(table)

    inst = MapReduceInstance(2, (MapReduceJob(0, 1, [3]), MapReduceJob(5, 2, [1, 2])))
    assert prefix(inst, 5).n_jobs == 1
    unit, pre = scenario_instance(inst, "preemptive")
    assert pre and unit.reduce_work.tolist() == [1] * 6
    assert scenario_instance(inst, "non-preemptive") == (inst, False)
    with pytest.raises(ValueError, match="unknown scenario"):
        scenario_instance(inst, "sometimes")


@pytest.mark.slow
def test_full_size(tmp_path):
    report = reproduce("asrpt", tmp_path)[0]
    runs = _read(tmp_path / "asrpt_runs.csv")
    assert len(runs) == 4 * 5 * len(SCENARIOS) * len(POLICIES)
    assert "T = 500 slots" in report.read_text()


def test_quick_run_writes_the_side_by_side_and_the_theory(quick_run):
    from schedrelax.experiments.reproduce import read_side_by_side

    out = quick_run
    rows = read_side_by_side(out / "asrpt_side_by_side.csv")
    assert all(r.cause.strip() for r in rows if r.flagged)
    three = [r for r in rows if r.quantity.startswith("ASRPT / SRPT bound")]
    assert len(three) == len(WORKLOADS) and all(r.paper_high == 3.0 for r in three)
    assert all(r.calibrated >= 1.0 and r.default >= 1.0 for r in three)  # the SRPT bound is a lower bound
    figure_only = [r for r in rows if r.item.startswith("001 Figs 5-8")]
    assert len(figure_only) == len(WORKLOADS) * len(POLICIES) and all(r.paper_low is None for r in figure_only)
    # §IV: the measured flows are the closed forms 2(Q+1)^2 (work-conserving) and 6Q+3 (S_2).
    for r in _read(out / "asrpt_section_iv.csv"):
        Q = int(r["Q"])
        assert float(r["asrpt_flow"]) == 2 * (Q + 1) ** 2 and float(r["s2_flow"]) == 6 * Q + 3
    assert "Theorem 2" in (out / "asrpt_theory.md").read_text()
