"""`make bench-shipped`: what a person feels of the shipped model, and what its storage costs.

    python benchmarks/bench_shipped.py [--model en-es-general-1] [--run runs/model] [--dev DEV.tsv]

1. Start-up, as a person meets it: `mt translate "<sentence>"` with no model argument, cold, three
   times (the median), and `mt serve` with no argument: seconds from the command to the first
   answer of POST /translate. Targets: translate <= 1.0 s (issue 53) and serve <= 5 s (issue 50).
2. Storage: the shipped weights (bfloat16, widened to float32 to compute) beside the run they came
   from (float32) and the shipped model's CTranslate2 int8 export: bytes on disk, and BLEU / chrF
   and sentences/s (beam 5, --threads) on --dev (english<TAB>spanish; a development set, where the
   choice is made). Target: the bfloat16 weights within 0.3 BLEU of the float32 run's.

The figures go to --out/results.json (benchmarks/targets.py); exit status 1 on a missed target.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from machine import describe, load_average
from rich.console import Console
from rich.table import Table
from targets import Target, report

from mt.config import DecodeConfig
from mt.data.prepared_dir import read_pairs
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.evaluate.scores import corpus_scores
from mt.export.writer import export_run
from mt.models import resolve

PROBE = "The committee approved the report on Tuesday."
MT = Path(sys.executable).with_name("mt")


def cold_translate(model: str | None) -> tuple[float, str]:
    """Seconds of one `mt translate "PROBE"` (a new process) and what it printed."""
    command = [str(MT), "translate", PROBE] + (["--model", model] if model else [])
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return time.perf_counter() - started, done.stdout.strip()


def serve_first_answer(port: int, timeout: float = 60.0) -> float:
    """Seconds from starting `mt serve` (no model argument) to its first translation."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(MT), "serve", "--port", str(port)],
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


def scored(model, pairs: list[tuple[str, str]], threads: int) -> dict[str, float]:
    options = TranslateOptions(decode=DecodeConfig(beam_size=5, batch_size=32))
    translator = open_translator(model, options, threads=threads, device="cpu")
    started = time.perf_counter()
    outputs = [t.text for t in translator.translate([source for source, _ in pairs])]
    seconds = time.perf_counter() - started
    scores = corpus_scores(outputs, [[target] for _, target in pairs])
    return {"bleu": scores.bleu, "chrf": scores.chrf, "sentences_per_second": len(pairs) / seconds}


def disk_bytes(folder: Path, names: tuple[str, ...]) -> int:
    return sum((folder / name).stat().st_size for name in names if (folder / name).exists())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="default: the shipped default")
    parser.add_argument("--run", type=Path, help="the float32 run the model was shipped from")
    parser.add_argument("--dev", type=Path, help="english<TAB>spanish development pairs")
    parser.add_argument("--limit", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--port", type=int, default=8731)
    parser.add_argument("--out", type=Path, default=Path("bench/shipped"))
    args = parser.parse_args()
    console = Console()
    console.print(describe(args.threads), f"load average {load_average()}")
    info = resolve(args.model)

    times, printed = zip(*(cold_translate(args.model) for _ in range(3)), strict=True)
    translate_s = statistics.median(times)
    console.print(f'mt translate "{PROBE}": {printed[0]}; cold {translate_s:.2f} s (median of 3)')
    serve_s = serve_first_answer(args.port)
    console.print(f"mt serve: first translation {serve_s:.2f} s after the command")
    figures: dict[str, object] = {
        "model": info.label,
        "translate_cold_seconds": list(times),
        "translate_cold_median": translate_s,
        "serve_first_answer_seconds": serve_s,
    }
    targets = [
        Target("mt translate, cold, s", translate_s, "<=", 1.0),
        Target("mt serve to first answer, s", serve_s, "<=", 5.0),
    ]
    if args.dev:
        pairs = read_pairs(args.dev)[: args.limit]
        weights = ("best.safetensors",)
        with tempfile.TemporaryDirectory() as tmp:
            export = Path(tmp) / "int8"
            export_run(info, export, quantization="int8")
            rows = {
                "shipped, bfloat16 weights": (info, disk_bytes(info.directory, weights)),
                "CTranslate2 int8 export": (
                    export,
                    disk_bytes(export / "ctranslate2", ("model.bin",)),
                ),
            }
            if args.run:
                rows["run, float32 weights"] = (args.run, disk_bytes(args.run, weights))
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
    sys.exit(report(args.out / "results.json", figures, targets, threads=args.threads))


if __name__ == "__main__":
    os.environ.setdefault("COLUMNS", "120")
    main()
