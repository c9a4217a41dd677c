import numpy as np
import torch

from mt.batching import Batch, batch_indices, collate, encode_pairs, lengths
from mt.tokenization import BOS, EOS, PAD


def random_pairs(count: int = 500, seed: int = 0):
    """Sentence pairs whose lengths go together, as translations' do."""
    rng = np.random.default_rng(seed)
    src_lengths = rng.integers(1, 28, size=count)
    tgt_lengths = np.clip(src_lengths + rng.integers(-2, 3, size=count), 1, 30)
    src = [list(rng.integers(4, 50, size=n)) for n in src_lengths]
    tgt = [list(rng.integers(4, 50, size=n)) for n in tgt_lengths]
    return encode_pairs(src, tgt, max_src_len=20, max_tgt_len=20)


def test_labels_and_cutting() -> None:
    pairs = encode_pairs([[5, 6, 7, 8]], [[9, 10, 11, 12]], max_src_len=3, max_tgt_len=4)
    assert pairs.src[0].tolist() == [5, 6, EOS]
    assert pairs.tgt[0].tolist() == [BOS, 9, 10, EOS]
    assert pairs.truncated == 1


def test_collate_shifts_target_and_builds_masks() -> None:
    pairs = encode_pairs([[5], [6, 7, 8]], [[9, 10], [11]], max_src_len=10, max_tgt_len=10)
    batch = collate(pairs, [0, 1])
    assert batch.src.tolist() == [[5, EOS, PAD, PAD], [6, 7, 8, EOS]]
    assert batch.tgt_in.tolist() == [[BOS, 9, 10], [BOS, 11, EOS]]
    assert batch.tgt_out.tolist() == [[9, 10, EOS], [11, EOS, PAD]]
    assert batch.tgt_mask.tolist() == [[True, True, True], [True, True, False]]
    assert batch.target_tokens == 5


def test_every_sentence_once_and_deterministic_per_seed_and_epoch() -> None:
    pairs = random_pairs()
    src_len, tgt_len = lengths(pairs)
    first = batch_indices(src_len, tgt_len, batch_size=32, batch_tokens=0, seed=3, epoch=1)
    again = batch_indices(src_len, tgt_len, batch_size=32, batch_tokens=0, seed=3, epoch=1)
    other = batch_indices(src_len, tgt_len, batch_size=32, batch_tokens=0, seed=3, epoch=2)
    assert sorted(np.concatenate(first).tolist()) == list(range(len(pairs)))
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=False))


def test_token_batches_respect_the_budget() -> None:
    pairs = random_pairs()
    src_len, tgt_len = lengths(pairs)
    batches = batch_indices(src_len, tgt_len, batch_size=1, batch_tokens=200, seed=0, epoch=0)
    longest = np.maximum(src_len, tgt_len)
    for indices in batches:
        assert len(indices) == 1 or len(indices) * longest[indices].max() <= 200


def test_length_bucketing_cuts_padding() -> None:
    pairs = random_pairs(2000)
    src_len, tgt_len = lengths(pairs)
    bucketed = batch_indices(src_len, tgt_len, batch_size=32, batch_tokens=0, seed=0, epoch=0)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(pairs))
    random_batches = [order[i : i + 32] for i in range(0, len(order), 32)]
    share = padding_share([collate(pairs, b) for b in bucketed])
    random_share = padding_share([collate(pairs, b) for b in random_batches])
    assert share < 0.1 < random_share


def test_batch_to_device_keeps_values() -> None:
    pairs = random_pairs(10)
    batch = collate(pairs, list(range(10)))
    moved = batch.to(torch.device("cpu"))
    assert torch.equal(moved.src, batch.src) and torch.equal(moved.tgt_mask, batch.tgt_mask)


def padding_share(batches: list[Batch]) -> float:
    """Share of the padded target positions that are padding."""
    real = sum(b.target_tokens for b in batches)
    total = sum(b.tgt_mask.numel() for b in batches)
    return 1.0 - real / total if total else 0.0
