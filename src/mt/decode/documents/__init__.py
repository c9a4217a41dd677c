"""Documents translated with their markup intact: HTML, Markdown, gettext .po, SRT and WebVTT.

Each format module parses a file into units (mt.decode.documents.units) and a skeleton; document.py
translates the units in pieces of bounded size (a long unit cut into parts by split.py) and writes
the file back piece by piece.
"""
