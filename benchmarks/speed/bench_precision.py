"""Training and decoding speed in fp32, bf16 autocast and (decoding) int8 dynamic quantization.

    python -m benchmarks.speed.bench_precision --prepared DIR --run RUN [--steps 40] [--rounds 3]
        [--sentences 500]

Training: the default recipe's model, two copies from one seed, one per mode, on the same batches
in alternating rounds (machine noise hits both alike); target tokens/s, their ratio, and each
copy's selection loss and accuracy after the same steps (bf16 must learn as fp32 does).
Decoding: RUN (a run directory) translates the first --sentences English sentences of the test
part, greedy and beam 5, in alternating rounds; sentences/s and BLEU per mode. What
`--precision auto` picks (mt.model.precision) follows from these figures; docs/recipe.md has them.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import time
import warnings
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table
from torch import nn

from benchmarks import harness
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig, TrainConfig
from mt.data.feed.batching import Batch, EncodedPairs, collate, epoch_batches
from mt.data.prepared_dir import Prepared, load_prepared
from mt.decode.engine import TorchEngine
from mt.decode.options import TranslateOptions
from mt.decode.translator import Translator, open_translator
from mt.evaluate.scores import corpus_scores
from mt.evaluate.testsets import EvaluationSet
from mt.model.loss import masked_loss_terms, real_position_logits
from mt.model.precision import autocast, resolve_precision
from mt.model.transformer import make_model
from mt.train.run_config import RunConfig, new_run_config
from mt.train.schedule import learning_rate

CPU = torch.device("cpu")
TRAIN_MODES = ("fp32", "bf16")
DECODE_MODES = ("fp32", "bf16", "int8")
BEAMS = (1, 5)
SELECTION_BATCHES = 10  # the selection part's first batches, unshuffled: the sanity loss


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--prepared", type=Path, required=True)
    harness.add_run(parser, help="Run directory to decode with.")
    parser.add_argument("--steps", type=int, default=40, help="Training steps per mode and round.")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--batch-size", type=int, help="sentences a training batch (default: the recipe's)"
    )
    harness.add_limit(parser, 500, flag="--sentences", help="test sentences decoded")
    harness.add_threads(parser, None)
    harness.add_out(parser, Path("bench/precision"))
    return parser.parse_args(argv)


# ----- training --------------------------------------------------------------------------------


def train_steps(
    *,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    batches: list[Batch],
    mode: str,
    config: TrainConfig,
    first_step: int,
) -> tuple[int, float]:
    """One optimizer step per batch as mt.train.trainer takes it; returns tokens and seconds."""
    model.train()
    tokens = 0
    started = time.perf_counter()
    for index, batch in enumerate(batches):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(first_step + index + 1, config.lr, config.warmup)
        with autocast(CPU, mode):
            logits = real_position_logits(model, batch)
        loss_sum, _ = masked_loss_terms(logits, batch.out_labels, config.label_smoothing)
        (loss_sum / batch.target_tokens).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        tokens += batch.target_tokens
    return tokens, time.perf_counter() - started


@torch.no_grad()
def selection_scores(model: nn.Module, batches: list[Batch]) -> tuple[float, float]:
    """Loss (no smoothing) and accuracy per target label, in fp32 whichever mode trained it."""
    model.eval()
    loss, correct, labels = 0.0, 0, 0
    for batch in batches:
        logits = real_position_logits(model, batch)
        loss_sum, hits = masked_loss_terms(logits, batch.out_labels)
        loss += loss_sum.item()
        correct += int(hits)
        labels += batch.target_tokens
    return loss / labels, correct / labels


def batches_of(pairs: EncodedPairs, config: TrainConfig, *, count: int, shuffle: bool):
    return [collate(pairs, i) for i in epoch_batches(pairs, config, 0, shuffle=shuffle)[:count]]


def seeded_copies(run: RunConfig) -> dict[str, tuple[nn.Module, torch.optim.Optimizer]]:
    """One model per mode, all with the same initial weights, each with its own Adam."""
    copies = {}
    for mode in TRAIN_MODES:
        torch.manual_seed(run.train.seed)
        model = make_model(run.model)
        betas = (run.train.beta1, run.train.beta2)
        copies[mode] = model, torch.optim.Adam(model.parameters(), lr=run.train.lr, betas=betas)
    return copies


def alternate(
    *,
    copies: dict[str, tuple[nn.Module, torch.optim.Optimizer]],
    chunks: list[list[Batch]],
    config: TrainConfig,
) -> dict[str, list[tuple[int, float]]]:
    """Each chunk trained by every mode in turn; target tokens and seconds per mode and chunk."""
    spent: dict[str, list[tuple[int, float]]] = {mode: [] for mode in copies}
    first_step = 0
    for index, chunk in enumerate(chunks):
        for mode, (model, optimizer) in copies.items():
            torch.manual_seed(config.seed + index)  # the same dropout draws for every mode
            tokens, seconds = train_steps(
                model=model,
                optimizer=optimizer,
                batches=chunk,
                mode=mode,
                config=config,
                first_step=first_step,
            )
            spent[mode].append((tokens, seconds))
        first_step += len(chunk)
    return spent


def measure_training(
    *, prepared: Prepared, steps: int, rounds: int, batch_size: int | None = None
) -> dict[str, dict]:
    """Both modes from one seed over the same batches, alternating; tokens/s and the scores after
    the same steps. The first chunk (a third of --steps) warms up kernels and is not counted.
    `batch_size`: sentences a batch, where not the default recipe's."""
    run = new_run_config(
        src_vocab=prepared.source.vocab_size,
        tgt_vocab=prepared.target.vocab_size,
        changes={"batch_size": batch_size} if batch_size else None,
    )
    config = run.train
    limits = {"max_src_len": config.max_src_len, "max_tgt_len": config.max_tgt_len}
    warm = max(steps // 3, 1)
    train = batches_of(
        prepared.encoded("train", **limits), config, count=warm + steps * rounds, shuffle=True
    )
    selection = batches_of(
        prepared.encoded("selection", **limits), config, count=SELECTION_BATCHES, shuffle=False
    )
    chunks = [train[:warm]] + [
        train[warm + r * steps : warm + (r + 1) * steps] for r in range(rounds)
    ]
    copies = seeded_copies(run)
    spent = alternate(copies=copies, chunks=chunks, config=config)
    results = {}
    for mode, (model, _) in copies.items():
        loss, accuracy = selection_scores(model, selection)
        measured = spent[mode][1:]
        results[mode] = {
            "target_tokens_per_s": sum(t for t, _ in measured) / sum(s for _, s in measured),
            "rounds_tokens_per_s": [t / s for t, s in measured],
            "steps": len(train),
            "selection_loss": loss,
            "selection_accuracy": accuracy,
        }
    return results


# ----- decoding --------------------------------------------------------------------------------


def int8_model(model: nn.Module) -> nn.Module:
    """A copy with every Linear layer's weights in int8, activations quantized on the fly."""
    with warnings.catch_warnings():  # torch.ao is deprecated for torchao, which mt doesn't use
        warnings.simplefilter("ignore")
        return torch.ao.quantization.quantize_dynamic(
            copy.deepcopy(model).eval(), {nn.Linear}, dtype=torch.qint8, inplace=True
        )


def translate_all(translator: Translator, sources: list[str], mode: str) -> tuple[list[str], float]:
    """Translations and seconds; bf16 runs the whole search under autocast."""
    started = time.perf_counter()
    with autocast(CPU, "bf16" if mode == "bf16" else "fp32"):
        texts = [t.text for t in translator.translate(sources)]
    return texts, time.perf_counter() - started


def timed_rounds(
    *,
    translator: Translator,
    engine: TorchEngine,
    models: dict[str, nn.Module],
    sources: list[str],
    rounds: int,
) -> tuple[dict[str, list[str]], dict[str, float]]:
    """Each mode's translations and its seconds over ``rounds``, the modes alternating, after one
    unmeasured warm-up round on a few sentences."""
    seconds = dict.fromkeys(models, 0.0)
    texts: dict[str, list[str]] = {}
    for round_index in range(rounds + 1):
        for mode, model in models.items():
            engine.model = model
            if round_index == 0:
                translate_all(translator, sources[:20], mode)
                continue
            texts[mode], spent = translate_all(translator, sources, mode)
            seconds[mode] += spent
    return texts, seconds


def measure_decoding(
    *, run_dir: Path, sources: list[str], references: list[list[str]], rounds: int
) -> dict[str, dict]:
    """Sentences/s, BLEU and the share of translations fp32 also gives, per search and mode."""
    results: dict[str, dict] = {}
    for beam in BEAMS:
        translator = open_translator(
            resolve(run_dir), TranslateOptions(decode=DecodeConfig(beam_size=beam)), device="cpu"
        )
        engine = translator.engine
        if not isinstance(engine, TorchEngine):
            raise SystemExit(f"--run {run_dir}: give a run directory, not an `mt export`")
        models = {"fp32": engine.model, "bf16": engine.model, "int8": int8_model(engine.model)}
        texts, seconds = timed_rounds(
            translator=translator, engine=engine, models=models, sources=sources, rounds=rounds
        )
        name = "greedy" if beam == 1 else f"beam {beam}"
        for mode in DECODE_MODES:
            same = sum(a == b for a, b in zip(texts[mode], texts["fp32"], strict=True))
            results[f"{name} {mode}"] = {
                "sentences_per_s": rounds * len(sources) / seconds[mode],
                "bleu": corpus_scores(texts[mode], references).bleu,
                "same_as_fp32": same / len(sources),
            }
    return results


# ----- report ----------------------------------------------------------------------------------

TRAINING_COLUMNS = ("training", "tokens/s", "vs fp32", "per round", "sel. loss", "sel. acc.")
DECODING_COLUMNS = ("decoding", "sentences/s", "vs fp32", "BLEU", "same as fp32")


def training_rows(training: dict[str, dict]) -> list[tuple[str, ...]]:
    base = training["fp32"]["target_tokens_per_s"]
    return [
        (
            mode,
            f"{row['target_tokens_per_s']:,.0f}",
            f"{row['target_tokens_per_s'] / base:.2f}",
            " / ".join(f"{rate:,.0f}" for rate in row["rounds_tokens_per_s"]),
            f"{row['selection_loss']:.3f}",
            f"{row['selection_accuracy']:.3f}",
        )
        for mode, row in training.items()
    ]


def decoding_rows(decoding: dict[str, dict]) -> list[tuple[str, ...]]:
    def base(name: str) -> float:  # "beam 5 int8" -> the "beam 5 fp32" rate
        return decoding[name.rsplit(" ", 1)[0] + " fp32"]["sentences_per_s"]

    return [
        (
            name,
            f"{row['sentences_per_s']:.1f}",
            f"{row['sentences_per_s'] / base(name):.2f}",
            f"{row['bleu']:.2f}",
            f"{row['same_as_fp32']:.1%}",
        )
        for name, row in decoding.items()
    ]


def rich_table(title: str, columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> Table:
    table = Table(title=title)
    for column in columns:
        table.add_column(column, justify="right")
    for row in rows:
        table.add_row(*row)
    return table


def markdown_table(columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    lines = [columns, ("---",) * len(columns), *rows]
    return "".join(f"| {' | '.join(line)} |\n" for line in lines)


def markdown(summary: dict) -> str:
    """Both tables and the machine line, ready for docs/recipe.md."""
    load = summary["load_average"]
    return (
        f"Measured with `{summary['command']}` ({summary['machine']}; load average "
        f"{load['start']} at the start, {load['end']} at the end).\n\n"
        + markdown_table(TRAINING_COLUMNS, training_rows(summary["training"]))
        + "\n"
        + markdown_table(DECODING_COLUMNS, decoding_rows(summary["decoding"]))
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    console = Console()
    if args.threads:
        torch.set_num_threads(args.threads)
    threads = torch.get_num_threads()
    machine = harness.describe(threads)
    started_load = harness.load_average()
    console.print(f"{machine}\nload average at start: {started_load}", soft_wrap=True)
    if os.getloadavg()[0] + threads > (os.cpu_count() or 1) + 0.5:
        # torch's threads spin-wait for each other: on busy cores a step can take 10x longer
        console.print("[red]warning: other work is running on these cores; figures will be slow")
    prepared = load_prepared(args.prepared)
    training = measure_training(
        prepared=prepared, steps=args.steps, rounds=args.rounds, batch_size=args.batch_size
    )
    console.print(rich_table("training, default recipe", TRAINING_COLUMNS, training_rows(training)))
    # each English sentence once, with every Spanish reference the test part has for it
    groups = EvaluationSet.from_pairs("test", prepared.read_part("test")).grouped()
    sources = list(groups)[: args.sentences]
    decoding = measure_decoding(
        run_dir=args.run,
        sources=sources,
        references=[groups[s] for s in sources],
        rounds=args.rounds,
    )
    title = f"decoding, first {len(sources)} test sentences"
    console.print(rich_table(title, DECODING_COLUMNS, decoding_rows(decoding)))
    auto = resolve_precision("auto", CPU)[1]
    ended_load = harness.load_average()
    console.print(f"--precision auto here: {auto}\nload average at end: {ended_load}")
    args.out.mkdir(parents=True, exist_ok=True)
    summary = {
        "machine": machine,
        "load_average": {"start": started_load, "end": ended_load},
        "command": harness.command_line(),
        "auto": auto,
        "training": training,
        "decoding": decoding,
    }
    (args.out / "results.json").write_text(json.dumps(summary, indent=2) + "\n")
    (args.out / "results.md").write_text(markdown(summary))
    console.print(f"wrote {args.out / 'results.json'} and results.md (for docs/recipe.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
