"""`make bench-train`: training throughput of mt's Transformer next to torch.nn.Transformer.

    python -m benchmarks.speed.bench_train --corpus data/spa-eng.tsv [--steps 60] [--device auto]

Both models get the same size (thesis-large unless --preset), the same length-bucketed batches,
the same loss and the same Adam, in alternating rounds of the same run, so machine noise hits both
alike; the ratio is the figure that counts. On a GPU it also prints model FLOP utilisation, with
`mt train`'s model FLOPs (mt.train.flops) and peaks (mt.train.peaks).
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table
from torch import Tensor, nn

from benchmarks import harness
from mt.config import RECIPES, ModelConfig, TrainConfig
from mt.data.feed.batching import collate, encode_parts, epoch_batches
from mt.data.prepare.pipeline import prepare_corpus
from mt.data.prepared_dir import load_prepared
from mt.model.devices import resolve_device
from mt.model.loss import masked_loss_terms, real_position_logits
from mt.model.transformer import Embedding, count_parameters, make_model
from mt.storage.files import PREPARE_JSON
from mt.train.flops import TokenCounts, mac_rates, training_flops
from mt.train.peaks import training_peak


class TorchTransformer(nn.Module):
    """The same model built from torch.nn.Transformer, as a yardstick."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.src_embedding = Embedding(
            config.src_vocab, config.d_model, config.max_positions, config.dropout
        )
        self.tgt_embedding = Embedding(
            config.tgt_vocab, config.d_model, config.max_positions, config.dropout
        )
        self.transformer = nn.Transformer(
            d_model=config.d_model,
            nhead=config.heads,
            num_encoder_layers=config.layers,
            num_decoder_layers=config.layers,
            dim_feedforward=config.ff,
            dropout=config.dropout,
            batch_first=True,
            norm_first=config.pre_norm,
        )
        self.projection = nn.Linear(config.d_model, config.tgt_vocab)

    def forward(
        self, src: Tensor, src_mask: Tensor, tgt_in: Tensor, output_positions: Tensor
    ) -> Tensor:
        causal = nn.Transformer.generate_square_subsequent_mask(
            tgt_in.size(1), device=tgt_in.device
        )
        features = self.transformer(
            self.src_embedding(src),
            self.tgt_embedding(tgt_in),
            tgt_mask=causal,
            tgt_is_causal=True,
            src_key_padding_mask=~src_mask,
            memory_key_padding_mask=~src_mask,
        )
        # only the real target positions (Batch.out_positions), as mt's Transformer takes them
        return self.projection(features.flatten(0, 1).index_select(0, output_positions))


def train_steps(model: nn.Module, optimizer, batches, device, precision: str) -> tuple[int, float]:
    """Run one step per batch; returns target tokens and seconds."""
    tokens = 0
    dtype = torch.bfloat16 if precision == "bf16" else None
    if device.type == "cuda":
        torch.cuda.synchronize()
    started = time.perf_counter()
    for batch in batches:
        batch = batch.to(device)
        with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
            logits = real_position_logits(model, batch)
        loss_sum, _ = masked_loss_terms(logits, batch.out_labels, 0.1)
        (loss_sum / batch.target_tokens).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        tokens += batch.target_tokens
    if device.type == "cuda":
        torch.cuda.synchronize()
    return tokens, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--corpus", type=Path, required=True)
    harness.add_out(parser, Path("bench"), help="the prepared data goes to OUT/data")
    parser.add_argument("--preset", default="thesis-large")
    parser.add_argument("--steps", type=int, default=60, help="Measured steps per model and round.")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-tokens", type=int, default=4000)
    harness.add_device(parser)
    parser.add_argument("--precision", default="fp32", choices=("fp32", "bf16"))
    args = parser.parse_args(argv)
    device = resolve_device(args.device)
    prepared_dir = args.out / "data"
    if not (prepared_dir / PREPARE_JSON).exists():
        prepare_corpus(args.corpus, out=prepared_dir, force=True)
    prepared = load_prepared(prepared_dir)
    # a Transformer of the preset's size, whatever its architecture (TorchTransformer is one)
    shape = dataclasses.replace(RECIPES[args.preset].shape, arch="transformer")
    config = shape.with_vocabularies(prepared.source.vocab_size, prepared.target.vocab_size)
    train_config = TrainConfig(batch_tokens=args.batch_tokens, max_src_len=64, max_tgt_len=64)
    data = encode_parts(
        prepared.read_part("train"), [], prepared.source, prepared.target, train_config
    )
    indices = epoch_batches(data.train, train_config, epoch=0)
    epoch_tokens = sum(len(t) - 1 for t in data.train.tgt)
    batches = [collate(data.train, i) for i in indices[: args.steps * (args.rounds + 1)]]

    torch.manual_seed(0)
    ours = make_model(config).to(device)
    theirs = TorchTransformer(config).to(device)
    models = {"mt": ours, "torch.nn.Transformer": theirs}
    optimizers = {
        name: torch.optim.Adam(m.parameters(), lr=1e-4, betas=(0.9, 0.98))
        for name, m in models.items()
    }
    totals = {name: [0, 0.0] for name in models}
    counted = TokenCounts()  # the measured batches' tokens, the same for both models
    warm = batches[: args.steps // 3]
    for name, model in models.items():  # warm-up: allocator, kernels, first-touch
        train_steps(model, optimizers[name], warm, device, args.precision)
    for round_index in range(args.rounds):
        chunk = batches[(round_index + 1) * args.steps : (round_index + 2) * args.steps]
        for name, model in models.items():
            tokens, seconds = train_steps(model, optimizers[name], chunk, device, args.precision)
            totals[name][0] += tokens
            totals[name][1] += seconds
        for batch in chunk:
            counted = counted + TokenCounts.of_batch(batch)

    # both models compute the same products, so mt's count serves torch.nn.Transformer too
    flops_per_token = training_flops(mac_rates(config), counted) / max(counted.target, 1)
    peak = training_peak(device, args.precision).tflops
    table = Table(
        title=f"training throughput, {args.preset} ({count_parameters(ours):,} parameters), "
        f"{device}, {torch.get_num_threads()} threads, batches of ~{args.batch_tokens} tokens"
    )
    for column in ("model", "target tokens/s", "seconds/epoch", "MFU"):
        table.add_column(column, justify="right")
    rates = {}
    for name, (tokens, seconds) in totals.items():
        rates[name] = tokens / seconds
        mfu = f"{rates[name] * flops_per_token / (peak * 1e12):.1%}" if peak else "n/a"
        table.add_row(name, f"{rates[name]:,.0f}", f"{epoch_tokens / rates[name]:,.0f}", mfu)
    Console().print(table)
    ratio = rates["mt"] / rates["torch.nn.Transformer"]
    print(
        f"ratio mt / torch.nn.Transformer: {ratio:.2f}  (epoch = {epoch_tokens:,} target tokens; "
        f"model training FLOPs a target token {flops_per_token / 1e6:.1f} M)"
    )
    return 0 if math.isfinite(ratio) else 1


if __name__ == "__main__":
    sys.exit(main())
