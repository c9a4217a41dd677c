"""LibreTranslate's `detectedLanguage` for `"source": "auto"`, from the `not_english` flag's
identifier (mt.quality.flags.language_of) with its probability in percent. A text without letters
is answered in the served source language with confidence 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mt.quality.flags import language_of


def detected_language(text: str, *, fallback: str = "en") -> dict[str, Any]:
    """{"confidence": percent, "language": code} for one text."""
    if not any(char.isalpha() for char in text):
        return {"confidence": 0.0, "language": fallback}
    language, probability = language_of(text)
    return {"confidence": round(100 * probability, 1), "language": language}


def detected_languages(
    texts: Sequence[str], *, is_list: bool, fallback: str = "en"
) -> dict[str, Any] | list[dict[str, Any]]:
    """One answer a text, or the one text's answer where the request was not a list."""
    found = [detected_language(text, fallback=fallback) for text in texts]
    return found if is_list else found[0]
