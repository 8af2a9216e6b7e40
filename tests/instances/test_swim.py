"""Tests of the SWIM loader: the conversion rules on a small hand-written file, bad files, and the
real Facebook 2009 sample when ../shared/data is present."""

from pathlib import Path

import pytest

from schedrelax.algorithms import run
from schedrelax.errors import InstanceError
from schedrelax.instances.swim import MiB, SwimLoadReport, convert_swim, load_swim, read_swim

BLOCK = 128 * MiB
REAL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "swim" / "FB-2009_samples_24_times_1hr_0.tsv"


def _write(tmp_path, rows) -> Path:
    path = tmp_path / "trace.tsv"
    path.write_text("".join("\t".join(str(v) for v in row) + "\n" for row in rows))
    return path


def test_conversion_rules(tmp_path):
    path = _write(tmp_path, [
        ("job0", 100, 0, 0, 0, 5000),  # slot 0; no input: still 1 Map task; no shuffle: map-only
        ("job1", 159, 59, BLOCK, 1, 0),  # slot 0; 1 block; 1 shuffle byte: 1 Reduce unit, 1 task
        ("job2", 160, 1, 3 * BLOCK + 1, 10 * BLOCK, 7 * BLOCK),  # slot 1; 4 Map; 17 units: 3 tasks
        ("job3", 400, 240, 5, 2 * BLOCK, BLOCK // 2),  # slot 5; 1 Map; 3 units: 1 task
    ])
    inst = load_swim(path, machines=10, slot_seconds=60)
    assert inst.machines == 10
    assert inst.arrival.tolist() == [0, 0, 1, 5]
    assert inst.map_work.tolist() == [1, 1, 4, 1]
    assert [list(job.reduce_tasks) for job in inst.jobs] == [[], [1], [6, 6, 5], [3]]
    # Hive's cap on reducers: at most 2 tasks here, 17 units split 9 + 8.
    capped = load_swim(path, machines=10, max_reduce_tasks=2)
    assert list(capped.jobs[2].reduce_tasks) == [9, 8]


def test_load_picks_machines_and_duration_cuts(tmp_path):
    # 4 jobs of 1 Map task and 3 Reduce units (shuffle 2 blocks + output 1 block), one a minute:
    # 16 units over 4 slots. Load 0.5: N = ceil(16 / (4 × 0.5)) = 8.
    path = _write(tmp_path, [(f"j{k}", 60 * k, 60, 10, 2 * BLOCK, BLOCK) for k in range(4)])
    assert load_swim(path, load=0.5).machines == 8
    first_two = load_swim(path, machines=4, duration=120)
    assert first_two.n_jobs == 2
    res = run("asrpt", first_two)
    assert res.objective >= res.lower_bound > 0


@pytest.mark.parametrize("line, message", [
    ("job0\t1\t2\t3\t4", "expected 6 tab-separated fields"),
    ("job0\t1\t2\tx\t4\t5", "map input bytes must be a whole number"),
    ("job0\t1\t2\t3\t-4\t5", "shuffle bytes must be >= 0"),
])
def test_bad_lines(tmp_path, line, message):
    path = tmp_path / "bad.tsv"
    path.write_text("job9\t0\t0\t1\t1\t1\n" + line + "\n")
    with pytest.raises(InstanceError, match=f"line 2: {message}"):
        read_swim(path)


def test_bad_files_and_arguments(tmp_path):
    with pytest.raises(InstanceError, match="no such SWIM file"):
        read_swim(tmp_path / "missing.tsv")
    empty = tmp_path / "empty.tsv"
    empty.write_text("\n")
    with pytest.raises(InstanceError, match="no jobs"):
        read_swim(empty)
    path = _write(tmp_path, [("j", 0, 0, 1, 1, 1)])
    with pytest.raises(ValueError, match="exactly one of machines and load"):
        load_swim(path)
    with pytest.raises(InstanceError, match="block_bytes must be a whole number >= 1, got 0"):
        load_swim(path, machines=2, block_bytes=0)


@pytest.mark.skipif(not REAL.exists(), reason=f"the shared SWIM data is absent ({REAL})")
def test_real_facebook_2009_sample():
    trace = read_swim(REAL)
    assert len(trace.job_id) == 5894
    assert trace.submit.max() - trace.submit.min() < 24 * 3600 + 60
    inst = load_swim(REAL, load=0.8, duration=3600)
    assert 0.7 < inst.load <= 0.8
    # Most of the sample's jobs are map-only (no shuffle), as in the SWIM paper's FB-2009 data.
    map_only = sum(1 for job in inst.jobs if len(job.reduce_tasks) == 0)
    assert map_only > inst.n_jobs / 2
    res = run("asrpt", inst)
    assert res.objective >= res.lower_bound


def test_report_counts_every_rule(tmp_path):
    path = _write(tmp_path, [
        ("j0", 0, 0, 0, 0, 5000),                 # no input: 1 Map task; map-only with output bytes
        ("j1", 10, 10, BLOCK, 0, 0),              # map-only, no output: no rule
        ("j2", 20, 10, BLOCK, 30 * BLOCK, 0),     # 30 Reduce units -> 4 tasks wanted, capped to 2
        ("j3", 7200, 7180, BLOCK, BLOCK, 0),      # beyond a one-hour duration
    ])
    got = convert_swim(path, machines=3, max_reduce_tasks=2, duration=3600)
    assert got.report == SwimLoadReport(jobs_read=4, jobs_loaded=3, jobs_beyond_duration=1, no_input_one_map_task=1,
                                        map_only_output_ignored=1, reduce_tasks_capped=1)
    assert [list(job.reduce_tasks) for job in got.instance.jobs] == [[], [], [15, 15]]


@pytest.mark.parametrize("option", [
    {"machines": 2, "slot_seconds": float("nan")}, {"machines": 2, "slot_seconds": float("inf")},
    {"machines": 2, "duration": -1}, {"machines": 2, "duration": float("nan")},
    {"machines": 2, "block_bytes": 1.5}, {"machines": 2, "reduce_task_blocks": True},
    {"machines": 0}, {"machines": 2.5}, {"load": float("inf")}, {"load": -0.5},
])
def test_bad_options_are_instance_errors(tmp_path, option):
    # Before: NaN slot_seconds or a negative duration failed deep inside numpy, a float
    # block_bytes made fractional Map counts.
    path = _write(tmp_path, [("j", 0, 0, 1, 1, 1)])
    name = [k for k in option if k != "machines"] or ["machines"]
    with pytest.raises(InstanceError, match=name[0]):
        load_swim(path, **option)


def test_report_text_names_every_count(tmp_path):
    path = _write(tmp_path, [("j0", 0, 0, 0, 0, 5000), ("j1", 7200, 7200, BLOCK, BLOCK, 0)])
    text = str(convert_swim(path, machines=2, duration=3600).report)
    assert text.startswith("2 jobs read, 1 loaded; left out: 1 submitted later than the duration")
    assert "1 without input bytes given one Map task" in text
    assert "1 map-only (no shuffle) with output bytes not counted" in text
    assert "0 with their Reduce tasks capped" in text


def test_gzipped_file_reads_as_the_plain_one(tmp_path):
    import gzip

    plain = _write(tmp_path, [("j0", 0, 0, 3 * BLOCK, BLOCK, BLOCK), ("j1", 60, 60, BLOCK, 0, 0)])
    packed = tmp_path / "trace.tsv.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    a, b = load_swim(plain, machines=2), load_swim(packed, machines=2)
    assert a.to_dict()["jobs"] == b.to_dict()["jobs"] == [
        {"arrival": 0, "map_tasks": 3, "reduce_tasks": [2]}, {"arrival": 1, "map_tasks": 1, "reduce_tasks": []}]


def test_not_text_and_comma_separated_files_say_so(tmp_path):
    binary = tmp_path / "x.tsv"
    binary.write_bytes(b"\xff\xfe\x00\x81\x00")
    with pytest.raises(InstanceError, match="not a SWIM text file"):
        read_swim(binary)
    broken = tmp_path / "y.tsv.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(InstanceError, match="not a SWIM text file"):
        read_swim(broken)
    csv = tmp_path / "task_events.csv"
    csv.write_text("0,,1,0,10,1,u,0,0,0.1,0.2,0,0\n")
    with pytest.raises(InstanceError, match=r"line 1: expected 6 tab-separated fields .* got 1; the line is "
                                            r"comma-separated: a Google trace\? \(`schedrelax convert google`\)"):
        read_swim(csv)
