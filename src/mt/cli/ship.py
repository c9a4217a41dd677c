"""`python -m mt.cli.ship`: a trained run made into a shipped model, and its card, for the people
who make mt's releases (`make release`); users get the model with the package.

    python -m mt.cli.ship model runs/model --name en-es-general-1
    python -m mt.cli.ship card en-es-general-1 --run runs/model --data runs/model-data \
        --dev bench/release/dev.json --test bench/release/test.json --notes docs/release/NAME.json
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from mt.cli.common import Opt, run_or_exit, say
from mt.errors import MtError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False)

PROBE = "The committee approved the report on Tuesday."
"""The sentence whose cold translation time the card gives (`mt translate "..."`)."""


@app.command("model")
def ship_model(
    run: Annotated[Path, typer.Argument(help="The run to ship (its best weights).")],
    name: Annotated[str, Opt(help="The shipped model's name, with its version.")],
) -> None:
    """Write RUN as the shipped model NAME in src/mt/shipped/ (mt.model.ship)."""

    def action() -> None:
        from mt.model.ship import ship_run

        folder = ship_run(run, name)
        size = sum(p.stat().st_size for p in folder.iterdir())
        say(f"shipped {run} as {name}: {folder} ({size / 1e6:.1f} MB)")

    run_or_exit(action)


@app.command("card")
def ship_card(
    name: Annotated[str, typer.Argument(help="The shipped model.")],
    run: Annotated[Path, Opt(help="The run it was shipped from (metrics, time).")],
    data: Annotated[Path, Opt(help="The prepared data it was trained on.")],
    dev: Annotated[Path, Opt(help="bench_general.py's JSON on the dev part.")],
    test: Annotated[Path, Opt(help="bench_general.py's JSON on the test part.")],
    notes: Annotated[Path, Opt(help="JSON: summary, description, weaknesses, data sources.")],
) -> None:
    """Write card.json and README.md of the shipped model NAME from the benchmark files."""

    def action() -> None:
        from mt.cards import SCORES, render_card
        from mt.model.ship import seal
        from mt.models import resolve

        info = resolve(name)
        folder = info.directory
        for part, path in (("dev", dev), ("test", test)):
            shutil.copyfile(path, folder / SCORES[part])
        card = build_card(info, run=run, data=data, notes=_read(notes))
        seal(folder, card, render_card(card))
        say(f"card of {name}: {folder / 'README.md'}")

    run_or_exit(action)


def build_card(info, *, run: Path, data: Path, notes: dict[str, Any]) -> dict[str, Any]:
    """card.json: the figures from the files the benchmarks and training wrote, the words from
    `notes` (written by the person who ships it)."""
    from mt.cards import SCORES, scores_from
    from mt.model.rundir import load_run, read_metrics
    from mt.model.transformer import count_parameters

    folder = info.directory
    loaded = load_run(info)
    metrics = read_metrics(run)
    last = metrics[-1] if metrics else {}
    scored = [row for row in metrics if "selection_loss" in row]
    best = min(scored, key=lambda row: row["selection_loss"]) if scored else {}
    prepared = _read(data / "prepare.json")
    weights = folder / "best.safetensors"
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
            f"{shape.layers}+{shape.layers} layers",
            "parameters": f"{count_parameters(loaded.model):,}",
            "vocabulary": f"WordPiece, {shape.src_vocab:,} English / {shape.tgt_vocab:,} Spanish",
            "weights": f"bfloat16 safetensors, {weights.stat().st_size / 1e6:.1f} MB",
            "files": f"{sum(p.stat().st_size for p in folder.iterdir()) / 1e6:.1f} MB in all",
        },
        "data": _data(prepared, notes["sources"]),
        "licence_notes": notes["licence_notes"],
        "compute": {
            "machine": notes["machine"],
            "training steps": f"{int(last.get('step', 0)):,}",
            "epochs": f"{last.get('epoch', 0):.2f}",
            "training minutes": f"{last.get('elapsed', 0) / 60:.1f}",
            "CPU-hours (2 cores)": f"{2 * last.get('elapsed', 0) / 3600:.2f}",
            "GPU-minutes": "0",
            "precision": info.train.precision,
            "best selection loss": f"{best.get('selection_loss', float('nan')):.3f} at step "
            f"{int(best.get('step', 0)):,}",
            "lineage": notes["lineage"],
        },
        "recipe": notes["recipe"],
        "scores": {part: scores_from(_read(folder / SCORES[part])) for part in SCORES},
        "speed": _speed(info.name, _read(folder / SCORES["test"])),
        "weaknesses": notes["weaknesses"],
        "reproduce": notes["reproduce"],
    }


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


def _speed(name: str | None, test: dict[str, Any]) -> dict[str, str]:
    """Decoding speed on the benchmark's sets, and the cold time of one sentence, measured now."""
    sets = test["figures"]["sets"]
    speed = {
        f"beam {test['figures']['beam']}, {n}": f"{sets[n]['mt_sentences_per_second']:.1f} "
        "sentences/s"
        for n in ("flores", "tatoeba")
        if sets.get(n, {}).get("mt_sentences_per_second")
    }
    mt = Path(sys.executable).with_name("mt")
    command = [str(mt), "translate", "--model", str(name), PROBE]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=os.environ)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise MtError(f"{' '.join(command)} failed: {done.stderr.strip()}")
    speed[f'`mt translate "{PROBE}"`, cold'] = f"{seconds:.2f} s → {done.stdout.strip()}"
    return speed


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise MtError(f"{path}: cannot read ({error})") from None


if __name__ == "__main__":
    app()
