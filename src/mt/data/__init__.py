"""Stage 1, files -> a prepared directory: read corpora, clean, split, tokenize, batch."""
