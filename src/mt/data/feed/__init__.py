"""The training feed: token arrays -> augmented, noised, rehearsed, length-bucketed batches."""
