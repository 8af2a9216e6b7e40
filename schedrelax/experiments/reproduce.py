"""Paper reproductions, by name: ``schedrelax reproduce NAME [--quick] [--out DIR]``.

Each paper module registers a function ``(out_dir: Path, *, quick: bool, seed: int, **options) ->
Path`` that writes its tables and plots into *out_dir* and returns the report file it wrote.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

Reproduction = Callable[..., Path]


@dataclass(frozen=True)
class ReproductionSpec:
    name: str
    fn: Reproduction
    summary: str
    options: tuple[str, ...] = ()


REPRODUCTIONS: dict[str, ReproductionSpec] = {}


def register_reproduction(name: str, summary: str, options: tuple[str, ...] = ()) -> Callable[[Reproduction], Reproduction]:
    """Decorator: register a paper reproduction under *name*; *options* are the extra keyword
    options it accepts (e.g. ``("swim",)``)."""
    def deco(fn: Reproduction) -> Reproduction:
        REPRODUCTIONS[name] = ReproductionSpec(name, fn, summary, options)
        return fn
    return deco


def _load_builtin() -> None:
    import schedrelax.experiments.papers  # noqa: F401  (registers the reproductions)


def available() -> dict[str, ReproductionSpec]:
    """Registered reproductions by name."""
    _load_builtin()
    return dict(sorted(REPRODUCTIONS.items()))


def reproduce(name: str, out_dir: str | Path, *, quick: bool = False, seed: int = 0, **options) -> list[Path]:
    """Run reproduction *name* (or every one for ``"all"``) into *out_dir*; returns the reports."""
    specs = available()
    if name != "all" and name not in specs:
        raise ValueError(f"unknown reproduction {name!r}; choose one of: {', '.join(['all', *specs])}")
    chosen = list(specs.values()) if name == "all" else [specs[name]]
    reports = []
    for spec in chosen:
        unknown = sorted(k for k, v in options.items() if v is not None and k not in spec.options)
        if unknown and name != "all":
            raise ValueError(f"reproduction {spec.name!r} has no option {unknown[0]!r}")
        opts = {k: v for k, v in options.items() if k in spec.options and v is not None}
        target = Path(out_dir) / spec.name if name == "all" else Path(out_dir)
        target.mkdir(parents=True, exist_ok=True)
        reports.append(spec.fn(target, quick=quick, seed=seed, **opts))
    return reports
