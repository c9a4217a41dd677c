"""Decided whether a lost "!" or "?" goes back into a translation (docs/release.md, "Link 11").

The dev part of bench_general translated as the model decodes by default (beam 5, its
decode.json), then the lines holding a "!" or "?" again with the end-mark step on
(mt.text.end_marks): BLEU, chrF, the words carried and every changed line, side by side
(experiments.first_words.compare).

    python -m experiments.end_marks --tatoeba runs/tatoeba-split --out bench/end-marks
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from benchmarks import harness
from benchmarks.quality.bench_general import add_sets
from experiments.first_words import compare
from experiments.unseen_nouns import LEXICON
from mt.config import DecodeConfig
from mt.decode.options import TranslateOptions
from mt.decode.translator import Translator, open_translator
from mt.modelinfo import DEFAULT_MODEL, resolve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", default=DEFAULT_MODEL)
    add_sets(parser)
    parser.add_argument("--lexicon", type=Path, default=LEXICON)
    parser.add_argument("--limit", type=int, default=0, help="pairs a set at most (a try)")
    parser.add_argument("--out", type=Path, default=Path("bench/end-marks"))
    args = parser.parse_args(argv)
    if not args.lexicon.is_file():
        raise SystemExit(f"end_marks: {args.lexicon} is absent (see ../shared)")
    print(harness.machine_line(2))
    info = resolve(args.run)
    options = TranslateOptions(decode=DecodeConfig(beam_size=5, batch_size=32), end_marks=False)
    plain = open_translator(info, options)
    marked = plain.with_options(replace(plain.options, end_marks=True))

    def asked(variant: Translator, line: str) -> bool:
        """A line without either mark comes out as the plain one."""
        return "!" in line or "?" in line

    figures, outputs = compare(args, info, plain, {"end marks": marked}, asked)
    args.out.mkdir(parents=True, exist_ok=True)
    out = {"run": args.run, "part": "dev", "sets": figures, "changed": outputs}
    (args.out / "dev.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
