"""`make bench-student-shape`: what a deep-encoder, shallow-decoder student costs to decode beside
today's shape (issue 66, item 4: at least half of today's sentences/s).

    python -m benchmarks.speed.bench_student_shape [--data ../shared/data/general/tico19.tsv] \
        [--model en-es-general-12] [--shapes today,student,8+2,d384] [--threads 2] [--beam 5] \
        [--repeats 3] [--out bench/student-shape]

The shapes (SHAPES) are the shipped model's (--model: its vocabularies and pre-norm layout) with
their own depths and widths: today's 2+2 layers, d 256, ff 512, 8 heads, against the candidate
student of 6+2 layers and ff 1536 (Firefox Translations' students; Kasai et al. 2021: the encoder
runs once a sentence, the decoder once an output token), and, to show the margin, 8+2 layers and
the student at d 384. Each is built with random weights (seed 0), converted to CTranslate2 int8 by
mt's own converter (mt.export.converter), and searched as `mt translate` searches an int8 copy on
a CPU: --threads workers of one thread, sub-batches of 32, beam 5, no length penalty.

Random weights translate into garbage of any length, so the output lengths are forced, the same
for every shape: the English lines of --data (english<TAB>spanish; TICO-19 by default, else
FLORES dev) are sorted by the length in target labels of their reference translation (the
shipped target tokenizer's), cut into batches of 64 (mt's decoding batch), and each batch is
decoded with CTranslate2's min_decoding_length = max_decoding_length = its longest reference: every
sentence of both shapes runs the same number of decoder steps, close to its own reference's, and
the encoder reads the real English. The output tokens are counted and must be equal between
shapes. No translation is judged, so reading a whole dev file chooses nothing on it.

Each shape decodes every line --repeats times (3), the shapes in turn within each round, and its
median sentences/s is kept: a shared machine's load moves one pass by a quarter. Printed: the
machine (CPU model, whether it has avx512_bf16 or only AVX2) and its load average before and
after, each shape's sentences/s, its ratio to today's, its parameters and int8 model.bin size.
Target: the student at >= 0.5x today's sentences/s (and equal output tokens). The figures go to
--out/results.json (benchmarks/harness.py); exit 1 on a miss, 2 when --data is absent.
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks import harness
from benchmarks.harness import Target, report
from mt.config import ModelConfig

FILES = ("tico19.tsv", "flores-dev.tsv")
"""The dev files tried in turn under harness.GENERAL when --data is not given."""
BATCH = 64
"""Sentences per decoding call: mt's decoding batch (mt.config.DECODE.batch_size)."""
MIN_RATIO = 0.5
"""The student's sentences/s over today's shape's: issue 66 asks for at least half."""


@dataclass(frozen=True)
class Shape:
    """The fields of ModelConfig a shape sets, by their names there."""

    encoder_layers: int
    decoder_layers: int
    d_model: int
    ff: int
    heads: int

    def config(self, base: ModelConfig) -> ModelConfig:
        """`base` (the shipped model's config) with this shape."""
        return dataclasses.replace(base, layers=self.decoder_layers, **dataclasses.asdict(self))

    def describe(self) -> str:
        depths = f"{self.encoder_layers}+{self.decoder_layers}"
        return f"{depths}, d {self.d_model}, ff {self.ff}, {self.heads} heads"


SHAPES = {
    "today": Shape(2, 2, 256, 512, 8),
    "student": Shape(6, 2, 256, 1536, 8),
    "8+2": Shape(8, 2, 256, 1536, 8),
    "d384": Shape(6, 2, 384, 1536, 8),
}


@dataclass(frozen=True)
class Batch:
    sources: list[list[str]]  # source pieces, ending in [EOS]
    length: int  # output labels every sentence is forced to
    reference_labels: int  # the batch's references' own labels, all told


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--data", type=Path, default=None, help="english<TAB>spanish dev lines")
    parser.add_argument("--model", default=None, help="whose vocabularies (the shipped default)")
    parser.add_argument("--shapes", default=",".join(SHAPES), help="of " + ", ".join(SHAPES))
    harness.add_limit(parser, 0, help="lines decoded at most (0: all)")
    harness.add_threads(parser, 2, help="CTranslate2 workers of one thread each, as mt's")
    harness.add_beam(parser, 5)
    parser.add_argument("--repeats", type=int, default=3, help="passes of each shape")
    harness.add_out(parser, Path("bench/student-shape"))
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.shapes.split(",")]
    if not {"today", "student"} <= set(names) <= set(SHAPES):
        parser.error(f"--shapes {args.shapes}: today, student and any of {', '.join(SHAPES)}")
    data = args.data or next(
        (harness.GENERAL / name for name in FILES if (harness.GENERAL / name).is_file()), None
    )
    if data is None or not data.is_file():
        where = data or " or ".join(str(harness.GENERAL / name) for name in FILES)
        print(f"bench-student-shape: {where} is absent (see its README.md)", file=sys.stderr)
        return 2
    return measure(args, data, names)


def measure(args, data: Path, names: list[str]) -> int:
    from mt.catalog.modelinfo import resolve
    from mt.data.tokenization import WordPieceCodec

    info = resolve(args.model)
    source = WordPieceCodec.load(info.source_tokenizer)
    target = WordPieceCodec.load(info.target_tokenizer)
    batches = forced_batches(read_pairs(data, args.limit), source, target, info.config)
    lines = sum(len(batch.sources) for batch in batches)
    forced = sum(len(batch.sources) * batch.length for batch in batches)
    references = sum(batch.reference_labels for batch in batches)
    print(harness.machine_line(args.threads), flush=True)
    print(
        f"isa: {isa()}; {lines} lines of {data}, beam {args.beam}, int8; output labels forced to "
        f"{forced:,} (their references have {references:,})",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="mt-student-shape-") as tmp:
        built = {name: build(SHAPES[name], info.config, source, target, Path(tmp) / name)
                 for name in names}  # fmt: skip
        translators = {name: load(path, args.threads) for name, (path, _, _) in built.items()}
        seconds, tokens = timed_rounds(translators, batches, args.beam, args.repeats)
    load_after = harness.load_average()
    rows = {}
    for name in names:
        speed = lines / statistics.median(seconds[name])
        rows[name] = {
            "shape": SHAPES[name].describe(),
            "sentences_per_second": round(speed, 1),
            "seconds": [round(s, 3) for s in seconds[name]],
            "parameters": built[name][1],
            "int8_bytes": built[name][2],
            "output_tokens": tokens[name],
        }
    for row in rows.values():
        row["ratio"] = round(row["sentences_per_second"] / rows["today"]["sentences_per_second"], 3)
    print_table(rows)
    print(f"load average after: {load_after}", flush=True)
    figures = {"data": str(data), "lines": lines, "beam": args.beam, "shapes": rows,
               "forced_labels": forced, "reference_labels": references, "isa": isa(),
               "load_average_after": load_after}  # fmt: skip
    checks = [
        Target("student sentences/s, x today's", rows["student"]["ratio"], ">=", MIN_RATIO),
        Target("student output tokens - today's", tokens["student"] - tokens["today"], "within", 0),
    ]
    return report(args.out / "results.json", figures, checks, threads=args.threads)


def read_pairs(path: Path, limit: int) -> list[tuple[str, str]]:
    """english<TAB>spanish lines (the shared general sets' layout), the first `limit` (0: all)."""
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        english, spanish = line.split("\t")[:2]
        if english.strip() and spanish.strip():
            pairs.append((english.strip(), spanish.strip()))
    return pairs[:limit] if limit else pairs


def forced_batches(
    pairs: list[tuple[str, str]], source, target, config: ModelConfig
) -> list[Batch]:
    """Batches of BATCH sentences in order of their references' length in target labels, each
    forced to its longest reference's length (at least one label)."""
    from mt.data.tokenization import source_ids

    ids = source_ids(source.encode_batch([en for en, _ in pairs]), config.max_positions - 1)
    lengths = [len(row) for row in target.encode_batch([es for _, es in pairs])]
    order = sorted(range(len(pairs)), key=lambda row: (lengths[row], len(ids[row])))
    batches = []
    for start in range(0, len(order), BATCH):
        rows = order[start : start + BATCH]
        pieces = [[source.id_to_piece(i) for i in ids[row]] for row in rows]
        longest = max(1, max(lengths[row] for row in rows))
        batches.append(Batch(pieces, longest, sum(lengths[row] for row in rows)))
    return batches


def build(shape: Shape, base: ModelConfig, source, target, out: Path) -> tuple[Path, int, int]:
    """A random-weight model of `shape` converted to CTranslate2 int8 in `out`: the folder, the
    parameter count, and model.bin's bytes."""
    import torch

    from mt.export.converter import MtConverter
    from mt.model.transformer import count_parameters, make_model

    config = shape.config(base)
    torch.manual_seed(0)
    model = make_model(config)
    weights = {name: t.detach().float().numpy() for name, t in model.state_dict().items()}
    MtConverter(
        config=config,
        weights=weights,
        source_vocabulary=[source.id_to_piece(i) for i in range(source.vocab_size)],
        target_vocabulary=[target.id_to_piece(i) for i in range(target.vocab_size)],
    ).convert(str(out), quantization="int8")
    return out, count_parameters(model), (out / "model.bin").stat().st_size


def load(path: Path, threads: int):
    """As mt.decode.ct2_engine.open_exported opens a model on a CPU: a worker a thread."""
    import ctranslate2

    return ctranslate2.Translator(
        str(path), device="cpu", compute_type="int8", inter_threads=threads, intra_threads=1
    )


def decode(translator, batches: list[Batch], beam: int) -> int:
    """Every batch searched as mt's Ct2Engine searches (alpha 0, one hypothesis, sub-batches of
    MAX_BATCH), its length forced; returns the output tokens."""
    from mt.decode.ct2_engine import MAX_BATCH

    tokens = 0
    for batch in batches:
        results = translator.translate_batch(
            batch.sources,
            beam_size=beam,
            num_hypotheses=1,
            length_penalty=0.0,
            min_decoding_length=batch.length,
            max_decoding_length=batch.length,
            max_input_length=0,
            max_batch_size=MAX_BATCH,
            return_scores=True,
            return_end_token=True,
        )
        tokens += sum(len(result.hypotheses[0]) for result in results)
    return tokens


def timed_rounds(
    translators: dict, batches: list[Batch], beam: int, repeats: int
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Seconds of each pass of each shape, the shapes in turn within a round (after one warm-up
    batch each), and each shape's output tokens (the same every pass)."""
    for translator in translators.values():
        decode(translator, batches[:1], beam)
    seconds: dict[str, list[float]] = {name: [] for name in translators}
    tokens: dict[str, int] = {}
    for _ in range(repeats):
        for name, translator in translators.items():
            started = time.perf_counter()
            tokens[name] = decode(translator, batches, beam)
            seconds[name].append(time.perf_counter() - started)
    return seconds, tokens


def isa() -> str:
    """What int8 and bf16 matrix products can use here: avx512_bf16, other AVX-512, or AVX2."""
    _, flags = harness.cpu()
    if "avx512_bf16" in flags:
        return "avx512_bf16"
    if any(flag.startswith("avx512") for flag in flags):
        return "AVX-512 without bf16"
    return "AVX2 only" if "avx2" in flags else "no AVX2"


def print_table(rows: dict[str, dict]) -> None:
    print("shape | layers, width | sentences/s | x today | parameters | int8 MB | out tokens")
    for name, row in rows.items():
        print(
            f"{name} | {row['shape']} | {row['sentences_per_second']:,.1f} | {row['ratio']:.2f} | "
            f"{row['parameters']:,} | {row['int8_bytes'] / 1e6:.1f} | {row['output_tokens']:,}",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
