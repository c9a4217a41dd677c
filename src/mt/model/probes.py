"""The workloads `--precision auto` measures: the model's own training and decoding steps on a
random batch of the shape they get (speed and agreement, not meaning). RNG state is restored, so a
seeded run is unchanged by probing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import torch
from torch import Tensor, nn

from mt.config import ModelConfig
from mt.data.feed.batching import Batch
from mt.data.tokenization import BOS, EOS
from mt.model.loss import masked_loss_terms, real_position_logits
from mt.model.precision import ProbeResult, autocast, cached_verdict, probe_precision

TRAIN_SHAPE = (32, 24)  # sentences, labels: a typical batch of --batch-tokens 2500 / 3000
DECODE_SHAPE = (32, 12, 16)  # sentences, source labels, greedy steps
UNDECIDED_DECODING = 3600.0
"""Seconds a decoding probe that could not decide (a busy machine) keeps later starts in fp32
without probing: each translation of a busy machine probing again made one sentence take 11 to 95
s where fp32 took 4.8 s."""
LOSS_TOLERANCE = 0.01  # relative: bf16's loss must be within 1% of fp32's
ARGMAX_AGREEMENT = 0.97  # share of positions whose most likely label bf16 keeps


def probe_training(
    config: ModelConfig, device: torch.device, build: Callable[[], nn.Module]
) -> ProbeResult:
    """One forward and backward pass of a training batch; the losses must agree. `build` makes
    the model to time, only when no earlier probe left a verdict for this shape."""
    key = _key("training", config, device)
    known = cached_verdict(key)
    if known is not None:
        return known
    batch = _synthetic_batch(config, device, *TRAIN_SHAPE)

    def agrees(fp32: Tensor, bf16: Tensor) -> bool:
        return bool(torch.isfinite(bf16)) and abs(float(bf16 - fp32)) <= LOSS_TOLERANCE * float(
            fp32.abs()
        )

    with torch.random.fork_rng(devices=[]):
        model = build()
        with model_mode(model, training=True):

            def step(mode: str) -> Tensor:
                model.zero_grad(set_to_none=True)
                with autocast(device, mode):
                    logits = real_position_logits(model, batch)
                loss, _ = masked_loss_terms(logits, batch.out_labels)
                loss.backward()
                return loss.detach()

            return probe_precision(step, agrees, key=key, repeats=2)


def known_decoding(model: nn.Module, device: torch.device) -> ProbeResult | None:
    """The verdict an earlier decoding probe of this model's shape left on this machine."""
    return cached_verdict(_key("decoding", model.config, device))


@torch.inference_mode()
def probe_decoding(model: nn.Module, device: torch.device) -> ProbeResult:
    """Decoder steps over its cache, as translating runs them. Both modes are fed fp32's greedy
    labels (the first call's, which probe_precision makes in fp32), so one early difference does
    not make every later step differ; the most likely label at each step must agree."""
    sentences, length, steps = DECODE_SHAPE
    batch = _synthetic_batch(model.config, device, sentences, length)
    path: list[Tensor] = []

    def steps_along_path(mode: str) -> Tensor:
        with autocast(device, mode):
            memory = model.encode(batch.src, batch.src_mask)
            state = model.start_state(memory, batch.src_mask)
            tokens = torch.full((sentences,), BOS, dtype=torch.long, device=device)
            chosen = []
            for step in range(steps):
                logits, state = model.step(tokens, state)
                chosen.append(logits.argmax(dim=-1))
                tokens = path[step] if path else chosen[-1]
        if not path:
            path.extend(chosen)
        return torch.stack(chosen, dim=1)

    def agrees(fp32: Tensor, bf16: Tensor) -> bool:
        return float((fp32 == bf16).float().mean()) >= ARGMAX_AGREEMENT

    with torch.random.fork_rng(devices=[]), model_mode(model, training=False):
        key = _key("decoding", model.config, device)
        return probe_precision(steps_along_path, agrees, key=key, keep_undecided=UNDECIDED_DECODING)


@contextlib.contextmanager
def model_mode(model: nn.Module, *, training: bool) -> Iterator[None]:
    """The model in train or eval mode (dropout on or off) for a while, then as it was, with no
    gradients left."""
    was_training = model.training
    model.train(training)
    try:
        yield
    finally:
        model.zero_grad(set_to_none=True)
        model.train(was_training)


def _synthetic_batch(config: ModelConfig, device: torch.device, sentences: int, length: int):
    generator = torch.Generator().manual_seed(0)
    first = EOS + 1  # ordinary labels come after the special ones

    def labels(vocab: int) -> Tensor:
        ids = torch.randint(first, vocab, (sentences, length), generator=generator)
        ids[:, -1] = EOS
        return ids

    target = torch.cat([torch.full((sentences, 1), BOS), labels(config.tgt_vocab)], dim=1)
    return Batch.from_padded(labels(config.src_vocab), target).to(device)


def _key(workload: str, config: ModelConfig, device: torch.device) -> dict[str, object]:
    return {"workload": workload, "model": config.to_dict(), "device": device.type}
