"""`mt calibrate`: fit the confidence of `mt translate --scores` and `mt serve` for a run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from mt.cli.common import Opt, console, run_or_exit, say
from mt.cli.decode_options import DecodeFlags, ModelArgument, takes_decode_flags

FEW_EXAMPLES = 20
"""Fewer good (or bad) translations than this, and the fit of P(good) is rough: say so."""


@takes_decode_flags("beam_size", "device", "threads")
def calibrate(
    model: ModelArgument = None,
    data: Annotated[
        Path | None,
        Opt(help="Prepared directory whose selection part to use; default: the run's own."),
    ] = None,
    sentences: Annotated[int, Opt(help="Selection sentences translated (seeded sample).")] = 2000,
    seed: Annotated[int, Opt(help="Seed of the sample.")] = 0,
    decoding: DecodeFlags = DecodeFlags(),
) -> None:
    """Translate a sample of the selection part, score each output with sentence chrF and fit
    the confidence on it (docs/trust.md).

    calibration.json is written into the model's directory, or for a shipped model into your
    own data folder (MT_HOME, else ~/.local/share/mt), where it replaces the shipped one.

    Example: mt calibrate --data runs/my-data
    Example: mt calibrate runs/base --sentences 2000
    """

    def action() -> None:
        from mt.catalog.modelinfo import resolve
        from mt.decode.translator import open_translator
        from mt.evaluate.calibrate import calibrate, save_calibration, selection_part

        options = decoding.options(decoding.search())

        info = resolve(model)
        selection = selection_part(info, data)
        translator = open_translator(
            info, options, device=decoding.device, threads=decoding.threads
        )
        calibration = calibrate(
            translator, selection, size=sentences, seed=seed, progress=console.print
        )
        path = save_calibration(translator, calibration)
        fitted = calibration.fitted
        console.print(
            f"{path} written: {fitted['sentences']} sentences, "
            f"mean chrF {fitted['mean_chrf']:.1f}, {fitted['good_share']:.1%} good "
            f"({fitted['good']})"
        )
        good = fitted["good_sentences"]
        fewer = min(good, fitted["sentences"] - good)
        if fewer < FEW_EXAMPLES:
            say(
                f"[yellow]warning:[/] only {fewer} of {fitted['sentences']} translations are "
                f"{'good' if fewer == good else 'bad'}: the confidence rests on few examples; "
                "calibrate on more sentences (--sentences) or a run trained longer"
            )

    run_or_exit(action)
