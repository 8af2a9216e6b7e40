"""The papers' reproductions, one module per paper, each a declaration for
:mod:`schedrelax.experiments.engine` (its cell function, rows, variations, bands and fit) and its
own figures, nothing else."""
