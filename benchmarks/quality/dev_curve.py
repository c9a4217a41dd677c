"""The student's dev curve (issue 75): a run's newest checkpoint scored on the dev part, a row a
set appended to RUN/dev-curve.csv with the CPU-hours the run has had, and the curve drawn.

The sets are bench_general's dev part (news-test2008, the dev documents of TICO-19 and XQuAD, the
Tatoeba selection part, the domains' dev samples), the first --limit pairs of each, so that an
hour's point costs minutes, not the hour. FLORES is not among them: no choice is made on a figure
reported. `benchmarks.quality.student` calls this every CPU-hour; by hand:

    python -m benchmarks.quality.dev_curve --run runs/student --tatoeba runs/tatoeba-split \\
        --cpu-hours 3.0
"""

from __future__ import annotations

import csv
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.quality.bench_general import add_sets, sets
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.evaluate.scores import corpus_scores
from mt.storage.atomic import atomic_write_text
from mt.storage.files import LAST_WEIGHTS

CURVE = "dev-curve.csv"
COLUMNS = ("utc", "step", "cpu_hours", "set", "pairs", "bleu", "chrf")


def last_step(run: Path) -> int:
    """The step of the run's newest evaluation (metrics.csv's last row), 0 before the first."""
    metrics = run / "metrics.csv"
    if not metrics.is_file():
        return 0
    rows = list(csv.DictReader(metrics.open(encoding="utf-8")))
    return int(rows[-1]["step"]) if rows else 0


def score_point(
    run: Path, *, chosen: dict[str, list], cpu_hours: float, beam: int, threads: int | None
) -> list[dict[str, object]]:
    """One point of the curve: the run's last checkpoint on each set (a shipped model's only
    weights for the point before training)."""
    info = resolve(run)
    translator = open_translator(
        info,
        TranslateOptions(decode=DecodeConfig(beam_size=beam, batch_size=32)),
        checkpoint="last" if (info.directory / LAST_WEIGHTS).is_file() else "best",
        threads=threads,
    )
    step, stamp = last_step(run), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    rows = []
    for name, pairs in chosen.items():
        ours = [t.text for t in translator.translate([english for english, _ in pairs])]
        scores = corpus_scores(ours, [[spanish] for _, spanish in pairs])
        rows.append(
            {
                "utc": stamp,
                "step": step,
                "cpu_hours": round(cpu_hours, 3),
                "set": name,
                "pairs": len(pairs),
                "bleu": round(scores.bleu, 2),
                "chrf": round(scores.chrf, 2),
            }  # fmt: skip
        )
    return rows


def append_rows(path: Path, rows: list[dict[str, object]]) -> None:
    """The curve with `rows` after the ones it has, written whole (a kill leaves the old file)."""
    old = list(csv.DictReader(path.open(encoding="utf-8"))) if path.is_file() else []
    lines = [",".join(COLUMNS)]
    lines += [",".join(str(row[column]) for column in COLUMNS) for row in [*old, *rows]]
    atomic_write_text(path, "\n".join(lines) + "\n")


def plot_curve(path: Path, picture: Path) -> None:
    """BLEU of each set against the CPU-hours of training."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    figure, axis = plt.subplots(figsize=(8, 4.5))
    for name in dict.fromkeys(row["set"] for row in rows):
        points = [(float(r["cpu_hours"]), float(r["bleu"])) for r in rows if r["set"] == name]
        axis.plot(*zip(*points, strict=True), marker="o", label=name)
    axis.set_xlabel("CPU-hours of training")
    axis.set_ylabel("BLEU (dev part)")
    axis.legend(fontsize="small", ncol=2)
    axis.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(picture, dpi=100)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--run", type=Path, required=True, help="a run folder or a shipped name")
    parser.add_argument("--out", type=Path, help="where the curve is (default: the run's folder)")
    add_sets(parser)
    parser.add_argument("--cpu-hours", type=float, required=True, help="the run's CPU-hours so far")
    harness.add_beam(parser, 5)
    harness.add_limit(parser, 200, help="pairs a set")
    harness.add_threads(parser, None)
    args = parser.parse_args(argv)
    chosen = sets(args.general, args.domains, args.tatoeba, "dev", args.limit)
    chosen = {name: pairs[: args.limit] for name, pairs in chosen.items()}
    rows = score_point(
        args.run, chosen=chosen, cpu_hours=args.cpu_hours, beam=args.beam, threads=args.threads
    )
    out = args.out or args.run
    append_rows(out / CURVE, rows)
    plot_curve(out / CURVE, out / "dev-curve.png")
    for row in rows:
        print(f"{row['set']}: BLEU {row['bleu']}, chrF {row['chrf']} (step {row['step']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
