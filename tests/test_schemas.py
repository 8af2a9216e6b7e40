"""The JSON Schemas of ``schedrelax.schemas`` (issue 16) against the files schedrelax reads and writes.

Every file schedrelax writes validates: the bundled examples, generated instances of every paper
setup, instances drawn by the fuzz strategies, schedules of every algorithm of every family. The
schemas and the loaders agree: one edit to a valid file (a key dropped, an unknown key added, a
value replaced by one of another type or out of range) that the loader accepts, the schema accepts
too, and a key dropped or added is accepted by both or by neither. The schemas cannot drift from
the savers: the keys a schema declares are exactly the keys the saver writes.
"""

from __future__ import annotations

import copy
import dataclasses
import fnmatch
import json
import math
import subprocess
import sys
import tomllib
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings

from schedrelax import algorithms, schemas
from schedrelax.cli import main
from schedrelax.errors import InstanceError, ScheduleError
from schedrelax.instances import (
    FAMILIES,
    Flow,
    MalleableInstance,
    MapReduceInstance,
    MapReduceJob,
    PackingInstance,
    PackingJob,
    PackingTask,
    RelatedInstance,
    RelatedJob,
    costs,
    from_dict,
)
from schedrelax.instances.generate import (
    EXAMPLES,
    FLEX_COSTS,
    FLOWFLEX_COSTS,
    SETUPS,
    WORKLOADS,
    example,
)
from schedrelax.instances.packing import Reservation
from schedrelax.schedules import PROMISES, Schedule
from tests.strategies import fuzz_instances

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_DIR = ROOT / "schedrelax" / "schemas"
DATA_DIR = ROOT / "schedrelax" / "instances" / "data"
NAMES = ("malleable", "mapreduce", "packing", "related", "schedule")
WHOLE_MAX = 2**53


def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schemas.schema(name))


def _errors(name: str, doc) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in _validator(name).iter_errors(doc)]


def _assert_valid(name: str, doc) -> None:
    errors = _errors(name, doc)
    assert not errors, f"{name} schema rejects a file schedrelax wrote: {errors[:3]}"


def _as_read(doc):
    """*doc* as the loader would read it back from its file (lists, not tuples; NaN kept)."""
    return json.loads(json.dumps(doc))


def _loads(kind: str, doc) -> bool:
    """Whether schedrelax's loader accepts *doc*; a rejection must be the loader's typed error."""
    try:
        if kind == "schedule":
            Schedule.from_dict(doc)
        else:
            from_dict(doc)
    except (InstanceError, ScheduleError):
        return False
    return True


# ------------------------------------------------------------------------------ the schemas themselves

def test_names_are_the_four_families_and_the_schedule_file():
    assert schemas.names() == NAMES
    assert set(schemas.names()[:4]) == set(FAMILIES)


@pytest.mark.parametrize("name", NAMES)
def test_each_schema_is_a_valid_draft_2020_12_schema_with_id_and_title(name):
    s = schemas.schema(name)
    jsonschema.Draft202012Validator.check_schema(s)
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert s["$id"] == f"urn:schedrelax:schema:{name}:1"
    assert name in s["title"] and s["description"]
    assert s["type"] == "object" and s["additionalProperties"] is False


def _property_schemas(node, where="#"):
    """(location, schema) of every property declared anywhere in *node*."""
    if isinstance(node, dict):
        for key, sub in node.get("properties", {}).items():
            yield f"{where}/properties/{key}", sub
        for key, sub in node.items():
            yield from _property_schemas(sub, f"{where}/{key}")
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            yield from _property_schemas(sub, f"{where}/{i}")


def _target(ref: str, root: dict) -> dict:
    assert ref.startswith("#/"), f"only local references, got {ref}"
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


@pytest.mark.parametrize("name", NAMES)
def test_every_property_has_a_description(name):
    root = schemas.schema(name)
    found = list(_property_schemas(root))
    assert len(found) >= 8
    for where, sub in found:
        text = sub.get("description") or ("$ref" in sub and _target(sub["$ref"], root).get("description"))
        assert text and len(text) > 5, f"{name}: {where} has no description"


def test_ids_are_distinct():
    assert len({schemas.schema(n)["$id"] for n in NAMES}) == len(NAMES)


def test_schema_returns_a_new_dict_each_time():
    s = schemas.schema("packing")
    s["properties"].clear()
    assert schemas.schema("packing")["properties"]


@pytest.mark.parametrize("bad", ["nope", "Packing", "", "packing.schema.json"])
def test_an_unknown_schema_name_is_a_value_error_naming_it_and_the_names(bad):
    with pytest.raises(ValueError, match=f"unknown schema {bad!r}; choose one of: malleable, mapreduce, packing, "
                       "related, schedule"):
        schemas.schema(bad)


def test_the_schema_files_are_the_package_data_pyproject_ships():
    files = sorted(p.name for p in SCHEMA_DIR.glob("*.json"))
    assert files == sorted(f"{n}.schema.json" for n in NAMES)
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    shipped = patterns.get("schedrelax.schemas", [])
    for f in files:
        assert any(fnmatch.fnmatch(f, p) for p in shipped), f"pyproject.toml does not ship schedrelax/schemas/{f}"


def test_the_runtime_package_does_not_import_jsonschema():
    # jsonschema is a test dependency only: reading a schema must not need it.
    code = ("import sys; import schedrelax.schemas as s; import schedrelax.cli; [s.schema(n) for n in s.names()]; "
            "print('jsonschema' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"


def test_the_enumerations_are_the_codes_constants():
    mall = schemas.schema("malleable")
    assert set(mall["properties"]["objective"]["enum"]) == set(costs.OBJECTIVES)
    assert set(mall["$defs"]["cost"]["properties"]["kind"]["enum"]) == set(costs.COST_KINDS)
    branches = [b["properties"]["kind"]["const"] for b in mall["$defs"]["cost"]["oneOf"]]
    assert sorted(branches) == sorted(costs.COST_KINDS)
    assert set(schemas.schema("schedule")["properties"]["promises"]["items"]["enum"]) == set(PROMISES)


# ------------------------------------------------------------------------------------ the command

def test_cli_prints_the_schema_as_json(capsys):
    assert main(["schema", "related"]) == 0
    assert json.loads(capsys.readouterr().out) == schemas.schema("related")


def test_cli_writes_the_schema_to_out(tmp_path, capsys):
    out = tmp_path / "schedule.schema.json"
    assert main(["schema", "schedule", "--out", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8")) == schemas.schema("schedule")
    assert str(out) in capsys.readouterr().out


def test_cli_without_a_name_lists_the_names(capsys):
    assert main(["schema"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(NAMES)


def test_cli_with_an_unknown_name_is_exit_2_and_one_line_naming_it_and_the_names(capsys):
    assert main(["schema", "malleabel"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert "'malleabel'" in lines[0] and "malleable, mapreduce, packing, related, schedule" in lines[0]


# ------------------------------------------------------------------------- every file schedrelax writes

@pytest.mark.parametrize("path", sorted(DATA_DIR.glob("*.json")), ids=lambda p: p.name)
def test_bundled_instances_validate(path):
    doc = json.loads(path.read_text())
    from_dict(doc)  # a valid instance, or this test proves nothing
    _assert_valid(doc["family"], doc)


def test_every_example_is_bundled():
    assert sorted(p.name for p in DATA_DIR.glob("*.json")) == sorted(e.file for e in EXAMPLES.values())


def _generated():
    """(label, setup name, seed, params): every setup at its small size over a few seeds, and the
    options that change what the files hold (every cost kind, objective, workload, weighting,
    online arrivals)."""
    cases = [(f"{name}-seed{seed}", name, seed, {}) for name in SETUPS for seed in (0, 1, 2)]
    cases += [(f"flowflex-{c}-{o}", "flowflex", 3, {"cost": c, "objective": o})
              for c in FLOWFLEX_COSTS for o in costs.OBJECTIVES]
    cases += [(f"flex-{c}", "flex", 3, {"cost": c}) for c in FLEX_COSTS]
    cases += [(f"asrpt-{w}", "asrpt", 3, {"workload": w}) for w in WORKLOADS]
    cases += [(f"synchpack-{w}-online{o}", "synchpack", 3, {"weights": w, "online": o})
              for w in ("equal", "random", "priority") for o in (False, True)]
    cases += [("synchpack-local-only", "synchpack", 3, {"alpha": None, "local_machines": 1}),
              ("spc-online", "spc", 3, {"online": True})]
    return cases


@pytest.mark.parametrize("label, setup, seed, params", _generated(), ids=[c[0] for c in _generated()])
def test_generated_instances_validate(tmp_path, label, setup, seed, params):
    inst = SETUPS[setup].make(seed, **params)
    doc = json.loads(inst.save(tmp_path / f"{label}.json").read_text())
    _assert_valid(inst.family, doc)


def _json_files_under_tests():
    return sorted(p for p in (ROOT / "tests").rglob("*.json"))


@pytest.mark.parametrize("path", _json_files_under_tests(), ids=lambda p: str(p.relative_to(ROOT)))
def test_instance_and_schedule_files_under_tests_validate(path):
    doc = json.loads(path.read_text())
    kind = doc.get("family") if "family" in doc else "schedule"
    assert _loads(kind, doc), f"{path} is not a valid file; a test data file should be"
    _assert_valid(kind, doc)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(inst=fuzz_instances())
def test_saved_hypothesis_instances_validate(tmp_path_factory, inst):
    path = inst.save(tmp_path_factory.mktemp("fuzz") / "i.json")
    _assert_valid(inst.family, json.loads(path.read_text()))


@pytest.mark.parametrize("family", sorted(EXAMPLES))
def test_schedules_of_every_algorithm_validate(tmp_path, family):
    inst = example(family)
    specs = algorithms.available(family)
    assert len(specs) >= 5
    for spec in specs:
        sched = algorithms.run(spec.name, inst, seed=0).schedule
        doc = json.loads(sched.save(tmp_path / f"{spec.name}.json").read_text())
        assert doc["schema_version"] == 1
        _assert_valid("schedule", doc)


@pytest.mark.parametrize("family", sorted(EXAMPLES))
def test_the_schedule_solve_writes_validates(tmp_path, family, capsys):
    inst_path, out = tmp_path / "i.json", tmp_path / "s.json"
    example(family).save(inst_path)
    assert main(["solve", str(inst_path), "-a", "fifo", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["meta"]["algorithm"] == "fifo"
    _assert_valid("schedule", doc)


# ------------------------------------------------------------------------- rejected by both

def _full_instances():
    """One instance per family with every optional field the saver can write set: each cost
    kind, minima, edges, releases, reservations, ready times, a name."""
    c = costs
    malleable = MalleableInstance(processors=4, objective="minimax", name="full", flows=(
        Flow(sizes=[2.0, 1.0], max_processors=[2, 1], min_processors=[1, 0], edges=[(0, 1)], release=1.5,
             cost=c.completion(2.0)),
        Flow(sizes=[1.0], max_processors=[1], cost=c.stretch(1.0)),
        Flow(sizes=[1.0], max_processors=[1], cost=c.tardy(3.0, 2.0)),
        Flow(sizes=[1.0], max_processors=[1], cost=c.tardiness(3.0)),
        Flow(sizes=[1.0], max_processors=[1], cost=c.lateness(3.0)),
        Flow(sizes=[1.0], max_processors=[1], cost=c.sla([1.0, 2.0], [1.0, 0.5])),
        Flow(sizes=[1.0], max_processors=[1], cost=c.power(2.0)),
    ))
    mapreduce = MapReduceInstance(machines=2, name="full", jobs=(
        MapReduceJob(arrival=0, map_tasks=2, reduce_tasks=[1, 3]), MapReduceJob(arrival=1, map_tasks=1)))
    packing = PackingInstance(capacities=[1.0, 0.5], name="full", reservations=[Reservation(0, 0.25, 2.0)], jobs=(
        PackingJob(tasks=[PackingTask(0.5, [0, 1], [2.0, 3.0]), PackingTask(0.25, [1], 1.0, elsewhere_time=2.0)], weight=2.0,
                   release=1.0),
        PackingJob(tasks=[PackingTask(1.0, [0], 1.0)]),
    ))
    related = RelatedInstance(speeds=[1.0, 2.0], name="full", edges=[(0, 1)], ready=[0.0, 1.5], jobs=(
        RelatedJob(tasks=[1.0, 2.0], weight=0.0, release=0.5), RelatedJob(tasks=[3.0])))
    return {i.family: i for i in (malleable, mapreduce, packing, related)}


FULL = _full_instances()


def _full_schedule_doc() -> dict:
    sched = Schedule.from_pieces([(0, 0, 0, 0.0, 1.0, 1.0), (1, -1, -1, 1.0, 2.5, 2.0)],
                                 promises=["non_preemptive"], meta={"algorithm": "hand", "nested": {"k": [1]}})
    return _as_read(sched.to_dict())


def _doc(kind: str) -> dict:
    return _full_schedule_doc() if kind == "schedule" else _as_read(FULL[kind].to_dict())


@pytest.mark.parametrize("kind", NAMES)
def test_the_full_documents_are_valid_for_both(kind):
    doc = _doc(kind)
    assert _loads(kind, doc)
    _assert_valid(kind, doc)


# An unknown field at the top and in a nested object, a wrong type at the top and nested.
_REJECTED = [
    ("malleable", ["colour"], "red"), ("malleable", ["flows", 0, "colour"], 1),
    ("malleable", ["flows", 5, "cost", "colour"], 1), ("malleable", ["processors"], "4"),
    ("malleable", ["flows", 0, "sizes"], "2.0"), ("malleable", ["flows", 0, "max_processors", 0], 1.5),
    ("malleable", ["flows", 2, "cost", "weight"], "2"), ("malleable", ["objective"], "sum"),
    ("mapreduce", ["colour"], 1), ("mapreduce", ["jobs", 0, "colour"], 1), ("mapreduce", ["machines"], True),
    ("mapreduce", ["jobs", 0, "arrival"], "0"), ("mapreduce", ["jobs", 0, "reduce_tasks"], 3),
    ("packing", ["colour"], 1), ("packing", ["jobs", 0, "tasks", 0, "colour"], 1),
    ("packing", ["reservations", 0, "colour"], 1), ("packing", ["capacities"], {"0": 1.0}),
    ("packing", ["jobs", 0, "tasks", 0, "placement"], 0), ("packing", ["jobs", 0, "weight"], None),
    ("related", ["colour"], 1), ("related", ["jobs", 1, "colour"], 1), ("related", ["speeds", 0], "1"),
    ("related", ["edges"], [[0, "1"]]), ("related", ["ready"], 0.0),
    ("schedule", ["colour"], 1), ("schedule", ["start"], 0.0), ("schedule", ["job", 0], "0"),
    ("schedule", ["promises", 0], "fast"), ("schedule", ["meta"], []), ("schedule", ["schema_version"], 2),
    ("schedule", ["schema_version"], "1"), ("schedule", ["task", 0], -2),
]


def _set(doc, path, value):
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


@pytest.mark.parametrize("kind, path, value", _REJECTED, ids=lambda v: str(v))
def test_an_unknown_field_or_a_wrong_type_is_rejected_by_the_schema_and_the_loader(kind, path, value):
    doc = _set(_doc(kind), path, value)
    assert _errors(kind, doc), "the schema accepts it"
    assert not _loads(kind, doc), "the loader accepts it"


def test_a_schema_version_that_is_not_1_is_rejected_by_both():
    for kind in NAMES:
        for version in (2, 0, "1", None, True):
            doc = _set(_doc(kind), ["schema_version"], version)
            assert _errors(kind, doc) and not _loads(kind, doc), (kind, version)


# ------------------------------------------------------------------ the schemas agree with the loaders

def _locations(doc, path=()):
    """Every (path, value) in a JSON tree below the root."""
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for key, value in items:
        yield path + (key,), value
        yield from _locations(value, path + (key,))


_VALUES = [None, True, False, "1", "", [], [1.0], [[0, 1]], {"a": 1}, -1, 0, 1, 1.0, 2, -0.5, 0.5, 2.5,
           WHOLE_MAX, WHOLE_MAX + 1, 1e300, 10**30, math.nan, math.inf]
"""Replacement values: every JSON type, the boundaries the loaders check, whole-number floats."""

def _edits(doc):
    """(op, path, value, edited copy) for each key dropped (``drop``), an unknown key added to
    each object (``add``) and each value replaced by each of ``_VALUES`` and ``{}`` (``replace``)."""
    yield "add", (), "extra", {**copy.deepcopy(doc), "extra": 1}
    for path, value in _locations(doc):
        if path[0] == "meta" and len(path) > 1:
            continue  # free-form notes, no format to agree on
        if isinstance(path[-1], str):
            edited = copy.deepcopy(doc)
            node = edited
            for key in path[:-1]:
                node = node[key]
            del node[path[-1]]
            yield "drop", path, None, edited
        if isinstance(value, dict) and path != ("meta",):
            yield "add", path, "extra", _set(copy.deepcopy(doc), [*path, "extra"], 1)
        for v in [*_VALUES, {}]:
            yield "replace", path, v, _set(copy.deepcopy(doc), list(path), v)


@pytest.mark.parametrize("kind", NAMES)
def test_one_edit_the_loader_accepts_the_schema_accepts(kind):
    validator = _validator(kind)
    verdicts = []
    for op, path, value, doc in _edits(_doc(kind)):
        accepted = _loads(kind, doc)
        verdicts.append(accepted)
        if not accepted:
            continue
        errors = list(validator.iter_errors(doc))
        assert not errors, f"{kind}: the loader accepts {op} {path} {value!r} but the schema says {errors[0].message}"
    assert verdicts.count(True) >= 10 and verdicts.count(False) >= 50  # the edits reach both verdicts


@pytest.mark.parametrize("kind", NAMES)
def test_dropping_or_adding_a_key_gets_the_same_verdict_from_both(kind):
    validator = _validator(kind)
    for op, path, _, doc in _edits(_doc(kind)):
        if op in ("drop", "add"):
            assert validator.is_valid(doc) == _loads(kind, doc), f"{kind}: {op} {path}"


@pytest.mark.parametrize("family", ["malleable", "related"])
def test_the_loader_refuses_an_empty_object_as_edges(family):
    # found by the agreement test: check_edges took anything of length 0 as no edges
    doc = _doc(family)
    target = doc["flows"][0] if family == "malleable" else doc
    target["edges"] = {}
    assert not _loads(family, doc)


@pytest.mark.parametrize("kind, path", [("malleable", ["processors"]), ("mapreduce", ["jobs", 0, "arrival"]),
                                        ("schedule", ["job", 0])])
def test_the_loader_refuses_2_to_the_53_plus_1(kind, path):
    # found by the agreement test: the loaders converted to float first (2^53 + 1 became 2^53)
    assert not _loads(kind, _set(_doc(kind), path, WHOLE_MAX + 1))


# --------------------------------------------------------------- the schemas cannot drift from the savers

def _branches(node: dict, root: dict) -> list[dict]:
    """*node* and every subschema that applies at the same place ($ref targets, *Of branches)."""
    out = [node]
    if "$ref" in node:
        out += _branches(_target(node["$ref"], root), root)
    for key in ("oneOf", "anyOf", "allOf"):
        for branch in node.get(key, []):
            out += _branches(branch, root)
    return out


def _declared(node: dict, root: dict, path: tuple = ()) -> set[tuple]:
    """The key paths the schema declares (list entries as ``*``)."""
    out = set()
    for n in _branches(node, root):
        for key, sub in n.get("properties", {}).items():
            out.add(path + (key,))
            out |= _declared(sub, root, path + (key,))
        if isinstance(n.get("items"), dict):
            out |= _declared(n["items"], root, path + ("*",))
    return out


def _written(doc, path: tuple = ()) -> set[tuple]:
    """The key paths present in a document (list entries as ``*``); ``meta``'s free-form keys left out."""
    out = set()
    if isinstance(doc, dict):
        for key, value in doc.items():
            out.add(path + (key,))
            if path + (key,) != ("meta",):
                out |= _written(value, path + (key,))
    elif isinstance(doc, list):
        for value in doc:
            out |= _written(value, path + ("*",))
    return out


@pytest.mark.parametrize("kind", NAMES)
def test_the_schemas_keys_are_exactly_the_keys_the_saver_writes(kind):
    s = schemas.schema(kind)
    written = _written(_doc(kind))
    assert _declared(s, s) == written
    assert len(written) >= 8


@pytest.mark.parametrize("kind", sorted(costs.COST_KINDS))
def test_each_cost_branch_declares_exactly_the_keys_its_to_dict_writes(kind):
    (flow,) = [f for f in FULL["malleable"].flows if f.cost.kind == kind]
    mall = schemas.schema("malleable")
    (branch,) = [b for b in mall["$defs"]["cost"]["oneOf"] if b["properties"]["kind"]["const"] == kind]
    assert set(branch["properties"]) == set(flow.cost.to_dict())
    # cost_from_dict's rule: a parameter without a default is required.
    required = {f.name for f in dataclasses.fields(flow.cost) if f.default is dataclasses.MISSING}
    assert set(branch.get("required", [])) == required
