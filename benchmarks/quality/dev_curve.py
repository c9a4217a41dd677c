"""The student's dev curve (issue 75): a run's newest weights scored on the dev part, a row a
set appended to RUN/dev-curve.csv with the CPU-hours the run has had, and the curve drawn.

The newest weights are the average of the run's kept snapshots (RUN/snapshots, the last
--average-last evaluations) once there are two, else its last checkpoint: at the student's rate one
checkpoint moved by as much as the curve gains in an hour (docs/history/2026-11-28-issue-75.md),
and an average is also what the run ends with. The `weights` column says which was scored.

The sets are bench_general's dev part (news-test2008, the dev documents of TICO-19 and XQuAD, the
Tatoeba selection part, the domains' dev samples), the first --limit pairs of each, so that an
hour's point costs minutes, not the hour. FLORES is not among them: no choice is made on a figure
reported. `benchmarks.quality.student` calls this every CPU-hour; by hand:

    python -m benchmarks.quality.dev_curve --run runs/student --tatoeba runs/tatoeba-split \\
        --cpu-hours 3.0
"""

from __future__ import annotations

import csv
import shutil
import tempfile
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.quality.bench_general import add_sets, sets
from mt.catalog.modelinfo import ModelInfo, resolve
from mt.config import DecodeConfig
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.errors import MtError
from mt.evaluate.scores import corpus_scores
from mt.model.checkpoint import load_tensors, save_tensors
from mt.model.rundir import step_file, step_files
from mt.storage.atomic import atomic_write_text
from mt.storage.files import (
    BEST_WEIGHTS,
    LAST_WEIGHTS,
    SNAPSHOTS,
    WEIGHTS_FORMAT,
    read_metrics,
)
from mt.train.selection import average_weights

CURVE = "dev-curve.csv"
COLUMNS = ("utc", "step", "cpu_hours", "set", "pairs", "bleu", "chrf", "weights")
LAST = "last"  # the weights column of a point scored on the last checkpoint (every early point)


def last_step(run: Path) -> int:
    """The step of the run's newest evaluation (metrics.csv's last row), 0 before the first."""
    rows = read_metrics(run)
    return int(rows[-1]["step"]) if rows else 0


def averaged_copy(run: Path, into: Path) -> tuple[Path, str] | None:
    """A model folder in `into`: the run's own files, its best weights the average of its kept
    snapshots, and what the weights column says of it; None with fewer than two snapshots."""
    steps = step_files(run / SNAPSHOTS, ".safetensors")
    if len(steps) < 2:
        return None
    copy = into / run.name
    copy.mkdir()
    for path in run.iterdir():
        if path.is_file() and path.suffix in (".json", ".tsv"):
            shutil.copy2(path, copy / path.name)
    snapshots = [load_tensors(step_file(run / SNAPSHOTS, s, ".safetensors"))[0] for s in steps]
    metadata = {"format_version": str(WEIGHTS_FORMAT)}
    save_tensors(copy / BEST_WEIGHTS, average_weights(snapshots), metadata=metadata)
    return copy, f"average of steps {'/'.join(map(str, steps))}"


def newest_weights(run: Path, scratch: Path, *, average: bool) -> tuple[ModelInfo, str, str]:
    """The model, checkpoint and weights column of the run's newest weights (with `average`
    false, its last checkpoint); a snapshot the running run drops while it is read is a second
    try."""
    averaged = None
    if average:
        try:
            averaged = averaged_copy(run, Path(tempfile.mkdtemp(dir=scratch)))
        except MtError:  # a snapshot dropped between listing and reading: list them again
            averaged = averaged_copy(run, Path(tempfile.mkdtemp(dir=scratch)))
    if averaged is not None:
        return resolve(averaged[0]), "best", averaged[1]
    info = resolve(run)
    checkpoint = LAST if (info.directory / LAST_WEIGHTS).is_file() else "best"
    return info, checkpoint, checkpoint


def score_point(
    run: Path,
    *,
    chosen: dict[str, list],
    cpu_hours: float,
    beam: int,
    threads: int | None,
    average: bool = True,
) -> list[dict[str, object]]:
    """One point of the curve: the run's newest weights on each set (a shipped model's only
    weights for the point before training)."""
    step, stamp = last_step(run), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    rows = []
    with tempfile.TemporaryDirectory(prefix="dev-curve-") as scratch:
        info, checkpoint, weights = newest_weights(run, Path(scratch), average=average)
        options = TranslateOptions(decode=DecodeConfig(beam_size=beam, batch_size=32))
        translator = open_translator(info, options, checkpoint=checkpoint, threads=threads)
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
                    "weights": weights,
                }  # fmt: skip
            )
    return rows


def append_rows(path: Path, rows: list[dict[str, object]]) -> None:
    """The curve with `rows` after the ones it has, written whole (a kill leaves the old file)."""
    old = list(csv.DictReader(path.open(encoding="utf-8"))) if path.is_file() else []
    lines = [",".join(COLUMNS)]
    old = [{"weights": LAST, **{k: v for k, v in row.items() if v is not None}} for row in old]
    lines += [",".join(str(row[column]) for column in COLUMNS) for row in [*old, *rows]]
    atomic_write_text(path, "\n".join(lines) + "\n")


def plot_curve(path: Path, picture: Path) -> None:
    """BLEU of each set against the CPU-hours of training: circles a last checkpoint, squares an
    average of snapshots."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    figure, axis = plt.subplots(figsize=(8, 4.5))
    for name in dict.fromkeys(row["set"] for row in rows):
        ours = [r for r in rows if r["set"] == name]
        line = axis.plot([float(r["cpu_hours"]) for r in ours], [float(r["bleu"]) for r in ours])
        for marker, kind in (("o", False), ("s", True)):
            points = [r for r in ours if (r.get("weights") or LAST).startswith("average") == kind]
            axis.scatter(
                [float(r["cpu_hours"]) for r in points], [float(r["bleu"]) for r in points],
                marker=marker, color=line[0].get_color(), s=16, label=None if kind else name,
            )  # fmt: skip
    axis.set_title("circles: last checkpoint; squares: average of the kept snapshots", fontsize=9)
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
    parser.add_argument(
        "--last-checkpoint", action="store_true", help="the last checkpoint, not the snapshots' "
        "average (to compare the two at one point, with --out elsewhere)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    chosen = sets(args.general, args.domains, args.tatoeba, "dev", args.limit)
    chosen = {name: pairs[: args.limit] for name, pairs in chosen.items()}
    rows = score_point(
        args.run, chosen=chosen, cpu_hours=args.cpu_hours, beam=args.beam, threads=args.threads,
        average=not args.last_checkpoint,
    )  # fmt: skip
    out = args.out or args.run
    append_rows(out / CURVE, rows)
    plot_curve(out / CURVE, out / "dev-curve.png")
    for row in rows:
        print(f"{row['set']}: BLEU {row['bleu']}, chrF {row['chrf']} (step {row['step']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
