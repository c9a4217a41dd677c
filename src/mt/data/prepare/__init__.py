"""The prepare pipeline: corpus rows -> split, paragraphs, vocabularies, token arrays, tables."""
