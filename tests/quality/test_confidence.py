"""Confidence: in [0, 1], monotone in the mean log-prob, fitted, stored and read back."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from mt.errors import MtError
from mt.quality.confidence import (
    CALIBRATION_JSON,
    FEATURES,
    Evidence,
    Uncalibrated,
    add_evidence,
    fit_calibration,
    read_calibration,
    write_calibration,
)


def evidence(mean_log_prob: float, labels: int = 8, source: int = 7) -> Evidence:
    return Evidence(mean_log_prob * labels, labels, source, 0, False)


def scripted_calibration():
    """Good translations have a high mean log-prob (and, a little, a length ratio near 1)."""
    rng = np.random.default_rng(0)
    rows, good = [], []
    for _ in range(400):
        mean_lp = rng.uniform(-2.0, 0.0)
        item = Evidence(mean_lp * 9, 9, int(rng.integers(3, 20)), int(rng.integers(0, 2)), False)
        rows.append(item.features())
        good.append(float(rng.random() < 1 / (1 + math.exp(-(4 * mean_lp + 3)))))
    return fit_calibration(np.asarray(rows), np.asarray(good), fitted={"sentences": 400})


def test_confidence_is_a_probability_and_rises_with_the_log_prob() -> None:
    calibration = scripted_calibration()
    grid = [evidence(lp) for lp in np.linspace(-6.0, 0.0, 61)]
    for judge in (calibration, Uncalibrated()):
        values = [judge.confidence(item) for item in grid]
        assert all(0.0 <= value <= 1.0 for value in values)
        assert values == sorted(values)
        assert values[-1] - values[0] > 0.5  # it does tell them apart
    assert calibration.confidence(None) == 0.0


def test_the_log_prob_weight_stays_non_negative_even_against_the_data() -> None:
    rows = np.asarray([evidence(lp).features() for lp in np.linspace(-3, 0, 50)])
    good = np.asarray([lp < -1.5 for lp in np.linspace(-3, 0, 50)], dtype=float)  # backwards
    calibration = fit_calibration(rows, good, fitted={})
    assert calibration.weights[FEATURES.index("mean_log_prob")] == 0.0


def test_evidence_adds_up_over_the_pieces_of_a_line() -> None:
    total = add_evidence([Evidence(-2.0, 4, 3, 1, False), Evidence(-1.0, 6, 5, 0, True)])
    assert total == Evidence(-3.0, 10, 8, 1, True)
    assert total.mean_log_prob == pytest.approx(-0.3)
    assert add_evidence([]) is None


def test_calibration_file_round_trip(tmp_path: Path) -> None:
    calibration = scripted_calibration()
    write_calibration(tmp_path, calibration)
    back = read_calibration(tmp_path)
    assert back == calibration
    assert back.calibrated
    item = evidence(-0.7)
    assert back.confidence(item) == calibration.confidence(item)


def test_without_a_file_the_fallback_says_it_is_uncalibrated(tmp_path: Path) -> None:
    judge = read_calibration(tmp_path)
    assert not judge.calibrated
    assert judge.confidence(evidence(-0.5)) == pytest.approx(math.exp(-0.5))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(weights=[1.0, 2.0]), "weights must be 5 finite numbers"),
        (lambda d: d.update(bias="high"), "bias must be a finite number"),
        (lambda d: d["scale"].__setitem__(0, 0.0), "scale must be positive"),
        (lambda d: d["weights"].__setitem__(0, -1.0), "must not be negative"),
        (lambda d: d.update(features=["length"]), "features ['length'] are not"),
        (lambda d: d.update(format_version=9), "format version 9"),
    ],
)
def test_a_broken_calibration_file_is_one_clear_line(tmp_path: Path, change, message) -> None:
    write_calibration(tmp_path, scripted_calibration())
    path = tmp_path / CALIBRATION_JSON
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    with pytest.raises(MtError, match=r"calibration\.json") as error:
        read_calibration(tmp_path)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_a_calibration_file_that_is_not_json_is_refused(tmp_path: Path) -> None:
    (tmp_path / CALIBRATION_JSON).write_text("{not json")
    with pytest.raises(MtError, match="calibration.json: not a readable JSON file"):
        read_calibration(tmp_path)
