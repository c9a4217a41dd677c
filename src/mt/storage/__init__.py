"""The files mt writes and reads back, whatever the stage: their names and layouts, atomic
writes, the SHA-256 listings, and what is derived from a model's tables, kept in the user's cache.
"""
