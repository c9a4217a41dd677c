import pytest
import torch

from mt.config import ModelConfig
from mt.errors import MtError
from mt.model.checkpoint import (
    load_tensors,
    optimizer_from_tensors,
    optimizer_to_tensors,
    save_tensors,
)
from mt.model.rundir import load_weights_into, save_weights
from mt.model.transformer import Transformer


def test_tensors_round_trip_with_checksum(tmp_path) -> None:
    tensors = {"a": torch.randn(3, 4), "b": torch.tensor(7), "c": torch.zeros(0)}
    save_tensors(tmp_path / "t.safetensors", tensors, metadata={"note": "x"})
    loaded, metadata = load_tensors(tmp_path / "t.safetensors")
    assert metadata["note"] == "x"
    for name, tensor in tensors.items():
        assert torch.equal(loaded[name], tensor)


def test_flipped_byte_is_a_checksum_error(tmp_path) -> None:
    path = tmp_path / "t.safetensors"
    save_tensors(path, {"a": torch.ones(100)})
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(MtError, match="checksum mismatch"):
        load_tensors(path)


def test_truncated_file_is_reported_with_its_path(tmp_path) -> None:
    path = tmp_path / "t.safetensors"
    save_tensors(path, {"a": torch.ones(100)})
    path.write_bytes(path.read_bytes()[:50])
    with pytest.raises(MtError, match=str(path)):
        load_tensors(path)


def test_save_load_gives_identical_logits_with_tied_weights(tmp_path) -> None:
    config = ModelConfig(
        src_vocab=30, tgt_vocab=30, d_model=16, ff=32, heads=2, layers=1, tie_embeddings=True
    )
    torch.manual_seed(0)
    model = Transformer(config).eval()
    save_weights(tmp_path / "w.safetensors", model)
    torch.manual_seed(1)
    restored = Transformer(config).eval()
    load_weights_into(restored, tmp_path / "w.safetensors")
    src = torch.randint(4, 30, (2, 5))
    tgt = torch.randint(4, 30, (2, 4))
    mask = torch.ones_like(src, dtype=torch.bool)
    assert torch.equal(model(src, mask, tgt), restored(src, mask, tgt))
    assert restored.projection.weight is restored.src_embedding.tokens.weight


def test_shape_mismatch_names_the_tensor(tmp_path) -> None:
    small = Transformer(
        ModelConfig(src_vocab=30, tgt_vocab=30, d_model=16, ff=32, heads=2, layers=1)
    )
    large = Transformer(
        ModelConfig(src_vocab=30, tgt_vocab=30, d_model=16, ff=64, heads=2, layers=1)
    )
    save_weights(tmp_path / "w.safetensors", small)
    with pytest.raises(MtError, match="has shape"):
        load_weights_into(large, tmp_path / "w.safetensors")


def test_optimizer_state_round_trips() -> None:
    parameter = torch.nn.Parameter(torch.randn(4))
    optimizer = torch.optim.Adam([parameter], lr=0.1)
    parameter.grad = torch.ones(4)
    optimizer.step()
    tensors, rest = optimizer_to_tensors(optimizer.state_dict())
    restored = optimizer_from_tensors(tensors, rest)
    fresh = torch.optim.Adam([parameter], lr=0.1)
    fresh.load_state_dict(restored)
    assert torch.equal(
        fresh.state_dict()["state"][0]["exp_avg"], optimizer.state_dict()["state"][0]["exp_avg"]
    )
