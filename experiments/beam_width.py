"""Decided the shipped model keeps beam 5: wider beams gain 0.1-0.3 BLEU (docs/release.md)

The dev part of bench_general translated by a model as it decodes by default (beam 5, its
decode.json), then again with each wider beam and nothing else changed: BLEU, chrF, the words
carried (mt.evaluate.words) and how many lines changed, side by side (experiments.first_words
.compare). What a wider beam costs in time is measured apart, with `mt translate --beam-size`.

    python -m experiments.beam_width --tatoeba runs/tatoeba-split --limit 500 --beams 8 12 \\
        --out bench/beam-width
"""

from __future__ import annotations

from dataclasses import replace

from experiments.first_words import compare, dev_parser, opened


def main(argv: list[str] | None = None) -> int:
    parser = dev_parser(__doc__, out="bench/beam-width")
    parser.add_argument("--beams", type=int, nargs="+", default=[8, 12], help="the widths tried")
    args = parser.parse_args(argv)
    info, plain = opened(args)
    options = plain.options
    variants = {
        f"beam {width}": plain.with_options(
            replace(options, decode=replace(options.decode, beam_size=width))
        )
        for width in args.beams
    }
    compare(args, info, plain, variants, lambda variant, line, text: True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
