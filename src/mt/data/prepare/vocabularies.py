"""The tokenizers of a prepared directory: learned on a sample of its training part, or a
trained run's (`--tokenizers-from`), grown for the new data or copied; and what prepare.json says
about them.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from mt.config import PrepareConfig
from mt.data.prepare.base_run import TOKENIZER_FILES, BaseRun, tokenizer_digests
from mt.data.prepare.coverage import coverage, new_coverage
from mt.data.prepare.vocab_growth import grow_pair
from mt.data.prepared_dir import PART_FILES
from mt.data.tokenization import WordPieceCodec
from mt.storage.files import SOURCE_TOKENIZER, TARGET_TOKENIZER


def train_tokenizers(
    texts: tuple[list[str], list[str]], config: PrepareConfig
) -> tuple[WordPieceCodec, WordPieceCodec]:
    english, spanish = texts
    if config.shared_vocab:
        shared = WordPieceCodec.train(english + spanish, config.shared_vocab)
        return shared, shared
    return (
        WordPieceCodec.train(english, config.src_vocab),
        WordPieceCodec.train(spanish, config.tgt_vocab),
    )


def choose_tokenizers(
    texts: tuple[list[str], list[str]], config: PrepareConfig, *, tmp: Path, base: BaseRun | None
) -> tuple[WordPieceCodec, WordPieceCodec, dict[str, Any]]:
    """Tokenizers trained on the sample `texts`, or the base run's: grown for `texts` where they
    lack pieces (config.extend_vocab), else copied byte for byte (so the checksums prepare.json
    records are the run's); with what prepare.json says about them."""
    if base is None:
        source, target = train_tokenizers(texts, config)
        source.save(tmp / SOURCE_TOKENIZER)
        target.save(tmp / TARGET_TOKENIZER)
        return source, target, {}
    source, target, growth = base.source, base.target, None
    if config.extend_vocab:
        source, target, growth = _grown(base, texts, config)
    if growth and (growth["source"]["added"] or growth["target"]["added"]):
        source.save(tmp / SOURCE_TOKENIZER)
        target.save(tmp / TARGET_TOKENIZER)
    else:
        for name in TOKENIZER_FILES:
            shutil.copyfile(base.directory / name, tmp / name)
    base_train = base.info.prepared / PART_FILES["train"]
    figures = coverage(*texts, source=source, target=target, base_train=base_train)
    extra: dict[str, Any] = {"tokenizers_from": base.lineage(), "coverage": figures}
    if growth is not None:
        figures["new_before_growth"] = new_coverage(*texts, source=base.source, target=base.target)
        extra["vocabulary_growth"] = growth
    return source, target, extra


def _grown(
    base: BaseRun, texts: tuple[list[str], list[str]], config: PrepareConfig
) -> tuple[WordPieceCodec, WordPieceCodec, dict[str, Any]]:
    """The base run's tokenizers grown for `texts`, and what was added to each."""
    source, target, source_growth, target_growth = grow_pair(
        base.source, base.target, texts, shared=_shared(base), min_count=config.min_char_count
    )
    growth = {
        "min_count": config.min_char_count,
        "source": source_growth.to_dict(),
        "target": target_growth.to_dict(),
    }
    return source, target, growth


def _shared(base: BaseRun) -> bool:
    return len(set(tokenizer_digests(base.directory).values())) == 1


def vocabulary_info(
    config: PrepareConfig,
    source: WordPieceCodec,
    target: WordPieceCodec,
    train_pairs: int,
    base: BaseRun | None,
) -> dict[str, Any]:
    if base is not None:
        return {
            "shared_vocab": _shared(base),
            "requested_source": source.vocab_size,
            "requested_target": target.vocab_size,
            "source": source.vocab_size,
            "target": target.vocab_size,
            "tokenizer_sample": 0,
            "from_run": base.info.name or str(base.directory.resolve()),
            "from_run_sizes": {"source": base.source.vocab_size, "target": base.target.vocab_size},
        }
    return {
        "shared_vocab": bool(config.shared_vocab),
        "requested_source": config.shared_vocab or config.src_vocab,
        "requested_target": config.shared_vocab or config.tgt_vocab,
        "source": source.vocab_size,
        "target": target.vocab_size,
        "tokenizer_sample": int(min(config.tokenizer_sample, train_pairs)),
    }
