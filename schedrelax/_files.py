"""Reading the package's JSON files (instances and schedules) with one clear error per failure.

Every way a file can fail to become a JSON document — missing, a folder, unreadable or not UTF-8,
not JSON, a key repeated in one object, nested deeper than Python's reader recurses, an integer
literal beyond its digit limit — raises the caller's error type with a message that starts with
the path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class DuplicateKeyError(ValueError):
    """A JSON object names the same key twice (Python's reader would keep the last silently)."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for :func:`json.loads`: the object as a dict, or
    :class:`DuplicateKeyError` naming the first repeated key."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKeyError(key)
        out[key] = value
    return out


def read_json(path: Path, kind: str, error: type[Exception], max_depth: int) -> Any:
    """The JSON document in *path*, a file of *kind* (``"instance"``, ``"schedule"``), or *error*
    naming the path and what is wrong; *max_depth* is the deepest nesting such a file needs (for
    the message when the reader gives up)."""
    try:
        text = path.read_text()
    except FileNotFoundError as exc:
        raise error(f"{path}: no such {kind} file") from exc
    except IsADirectoryError as exc:
        raise error(f"{path}: is a directory, not {_a(kind)} file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot read the {kind} file ({exc})") from exc
    try:
        return json.loads(text, object_pairs_hook=unique_keys)
    except DuplicateKeyError as exc:
        raise error(f"{path}: the key {exc.args[0][:80]!r} appears twice in one JSON object; each key may appear "
                    f"once (which one was meant is unknown)") from None
    except json.JSONDecodeError as exc:
        # Some of the reader's messages end in "at" ("Unterminated string starting at"): one "at" only.
        where = "" if exc.msg.endswith(" at") else " at"
        raise error(f"{path}: not a JSON file ({exc.msg}{where} line {exc.lineno}, column {exc.colno})") from exc
    except RecursionError:
        # Python's JSON reader recurses once per level of nesting.
        raise error(f"{path}: the document is nested too deeply for the JSON reader ({_a(kind)} file needs at "
                    f"most {max_depth} levels)") from None
    except ValueError as exc:
        # Python's JSON reader refuses integers of more than 4300 digits with a plain ValueError.
        raise error(f"{path}: not a usable JSON file ({exc})") from None


def _a(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word
