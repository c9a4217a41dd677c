"""Fit a run's confidence on held-out pairs: translate a seeded sample of the selection part,
score each output with sentence chrF against its references, and fit the probability that a
translation is good (chrF >= GOOD_CHRF) on the evidence (mt.quality.confidence). Fitted to
P(good), the confidence ranked outputs better on the dev parts than fitted to chrF / 100
(benchmarks/trust/bench_trust_choices.py, docs/trust.md).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import numpy as np

from mt.catalog.modelinfo import ModelInfo
from mt.data.prepared_dir import PART_FILES, read_pairs
from mt.decode.translator import Translator
from mt.errors import MtError
from mt.quality.confidence import Calibration, fit_calibration, write_calibration

GOOD_CHRF = 50.0
"""A translation at or above this sentence chrF counts as good: on Tatoeba it is roughly where
an output stops needing more than a word fixed."""
SAMPLE = 2000
TARGETS = {
    "good": lambda chrf: (chrf >= GOOD_CHRF).astype(np.float64),  # P(sentence chrF >= 50)
    "chrf": lambda chrf: np.clip(chrf / 100.0, 0.0, 1.0),  # expected sentence chrF / 100
}
"""What the regression can be fitted to, from the sentence chrF of each output."""
TARGET = "good"
"""The one `mt calibrate` fits (chosen on development data: see the module's docstring)."""
TARGET_DESCRIPTIONS = {
    "good": f"P(sentence chrF >= {GOOD_CHRF:g}) (sacrebleu)",
    "chrf": "sentence chrF / 100 (sacrebleu)",
}


def selection_part(info: ModelInfo, data: Path | None) -> Path:
    """The selection part of `data`, else of the prepared directory the model was trained on."""
    if data is None:
        if not info.prepared.is_dir():
            raise MtError(
                f"{info.label}: the data it was trained on ({info.prepared}) is not here; give a "
                "prepared directory with --data"
            )
        data = info.prepared
    return Path(data) / PART_FILES["selection"]


def grouped_references(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    """English sentence -> all its Spanish translations (a prepared part keeps them together)."""
    references: dict[str, list[str]] = {}
    for english, spanish in pairs:
        references.setdefault(english, []).append(spanish)
    return references


def sample_sources(references: dict[str, list[str]], size: int, seed: int) -> list[str]:
    sources = sorted(references)
    random.Random(seed).shuffle(sources)
    return sources[:size]


def sentence_chrf(hypotheses: list[str], references: list[list[str]]) -> list[float]:
    """sacrebleu's sentence chrF of each hypothesis against its own references."""
    from sacrebleu.metrics import CHRF

    chrf = CHRF()
    return [
        chrf.sentence_score(hyp, refs).score
        for hyp, refs in zip(hypotheses, references, strict=True)
    ]


def scored_sample(
    translator: Translator,
    selection: Path,
    *,
    size: int = SAMPLE,
    seed: int = 0,
    progress: Callable[[str], None] = lambda message: None,
) -> tuple[np.ndarray, np.ndarray]:
    """What a calibration is fitted on: the evidence features (N, len(FEATURES)) and sentence chrF
    (N,) of a seeded sample of `selection` (benchmarks/trust/bench_trust_choices.py fits it too)."""
    references = grouped_references(read_pairs(selection))
    sources = sample_sources(references, size, seed)
    if len(sources) < 20:
        raise MtError(f"{selection}: {len(sources)} sentences; calibration needs at least 20")
    progress(f"translating {len(sources)} sentences of {selection}")
    translations = list(translator.translate(sources))
    kept = [(s, t) for s, t in zip(sources, translations, strict=True) if t.evidence is not None]
    scores = np.asarray(
        sentence_chrf([t.text for _, t in kept], [references[s] for s, _ in kept]),
        dtype=np.float64,
    )
    return np.asarray([t.evidence.features() for _, t in kept]), scores


def calibrate(
    translator: Translator,
    selection: Path,
    *,
    size: int = SAMPLE,
    seed: int = 0,
    progress: Callable[[str], None] = lambda message: None,
) -> Calibration:
    """Translate `size` sentences of `selection` (a prepared part's TSV) and fit a Calibration."""
    features, scores = scored_sample(translator, selection, size=size, seed=seed, progress=progress)
    good = TARGETS["good"](scores)
    if good.min() == good.max():
        raise MtError(
            f"{selection}: every translation is {'good' if good[0] else 'bad'}; "
            "nothing to calibrate on"
        )
    config = translator.config
    fitted = {
        "part": str(selection),
        "sentences": len(scores),
        "seed": seed,
        "target": TARGET_DESCRIPTIONS[TARGET],
        "mean_chrf": round(float(scores.mean()), 2),
        "good": f"sentence chrF >= {GOOD_CHRF:g} (sacrebleu)",
        "good_share": round(float(good.mean()), 4),
        "good_sentences": int(good.sum()),
        "beam_size": config.beam_size,
        "length_penalty": config.length_penalty,
    }
    return fit_calibration(features, TARGETS[TARGET](scores), fitted=fitted)


def save_calibration(translator: Translator, calibration: Calibration) -> Path:
    """Write calibration.json atomically into the translator's model directory (an export's
    checksums.sha256 again); `translator.with_options` gives a translator that uses it."""
    from mt.storage.checksums import write_checksums

    info = translator.run.info
    info.writable_directory.mkdir(parents=True, exist_ok=True)
    path = write_calibration(info.writable_directory, calibration)
    if info.kind == "export":
        write_checksums(info.directory)
    return path
