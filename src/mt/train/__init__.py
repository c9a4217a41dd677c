"""Stage 2, a prepared directory -> a run directory: the loop, selection, distributed training."""
