"""The online experiments declared: offered load by hand, the gains recomputed from the runs'
metrics, the queue every run records, and one quick run."""

from __future__ import annotations

import numpy as np
import pytest

from schedrelax.experiments import engine as E
from schedrelax.experiments.reproductions import online
from schedrelax.instances import MalleableInstance, PackingInstance, RelatedInstance
from schedrelax.instances.malleable import Flow
from schedrelax.instances.packing import PackingJob, PackingTask
from schedrelax.instances.related import RelatedJob
from schedrelax.instances import costs


def test_offered_load_by_hand():
    # related: work 6 + 2 = 8 MB over speeds 1 + 3 = 4 MB/s and an arrival span of 4 s: load 0.5
    rel = RelatedInstance(speeds=[1.0, 3.0], jobs=(RelatedJob(tasks=[2.0, 4.0], release=0.0),
                                                   RelatedJob(tasks=[2.0], release=4.0)))
    assert online.offered_load(rel) == pytest.approx(8.0 / (4.0 * 4.0))
    # packing: demand 0.5 × fastest time 2 (machine 1) + 1.0 × 3 = 4 over capacity 2 and span 2: load 1
    pack = PackingInstance(capacities=[1.0, 1.0], jobs=(
        PackingJob(tasks=(PackingTask(demand=0.5, placement=[0, 1], processing_time=[4.0, 2.0]),), release=0.0),
        PackingJob(tasks=(PackingTask(demand=1.0, placement=[0], processing_time=[3.0]),), release=2.0)))
    assert online.offered_load(pack) == pytest.approx(4.0 / (2.0 * 2.0))
    # malleable: flows of work 10 and 30 on P = 4 over a span of 5: load 2; all at once: NaN
    flows = (Flow(sizes=[10.0], max_processors=[4], release=0.0, cost=costs.completion()),
             Flow(sizes=[30.0], max_processors=[4], release=5.0, cost=costs.completion()))
    assert online.offered_load(MalleableInstance(4, flows, "minisum")) == pytest.approx(40.0 / (4 * 5.0))
    at_once = tuple(f.__class__(sizes=f.sizes, max_processors=f.max_processors, cost=f.cost) for f in flows)
    assert np.isnan(online.offered_load(MalleableInstance(4, at_once, "minisum")))


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
    assert {r.row.item for r in claims} >= {"SynchPack Fig. 5(a)", "S-PC Fig. 6(a)", "FlowFlex Fig. 6"}
