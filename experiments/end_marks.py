"""Decided whether a lost "!" or "?" goes back into a translation (docs/release.md, "Link 11").

The dev part of bench_general translated as the model decodes by default (beam 5, its
decode.json), then the lines holding a "!" or "?" again with the end-mark step on
(mt.text.end_marks): BLEU, chrF, the words carried and every changed line, side by side
(experiments.first_words.compare).

    python -m experiments.end_marks --tatoeba runs/tatoeba-split --out bench/end-marks
"""

from __future__ import annotations

from dataclasses import replace

from experiments.first_words import compare, dev_parser, opened
from mt.decode.translator import Translator


def main(argv: list[str] | None = None) -> int:
    args = dev_parser(__doc__, out="bench/end-marks").parse_args(argv)
    info, plain = opened(args, end_marks=False)
    marked = plain.with_options(replace(plain.options, end_marks=True))

    def asked(variant: Translator, line: str, plain: str) -> bool:
        """A line without either mark comes out as the plain one."""
        return "!" in line or "?" in line

    compare(args, info, plain, {"end marks": marked}, asked)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
