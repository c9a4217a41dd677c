"""Decided version 10 gives the model first words in lower case (docs/release.md, "Link 10").

A sentence's first word reaches the model in lower case where it knows that spelling better
(mt.text.first_words), with the rule as built, not the stricter ratio 10.

The dev part of bench_general (news-test2008, TICO-19 and XQuAD dev, the Tatoeba selection part,
the domains' dev samples), translated by a model as it decodes by default (beam 5, its
decode.json), then again with the first-word step on: BLEU, chrF, the words carried
(mt.evaluate.words) and how many lines changed, side by side, with every changed line. Only lines
with a sentence whose first word the step lowers are translated again: the others cannot change.

    python -m experiments.first_words --tatoeba runs/tatoeba-split --ratios 1 10 \\
        --out bench/first-words
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from benchmarks import harness
from benchmarks.quality.bench_general import add_sets
from experiments.unseen_nouns import LEXICON, _scores, dev_sets, moved, retranslated
from mt.catalog.modelinfo import DEFAULT_MODEL, ModelInfo, resolve
from mt.config import DecodeConfig
from mt.decode.options import TranslateOptions
from mt.decode.steps.first_word import LowerFirstWords
from mt.decode.translator import Translator, open_translator
from mt.storage.files import WORD_STATS
from mt.text.first_words import RATIO, FirstWords, candidates
from mt.text.wordstats import read_word_stats


def main(argv: list[str] | None = None) -> int:
    parser = dev_parser(__doc__, out="bench/first-words")
    parser.add_argument(
        "--titles",
        action="store_true",
        help="one variant, the rule as built for a sentence in title case too (each capitalised "
        "word), against the model's own decoding (docs/release.md, Link 13)",
    )
    parser.add_argument(
        "--ratios",
        type=float,
        nargs="+",
        default=[RATIO],
        help="variants: how many times as often as its capitalised spelling the training English "
        "must use a lower-case word (mt.text.first_words.RATIO)",
    )
    args = parser.parse_args(argv)
    # --titles: against the model as it decodes (its first words lowered); else with none lowered
    info, plain_translator = opened(args, first_words=args.titles, titles=False)
    options = plain_translator.options
    stats = read_word_stats(info.directory / WORD_STATS)
    variants = {}
    for ratio in [] if args.titles else args.ratios:
        variant = plain_translator.with_options(replace(options, first_words=True))
        built = variant.model.first_words
        variant.pipeline.first_words = LowerFirstWords(
            FirstWords(candidates(stats, ratio=ratio), pieces=built.pieces, lexicon=built.lexicon)
        )
        variants[f"ratio {ratio:g}"] = variant
    if args.titles:
        variant = plain_translator.with_options(replace(options, first_words=True))
        built = variant.model.first_words
        variant.pipeline.first_words = LowerFirstWords(replace(built, titles=True))
        variants["titles"] = variant

    def asked(variant: Translator, line: str, plain: str) -> bool:
        """A line whose pieces the variant gives the model as the plain translator does comes out
        as the plain one."""
        cut = variant.pipeline.segment.apply(line)
        ours = variant.pipeline.first_words.apply(cut)[0]
        return ours != plain_translator.pipeline.first_words.apply(cut)[0]

    compare(args, info, plain_translator, variants, asked)
    return 0


def dev_parser(doc: str, *, out: str) -> argparse.ArgumentParser:
    """The options every such comparison takes: the model, the dev sets, the lexicon the words
    are counted with, a limit for a try, and where dev.json goes."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--run", default=DEFAULT_MODEL)
    add_sets(parser)
    parser.add_argument("--lexicon", type=Path, default=LEXICON)
    parser.add_argument("--limit", type=int, default=0, help="pairs a set at most (a try)")
    parser.add_argument("--out", type=Path, default=Path(out))
    return parser


def opened(args: argparse.Namespace, **plain: bool) -> tuple[ModelInfo, Translator]:
    """The model and its plain translator (beam 5, its decode.json, the `plain` switches)."""
    if not args.lexicon.is_file():
        raise SystemExit(f"{args.lexicon} is absent (see ../shared)")
    print(harness.machine_line(2))
    info = resolve(args.run)
    options = TranslateOptions(decode=DecodeConfig(beam_size=5, batch_size=32))
    return info, open_translator(info, replace(options, **plain))


def compare(
    args: argparse.Namespace,
    info: ModelInfo,
    plain: Translator,
    variants: dict[str, Translator],
    asked: Callable[[Translator, str, str], bool],
) -> tuple[dict, dict]:
    """Each dev set translated by `plain`, then by each variant on the lines it `asked` for, given
    the line and its plain translation (the others would come out as the plain ones): the figures
    by set and variant, and every changed line (English, plain, variant), written to
    `args.out`/dev.json."""
    figures, outputs = {}, {}
    for name, english, references, attested in dev_sets(args, info):
        texts = [t.text for t in plain.translate(english)]
        figures[name] = {"pairs": len(english), "plain": _scores(texts, references, attested)}
        for label, variant in variants.items():
            lines = [i for i, line in enumerate(english) if asked(variant, line, texts[i])]
            changed_texts = retranslated(variant, english, texts, lines)
            changed = [i for i in lines if changed_texts[i] != texts[i]]
            outputs[f"{name}/{label}"] = [(english[i], texts[i], changed_texts[i]) for i in changed]
            row = figures[name]
            row[label] = {
                "lines asked": len(lines),
                "lines changed": len(changed),
                **_scores(changed_texts, references, attested),
            }
            moves = moved(row, label, "words carried, 10+:", bucket="10+")
            print(
                f"{name} ({label}): {len(english)} pairs, {len(lines)} asked, {len(changed)} "
                f"changed; {moves}",
                flush=True,
            )
    args.out.mkdir(parents=True, exist_ok=True)
    out = {"run": args.run, "part": "dev", "sets": figures, "changed": outputs}
    (args.out / "dev.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    return figures, outputs


if __name__ == "__main__":
    raise SystemExit(main())
