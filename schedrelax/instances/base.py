"""What every instance family shares: the JSON envelope, saving, and the family registry."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from schedrelax._files import read_json
from schedrelax.errors import InstanceError

SCHEMA_VERSION = 1
"""The instance file format this version of schedrelax reads and writes."""

MAX_DEPTH = 32
"""Deepest nesting of lists and objects an instance document may have. The deepest real field is
a few levels down (document, flows, flow, edges, edge); far deeper nesting is malformed, and
refusing it up front keeps Python's recursion limit out of every later step."""

FAMILIES: dict[str, type[Instance]] = {}
"""Family name -> instance class, filled by each family module as it is imported."""


class Instance:
    """Base of the four frozen instance dataclasses.

    Subclasses set ``family`` and implement ``_body()`` (the JSON fields besides the envelope)
    and ``_from_body(data)``; validation happens in their ``__post_init__``.
    """

    family: ClassVar[str] = ""
    name: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.family:
            FAMILIES[cls.family] = cls
        # Set before @dataclass runs on the subclass, which then keeps it: the short summary,
        # not the field-by-field dump of every array.
        if "__repr__" not in cls.__dict__:
            cls.__repr__ = Instance.__repr__

    def _summary(self) -> list[tuple[str, str]]:
        rows = [("family", self.family)]
        if self.name:
            rows.append(("name", self.name))
        for attr, label in (("n_flows", "flows"), ("n_jobs", "jobs"), ("n_tasks", "tasks"),
                            ("n_machines", "machines"), ("machines", "machines"), ("processors", "processors"),
                            ("objective", "objective")):
            value = getattr(self, attr, None)
            if value is not None and not callable(value):
                rows.append((label, str(value)))
        return rows

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}: {v}' for k, v in self._summary()[1:])})"

    def _repr_html_(self) -> str:
        from schedrelax._display import html_table

        return html_table(type(self).__name__, self._summary())

    def _body(self) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def _from_body(cls, data: Mapping[str, Any], name: str) -> Instance:
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        """The instance as a JSON-ready dict, with ``family`` and ``schema_version`` first."""
        out: dict[str, Any] = {"family": self.family, "schema_version": SCHEMA_VERSION}
        if self.name:
            out["name"] = self.name
        out.update(self._body())
        return out

    def save(self, path: str | Path) -> Path:
        """Write the instance as JSON to *path* and return the path."""
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), indent=1) + "\n")
        return path


def _check_depth(data: Any, source: str) -> None:
    """InstanceError if lists and objects in *data* nest deeper than :data:`MAX_DEPTH`.

    Walks with an explicit stack, so it works however deep the document is; the path to the
    offending value is built only when there is one.
    """
    stack: list[tuple[Any, int, Any]] = [(data, 0, None)]  # (node, depth, (parent entry, key))
    while stack:
        entry = stack.pop()
        node, depth, _ = entry
        if isinstance(node, Mapping):
            items = node.items()
        elif isinstance(node, (list, tuple)):
            items = enumerate(node)
        else:
            continue
        if depth >= MAX_DEPTH:
            keys = []
            while entry[2] is not None:
                entry, key = entry[2]
                keys.append(f".{key}" if isinstance(key, str) else f"[{key}]")
            at = "".join(reversed(keys)).lstrip(".")
            raise InstanceError(f"{source}: the document is nested too deeply: more than {MAX_DEPTH} levels of "
                                f"lists and objects at {at}")
        stack.extend((v, depth + 1, (entry, k)) for k, v in items if isinstance(v, (Mapping, list, tuple)))


def from_dict(data: Any, source: str = "instance") -> Instance:
    """Build the instance a JSON-ready dict describes; the ``family`` field picks the class."""
    if not isinstance(data, Mapping):
        raise InstanceError(f"{source}: expected a JSON object at the top level, got {type(data).__name__}")
    _check_depth(data, source)
    family = data.get("family")
    if family is None:
        raise InstanceError(f"{source}: missing required field 'family' (one of {', '.join(sorted(FAMILIES))})")
    if not isinstance(family, str) or family not in FAMILIES:
        raise InstanceError(f"{source}: family must be one of {', '.join(sorted(FAMILIES))}, got {family!r}")
    version = data.get("schema_version")
    if version is None:
        raise InstanceError(f"{source}: missing required field 'schema_version'")
    if isinstance(version, bool) or not isinstance(version, int) or version != SCHEMA_VERSION:
        raise InstanceError(
            f"{source}: unsupported schema_version {version!r}; this schedrelax reads version {SCHEMA_VERSION}"
        )
    name = data.get("name", "")
    if not isinstance(name, str):
        raise InstanceError(f"{source}: name must be a string, got {name!r}")
    body = {k: v for k, v in data.items() if k not in ("family", "schema_version", "name")}
    return FAMILIES[family]._from_body(body, name)


def load(path: str | Path) -> Instance:
    """Read an instance file; returns the instance of the family the file names.

    Raises :class:`InstanceError` for a missing file, a file that is not JSON, an unknown family or
    schema version, unknown fields and every rule of the family.
    """
    path = Path(path)
    data = read_json(path, "instance", InstanceError, max_depth=MAX_DEPTH)
    try:
        return from_dict(data, source=str(path))
    except InstanceError as exc:
        msg = str(exc)
        raise InstanceError(msg if msg.startswith(str(path)) else f"{path}: {msg}") from None
