"""Plots: the Gantt chart of any schedule (it lives in :mod:`schedrelax.plotting`)."""

from schedrelax.plotting import gantt, save_gantt

__all__ = ["gantt", "save_gantt"]
