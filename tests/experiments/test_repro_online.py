"""The online experiments declared: the queue and load every run records, and one quick run."""

from __future__ import annotations

import pytest

from schedrelax.experiments import engine as E
from schedrelax.experiments.reproductions import online


@pytest.mark.parametrize("panel", ["sp-a", "spc", "ff"])
def test_every_run_records_its_queue_and_load(panel):
    params = {"sp_machines": 2, "sp_jobs": 5, "sp_tasks": (1, 2), "spc_jobs": 4, "spc_tasks": (1, 3),
              "machines": 3, "ff_processors": 8, "ff_flows": 3, "ff_jobs_per_flow": (2, 3)}
    records = online.cell(1000, panel=panel, **params)
    assert len({r["algorithm"] for r in records}) == len(records) >= 3
    for r in records:
        assert r["mean_jobs_in_system"] > 0 and r["offered_load"] > 0
        # the weighted average delay is the weighted flow time over the total weight, never negative
        assert r["average_delay"] >= 0


def test_quick_run(tmp_path):
    out = E.run(online.EXPERIMENT, tmp_path, quick=True, progress=False)
    assert out.failed_cells == 0 and all(r.verdict in E.VERDICTS for r in out.results)
    text = out.report.read_text()
    assert "mean jobs in system" in text and "offered load" in text
    claims = [r for r in out.results if r.row.claim]
    assert {r.row.item for r in claims} >= {"S-PC Fig. 6(a)", "FlowFlex Fig. 6"}
    # SynchPack Fig. 5: over the weight types; --quick runs equal weights only, and says so
    assert {h.id for h in out.headlines} >= {"sp-a-psrs", "sp-b-jsq-mw", "sp-b-tetris"}
    assert "sp-a-random-psrs, sp-a-priority-psrs not in this run" in {h.id: h for h in out.headlines}["sp-a-psrs"].evidence
