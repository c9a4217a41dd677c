"""Documents translated with their markup intact: HTML, Markdown, gettext .po, SRT and WebVTT.
Each format parses a file into units (units.py) and a skeleton; document.py translates the units
in pieces of bounded size and writes the file back piece by piece.
"""
