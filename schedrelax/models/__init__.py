"""Pyomo models: the papers' relaxations and exact MIPs. Models build; they never call a solver."""
