"""The layers' direction of ../shared/DESIGN.md, read from every module's imports (lazy ones too).

instances know nothing of models; models build Pyomo (or CP-SAT) models and never call a solver;
solvers know Pyomo and the back ends, nothing of scheduling; schedulers are combinatorial code
without Pyomo. (This test found models importing solvers.cpsat_backend for OR-Tools' module.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "schedrelax"

FORBIDDEN = {
    "instances": {"models", "solvers", "rounding", "schedulers", "algorithms", "online", "experiments", "pyomo"},
    "models": {"solvers", "rounding", "algorithms", "online", "experiments"},
    "solvers": {"instances", "models", "rounding", "schedulers", "schedules", "algorithms", "online",
                "experiments"},
    "schedulers": {"models", "solvers", "rounding", "pyomo"},
}


def _imports(path: Path) -> set[str]:
    """The schedrelax subpackages (and ``pyomo``) a module imports anywhere in its body."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = ([node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level
                 else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
        for name in names:
            parts = name.split(".")
            if parts[0] == "pyomo":
                out.add("pyomo")
            elif parts[0] == "schedrelax" and len(parts) > 1:
                out.add(parts[1])
    return out


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_layer_imports_against_the_flow(layer):
    modules = sorted((PACKAGE / layer).rglob("*.py"))
    assert modules, layer
    wrong = {f"{m.relative_to(PACKAGE)} imports {bad}" for m in modules for bad in _imports(m) & FORBIDDEN[layer]}
    assert not wrong, sorted(wrong)


def test_the_reader_sees_lazy_imports(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from schedrelax.solvers.cpsat_backend import x\n    import pyomo.environ\n")
    assert _imports(module) == {"solvers", "pyomo"}


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes inside ``if TYPE_CHECKING:`` blocks: never executed, so no edge."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                skipped.update(id(n) for n in ast.walk(child))
    return skipped


def import_graph(root: Path, package: str = "schedrelax") -> dict[str, set[str]]:
    """module -> the modules of *package* it imports, read with ast from the files under *root*.

    Every import counts, at module level or inside a function: a lazy import runs when its
    function is called and closes a circle then (the issue's 20-module circle was closed by
    ``algorithms._load_builtin``'s lazy imports). Imports under ``if TYPE_CHECKING:`` do not (they
    never run). ``from a.b import c`` is an edge to ``a.b.c`` when that is a module, else to
    ``a.b``; the package ``__init__`` that Python runs before a submodule is not an edge (each
    package's own ``__init__`` is checked as a module of its own)."""
    modules = {_module_name(p, root): p for p in (root / package).rglob("*.py")}

    def resolve(name: str) -> str | None:
        while name:
            if name in modules:
                return name
            name = name.rpartition(".")[0]
        return None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        skipped = _type_checking_nodes(tree)
        edges = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                targets = [resolve(a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                    here = here[:len(here) - node.level + 1]
                    base = ".".join([*here, base] if base else here)
                targets = [resolve(f"{base}.{a.name}") or resolve(base) for a in node.names]
            else:
                continue
            edges.update(t for t in targets if t and t != name)
        graph[name] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_circle():
    found = circles(import_graph(PACKAGE.parent))
    assert [sorted(c) for c in found] == []


def test_the_circle_finder_finds_lazy_and_relative_circles_and_skips_type_checking(tmp_path):
    pkg = tmp_path / "schedrelax"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from schedrelax.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from .. import a\n")  # lazy and relative: still a circle
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from schedrelax import d\n")
    (pkg / "d.py").write_text("import schedrelax.c\n")
    graph = import_graph(tmp_path)
    assert graph["schedrelax.a"] == {"schedrelax.sub.b"} and graph["schedrelax.sub.b"] == {"schedrelax.a"}
    assert graph["schedrelax.c"] == set() and graph["schedrelax.d"] == {"schedrelax.c"}
    assert circles(graph) == [{"schedrelax.a", "schedrelax.sub.b"}]


def test_implementations_import_only_the_result_type_from_the_registry_at_module_level():
    # The registry names its implementations by "module:function" strings; an implementation
    # imports the Result type from schedrelax.result. (The exact searches that start from other
    # registered algorithms call the registry's run inside the call: rounding.exact.run_candidates
    # and rounding.related_exact.related_mip.)
    graph_edges = []
    for layer in ("rounding", "schedulers", "models"):
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            tree = ast.parse(path.read_text())
            for node in tree.body:
                if isinstance(node, ast.ImportFrom) and node.module == "schedrelax.algorithms":
                    graph_edges.append(f"{path.relative_to(PACKAGE)}: {[a.name for a in node.names]}")
                if isinstance(node, ast.Import) and any(a.name == "schedrelax.algorithms" for a in node.names):
                    graph_edges.append(str(path.relative_to(PACKAGE)))
    assert graph_edges == []
