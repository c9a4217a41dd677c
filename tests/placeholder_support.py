"""A tiny tokenizer that has the placeholder tokens, for tests of what uses them.

Each token is one piece, with and without the word-start mark, and the pre-tokenizer keeps it
whole; `mt prepare` builds its own such tokenizers, this one is only for tests that need one
without preparing a corpus.
"""

from __future__ import annotations

import json

from tokenizers import Regex, Tokenizer, pre_tokenizers

from mt.data.tokenization import PLACEHOLDERS, SPACE, WordPieceCodec


def placeholder_codec(sentences: list[str], vocab_size: int = 200) -> WordPieceCodec:
    """A WordPieceCodec trained on `sentences` with PLACEHOLDERS added as whole pieces."""
    trained = WordPieceCodec.train(sentences, vocab_size)._tokenizer
    spec = json.loads(trained.to_str())
    vocab = spec["model"]["vocab"]
    for token in PLACEHOLDERS:
        for piece in (SPACE + token, token):
            vocab.setdefault(piece, len(vocab))
    tokenizer = Tokenizer.from_str(json.dumps(spec))
    isolate = Regex(rf"{SPACE}?｟\d+｠|{SPACE}?[\p{{P}}\p{{S}}&&[^{SPACE}]]|{SPACE}?\d+")
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Metaspace(replacement=SPACE, prepend_scheme="always", split=True),
            pre_tokenizers.Split(isolate, behavior="isolated"),
        ]
    )
    return WordPieceCodec(tokenizer)
