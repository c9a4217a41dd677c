"""LibreOffice help from Debian's `libreoffice-help-en-us` and `-es` packages into
`domains/libreoffice-help/pairs.tsv` and `tagged.tsv` (english<TAB>spanish<TAB>page), as
domains/README.md says they were made (and checked against the digests it records).

Pages are keyed by their path below `usr/share/libreoffice/help/<lang>/`, in byte order; segments
(mt.data.sources.help_html) pair by id, position by position when both pages have the same ids,
else only ids unique to each. pairs.tsv holds whitespace-collapsed texts; tagged.tsv the tagged
segments' inner HTML. Empty, identical and repeated pairs are dropped (each file on its own).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

from mt.data.sources.archives import deb_files
from mt.data.sources.heldout import held_out
from mt.data.sources.help_html import Segment, segments

OUT = "domains/libreoffice-help"
HELP = "usr/share/libreoffice/help/"
LANGUAGES = ("en-US", "es")
ASCII_SPACE = re.compile(r"[ \t\n\r\f\v]+")
BROKEN_SPACE = re.compile(r"[ \t\n\r\f\v]*[\t\n\r][ \t\n\r\f\v]*")

Row = tuple[str, str, str]


def libreoffice(downloads: Sequence[Path], root: Path) -> None:
    """`downloads`: the English package, then the Spanish one."""
    english, spanish = (
        _pages(deb, language) for deb, language in zip(downloads, LANGUAGES, strict=True)
    )
    pairs, tagged = help_rows(english, spanish)
    (root / OUT).mkdir(parents=True, exist_ok=True)
    for name, rows in (("pairs.tsv", pairs), ("tagged.tsv", tagged)):
        text = "".join("\t".join(row) + "\n" for row in rows)
        (root / OUT / name).write_text(text, encoding="utf-8", newline="\n")


def _pages(deb: Path, language: str) -> dict[str, bytes]:
    found = deb_files(deb, f"{HELP}{language}/")
    return {key: page for key, page in found.items() if key.startswith("text/")}


def help_rows(english: dict[str, bytes], spanish: dict[str, bytes]) -> tuple[list[Row], list[Row]]:
    """(plain rows, tagged rows) of the pages both languages have."""
    pairs: list[Row] = []
    tagged: list[Row] = []
    seen: set[tuple[str, str]] = set()
    seen_tagged: set[tuple[str, str]] = set()
    for key in sorted(english):
        if key not in spanish or held_out(key) or not key.endswith(".html"):
            continue
        for source, target in _paired(english[key], spanish[key]):
            plain = (_plain(source.text), _plain(target.text))
            if not all(plain) or plain[0] == plain[1]:
                continue
            if "<" in source.inner_html or "<" in target.inner_html:
                marked = (_tagged(source.inner_html), _tagged(target.inner_html))
                if marked not in seen_tagged:
                    seen_tagged.add(marked)
                    tagged.append((*marked, key))
            if plain not in seen:
                seen.add(plain)
                pairs.append((*plain, key))
    return pairs, tagged


def _paired(english: bytes, spanish: bytes) -> Iterator[tuple[Segment, Segment]]:
    source = segments(english.decode("utf-8"))
    target = segments(spanish.decode("utf-8"))
    if [s.id for s in source] == [s.id for s in target]:
        yield from zip(source, target, strict=True)
        return
    once_source = Counter(s.id for s in source)
    once_target = Counter(s.id for s in target)
    by_id = {s.id: s for s in target}
    for segment in source:
        if once_source[segment.id] == 1 and once_target[segment.id] == 1:
            yield segment, by_id[segment.id]


def _plain(text: str) -> str:
    return ASCII_SPACE.sub(" ", text).strip()


def _tagged(html: str) -> str:
    return BROKEN_SPACE.sub(" ", html).strip()
