"""mt beside another toolkit on the same data and machine (eole)."""
