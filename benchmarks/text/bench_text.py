"""`make bench-text`: how `mt translate` does on text as people type and send it.

    python -m benchmarks.text.bench_text --run bench/model --data bench/data [--noisy-run RUN]

On a seeded sample of the test part (--limit pairs, beam 5) it prints BLEU and chrF for:
- the clean sentences, one per line;
- paragraphs: 4 test sentences joined on one line, scored against the 4 references joined, with
  sentence splitting (the default) and with --no-split;
- casual typing (first, in a table of its own, on --casual-part): the seeded casual variant of
  mt.text.casual (lower case, no final punctuation, no apostrophes, a few typos) against the clean
  sentences, each translated as typed, with each step of the input normalisation
  (mt.text.normalize) alone, with the default steps (all four), with all but the typo step, with
  the default and the output's form restored; and the clean sentences that normalising leaves
  unchanged; greedy (--casual-beam)
  on --limit pairs; the run's --source-noise is printed;
- with --noisy-run, the same for a model trained with --source-noise;
- names and numbers: test sentences whose name or number also stands in the reference, with it
  replaced by a name or number that never occurs in the training data; the share of outputs
  holding it unchanged (the copy rate);
- the round trip of a live pipe: `mt translate --model RUN` as a co-process, one line written, its
  translation read, then the next (median and 90th percentile after the first).
Nothing is written to disk; the machine and its load average are printed, as it may be shared.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import select
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch
from rich.console import Console
from rich.table import Table

from benchmarks import harness
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.data.prepared_dir import read_pairs
from mt.decode.options import TranslateOptions
from mt.decode.run_tables import word_stats_for
from mt.decode.translator import Translator, open_translator
from mt.evaluate.scores import corpus_scores
from mt.text.casual import casual_variants
from mt.text.normalize import STEPS, Normalizer

PARAGRAPH = 4
KNOWN_NAMES = ("Tom", "Mary", "John", "Alice", "Bob", "Ken", "Jim", "Jane", "Mike", "Emily")
UNSEEN_NAMES = (
    "Zbigniew", "Oluwaseun", "Thandeka", "Radomir", "Siobhan", "Kazimierz", "Ngozi", "Eilidh",
    "Tadeusz", "Yevgenia", "Aoife", "Chidi", "Ximena", "Dragomir", "Leocadia", "Bartosz",
)  # fmt: skip
QUESTION_WORDS = frozenset((
    "what", "where", "who", "whom", "whose", "why", "when", "how", "which", "is", "are", "am",
    "was", "were", "do", "does", "did", "can", "could", "will", "would", "should", "shall", "may",
    "might", "have", "has", "had", "isn't", "aren't", "wasn't", "weren't", "don't", "doesn't",
    "didn't", "can't", "couldn't", "won't", "wouldn't", "shouldn't", "haven't", "hasn't",
))  # fmt: skip


def restore_form(source: str, output: str) -> str:
    """What casual input lost, put back in the Spanish: a capital first letter when the English
    began in lower case, and final punctuation (¿...? after an English question word, else ".")
    when neither the English nor the output ends in any."""
    if not output:
        return output
    if source[-1:] not in ".!?" and output[-1] not in ".!?…":
        first = source.split()[0].lower() if source.split() else ""
        output = f"¿{output}?" if first in QUESTION_WORDS else f"{output}."
    if source[:1].islower():
        lead = len(output) - len(output.lstrip("¿¡\"'«"))
        output = output[:lead] + output[lead : lead + 1].upper() + output[lead + 1 :]
    return output


def translated(translator: Translator, sources: list[str]) -> tuple[list[str], float]:
    """The outputs and lines per second."""
    started = time.perf_counter()
    outputs = [t.text for t in translator.translate(sources)]
    return outputs, len(sources) / (time.perf_counter() - started)


def score(outputs: list[str], rate: float, refs: list[str]) -> dict:
    scores = corpus_scores(outputs, [[r] for r in refs])
    return {"bleu": scores.bleu, "chrf": scores.chrf, "lines/s": rate}


def casual_rows(
    translator: Translator, sources: list[str], refs: list[str], seed: int
) -> Iterator[tuple[str, dict]]:
    """(input, scores) for the clean sentences and their casual variant, as typed and normalised
    step by step, the most telling first; the translator's own normalizer is left as it was."""
    stats = word_stats_for(translator.run.directory)
    casual_sources = casual_variants(sources, seed)
    default = Normalizer.from_stats(stats)
    no_typos = Normalizer.from_stats(stats, frozenset(STEPS) - {"typos"})
    unchanged = sum(default(s) == s for s in sources)
    yield f"clean sentences the default leaves unchanged: {unchanged} of {len(sources)}", {}
    settings = [("clean", None, sources), ("casual", None, casual_sources)]
    settings += [(f"casual, default ({len(default.steps)} steps)", default, casual_sources)]
    settings += [("clean, default", default, sources)]
    settings += [("casual, all but typos", no_typos, casual_sources)]
    settings += [
        (f"casual + {step} only", Normalizer.from_stats(stats, frozenset([step])), casual_sources)
        for step in STEPS
    ]
    for name, normalizer, texts in settings:
        options = replace(
            translator.options, normalize=normalizer is not None, normalizer=normalizer
        )
        outputs, rate = translated(translator.with_options(options), texts)
        yield name, score(outputs, rate, refs)
        if normalizer is default and texts is casual_sources:
            restored = [restore_form(s, o) for s, o in zip(texts, outputs, strict=True)]
            yield "casual, default + output form", score(restored, rate, refs)


def check_set(
    pairs: list[tuple[str, str]], train_text: str, rng: np.random.Generator, size: int
) -> list[tuple[str, str, str]]:
    """(English, expected copy, kind): a name or number of the reference, in the English, swapped
    for one that never occurs in training."""
    names = [n for n in UNSEEN_NAMES if not re.search(rf"\b{n}\b", train_text, re.IGNORECASE)]
    seen_numbers = set(re.findall(r"\d+", train_text))
    cases: list[tuple[str, str, str]] = []
    for en, es in pairs:
        words = set(re.findall(r"\b\w+\b", en))
        known = [n for n in KNOWN_NAMES if n in words and re.search(rf"\b{n}\b", es)]
        numbers = [d for d in re.findall(r"\b\d+\b", en) if re.search(rf"\b{d}\b", es)]
        if known and len([c for c in cases if c[2] == "name"]) < size:
            new = str(rng.choice(names))
            cases.append((re.sub(rf"\b{known[0]}\b", new, en), new, "name"))
        if numbers and len([c for c in cases if c[2] == "number"]) < size:
            new = str(rng.integers(100, 100_000))
            while new in seen_numbers:
                new = str(rng.integers(100, 100_000))
            cases.append((re.sub(rf"\b{numbers[0]}\b", new, en), new, "number"))
    return cases


def copy_rates(translator: Translator, cases: list[tuple[str, str, str]]) -> dict[str, str]:
    outputs = [t.text for t in translator.translate([en for en, _, _ in cases])]
    rates = {}
    for kind in ("name", "number", "all"):
        hits = [
            re.search(rf"(?<!\w){re.escape(new)}(?!\w)", out) is not None
            for (_, new, k), out in zip(cases, outputs, strict=True)
            if kind in (k, "all")
        ]
        rates[kind] = f"{100 * sum(hits) / max(len(hits), 1):.1f}% of {len(hits)}"
    return rates


def _read_line(fd: int, timeout: float) -> bytes:
    data, deadline = b"", time.monotonic() + timeout
    while not data.endswith(b"\n"):
        if not select.select([fd], [], [], max(deadline - time.monotonic(), 0))[0]:
            raise SystemExit(f"no answer from the co-process within {timeout:.0f} s")
        chunk = os.read(fd, 65536)
        if not chunk:
            raise SystemExit("the co-process ended early")
        data += chunk
    return data


def round_trips(run: Path, lines: list[str], threads: int) -> list[float]:
    """Seconds from writing each line into a live `mt translate` to reading its translation."""
    command = [sys.executable, "-m", "mt", "translate", "--model", str(run), "--device", "cpu"]
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    times = []
    try:
        for line in lines:
            started = time.perf_counter()
            process.stdin.write(line.encode() + b"\n")
            process.stdin.flush()
            _read_line(process.stdout.fileno(), 300)
            times.append(time.perf_counter() - started)
        process.stdin.close()
        process.wait(timeout=60)
    finally:
        process.kill()
    return times


def casual_table(console: Console, model: str, run: Path, args: argparse.Namespace) -> None:
    """The casual-typing table of one run on --limit pairs of --casual-part (seed 0)."""
    pairs = read_pairs(args.data / f"{args.casual_part}.tsv")
    rng = np.random.default_rng(0)
    sample = [pairs[i] for i in sorted(rng.permutation(len(pairs))[: args.limit])]
    translator = open_translator(
        resolve(run),
        TranslateOptions(decode=DecodeConfig(beam_size=args.casual_beam)),
        device="cpu",
    )
    stored = json.loads((run / "train.json").read_text())["train"]
    kinds = stored.get("source_noise_kinds", "lower,punctuation")
    noise = f"{stored.get('source_noise', 0.0)} ({kinds})"
    console.print(
        f"{model}: {len(sample)} {args.casual_part} pairs, beam {args.casual_beam}, "
        f"casual seed {args.casual_seed}, --source-noise {noise}"
    )
    rows = casual_rows(
        translator, [en for en, _ in sample], [es for _, es in sample], args.casual_seed
    )
    for name, result in rows:  # printed as they come: the whole table takes a while
        figures = f"BLEU {result['bleu']:6.2f}  chrF {result['chrf']:6.2f}" if result else ""
        console.print(f"  {name:<34} {figures}", highlight=False)


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    harness.add_run(parser, default=Path("bench/model"), help="a run (PyTorch)")
    harness.add_data(parser, default=Path("bench/data"))
    parser.add_argument("--noisy-run", type=Path, default=None)
    harness.add_limit(parser, 2000, help="test pairs sampled (seed 0)")
    parser.add_argument("--names", type=int, default=200, help="check-set size per kind")
    parser.add_argument("--trips", type=int, default=21, help="co-process round trips")
    harness.add_threads(parser)
    parser.add_argument("--casual-part", choices=("selection", "test"), default="selection")
    parser.add_argument("--casual-beam", type=int, default=1, help="beam of the casual table")
    parser.add_argument("--casual-seed", type=int, default=0, help="seed of the casual variant")
    parser.add_argument(
        "--casual-only", action="store_true", help="print the casual table and stop"
    )
    args = parser.parse_args(argv)
    console = Console()
    torch.set_num_threads(args.threads)
    console.print(harness.machine_line(args.threads))
    for path in (args.run / "best.safetensors", args.data / "test.tsv"):
        if not path.exists():
            raise SystemExit(f"{path} is missing (see the Makefile's bench target)")
    runs = [("bench", args.run)] + ([("noisy", args.noisy_run)] if args.noisy_run else [])
    for model, run in runs:
        casual_table(console, model, run, args)
    if args.casual_only:
        return 0
    rng = np.random.default_rng(0)
    test = read_pairs(args.data / "test.tsv")
    sample = [test[i] for i in sorted(rng.permutation(len(test))[: args.limit])]
    sources, refs = [en for en, _ in sample], [es for _, es in sample]
    config = DecodeConfig(beam_size=5)

    table = Table(title=f"{len(sample)} test pairs, beam 5")
    for column in ("model", "input", "BLEU", "chrF", "lines/s"):
        table.add_column(column)

    def row(model: str, name: str, result: dict) -> None:
        table.add_row(
            model,
            name,
            f"{result['bleu']:.2f}",
            f"{result['chrf']:.2f}",
            f"{result['lines/s']:.1f}",
        )

    cut = len(sample) // PARAGRAPH * PARAGRAPH
    paragraphs = [" ".join(sources[i : i + PARAGRAPH]) for i in range(0, cut, PARAGRAPH)]
    joined_refs = [" ".join(refs[i : i + PARAGRAPH]) for i in range(0, cut, PARAGRAPH)]
    for model, run in runs:
        translator = open_translator(resolve(run), TranslateOptions(decode=config), device="cpu")
        row(model, "clean, one a line", score(*translated(translator, sources), refs=refs))
        if model == "bench":
            plain = translator.with_options(replace(translator.options, placeholders=False))
            row(model, "clean, no placeholders", score(*translated(plain, sources), refs=refs))
            split, rate = translated(translator, paragraphs)
            row(model, "paragraphs of 4, split", score(split, rate, joined_refs))
            whole = open_translator(
                resolve(run), TranslateOptions(decode=config, split=False), device="cpu"
            )
            row(
                model,
                "paragraphs of 4, --no-split",
                score(*translated(whole, paragraphs), refs=joined_refs),
            )
    console.print(table)

    train_text = (args.data / "train.tsv").read_text(encoding="utf-8")
    cases = check_set(test, train_text, rng, args.names)
    for model, run in runs:
        translator = open_translator(resolve(run), TranslateOptions(decode=config), device="cpu")
        for placeholders in (False, True):
            options = replace(translator.options, placeholders=placeholders)
            rates = copy_rates(translator.with_options(options), cases)
            console.print(
                f"copy rate ({model}, placeholders {'on' if placeholders else 'off'}): "
                + "  ".join(f"{kind}: {rate}" for kind, rate in rates.items())
            )

    trips = round_trips(args.run, sources[: args.trips], args.threads)
    later = sorted(trips[1:])
    console.print(
        f"co-process round trip (beam 5): first {trips[0]:.2f} s (start-up included), then "
        f"median {statistics.median(later) * 1000:.0f} ms, "
        f"90th percentile {later[math.ceil(0.9 * len(later)) - 1] * 1000:.0f} ms over {len(later)}"
    )
    console.print(f"load average at the end: {harness.load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
