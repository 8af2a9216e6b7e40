"""Record what ``online:<algorithm>`` gives on small random instances, as the reference of
``tests/online/test_reference.py``.

Run once, with ``python tests/online/data/make_reference.py``, on the simulator as it was before
the incremental rewrite of issue 17 item 3 (commit 6b30e6c: the committed pieces re-concatenated
and every sub-instance rebuilt from scratch at each event); it writes ``online_reference.json.gz`` (gzipped: tests/test_schemas.py holds every .json under tests/ to be an instance or schedule file)
beside itself. Re-running it on the present code would only compare the code with itself.
Recorded with highspy 1.16.0 (``RECORDED_WITH_HIGHS`` in the test: the LP-based cases depend on
the solver's choice of optimal vertex).
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import numpy as np

from schedrelax import algorithms
from schedrelax.instances import MalleableInstance, PackingInstance, RelatedInstance
from schedrelax.instances.generate import generate

OUT = Path(__file__).with_name("online_reference.json.gz")

PACKING = ("fifo", "synchpack3", "psrs", "tetris", "synchpack2", "jsq-mw", "tetris-np", "synchpack1")
RELATED = ("fifo", "spc", "huwf", "tetris")
MALLEABLE = ("fifo", "fair", "flowflex", "flex")
REPLAN = ({}, {"replan_on": "events"}, {"epoch": 1.5}, {"replan_on": "events", "epoch": 0.7})


def packing(seed: int) -> PackingInstance:
    rng = np.random.default_rng(100 + seed)
    inst = generate("packing", "synchpack", seed=seed, machines=int(rng.integers(3, 7)),
                    n_jobs=int(rng.integers(8, 16)), tasks_per_job=(1, 4),
                    alpha=None if seed % 2 else 2.0, local_machines=1 + seed % 2, online=True)
    if seed % 3 == 2:
        # Reservations of the instance's own, under half of each machine so that all fit at 0.
        res = [(i, 0.2 * float(c), float(rng.uniform(0.5, 8.0))) for i, c in enumerate(inst.capacities.tolist())]
        inst = PackingInstance(capacities=inst.capacities, jobs=inst.jobs, reservations=res)
    return inst


def related(seed: int) -> RelatedInstance:
    rng = np.random.default_rng(200 + seed)
    inst = generate("related", "spc", seed=seed, n_jobs=int(rng.integers(5, 10)), tasks_per_job=(1, 4),
                    machines=int(rng.integers(2, 5)), online=True)
    if seed % 2:
        ready = rng.uniform(0.0, 20.0, inst.n_machines) * (rng.random(inst.n_machines) < 0.5)
        inst = RelatedInstance(speeds=inst.speeds, jobs=inst.jobs, edges=inst.edges, ready=ready)
    return inst


def malleable(seed: int) -> MalleableInstance:
    inst = generate("malleable", "flowflex", seed=seed, processors=10, n_flows=(3, 6), jobs_per_flow=(2, 4))
    rng = np.random.default_rng(300 + seed)
    release = np.cumsum(rng.exponential(2.0, inst.n_flows)) - 1.0
    flows = tuple(dataclasses.replace(fl, release=float(max(r, 0.0))) for fl, r in zip(inst.flows, release))
    return MalleableInstance(inst.processors, flows, inst.objective)


def cases():
    k = 0
    for seed in range(16):
        yield packing(seed), PACKING[seed % len(PACKING)], REPLAN[k % len(REPLAN)]
        k += 1
    for seed in range(6):
        # The two the benchmark times, on larger instances.
        inst = generate("packing", "synchpack", seed=50 + seed, machines=8, n_jobs=40, tasks_per_job=(1, 8),
                        alpha=None, local_machines=1, online=True)
        yield inst, ("fifo", "synchpack3")[seed % 2], REPLAN[seed // 2 % 2]
    for seed in range(10):
        yield related(seed), RELATED[seed % len(RELATED)], REPLAN[k % len(REPLAN)]
        k += 1
    for seed in range(8):
        yield malleable(seed), MALLEABLE[seed % len(MALLEABLE)], REPLAN[k % len(REPLAN)]
        k += 1


def record(inst, name: str, params: dict) -> dict:
    r = algorithms.run(f"online:{name}", inst, params={**params, "bound": False})
    s = r.schedule
    return {
        "instance": inst.to_dict(), "algorithm": name, "params": params,
        "objective": r.objective, "replans": r.info["replans"], "replan_times": r.info["replan_times"],
        "metrics": r.info["metrics"], "promises": sorted(s.promises),
        "pieces": {c: getattr(s, c).tolist() for c in ("job", "task", "machine", "start", "end", "rate")},
    }


def main() -> None:
    out = [record(inst, name, params) for inst, name, params in cases()]
    OUT.write_bytes(gzip.compress((json.dumps(out) + "\n").encode(), mtime=0))
    print(f"{len(out)} cases, {sum(len(c['pieces']['job']) for c in out)} pieces -> {OUT}")


if __name__ == "__main__":
    main()
