"""Whether users can tell which translations to check, and what must be copied is: confidence,
flags, protected spans, glossaries."""
