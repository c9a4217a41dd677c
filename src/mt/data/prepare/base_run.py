"""A trained run read as the base of new data (`mt prepare --tokenizers-from RUN`): its tokenizers
and model settings, checked, so its weights keep their ids' meanings. No torch, no weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mt.catalog.modelinfo import ModelInfo, OpenedModel, resolve
from mt.data.tokenization import WordPieceCodec
from mt.errors import MtError
from mt.storage.checksums import file_sha256
from mt.storage.files import SOURCE_TOKENIZER, TARGET_TOKENIZER

TOKENIZER_FILES = (SOURCE_TOKENIZER, TARGET_TOKENIZER)


@dataclass(frozen=True)
class BaseRun(OpenedModel):
    """A trained model's tokenizers and settings (`info`), checked: the base of new data."""

    info: ModelInfo
    source: WordPieceCodec
    target: WordPieceCodec

    def lineage(self) -> dict[str, object]:
        """What prepare.json records: the model (its name, for a shipped one), its architecture
        and its tokenizers' checksums."""
        return {
            "run": self.info.name or str(self.directory.resolve()),
            "arch": self.config.arch,
            "vocabulary": {"source": self.config.src_vocab, "target": self.config.tgt_vocab},
            "sha256": tokenizer_digests(self.directory),
        }


def read_base_run(reference: str | Path | ModelInfo, *, option: str) -> BaseRun:
    """The model `reference` given to `option` (a run directory or a shipped model's name), or
    one MtError saying why it cannot serve."""
    info = resolve(reference, option=option)
    if info.kind == "export":
        raise MtError(
            f"{option} {info.label}: this is an `mt export` directory (a CTranslate2 model); give "
            "the run directory it was exported from"
        )
    source = WordPieceCodec.load(info.source_tokenizer)
    target = WordPieceCodec.load(info.target_tokenizer)
    model = info.config
    sizes = (source.vocab_size, target.vocab_size)
    if sizes != (model.src_vocab, model.tgt_vocab):
        raise MtError(
            f"{option} {info.label}: its tokenizers have {sizes[0]}/{sizes[1]} labels but its "
            f"model.json says {model.src_vocab}/{model.tgt_vocab}; the run is damaged"
        )
    return BaseRun(info=info, source=source, target=target)


def tokenizer_digests(directory: Path) -> dict[str, str]:
    """SHA-256 of the two tokenizer files of a run or prepared directory, by file name."""
    return {name: file_sha256(directory / name) for name in TOKENIZER_FILES}


def check_extends_vocabulary(
    codecs: tuple[WordPieceCodec, WordPieceCodec],
    base: tuple[WordPieceCodec, WordPieceCodec],
    *,
    what: str,
    remedy: str,
) -> None:
    """Every id of the base has the same label on both sides (new labels may follow, as
    `mt prepare --tokenizers-from` appends them), else one MtError: `what` names the two
    directories compared, `remedy` what to do. Compared by pieces, not file bytes, so a
    tokenizer saved again is still the same vocabulary."""
    for side, codec, other in zip(("source", "target"), codecs, base, strict=True):
        if codec.vocab_size < other.vocab_size:
            raise MtError(
                f"{what}: the {side} vocabularies differ ({codec.vocab_size} labels, "
                f"{other.vocab_size} in the base); {remedy}"
            )
        for index in range(other.vocab_size):
            if codec.id_to_piece(index) != other.id_to_piece(index):
                raise MtError(
                    f"{what}: the {side} vocabularies differ at id {index} "
                    f"({codec.id_to_piece(index)!r}, {other.id_to_piece(index)!r} in the base); "
                    f"{remedy}"
                )
