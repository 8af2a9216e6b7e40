"""``schedrelax solve trace.json --algorithm online:X [--epoch E] [--replan-on events]``."""

from __future__ import annotations

import json

from schedrelax.cli import main
from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from schedrelax.schedules import Schedule, verify


def trace(tmp_path):
    inst = PackingInstance(capacities=[1.0], jobs=(PackingJob(tasks=(PackingTask(1.0, [0], 2.0),)),
                                                   PackingJob(tasks=(PackingTask(1.0, [0], 0.5),), release=1.0)))
    return inst, inst.save(tmp_path / "trace.json")


def test_solve_online_with_epoch(tmp_path, capsys):
    inst, path = trace(tmp_path)
    out = tmp_path / "s.json"
    assert main(["solve", str(path), "--algorithm", "online:fifo", "--epoch", "10", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    # With epoch 10, A is planned at 0 ([0, 2]) and B, arriving at 1, at the boundary 10: [10, 10.5].
    assert "online:fifo on packing instance (2 jobs): total weighted completion time Σ_j w_j C_j = 12.5;" in text
    assert "online: 2 re-plans" in text
    schedule = Schedule.load(out)
    verify(inst, schedule)
    assert json.loads(out.read_text())["meta"]["algorithm"] == "online:fifo"


def test_solve_online_replan_on_events(tmp_path, capsys):
    _, path = trace(tmp_path)
    assert main(["solve", str(path), "-a", "online:psrs", "--replan-on", "events"]) == 0
    assert "Σ_j w_j C_j = 4;" in capsys.readouterr().out  # B [1, 1.5], A resumes [1.5, 2.5]: 1.5 + 2.5


def test_epoch_needs_an_online_algorithm(tmp_path, capsys):
    _, path = trace(tmp_path)
    assert main(["solve", str(path), "-a", "fifo", "--epoch", "10"]) != 0
    assert "--epoch applies to online algorithms only: use --algorithm online:fifo" in capsys.readouterr().err
