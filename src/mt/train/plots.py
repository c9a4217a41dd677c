"""Figures: training curves as the thesis plots them, and cross-attention heatmaps."""

from __future__ import annotations

import io
from pathlib import Path

from torch import Tensor

from mt.storage.atomic import atomic_write_bytes


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(figure, path: Path) -> None:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    _pyplot().close(figure)
    atomic_write_bytes(path, buffer.getvalue())


def plot_curves(rows: list[dict[str, float]], path: Path) -> None:
    """Training and selection loss and accuracy against epochs."""
    if not rows:
        return
    plt = _pyplot()

    epochs = [row["epoch"] for row in rows]
    figure, (loss_axis, accuracy_axis) = plt.subplots(1, 2, figsize=(10, 4))
    for axis, key, title in (
        (loss_axis, "loss", "cross-entropy"),
        (accuracy_axis, "accuracy", "accuracy"),
    ):
        axis.plot(epochs, [row[f"train_{key}"] for row in rows], marker="o", label="training")
        axis.plot(epochs, [row[f"selection_{key}"] for row in rows], marker="o", label="selection")
        axis.set_xlabel("epoch")
        axis.set_title(title)
        axis.grid(alpha=0.3)
        axis.legend()
    figure.tight_layout()
    _save(figure, path)


def plot_attention(source: list[str], target: list[str], weights: Tensor, path: Path) -> None:
    """Heatmap of weights (target, source): target pieces down, source pieces across."""
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(1 + 0.45 * len(source), 1 + 0.4 * len(target)))
    axis.imshow(weights.numpy(), cmap="viridis", aspect="auto", vmin=0.0)
    axis.set_xticks(range(len(source)), source, rotation=60, ha="right")
    axis.set_yticks(range(len(target)), target)
    axis.set_xlabel("source word-pieces")
    axis.set_ylabel("target word-pieces")
    figure.tight_layout()
    _save(figure, path)
