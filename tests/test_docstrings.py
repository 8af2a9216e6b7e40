"""Every public function and class of ``schedrelax.models``, ``schedrelax.rounding`` and
``schedrelax.schedulers`` has a docstring, and every module there names the paper it implements.

Public: no leading underscore, defined in that module (not imported into it); a class's public
methods count too (a docstring inherited from a base class is enough), its properties do not. A module names its paper
by number (``paper 003``, ``papers 000 and 002``, as README.md numbers them) or by name (``FlowFlex``, ``S-PC``).

Nothing in the package cites what a user does not have: the papers' text files of the project's
workspace (``papers/004_....txt``) or its issue tracker (``issue 17``). A paper is cited by name and
section, e.g. ``FlowFlex (paper 000, Nagarajan et al. 2019) §2.3.1``.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import schedrelax
import schedrelax.models
import schedrelax.rounding
import schedrelax.schedulers

PACKAGES = (schedrelax.models, schedrelax.rounding, schedrelax.schedulers)
NAMES_A_PAPER = re.compile(r"\b[Pp]apers? \(?00\d\b|\b(?:FlowFlex|ASRPT|FLEX|SynchPack|S-PC)\b")
CITES_THE_WORKSPACE = re.compile(r"papers/00\d_[0-9a-f]+\.txt|\b00\d_[0-9a-f]{16}\.txt|\b[Ii]ssues? #?\d+")


def _modules() -> list[str]:
    return sorted(f"{pkg.__name__}.{info.name}" for pkg in PACKAGES for info in pkgutil.iter_modules(pkg.__path__))


def _public(module) -> list[tuple[str, object]]:
    """(qualified name, object) of every public function, class and class method defined in *module*."""
    out = []
    for name, obj in sorted(vars(module).items()):
        if name.startswith("_") or not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        if getattr(obj, "__module__", None) != module.__name__:
            continue
        out.append((name, obj))
        if inspect.isclass(obj):
            for attr, member in sorted(vars(obj).items()):
                if attr.startswith("_"):
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if inspect.isfunction(member):
                    out.append((f"{name}.{attr}", getattr(obj, attr)))
    return out


def test_the_walk_finds_the_modules():
    modules = _modules()
    for expected in ("schedrelax.models.synchpack_lp", "schedrelax.rounding.flowflex",
                     "schedrelax.schedulers.greedy_deadline"):
        assert expected in modules


@pytest.mark.parametrize("module_name", _modules())
def test_every_public_function_and_class_has_a_docstring(module_name):
    module = importlib.import_module(module_name)
    missing = [name for name, obj in _public(module) if not (inspect.getdoc(obj) or "").strip()]
    assert not missing, f"{module_name}: no docstring on {', '.join(missing)}"


@pytest.mark.parametrize("module_name", _modules())
def test_module_docstring_names_its_paper(module_name):
    doc = inspect.getdoc(importlib.import_module(module_name)) or ""
    assert NAMES_A_PAPER.search(doc), (f"{module_name}: the module docstring names no paper "
                                       "(e.g. 'paper 003 §4.2' or 'SynchPack')")


def test_the_checks_catch_a_missing_docstring_and_paper():
    import types

    fake = types.ModuleType("schedrelax.fake", "Greedy packing, no paper named.")

    def documented():
        """Paper 003 §3.2."""

    def bare():
        pass

    class Thing:
        """A class."""

        def method(self):
            pass

    for obj in (documented, bare, Thing):
        obj.__module__ = fake.__name__
        setattr(fake, obj.__name__, obj)
    fake._private = bare
    names = [name for name, obj in _public(fake) if not inspect.getdoc(obj)]
    assert names == ["Thing.method", "bare"]
    assert not NAMES_A_PAPER.search(fake.__doc__)
    assert NAMES_A_PAPER.search("The Malleable Packing Scheme (paper 002, Wolf et al. 2010).")
    assert NAMES_A_PAPER.search("exact MIPs (papers 000 §1.1 and 002 §2-3)")
    assert NAMES_A_PAPER.search("Related-machine list scheduling (S-PC, Aggarwal et al. §III-C)")
    for cited in ("(paper 002, ``papers/002_5f5d81b4ed12ab90.txt``)", "Tetris (004_b4873590af578e8a.txt)",
                  "the loop before issue #17", "(issue 17 item 3: faster)", "Issue 9"):
        assert CITES_THE_WORKSPACE.search(cited), cited
    assert not CITES_THE_WORKSPACE.search("FlowFlex (paper 000, Nagarajan et al. 2019) §2.3.1, Lemma 1")


def test_nothing_cites_a_workspace_file_or_an_issue():
    root = Path(schedrelax.__file__).parent
    found = [f"{path.relative_to(root.parent)}:{n}: {line.strip()}"
             for path in sorted(root.rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if CITES_THE_WORKSPACE.search(line)]
    assert not found, "cite the paper by name and section, the change by what it did:\n" + "\n".join(found)
