"""Online re-planning: re-runs registered algorithms as jobs arrive."""
