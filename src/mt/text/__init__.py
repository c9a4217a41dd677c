"""Text below every stage: one span detector, one word pattern, prose, cleaning, casual typing and
the normaliser that inverts it, word statistics, lexicon and names, and the tables they come from.
"""
