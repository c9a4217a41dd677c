"""Decided whether a word the model stutters is written once (docs/release.md, "Link 12").

The dev part of bench_general translated as the model decodes by default (beam 5, its
decode.json), then the lines whose translation repeats a word back to back again with the
stutter step on (mt.text.stutters): BLEU, chrF, the words carried and every changed line, side by
side (experiments.first_words.compare).

    python -m experiments.stutters --tatoeba runs/tatoeba-split --out bench/stutters
"""

from __future__ import annotations

from dataclasses import replace

from experiments.first_words import compare, dev_parser, opened
from mt.decode.translator import Translator
from mt.text.stutters import without_stutters


def main(argv: list[str] | None = None) -> int:
    args = dev_parser(__doc__, out="bench/stutters").parse_args(argv)
    info, plain = opened(args, stutters=False)
    tidied = plain.with_options(replace(plain.options, stutters=True))

    def asked(variant: Translator, line: str, plain: str) -> bool:
        """A translation that repeats no word back to back comes out as it was."""
        return without_stutters("", plain) != plain

    compare(args, info, plain, {"stutters": tidied}, asked)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
