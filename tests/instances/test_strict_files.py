"""Strict files and typed errors (issue 31): repeated JSON keys, out-of-range Google and SWIM
fields, and the exact malleable MIP's refusals, each one line with exit 2 from the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedrelax.algorithms import run
from schedrelax.cli import EXIT_USAGE, main
from schedrelax.errors import AlgorithmError, InstanceError, ScheduleError
from schedrelax.instances import from_dict, load
from schedrelax.instances.google import load_google_tasks
from schedrelax.instances.swim import read_swim
from schedrelax.schedules import Schedule

RELATED = '{"family": "related", "schema_version": 1, "speeds": [1.0], "jobs": [{"tasks": [1.0], "weight": 1.0}]}'


def cli_error(argv, capsys) -> str:
    assert main(argv) == EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "internal error" not in err
    return err


@pytest.mark.parametrize("text, key", [
    ('{"family": "packing", "family": "related", "schema_version": 1, "speeds": [1.0], '
     '"jobs": [{"tasks": [1.0], "weight": 1.0}]}', "family"),
    (RELATED.replace('"speeds": [1.0]', '"speeds": [1.0], "speeds": [2.0]'), "speeds"),
    (RELATED.replace('"weight": 1.0', '"weight": 1.0, "weight": 5.0'), "weight"),
])
def test_repeated_instance_keys_are_an_error_naming_the_key(tmp_path, capsys, text, key):
    # Before: the last one won (a "packing" file loaded as related, speeds [2.0]).
    path = tmp_path / "inst.json"
    path.write_text(text)
    with pytest.raises(InstanceError, match=f"the key '{key}' appears twice"):
        load(path)
    assert f"'{key}' appears twice" in cli_error(["solve", str(path), "-a", "fifo"], capsys)


def test_repeated_schedule_column_is_an_error(tmp_path):
    doc = json.dumps(Schedule.from_pieces([(0, 0, 0, 0.0, 1.0, 1.0)]).to_dict())
    path = tmp_path / "s.json"
    path.write_text(doc.replace('"start": [0.0]', '"start": [0.0], "start": [5.0]'))
    with pytest.raises(ScheduleError, match="the key 'start' appears twice"):
        Schedule.load(path)


# timestamp(µs), missing, job, task, machine, event, user, class, priority, cpu, memory, disk, diff
GOOD = ["1000000,,1,0,10,1,u,0,0,0.1,0.2,0,0", "3000000,,1,0,10,4,u,0,0,0.1,0.2,0,0"]


@pytest.mark.parametrize("line, column, value", [
    ("3000000,,1,0,-1,4,u,0,0,0.1,0.2,0,0", "machine_id", "-1"),
    ("3000000,,1,0,inf,4,u,0,0,0.1,0.2,0,0", "machine_id", "inf"),
    ("3000000,,1,0,10.5,4,u,0,0,0.1,0.2,0,0", "machine_id", "10.5"),
    ("Infinity,,1,0,10,4,u,0,0,0.1,0.2,0,0", "timestamp", "Infinity"),
    ("-Infinity,,1,0,10,4,u,0,0,0.1,0.2,0,0", "timestamp", "-Infinity"),
    ("NaN,,1,0,10,4,u,0,0,0.1,0.2,0,0", "timestamp", "NaN"),
    ("-3000000,,1,0,10,4,u,0,0,0.1,0.2,0,0", "timestamp", "-3000000"),
    ("1e40,,1,0,10,4,u,0,0,0.1,0.2,0,0", "timestamp", "1e40"),
    ("3000000.5,,1,0,10,4,u,0,0,0.1,0.2,0,0", "timestamp", "3000000.5"),
    ("3000000,,1.5,0,10,4,u,0,0,0.1,0.2,0,0", "job_id", "1.5"),
    ("3000000,,1,-2,10,4,u,0,0,0.1,0.2,0,0", "task_index", "-2"),
    ("3000000,,1,0,10,9,u,0,0,0.1,0.2,0,0", "event_type", "9"),
    ("3000000,,1,0,10,4,u,0,0,0.1,Infinity,0,0", "memory_request", "Infinity"),
    ("3000000,,1,0,10,4,u,0,0,0.1,-0.2,0,0", "memory_request", "-0.2"),
    ("3000000,,1,0,10,4,u,0,-Infinity,0.1,0.2,0,0", "priority", "-Infinity"),
    ("3000000,,1,0,10,4,u,0,0,nan,0.2,0,0", "cpu_request", "nan"),
])
def test_google_field_out_of_range_names_file_line_column_and_value(tmp_path, capsys, line, column, value):
    # Before: each of these was read silently (a negative FINISH even dropped the task under "no
    # SCHEDULE before FINISH", an infinite SUBMIT under --online failed on "release must be finite").
    path = tmp_path / "t.csv"
    path.write_text("\n".join([GOOD[0], line]) + "\n")
    with pytest.raises(InstanceError) as info:
        load_google_tasks(path, online=True)
    msg = str(info.value)
    assert msg.startswith(f"{path}, line 2: column {column} must be") and msg.endswith(f"got {value!r}")
    err = cli_error(["convert", "google", str(path), "-o", str(tmp_path / "out.json")], capsys)
    assert f"line 2: column {column}" in err


@pytest.mark.parametrize("line, count", [
    ("3000000,,1,0,10,4,u,0,0,0.1,0.2,0", 12),
    ("3000000,,1,0,10,4,u,0,0,0.1,0.2,0,0,7", 14),
    ("", 0),
])
def test_google_row_with_the_wrong_number_of_fields(tmp_path, line, count):
    # Before: a row of 12 fields read with its last field empty.
    path = tmp_path / "t.csv"
    path.write_text("\n".join([GOOD[0], line, GOOD[1]]) + "\n")
    with pytest.raises(InstanceError, match=f"line 2: expected 13 comma-separated fields, got {count}"):
        load_google_tasks(path)


def test_google_after_window_mark_still_accepted(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("\n".join([*GOOD, "4000000,,2,0,10,1,u,0,0,0.1,0.2,0,0",
                               f"{2**63 - 1},,2,0,10,4,u,0,0,0.1,0.2,0,0"]) + "\n")
    tr = load_google_tasks(path)
    assert tr.job_ids == (1,) and tr.instance.place_time.tolist() == [2.0]
    assert list(tr.report.tasks_skipped.values()) == [1]


def test_swim_integer_beyond_int64_is_an_instance_error(tmp_path, capsys):
    # Before: numpy's OverflowError, "internal error", exit 3.
    path = tmp_path / "w.tsv"
    path.write_text("job0\t0\t0\t99999999999999999999\t0\t0\n")
    with pytest.raises(InstanceError, match=r"line 1: map input bytes must be at most 2\^53"):
        read_swim(path)
    err = cli_error(["convert", "swim", str(path), "--machines", "2", "-o", str(tmp_path / "o.json")], capsys)
    assert "map input bytes must be at most 2^53" in err


def malleable(n_jobs: int, size: float = 1.0, p: float | None = None) -> dict:
    cost = {"kind": "power", "p": p} if p else {"kind": "completion"}
    return {"family": "malleable", "schema_version": 1, "processors": 2, "objective": "minisum",
            "flows": [{"sizes": [size * (j + 1)], "max_processors": [1 + j % 2], "cost": cost}
                      for j in range(n_jobs)]}


def test_mip_beyond_max_jobs_is_an_algorithm_error(tmp_path, capsys):
    inst = from_dict(malleable(14))
    with pytest.raises(AlgorithmError, match="14 jobs is more than max_jobs=12"):
        run("mip", inst)
    path = tmp_path / "m.json"
    inst.save(path)
    assert "more than max_jobs=12" in cli_error(["solve", str(path), "-a", "mip"], capsys)


def test_highs_rejecting_the_model_is_an_algorithm_error_with_the_reason(monkeypatch):
    # A power cost p = 3 at sizes ~1e7: written in the instance's units, the MIP's coefficients
    # pass HiGHS's largest matrix value (the model in the instance's own frame).
    from schedrelax.rounding import flex

    inst = from_dict(malleable(2, size=1.3e7, p=3))
    with monkeypatch.context() as m:
        m.setattr(flex._ModelFrame, "of", classmethod(lambda cls, instance: cls(instance, 0.0, 1.0, 0.0, 1.0)))
        with pytest.raises(AlgorithmError, match=r"HiGHS rejected the model compiled from 'malleable_mip': a "
                                                 r"constraint coefficient of .* is beyond HiGHS's limit 1e\+15 "
                                                 r"\(large_matrix_value\)"):
            flex.mip(inst, time_limit=5)
    # The mip algorithm solves it in its own units (powers of 2) and proves the optimum. By hand: job
    # 0 (1.3e7, one processor) and job 1 (2.6e7, two) side by side, job 1 on both once job 0 is done:
    # C = 1.3e7 and 1.95e7, cost 1.3e7^3 + 1.95e7^3 = 9.611875e21 (job 1 first: 2.6e7 for job 0, dearer).
    res = run("mip", inst, time_limit=5)
    assert res.status == "optimal" and res.objective == pytest.approx(9.611875e21, rel=1e-6)


def test_schemas_are_read_with_unique_keys():
    from schedrelax import schemas

    for name in schemas.names():
        assert schemas.schema(name)["$schema"].startswith("https://json-schema.org/")


def test_bundled_example_files_have_no_repeated_keys():
    from schedrelax._files import read_json

    data = Path(__file__).resolve().parents[2] / "schedrelax" / "instances" / "data"
    for path in sorted(data.glob("*.json")):
        assert isinstance(read_json(path, "instance", InstanceError, max_depth=32), dict)
