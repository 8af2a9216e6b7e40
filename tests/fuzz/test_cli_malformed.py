"""Malformed instance and schedule files through the ``schedrelax`` command (issue 13).

Each example takes a valid file of one family (the bundled example instance, or a schedule that
``solve`` wrote for it), damages it in one place — a value of the wrong type, a nested list, a
huge or non-finite number, a missing or unknown field, a deep nesting, truncated text, bytes that
are not UTF-8 — and runs ``solve`` or ``verify`` on it in this process. The command must answer
with one of its documented exit codes and nothing else: 0 (the damage left a valid file), 1
(``verify`` only: a readable schedule that is infeasible) or 2 (bad input, one line on stderr).
A traceback, exit 3 (an internal error), or a run past its time guard fails the test.

The default pass tries a few dozen files per family and kind; ``--runslow`` (or
``SCHEDRELAX_FUZZ_FILES=N``) tries N per family and kind.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import signal
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedrelax.cli import main
from schedrelax.instances.generate import EXAMPLES, example

FAMILIES = sorted(EXAMPLES)
GUARD_SECONDS = 10
"""A command on a file this small that runs longer than this is a hang (issue 13's bound)."""

_DEFAULT_FILES = 25
_SLOW_FILES = int(os.environ.get("SCHEDRELAX_FUZZ_FILES", "300"))

# Replacement values: every JSON type in the wrong place, boundary numbers, and values a lax
# reader would coerce ("4.0", true) — each must be rejected or accepted, never crash.
_BAD_VALUES = [None, True, False, "4.0", "", "x" * 3, [], [[1.0]], [[1.0, 2.0], [3.0]], {}, {"a": 1},
               -1, 0, 1, -0.5, 0.5, 1e308, -1e308, 1e-308, 2 ** 63, 2 ** 64, -(2 ** 63) - 1,
               math.nan, math.inf, -math.inf, 10 ** 9, 1.5]


class _Hang(BaseException):  # not an Exception: main() must not catch it as an internal error
    pass


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def _paths(doc, prefix=()):
    """Every location in a JSON tree (dict keys and list indices), the root first."""
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:6]):  # the first few items show every shape a column has
            yield from _paths(v, prefix + (i,))


def _set(doc, path, value):
    if not path:
        return value
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


def _delete(doc, path):
    node = doc
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return doc


@st.composite
def _damages(draw, valid: dict) -> tuple:
    """One damage to the JSON document *valid*, as a short description (kind, location, value)
    that hypothesis can print; :func:`_apply` turns it into the bytes of a file."""
    kind = draw(st.sampled_from(["replace", "replace", "replace", "delete", "unknown", "deep",
                                 "truncate", "bytes", "wrap"]))
    if kind == "truncate":
        return kind, (), draw(st.integers(0, len(json.dumps(valid)) - 1))
    if kind == "bytes":
        return kind, (), draw(st.sampled_from([b"\xff\xfe\x00", b"", b"null", b"[]", b"42", b'"text"', b"\x00" * 8]))
    if kind == "deep":
        return kind, (), draw(st.sampled_from([1000, 5000, 100000]))
    path = draw(st.sampled_from(list(_paths(valid))[1:]))
    return kind, path, draw(st.sampled_from(_BAD_VALUES)) if kind == "replace" else None


def _apply(valid: dict, damage: tuple) -> bytes:
    kind, path, value = damage
    doc = json.loads(json.dumps(valid))
    if kind == "truncate":
        return json.dumps(doc)[:value].encode()
    if kind == "bytes":
        return value
    if kind == "deep":
        return _deep(value).encode()
    if kind == "replace":
        doc = _set(doc, path, value)
    elif kind == "delete":
        doc = _delete(doc, path)
    else:
        node = doc
        for key in path[:-1]:
            node = node[key]
        if kind == "unknown":
            if isinstance(node, dict):
                node["no_such_field"] = 1
            else:
                node.append(node[0] if node else 1)
        else:  # "wrap": a value inside a list one level deeper than its column allows
            node[path[-1]] = [node[path[-1]]]
    return json.dumps(doc, allow_nan=True).encode()


def _run(argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)`` in this process with a time guard; its exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()

    def alarm(*_):
        raise _Hang()

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(GUARD_SECONDS)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except _Hang:
        pytest.fail(f"schedrelax {' '.join(argv)}: still running after {GUARD_SECONDS} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return code, out.getvalue(), err.getvalue()


def _check_answer(code: int, err: str, allowed: set[int], argv: list[str], data: bytes) -> None:
    shown = data[:120]
    assert code in allowed, f"exit {code} for {argv[0]} on {shown!r}:\n{err}"
    assert "Traceback" not in err, f"traceback for {shown!r}:\n{err}"
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "error:" in lines[0], f"not one error line for {shown!r}:\n{err}"
        assert len(lines[0]) < 2000, "an error line that long is a dump, not a message"


@pytest.fixture(scope="module")
def valid_files(tmp_path_factory) -> dict[str, tuple[Path, dict, dict]]:
    """Per family: the example instance's file, its JSON document, and fifo's schedule document."""
    folder = tmp_path_factory.mktemp("valid")
    files = {}
    for fam in FAMILIES:
        inst_path, sched_path = folder / f"{fam}.json", folder / f"{fam}_sched.json"
        example(fam).save(inst_path)
        code, _, err = _run(["solve", str(inst_path), "-a", "fifo", "-o", str(sched_path)])
        assert code == 0, err
        files[fam] = (inst_path, json.loads(inst_path.read_text()), json.loads(sched_path.read_text()))
    return files


def _fuzz(valid_doc: dict, tmp_path: Path, argv_for, allowed: set[int], n: int) -> None:
    """*n* damaged copies of *valid_doc*, each written to a file and given to the command
    ``argv_for(path)``, which must answer with an exit code in *allowed* (see _check_answer)."""

    @settings(max_examples=n, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(damage=_damages(valid_doc))
    def run(damage: tuple) -> None:
        data = _apply(valid_doc, damage)
        path = tmp_path / "damaged.json"
        path.write_bytes(data)
        argv = argv_for(path)
        code, _, err = _run(argv)
        _check_answer(code, err, allowed, argv, data)

    run()


def _fuzz_instances(valid_files, tmp_path, family: str, n: int) -> None:
    _fuzz(valid_files[family][1], tmp_path, lambda path: ["solve", str(path), "-a", "fifo"], {0, 2}, n)


def _fuzz_schedules(valid_files, tmp_path, family: str, n: int) -> None:
    inst_path = valid_files[family][0]
    _fuzz(valid_files[family][2], tmp_path, lambda path: ["verify", str(inst_path), str(path)], {0, 1, 2}, n)


@pytest.mark.parametrize("family", FAMILIES)
def test_malformed_instance_files_get_one_line_and_exit_2(valid_files, tmp_path, family):
    _fuzz_instances(valid_files, tmp_path, family, _DEFAULT_FILES)


@pytest.mark.parametrize("family", FAMILIES)
def test_malformed_schedule_files_get_exit_1_or_2_never_a_traceback(valid_files, tmp_path, family):
    _fuzz_schedules(valid_files, tmp_path, family, _DEFAULT_FILES)


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_malformed_files_larger_budget(valid_files, tmp_path, family):
    _fuzz_instances(valid_files, tmp_path, family, _SLOW_FILES)
    _fuzz_schedules(valid_files, tmp_path, family, _SLOW_FILES)


@pytest.mark.parametrize("levels", [1000, 100000])
def test_deeply_nested_files_are_one_clear_line(valid_files, tmp_path, levels):
    inst_path = valid_files["packing"][0]
    deep = tmp_path / "deep.json"
    deep.write_text(_deep(levels))
    for argv in (["solve", str(deep), "-a", "fifo"], ["verify", str(inst_path), str(deep)]):
        code, _, err = _run(argv)
        _check_answer(code, err, {2}, argv, deep.read_bytes())


def test_a_folder_or_a_missing_file_is_one_clear_line(valid_files, tmp_path):
    inst_path = valid_files["packing"][0]
    for argv in (["solve", str(tmp_path), "-a", "fifo"], ["verify", str(inst_path), str(tmp_path)],
                 ["verify", str(inst_path), str(tmp_path / "missing.json")],
                 ["verify", str(tmp_path / "missing.json"), str(inst_path)]):
        code, _, err = _run(argv)
        _check_answer(code, err, {2}, argv, b"")


@pytest.mark.parametrize("argv", [
    ["solve", "{inst}", "-a", "online:online:fifo"],
    ["solve", "{inst}", "-a", "online:"],
    ["solve", "{inst}", "-a", "fifo", "-p", "nope=1"],
    ["solve", "{inst}", "-a", "synchpack1", "-p", "eps=abc"],
    ["solve", "{inst}", "-a", "fifo", "--solver", "nope"],
    ["generate", "mapreduce", "-p", "slots=1000000000", "-o", "{tmp}/m.json"],
    ["generate", "packing", "-p", "n_jobs=-3", "-o", "{tmp}/p.json"],
    ["generate", "packing", "-p", "n_jobs=abc", "-o", "{tmp}/p.json"],
])
def test_bad_arguments_are_one_clear_line(valid_files, tmp_path, argv):
    argv = [a.format(inst=valid_files["packing"][0], tmp=tmp_path) for a in argv]
    code, _, err = _run(argv)
    _check_answer(code, err, {2}, argv, b"")


def test_the_guard_catches_a_hang(monkeypatch):
    # The time guard above must be able to fail a test: a command that sleeps past it is caught.
    import schedrelax.cli as cli

    monkeypatch.setattr(cli, "_COMMANDS", {**cli._COMMANDS, "list": lambda args: __import__("time").sleep(60)})
    monkeypatch.setattr(sys.modules[__name__], "GUARD_SECONDS", 1)
    with pytest.raises(pytest.fail.Exception, match="still running"):
        _run(["list"])
