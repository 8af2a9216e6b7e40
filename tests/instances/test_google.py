"""The Google 2011 task_events loader: hand-made files, and the real part when present."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from schedrelax.errors import InstanceError
from schedrelax.instances.google import LOST_RUNS, RERUN, load_google_tasks

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "google2011"

# timestamp(µs), missing, job, task, machine, event, user, class, priority, cpu, memory, disk, diff
ROWS = [
    (0, 1, 0, "", 0, 0, 0.1, 0.2),            # job 1 task 0 SUBMIT
    (1_000_000, 1, 0, 10, 1, 0, 0.1, 0.2),    # ... SCHEDULE on machine 10
    (6_000_000, 1, 0, 10, 4, 0, 0.1, 0.2),    # ... FINISH: 5 s
    (2_000_000, 1, 1, 11, 1, 0, 0.1, 0.1),    # job 1 task 1 SCHEDULE on 11
    (4_500_000, 1, 1, 11, 4, 0, 0.1, 0.1),    # ... FINISH: 2.5 s -> 3 units
    (3_000_000, 2, 0, "", 0, 9, 0.1, 0.3),    # job 2 task 0 SUBMIT, priority 9
    (3_000_000, 2, 0, 10, 1, 9, 0.1, 0.3),    # SCHEDULE on 10
    (5_000_000, 2, 0, 10, 2, 9, 0.1, 0.3),    # EVICT
    (6_000_000, 2, 0, 11, 1, 9, 0.1, 0.3),    # SCHEDULE again, on 11
    (8_000_000, 2, 0, 11, 4, 9, 0.1, 0.3),    # FINISH: 2 s after the last SCHEDULE
    (3_000_000, 2, 1, 10, 1, 9, 0.1, 0.3),    # job 2 task 1: scheduled, never finishes
    (1_000_000, 3, 0, 12, 4, 0, 0.1, 0.2),    # job 3: FINISH without SCHEDULE in this part
    (1_000_000, 4, 0, 12, 1, 0, 0.1, 0.0),    # job 4: zero memory request
    (2_000_000, 4, 0, 12, 4, 0, 0.1, 0.0),
]


def write(path: Path, rows=ROWS, gz: bool = False) -> Path:
    lines = [f"{t},,{j},{k},{m},{e},user,0,{pr},{cpu},{mem},0.0,0" for t, j, k, m, e, pr, cpu, mem in rows]
    text = "\n".join(lines) + "\n"
    if gz:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def test_trace_placement_by_hand(tmp_path):
    tr = load_google_tasks(write(tmp_path / "t.csv"))
    inst, rep = tr.instance, tr.report
    assert tr.job_ids == (1, 2) and tr.machine_ids == (10, 11)
    assert inst.n_jobs == 2 and inst.n_tasks == 3
    assert inst.capacities.tolist() == [1.0, 1.0]
    assert inst.demand.tolist() == [0.2, 0.1, 0.3]
    assert inst.place_machine.tolist() == [0, 1, 1]          # each task on the machine that ran it
    assert inst.place_time.tolist() == [5.0, 3.0, 2.0]       # 5 s, ceil(2.5 s), last SCHEDULE -> FINISH
    assert inst.release.tolist() == [0.0, 0.0] and inst.weights.tolist() == [1.0, 1.0]
    assert rep.tasks_skipped == {"no FINISH in the file": 1, "no SCHEDULE before FINISH in the file": 1,
                                 "zero or missing memory request": 1}
    assert rep.jobs_skipped == 2 and rep.tasks_loaded == 3 and rep.events == len(ROWS)
    assert "3 tasks on 2 machines" in str(rep)


def test_online_priority_weights_and_gzip(tmp_path):
    tr = load_google_tasks(write(tmp_path / "t.csv.gz", gz=True), online=True, weights="priority", time_unit=0.5)
    assert tr.instance.release.tolist() == [0.0, 6.0]        # job 2 submitted 3 s later = 6 units of 0.5 s
    assert tr.instance.weights.tolist() == [1.0, 10.0]       # priority + 1
    assert tr.instance.place_time.tolist() == [10.0, 5.0, 4.0]


def test_local_placement_with_remote_penalty_and_machine_capacities(tmp_path):
    machines = tmp_path / "m.csv"
    machines.write_text("0,10,0,p,0.5,0.5\n0,11,0,p,0.5,1.0\n")
    tr = load_google_tasks(write(tmp_path / "t.csv"), machine_events=machines, placement="local",
                           local_machines=1, alpha=3.0)
    inst = tr.instance
    assert inst.capacities.tolist() == [0.5, 1.0]
    # task 0 ran on machine 0 (5 units): local there, remote on machine 1 at 3 x 5
    lo, hi = inst.place_offset[0], inst.place_offset[1]
    assert inst.place_machine[lo:hi].tolist() == [0, 1] and inst.place_time[lo:hi].tolist() == [5.0, 15.0]


def test_any_placement_and_max_jobs(tmp_path):
    tr = load_google_tasks(write(tmp_path / "t.csv"), placement="any", max_jobs=1)
    assert tr.job_ids == (1,) and tr.report.jobs_beyond_max == 1
    # job 1 ran its two tasks on machines 10 and 11: both tasks may use both, nothing else exists
    assert tr.machine_ids == (10, 11) and np.diff(tr.instance.place_offset).tolist() == [2, 2]


def test_any_and_local_placements_are_written_as_elsewhere_rules(tmp_path):
    # "any": no explicit machine, the trace time everywhere (5 and 3 units, see ROWS).
    inst = load_google_tasks(write(tmp_path / "t.csv"), placement="any", max_jobs=1).instance
    assert len(inst.explicit_machine) == 0 and inst.elsewhere_time.tolist() == [5.0, 3.0]
    # "local" with one local machine: the own machine explicit, alpha × the time elsewhere.
    inst = load_google_tasks(write(tmp_path / "t.csv"), placement="local", local_machines=1, alpha=3.0,
                             max_jobs=1).instance
    assert inst.explicit_machine.tolist() == [0, 1] and inst.explicit_time.tolist() == [5.0, 3.0]
    assert inst.elsewhere_time.tolist() == [15.0, 9.0] and inst.elsewhere_count.tolist() == [1, 1]


@pytest.mark.parametrize("text, fragment", [
    ("x,,1,0,10,1,u,0,0,0.1,0.2,0,0\n", "line 1: column timestamp must be a number"),
    ("", "holds no events"),
])
def test_malformed_files_name_the_line(tmp_path, text, fragment):
    p = tmp_path / "bad.csv"
    p.write_text(text)
    with pytest.raises(InstanceError, match=fragment):
        load_google_tasks(p)


def test_bad_options_and_missing_file(tmp_path):
    with pytest.raises(InstanceError, match="no such trace file"):
        load_google_tasks(tmp_path / "missing.csv")
    with pytest.raises(ValueError, match="placement"):
        load_google_tasks(write(tmp_path / "t.csv"), placement="everywhere")
    with pytest.raises(ValueError, match="alpha"):
        load_google_tasks(write(tmp_path / "t.csv"), placement="local", alpha=0.5)


@pytest.mark.skipif(not (REAL / "task_events-part-00001-of-00500.csv.gz").exists(),
                    reason=f"the shared Google 2011 data is absent ({REAL})")
def test_real_part_converts_and_accounts_for_every_task():
    import pandas as pd

    path = REAL / "task_events-part-00001-of-00500.csv.gz"
    tr = load_google_tasks(path)
    rep = tr.report
    raw = pd.read_csv(path, header=None, usecols=[2, 3])
    distinct = len(raw.drop_duplicates())
    assert rep.tasks_loaded + sum(rep.tasks_skipped.values()) == distinct  # every task kept or counted
    assert rep.tasks_loaded > 100 and tr.instance.n_tasks == rep.tasks_loaded
    assert (tr.instance.demand > 0).all() and (tr.instance.demand <= 1.0).all()
    assert (tr.instance.place_time >= 1).all()


@pytest.mark.skipif(not (REAL / "task_events-part-00001-of-00500.csv.gz").exists(),
                    reason=f"the shared Google 2011 data is absent ({REAL})")
def test_real_part_reruns_counted_as_pandas_counts_them():
    import pandas as pd

    path = REAL / "task_events-part-00001-of-00500.csv.gz"
    raw = pd.read_csv(path, header=None, usecols=[0, 2, 3, 5], names=["time", "job", "task", "event"])
    # Second method: per task, the first FINISH time, then any SCHEDULE later than it.
    first_finish = raw[raw.event == 4].groupby(["job", "task"]).time.min().rename("finish")
    sched = raw[raw.event == 1].join(first_finish, on=["job", "task"], how="inner")
    reruns = sched[sched.time > sched.finish][["job", "task"]].drop_duplicates()
    assert len(reruns) > 0
    assert load_google_tasks(path).report.tasks_by_rule[RERUN] == len(reruns)


# ---- which run is the task's (issue 13, item 6) -------------------------------------------------
# Rows as in ROWS: timestamp (µs), job, task, machine, event, priority, cpu, memory.


def test_task_scheduled_again_after_finish_keeps_its_first_run(tmp_path):
    rows = [
        (1_000_000, 7, 0, 10, 1, 0, 0.1, 0.2),     # SCHEDULE on machine 10
        (162_000_000, 7, 0, 10, 4, 0, 0.1, 0.2),   # FINISH: the first run lasted 161 s
        (180_000_000, 7, 0, "", 0, 0, 0.1, 0.5),   # resubmitted, with a larger request
        (200_000_000, 7, 0, 11, 1, 0, 0.1, 0.5),   # SCHEDULE again, on machine 11
        (210_000_000, 7, 0, 11, 4, 0, 0.1, 0.5),   # FINISH of the second run (10 s)
    ]
    tr = load_google_tasks(write(tmp_path / "t.csv", rows))
    # First run: 162 - 1 = 161 s on machine 10 with the request it ran with (0.2); the old loader
    # paired the first FINISH with the later SCHEDULE (-39 s), set it to 1 and put it on machine 11.
    assert tr.instance.place_time.tolist() == [161.0]
    assert tr.machine_ids == (10,) and tr.instance.demand.tolist() == [0.2]
    assert tr.report.tasks_by_rule == {RERUN: 1}
    assert RERUN in str(tr.report)


def test_finish_without_schedule_then_a_second_run_is_left_out(tmp_path):
    rows = [
        (1_000_000, 7, 0, 10, 4, 0, 0.1, 0.2),     # FINISH of a run SCHEDULEd in an earlier part
        (5_000_000, 7, 0, 10, 1, 0, 0.1, 0.2),     # the task runs again: not its first run
        (9_000_000, 7, 0, 10, 4, 0, 0.1, 0.2),
        (1_000_000, 8, 0, 12, 1, 0, 0.1, 0.2),     # job 8: an ordinary 2 s task, so the file converts
        (3_000_000, 8, 0, 12, 4, 0, 0.1, 0.2),
    ]
    tr = load_google_tasks(write(tmp_path / "t.csv", rows))
    assert tr.job_ids == (8,) and tr.instance.place_time.tolist() == [2.0]
    assert tr.report.tasks_skipped == {"no SCHEDULE before FINISH in the file": 1}
    assert tr.report.tasks_by_rule == {RERUN: 1}


def test_lost_runs_before_the_finished_one_are_counted(tmp_path):
    tr = load_google_tasks(write(tmp_path / "t.csv"))
    # ROWS: job 2 task 0 was EVICTed once, then rescheduled and finished (2 s, kept).
    assert tr.report.tasks_by_rule == {LOST_RUNS: 1}


@pytest.mark.parametrize("rows, reason", [
    ([(4_000_000, 7, 0, 10, 1, 0, 0.1, 0.2), (4_000_000, 7, 0, 10, 4, 0, 0.1, 0.2)],
     "zero-length run (SCHEDULE and FINISH at the same time)"),
    ([(0, 7, 0, 10, 1, 0, 0.1, 0.2), (4_000_000, 7, 0, 10, 4, 0, 0.1, 0.2)],
     "run starts before or ends after the trace window (timestamp 0 or 2^63 - 1)"),
    ([(4_000_000, 7, 0, 10, 1, 0, 0.1, 0.2), (2**63 - 1, 7, 0, 10, 4, 0, 0.1, 0.2)],
     "run starts before or ends after the trace window (timestamp 0 or 2^63 - 1)"),
])
def test_runs_of_unknown_or_zero_length_are_left_out_and_counted(tmp_path, rows, reason):
    # Before: the zero-length run became 1 unit and the windowed ones got a made-up length (4 s
    # from timestamp 0, ~9.2e12 s to 2^63 - 1).
    ok = [(1_000_000, 8, 0, 12, 1, 0, 0.1, 0.2), (3_000_000, 8, 0, 12, 4, 0, 0.1, 0.2)]
    tr = load_google_tasks(write(tmp_path / "t.csv", rows + ok))
    assert tr.job_ids == (8,)
    assert tr.report.tasks_skipped == {reason: 1}


def test_priority_weights_need_a_priority(tmp_path):
    rows = [(1_000_000, 7, 0, 10, 1, "", 0.1, 0.2), (3_000_000, 7, 0, 10, 4, "", 0.1, 0.2)]
    path = write(tmp_path / "t.csv", rows)
    assert load_google_tasks(path).instance.weights.tolist() == [1.0]
    with pytest.raises(InstanceError, match="job 7, task 0: weights='priority' needs a priority"):
        load_google_tasks(path, weights="priority")


@pytest.mark.parametrize("option", [{"local_machines": True}, {"time_unit": True}, {"max_jobs": False},
                                    {"alpha": float("nan")}, {"time_unit": float("inf")}])
def test_bool_and_non_finite_options_are_errors(tmp_path, option):
    with pytest.raises(InstanceError, match=next(iter(option))):
        load_google_tasks(write(tmp_path / "t.csv"), **option)


def test_gzipped_part_under_any_name_and_a_swim_file_named(tmp_path):
    # The gzip magic bytes decide, not the name (a downloaded part renamed without .gz).
    tr = load_google_tasks(write(tmp_path / "task_events", gz=True))
    assert tr.instance.place_time.tolist() == [5.0, 3.0, 2.0]
    swim = tmp_path / "fb.tsv"
    swim.write_text("job0\t49\t49\t740773\t2339561\t627471\n")
    with pytest.raises(InstanceError, match=r"line 1 is tab-separated, not comma-separated \(a SWIM workload "
                                            r"file\? `schedrelax convert swim`\)"):
        load_google_tasks(swim)


def test_local_placement_without_remote_machines(tmp_path):
    # alpha=None: the task's local machines only. Before, the remote times were computed even then
    # (p * None: a TypeError).
    machines = tmp_path / "m.csv"
    machines.write_text("0,10,0,p,0.5,0.5\n0,11,0,p,0.5,1.0\n")
    tr = load_google_tasks(write(tmp_path / "t.csv"), machine_events=machines, placement="local",
                           local_machines=1, alpha=None)
    assert tr.instance.place_machine.tolist() == [0, 1, 1] and tr.instance.place_time.tolist() == [5.0, 3.0, 2.0]
