"""A griffe extension: the reST markup in schedrelax's prose docstrings, made Markdown.

The docstrings are read in the terminal and by ``help()`` as well as on the site, so they keep
their Sphinx roles and reST tables; this turns them into Markdown as the API reference is built:

* ``:func:`name``` (and ``:class:``, ``:meth:``, ``:mod:``, ``:data:``, ``:attr:``, ``:exc:``,
  ``:obj:``; ``~`` shows the last component) becomes a link when *name* resolves, from the
  docstring's own scope outwards, to a documented public object of the package; otherwise
  (a private helper, a name outside the package) it is shown as code. A link that then fails to
  resolve in the site fails the strict build;
* a reST simple table (rows between ``=====  ====`` rules) becomes a preformatted block;
* a paragraph ending in ``::`` (a reST literal block follows) ends in ``:``;
* ``][`` outside code is escaped: ``*duration[t][i]*`` is an index, not a Markdown reference link.
"""

from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|data|attr|exc|obj):`(?P<tilde>~?)(?P<target>[^`]+?)(?:\(\))?`")
RULE = re.compile(r"^\s*=+( +=+)+\s*$")
CODE = re.compile(r"(``.+?``|`[^`\n]+`)", re.S)


def _escape_indexing(text: str) -> str:
    """``a[i][j]`` outside code spans with the second bracket escaped, so Markdown leaves it alone."""
    parts = CODE.split(text)
    parts[::2] = [p.replace("][", "]\\[") for p in parts[::2]]
    return "".join(parts)


def _public(obj: griffe.Object) -> bool:
    """Whether every component of *obj*'s path is public and it is rendered (documented or a module)."""
    if any(part.startswith("_") for part in obj.path.split(".")):
        return False
    return obj.is_module or bool(obj.docstring and obj.docstring.value.strip())


def _resolve(scope: griffe.Object, target: str, collection) -> griffe.Object | None:
    """The object *target* names, seen from *scope*: its members, its parents' members, then absolute."""
    candidates = []
    node = scope
    while node is not None:
        candidates.append(f"{node.path}.{target}")
        node = node.parent
    candidates.append(target)
    for path in candidates:
        try:
            obj = collection[path]
        except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            continue
        try:
            return obj.final_target if obj.is_alias else obj
        except (griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None
    return None


def _tables(text: str) -> str:
    """reST simple tables (three ``====`` rules) fenced as preformatted text."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        if RULE.match(lines[i]):
            rules = [j for j in range(i, len(lines)) if RULE.match(lines[j])][:3]
            if len(rules) == 3:
                out += ["```text", *lines[i:rules[2] + 1], "```"]
                i = rules[2] + 1
                continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


class SphinxMarkup(griffe.Extension):
    """Rewrite every docstring of the package once it is loaded (see the module docstring)."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs) -> None:
        collection = loader.modules_collection
        stack: list[griffe.Object] = [pkg]
        while stack:
            obj = stack.pop()
            stack.extend(m for m in obj.members.values() if not m.is_alias)
            if obj.docstring is None:
                continue
            scope = obj if (obj.is_module or obj.is_class) else obj.parent

            def link(m: re.Match, scope=scope) -> str:
                target = re.sub(r"\s+", "", m.group("target"))  # a role may wrap at a dot
                shown = target.rsplit(".", 1)[-1] if m.group("tilde") else target
                found = _resolve(scope, target, collection)
                if found is not None and found.path.startswith(pkg.path + ".") and _public(found):
                    return f"[`{shown}`][{found.path}]"
                return f"`{shown}`"

            text = ROLE.sub(link, _escape_indexing(obj.docstring.value))
            text = re.sub(r"(\S) ?::\n", r"\1:\n", text)
            obj.docstring.value = _tables(text)
