"""``schedrelax convert google|swim|unit-reduce``: traces written here by hand (so the command is
tested on any clone), the real pieces in ../shared/data when present, and the instance loader's
error that points to the command when it is given a trace."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from schedrelax.cli import main
from schedrelax.errors import InstanceError
from schedrelax.instances import MapReduceInstance, load
from schedrelax.schedulers.mapreduce_sim import unit_reduce_tasks

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
GOOGLE = SHARED / "google2011" / "task_events-part-00001-of-00500.csv.gz"
SWIM = SHARED / "swim" / "FB-2009_samples_24_times_1hr_0.tsv"
BLOCK = 128 * 2**20

# task_events: timestamp (µs), job, task, machine, event (0 SUBMIT, 1 SCHEDULE, 4 FINISH), priority, memory
GOOGLE_ROWS = [
    (0, 1, 0, "", 0, 0, 0.2),
    (1_000_000, 1, 0, 10, 1, 0, 0.2),     # job 1: 5 s on machine 10
    (6_000_000, 1, 0, 10, 4, 0, 0.2),
    (3_000_000, 2, 0, "", 0, 9, 0.5),     # job 2, submitted 3 s after job 1, priority 9
    (3_000_000, 2, 0, 11, 1, 9, 0.5),     # 2 s on machine 11
    (5_000_000, 2, 0, 11, 4, 9, 0.5),
    (2_000_000, 3, 0, 10, 1, 0, 0.1),     # job 3: never finishes in the file
]

# SWIM: job id, submit (s), gap, map input bytes, shuffle bytes, reduce output bytes
SWIM_ROWS = [
    ("j0", 100, 0, 2 * BLOCK, BLOCK, BLOCK),     # slot 0: 2 Map tasks, Reduce 2 units -> [2]
    ("j1", 220, 120, BLOCK, 17 * BLOCK, 0),      # slot 2: 1 Map task, Reduce 17 units -> [6, 6, 5]
    ("j2", 400, 180, 0, 0, 10),                  # slot 5: no input -> 1 Map task; map-only
]


def google_csv(path: Path, gz: bool = False) -> Path:
    text = "".join(f"{t},,{j},{k},{m},{e},user,0,{pr},0.1,{mem},0.0,0\n" for t, j, k, m, e, pr, mem in GOOGLE_ROWS)
    if gz:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def swim_tsv(path: Path) -> Path:
    path.write_text("".join("\t".join(str(v) for v in row) + "\n" for row in SWIM_ROWS))
    return path


def convert(*argv) -> int:
    return main(["convert", *map(str, argv)])


# ------------------------------------------------------------------------------------------ google

def test_google_defaults_and_the_load_report(tmp_path, capsys):
    out = tmp_path / "g.json"
    assert convert("google", google_csv(tmp_path / "t.csv.gz", gz=True), "-o", out) == 0
    printed = capsys.readouterr().out
    assert "7 events -> 2 jobs, 2 tasks on 2 machines" in printed
    assert "tasks left out: 1 no FINISH in the file" in printed
    assert f"packing instance with 2 jobs written to {out}" in printed
    inst = load(out)
    assert inst.demand.tolist() == [0.2, 0.5] and inst.place_time.tolist() == [5.0, 2.0]
    assert inst.place_machine.tolist() == [0, 1] and inst.capacities.tolist() == [1.0, 1.0]
    assert inst.weights.tolist() == [1.0, 1.0] and inst.release.tolist() == [0.0, 0.0]


def test_google_options_reach_the_loader(tmp_path, capsys):
    trace = google_csv(tmp_path / "task_events.csv")
    out = tmp_path / "g.json"
    assert convert("google", trace, "-o", out, "--online", "--weights", "priority", "--time-unit", "0.5",
                   "--name", "two jobs") == 0
    inst = load(out)
    assert inst.name == "two jobs"
    assert inst.release.tolist() == [0.0, 6.0]          # 3 s later, in units of 0.5 s
    assert inst.weights.tolist() == [1.0, 10.0]         # priority + 1
    assert inst.place_time.tolist() == [10.0, 4.0]      # 5 s and 2 s in units of 0.5 s
    assert convert("google", trace, "-o", out, "--max-jobs", "1") == 0
    assert "jobs beyond max_jobs: 1" in capsys.readouterr().out and load(out).n_jobs == 1
    machines = tmp_path / "machine_events.csv"
    machines.write_text("0,10,0,p,0.5,0.5\n0,11,0,p,0.5,1.0\n")
    assert convert("google", trace, "-o", out, "--machine-events", machines, "--placement", "local",
                   "--local-machines", "1", "--alpha", "3") == 0
    inst = load(out)
    # Task 0 (memory 0.2, 5 s, ran on machine 10) fits both machines: its own in 5, the other in 3 x 5.
    # Task 1 (memory 0.5) fits both too: machine 11 (its own) in 2, machine 10 (capacity 0.5) in 6.
    assert inst.capacities.tolist() == [0.5, 1.0]
    assert inst.place_machine.tolist() == [0, 1, 1, 0] and inst.place_time.tolist() == [5.0, 15.0, 2.0, 6.0]
    assert convert("google", trace, "-o", out, "--machine-events", machines, "--placement", "local",
                   "--local-machines", "1", "--alpha", "none") == 0
    assert load(out).place_machine.tolist() == [0, 1]  # local machines only
    assert convert("google", trace, "-o", out, "--placement", "any") == 0
    assert load(out).place_machine.tolist() == [0, 1, 0, 1]


@pytest.mark.parametrize("options, fragment", [
    (["--placement", "everywhere"], "placement must be one of trace, local, any, got 'everywhere'"),
    (["--weights", "heavy"], "weights must be one of equal, priority, random, got 'heavy'"),
    (["--max-jobs", "0"], "max_jobs must be a whole number >= 1, got 0"),
    (["--time-unit", "-1"], "time_unit must be a positive number of seconds, got -1.0"),
    (["--placement", "local", "--alpha", "0.5"], "alpha must be a number >= 1 or None, got 0.5"),
])
def test_google_bad_options_are_one_line_errors(tmp_path, capsys, options, fragment):
    out = tmp_path / "g.json"
    assert convert("google", google_csv(tmp_path / "t.csv"), "-o", out, *options) == 2
    assert fragment in capsys.readouterr().err and not out.exists()


# -------------------------------------------------------------------------------------------- swim

def test_swim_conversion_by_hand_and_the_report(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert convert("swim", swim_tsv(tmp_path / "fb.tsv"), "--machines", "3", "-o", out) == 0
    printed = capsys.readouterr().out
    assert "3 jobs read, 3 loaded" in printed and "1 without input bytes given one Map task" in printed
    assert "1 map-only (no shuffle) with output bytes not counted" in printed and "3 machines" in printed
    inst = load(out)
    assert isinstance(inst, MapReduceInstance) and inst.machines == 3
    assert inst.arrival.tolist() == [0, 2, 5] and inst.map_work.tolist() == [2, 1, 1]
    assert [list(j.reduce_tasks) for j in inst.jobs] == [[2], [6, 6, 5], []]


@pytest.mark.parametrize("options, check", [
    # 23 units of work (4 + 18 + 1) over 6 slots: load 0.5 needs ceil(23 / 3) = 8 machines.
    (["--load", "0.5"], lambda i: i.machines == 8),
    (["--machines", "2", "--duration", "200"], lambda i: i.n_jobs == 2),
    (["--machines", "2", "--slot-seconds", "120"], lambda i: i.arrival.tolist() == [0, 1, 2]),
    (["--machines", "2", "--reduce-task-blocks", "4"], lambda i: list(i.jobs[1].reduce_tasks) == [4, 4, 3, 3, 3]),
    (["--machines", "2", "--max-reduce-tasks", "2"], lambda i: list(i.jobs[1].reduce_tasks) == [9, 8]),
    # 2-block units: j0 1 Map task and ceil(2 / 2) = 1 Reduce unit, j1 ceil(17 / 2) = 9 units.
    (["--machines", "2", "--block-bytes", str(2 * BLOCK)],
     lambda i: i.map_work.tolist() == [1, 1, 1] and i.reduce_total.tolist() == [1, 9, 0]),
    (["--machines", "2", "--unit-reduce-tasks"],
     lambda i: [list(j.reduce_tasks) for j in i.jobs] == [[1, 1], [1] * 17, []]),
])
def test_swim_options_reach_the_loader(tmp_path, options, check):
    out = tmp_path / "s.json"
    assert convert("swim", swim_tsv(tmp_path / "fb.tsv"), "-o", out, *options) == 0
    assert check(load(out))


def test_swim_needs_machines_or_load_and_checks_them(tmp_path, capsys):
    trace = swim_tsv(tmp_path / "fb.tsv")
    with pytest.raises(SystemExit) as stop:
        convert("swim", trace, "-o", tmp_path / "s.json")
    assert stop.value.code == 2 and "one of the arguments --machines --load is required" in capsys.readouterr().err
    assert convert("swim", trace, "-o", tmp_path / "s.json", "--machines", "0") == 2
    assert "machines must be a whole number >= 1, got 0" in capsys.readouterr().err
    assert convert("swim", trace, "-o", tmp_path / "s.json", "--load", "nan") == 2
    assert "load must be a finite number > 0, got nan" in capsys.readouterr().err


def test_unit_reduce_and_the_paper_model_from_the_command_line(tmp_path, capsys):
    plain, unit = tmp_path / "s.json", tmp_path / "unit.json"
    assert convert("swim", swim_tsv(tmp_path / "fb.tsv"), "--machines", "3", "-o", plain) == 0
    assert convert("unit-reduce", plain, "-o", unit) == 0
    assert "its 4 Reduce tasks cut into 19 unit tasks" in capsys.readouterr().out
    assert load(unit).to_dict()["jobs"] == unit_reduce_tasks(load(plain)).to_dict()["jobs"]
    assert main(["solve", str(unit), "-a", "asrpt", "-p", "model=paper-preemptive"]) == 0
    capsys.readouterr()
    assert main(["solve", str(plain), "-a", "asrpt", "-p", "model=paper-preemptive"]) == 2
    assert "convert unit-reduce" in capsys.readouterr().err
    google = tmp_path / "g.json"
    assert convert("google", google_csv(tmp_path / "t.csv"), "-o", google) == 0
    assert convert("unit-reduce", google, "-o", tmp_path / "x.json") == 2
    assert "takes a mapreduce instance, got family 'packing'" in capsys.readouterr().err


def test_missing_trace_and_output_folder(tmp_path, capsys):
    assert convert("swim", tmp_path / "nope.tsv", "--machines", "2", "-o", tmp_path / "s.json") == 2
    assert "no such SWIM file" in capsys.readouterr().err
    assert convert("google", tmp_path / "nope.csv", "-o", tmp_path / "g.json") == 2
    assert "no such trace file" in capsys.readouterr().err
    trace = google_csv(tmp_path / "t.csv")
    assert convert("google", trace, "-o", tmp_path / "missing" / "g.json") == 2
    assert "does not exist (create it first)" in capsys.readouterr().err


# ------------------------------------------------- the instance loader, given a trace, points here

def _bad(path: Path) -> str:
    with pytest.raises(InstanceError) as err:
        load(path)
    return str(err.value)


def test_loader_says_what_a_trace_looks_like_and_points_to_convert(tmp_path, capsys):
    cases = {
        google_csv(tmp_path / "t.csv.gz", gz=True):
            "it looks like gzip-compressed data holding CSV text with 13 fields per line, like a Google 2011 "
            "task_events file (it starts with the bytes 1f 8b)",
        google_csv(tmp_path / "t.csv"): "it looks like CSV text with 13 fields per line, like a Google 2011 task_events",
        swim_tsv(tmp_path / "fb.tsv"): "it looks like tab-separated text with 6 fields per line, like a SWIM workload",
    }
    binary = tmp_path / "data.bin"
    binary.write_bytes(bytes(range(256)))
    cases[binary] = "it looks like binary data (not UTF-8 text)"
    for path, looks in cases.items():
        text = _bad(path)
        assert text.startswith(f"{path}: not an instance file: ") and looks in text
        assert "schedrelax convert google|swim TRACE -o instance.json" in text
        assert main(["solve", str(path), "-a", "fifo"]) == 2
        assert "schedrelax convert google|swim" in capsys.readouterr().err


def test_loader_keeps_its_own_error_for_json_and_plain_text(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"family": "mapreduce", "schema_version": 1,')
    text = _bad(broken)
    assert "not a JSON file" in text and "convert" not in text
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"job": [0], "task": [0]}')
    assert "missing required field 'family'" in _bad(wrong)
    prose = tmp_path / "notes.txt"
    prose.write_text("these are notes\nnot a trace\n")
    assert "convert" not in _bad(prose)


# ----------------------------------------------------------------------- the real pieces, if here

@pytest.mark.skipif(not GOOGLE.exists(), reason=f"the shared Google 2011 data is absent ({GOOGLE})")
def test_real_google_part(tmp_path, capsys):
    out = tmp_path / "g.json"
    assert "Google 2011 task_events" in _bad(GOOGLE)
    assert convert("google", GOOGLE, "--max-jobs", "20", "-o", out) == 0
    printed = capsys.readouterr().out
    assert "-> 20 jobs" in printed and "tasks left out:" in printed
    inst = load(out)
    assert inst.family == "packing" and inst.n_jobs == 20
    assert (inst.place_time >= 1).all() and (inst.demand > 0).all() and (inst.demand <= 1).all()


@pytest.mark.skipif(not SWIM.exists(), reason=f"the shared SWIM data is absent ({SWIM})")
def test_real_swim_sample(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert "like a SWIM workload file" in _bad(SWIM)
    assert convert("swim", SWIM, "--load", "0.8", "--duration", "3600", "-o", out, "--unit-reduce-tasks") == 0
    inst = load(out)
    assert 0.7 < inst.load <= 0.8 and set(inst.reduce_work.tolist()) <= {1}
    assert main(["solve", str(out), "-a", "asrpt", "-p", "model=paper-preemptive"]) == 0
