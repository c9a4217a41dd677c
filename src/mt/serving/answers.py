"""/translate's JSON answer for plain text, in LibreTranslate's shape: the translations, the
alternatives asked for, and mt's confidence and flags (extra fields that its clients ignore)."""

from __future__ import annotations

from typing import Any

from mt.serving.detect import detected_languages
from mt.serving.requests import TranslateRequest


def text_answer(
    checked: TranslateRequest, lines_per_text: list[list[str]], translations: list[Any]
) -> dict[str, Any]:
    """/translate's answer for plain text: each text's lines rejoined, with the alternatives,
    confidence and flags asked for."""
    texts: list[str] = []
    alternatives: list[list[str]] = []
    trust: list[tuple[float | None, list[str]]] = []
    start = 0
    for text_lines in lines_per_text:
        parts = translations[start : start + len(text_lines)]
        start += len(text_lines)
        best = "\n".join(part.text for part in parts)
        texts.append(best)
        alternatives.append(_alternatives(parts, best, checked.alternatives))
        trust.append(_trust(parts))
    answer: dict[str, Any] = {"translatedText": texts if checked.is_list else texts[0]}
    if checked.alternatives > 0:
        answer["alternatives"] = alternatives if checked.is_list else alternatives[0]
    confidences = [confidence for confidence, _ in trust]
    flags = [found for _, found in trust]
    answer["confidence"] = confidences if checked.is_list else confidences[0]
    answer["flags"] = flags if checked.is_list else flags[0]
    if checked.detect:
        answer["detectedLanguage"] = detected_languages(
            checked.texts, is_list=checked.is_list, fallback=checked.language
        )
    return answer


def _trust(parts: list[Any]) -> tuple[float | None, list[str]]:
    """A text's confidence is its least confident line's (the one to check); its flags are
    all its lines' flags; None for a text without words. Extra fields: LibreTranslate clients
    ignore them."""
    judged = [part for part in parts if part.confidence is not None and part.source.strip()]
    confidence = min((part.confidence for part in judged), default=None)
    flags = sorted({flag for part in judged for flag in part.flags})
    return (None if confidence is None else round(confidence, 4)), flags


def _alternatives(parts: list[Any], best: str, wanted: int) -> list[str]:
    """The k-th best of every line, joined; distinct and different from the best."""
    found: list[str] = []
    depth = max((len(part.hypotheses) for part in parts), default=0)
    for k in range(1, depth):
        text = "\n".join(
            part.hypotheses[k][0] if len(part.hypotheses) > k else part.text for part in parts
        )
        if text != best and text not in found:
            found.append(text)
        if len(found) == wanted:
            break
    return found
