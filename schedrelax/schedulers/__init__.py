"""Combinatorial schedulers and baselines: pure code on instances, no Pyomo (see DESIGN.md).

Importing this package imports none of its modules: the registry (:mod:`schedrelax.algorithms`)
names each algorithm's module and imports it when it runs.

- :mod:`~schedrelax.schedulers.fifo`: the arrival-order baseline ``"fifo"`` for all four families.
"""
