"""The recurrent baseline behind the Transformer's seam: shapes, padding, cache, search, training,
presets and the command line end to end."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import torch

from conftest import cli_output as invoke
from mt.config import PRESETS, ModelConfig
from mt.data.tokenization import BOS, PAD
from mt.decode.search import beam_search, greedy_search
from mt.model.rnn import RecurrentSeq2Seq
from mt.model.transformer import count_parameters, make_model
from mt.storage.files import read_metrics
from train_support import copy_task, make_trainer

SRC_VOCAB, TGT_VOCAB = 30, 40
CELLS = ["lstm", "gru"]
ATTENTIONS = ["bahdanau", "luong"]


def tiny_config(**changes) -> ModelConfig:
    values = dict(
        src_vocab=SRC_VOCAB,
        tgt_vocab=TGT_VOCAB,
        arch="rnn",
        d_model=12,
        ff=16,
        heads=1,
        layers=2,
        dropout=0.0,
    )
    values.update(changes)
    return ModelConfig(**values)


def tiny_model(seed: int = 0, **changes) -> RecurrentSeq2Seq:
    torch.manual_seed(seed)
    return RecurrentSeq2Seq(tiny_config(**changes)).eval()


LENGTHS = [7, 3, 5, 1]


def padded_batch(seed: int = 1, tgt_len: int = 6):
    """Sources of LENGTHS real tokens, right-padded; targets start with BOS."""
    generator = torch.Generator().manual_seed(seed)
    width = max(LENGTHS)
    src = torch.randint(4, SRC_VOCAB, (len(LENGTHS), width), generator=generator)
    mask = torch.arange(width)[None, :] < torch.tensor(LENGTHS)[:, None]
    src = src.masked_fill(~mask, PAD)
    tgt = torch.randint(4, TGT_VOCAB, (len(LENGTHS), tgt_len), generator=generator)
    tgt[:, 0] = BOS
    return src, mask, tgt


def test_make_model_builds_the_recurrent_model() -> None:
    assert isinstance(make_model(tiny_config()), RecurrentSeq2Seq)


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_shapes_of_every_seam_method(cell: str, attention: str) -> None:
    model = tiny_model(cell=cell, attention=attention)
    src, mask, tgt = padded_batch()
    batch, steps = tgt.shape
    assert model(src, mask, tgt).shape == (batch, steps, TGT_VOCAB)
    output_mask = torch.ones_like(tgt, dtype=torch.bool)
    output_mask[0, 3:] = False
    positions = output_mask.flatten().nonzero().squeeze(1)
    selected = model(src, mask, tgt, output_positions=positions)
    assert selected.shape == (batch * steps - 3, TGT_VOCAB)
    memory = model.encode(src, mask)
    assert model.decode(tgt, memory, mask).shape == (batch, steps, TGT_VOCAB)
    logits, state = model.step(tgt[:, 0], model.start_state(memory, mask))
    assert logits.shape == (batch, TGT_VOCAB)
    weights = model.cross_attention_map(src, mask, tgt)
    assert weights.shape == (batch, steps, src.size(1))
    assert torch.allclose(weights.sum(-1), torch.ones(batch, steps))
    assert (weights[~mask[:, None, :].expand_as(weights)] == 0).all()  # never on padding
    reordered = state.select(torch.tensor([2, 2, 0]))
    assert reordered.hidden.shape[1] == reordered.feed.size(0) == reordered.memory.size(0) == 3
    assert torch.equal(reordered.memory[1], state.memory[2])


@pytest.mark.parametrize("cell", CELLS)
def test_extra_source_padding_changes_nothing(cell: str) -> None:
    model = tiny_model(cell=cell)
    src, mask, tgt = padded_batch()
    wide_src = torch.cat([src, torch.full((src.size(0), 4), PAD)], dim=1)
    wide_mask = wide_src != PAD
    narrow, wide = model.encode(src, mask), model.encode(wide_src, wide_mask)
    real = mask[..., None].expand_as(narrow.outputs)
    assert torch.allclose(narrow.outputs[real], wide.outputs[:, : src.size(1)][real], atol=1e-6)
    assert torch.allclose(narrow.hidden, wide.hidden, atol=1e-6)
    assert torch.allclose(model(src, mask, tgt), model(wide_src, wide_mask, tgt), atol=1e-5)


@pytest.mark.parametrize("cell", CELLS)
def test_each_source_reads_the_same_alone_and_in_a_batch(cell: str) -> None:
    model = tiny_model(cell=cell)
    src, mask, tgt = padded_batch()
    together = model(src, mask, tgt)
    for row, length in enumerate(LENGTHS):
        alone = model(src[row : row + 1, :length], mask[row : row + 1, :length], tgt[row : row + 1])
        assert torch.allclose(alone[0], together[row], atol=1e-5), row


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_stepping_with_the_state_equals_teacher_forcing(cell: str, attention: str) -> None:
    model = tiny_model(cell=cell, attention=attention)
    src, mask, tgt = padded_batch()
    memory = model.encode(src, mask)
    forced = model.decode(tgt, memory, mask)
    state = model.start_state(memory, mask)
    stepped = []
    for t in range(tgt.size(1)):
        logits, state = model.step(tgt[:, t], state)
        stepped.append(logits)
    assert torch.allclose(torch.stack(stepped, 1), forced, atol=1e-5)


def test_later_target_tokens_leave_earlier_logits_alone() -> None:
    model = tiny_model()
    src, mask, tgt = padded_batch()
    changed = tgt.clone()
    changed[:, 4:] = 5
    assert torch.equal(model(src, mask, tgt)[:, :4], model(src, mask, changed)[:, :4])


LIMITS = dict(max_len_a=1.0, max_len_b=4)


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("seed", range(2))
def test_beam_of_one_equals_greedy(cell: str, seed: int) -> None:
    model = tiny_model(seed, cell=cell)
    src, mask, _ = padded_batch(seed)
    greedy = greedy_search(model, src, mask, **LIMITS)
    beams = beam_search(model, src, mask, beam_size=1, n_best=1, length_penalty=0.0, **LIMITS)
    assert len(greedy) == len(LENGTHS)
    assert [[h] for h in greedy] == beams  # same tokens, same float scores


def test_beam_search_runs_with_reordering() -> None:
    model = tiny_model(3)
    src, mask, _ = padded_batch(3)
    beams = beam_search(model, src, mask, beam_size=4, n_best=3, length_penalty=1.0, **LIMITS)
    assert [len(hyps) for hyps in beams] == [3] * len(LENGTHS)
    for hyps in beams:
        assert [h.score for h in hyps] == sorted((h.score for h in hyps), reverse=True)


def test_tied_embeddings_share_one_matrix() -> None:
    untied = tiny_model(src_vocab=TGT_VOCAB)
    tied = tiny_model(src_vocab=TGT_VOCAB, tie_embeddings=True)
    assert tied.projection.weight is tied.tgt_embedding.weight is tied.src_embedding.weight
    embed, hidden = 12, 16
    # The target embedding and the hidden -> vocabulary matrix go; hidden -> embedding comes.
    saved = TGT_VOCAB * embed + hidden * TGT_VOCAB - (hidden * embed + embed)
    assert count_parameters(untied) - count_parameters(tied) == saved
    src, mask, tgt = padded_batch()
    assert tied(src, mask, tgt).shape == (len(LENGTHS), tgt.size(1), TGT_VOCAB)


def test_dropout_is_active_in_training_only() -> None:
    model = tiny_model(dropout=0.3)
    src, mask, tgt = padded_batch()
    assert torch.equal(model(src, mask, tgt), model(src, mask, tgt))
    model.train()
    assert not torch.equal(model(src, mask, tgt), model(src, mask, tgt))


def preset_parameters(preset: str) -> int:
    """Parameters of a preset with the thesis' 4,562 / 6,134 vocabularies."""
    shape = dataclasses.asdict(PRESETS[preset])
    return count_parameters(make_model(ModelConfig(src_vocab=4562, tgt_vocab=6134, **shape)))


@pytest.mark.parametrize(
    ("rnn", "transformer"), [("rnn-small", "thesis-small"), ("rnn-large", "thesis-large")]
)
def test_presets_match_the_thesis_parameter_budget(rnn: str, transformer: str) -> None:
    counted, budget = preset_parameters(rnn), preset_parameters(transformer)
    print(f"{rnn}: {counted:,} parameters; {transformer}: {budget:,}")
    assert abs(counted - budget) / budget < 0.01


def test_tiny_rnn_learns_the_copy_task(tmp_path: Path) -> None:
    trainer = make_trainer(
        tmp_path,
        copy_task(200, seed=0),
        model=tiny_config(src_vocab=14, tgt_vocab=14, d_model=32, ff=64, layers=1),
        clip_norm=1.0,
        max_epochs=60,
    )
    reason = trainer.train()
    assert read_metrics(tmp_path)[-1]["selection_accuracy"] == 1.0, reason
    assert "reached the goal" in reason


def test_train_translate_evaluate_from_the_command_line(corpus_file: Path, tmp_path: Path) -> None:
    prepared, run = tmp_path / "prep", tmp_path / "run"
    invoke("prepare", corpus_file, "--out", prepared, "--src-vocab", "150", "--tgt-vocab", "180")
    invoke(
        "train", prepared, "--out", run, "--arch", "rnn", "--preset", "thesis-small",
        "--cell", "gru", "--attention", "luong", "--max-steps", "12", "--batch-size", "16",
        "--threads", "1",
    )  # fmt: skip
    model = json.loads((run / "model.json").read_text())["model"]
    assert (model["arch"], model["cell"], model["attention"]) == ("rnn", "gru", "luong")
    assert json.loads((run / "train.json").read_text())["train"]["clip_norm"] == 1.0
    heatmap = tmp_path / "attention.png"
    invoke("translate", "--model", run, "Ilse likes bread.", "--attention", heatmap)
    assert heatmap.stat().st_size > 0
    assert "BLEU" in invoke("evaluate", run, "--limit", "20", "--beam-size", "2")
