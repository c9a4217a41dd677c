"""`make bench-shipped`: what a person feels of the shipped model, and what its storage costs.

    python -m benchmarks.serving.bench_shipped [--model en-es-general-2] [--run runs/model] \
        [--dev DEV.tsv]

1. Start-up, as a person meets it, in a user folder and cache of its own (MT_HOME, MT_CACHE):
   `mt translate "<sentence>"` with no model argument, cold: the first call (which makes the
   shipped model's int8 copy and derived tables, once), then the median of three, for a careful
   sentence and a casually typed one, and again with two busy processes on the machine; `mt serve`
   with no argument: seconds from the command to the first answer of POST /translate. Targets
   (issue 53): translate <= 1.0 s, <= 2.0 s on the loaded machine, serve <= 3 s.
2. Storage: the shipped weights (bfloat16, widened to float32 to compute) beside the run they came
   from (float32) and the shipped model's CTranslate2 int8 export: bytes on disk, and BLEU / chrF
   and sentences/s (beam 5, --threads) on --dev (english<TAB>spanish; a development set, where the
   choice is made). Target: the bfloat16 weights within 0.3 BLEU of the float32 run's.

The figures go to --out/results.json (benchmarks/harness.py); exit status 1 on a missed target.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import httpx
from rich.console import Console
from rich.table import Table

from benchmarks import harness
from benchmarks.harness import Target, report
from mt.catalog.modelinfo import ModelInfo, resolve
from mt.config import DecodeConfig
from mt.data.prepared_dir import read_pairs
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.evaluate.scores import corpus_scores
from mt.export.writer import export_run

PROBE = "The committee approved the report on Tuesday."
CASUAL = "where is teh train station"
MT = Path(sys.executable).with_name("mt")


def cold_translate(model: str | None, sentence: str = PROBE) -> tuple[float, str]:
    """Seconds of one `mt translate "SENTENCE"` (a new process) and what it printed."""
    command = [str(MT), "translate", sentence] + (["--model", model] if model else [])
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return time.perf_counter() - started, done.stdout.strip()


def median_cold(model: str | None, sentence: str = PROBE) -> tuple[float, list[float], str]:
    times, printed = zip(*(cold_translate(model, sentence) for _ in range(3)), strict=True)
    return statistics.median(times), list(times), printed[0]


@contextlib.contextmanager
def busy_machine(processes: int = 2) -> Iterator[None]:
    """`processes` busy loops beside the measurement: a loaded machine."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]
    try:
        time.sleep(1.0)
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def serve_first_answer(model: str | None, port: int, timeout: float = 60.0) -> float:
    """Seconds from starting `mt serve` (no model argument where `model` is None: the default)
    to its first translation."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(MT), "serve", *([model] if model else []), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            while time.perf_counter() - started < timeout:
                try:
                    answer = client.post("/translate", json={"q": PROBE, "target": "es"})
                    if answer.status_code == 200:
                        return time.perf_counter() - started
                except httpx.TransportError:
                    pass
                time.sleep(0.05)
        return float("nan")
    finally:
        process.terminate()
        process.wait(30)


def scored(model: ModelInfo, pairs: list[tuple[str, str]], threads: int) -> dict[str, float]:
    options = TranslateOptions(decode=DecodeConfig(beam_size=5, batch_size=32))
    translator = open_translator(model, options, threads=threads, device="cpu")
    started = time.perf_counter()
    outputs = [t.text for t in translator.translate([source for source, _ in pairs])]
    seconds = time.perf_counter() - started
    scores = corpus_scores(outputs, [[target] for _, target in pairs])
    return {"bleu": scores.bleu, "chrf": scores.chrf, "sentences_per_second": len(pairs) / seconds}


def language_check(paths: list[Path]) -> dict[str, dict[str, int]]:
    """How often `surely_english` answers for py3langid (lines of 12+ letters, as not_english
    asks), and on how many of those py3langid would have flagged the line not English: on each
    side of the english<TAB>spanish files, the Spanish standing in for other languages."""
    from mt.quality.flags import MIN_LETTERS_FOR_LANGUAGE, not_english, surely_english

    counts = {side: {"lines": 0, "surely_english": 0, "flagged_anyway": 0} for side in ("en", "es")}
    for path in paths:
        for pair in read_pairs(path):
            for side, text in zip(("en", "es"), pair, strict=True):
                if sum(char.isalpha() for char in text) < MIN_LETTERS_FOR_LANGUAGE:
                    continue
                row = counts[side]
                row["lines"] += 1
                if surely_english(text):
                    row["surely_english"] += 1
                    with mock.patch("mt.quality.flags.surely_english", lambda _: False):
                        row["flagged_anyway"] += not_english(text)
    return counts


def disk_bytes(folder: Path, names: tuple[str, ...]) -> int:
    return sum((folder / name).stat().st_size for name in names if (folder / name).exists())


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--model", default=None, help="default: the shipped default")
    parser.add_argument("--run", type=Path, help="the float32 run the model was shipped from")
    parser.add_argument("--dev", type=Path, help="english<TAB>spanish development pairs")
    harness.add_limit(parser, 1000, help="pairs of --dev scored")
    parser.add_argument(
        "--language-check",
        type=Path,
        nargs="*",
        default=[],
        help="english<TAB>spanish dev files the language check's shortcut is measured on",
    )
    harness.add_threads(parser)
    parser.add_argument("--port", type=int, default=8731)
    harness.add_out(parser, Path("bench/shipped"), help="results.json goes here")
    args = parser.parse_args(argv)
    console = Console()
    console.print(harness.machine_line(args.threads))
    info = resolve(args.model)

    first_s, _ = cold_translate(args.model)
    translate_s, times, printed = median_cold(args.model)
    console.print(
        f'mt translate "{PROBE}": {printed}; first call {first_s:.2f} s, then cold '
        f"{translate_s:.2f} s (median of 3)"
    )
    cold_translate(args.model, CASUAL)  # its derived tables, once
    casual_s, casual_times, casual = median_cold(args.model, CASUAL)
    console.print(f'mt translate "{CASUAL}": {casual}; cold {casual_s:.2f} s')
    with busy_machine():
        loaded_s, loaded_times, _ = median_cold(args.model)
    console.print(f"the same with two busy processes beside it: {loaded_s:.2f} s")
    serve_s = serve_first_answer(args.model, args.port)
    console.print(f"mt serve: first translation {serve_s:.2f} s after the command")
    figures: dict[str, object] = {
        "model": info.label,
        "translate_first_call_seconds": first_s,
        "translate_cold_seconds": times,
        "translate_cold_median": translate_s,
        "translate_casual_cold_seconds": casual_times,
        "translate_casual_cold_median": casual_s,
        "translate_loaded_cold_seconds": loaded_times,
        "translate_loaded_cold_median": loaded_s,
        "serve_first_answer_seconds": serve_s,
    }
    targets = [
        Target("mt translate, cold, s", translate_s, "<=", 1.0),
        Target("mt translate, casual input, cold, s", casual_s, "<=", 1.0),
        Target("mt translate, cold, loaded machine, s", loaded_s, "<=", 2.0),
        Target("mt serve to first answer, s", serve_s, "<=", 3.0),
    ]
    if args.language_check:
        checked = language_check(args.language_check)
        figures["language_check"] = {"files": [str(p) for p in args.language_check], **checked}
        english, spanish = checked["en"], checked["es"]
        console.print(
            f"language check: {english['surely_english']:,} of {english['lines']:,} English "
            f"lines pass as surely English without py3langid ({spanish['surely_english']} of "
            f"{spanish['lines']:,} Spanish); py3langid flags "
            f"{english['flagged_anyway'] + spanish['flagged_anyway']} of them not English"
        )
        flagged = english["flagged_anyway"] + spanish["flagged_anyway"]
        targets.append(
            Target("lines the shortcut keeps from the not_english flag", flagged, "<=", 0)
        )
    if args.dev:
        pairs = read_pairs(args.dev)[: args.limit]
        weights = ("best.safetensors",)
        with tempfile.TemporaryDirectory() as tmp:
            export = Path(tmp) / "int8"
            export_run(info, export, quantization="int8")
            rows = {
                "shipped, bfloat16 weights": (info, disk_bytes(info.directory, weights)),
                "CTranslate2 int8 export": (
                    resolve(export),
                    disk_bytes(export / "ctranslate2", ("model.bin",)),
                ),
            }
            if args.run:
                rows["run, float32 weights"] = (resolve(args.run), disk_bytes(args.run, weights))
            formats = {
                name: {"bytes": size, **scored(model, pairs, args.threads)}
                for name, (model, size) in rows.items()
            }
        figures["formats"] = {"dev": str(args.dev), "pairs": len(pairs), "rows": formats}
        table = Table(title=f"{len(pairs)} pairs of {args.dev}, beam 5, {args.threads} threads")
        for column in ("weights", "MB", "BLEU", "chrF", "sentences/s"):
            table.add_column(column, justify="left" if column == "weights" else "right")
        for name, row in formats.items():
            table.add_row(
                name, f"{row['bytes'] / 1e6:.1f}", f"{row['bleu']:.2f}", f"{row['chrf']:.2f}",
                f"{row['sentences_per_second']:.1f}",
            )  # fmt: skip
        console.print(table)
        if args.run:
            loss = (
                formats["run, float32 weights"]["bleu"]
                - formats["shipped, bfloat16 weights"]["bleu"]
            )
            targets.append(Target("BLEU lost to bfloat16 storage", loss, "<=", 0.3))
    return report(args.out / "results.json", figures, targets, threads=args.threads)


if __name__ == "__main__":
    os.environ.setdefault("COLUMNS", "120")
    # A person's mt has its bytecode (pip writes it at install; an editable install, at the first
    # run, which is not counted): this machine's PYTHONDONTWRITEBYTECODE=1 would have every call
    # compile mt's modules again.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as user:  # a first start, as after installing mt
        for name in ("MT_HOME", "MT_CACHE"):
            os.environ[name] = str(Path(user) / name.lower())
        os.environ["MT_PRECISION_CACHE"] = str(Path(user) / "precision.json")
        sys.exit(main())
