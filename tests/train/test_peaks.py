"""The peak MFU divides by (mt.train.peaks): the table, the precision, and never an error."""

from __future__ import annotations

import pytest
import torch

from mt.train import peaks
from mt.train.peaks import matmul_kind, published_peak, training_peak


@pytest.mark.parametrize(
    "name, kind, tflops",
    [
        ("NVIDIA H200", "bf16", 989.5),
        ("NVIDIA H200 NVL", "bf16", 835.5),
        ("NVIDIA H100 80GB HBM3", "bf16", 989.5),  # the SXM card's name
        ("NVIDIA H100 80GB HBM3", "tf32", 494.5),
        ("NVIDIA H100 PCIe", "bf16", 756.5),
        ("NVIDIA A100-SXM4-80GB", "bf16", 312.0),
        ("NVIDIA A100 80GB PCIe", "fp32", 19.5),
        ("NVIDIA A10", "bf16", 125.0),
        ("NVIDIA A10G", "bf16", None),  # another card than the A10
        ("Tesla T4", "bf16", None),  # no bf16 units
        ("NVIDIA GeForce RTX 4090", "bf16", None),
    ],
)
def test_published_dense_peaks_by_device_name(name: str, kind: str, tflops: float | None) -> None:
    assert published_peak(name, kind) == tflops


def test_fp32_counts_as_tf32_only_where_torch_lets_matrix_products_use_it() -> None:
    before = torch.get_float32_matmul_precision()
    try:
        torch.set_float32_matmul_precision("highest")
        assert (matmul_kind("fp32"), matmul_kind("bf16")) == ("fp32", "bf16")
        torch.set_float32_matmul_precision("high")
        assert matmul_kind("fp32") == "tf32"
    finally:
        torch.set_float32_matmul_precision(before)


def test_a_cpu_has_no_peak_unless_one_is_given() -> None:
    cpu = torch.device("cpu")
    unknown = training_peak(cpu, "fp32")
    assert unknown.tflops is None and "--peak-tflops" in unknown.source
    assert training_peak(cpu, "bf16", given=1.5) == peaks.Peak(1.5, "--peak-tflops")


def test_a_gpu_found_in_the_table_or_not_and_one_that_fails_to_answer(monkeypatch) -> None:
    cuda = torch.device("cuda", 0)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device: "NVIDIA H200")
    assert training_peak(cuda, "bf16") == peaks.Peak(989.5, "NVIDIA H200, bf16 dense")
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device: "Some New GPU")
    unknown = training_peak(cuda, "bf16")
    assert unknown.tflops is None and "Some New GPU" in unknown.source

    def broken(device: torch.device) -> str:
        raise RuntimeError("no driver")

    monkeypatch.setattr(torch.cuda, "get_device_name", broken)
    assert training_peak(cuda, "bf16").tflops is None  # reported, never raised
