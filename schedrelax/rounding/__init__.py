"""Rounding: turn a relaxation's solution into a schedule by calling the shared schedulers.

One module per paper's pipeline (flowflex, flex, synchpack, spc) plus the shared techniques
(alpha_points, slow_motion, matching, ordering). Importing this package imports none of them: the
registry (:mod:`schedrelax.algorithms`) names each algorithm's module and imports it when it runs.
"""
