"""Corpus readers: TSV/CSV, line-aligned pairs, compressed streams, .po, TMX, XLIFF, downloads."""
