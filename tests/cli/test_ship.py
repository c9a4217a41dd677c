"""mt.cli.ship: a card counts the compute of its link and of the versions it continues."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import mt.models
from mt.cli.ship import _compute_figures


def _base_card(monkeypatch: pytest.MonkeyPatch, compute: dict[str, str]) -> None:
    cards = {"en-es-general-7": SimpleNamespace(card={"compute": compute})}
    monkeypatch.setattr(mt.models, "resolve", lambda name: cards[name])


def _continuing(name: str | None) -> SimpleNamespace:
    return SimpleNamespace(lineage={"init_from": {"run": name}} if name else {})


def test_a_gpu_link_counts_its_minutes_and_keeps_the_cpu_hours_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _base_card(monkeypatch, {"CPU-hours, with the versions it continues": "6.34"})
    figures = _compute_figures(_continuing("en-es-general-7"), {"elapsed": 450.0}, "NVIDIA H200")
    assert figures == {
        "CPU-hours (2 cores)": "0.00",
        "CPU-hours, with the versions it continues": "6.34",
        "GPU-minutes": "7.5 (NVIDIA H200)",
        "GPU-minutes, with the versions it continues": "7.5",
    }


def test_a_cpu_link_adds_two_cores_hours_to_the_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    _base_card(
        monkeypatch,
        {
            "CPU-hours, with the versions it continues": "6.34",
            "GPU-minutes, with the versions it continues": "7.5",
        },
    )
    figures = _compute_figures(_continuing("en-es-general-7"), {"elapsed": 5400.0}, None)
    assert figures["CPU-hours (2 cores)"] == "3.00"
    assert figures["CPU-hours, with the versions it continues"] == "9.34"
    assert figures["GPU-minutes"] == "0"
    assert figures["GPU-minutes, with the versions it continues"] == "7.5"
    assert (
        _compute_figures(_continuing(None), {"elapsed": 3600.0}, None)[
            "CPU-hours, with the versions it continues"
        ]
        == "2.00"
    )
