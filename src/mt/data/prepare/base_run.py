"""A trained run read as the base of new data: its tokenizers and model settings, checked.

`mt prepare --tokenizers-from RUN` encodes a user's data with the labels RUN's model knows, so
`mt train --init-from RUN` can continue from its weights: a vocabulary learned anew would give
the same ids other meanings. Only the files are read here (no torch, no weights).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mt.checksums import file_sha256
from mt.config import ModelConfig
from mt.data.tokenization import WordPieceCodec
from mt.errors import MtError
from mt.files import MODEL_JSON, SOURCE_TOKENIZER, TARGET_TOKENIZER, TRAIN_JSON, is_export
from mt.run_configs import read_model_config, read_train_config

TOKENIZER_FILES = (SOURCE_TOKENIZER, TARGET_TOKENIZER)


@dataclass(frozen=True)
class BaseRun:
    """A run directory's tokenizers, model settings and the prepared data it was trained on."""

    directory: Path
    model: ModelConfig
    source: WordPieceCodec
    target: WordPieceCodec
    prepared: Path

    def lineage(self) -> dict[str, object]:
        """What prepare.json records: the run, its architecture and its tokenizers' checksums."""
        return {
            "run": str(self.directory.resolve()),
            "arch": self.model.arch,
            "vocabulary": {"source": self.model.src_vocab, "target": self.model.tgt_vocab},
            "sha256": tokenizer_digests(self.directory),
        }


def read_base_run(run: Path, *, option: str) -> BaseRun:
    """The run directory `run` given to `option`, or one MtError saying why it cannot serve."""
    if not run.is_dir():
        raise MtError(f"{option} {run}: no such run directory (train one with `mt train`)")
    if is_export(run):
        raise MtError(
            f"{option} {run}: this is an `mt export` directory (a CTranslate2 model); give the "
            "run directory it was exported from"
        )
    if not (run / MODEL_JSON).is_file() or not (run / TRAIN_JSON).is_file():
        raise MtError(f"{option} {run}: not a run directory of `mt train` (no {MODEL_JSON})")
    model = read_model_config(run)  # names the file and the field, e.g. an unknown architecture
    _, prepared = read_train_config(run)
    source = WordPieceCodec.load(run / SOURCE_TOKENIZER)
    target = WordPieceCodec.load(run / TARGET_TOKENIZER)
    sizes = (source.vocab_size, target.vocab_size)
    if sizes != (model.src_vocab, model.tgt_vocab):
        raise MtError(
            f"{option} {run}: its tokenizers have {sizes[0]}/{sizes[1]} labels but its "
            f"{MODEL_JSON} says {model.src_vocab}/{model.tgt_vocab}; the run is damaged"
        )
    return BaseRun(directory=run, model=model, source=source, target=target, prepared=prepared)


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
