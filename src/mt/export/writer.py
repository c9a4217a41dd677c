"""`mt export RUN --out DIR`: a trained Transformer as a CTranslate2 model plus what mt needs.

DIR/model.json          "format": "mt-ctranslate2", the model config, mt's default search
                        settings, and what was exported (run, checkpoint, quantization)
DIR/train.json          the run's, so `mt evaluate DIR` finds the prepared data and length limits
DIR/source-tokenizer.json, DIR/target-tokenizer.json
DIR/lexicon.tsv         the run's: which capitalised words are names
DIR/calibration.json    the run's, where `mt calibrate` wrote one: its confidence (docs/trust.md)
DIR/words.tsv           the run's: how the training English spells (normalising)
DIR/ctranslate2/        model.bin, config.json, vocabularies: written by CTranslate2's converter
DIR/checksums.sha256    SHA-256 of every other file (`sha256sum -c` reads it); checked on load

The directory is built under a temporary name beside DIR and renamed into place, so a failure
leaves nothing half-written, and `--force` replaces only a directory `mt export` wrote. No torch
model is built: the weights go from the run's safetensors straight into the converter.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mt._version import __version__
from mt.catalog.modelinfo import ModelInfo, is_export
from mt.config import DecodeConfig, ModelConfig
from mt.data.tokenization import WordPieceCodec
from mt.decode.ct2_engine import require_ctranslate2
from mt.decode.run_tables import lexicon_for, word_stats_for
from mt.errors import MtError
from mt.model.checkpoint import load_tensors
from mt.model.rundir import check_fits, check_vocabularies
from mt.storage.atomic import (
    atomic_write_bytes,
    building_beside,
    check_replaceable,
    replace_directory,
)
from mt.storage.checksums import write_checksums
from mt.storage.files import (
    CALIBRATION_JSON,
    CT2_MODEL,
    DECODE_JSON,
    EXPORT_FORMAT,
    LEXICON,
    MODEL_JSON,
    RUN_FORMAT,
    SOURCE_TOKENIZER,
    TARGET_TOKENIZER,
    TRAIN_JSON,
    WORD_STATS,
    write_json,
)

QUANTIZATIONS = ("int8", "int8_float32", "int16", "float16", "float32")


@dataclass(frozen=True)
class ExportResult:
    model: str  # what was exported: the shipped name or the run directory
    out: Path
    quantization: str
    model_bytes: int  # DIR/ctranslate2/model.bin
    weights_bytes: int  # the run's safetensors file
    seconds: float


def export_run(
    info: ModelInfo,
    out: Path,
    *,
    quantization: str = "int8",
    checkpoint: str = "best",
    force: bool = False,
) -> ExportResult:
    """Convert the `checkpoint` weights of a run (a directory, or a shipped model's name; None
    is the shipped default) and write the export directory `out`."""
    started = time.perf_counter()
    if quantization not in QUANTIZATIONS:
        raise MtError(
            f"--quantization must be one of {', '.join(QUANTIZATIONS)}, got {quantization!r}"
        )
    if info.kind == "export":
        raise MtError(f"{info.label}: this is an `mt export` already; give the run it came from")
    weights_path = info.weights(checkpoint)
    run_dir, config = info.directory, info.config
    if config.arch != "transformer":
        raise MtError(
            f"{info.label}: an {config.arch.upper()} run cannot be exported; CTranslate2 runs "
            "Transformers only (train with --arch transformer)"
        )
    lexicon_for(run_dir), word_stats_for(run_dir)  # copied into the export: they must be readable
    _check_out(run_dir, out, force=force)
    ctranslate2 = require_ctranslate2("mt export")
    with building_beside(out, doing="exporting") as tmp:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.mkdir()
        digest = convert_weights(
            info, tmp / CT2_MODEL, quantization=quantization, checkpoint=checkpoint
        )
        copied = [SOURCE_TOKENIZER, TARGET_TOKENIZER, TRAIN_JSON, LEXICON, WORD_STATS]
        copied += [f for f in (CALIBRATION_JSON, DECODE_JSON) if (run_dir / f).is_file()]
        for name in copied:
            atomic_write_bytes(tmp / name, (run_dir / name).read_bytes())
        facts = {"quantization": quantization, "version": ctranslate2.__version__}
        write_json(tmp / MODEL_JSON, _model_json(config, info, checkpoint, digest, facts))
        write_checksums(tmp)
        _check_out(run_dir, out, force=force)  # another process may have made it meanwhile
        replace_directory(tmp, out)
    return ExportResult(
        model=info.label,
        out=out,
        quantization=quantization,
        model_bytes=(out / CT2_MODEL / "model.bin").stat().st_size,
        weights_bytes=weights_path.stat().st_size,
        seconds=time.perf_counter() - started,
    )


def convert_weights(info: ModelInfo, out: Path, *, quantization: str, checkpoint: str) -> str:
    """The CTranslate2 model of a run's `checkpoint` weights written to `out` (a new directory);
    returns the weights' checksum. Also what mt.export.int8_copy makes of a shipped model."""
    from mt.export.converter import MtConverter

    source = WordPieceCodec.load(info.source_tokenizer)
    target = WordPieceCodec.load(info.target_tokenizer)
    check_vocabularies(info.directory, info.config, source, target)
    weights, digest = _read_weights(info.weights(checkpoint), info.config)
    MtConverter(
        config=info.config,
        weights=weights,
        source_vocabulary=_vocabulary(source),
        target_vocabulary=_vocabulary(target),
    ).convert(str(out), quantization=quantization)
    return digest


def _check_out(run_dir: Path, out: Path, *, force: bool) -> None:
    if out.resolve() == run_dir.resolve():
        raise MtError(f"--out {out} is the run directory itself; give a new directory")
    check_replaceable(
        out,
        force=force,
        is_ours=is_export,
        refusal=f"is not an mt export (no {MODEL_JSON} with format {EXPORT_FORMAT}); "
        "--force replaces only what `mt export` wrote",
    )


def _vocabulary(codec: WordPieceCodec) -> list[str]:
    """Label strings in id order: CTranslate2 exchanges tokens, mt's ids index this list."""
    return [codec.id_to_piece(i) for i in range(codec.vocab_size)]


def _read_weights(path: Path, config: ModelConfig) -> tuple[dict[str, np.ndarray], str]:
    """Float32 arrays by state_dict name, checked against the shapes `config` gives."""
    from mt.model.checkpoint import CHECKSUM_KEY
    from mt.model.transformer import make_model

    tensors, metadata = load_tensors(path)
    check_fits(path, tensors, make_model(config).state_dict())
    arrays = {name: t.detach().float().cpu().numpy() for name, t in tensors.items()}
    return arrays, metadata.get(CHECKSUM_KEY, "")


def _model_json(
    config: ModelConfig, info: ModelInfo, checkpoint: str, digest: str, facts: dict[str, str]
) -> dict[str, object]:
    """What the directory is, the model it holds, and mt's default search settings, so that a
    CTranslate2 user outside mt can reproduce mt's output (mt.decode.ct2_engine has the mapping)."""
    return {
        "format": EXPORT_FORMAT,
        "format_version": RUN_FORMAT,
        "model": config.to_dict(),
        "decode": DecodeConfig().to_dict(),
        "ctranslate2": {"directory": CT2_MODEL, **facts},
        "exported_from": {
            "run": info.name or str(info.directory.resolve()),
            "checkpoint": checkpoint,
            "weights_sha256": digest,
            "mt_version": __version__,
        },
    }
