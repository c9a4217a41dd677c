"""Choose, on development data, what docs/trust.md says was chosen: the confidence's calibration
target and the copy flag's thresholds.

    python -m benchmarks.trust.bench_trust_choices --model RUN SELECTION_TSV [--model ...] \
        --data PREPARED [--domains ../shared/data/domains] [--out bench/trust-choices/results.json]
    python -m benchmarks.trust.bench_trust_choices --pool RESULTS.json [RESULTS2.json ...] \
        --out FILE

Each --model is a run and the selection part `mt calibrate` fits it on (its own training data's).
The run translates (with each --beam-size: greedily as bench_trust does, and with the beam of 5
that `mt translate` uses by default) a seeded sample of SELECTION_TSV to fit on, then
bench_trust's development sets: PREPARED's selection part (less the fitting sample when it is the
same file) and each domain's dev part (our by-document split). Test parts are never read. Each
(run, beam) counts as one model below. --pool adds the models of earlier results files (another
sample: --seed, --fit-seed) to the choice; with --pool alone nothing is translated.

The rules were written down before any figure was read (greedy decoding only, at first; the
beam of 5 was added when greedy and beam 5 were seen to put the copy thresholds apart, so that
the choice holds for both ways users decode):

- Calibration target: the regression is fitted to each of mt.evaluate.calibrate's TARGETS on the
  same sample: the sentence chrF / 100 ("chrf") and chrF >= 50 ("good": P(good)). The target whose
  confidence has the higher Spearman with sentence chrF, averaged over every development set of
  every model, is chosen; where the averages are within TIE, the code's TARGET stays.
- Copy thresholds: each setting of the grid (share of the output's letters that are the source's
  words above which it is a copy; the lower share from which an output that does not read as
  Spanish is one; the letters that language check needs) is judged on every development set of
  every model. It is admissible where the flag is raised on at most MAX_FALSE of the outputs
  that do not copy the source (bench_trust's own measure) in every set, and catches at least
  MIN_ECHO of echoes (each source given back). Among the admissible, the highest recall on the
  outputs that copy, pooled, wins; then the fewest flags on others; then the setting the code
  has.

It writes every figure and the two choices as JSON, and exits non-zero when the code's
calibration target (mt.evaluate.calibrate.TARGET) or copy thresholds (CopyThresholds()'s
defaults) are not the choices: a choice made on development data is a stated target, and the
code drifting from it is a miss.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.harness import Target, report
from benchmarks.trust.bench_trust import Row, ranking_figures, scored_rows, sets
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.decode.options import TranslateOptions
from mt.decode.translator import Translator, open_translator
from mt.evaluate.calibrate import TARGET, TARGETS, scored_sample
from mt.quality.confidence import Calibration, fit_calibration
from mt.quality.flags import CopyThresholds, copy_evidence, reads_as_spanish

FIT_SENTENCES = 2000
FIT_SEED = 0
TIE = 0.01
MAX_FALSE = 0.01
MIN_ECHO = 0.95
GRID = [
    CopyThresholds(overlap, half, letters)
    for overlap, half, letters in itertools.product(
        (0.6, 0.65, 0.7, 0.75, 0.8, 0.9), (0.3, 0.4, 0.5, 0.6, 1.01), (8, 12, 16, 24)
    )
    if half <= overlap or half > 1  # 1.01: no lower share (the language check is off)
]


def fitted_targets(
    translator: Translator, selection: Path, seed: int = FIT_SEED
) -> dict[str, Calibration]:
    """The regression fitted to each of TARGETS on the same translations (mt calibrate's)."""
    features, chrf = scored_sample(translator, selection, size=FIT_SENTENCES, seed=seed)
    fitted = {"part": str(selection), "sentences": len(chrf), "seed": seed}
    return {
        name: fit_calibration(features, of(chrf), fitted=fitted) for name, of in TARGETS.items()
    }


def copy_counts(rows: list[Row], echoes: list[str]) -> list[dict[str, int]]:
    """For each GRID setting: copies caught, copies, flags on other outputs, others, echoes
    caught, echoes."""
    spanish = functools.cache(reads_as_spanish)
    evidence = [copy_evidence(row.source, row.output) for row in rows]
    echo_evidence = [copy_evidence(source, source) for source in echoes]
    counted = []
    for setting in GRID:
        flagged = [setting.judge(e, spanish) for e in evidence]
        counted.append(
            {
                "caught": sum(f and row.copies for f, row in zip(flagged, rows, strict=True)),
                "copies": sum(row.copies for row in rows),
                "false": sum(f and not row.copies for f, row in zip(flagged, rows, strict=True)),
                "others": sum(not row.copies for row in rows),
                "echo_caught": sum(setting.judge(e, spanish) for e in echo_evidence),
                "echoes": len(echo_evidence),
            }
        )
    return counted


def measure_model(
    run: Path, selection: Path, beam: int, data: Path, domains: Path, args: argparse.Namespace
) -> dict:
    """Both targets' ranking and every copy setting's counts on each development set, the run
    decoding with `beam` (the regression fitted on translations made alike)."""
    translator = open_translator(
        resolve(run),
        TranslateOptions(decode=DecodeConfig(beam_size=beam)),
        device="cpu",
        threads=args.threads,
    )
    calibrations = fitted_targets(translator, selection, args.fit_seed)
    same_part = selection.resolve() == (data / "selection.tsv").resolve()
    calibrated_on = {"sentences": FIT_SENTENCES, "seed": args.fit_seed} if same_part else None
    measured = {}
    for name, references in sets(
        data, domains, args.sentences, args.domain_sentences, args.seed, part="dev",
        calibrated_on=calibrated_on,
    ):  # fmt: skip
        translations = list(translator.translate(list(references)))
        rows = scored_rows(references, translations)
        chrf = np.asarray([row.chrf for row in rows])
        ranking = {
            target: ranking_figures(
                np.asarray([c.confidence(t.evidence) for t in translations]), chrf
            )
            for target, c in calibrations.items()
        }
        echoes = [s for s in references if copy_evidence(s, s) is not None]
        measured[name] = {"sentences": len(rows), "ranking": ranking}
        measured[name]["copy"] = copy_counts(rows, echoes)
        print(
            f"{run.name:<12} beam {beam} {name:<12} {len(rows):>5}  "
            + "  ".join(
                f"{target}: spearman {f['spearman']:.3f} ratio {f['bad_ratio']:.1f}x"
                for target, f in ranking.items()
            )
            + f"  copies {measured[name]['copy'][0]['copies']}",
            flush=True,
        )
    return measured


def pooled_models(paths: list[Path]) -> dict[str, dict]:
    """The measured models of earlier results files (`--out` of this benchmark), keyed by file
    and model; their grid must be this GRID."""
    models = {}
    for path in paths:
        try:
            figures = json.loads(path.read_text(encoding="utf-8"))["figures"]
        except (OSError, ValueError, KeyError) as error:
            sys.exit(f"{path}: not a results file of this benchmark ({error})")
        if figures.get("grid") != [asdict(setting) for setting in GRID]:
            sys.exit(f"{path}: measured on another grid of copy thresholds; measure it again")
        models.update({f"{path.name}: {name}": m for name, m in figures["models"].items()})
    return models


def choose_target(models: dict[str, dict]) -> tuple[str, dict[str, float]]:
    """The calibration target by the rule in the docstring, and each target's mean Spearman."""
    means = {
        target: float(
            np.mean(
                [
                    figures["ranking"][target]["spearman"]
                    for measured in models.values()
                    for figures in measured.values()
                ]
            )
        )
        for target in TARGETS
    }
    best = max(means, key=means.get)
    if means[best] - means[TARGET] < TIE:
        return TARGET, means
    return best, means


def choose_copy(models: dict[str, dict]) -> tuple[CopyThresholds | None, list[dict]]:
    """The copy thresholds by the rule in the docstring (None: no setting is admissible), and
    each setting's pooled figures."""
    code = CopyThresholds()
    table = []
    for i, setting in enumerate(GRID):
        counts = [figures["copy"][i] for m in models.values() for figures in m.values()]
        admissible = all(
            c["false"] <= MAX_FALSE * c["others"] and c["echo_caught"] >= MIN_ECHO * c["echoes"]
            for c in counts
        )
        table.append(
            {
                **asdict(setting),
                "admissible": admissible,
                "caught": sum(c["caught"] for c in counts),
                "copies": sum(c["copies"] for c in counts),
                "false": sum(c["false"] for c in counts),
                "others": sum(c["others"] for c in counts),
                "worst_false_share": max(c["false"] / max(c["others"], 1) for c in counts),
            }
        )
    admissible = [(row, s) for row, s in zip(table, GRID, strict=True) if row["admissible"]]
    if not admissible:
        return None, table
    best = max(admissible, key=lambda pair: (pair[0]["caught"], -pair[0]["false"], pair[1] == code))
    return best[1], table


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument(
        "--model",
        nargs=2,
        action="append",
        default=[],
        metavar=("RUN", "SELECTION_TSV"),
        help="a run and the selection part to fit its confidence on",
    )
    harness.add_data(parser, help="prepared Tatoeba directory (with --model)")
    harness.add_domains(parser)
    harness.add_limit(parser, 1000, flag="--sentences", help="selection-part sample")
    harness.add_limit(parser, 1000, flag="--domain-sentences", help="sample of each domain part")
    parser.add_argument("--seed", type=int, default=1, help="of the development samples")
    parser.add_argument("--fit-seed", type=int, default=FIT_SEED, help="of the fitting sample")
    parser.add_argument(
        "--beam-size", type=int, nargs="+", default=[1, 5], help="each one measured; choices pooled"
    )
    harness.add_threads(parser)
    parser.add_argument(
        "--pool",
        type=Path,
        nargs="+",
        default=[],
        help="earlier results JSON whose models join the choice (other samples)",
    )
    harness.add_out(parser, Path("bench/trust-choices/results.json"))
    args = parser.parse_args(argv)
    if not args.model and not args.pool:
        parser.error("give --model RUN SELECTION_TSV (and --data), or --pool RESULTS.json")
    if args.model and args.data is None:
        parser.error("--model needs --data")
    if args.model and not args.domains.is_dir():
        print(f"{args.domains} is absent: only the selection part is scored", file=sys.stderr)
    models = {
        f"{run} beam {beam}": measure_model(
            Path(run), Path(selection), beam, args.data, args.domains, args
        )
        for beam in args.beam_size
        for run, selection in args.model
    }
    models.update(pooled_models(args.pool))
    target, means = choose_target(models)
    print("mean Spearman: " + ", ".join(f"{t} {m:.4f}" for t, m in means.items()) + f" -> {target}")
    copy, table = choose_copy(models)
    for row in sorted(table, key=lambda r: (-r["admissible"], -r["caught"], r["false"]))[:12]:
        print(
            f"  overlap {row['overlap']:.2f} half {row['half_overlap']:.2f} "
            f"letters {row['min_letters']:>2}: caught {row['caught']}/{row['copies']}, "
            f"on others {row['false']}/{row['others']} (worst set "
            f"{row['worst_false_share']:.2%}){'' if row['admissible'] else '  not admissible'}"
        )
    print(f"copy thresholds chosen: {copy}")
    figures = {
        "models": models,
        "grid": [asdict(setting) for setting in GRID],
        "target_means": means,
        "target_chosen": target,
        "copy_table": table,
        "copy_chosen": asdict(copy) if copy else None,
    }
    checks = [
        Target(
            "calibration target in the code is the dev choice",
            float(target == TARGET),
            ">=",
            1,
        ),
        Target(
            "copy thresholds in the code are the dev choice",
            float(copy == CopyThresholds()),
            ">=",
            1,
        ),
    ]
    return report(args.out, figures, checks, threads=args.threads)


if __name__ == "__main__":
    sys.exit(main())
