"""Short summaries of schedrelax's objects for ``repr`` and for Jupyter (``_repr_html_``): a
title and a few named values, never an array."""

from __future__ import annotations

import html
from collections.abc import Iterable


def number(value: float | None, digits: int = 6) -> str:
    """*value* rounded to *digits* significant digits (``"-"`` for None)."""
    return "-" if value is None else f"{value:.{digits}g}"


def seconds(value: float | None) -> str:
    """A duration for people: ``"0.0123 s"``, ``"12.3 s"`` (3 significant digits)."""
    return "-" if value is None else f"{value:.3g} s"


def html_table(title: str, rows: Iterable[tuple[str, str]]) -> str:
    """*title* over a two-column table of (name, value) rows, every text escaped."""
    body = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:left'>"
                   f"{html.escape(v)}</td></tr>" for k, v in rows)
    return f"<div><strong>{html.escape(title)}</strong><table>{body}</table></div>"
