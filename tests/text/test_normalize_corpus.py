"""The normaliser never changes careful text: over every English line of the Tatoeba corpus and
of the four domains' development data (../shared/data, absent from a bare checkout: then these
tests skip), a line with a capital and final punctuation comes out byte for byte as it went in,
with the word statistics `mt prepare` would write for that English. About 20 s on a 2-core CPU."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from mt.text.normalize import Normalizer
from mt.text.wordstats import build_word_stats

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
TATOEBA = SHARED / "spa-eng.tsv"
DOMAINS = SHARED / "domains"
CLOSERS = "\"')]»”’"

pytestmark = pytest.mark.skipif(
    not (TATOEBA.is_file() and DOMAINS.is_dir()),
    reason=f"the shared corpus ({TATOEBA}) and domain data ({DOMAINS}) are absent",
)


def written_with_care(line: str) -> bool:
    """A capital and a sentence's final mark (the test's own reading, not the normaliser's)."""
    end = line.rstrip().rstrip(CLOSERS)[-1:]
    return end in (".", "!", "?") and any(c.isupper() for c in line)


@functools.cache
def tatoeba_english() -> tuple[str, ...]:
    lines = TATOEBA.read_text(encoding="utf-8").splitlines()
    return tuple(line.split("\t", 1)[0] for line in lines if line)


@functools.cache
def domain_english() -> tuple[str, ...]:
    """Every English line of the development data: python-docs entries, every tldr English page's
    descriptions and commands, LibreOffice help (plain and tagged), news."""
    from mt.recipes import domain_split

    lines = [pair.english for pair in domain_split.python_docs(DOMAINS)]
    for page in sorted((DOMAINS / "tldr" / "en").rglob("*.md")):
        texts = map(domain_split.tldr_text, page.read_text(encoding="utf-8").splitlines())
        lines += [text for text in texts if text]
    lines += [pair.english for pair in domain_split.libreoffice(DOMAINS)]
    lines += [pair.english for pair in domain_split.libreoffice(DOMAINS, tagged=True)]
    lines += [pair.english for pair in domain_split.news(DOMAINS)]
    return tuple(line for text in lines for line in text.splitlines() if line.strip())


def changed_careful_lines(normalizer: Normalizer, lines: tuple[str, ...]) -> list[str]:
    """Every line goes through the normaliser (casual ones too: they may be changed); the careful
    ones that came out different, with what they became."""
    changed = []
    for line in lines:
        output = normalizer(line)
        if output != line and written_with_care(line):
            changed.append(f"{line!r} -> {output!r}")
    return changed


def test_no_careful_tatoeba_line_is_changed_with_tatoeba_statistics() -> None:
    english = tatoeba_english()
    assert len(english) > 100_000 and sum(map(written_with_care, english)) > 100_000
    changed = changed_careful_lines(Normalizer.from_stats(build_word_stats(english)), english)
    assert changed == [], f"{len(changed)} careful lines changed, e.g. {changed[:5]}"


def test_no_careful_line_of_corpus_or_domains_is_changed_with_the_union_statistics() -> None:
    """The statistics of `make model`'s English: Tatoeba and the four domains together."""
    english = tatoeba_english() + domain_english()
    assert len(domain_english()) > 100_000
    normalizer = Normalizer.from_stats(build_word_stats(english))
    changed = changed_careful_lines(normalizer, domain_english())
    assert changed == [], f"{len(changed)} careful lines changed, e.g. {changed[:5]}"
