"""mt.cli.ship: a card counts the compute of its link and of the versions it continues, and
names the data its weights were trained on."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

import mt.catalog.modelinfo
import mt.cli.ship
from mt.cli.ship import _compute_figures, _kept_card, build_card, card_keeping, curve_points
from mt.cli.ship import app as ship_app
from mt.errors import MtError


def _base_card(monkeypatch: pytest.MonkeyPatch, compute: dict[str, str]) -> None:
    cards = {"en-es-general-7": SimpleNamespace(card={"compute": compute})}
    monkeypatch.setattr(mt.catalog.modelinfo, "resolve", lambda name: cards[name])


def _continuing(name: str | None) -> SimpleNamespace:
    return SimpleNamespace(lineage={"init_from": {"run": name}} if name else {})


def test_a_gpu_link_counts_its_minutes_and_keeps_the_cpu_hours_before_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _base_card(monkeypatch, {"CPU-hours, with the versions it continues": "6.34"})
    figures = _compute_figures(
        _continuing("en-es-general-7"), tmp_path, {"elapsed": 450.0}, "NVIDIA H200"
    )
    assert figures == {
        "CPU-hours (2 cores)": "0.00",
        "CPU-hours, with the versions it continues": "6.34",
        "GPU-minutes": "7.5 (NVIDIA H200)",
        "GPU-minutes, with the versions it continues": "7.5",
    }


def test_a_cpu_link_adds_two_cores_hours_to_the_chain(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _base_card(
        monkeypatch,
        {
            "CPU-hours, with the versions it continues": "6.34",
            "GPU-minutes, with the versions it continues": "7.5",
        },
    )
    figures = _compute_figures(_continuing("en-es-general-7"), tmp_path, {"elapsed": 5400.0}, None)
    assert figures["CPU-hours (2 cores)"] == "3.00"
    assert figures["CPU-hours, with the versions it continues"] == "9.34"
    assert figures["GPU-minutes"] == "0"
    assert figures["GPU-minutes, with the versions it continues"] == "7.5"
    assert (
        _compute_figures(_continuing(None), tmp_path, {"elapsed": 3600.0}, None)[
            "CPU-hours, with the versions it continues"
        ]
        == "2.00"
    )


def test_a_branch_of_a_long_run_counts_both_ledgers_and_the_shipped_chain(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The student: grown from a shipped model, trained for hours with a CPU ledger, then a branch
    annealed from it with its own; the branch's card counts all three, not 2 cores' wall time."""
    trunk, branch = tmp_path / "student", tmp_path / "branch"
    for run, seconds in ((trunk, 43_200.0), (branch, 4_824.0)):
        run.mkdir()
        (run / "cpu.json").write_text(f'{{"seconds": {seconds}, "scored": 1}}\n')
    shipped = SimpleNamespace(
        card={
            "compute": {
                "CPU-hours, with the versions it continues": "6.34",
                "GPU-minutes, with the versions it continues": "7.5",
            }
        }
    )
    runs = {
        "en-es-general-12": shipped,
        str(trunk): SimpleNamespace(
            card={}, directory=trunk, **vars(_continuing("en-es-general-12"))
        ),
    }
    monkeypatch.setattr(mt.catalog.modelinfo, "resolve", lambda name: runs[str(name)])
    figures = _compute_figures(_continuing(str(trunk)), branch, {"elapsed": 2537.0}, None)
    assert figures["CPU-hours (2 cores)"] == "1.34"  # the ledger, not 2 x 42 minutes
    assert figures["CPU-hours, with the versions it continues"] == f"{1.34 + 12.0 + 6.34:.2f}"
    assert figures["GPU-minutes, with the versions it continues"] == "7.5"


def test_the_notes_give_the_compute_figures_a_run_cannot(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Weights averaged from two branches: one branch's metrics.csv does not say their steps."""
    run = tmp_path / "soup"
    run.mkdir()
    (run / "metrics.csv").write_text("step,epoch,selection_loss,elapsed\n1500,0.29,1.749,2418\n")
    (tmp_path / "prepare.json").write_text('{"corpora": [{"name": "spa-eng.tsv", "pairs": 9}]}')
    monkeypatch.setattr(mt.cli.ship, "_card", lambda info, **parts: parts)
    info = SimpleNamespace(lineage={}, train=SimpleNamespace(precision="bf16"))
    notes = {
        "machine": "2 cores",
        "lineage": "two branches averaged",
        "sources": {"spa-eng": {"name": "Tatoeba"}},
        "compute": {"training steps": "2 x 1,500"},
    }
    compute = build_card(info, run=run, data=tmp_path, notes=notes, files={})["compute"]
    assert compute["training steps"] == "2 x 1,500"
    assert compute["epochs"] == "0.29" and compute["best selection loss"] == "1.749 at step 1,500"


def test_a_version_that_keeps_its_weights_repeats_their_card_s_data_and_compute(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = [{"name": "Tatoeba", "pairs": 119507, "source": "tatoeba.org", "licence": "CC BY"}]
    compute = {"machine": "an H200", "training steps": "13,343", "lineage": "version 3's"}
    cards = {
        "en-es-general-6": SimpleNamespace(card={"data": rows, "compute": compute}),
        "bare": SimpleNamespace(card={"data": rows}),
    }
    monkeypatch.setattr(mt.catalog.modelinfo, "resolve", lambda name: cards[name])
    kept = _kept_card("en-es-general-6")
    monkeypatch.setattr(mt.cli.ship, "_card", lambda info, **parts: parts)
    notes = {"machine": "the same H200", "lineage": "version 6's weights"}
    card = card_keeping(None, kept=kept, notes=notes, files={})
    assert card["data"] == rows
    assert card["compute"] == {**compute, **notes}
    with pytest.raises(MtError, match="bare: its card lists no training data or compute"):
        _kept_card("bare")


def test_a_card_needs_its_training_data_one_way_and_not_two(tmp_path: Path) -> None:
    options = ["--run", tmp_path, "--dev", tmp_path, "--test", tmp_path, "--speed", tmp_path]
    options += ["--notes", tmp_path]
    for data in ([], ["--data", tmp_path, "--weights-of", "en-es-general-6"]):
        result = CliRunner().invoke(
            ship_app, ["card", "en-es-general-6", *map(str, options + data)]
        )
        assert result.exit_code == 2  # the usage error of run_or_exit
        assert "give the training data as --data DIR or --weights-of NAME" in result.output


def test_a_run_ships_into_another_folder_as_a_device_call_brings_it_back(
    trained_run: Path, tmp_path: Path
) -> None:
    result = CliRunner().invoke(
        ship_app, ["model", str(trained_run), "--name", "gpu", "--into", str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.output
    folder = tmp_path / "out" / "gpu"
    assert f"shipped {trained_run} as gpu: {folder}" in " ".join(result.output.split())
    info = mt.catalog.modelinfo.resolve(folder)  # a model as the run was, its weights in bfloat16
    assert info.config == mt.catalog.modelinfo.resolve(trained_run).config
    run_weights = (trained_run / "best.safetensors").stat().st_size
    assert (folder / "best.safetensors").stat().st_size < 0.6 * run_weights
    assert not (mt.catalog.modelinfo.shipped_root() / "gpu").exists()


def test_readme_renders_the_card_again_and_lists_it_in_the_checksums(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import json

    from mt.catalog.cards import render_card
    from mt.catalog.modelinfo import CARD_JSON, CARD_MD, DEFAULT_MODEL, shipped_root
    from mt.storage.checksums import CHECKSUMS

    card = json.loads((shipped_root() / DEFAULT_MODEL / CARD_JSON).read_text(encoding="utf-8"))
    (tmp_path / CARD_JSON).write_text(json.dumps(card), encoding="utf-8")
    (tmp_path / CARD_MD).write_text("an old card\n", encoding="utf-8")
    model = SimpleNamespace(directory=tmp_path, card=card)
    monkeypatch.setattr(mt.catalog.modelinfo, "resolve", lambda name: model)
    result = CliRunner().invoke(ship_app, ["readme", DEFAULT_MODEL])
    assert result.exit_code == 0, result.output
    assert (tmp_path / CARD_MD).read_text(encoding="utf-8") == render_card(card)
    listed = (tmp_path / CHECKSUMS).read_text(encoding="utf-8")
    assert f"  {CARD_MD}\n" in listed and f"  {CARD_JSON}\n" in listed


def test_the_dev_curve_is_one_row_a_point_and_a_column_a_set_in_the_order_scored(
    tmp_path: Path,
) -> None:
    rows = ["t,0,0.0,tico,140,30.95,57.7,last", "t,0,0.0,news,200,9.35,39.4,last"]
    rows += ["t,500,1.03,tico,140,28.3,55.0,average", "t,500,1.03,news,200,8.83,38.1,average"]
    curve = tmp_path / "dev-curve.csv"
    curve.write_text("utc,step,cpu_hours,set,pairs,bleu,chrf,weights\n" + "\n".join(rows) + "\n")
    assert curve_points(curve) == {
        "sets": ["tico", "news"],
        "points": [[0.0, 0, 30.95, 9.35], [1.03, 500, 28.3, 8.83]],
    }


def test_a_curve_without_its_columns_is_one_line_naming_the_file(tmp_path: Path) -> None:
    curve = tmp_path / "dev-curve.csv"
    curve.write_text("utc,step,bleu\nt,0,9.35\n")
    with pytest.raises(MtError, match=r"dev-curve.csv: line 1: no column cpu_hours, set"):
        curve_points(curve)


def test_a_curve_without_its_plot_or_words_leaves_the_model_folder_as_it_was(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    monkeypatch.setattr(
        mt.catalog.modelinfo, "resolve", lambda name: SimpleNamespace(directory=folder)
    )
    monkeypatch.setattr(mt.cli.ship, "build_card", lambda *args, **kwargs: {})
    (tmp_path / "notes.json").write_text("{}")
    (tmp_path / "dev-curve.csv").write_text("utc,step,cpu_hours,set,pairs,bleu\n")
    files = [f"--{part}={tmp_path / 'notes.json'}" for part in ("dev", "test", "speed", "notes")]
    result = CliRunner().invoke(
        ship_app,
        ["card", "m", f"--run={tmp_path}", f"--data={tmp_path}", *files,
         f"--curve={tmp_path / 'dev-curve.csv'}"],
    )  # fmt: skip
    assert result.exit_code == 2  # bad input (mt.errors)
    assert "needs dev-curve.png beside it" in result.output
    assert list(folder.iterdir()) == []
