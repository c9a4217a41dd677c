"""Model FLOPs of training (mt.train.flops): hand computations and the weights they stand for."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from mt.config import ModelConfig
from mt.data.feed.batching import Batch
from mt.data.tokenization import BOS, EOS, PAD
from mt.model.transformer import make_model
from mt.train.flops import MacRates, TokenCounts, mac_rates, training_flops


def batch_of(sources: list[list[int]], targets: list[list[int]]) -> Batch:
    """Right-padded sources (with EOS) and BOS ... EOS targets, as the feed collates them."""
    sources = [[*ids, EOS] for ids in sources]
    targets = [[BOS, *ids, EOS] for ids in targets]
    src = torch.full((len(sources), max(map(len, sources))), PAD)
    tgt = torch.full((len(targets), max(map(len, targets))), PAD)
    for row, ids in enumerate(sources):
        src[row, : len(ids)] = torch.tensor(ids)
    for row, ids in enumerate(targets):
        tgt[row, : len(ids)] = torch.tensor(ids)
    return Batch.from_padded(src, tgt)


def test_a_tiny_transformer_step_costs_what_the_hand_count_says() -> None:
    config = ModelConfig(src_vocab=10, tgt_vocab=10, d_model=4, ff=6, heads=2, layers=1)
    # a source token: encoder 4·16 + 2·4·6 = 112, cross-attention keys and values 2·16 = 32
    # a target token: decoder 6·16 + 2·4·6 = 144, output projection 4·10 = 40
    # a pair of positions: 2·4 = 8, in each of the three attentions
    assert mac_rates(config) == MacRates(
        source=144, target=184, source_square=8, target_square=8, cross=8
    )
    # sources of 3 and 2 labels (with EOS), targets of 2 and 4 positions (with EOS)
    tokens = TokenCounts.of_batch(batch_of([[5, 6], [7]], [[5], [6, 7, 8]]))
    assert tokens == TokenCounts(
        sentences=2, source=5, target=6, source_squares=13, target_squares=20, cross=14
    )
    # 144·5 + 184·6 + 8·13 + 8·20 + 8·14 = 2,200 multiply-adds forward; ×6 to train
    assert training_flops(mac_rates(config), tokens) == 13_200


def linear_weights(model: nn.Module) -> int:
    return sum(m.weight.numel() for m in model.modules() if isinstance(m, nn.Linear))


@pytest.mark.parametrize("encoder_layers, decoder_layers", [(None, None), (3, 1), (1, 2)])
def test_one_source_and_one_target_token_pass_every_linear_weight_once(
    encoder_layers: int | None, decoder_layers: int | None
) -> None:
    config = ModelConfig(
        src_vocab=30, tgt_vocab=40, d_model=8, ff=12, heads=2, layers=2,
        encoder_layers=encoder_layers, decoder_layers=decoder_layers,
    )  # fmt: skip
    rates = mac_rates(config)
    assert rates.source + rates.target == linear_weights(make_model(config))
    assert (config.encoder_depth, config.decoder_depth) == (
        encoder_layers or 2,
        decoder_layers or 2,
    )


def test_a_tiny_lstm_costs_what_the_hand_count_says() -> None:
    config = ModelConfig(
        src_vocab=10, tgt_vocab=10, arch="rnn", d_model=4, ff=3, layers=1, cell="lstm"
    )
    # source: 2 directions · 4 gates · 3·(4 + 3) = 168, attention keys 6·3 = 18
    # target: cell 4·3·(4 + 3 + 3) = 120, Bahdanau's query 9, combine 9·3 = 27, output 3·10 = 30
    # sentence: two bridges (hidden, cell) of 6·3; pair: score 3, context 6
    assert mac_rates(config) == MacRates(sentence=36, source=186, target=186, cross=9)


@pytest.mark.parametrize("cell", ["lstm", "gru"])
@pytest.mark.parametrize("attention", ["bahdanau", "luong"])
def test_every_recurrent_weight_is_counted_once(cell: str, attention: str) -> None:
    config = ModelConfig(
        src_vocab=20, tgt_vocab=30, arch="rnn", d_model=6, ff=5, layers=2, cell=cell,
        attention=attention,
    )  # fmt: skip
    model = make_model(config)
    named = model.named_parameters()
    weights = sum(p.numel() for name, p in named if p.dim() == 2 and "embedding" not in name)
    rates = mac_rates(config)
    score = config.ff if attention == "bahdanau" else 0  # v of v·tanh(...), used once a pair
    bridges = rates.sentence // config.layers  # the bridges serve every layer's final state
    assert rates.source + rates.target + bridges + score == weights


def test_padding_is_never_counted() -> None:
    sources, targets = [[5, 6, 7, 8], [5], [6, 7]], [[5], [6, 7, 8, 9, 5], [7, 8]]
    together = TokenCounts.of_batch(batch_of(sources, targets))
    pairs = zip(sources, targets, strict=True)
    alone = [TokenCounts.of_batch(batch_of([source], [target])) for source, target in pairs]
    assert together == alone[0] + alone[1] + alone[2]
    assert (together.source, together.target) == (10, 11)
