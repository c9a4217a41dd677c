"""`python -m mt.cli.ship`: a trained run made into a shipped model, and its card, for the people
who make mt's releases (`make release`); users get the model with the package.

    python -m mt.cli.ship model runs/model --name NAME
    python -m mt.cli.ship model runs/gpu --name gpu --into "$OUT"     # a device call's result
    python -m mt.cli.ship card NAME --run runs/model --data runs/model-data \
        --dev bench/release/dev.json --test bench/release/test.json \
        --speed bench/release/shipped.json --notes docs/release/NAME.json \
        [--curve runs/student/dev-curve.csv]
    python -m mt.cli.ship card NAME --run runs/vN --weights-of OLDER-NAME ...
    python -m mt.cli.ship readme NAME    # README.md again from card.json
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated, Any

import typer

from mt.cli.common import Opt, run_or_exit, say
from mt.errors import MtError
from mt.storage.files import BEST_WEIGHTS, CPU_LEDGER, read_json

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False)


@app.command("model")
def ship_model(
    run: Annotated[Path, typer.Argument(help="The run to ship (its best weights).")],
    name: Annotated[str, Opt(help="The shipped model's name, with its version.")],
    into: Annotated[
        Path | None, Opt(help="Write INTO/NAME instead (a device call's $OUT), in bfloat16.")
    ] = None,
) -> None:
    """Write RUN as the shipped model NAME in src/mt/shipped/ (mt.model.ship)."""

    def action() -> None:
        from mt.model.ship import ship_run

        folder = ship_run(run, name, root=into)
        size = sum(p.stat().st_size for p in folder.iterdir())
        say(f"shipped {run} as {name}: {folder} ({size / 1e6:.1f} MB)")

    run_or_exit(action)


@app.command("card")
def ship_card(
    name: Annotated[str, typer.Argument(help="The shipped model.")],
    run: Annotated[Path, Opt(help="The run it was shipped from (metrics, time).")],
    dev: Annotated[Path, Opt(help="bench_general.py's JSON on the dev part.")],
    test: Annotated[Path, Opt(help="bench_general.py's JSON on the test part.")],
    speed: Annotated[Path, Opt(help="bench_shipped.py's JSON: cold start-up of translate, serve.")],
    notes: Annotated[Path, Opt(help="JSON: summary, description, weaknesses, data sources.")],
    data: Annotated[Path | None, Opt(help="Its training data, prepared (prepare.json).")] = None,
    weights_of: Annotated[
        str | None, Opt(help="Instead of --data: the shipped model whose weights it keeps.")
    ] = None,
    curve: Annotated[
        Path | None, Opt(help="The run's dev-curve.csv (dev_curve.py), its plot beside it.")
    ] = None,
) -> None:
    """Write card.json and README.md of the shipped model NAME from the benchmark files."""

    def action() -> None:
        from mt.catalog.cards import CURVE_PLOT, SCORES, SPEED, render_card
        from mt.catalog.modelinfo import resolve
        from mt.model.ship import seal

        if (data is None) == (weights_of is None):
            raise MtError("give the training data as --data DIR or --weights-of NAME (one of them)")
        info = resolve(name)
        folder = info.directory
        files = {SCORES["dev"]: dev, SCORES["test"]: test, SPEED: speed}
        notes_read = read_json(notes)
        # every figure is read before a file is written: a card that can't be made changes nothing
        if weights_of is None:
            card = build_card(info, run=run, data=data, notes=notes_read, files=files)
        else:
            card = card_keeping(info, kept=_kept_card(weights_of), notes=notes_read, files=files)
        if curve is not None:
            plot, note = curve.with_suffix(".png"), notes_read.get("curve")
            if not plot.is_file() or not note:
                raise MtError(f'{curve}: the card needs {CURVE_PLOT} beside it, {notes} a "curve"')
            card["curve"], files[CURVE_PLOT] = {"note": note, **curve_points(curve)}, plot
        for target, path in files.items():
            shutil.copyfile(path, folder / target)
        seal(folder, card, render_card(card))
        say(f"card of {name}: {folder / 'README.md'}")

    run_or_exit(action)


@app.command("readme")
def ship_readme(name: Annotated[str, typer.Argument(help="The shipped model.")]) -> None:
    """Write README.md of the shipped model NAME again from its card.json, as mt.catalog.cards
    renders it now (its figures unchanged), and its checksums."""

    def action() -> None:
        from mt.catalog.cards import render_card
        from mt.catalog.modelinfo import CARD_MD, resolve
        from mt.storage.atomic import atomic_write_text
        from mt.storage.checksums import write_checksums

        info = resolve(name)
        atomic_write_text(info.directory / CARD_MD, render_card(info.card))
        write_checksums(info.directory)
        say(f"card of {name}: {info.directory / CARD_MD}")

    run_or_exit(action)


def build_card(
    info, *, run: Path, data: Path, notes: dict[str, Any], files: dict[str, Path]
) -> dict[str, Any]:
    """card.json: the figures from what benchmarks and training wrote (`files`: the folder's name
    of each benchmark file -> where it is), the words and any compute figure from `notes`."""
    from mt.storage.files import read_metrics

    metrics = read_metrics(run)
    last = metrics[-1] if metrics else {}
    scored = [row for row in metrics if "selection_loss" in row]
    best = min(scored, key=lambda row: row["selection_loss"]) if scored else {}
    compute = {
        "machine": notes["machine"],
        "training steps": f"{int(last.get('step', 0)):,}",
        "epochs": f"{last.get('epoch', 0):.2f}",
        "training minutes": f"{last.get('elapsed', 0) / 60:.1f}",
        **_compute_figures(info, run, last, notes.get("gpu")),
        "precision": info.train.precision,
        "best selection loss": f"{best.get('selection_loss', float('nan')):.3f} at step "
        f"{int(best.get('step', 0)):,}",
        "lineage": notes["lineage"],
        **notes.get("compute", {}),  # what the run's files cannot say (weights averaged from two)
    }
    rows = _data(read_json(data / "prepare.json"), notes["sources"])
    return _card(info, data=rows, compute=compute, notes=notes, files=files)


def card_keeping(
    info, *, kept: dict[str, Any], notes: dict[str, Any], files: dict[str, Path]
) -> dict[str, Any]:
    """card.json of a version that keeps the weights (and so the data and compute) of the card
    `kept`, as its rules or tables changed; its machine, lineage, scores and words are its own."""
    compute = {**kept["compute"], "machine": notes["machine"], "lineage": notes["lineage"]}
    return _card(info, data=kept["data"], compute=compute, notes=notes, files=files)


def _card(
    info,
    *,
    data: list[dict[str, Any]],
    compute: dict[str, str],
    notes: dict[str, Any],
    files: dict[str, Path],
) -> dict[str, Any]:
    import torch

    from mt.catalog.cards import PUBLISHED_PEERS, SCORES, SPEED, scores_from, speed_from
    from mt.model.transformer import count_parameters, make_model

    folder = info.directory
    with torch.device("meta"):  # the shapes alone: no weights are read to count them
        parameters = count_parameters(make_model(info.config))
    weights = folder / BEST_WEIGHTS
    shape = info.config
    return {
        "name": info.name,
        "version": int(str(info.name).rsplit("-", 1)[-1]),
        "summary": notes["summary"],
        "description": notes["description"],
        "usage": notes["usage"],
        "model": {
            "direction": info.direction.label,
            "architecture": f"Transformer, d {shape.d_model}, ff {shape.ff}, {shape.heads} heads, "
            f"{shape.encoder_depth}+{shape.decoder_depth} layers",
            "parameters": f"{parameters:,}",
            "vocabulary": f"WordPiece, {shape.src_vocab:,} English / {shape.tgt_vocab:,} Spanish",
            "weights": f"bfloat16 safetensors, {weights.stat().st_size / 1e6:.1f} MB",
            "files": f"{sum(p.stat().st_size for p in folder.iterdir()) / 1e6:.1f} MB in all",
        },
        "data": data,
        "licence_notes": notes["licence_notes"],
        "compute": compute,
        "recipe": notes["recipe"],
        "scores": {part: scores_from(read_json(files[SCORES[part]])) for part in SCORES},
        "speed": speed_from(read_json(files[SCORES["test"]]), read_json(files[SPEED])),
        "peers": PUBLISHED_PEERS,
        "weaknesses": notes["weaknesses"],
        "reproduce": notes["reproduce"],
    }


def _compute_figures(info, run: Path, last: dict[str, float], gpu: str | None) -> dict[str, str]:
    """This link's compute and the chain's: a GPU link (the notes name its `gpu`) counts that
    card's minutes, a CPU link its ledger's CPU-hours, else 2 cores' hours; both add the chain's."""
    minutes = last.get("elapsed", 0) / 60
    hours = 0.0 if gpu else _ledger_hours(run) or 2 * minutes / 60
    gpu_minutes = minutes if gpu else 0.0
    before_hours, before_minutes = chain_before(info)
    return {
        "CPU-hours (2 cores)": f"{hours:.2f}",
        "CPU-hours, with the versions it continues": f"{hours + before_hours:.2f}",
        "GPU-minutes": f"{gpu_minutes:.1f} ({gpu})" if gpu else "0",
        "GPU-minutes, with the versions it continues": f"{gpu_minutes + before_minutes:.1f}",
    }


def curve_points(path: Path) -> dict[str, Any]:
    """dev_curve.py's CSV (a row a set and point) as one row a point, a column a set."""
    import pandas as pd

    frame = pd.read_csv(path)
    if missing := {"cpu_hours", "step", "set", "bleu"} - set(frame.columns):
        raise MtError(
            f"{path}: line 1: no column {', '.join(sorted(missing))} (dev_curve.py's CSV)"
        )
    table = frame.pivot_table("bleu", ["cpu_hours", "step"], "set", sort=False)
    rows = zip(table.index, table.values.tolist(), strict=True)
    return {"sets": list(table.columns), "points": [[h, int(s), *row] for (h, s), row in rows]}


def _ledger_hours(run: Path) -> float:
    """What a run's processes spent, where it kept a CPU ledger (benchmarks/quality/student.py)."""
    ledger = run / CPU_LEDGER
    return read_json(ledger)["seconds"] / 3600 if ledger.is_file() else 0.0


def chain_before(info) -> tuple[float, float]:
    """(CPU-hours, GPU-minutes) of what this version continued from (its train.json lineage,
    `--init-from`): a shipped model's card counts its chain; a run its ledger, then its own base."""
    from mt.catalog.modelinfo import resolve

    base = info.lineage.get("init_from", {}).get("run")
    if not base:
        return 0.0, 0.0
    based = resolve(base)
    if not based.card:  # a run (a branch of a longer one): its ledger and what it continued
        hours, minutes = chain_before(based)
        return hours + _ledger_hours(based.directory), minutes
    compute, chained = based.card["compute"], ", with the versions it continues"
    return float(compute["CPU-hours" + chained]), float(compute.get("GPU-minutes" + chained, 0))


def _data(prepared: dict[str, Any], sources: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    """One row a corpus of prepare.json, named and licensed by `sources` (matched by file name)."""
    rows = []
    for corpus in prepared["corpora"]:
        name = Path(corpus["name"]).name
        known = next((v for k, v in sources.items() if name.startswith(k)), None)
        if known is None:
            raise MtError(f"no source and licence given for {corpus['name']}")
        rows.append({"name": known["name"], "pairs": corpus["pairs"], **known})
    return rows


def _kept_card(name: str) -> dict[str, Any]:
    """The card of the weights a version keeps: it must list their training data and compute."""
    from mt.catalog.modelinfo import resolve

    card = resolve(name).card
    if not card.get("data") or not card.get("compute"):
        raise MtError(f"{name}: its card lists no training data or compute")
    return card


if __name__ == "__main__":
    app()
