"""A confidence in [0, 1] for each translation: what the search saw, mapped to the probability
that the translation is good (sentence chrF >= 50 against references).

The evidence is the same for both engines: the best hypothesis's log-prob and length, and the
source's length and [UNK] pieces. A logistic regression fitted on the selection part
(mt.evaluate.calibrate) turns it into that probability (calibration.json); without it the
confidence is exp(mean log-prob) and says it is uncalibrated. The weight of the mean log-prob is
never negative: confidence never falls as the model grows surer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mt.errors import MtError
from mt.storage.files import CALIBRATION_JSON, check_format, read_json, write_json

if TYPE_CHECKING:
    import numpy as np

CALIBRATION_FORMAT = 1
FEATURES = (
    "mean_log_prob",  # log-prob per output label, [EOS] included
    "log_length_ratio",  # log((output labels + 1) / (source pieces + 1))
    "log_length_ratio_squared",  # too long and too short both count
    "unknown_share",  # share of source pieces that are [UNK]
    "log_source_length",  # short inputs are scored differently from long ones
)
"""A cut output is a flag (mt.quality.flags), not a feature: too rare on held-out data to fit."""
MONOTONE = "mean_log_prob"


@dataclass(frozen=True)
class Evidence:
    """What the search tells about one translated line (summed over its pieces)."""

    log_prob: float  # of the best hypotheses, [EOS] included
    target_labels: int  # output labels, [EOS] included
    source_pieces: int  # source pieces, [EOS] excluded
    unknown_pieces: int  # of them, [UNK]
    cut: bool  # a piece ended at the length limit without choosing [EOS]

    def __add__(self, other: Evidence) -> Evidence:
        return Evidence(
            self.log_prob + other.log_prob,
            self.target_labels + other.target_labels,
            self.source_pieces + other.source_pieces,
            self.unknown_pieces + other.unknown_pieces,
            self.cut or other.cut,
        )

    @property
    def mean_log_prob(self) -> float:
        return self.log_prob / max(self.target_labels, 1)

    def features(self) -> list[float]:
        """The values of FEATURES, in order."""
        ratio = math.log((self.target_labels + 1) / (self.source_pieces + 1))
        return [
            self.mean_log_prob,
            ratio,
            ratio * ratio,
            self.unknown_pieces / max(self.source_pieces, 1),
            math.log(self.source_pieces + 1),
        ]


def add_evidence(pieces: Sequence[Evidence]) -> Evidence | None:
    """One line's evidence from its pieces' (None for an empty line)."""
    if not pieces:
        return None
    total = pieces[0]
    for piece in pieces[1:]:
        total = total + piece
    return total


@dataclass(frozen=True)
class Calibration:
    """Standardised features -> logistic regression; `fitted` describes the data (JSON-ready)."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    fitted: dict

    @property
    def calibrated(self) -> bool:
        return True

    def confidence(self, evidence: Evidence | None) -> float:
        if evidence is None:
            return 0.0
        # Five products in plain Python: a translation need not import numpy for them.
        values = zip(evidence.features(), self.mean, self.scale, self.weights, strict=True)
        return _sigmoid(sum((x - m) / s * w for x, m, s, w in values) + self.bias)

    def to_dict(self) -> dict:
        return {
            "format_version": CALIBRATION_FORMAT,
            "features": list(FEATURES),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "weights": list(self.weights),
            "bias": self.bias,
            "fitted": self.fitted,
        }


class Uncalibrated:
    """The fallback without calibration.json: exp(mean log-prob), the geometric mean of the
    output's token probabilities. In [0, 1] and monotone, but not a probability of being good."""

    calibrated = False
    fitted: dict = {}

    def confidence(self, evidence: Evidence | None) -> float:
        if evidence is None:
            return 0.0
        return math.exp(min(evidence.mean_log_prob, 0.0))


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def fit_calibration(
    features: np.ndarray, good: np.ndarray, *, fitted: dict, l2: float = 1e-3, steps: int = 3000
) -> Calibration:
    """Logistic regression of `good` (in [0, 1], (N,): 0/1 labels, or a soft target such as
    chrF / 100) on `features` (N, len(FEATURES)): fit_logistic with the MONOTONE weight >= 0."""
    import numpy as np

    x = np.asarray(features, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != len(FEATURES) or len(good) != len(x) or len(x) < 2:
        raise MtError(f"calibration needs (N, {len(FEATURES)}) features for N >= 2 lines")
    mean, scale, w, b = fit_logistic(x, good, monotone=FEATURES.index(MONOTONE), l2=l2, steps=steps)
    return Calibration(
        tuple(mean.tolist()), tuple(scale.tolist()), tuple(w.tolist()), b, dict(fitted)
    )


def fit_logistic(
    x: np.ndarray, y: np.ndarray, *, monotone: int, l2: float = 1e-3, steps: int = 3000
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(mean, scale, weights, bias) of a logistic regression of y in [0, 1] on x, standardised, by
    projected gradient descent that keeps weight `monotone` >= 0."""
    import numpy as np

    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    mean = x.mean(0)
    scale = x.std(0)
    scale[scale == 0] = 1.0
    z = (x - mean) / scale
    w = np.zeros(z.shape[1])
    b = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(z @ w + b)))
        w -= 0.5 * (z.T @ (p - y) / len(y) + l2 * w)
        b -= 0.5 * float((p - y).mean())
        w[monotone] = max(w[monotone], 0.0)
    return mean, scale, w, b


def write_calibration(run_dir: Path, calibration: Calibration) -> Path:
    path = run_dir / CALIBRATION_JSON
    write_json(path, calibration.to_dict())
    return path


def read_calibration(model_dir: Path) -> Calibration | Uncalibrated:
    """The directory's calibration.json, else Uncalibrated; a broken file is a one-line MtError."""
    path = model_dir / CALIBRATION_JSON
    if not path.is_file():
        return Uncalibrated()
    data = read_json(path)
    advice = f"run `mt calibrate {model_dir}` again"
    if not isinstance(data, dict):
        raise MtError(f"{path}: not a calibration (expected a JSON object); {advice}")
    check_format(data.get("format_version"), CALIBRATION_FORMAT, what=f"{path}: calibration")
    if data.get("features") != list(FEATURES):
        raise MtError(f"{path}: features {data.get('features')} are not {list(FEATURES)}; {advice}")
    fields = {name: _numbers(data, name, path, advice) for name in ("mean", "scale", "weights")}
    bias = data.get("bias")
    if isinstance(bias, bool) or not isinstance(bias, int | float) or not math.isfinite(bias):
        raise MtError(f"{path}: bias must be a finite number; {advice}")
    if min(fields["scale"]) <= 0:
        raise MtError(f"{path}: scale must be positive; {advice}")
    if fields["weights"][FEATURES.index(MONOTONE)] < 0:
        raise MtError(f"{path}: the weight of {MONOTONE} must not be negative; {advice}")
    fitted = data.get("fitted", {})
    if not isinstance(fitted, dict):
        raise MtError(f"{path}: fitted must be a JSON object; {advice}")
    return Calibration(fields["mean"], fields["scale"], fields["weights"], float(bias), fitted)


def _numbers(data: dict, name: str, path: Path, advice: str) -> tuple[float, ...]:
    values = data.get(name)
    if (
        not isinstance(values, list)
        or len(values) != len(FEATURES)
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
        or not all(math.isfinite(v) for v in values)
    ):
        raise MtError(f"{path}: {name} must be {len(FEATURES)} finite numbers; {advice}")
    return tuple(float(v) for v in values)
