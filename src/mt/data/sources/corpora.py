"""The parallel corpora at the data root and in `general/`, from their downloads, as the READMEs
say they were made: `spa-eng.tsv` byte for byte from `spa-eng.zip`, and `general/xquad.tsv` from
XQuAD's two JSON files (articles by title, paragraphs and questions by position, a `context` line
per paragraph then a `question` line per question, whitespace collapsed, BOM removed).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from mt.data.sources.archives import zip_member
from mt.errors import MtError

TATOEBA = "spa-eng.tsv"
TATOEBA_MEMBER = "spa-eng/spa.txt"
XQUAD = "general/xquad.tsv"


def tatoeba(downloads: Sequence[Path], root: Path) -> None:
    (archive,) = downloads
    zip_member(archive, TATOEBA_MEMBER, root / TATOEBA)


def xquad(downloads: Sequence[Path], root: Path) -> None:
    """`downloads`: xquad.en.json, then xquad.es.json."""
    english, spanish = (_articles(path) for path in downloads)
    by_title = {article["title"]: article for article in spanish}
    lines = []
    for article in english:
        if article["title"] not in by_title:
            raise MtError(f"{downloads[1]}: no article titled {article['title']!r}", 1)
        for row in _rows(article, by_title[article["title"]]):
            lines.append("\t".join(row) + "\n")
    (root / XQUAD).parent.mkdir(parents=True, exist_ok=True)
    (root / XQUAD).write_text("".join(lines), encoding="utf-8", newline="\n")


def _articles(path: Path) -> list[dict[str, Any]]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))["data"]
    except (ValueError, KeyError, TypeError) as error:
        raise MtError(f"{path}: not XQuAD's JSON ({error})", 1) from None


def _rows(english: dict[str, Any], spanish: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    pairs = zip(english["paragraphs"], spanish["paragraphs"], strict=True)
    for source, target in pairs:
        yield _clean(source["context"]), _clean(target["context"]), "context"
        for question, pregunta in zip(source["qas"], target["qas"], strict=True):
            if question["id"] != pregunta["id"]:
                raise MtError(f"XQuAD: question {question['id']} faces {pregunta['id']}", 1)
            yield _clean(question["question"]), _clean(pregunta["question"]), "question"


def _clean(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text.replace("\ufeff", "")).split())
