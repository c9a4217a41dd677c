"""Which words get stand-ins (mt.decode.placeholders): only those likely a name or a number that
the model cannot carry.

Copying is wrong for an ordinary word, and every sentence starts with a capital: a stand-in for
every capitalised word made the model copy English into 21% of its outputs ("Te veré en
Thursday."). So a capitalised word is left to the model when

- it is a day, month, language, nationality or religion (ORDINARY);
- the training pairs show it translated more often than copied (mt.text.lexicon);
- it begins a sentence and its lower-case form is a known word.

Without a lexicon (a run whose training data is gone) the list and the vocabulary decide alone.
Numbers get a stand-in unless they are one piece.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mt.text.lexicon import NO_LEXICON, Lexicon

COPIED = 0.5
"""A capitalised word is a name when this share or more of the pairs holding it copy it."""

_DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday"
_MONTHS = "January February March April May June July August September October November December"
_LANGUAGES_AND_NATIONALITIES = """
    Afrikaans African Albanian American Arab Arabic Argentine Argentinian Armenian Asian
    Australian Austrian Basque Belgian Bengali Berber Bolivian Brazilian British Bulgarian
    Canadian Catalan Chilean Chinese Colombian Croatian Cuban Czech Danish Dutch Ecuadorian
    Egyptian English Esperanto Estonian European Filipino Finnish French Galician Georgian German
    Greek Guatemalan Haitian Hawaiian Hebrew Hindi Hungarian Icelandic Indian Indonesian Iranian
    Iraqi Irish Israeli Italian Jamaican Japanese Jewish Kabyle Korean Kurdish Latin Latvian
    Lithuanian Malay Mexican Mongolian Moroccan Nepali Nicaraguan Nigerian Norwegian Pakistani
    Paraguayan Persian Peruvian Polish Portuguese Romanian Russian Scottish Serbian Slovak
    Slovenian Spanish Spaniard Swahili Swedish Swiss Syrian Tagalog Thai Tibetan Turkish Ukrainian
    Uruguayan Urdu Venezuelan Vietnamese Welsh Yiddish
"""
_RELIGIONS = "Buddhist Catholic Hindu Islamic Muslim Protestant"  # not "Christian": a name too
ORDINARY = frozenset(f"{_DAYS} {_MONTHS} {_LANGUAGES_AND_NATIONALITIES} {_RELIGIONS}".split())
"""English words Spanish translates and writes in lower case: the rule holds without a lexicon."""


@dataclass(frozen=True)
class NameRule:
    """The `Protectable` for protect(): a likely name or number that is not `one_piece`."""

    one_piece: Callable[[str], bool]
    lexicon: Lexicon = NO_LEXICON

    def __call__(self, word: str, *, initial: bool) -> bool:
        if self.one_piece(word):
            return False
        if word[0].isdigit():
            return True
        if word in ORDINARY:
            return False
        share = self.lexicon.copied_share(word)
        if share is not None:
            return share >= COPIED
        known = self.one_piece(word.lower()) or self.lexicon.known_lower(word)
        return not (initial and known)
