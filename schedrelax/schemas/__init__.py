"""JSON Schemas (draft 2020-12) of the files schedrelax reads and writes: one per instance family
(``malleable``, ``mapreduce``, ``packing``, ``related``) and one for schedule files (``schedule``).

The schemas are package data, ``<name>.schema.json`` beside this module; ``schedrelax schema
NAME`` prints one. They are for other tools (editors, other languages, pipelines that check files
before handing them over): schedrelax's own loaders do not use them, and schedrelax does not
depend on a JSON Schema library. The loaders check everything a schema says and more — rules
across fields, such as a flow's ``max_processors`` at most ``processors`` or a DAG without
cycles, which each schema's ``description`` lists — so every file a loader accepts validates
against its schema, while a file that validates may still be refused by the loader, which then
says why.
"""

from __future__ import annotations

import importlib.resources
import json
from typing import Any

from schedrelax._files import unique_keys

__all__ = ["names", "schema"]

_NAMES = ("malleable", "mapreduce", "packing", "related", "schedule")


def names() -> tuple[str, ...]:
    """The names of the bundled schemas: the four instance families, then ``"schedule"``."""
    return _NAMES


def schema(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the files *name* names, as a new dict.

    *name* is an instance family or ``"schedule"`` (see :func:`names`); any other name raises
    ValueError naming it and the valid names.
    """
    if name not in _NAMES:
        raise ValueError(f"unknown schema {name!r}; choose one of: {', '.join(_NAMES)}")
    resource = importlib.resources.files(__name__) / f"{name}.schema.json"
    return json.loads(resource.read_text(encoding="utf-8"), object_pairs_hook=unique_keys)
