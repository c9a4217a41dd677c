import numpy as np
import torch

from mt.data.feed.batching import (
    Batch,
    EncodedPairs,
    _cut,
    batch_indices,
    collate,
    encode_pairs,
    lengths,
    step_batches,
)
from mt.data.tokenarrays import FileColumn, TokenArrayWriter, open_column
from mt.data.tokenization import BOS, EOS, PAD


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
    assert batch.out_positions.tolist() == [0, 1, 2, 3, 4]  # flat (B·T) indices of real ones
    assert batch.out_labels.tolist() == [9, 10, EOS, 11, EOS]
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
    assert sum(len(indices) for indices in batches) == len(pairs)
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


def greedy_cut_one_by_one(sorted_pool: np.ndarray, longest: np.ndarray, budget: int) -> list:
    """The token-budget cut written the obvious way, a sentence at a time."""
    batches, start, widest = [], 0, 0
    for position, index in enumerate(sorted_pool):
        widest = max(widest, int(longest[index]))
        if (position - start + 1) * widest > budget and position > start:
            batches.append(sorted_pool[start:position])
            start, widest = position, int(longest[index])
    batches.append(sorted_pool[start:])
    return batches


def test_vectorised_cut_equals_the_sentence_by_sentence_cut() -> None:
    rng = np.random.default_rng(4)
    for budget in (1, 7, 60, 300, 5000):
        longest = rng.integers(1, 40, size=700)
        pool = rng.permutation(700)
        expected = greedy_cut_one_by_one(pool, longest, budget)
        got = _cut(pool, longest[pool], batch_size=1, batch_tokens=budget)
        assert [b.tolist() for b in got] == [b.tolist() for b in expected]


def test_memory_mapped_columns_collate_like_lists(tmp_path) -> None:
    pairs = random_pairs(300, seed=2)
    src_lists = [pairs.source.row(i).tolist() for i in range(len(pairs))]
    tgt_lists = [pairs.target.row(i).tolist() for i in range(len(pairs))]
    columns = {}
    for name, lists in (("src", src_lists), ("tgt", tgt_lists)):
        writer = TokenArrayWriter(tmp_path, name, vocab_size=100)
        writer.add(lists[:100])
        writer.add(lists[100:])
        columns[name] = open_column(tmp_path, writer.finish())
    mapped = EncodedPairs(columns["src"], columns["tgt"], max_src_len=20, max_tgt_len=20)
    assert isinstance(mapped.source, FileColumn) and mapped.source.dtype == np.uint16
    assert [a.tolist() for a in mapped.src] == [a.tolist() for a in pairs.src]
    assert mapped.truncated == pairs.truncated
    for indices in ([0, 5, 9], list(range(50, 120)), [299]):
        a, b = collate(mapped, indices), collate(pairs, indices)
        assert torch.equal(a.src, b.src) and torch.equal(a.tgt_in, b.tgt_in)
        assert torch.equal(a.tgt_out, b.tgt_out) and torch.equal(a.tgt_mask, b.tgt_mask)


def test_epoch_steps_collate_only_what_is_asked_for() -> None:
    pairs = random_pairs(200)
    batches = batch_indices(*lengths(pairs), batch_size=16, batch_tokens=0, seed=0, epoch=0)
    steps = step_batches(pairs, batches, world_size=2, rank=1, grad_accum=2)
    assert len(steps) == len(batches) // 4
    third = steps[2]
    group = batches[8:12]
    assert [len(b.src) for b in third.micro_batches] == [len(group[2]), len(group[3])]
    assert third.target_tokens == sum(int(lengths(pairs)[1][g].sum()) for g in group)
    rest = list(steps.starting_at(2))
    assert len(rest) == len(steps) - 2
    assert torch.equal(rest[0].micro_batches[0].src, third.micro_batches[0].src)
