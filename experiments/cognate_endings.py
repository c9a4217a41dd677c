"""Decided the endings giving Spanish cognates (docs/general.md, "Cognates for never-seen nouns").

mt.text.cognates' endings, judged on a dictionary, not on any dev or test set: for every one-word
Wiktionary noun an ending applies to, is the cognate it gives among that noun's own
translations? An ending is kept at KEEP or more. (The same spelling as a cognate, tried with
the same bar and then left out on the dev part, is in docs/history and git.)

    python -m experiments.cognate_endings ../shared/data/lexicon/en-es.wiktionary.txt
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from mt.evaluate.words import fold
from mt.text.bilingual import read_noun_senses
from mt.text.cognates import ENDINGS, CognateNouns

KEEP = 0.85

LEFT_OUT: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ure", ("ura",)),
    ("ive", ("ivo",)),
    ("ics", ("ica",)),
    ("ic", ("ico", "ica")),
    ("al", ("al",)),
    ("um", ("o",)),
)
CANDIDATES = (*ENDINGS[:-1], *LEFT_OUT, ENDINGS[-1])  # -y last: longer endings in y go first
"""The kept endings and the ones tried and left out, a longer ending before one it ends in."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dictionary", type=Path)
    parser.add_argument("--out", type=Path, default=Path("bench/cognates/endings.json"))
    args = parser.parse_args(argv)

    nouns = read_noun_senses(args.dictionary)
    figures = {}
    for index, (english, spanish) in enumerate(CANDIDATES):
        # an ending is judged on the nouns no longer ending before it takes
        longer = [e for e, _ in CANDIDATES[:index] if e.endswith(english)]
        alone = CognateNouns(endings=((english, spanish),))
        judged = ((n, s) for n, s in nouns.items() if not any(n.endswith(e) for e in longer))
        figures[english] = {"spanish": spanish, **judge(judged, alone.cognate)}

    table = Table(title=f"cognate endings on {args.dictionary.name}'s nouns (kept: ≥ {KEEP:.0%})")
    for column in ("ending", "words", "cognate right", "kept", "wrong, for example"):
        table.add_column(column)
    for english, row in figures.items():
        table.add_row(
            f"-{english} → -{'/-'.join(row['spanish'])}",
            str(row["words"]),
            f"{row['share']:.0%}",
            "yes" if row["kept"] else "no",
            "; ".join(row["wrong"][:2]),
        )
    Console(width=160).print(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    kept = {english for english, row in figures.items() if row["kept"]}
    shipped = {english for english, _ in ENDINGS}
    if kept != shipped:
        print(f"mt.text.cognates.ENDINGS differ: kept {sorted(kept)}, shipped {sorted(shipped)}")
        return 1
    return 0


def judge(
    words: Iterable[tuple[str, Sequence[str]]], cognate_of: Callable[[str], str | None]
) -> dict:
    """How many of `words` (each with its translations) get a cognate, how many of those are
    among their translations, the share, whether it is kept, and five that are not."""
    applies = right = 0
    wrong: list[str] = []
    for word, translations in words:
        if (cognate := cognate_of(word)) is None:
            continue
        applies += 1
        if fold(cognate) in {fold(t) for t in translations}:
            right += 1
        elif len(wrong) < 5:
            wrong.append(f"{word}: {cognate} ({', '.join(translations[:2])})")
    share = right / applies if applies else 0.0
    return {
        "words": applies,
        "right": right,
        "share": round(share, 4),
        "kept": share >= KEEP,
        "wrong": wrong,
    }


if __name__ == "__main__":
    sys.exit(main())
