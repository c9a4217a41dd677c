"""A run's configuration assembled from a recipe (mt.config) and the options a user gave: a new
run's, a resumed run's (only stopping limits change) and a fine-tuned run's (the base run's model,
with a fine-tuning schedule)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from mt.config import (
    DEPTHS,
    RECIPES,
    RNN_CLIP_NORM,
    ConfigError,
    ModelConfig,
    ModelShape,
    Recipe,
    TrainConfig,
    check,
    flag,
    parse_duration,
)

DEFAULT_RECIPE = "default"
MODEL_OPTIONS = frozenset(f.name for f in fields(ModelShape))
TRAIN_OPTIONS = frozenset(f.name for f in fields(TrainConfig))
OPTIONS = MODEL_OPTIONS | TRAIN_OPTIONS
"""The settings a user may change, by field name: `mt train` has one option for each."""

RESUMABLE_OPTIONS = frozenset(
    {"max_epochs", "max_steps", "time_budget", "patience", "accuracy_goal"}
    | {"eval_every", "eval_sample", "skip_nonfinite"}
)
"""What a resumed run may change: when it stops, how often it evaluates, what it skips. Anything
else would make the continued run differ from the one that was started."""


@dataclass(frozen=True)
class RunConfig:
    """The two configurations a new run is started with."""

    model: ModelConfig
    train: TrainConfig


def recipe(name: str | None) -> Recipe:
    """The named recipe; None is the default one."""
    chosen = name or DEFAULT_RECIPE
    known = ", ".join(sorted(RECIPES))
    check(chosen in RECIPES, f"--preset: unknown preset {chosen!r} (known: {known})")
    return RECIPES[chosen]


def recipe_values(name: str | None) -> dict[str, object]:
    """Every option's value in the named recipe, by field name."""
    chosen = recipe(name)
    return {**dataclasses.asdict(chosen.shape), **chosen.train.to_dict()}


def given_options(values: Mapping[str, object]) -> dict[str, object]:
    """The options among ``values`` that were given (None means not given), by field name; a
    time budget may be a duration text such as "30m". Other names in ``values`` are ignored."""
    given = {name: v for name, v in values.items() if name in OPTIONS and v is not None}
    if isinstance(given.get("time_budget"), str):
        given["time_budget"] = parse_duration(given["time_budget"])
    return given


def new_run_config(
    *,
    src_vocab: int,
    tgt_vocab: int,
    preset: str | None = None,
    changes: Mapping[str, object] | None = None,
) -> RunConfig:
    """The recipe ``preset`` with ``changes`` (option name -> value), validated, and the rules
    between options applied:

    - a batch size given without a token budget asks for sentence batches (``batch_tokens`` 0);
    - a recurrent model under a recipe without gradient clipping gets ``RNN_CLIP_NORM``, unless
      ``clip_norm`` is given;
    - ``layers`` sets both stacks: a stack's own count given beside it must agree.
    """
    changes = dict(changes or {})
    unknown = sorted(set(changes) - OPTIONS)
    check(not unknown, f"unknown option(s) {', '.join(unknown)}")
    chosen = recipe(preset)
    shape = dataclasses.replace(chosen.shape, **_depth_changes(changes))
    model = shape.with_vocabularies(src_vocab, tgt_vocab)
    train = chosen.train
    if "batch_size" in changes and "batch_tokens" not in changes:
        train = dataclasses.replace(train, batch_tokens=0)
    if model.arch == "rnn" and not train.clip_norm:
        train = dataclasses.replace(train, clip_norm=RNN_CLIP_NORM)
    return RunConfig(model, dataclasses.replace(train, **_only(changes, TRAIN_OPTIONS)))


def _depth_changes(changes: Mapping[str, object]) -> dict[str, Any]:
    """The model changes, with ``layers`` meaning both stacks: a preset's own stack counts give
    way to it, and a stack count given beside it that differs is refused."""
    model = _only(changes, MODEL_OPTIONS)
    if "layers" not in model:
        return model
    for name in ("encoder_layers", "decoder_layers"):
        given = model.get(name)
        check(
            given is None or given == model["layers"],
            f"--layers {model['layers']} sets both stacks and {flag(name)} {given} "
            "another depth: give --layers alone or --encoder-layers and --decoder-layers",
        )
    return {"encoder_layers": None, "decoder_layers": None, **model}


def check_resumable(changes: Mapping[str, object]) -> None:
    """Refuse changes a resumed run may not make (see RESUMABLE_OPTIONS)."""
    if set(changes) & MODEL_OPTIONS:
        raise ConfigError(
            "--resume continues a run as configured; give no model size, preset or prepared "
            "directory"
        )
    fixed = sorted(set(changes) - RESUMABLE_OPTIONS)
    if fixed:
        named = ", ".join(flag(name) for name in fixed)
        raise ConfigError(
            "--resume continues a run as configured; only stopping limits may be given, "
            f"not {named}"
        )


def resumed_train_config(stored: TrainConfig, changes: Mapping[str, object]) -> TrainConfig:
    """A resumed run's training config: as stored, with only stopping limits changed."""
    check_resumable(changes)
    return dataclasses.replace(stored, **changes)


FINETUNE_WARMUP = 200
"""Fine-tuning starts from trained weights: a short warmup only shields them from Adam's first,
badly estimated steps."""
FINETUNE_PEAK_SHARE = 1.0
"""The fine-tuning peak rate as a share of the base run's peak (η0·t_w^-0.5). Measured on
`make bench-domain` (docs/domain.md): a lower peak keeps little more of the base and learns the
new data more slowly in a fixed budget. Rehearsal is what holds the base."""
FINETUNE_MODEL_OPTIONS = frozenset({"dropout"})
"""What --init-from lets a user change about the model: anything else changes its shapes."""
GROWNDEPTHS = frozenset(DEPTHS)
"""What --init-from may also deepen (never make shallower) in a pre-norm Transformer: the new
layers start as the identity (mt.train.depth_growth)."""
GROWN_WIDTHS = frozenset({"ff"})
"""What --init-from may also widen (never narrow): the new perceptron units start silent
(mt.train.width_growth)."""


def finetune_run_config(
    *, base_model: ModelConfig, base_train: TrainConfig, changes: Mapping[str, object]
) -> RunConfig:
    """A fine-tuning run's configuration: the base run's model, and its training settings with
    the fine-tuning schedule (a short warmup to FINETUNE_PEAK_SHARE of its peak rate, then down
    to 0 at the end of a step or time budget, --lr-decay auto) and no budget of its own; then
    ``changes``, of which only dropout may touch the model."""
    changes = dict(changes)
    unknown = sorted(set(changes) - OPTIONS)
    check(not unknown, f"unknown option(s) {', '.join(unknown)}")
    grown = GROWNDEPTHS | GROWN_WIDTHS
    fixed = sorted(set(changes) & (MODEL_OPTIONS - FINETUNE_MODEL_OPTIONS - grown))
    if fixed:
        named = ", ".join(flag(name) for name in fixed)
        raise ConfigError(f"--init-from keeps the base run's model; drop {named}")
    model = dataclasses.replace(base_model, **_only(changes, FINETUNE_MODEL_OPTIONS))
    model = _grown(model, _only(changes, GROWNDEPTHS))
    model = _widened(model, changes.get("ff"))
    peak = base_train.lr * base_train.warmup**-0.5 * FINETUNE_PEAK_SHARE
    train = dataclasses.replace(
        base_train,
        lr=peak * FINETUNE_WARMUP**0.5,
        warmup=FINETUNE_WARMUP,
        lr_decay="auto",
        max_steps=0,
        time_budget=0.0,
        placeholders=None,  # decided again: the fine-tuning tokenizers may have gained them
    )
    if "batch_size" in changes and "batch_tokens" not in changes:
        train = dataclasses.replace(train, batch_tokens=0)
    return RunConfig(model, dataclasses.replace(train, **_only(changes, TRAIN_OPTIONS)))


def _grown(base: ModelConfig, depths: Mapping[str, Any]) -> ModelConfig:
    """The base model with deeper stacks where --encoder-layers/--decoder-layers ask for them."""
    depths = {name: value for name, value in depths.items() if value is not None}
    if not depths:
        return base
    old = {"encoder_layers": base.encoder_depth, "decoder_layers": base.decoder_depth}
    for name, value in depths.items():
        option, stack = flag(name), name.split("_")[0]
        check(
            value >= old[name],
            f"{option} {value}: --init-from can add layers to the base's {stack} of "
            f"{old[name]}, not remove them",
        )
        check(
            base.arch == "transformer" and base.pre_norm,
            f"{option}: only a pre-norm Transformer grows deeper (a new layer starts as the "
            "identity only where the norm comes before it)",
        )
    new = {**old, **depths}
    return dataclasses.replace(
        base,
        layers=new["encoder_layers"],
        encoder_layers=new["encoder_layers"],
        decoder_layers=new["decoder_layers"],
    )


def _widened(base: ModelConfig, ff: Any) -> ModelConfig:
    """The base model with wider perceptrons where --ff asks for them."""
    if ff is None or ff == base.ff:
        return base
    check(
        ff > base.ff,
        f"--ff {ff}: --init-from can widen the base's perceptrons of {base.ff}, not narrow them",
    )
    check(base.arch == "transformer", "--ff: only a Transformer's perceptrons grow wider")
    return dataclasses.replace(base, ff=ff)


def _only(changes: Mapping[str, object], names: frozenset[str]) -> dict[str, Any]:
    return {name: value for name, value in changes.items() if name in names}
