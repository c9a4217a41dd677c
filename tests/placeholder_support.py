"""Tokenizers with and without the placeholder tokens, for tests of what uses them.

Every tokenizer `mt prepare` trains has them (mt.data.tokenization); one written before that (the
legacy fixture's) has none, and a run that has it must keep its stand-ins.
"""

from __future__ import annotations

from pathlib import Path

from mt.data.tokenization import WordPieceCodec

LEGACY_TOKENIZER = Path(__file__).parent / "fixtures" / "legacy" / "run" / "source-tokenizer.json"


def placeholder_codec(sentences: list[str], vocab_size: int = 200) -> WordPieceCodec:
    """A WordPieceCodec trained on `sentences`; the placeholder tokens come with it."""
    return WordPieceCodec.train(sentences, vocab_size)


def legacy_codec() -> WordPieceCodec:
    """A tokenizer from before the placeholder tokens."""
    return WordPieceCodec.load(LEGACY_TOKENIZER)
