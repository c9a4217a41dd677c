"""The article before a placed Spanish noun, made to agree with it: a noun placed through a
stand-in (mt.decode.glossary) got the stand-in's article ("El velocidad"). Nouns with these
endings have one gender, so the word right before one is made that gender and number ("La
velocidad", "de las deportaciones"); a dictionary's noun brings its entry's gender. Endings of
either gender or many exceptions (-ista, -sis, -a, -o: "el día") decide nothing.
"""

from __future__ import annotations

import re

Gender = tuple[str, bool | None]
"""("f" or "m", plural or not; None where the form is the same in both)."""

FEMININE = ("ción", "sión", "dad", "tad", "tud", "umbre", "ía", "itis", "osis", "encia", "ancia")
MASCULINE = ("ismo", "aje", "orio", "ario", "io")
MIN_LETTERS = 5
"""Shorter nouns are left alone: "día" and "tía" share an ending and not a gender."""

_PLURALS = (("ciones", "ción"), ("siones", "sión"), ("es", ""), ("s", ""))
_INVARIANT = ("itis", "osis")  # "la artritis", "las artritis"

_DETERMINERS = (  # masculine, feminine; singular, then plural
    ("el", "la", "los", "las"),
    ("un", "una", "unos", "unas"),
    ("este", "esta", "estos", "estas"),
    ("ese", "esa", "esos", "esas"),
    ("aquel", "aquella", "aquellos", "aquellas"),
    ("del", "de la", "de los", "de las"),
    ("al", "a la", "a los", "a las"),
)
_FORMS = {word: forms for forms in _DETERMINERS for word in forms}
_NEUTER = {"esto": "este", "eso": "ese", "aquello": "aquel"}  # never before a noun: "esto idea"
_LAST_WORDS = re.compile(r"(?:(?<!\w)(?:de|a) )?(?<!\w)(\w+)(\s+)$", re.IGNORECASE)


def noun_gender(noun: str) -> Gender | None:
    """("f" or "m", plural or not) for a single Spanish noun whose ending tells its gender (the
    number None where the form is the same in both); None where the ending does not tell."""
    word = noun.lower()
    if not word.isalpha() or len(word) < MIN_LETTERS:
        return None
    if word.endswith(_INVARIANT):
        return "f", None
    forms = [(word, False)] + [(word[: -len(p)] + s, True) for p, s in _PLURALS if word.endswith(p)]
    for form, plural in forms:
        if form.endswith(FEMININE):
            return "f", plural
        if form.endswith(MASCULINE):
            return "m", plural
    return None


def agree_before(text: str, gender: str, plural: bool | None) -> str:
    """`text` (before the noun) with its last word, an article or a demonstrative, in the noun's
    gender and number (`plural` None: its own); as it is where that word is neither."""
    match = _LAST_WORDS.search(text)
    if match is None:
        return text
    space = match.group(2)
    for found in (match.group(0)[: -len(space)], match.group(1)):  # "de la", then "la"
        word = _NEUTER.get(found.lower(), found.lower())
        forms = _FORMS.get(word)
        if forms is not None:
            many = forms.index(word) >= 2 if plural is None else plural
            wanted = forms[(gender == "f") + 2 * many]
            start = match.end() - len(space) - len(found)
            return text[:start] + _in_case_of(found, wanted) + space
    return text


def _in_case_of(found: str, wanted: str) -> str:
    if found.isupper() and len(found) > 1:
        return wanted.upper()
    if found[:1].isupper():
        return wanted[:1].upper() + wanted[1:]
    return wanted
