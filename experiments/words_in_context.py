"""Decided the link on dictionary words in context does not ship (docs/release.md, its section).

Issue 66, item 2: Spanish sentences that hold the dictionary translation of an English word the
model's training English (nearly) never has, back-translated so that the English side carries
the rare word ("lavavajillas" -> "dishwasher"). They carried more never-seen words on every dev
set and cost the domains more BLEU; the data now travels with the GPU link (make gpu-pack).

Two steps around `mt backtranslate`:

    python -m experiments.words_in_context select ../shared/data/general/amlo.es.tsv.xz \\
        --model en-es-general-7 --out runs/words/amlo-chosen.tsv
    mt backtranslate runs/words/amlo-chosen.tsv --engine "apertium -u spa-eng" \\
        --out runs/words/amlo-bt.tsv
    python -m experiments.words_in_context keep runs/words/amlo-bt.tsv \\
        --model en-es-general-7 --out runs/words/amlo-words.tsv
    python -m experiments.words_in_context entries ../shared/data/lexicon/en-es.wiktionary.txt \\
        --out runs/words/entries.tsv

`select` indexes the dictionary's one-word translations (and their plurals) by the English words
they translate, keeps the words the model's words.tsv counts fewer than --max-count times (not
among the common words, 4 letters or more: the measure's words, mt.evaluate.words), reads the
paragraphs, and writes each sentence that holds such a translation while its word has fewer than
--per-word sentences (a sentence is counted for every rare word it may teach). `keep` keeps a
back-translated pair only when its English has one of the rare words whose translation its
Spanish holds: Spanish "banco" chosen for "shoal" but translated "bank" teaches nothing.
"""

from __future__ import annotations

import argparse
import collections
import lzma
import random
from pathlib import Path

from mt.catalog.modelinfo import DEFAULT_MODEL, resolve
from mt.evaluate import words
from mt.storage.files import WORD_STATS
from mt.text.bilingual import english_singulars, read_bilingual, read_noun_senses
from mt.text.sentences import sentence_spans
from mt.text.words import ANY_WORD
from mt.text.wordstats import read_word_stats, words_of

LEXICON = Path("../shared/data/lexicon/en-es.wiktionary.txt")


def rare_index(lexicon: Path, model: str, max_count: int) -> dict[str, frozenset[str]]:
    """Folded Spanish form -> the rare English words it translates."""
    info = resolve(model)
    table = words.word_table(
        read_bilingual(lexicon),
        common=words.common_english(),
        counts=words.training_counts(read_word_stats(info.directory / WORD_STATS)),
    )
    index: dict[str, set[str]] = collections.defaultdict(set)
    for english, spanish in table.translations.items():
        if len(english) < words.MIN_LETTERS or english in table.common:
            continue
        if table.counts.get(english, 0) >= max_count:
            continue
        for translation in spanish:
            if len(translation) < 3:
                continue
            for form in _plural_forms(translation):
                index[form].add(english)
    return {form: frozenset(found) for form, found in index.items()}


def _plural_forms(word: str) -> set[str]:
    forms = {word}
    if word.endswith("z"):
        forms.add(word[:-1] + "ces")
    elif word[-1] in "aeiou":
        forms.add(word + "s")
    else:
        forms.add(word + "es")
    return forms


def _paragraphs(path: Path):
    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            doc, _, text = line.rstrip("\n").partition("\t")
            if text:
                yield doc, text


def select(args: argparse.Namespace) -> None:
    index = rare_index(args.lexicon, args.model, args.max_count)
    rare = {english for found in index.values() for english in found}
    print(f"{len(index):,} Spanish forms of {len(rare):,} rare words")
    taken: collections.Counter[str] = collections.Counter()
    chosen = 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as out:
        for doc, paragraph in _paragraphs(args.spanish):
            forms = {words.fold(w) for w in ANY_WORD.findall(paragraph)}
            if not any(form in index for form in forms):
                continue
            for start, end in sentence_spans(paragraph, language="es"):
                sentence = paragraph[start:end]
                if not args.min_words <= len(sentence.split()) <= args.max_words:
                    continue
                wanted = {
                    english
                    for w in ANY_WORD.findall(sentence)
                    for english in index.get(words.fold(w), ())
                    if taken[english] < args.per_word
                }
                if wanted:
                    taken.update(wanted)
                    out.write(f"{doc}\t{sentence}\n")
                    chosen += 1
    print(f"{chosen:,} sentences for {len(taken):,} words -> {args.out}")


def keep(args: argparse.Namespace) -> None:
    index = rare_index(args.lexicon, args.model, args.max_count)
    kept, seen, taught = 0, 0, collections.Counter()
    with open(args.pairs, encoding="utf-8") as pairs, open(args.out, "w", encoding="utf-8") as out:
        for line in pairs:
            english, _, spanish = line.rstrip("\n").partition("\t")
            seen += 1
            wanted = {e for w in ANY_WORD.findall(spanish) for e in index.get(words.fold(w), ())}
            english_words = set()
            for word in words_of(english):
                lower = word.lower()
                english_words.add(lower)
                english_words.update(english_singulars(lower))
            found = wanted & english_words
            if found:
                taught.update(found)
                out.write(line)
                kept += 1
    print(f"kept {kept:,} of {seen:,} pairs, teaching {len(taught):,} rare words -> {args.out}")
    sample = random.Random(0).sample(sorted(taught), min(25, len(taught)))
    print("e.g.", ", ".join(sample))


def entries(args: argparse.Namespace) -> None:
    """The dictionary's rare nouns as one-word pairs ("dishwasher", "lavavajillas"), their first
    one-word translation, as mt.decode.unseen would place it."""
    index = rare_index(args.lexicon, args.model, args.max_count)
    rare = {english for found in index.values() for english in found}
    written = 0
    with open(args.out, "w", encoding="utf-8") as out:
        for english, (spanish, *_) in read_noun_senses(args.lexicon).items():
            if english in rare:
                out.write(f"{english}\t{spanish}\n")
                written += 1
    print(f"{written:,} rare nouns -> {args.out}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("select", "keep", "entries"):
        command = commands.add_parser(name)
        command.add_argument("input", type=Path)
        command.add_argument("--model", default=DEFAULT_MODEL)  # v7 and v8: one words.tsv
        command.add_argument("--lexicon", type=Path, default=LEXICON)
        command.add_argument("--max-count", type=int, default=10)
        command.add_argument("--out", type=Path, required=True)
        if name == "select":
            command.add_argument("--per-word", type=int, default=8)
            command.add_argument("--min-words", type=int, default=4)
            command.add_argument("--max-words", type=int, default=60)
    args = parser.parse_args(argv)
    if args.command == "select":
        args.spanish = args.input
        select(args)
    elif args.command == "keep":
        args.pairs = args.input
        keep(args)
    else:
        args.lexicon = args.input
        entries(args)


if __name__ == "__main__":
    main()
