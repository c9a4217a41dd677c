"""The dense peak FLOP/s of the device training runs on: the denominator of MFU (PaLM, §4.1).

The peak is at the precision the matrix products run in (bf16/fp16 under autocast, else FP32: mt
leaves torch's "highest" matmul precision, so no TF32). NVIDIA prints tensor-core figures "with
sparsity"; the table holds the dense half. A CPU gets no peak: it depends on vector units, clock
under load and cores torch really gets, none reported reliably, and a guessed peak would make a
guessed MFU look measured; MFU is "n/a" unless `mt train --peak-tflops X` says it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch

PEAK_TFLOPS: tuple[tuple[str, dict[str, float]], ...] = (
    # (name pattern, dense TFLOP/s by what matrix products compute in), the first match wins.
    # NVIDIA H200 NVL datasheet (2024): BF16/FP16 1,671, TF32 835 with sparsity; FP32 60.
    (r"\bH200 NVL\b", {"bf16": 835.5, "fp16": 835.5, "tf32": 417.5, "fp32": 60.0}),
    # NVIDIA H200 (SXM) datasheet (2024): BF16/FP16 1,979, TF32 989 with sparsity; FP32 67.
    (r"\bH200\b", {"bf16": 989.5, "fp16": 989.5, "tf32": 494.5, "fp32": 67.0}),
    # NVIDIA H100 datasheet (2023), NVL column: BF16/FP16 1,671, TF32 835 with sparsity; FP32 60.
    (r"\bH100 NVL\b", {"bf16": 835.5, "fp16": 835.5, "tf32": 417.5, "fp32": 60.0}),
    # The same datasheet, PCIe column: BF16/FP16 1,513, TF32 756 with sparsity; FP32 51.
    (r"\bH100 PCIe\b", {"bf16": 756.5, "fp16": 756.5, "tf32": 378.0, "fp32": 51.0}),
    # The same datasheet, SXM column ("NVIDIA H100 80GB HBM3"): BF16/FP16 1,979, TF32 989 with
    # sparsity; FP32 67.
    (r"\bH100\b", {"bf16": 989.5, "fp16": 989.5, "tf32": 494.5, "fp32": 67.0}),
    # NVIDIA A100 datasheet (2021), SXM and PCIe alike: BF16/FP16 312, TF32 156 dense; FP32 19.5.
    (r"\bA100\b", {"bf16": 312.0, "fp16": 312.0, "tf32": 156.0, "fp32": 19.5}),
    # NVIDIA L4 datasheet (2023): BF16/FP16 242, TF32 120 with sparsity; FP32 30.3.
    (r"\bL4\b", {"bf16": 121.0, "fp16": 121.0, "tf32": 60.0, "fp32": 30.3}),
    # NVIDIA A10 datasheet (2021): BF16/FP16 125, TF32 62.5 dense; FP32 31.2. (Not the A10G.)
    (r"\bA10\b", {"bf16": 125.0, "fp16": 125.0, "tf32": 62.5, "fp32": 31.2}),
    # NVIDIA T4 datasheet (2019): FP16 65 (tensor cores), FP32 8.1; no bf16 or TF32 units.
    (r"\bT4\b", {"fp16": 65.0, "fp32": 8.1}),
)


@dataclass(frozen=True)
class Peak:
    """A device's peak TFLOP/s at training's precision, and where the figure came from (or why
    there is none)."""

    tflops: float | None
    source: str


def matmul_kind(precision: str) -> str:
    """What training's matrix products compute in on a GPU: bf16, fp16, tf32 or fp32."""
    if precision in ("bf16", "fp16"):
        return precision
    return "fp32" if torch.get_float32_matmul_precision() == "highest" else "tf32"


def published_peak(device_name: str, kind: str) -> float | None:
    """The table's dense TFLOP/s for a CUDA device name and kind; None where it has none."""
    for pattern, peaks in PEAK_TFLOPS:
        if re.search(pattern, device_name, flags=re.IGNORECASE):
            return peaks.get(kind)
    return None


def training_peak(device: torch.device, precision: str, given: float | None = None) -> Peak:
    """The peak MFU divides by: `given` (--peak-tflops) where given, else the table's figure
    for this GPU; never an error, since training must not fail over a figure it reports."""
    if given is not None:
        return Peak(given, "--peak-tflops")
    if device.type != "cuda":
        return Peak(None, f"no peak known for a {device.type} (give --peak-tflops)")
    try:
        name = torch.cuda.get_device_name(device)
        kind = matmul_kind(precision)
    except Exception as error:  # noqa: BLE001 - a figure to report, not a reason to stop
        return Peak(None, f"the GPU's name could not be read ({error})")
    tflops = published_peak(name, kind)
    if tflops is None:
        return Peak(None, f"no {kind} peak known for {name} (give --peak-tflops)")
    return Peak(tflops, f"{name}, {kind} dense")
