"""Decided pysbd as the sentence splitter (docs/text.md, "Sentences").

Sentence splitters for `mt translate`, scored on the tricky cases of tests/split_cases.py.

    python -m experiments.bench_splitters [--data bench/data]

For each candidate that is installed (pip install pysbd sentencex syntok blingfire
sentence-splitter) it prints how many of the cases it splits exactly as a reader would and, with
--data, how many sentences it finds in paragraphs of 4 test sentences and how fast. mt uses the
one that splits most cases right (see mt.decode.segment); speed matters little next to decoding.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from benchmarks.harness import load_average  # noqa: E402
from split_cases import CASES  # noqa: E402

Splitter = Callable[[str], list[str]]


def candidates() -> dict[str, Splitter | str]:
    """Name -> splitter, or the reason it is missing."""
    found: dict[str, Splitter | str] = {}
    try:
        import pysbd

        segmenter = pysbd.Segmenter(language="en", clean=False)
        found["pysbd"] = lambda text: [s.strip() for s in segmenter.segment(text) if s.strip()]
    except ImportError:
        found["pysbd"] = "not installed"
    try:
        import sentencex

        found["sentencex"] = lambda text: [
            s.strip() for s in sentencex.segment("en", text) if s.strip()
        ]
    except ImportError:
        found["sentencex"] = "not installed"
    try:
        from syntok import segmenter as syntok

        found["syntok"] = lambda text: [
            "".join(str(token) for token in sentence).strip()
            for paragraph in syntok.analyze(text)
            for sentence in paragraph
        ]
    except ImportError:
        found["syntok"] = "not installed"
    try:
        import blingfire

        found["blingfire"] = lambda text: [
            s.strip() for s in blingfire.text_to_sentences(text).split("\n") if s.strip()
        ]
    except ImportError:
        found["blingfire"] = "not installed"
    try:
        from sentence_splitter import SentenceSplitter

        moses = SentenceSplitter(language="en")
        found["sentence-splitter"] = lambda text: [
            s.strip() for s in moses.split(text) if s.strip()
        ]
    except ImportError:
        found["sentence-splitter"] = "not installed"
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="prepared dir with test.tsv")
    parser.add_argument("--paragraphs", type=int, default=1000)
    parser.add_argument("--show", action="store_true", help="print each missed case")
    args = parser.parse_args()
    print(f"load average: {load_average()}")
    paragraphs: list[str] = []
    if args.data is not None:
        lines = (args.data / "test.tsv").read_text(encoding="utf-8").split("\n")[:-1]
        english = [line.split("\t")[0] for line in lines][: 4 * args.paragraphs]
        paragraphs = [" ".join(english[i : i + 4]) for i in range(0, len(english), 4)]
    for name, split in candidates().items():
        if isinstance(split, str):
            print(f"{name:18} {split}")
            continue
        missed = [(text, split(text)) for text, want in CASES if split(text) != want]
        report = f"{name:18} {len(CASES) - len(missed)}/{len(CASES)} tricky cases"
        if paragraphs:
            started = time.perf_counter()
            found = sum(len(split(p)) for p in paragraphs)
            rate = 4 * len(paragraphs) / (time.perf_counter() - started)
            report += (
                f"  {found}/{4 * len(paragraphs)} sentences in {len(paragraphs)} paragraphs of 4"
                f"  {rate:,.0f} sentences/s"
            )
        print(report)
        for text, got in missed if args.show else []:
            print(f"    {text!r} -> {got!r}")


if __name__ == "__main__":
    main()
