"""A word the model stutters written once: "los productos vegetales vegetales y lácteos", "los
Juegos Olímpicos Olímpicos en 2018".

Version 10 repeats a word back to back in 43 of news-test2008 dev's 2,051 translations, where the
references never do. A word of letters repeated back to back (whatever its capitals: "Árabe
árabe") is written once, as it first came, unless the source repeats a word back to back itself
("Duran Duran", "bye bye"): then the repetition may be meant, and the translation stays.
"""

from __future__ import annotations

import re

_REPEATED = re.compile(r"(?<![^\W_])([^\W\d_]+)(?:\s+\1(?![^\W_]))+", re.IGNORECASE)
"""A word of letters followed by itself once or more, with only spaces between."""


def without_stutters(source: str, translation: str) -> str:
    """`translation` with each word it repeats back to back written once, where `source` repeats
    none."""
    if _REPEATED.search(source) is not None:
        return translation
    return _REPEATED.sub(lambda match: match.group(1), translation)
