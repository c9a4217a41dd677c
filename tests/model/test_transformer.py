import pytest
import torch

from mt.config import PRESETS, ModelConfig
from mt.data.tokenization import BOS, PAD
from mt.model.transformer import Transformer, count_parameters, sinusoidal_table


def tiny_config(**changes) -> ModelConfig:
    values = dict(src_vocab=30, tgt_vocab=40, d_model=16, ff=32, heads=4, layers=2, dropout=0.0)
    values.update(changes)
    return ModelConfig(**values)


def tiny_model(seed: int = 0, **changes) -> Transformer:
    torch.manual_seed(seed)
    return Transformer(tiny_config(**changes)).eval()


@pytest.mark.parametrize(
    ("preset", "expected"),
    [("thesis-small", 1_166_966), ("thesis-medium", 2_822_902), ("thesis-large", 6_950_390)],
)
def test_thesis_parameter_counts_are_exact(preset: str, expected: int) -> None:
    shape = PRESETS[preset]
    config = ModelConfig(
        src_vocab=4562,
        tgt_vocab=6134,
        d_model=shape.d_model,
        ff=shape.ff,
        heads=shape.heads,
        layers=shape.layers,
    )
    assert count_parameters(Transformer(config)) == expected


def test_tied_embeddings_share_one_matrix() -> None:
    untied = count_parameters(Transformer(tiny_config(src_vocab=40)))
    tied = count_parameters(Transformer(tiny_config(src_vocab=40, tie_embeddings=True)))
    assert untied - tied == 2 * 40 * 16


def test_sinusoidal_table_matches_formula() -> None:
    table = sinusoidal_table(10, 8)
    assert table[3, 2] == pytest.approx(torch.sin(torch.tensor(3 / 10000 ** (2 / 8))).item())
    assert table[3, 3] == pytest.approx(torch.cos(torch.tensor(3 / 10000 ** (2 / 8))).item())


def random_batch(batch: int = 3, src_len: int = 7, tgt_len: int = 6, seed: int = 1):
    generator = torch.Generator().manual_seed(seed)
    src = torch.randint(4, 30, (batch, src_len), generator=generator)
    tgt = torch.randint(4, 40, (batch, tgt_len), generator=generator)
    tgt[:, 0] = BOS
    return src, torch.ones_like(src, dtype=torch.bool), tgt


@pytest.mark.parametrize("pre_norm", [False, True])
def test_output_shape(pre_norm: bool) -> None:
    model = tiny_model(pre_norm=pre_norm)
    src, mask, tgt = random_batch()
    assert model(src, mask, tgt).shape == (3, 6, 40)


def test_decoder_is_causal() -> None:
    model = tiny_model()
    src, mask, tgt = random_batch()
    changed = tgt.clone()
    changed[:, 4:] = torch.randint(4, 40, changed[:, 4:].shape)
    before, after = model(src, mask, tgt), model(src, mask, changed)
    torch.testing.assert_close(before[:, :4], after[:, :4])
    assert not torch.allclose(before[:, 4:], after[:, 4:])


def test_extra_source_padding_changes_nothing() -> None:
    model = tiny_model()
    src, mask, tgt = random_batch()
    padded = torch.cat([src, torch.full((3, 5), PAD)], dim=1)
    padded_mask = padded != PAD
    torch.testing.assert_close(
        model(src, mask, tgt), model(padded, padded_mask, tgt), atol=1e-5, rtol=1e-5
    )


def test_output_positions_select_the_real_positions() -> None:
    model = tiny_model()
    src, mask, tgt = random_batch()
    keep = torch.rand(tgt.shape) > 0.4
    positions = keep.flatten().nonzero().squeeze(1)
    torch.testing.assert_close(
        model(src, mask, tgt, output_positions=positions), model(src, mask, tgt)[keep]
    )


@pytest.mark.parametrize("pre_norm", [False, True])
def test_cached_steps_equal_full_decode(pre_norm: bool) -> None:
    model = tiny_model(pre_norm=pre_norm)
    src, mask, tgt = random_batch()
    mask[0, 5:] = False  # one sentence shorter than the others
    memory = model.encode(src, mask)
    full = model.decode(tgt, memory, mask)
    state = model.start_state(memory, mask)
    for position in range(tgt.size(1)):
        logits, state = model.step(tgt[:, position], state)
        torch.testing.assert_close(logits, full[:, position], atol=1e-5, rtol=1e-5)


def test_state_select_reorders_rows() -> None:
    model = tiny_model()
    src, mask, tgt = random_batch()
    memory = model.encode(src, mask)
    state = model.start_state(memory, mask)
    _, state = model.step(tgt[:, 0], state)
    order = torch.tensor([2, 0, 0])
    logits_selected, _ = model.step(tgt[order, 1], state.select(order))
    logits_all, _ = model.step(tgt[:, 1], state)
    torch.testing.assert_close(logits_selected, logits_all[order])


def test_cross_attention_map_is_a_distribution_over_real_source() -> None:
    model = tiny_model()
    src, mask, tgt = random_batch()
    mask[1, 4:] = False
    weights = model.cross_attention_map(src, mask, tgt)
    assert weights.shape == (3, 6, 7)
    torch.testing.assert_close(weights.sum(-1), torch.ones(3, 6))
    assert torch.all(weights[1, :, 4:] == 0)


def test_gradients_reach_every_parameter() -> None:
    model = tiny_model(dropout=0.1).train()
    src, mask, tgt = random_batch()
    model(src, mask, tgt).sum().backward()
    for name, parameter in model.named_parameters():
        assert parameter.grad is not None, name


# ----- a deep encoder and a shallow decoder (issue 66) ------------------------------------------


def deep_shallow(pre_norm: bool = False) -> Transformer:
    """3 encoder layers and 1 decoder layer."""
    return tiny_model(encoder_layers=3, decoder_layers=1, pre_norm=pre_norm)


@pytest.mark.parametrize("pre_norm", [False, True])
def test_unequal_stacks_have_their_own_depths_and_shapes(pre_norm: bool) -> None:
    model = deep_shallow(pre_norm)
    assert (len(model.encoder), len(model.decoder)) == (3, 1)
    src, mask, tgt = random_batch()
    assert model.encode(src, mask).shape == (3, 7, 16)
    assert model(src, mask, tgt).shape == (3, 6, 40)
    # Each encoder layer adds the same count, each decoder layer another: 2+2 against 3+1.
    equal = count_parameters(tiny_model(pre_norm=pre_norm))
    encoder_layer = count_parameters(model.encoder[0])
    decoder_layer = count_parameters(model.decoder[0])
    assert count_parameters(model) == equal + encoder_layer - decoder_layer


@pytest.mark.parametrize("pre_norm", [False, True])
def test_unequal_stacks_cache_one_state_per_decoder_layer(pre_norm: bool) -> None:
    model = deep_shallow(pre_norm)
    src, mask, tgt = random_batch()
    mask[0, 5:] = False
    memory = model.encode(src, mask)
    full = model.decode(tgt, memory, mask)
    state = model.start_state(memory, mask)
    assert len(state.memory_kv) == 1
    for position in range(tgt.size(1)):
        logits, state = model.step(tgt[:, position], state)
        torch.testing.assert_close(logits, full[:, position], atol=1e-5, rtol=1e-5)
    assert len(state.self_kv) == 1


def test_gradients_reach_every_layer_of_unequal_stacks() -> None:
    model = tiny_model(encoder_layers=3, decoder_layers=1, dropout=0.1).train()
    src, mask, tgt = random_batch()
    model(src, mask, tgt).sum().backward()
    for name, parameter in model.named_parameters():
        assert parameter.grad is not None and parameter.grad.abs().sum() > 0, name
