"""Train, save, load and apply the WordPiece tokenizers that turn sentences into label ids.

Case and accents are kept (NFC only), so `decode(encode(s)) == s` for ordinary sentences. A word
start carries "▁"; punctuation, symbols and digit runs are pieces of their own ("¿Dónde" is "▁¿" +
"Dónde"). The PLACEHOLDERS are added tokens, never split, and the text after one gets no "▁" of its
own, so "Visit ｟1｠ today." decodes to itself; `extended` appends them to an older tokenizer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from tokenizers import Encoding, Regex, Tokenizer, models, normalizers, pre_tokenizers, trainers

from mt.errors import MtError
from mt.storage.atomic import atomic_write_text

if TYPE_CHECKING:
    import numpy as np

PAD, UNK, BOS, EOS = 0, 1, 2, 3
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[BOS]", "[EOS]")  # ids fixed by order
# Stand-ins for protected spans (mt.text.spans); OpenNMT's white brackets never occur in text.


def placeholder(number: int) -> str:
    """The number-th placeholder token; past the 16th (PLACEHOLDERS) one no model learned, which
    only documents use, for a paragraph with more protected spans (mt.decode.documents.units)."""
    return f"｟{number}｠"


PLACEHOLDERS = tuple(placeholder(number) for number in range(1, 17))
PLACEHOLDER = re.compile("｟[0-9]+｠")
"""Any placeholder token, a learned one or one past the 16th."""
RESERVED = len(SPECIAL_TOKENS) + len(PLACEHOLDERS)  # labels of a vocabulary that no text decides
# Starts a back-translated source (tagged back-translation); never an output: search bans it.
SYNTHETIC_TAG = "｟BT｠"

SPACE = "▁"
CONTINUE = "##"
# "▁" stays glued to the punctuation mark, symbol or number that follows it. "▁" is itself a
# symbol (So), hence the class intersection.
_ISOLATE = Regex(r"▁?[\p{P}\p{S}&&[^▁]]|▁?\d+")


def _base_tokenizer() -> Tokenizer:
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]", continuing_subword_prefix=CONTINUE))
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Metaspace(replacement=SPACE, prepend_scheme="first", split=True),
            pre_tokenizers.Split(_ISOLATE, behavior="isolated"),
        ]
    )
    return tokenizer


def _unseen_fallback(tokenizer: Tokenizer) -> Tokenizer:
    """A copy that cuts out characters the vocabulary cannot continue a word with, so "Køge" is
    "▁K" [UNK] "ge" rather than one [UNK]; used only on sentences that plain gives an [UNK].
    """
    vocab = tokenizer.get_vocab()
    known = sorted(t[len(CONTINUE) :] for t in vocab if t.startswith(CONTINUE) and len(t) == 3)
    allowed = "".join(f"\\x{{{ord(c):x}}}" for c in [SPACE, *known])
    # Not at the start of a piece: a word start needs no "##" form ("Dónde" after "▁¿").
    unseen = pre_tokenizers.Split(Regex(rf"(?<=.)[^{allowed}\d]+"), behavior="isolated")
    fallback = Tokenizer.from_str(tokenizer.to_str())
    fallback.pre_tokenizer = pre_tokenizers.Sequence([tokenizer.pre_tokenizer, unseen])
    return fallback


class WordPieceCodec:
    """A trained tokenizer for one language side (or both, with a shared vocabulary)."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self._tokenizer = tokenizer
        self._pieces = [""] * tokenizer.get_vocab_size()
        for piece, i in tokenizer.get_vocab().items():  # one call, not one a piece
            self._pieces[i] = piece
        self.tag_id: int | None = tokenizer.token_to_id(SYNTHETIC_TAG)
        """The synthetic tag's id where this vocabulary has it (search bans it)."""

    # The two below are built when first needed, not on load: a translation's source codec never
    # decodes, and most sentences never need the fallback (0.08 s of a cold `mt translate`).
    @cached_property
    def _fallback(self) -> Tokenizer:
        return _unseen_fallback(self._tokenizer)

    @cached_property
    def _surface(self) -> list[str]:
        """What each id contributes to decoded text; special ids contribute nothing."""
        specials = len(SPECIAL_TOKENS)
        return [
            "" if i < specials or p == SYNTHETIC_TAG else _surface(p)
            for i, p in enumerate(self._pieces)
        ]

    @classmethod
    def train(cls, sentences: Iterable[str], vocab_size: int) -> WordPieceCodec:
        """Learn `vocab_size` labels, specials and placeholders included (fewer only if the text
        is tiny); the placeholders take the last 16 ids."""
        if vocab_size <= RESERVED:
            raise MtError(f"vocabulary size must be more than {RESERVED}, got {vocab_size}")
        tokenizer = _base_tokenizer()
        trainer = trainers.WordPieceTrainer(
            vocab_size=vocab_size - len(PLACEHOLDERS),
            special_tokens=list(SPECIAL_TOKENS),
            continuing_subword_prefix=CONTINUE,
            show_progress=False,
        )
        tokenizer.train_from_iterator(sentences, trainer)
        return cls(tokenizer).extended(pieces=(), placeholders=PLACEHOLDERS)

    def extended(self, *, pieces: Sequence[str], placeholders: Sequence[str]) -> WordPieceCodec:
        """A copy with `pieces` (word-pieces such as "<" or "##<") and then `placeholders` given
        the next ids, so every old id keeps its meaning (fine-tuning grows a run's vocabulary)."""
        new = [p for p in [*pieces, *placeholders] if self.knows(p)]
        if new:
            raise MtError(f"cannot add {new[0]!r} to the vocabulary: it is there already")
        data = json.loads(self._tokenizer.to_str())
        vocab = data["model"]["vocab"]
        for piece in [*pieces, *placeholders]:
            vocab[piece] = len(vocab)
        for placeholder in placeholders:
            data["added_tokens"].append(_added_token(vocab[placeholder], placeholder))
        if placeholders:  # no "▁" after a placeholder: a space before the text says it
            data["pre_tokenizer"]["pretokenizers"][0]["prepend_scheme"] = "first"
        return WordPieceCodec(Tokenizer.from_str(json.dumps(data, ensure_ascii=False)))

    def tagged(self) -> WordPieceCodec:
        """This codec with SYNTHETIC_TAG as one more added token (itself when it has it)."""
        if self.knows(SYNTHETIC_TAG):
            return self
        return self.extended(pieces=(), placeholders=(SYNTHETIC_TAG,))

    def knows(self, piece: str) -> bool:
        return self._tokenizer.token_to_id(piece) is not None

    @classmethod
    def load(cls, path: Path) -> WordPieceCodec:
        if not path.is_file():
            raise MtError(f"tokenizer file {path} is missing")
        try:
            tokenizer = Tokenizer.from_file(str(path))
        except Exception as error:  # tokenizers raises bare Exception for bad JSON
            raise MtError(f"tokenizer file {path} is corrupt: {error}") from None
        for i, token in enumerate(SPECIAL_TOKENS):
            if tokenizer.token_to_id(token) != i:
                raise MtError(f"tokenizer file {path} is not from mt: {token} is not id {i}")
        return cls(tokenizer)

    def save(self, path: Path) -> None:
        atomic_write_text(path, self._tokenizer.to_str())

    @property
    def vocab_size(self) -> int:
        return len(self._pieces)

    def encode(self, text: str) -> list[int]:
        return self._encoding(text).ids

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        texts = list(texts)
        ids = [e.ids for e in self._tokenizer.encode_batch_fast(texts, add_special_tokens=False)]
        redo = [row for row, sentence in enumerate(ids) if UNK in sentence]
        if redo:
            retry = [texts[row] for row in redo]
            again = self._fallback.encode_batch_fast(retry, add_special_tokens=False)
            for row, encoding in zip(redo, again, strict=True):
                ids[row] = encoding.ids
        return ids

    def decode(self, ids: Sequence[int]) -> str:
        """The text of `ids`, its special ids dropped. A lone word-start piece ("▁") is a space
        of its own: a model that emits one last, or two in a row (an unsure or a tiny one does),
        would give "Ya son las 7:15 " or "A  casa"; such spaces are one, and none at either end."""
        text = "".join([self._surface[i] for i in ids])
        return _SPACES.sub(" ", text).strip(" ")

    def spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) in `text` of each piece encode() gives, for word alignment."""
        return [tuple(offset) for offset in self._encoding(text).offsets]

    def pieces(self, text: str) -> list[str]:
        return self._encoding(text).tokens

    def id_to_piece(self, i: int) -> str:
        return self._pieces[i]

    def _encoding(self, text: str) -> Encoding:
        encoding = self._tokenizer.encode(text, add_special_tokens=False)
        if UNK in encoding.ids:
            encoding = self._fallback.encode(text, add_special_tokens=False)
        return encoding


def _added_token(index: int, content: str) -> dict[str, object]:
    """A token matched as it is in the raw text, before normalisation and pre-tokenisation."""
    return {
        "id": index, "content": content, "single_word": False, "lstrip": False,
        "rstrip": False, "normalized": False, "special": False,
    }  # fmt: skip


_SPACES = re.compile(" {2,}")


def _surface(piece: str) -> str:
    if piece.startswith(CONTINUE) and len(piece) > len(CONTINUE):
        piece = piece[len(CONTINUE) :]
    return piece.replace(SPACE, " ")


def source_ids(src_ids: Sequence[Sequence[int]], max_src_len: int) -> list[list[int]]:
    """Source ids as the encoder reads them: cut to leave room for [EOS], then [EOS]. Plain
    lists: a translation through CTranslate2 then never imports numpy (0.15 s of a cold call)."""
    return [[*ids[: max_src_len - 1], EOS] for ids in src_ids]


def encode_sources(src_ids: Sequence[Sequence[int]], max_src_len: int) -> list[np.ndarray]:
    """`source_ids` as int64 arrays, for the PyTorch paths."""
    import numpy as np

    return [np.asarray(ids, dtype=np.int64) for ids in source_ids(src_ids, max_src_len)]


def has_placeholders(*codecs: WordPieceCodec) -> bool:
    """Whether every placeholder token is one id of each codec that decodes back to itself: the
    one test of whether a model can be taught, or was taught, to copy them (kept here, beside
    the tokens: translating asks it without the training modules)."""
    for codec in codecs:
        for token in PLACEHOLDERS:
            ids = codec.encode(token)
            if len(ids) != 1 or codec.decode(ids).strip() != token:
                return False
    return True
