"""Decided `--dictionary` stays an option, not a default (docs/general.md, "A dictionary for ..."),
whether the cognates of mt.text.cognates decode by default, and for which words (docs/general.md,
"Cognates for never-seen nouns").

The dev part of bench_general (news-test2008, TICO-19 and XQuAD dev, the Tatoeba selection part,
the domains' dev samples), translated by a model as bench_general translates it (beam 5), then
again with mt.decode.unseen's glossary of the nouns its training English never had, from each
`--sources` (the dictionary, the cognates, or both): BLEU, chrF, the words carried
(mt.evaluate.words) and how many lines changed, side by side, with a sample of the changed lines.

    python -m experiments.unseen_nouns --run en-es-general-7 --tatoeba runs/tatoeba-split \\
        --out bench/unseen
    python -m experiments.unseen_nouns --sources cognates both --tatoeba runs/tatoeba-split \\
        --out bench/cognates
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from benchmarks import harness
from benchmarks.quality.bench_general import add_sets, sets
from mt.catalog.modelinfo import DEFAULT_MODEL, ModelInfo, resolve
from mt.config import DecodeConfig
from mt.decode.options import TranslateOptions
from mt.decode.translator import Translator, open_translator
from mt.decode.unseen import UnseenNouns, read_dictionary
from mt.evaluate import words
from mt.evaluate.scores import corpus_scores
from mt.storage.files import WORD_STATS
from mt.text.wordstats import read_word_stats

LEXICON = Path("../shared/data/lexicon/en-es.wiktionary.txt")
SOURCES = ("dictionary", "cognates", "both")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", default=DEFAULT_MODEL)
    add_sets(parser)
    parser.add_argument("--lexicon", type=Path, default=LEXICON)
    parser.add_argument("--limit", type=int, default=0, help="pairs a set at most (a try)")
    parser.add_argument(
        "--sources", nargs="+", choices=SOURCES, default=["dictionary"], help="nouns from"
    )
    parser.add_argument(
        "--seen-from",
        type=int,
        default=1,
        help="training uses from which a word counts as known (1: only never-seen words get a "
        "noun; 3: words seen once or twice too)",
    )
    parser.add_argument("--out", type=Path, default=Path("bench/unseen"))
    args = parser.parse_args(argv)
    if not args.lexicon.is_file():
        raise SystemExit(f"unseen_nouns: {args.lexicon} is absent (see ../shared)")
    print(harness.machine_line(2))
    info = resolve(args.run)
    # plain: no nouns placed, whatever the model's decode.json asks (version 9 asks for cognates)
    options = TranslateOptions(decode=DecodeConfig(beam_size=5, batch_size=32), cognates=False)
    translator = open_translator(info, options)
    counts = words.training_counts(read_word_stats(info.directory / WORD_STATS))
    known = frozenset(word for word, count in counts.items() if count >= args.seen_from)
    dictionary = read_dictionary(args.lexicon)
    helpers = {}
    for source in args.sources:
        helper = translator.with_options(
            replace(
                options,
                dictionary=None if source == "cognates" else dictionary,
                cognates=source != "dictionary",
            )
        )
        assert helper.unseen is not None
        if args.seen_from > 1:  # rarely seen words get nouns too
            helper.unseen = UnseenNouns(helper.unseen.nouns, known, name=helper.unseen.name)
        helpers[source] = helper
    figures, samples, outputs = {}, [], {}
    for name, english, references, attested in dev_sets(args, info):
        plain = [t.text for t in translator.translate(english)]
        figures[name] = {"pairs": len(english), "plain": _scores(plain, references, attested)}
        for source, helper in helpers.items():
            assert helper.unseen is not None
            glossaries = [helper.unseen.glossary(line) for line in english]
            asked = [i for i, glossary in enumerate(glossaries) if glossary is not None]
            # the other lines would come out as the plain ones (no glossary): not translated again
            helped = retranslated(helper, english, plain, asked)
            changed = [i for i in asked if helped[i] != plain[i]]
            samples += [(name, source, english[i], plain[i], helped[i]) for i in changed[:8]]
            outputs[f"{name}/{source}"] = [(english[i], plain[i], helped[i]) for i in changed]
            figures[name][source] = {
                "lines with a never-seen noun": len(asked),
                "lines changed": len(changed),
                **_scores(helped, references, attested),
            }
            moves = moved(figures[name], source, "never-seen words carried", bucket="never")
            print(
                f"{name} ({source}): {len(english)} pairs, {len(asked)} lines with a never-seen "
                f"noun, {len(changed)} changed; {moves}",
                flush=True,
            )
    args.out.mkdir(parents=True, exist_ok=True)
    out = {"run": args.run, "part": "dev", "sets": figures, "samples": samples, "changed": outputs}
    (args.out / "dev.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    for name, source, english, plain_text, helped_text in samples[:24]:
        print(f"[{name}, {source}] {english}\n   plain:  {plain_text}\n   helped: {helped_text}")
    return 0


def dev_sets(
    args: argparse.Namespace, info: ModelInfo
) -> Iterator[tuple[str, list[str], list[list[str]], list]]:
    """Each dev set of bench_general (`args.limit` pairs at most): its name, English, references
    and the words each pair attests (counted with `args.lexicon` and the model's word stats)."""
    table = words.open_word_table(dictionary=args.lexicon, word_stats=info.directory / WORD_STATS)
    for name, pairs in sets(args.general, args.domains, args.tatoeba, "dev", 1000).items():
        pairs = pairs[: args.limit] if args.limit else pairs
        english = [source for source, _ in pairs]
        references = [[target] for _, target in pairs]
        yield name, english, references, [words.attested(s, t, table=table) for s, t in pairs]


def retranslated(
    translator: Translator, english: list[str], plain: list[str], lines: list[int]
) -> list[str]:
    """The `plain` translations with the `lines` translated again by `translator`."""
    texts = list(plain)
    redone = translator.translate([english[i] for i in lines])
    for i, translation in zip(lines, redone, strict=True):
        texts[i] = translation.text
    return texts


def moved(row: dict, variant: str, carried: str, *, bucket: str) -> str:
    """BLEU, chrF and the share of the `bucket` words carried, from the row's plain translation
    to its `variant`, for the log line."""
    plain, ours = row["plain"], row[variant]
    return (
        f"BLEU {plain['bleu']:.2f} -> {ours['bleu']:.2f}, chrF {plain['chrf']:.2f} -> "
        f"{ours['chrf']:.2f}; {carried} {_share(plain['words'][bucket])} -> "
        f"{_share(ours['words'][bucket])}"
    )


def _scores(output: list[str], references: list[list[str]], attested: list) -> dict:
    scores = corpus_scores(output, references)
    shares = {b: t.share for b, t in words.tally(attested, output).items()}
    return {"bleu": scores.bleu, "chrf": scores.chrf, "words": shares}


def _share(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.1f}%"


if __name__ == "__main__":
    raise SystemExit(main())
