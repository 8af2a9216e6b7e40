"""Imports every paper's reproduction module so that each registers itself."""
