import pytest
import torch
import torch.nn.functional as F

from mt.model import transformer
from mt.model.dropout import Dropout, dropout, keep_mask


@pytest.mark.parametrize("p", [0.1, 0.3])
def test_keep_mask_drops_the_asked_share(p: float) -> None:
    torch.manual_seed(0)
    mask = keep_mask(torch.Size([400, 1001]), p, torch.device("cpu"))  # odd count: a half draw
    assert mask.shape == (400, 1001)
    assert 1 - mask.float().mean().item() == pytest.approx(p, abs=0.003)


def test_kept_positions_are_scaled_and_gradients_follow_the_mask() -> None:
    torch.manual_seed(0)
    x = torch.full((64, 50), 2.0, requires_grad=True)
    y = dropout(x, 0.2, training=True)
    kept = y != 0
    assert torch.allclose(y[kept], torch.tensor(2.0 / 0.8))
    y.sum().backward()
    assert torch.equal(x.grad, kept.float() / 0.8)


def test_eval_mode_and_zero_rate_are_the_identity() -> None:
    x = torch.randn(5, 7)
    layer = Dropout(0.5).eval()
    assert layer(x) is x
    assert dropout(x, 0.0, training=True) is x


def test_written_out_attention_equals_sdpa(monkeypatch) -> None:
    """The training path (taken with dropout on a CPU) computes what SDPA computes."""
    monkeypatch.setattr(transformer, "dropout", lambda x, p, training: x)
    generator = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(3, 4, 6, 8, generator=generator) for _ in range(3))
    key_mask = torch.ones(3, 1, 1, 6, dtype=torch.bool)
    key_mask[0, ..., 4:] = False
    for causal, mask in ((True, None), (False, key_mask)):
        written = transformer.attend(q, k, v, mask, causal=causal, p=0.1)
        expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
        assert torch.allclose(written, expected, atol=1e-5)
