"""Whether a line is English prose, to translate as such, or a command, code or a bare name.

tldr's "git cola --prompt" or Python's "str" are lines a good translation copies: the normaliser
must not make "Git cola --prompt." of them, nor the copy flag call their copy a failure. English
prose, even typed in haste, has function words (the, is, to, you), which commands and names
almost never have; its protected spans (mt.text.spans) are no evidence either way.
"""

from __future__ import annotations

import re

from mt.text.spans import mask_spans
from mt.text.words import WORD

_FUNCTION_WORDS = """a an the this that these those some any no every each all both
    i me my you your he him his she her it its we us our they them their who whom whose
    what which where when why how is am are was were be been being do does did have has had
    will would shall should can could may might must to of in on at by for with from about into
    over under after before between through and or but if so than then not there here
    let please im dont doesnt didnt cant wont isnt arent wasnt"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split())
_COMMAND = re.compile(r"\{\{|(?<!\S)--?[A-Za-z]")  # tldr's {{placeholders}}, -x and --long


def outside_spans(text: str) -> str:
    """`text` with each protected span replaced by a space."""
    return mask_spans(text, " ")


def command_like(text: str) -> bool:
    """Command-line options ("-x", "--long") or tldr's {{placeholders}}: a command."""
    return _COMMAND.search(text) is not None


_OPENERS = " \t\"'“‘«([¡¿"
"""What may come before a sentence's capital: '"Hello", said Ilse.' is prose."""


def is_prose(text: str) -> bool:
    """Whether `text` reads as English sentences: outside its protected spans, no command-line
    options or tldr placeholders, and a function word or a capital first letter ("Options")."""
    rest = outside_spans(text)
    if command_like(rest):
        return False
    words = WORD.findall(rest)
    if words and rest.lstrip(_OPENERS)[:1].isupper():
        return True
    return any(word.lower().replace("’", "").replace("'", "") in FUNCTION_WORDS for word in words)
