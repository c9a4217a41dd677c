"""The tokenizers of a prepared directory: learned on a sample of its training part, or a
trained run's, copied (`--tokenizers-from`); and what prepare.json says about them.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from mt.config import PrepareConfig
from mt.data.base_run import TOKENIZER_FILES, BaseRun, tokenizer_digests
from mt.data.coverage import coverage
from mt.data.prepared_dir import PART_FILES
from mt.data.tokenization import WordPieceCodec
from mt.files import SOURCE_TOKENIZER, TARGET_TOKENIZER


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
    """Tokenizers trained on the sample `texts`, or the base run's copied byte for byte (so the
    checksums prepare.json records are the run's), with what prepare.json says about them."""
    if base is None:
        source, target = train_tokenizers(texts, config)
        source.save(tmp / SOURCE_TOKENIZER)
        target.save(tmp / TARGET_TOKENIZER)
        return source, target, {}
    for name in TOKENIZER_FILES:
        shutil.copyfile(base.directory / name, tmp / name)
    base_train = base.prepared / PART_FILES["train"]
    figures = coverage(*texts, source=base.source, target=base.target, base_train=base_train)
    return base.source, base.target, {"tokenizers_from": base.lineage(), "coverage": figures}


def vocabulary_info(
    config: PrepareConfig,
    source: WordPieceCodec,
    target: WordPieceCodec,
    train_pairs: int,
    base: BaseRun | None,
) -> dict[str, Any]:
    if base is not None:
        shared = len(set(tokenizer_digests(base.directory).values())) == 1
        return {
            "shared_vocab": shared,
            "requested_source": source.vocab_size,
            "requested_target": target.vocab_size,
            "source": source.vocab_size,
            "target": target.vocab_size,
            "tokenizer_sample": 0,
            "from_run": str(base.directory.resolve()),
        }
    return {
        "shared_vocab": bool(config.shared_vocab),
        "requested_source": config.shared_vocab or config.src_vocab,
        "requested_target": config.shared_vocab or config.tgt_vocab,
        "source": source.vocab_size,
        "target": target.vocab_size,
        "tokenizer_sample": int(min(config.tokenizer_sample, train_pairs)),
    }
