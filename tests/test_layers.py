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
