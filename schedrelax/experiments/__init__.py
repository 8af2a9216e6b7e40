"""Comparison runner, paper reproductions, tables and plots."""
