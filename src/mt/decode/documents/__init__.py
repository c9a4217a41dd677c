"""Documents translated with their markup intact: HTML, Markdown, gettext .po, SRT and WebVTT.

Each format module parses a file into units (mt.decode.documents.units) and a skeleton; document.py
translates all units of a document in one Translator call and writes the file back.
"""
