"""``schedrelax.show_versions()``: what a bug report needs (the pandas convention)."""

from __future__ import annotations

import platform
import sys
from importlib import metadata

_PACKAGES = ("numpy", "scipy", "pandas", "networkx", "pyomo", "highspy", "cvxpy", "ortools", "matplotlib", "tqdm",
             "distributed", "pyarrow")
"""The dependencies and optional extras whose versions matter to a run, read from their installed
metadata (none is imported)."""


def versions() -> dict[str, str | None]:
    """Python, the platform, schedrelax and each package of :data:`_PACKAGES` (None: not installed)."""
    out: dict[str, str | None] = {"python": sys.version.split()[0], "platform": platform.platform()}
    for name in ("schedrelax", *_PACKAGES):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def show_versions() -> None:
    """Print the versions of Python, schedrelax, its dependencies and the solvers found here (the
    quick look of ``schedrelax list``: nothing is imported)."""
    from schedrelax.solvers.registry import PLUGINS, found_here

    found = versions()
    width = max(map(len, found))
    for name, version in found.items():
        print(f"{name:<{width}} {version or 'not installed'}")
    print("solvers found: " + ", ".join(f"{n} ({found_here(n)})" for n in ("highs", *PLUGINS, "cpsat", "cvxpy")
                                         if found_here(n)))
