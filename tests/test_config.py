"""Configuration assembly: presets and recipes, changes, the rules between options, resumes."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from mt.cli.app import train as train_command
from mt.config import (
    PRESETS,
    RECIPES,
    RNN_CLIP_NORM,
    ConfigError,
    DecodeConfig,
    ModelConfig,
    TrainConfig,
    parse_duration,
)
from mt.train.run_config import (
    MODEL_OPTIONS,
    OPTIONS,
    TRAIN_OPTIONS,
    finetune_run_config,
    given_options,
    new_run_config,
    recipe,
    resumed_train_config,
)

VOCAB = {"src_vocab": 150, "tgt_vocab": 180}


def test_no_changes_give_the_default_recipe() -> None:
    config = new_run_config(**VOCAB)
    default = RECIPES["default"]
    assert config.train == default.train
    assert config.model == ModelConfig(**VOCAB, **dataclasses.asdict(default.shape))
    assert recipe(None) is default


def test_the_default_recipe_decays_to_a_budget_when_there_is_one() -> None:
    assert not new_run_config(**VOCAB).train.decays_to_budget  # no budget: t^-0.5
    for budget in ({"time_budget": 600.0}, {"max_steps": 500}):
        assert new_run_config(**VOCAB, changes=budget).train.decays_to_budget
    thesis = new_run_config(**VOCAB, preset="thesis-large", changes={"time_budget": 600.0})
    assert not thesis.train.decays_to_budget  # the thesis' own schedule
    with pytest.raises(ConfigError, match="unknown --lr-decay 'cosine'"):
        new_run_config(**VOCAB, changes={"lr_decay": "cosine"})


def test_changes_reach_the_model_and_the_training_config() -> None:
    config = new_run_config(
        **VOCAB, preset="thesis-small", changes={"layers": 3, "lr": 0.5, "time_budget": 60.0}
    )
    assert (config.model.layers, config.model.d_model) == (3, PRESETS["thesis-small"].d_model)
    assert (config.train.lr, config.train.time_budget) == (0.5, 60.0)


def test_each_stack_may_have_its_own_depth() -> None:
    model = new_run_config(**VOCAB, changes={"encoder_layers": 6, "decoder_layers": 2}).model
    assert (model.encoder_depth, model.decoder_depth) == (6, 2)
    assert ModelConfig.from_dict(model.to_dict()) == model
    assert model.to_dict()["encoder_layers"] == 6
    deep = new_run_config(**VOCAB, preset="thesis-small", changes={"encoder_layers": 3}).model
    assert (deep.encoder_depth, deep.decoder_depth) == (3, PRESETS["thesis-small"].layers)


def test_one_shape_is_one_config_however_its_depths_were_given() -> None:
    given = new_run_config(**VOCAB, changes={"encoder_layers": 6, "decoder_layers": 2}).model
    grown = dataclasses.replace(given, layers=6, encoder_layers=None, decoder_layers=2)
    assert grown == given and grown.to_dict() == given.to_dict()
    assert (given.layers, given.encoder_layers, given.decoder_layers) == (6, 6, 2)


def test_equal_stacks_are_stored_as_layers_alone() -> None:
    both = new_run_config(**VOCAB, changes={"encoder_layers": 3, "decoder_layers": 3}).model
    assert both == new_run_config(**VOCAB, changes={"layers": 3}).model
    assert "encoder_layers" not in both.to_dict() and "decoder_layers" not in both.to_dict()
    agreeing = new_run_config(**VOCAB, changes={"layers": 3, "encoder_layers": 3}).model
    assert agreeing == both


def test_a_model_json_without_stack_depths_loads_and_is_written_as_it_was() -> None:
    """A model.json written before the two counts existed (en-es-general-7's)."""
    stored = {
        "src_vocab": 8001, "tgt_vocab": 8000, "arch": "transformer", "d_model": 256, "ff": 512,
        "heads": 8, "layers": 2, "dropout": 0.1, "pre_norm": True, "tie_embeddings": False,
        "max_positions": 512, "cell": "lstm", "attention": "bahdanau",
    }  # fmt: skip
    model = ModelConfig.from_dict(stored)
    assert (model.encoder_depth, model.decoder_depth) == (2, 2)
    assert model.to_dict() == stored
    assert list(model.to_dict()) == list(stored)  # the same keys in the same order


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"layers": 3, "encoder_layers": 6}, "--layers 3 sets both stacks and --encoder-layers 6"),
        ({"layers": 1, "decoder_layers": 2}, "--layers 1 sets both stacks and --decoder-layers 2"),
        ({"encoder_layers": 0}, "--encoder-layers must be positive, got 0"),
        ({"decoder_layers": -1}, "--decoder-layers must be positive, got -1"),
        ({"arch": "rnn", "encoder_layers": 3}, "--arch rnn has one depth for both stacks"),
    ],
)
def test_bad_stack_depths_are_one_clear_error(changes, message) -> None:
    with pytest.raises(ConfigError, match=message):
        new_run_config(**VOCAB, changes=changes)


def test_a_fine_tuning_run_keeps_or_grows_its_stack_depths_and_a_resumed_one_keeps_them() -> None:
    base = new_run_config(**VOCAB, changes={"encoder_layers": 6, "pre_norm": True})
    with pytest.raises(ConfigError, match="base's decoder of 2, not remove them"):
        finetune_run_config(
            base_model=base.model, base_train=base.train, changes={"decoder_layers": 1}
        )
    tuned = finetune_run_config(base_model=base.model, base_train=base.train, changes={})
    assert tuned.model == base.model
    deeper = {"encoder_layers": 8, "decoder_layers": 3}
    grown = finetune_run_config(base_model=base.model, base_train=base.train, changes=deeper)
    assert (grown.model.encoder_depth, grown.model.decoder_depth) == (8, 3)
    assert dataclasses.replace(grown.model, layers=2, encoder_layers=6, decoder_layers=None) == (
        base.model
    )
    with pytest.raises(ConfigError, match="give no model size, preset or prepared directory"):
        resumed_train_config(base.train, {"encoder_layers": 3})


def test_a_batch_size_alone_asks_for_sentence_batches() -> None:
    tokens = dataclasses.replace(RECIPES["default"].train, batch_tokens=2500)
    RECIPES["tokens"] = dataclasses.replace(RECIPES["default"], train=tokens)
    try:
        assert new_run_config(**VOCAB, preset="tokens").train.batch_tokens == 2500
        sentences = new_run_config(**VOCAB, preset="tokens", changes={"batch_size": 32}).train
        assert (sentences.batch_size, sentences.batch_tokens) == (32, 0)
        both = {"batch_size": 32, "batch_tokens": 900}
        assert new_run_config(**VOCAB, preset="tokens", changes=both).train.batch_tokens == 900
    finally:
        del RECIPES["tokens"]


def test_a_recurrent_model_gets_its_gradient_clipping_unless_told_otherwise() -> None:
    assert new_run_config(**VOCAB, changes={"arch": "rnn"}).train.clip_norm == RNN_CLIP_NORM
    assert new_run_config(**VOCAB, preset="rnn-small").train.clip_norm == RNN_CLIP_NORM
    given = {"arch": "rnn", "clip_norm": 0.0}
    assert new_run_config(**VOCAB, changes=given).train.clip_norm == 0.0
    assert new_run_config(**VOCAB).train.clip_norm == 0.0  # a Transformer keeps its recipe's


@pytest.mark.parametrize(
    ("preset", "changes", "message"),
    [
        ("nope", {}, "--preset: unknown preset 'nope' \\(known: default, quick, rnn-large"),
        (None, {"colour": "red"}, "unknown option\\(s\\) colour"),
        (None, {"heads": 3}, "--d-model 256 is not divisible by --heads 3"),
        (None, {"lr": -1.0}, "--lr must be positive"),
        ("thesis-small", {"tie_embeddings": True}, "tied embeddings need a shared vocabulary"),
    ],
)
def test_bad_settings_are_one_clear_error(preset, changes, message) -> None:
    with pytest.raises(ConfigError, match=message):
        new_run_config(**VOCAB, preset=preset, changes=changes)


def test_a_resume_may_change_only_stopping_limits() -> None:
    stored = TrainConfig(max_steps=100)
    resumed = resumed_train_config(stored, {"max_steps": 200, "time_budget": 30.0})
    assert resumed == dataclasses.replace(stored, max_steps=200, time_budget=30.0)
    with pytest.raises(ConfigError, match="only stopping limits may be given, not --lr, --seed"):
        resumed_train_config(stored, {"seed": 1, "lr": 0.1, "max_steps": 5})
    with pytest.raises(ConfigError, match="give no model size, preset or prepared directory"):
        resumed_train_config(stored, {"layers": 3})


def test_given_options_keep_what_was_given_and_read_durations() -> None:
    values = {"lr": 0.1, "layers": None, "time_budget": "30m", "out": "runs/a", "force": True}
    assert given_options(values) == {"lr": 0.1, "time_budget": 1800.0}
    assert parse_duration("1.5h") == 5400.0
    with pytest.raises(ConfigError, match="cannot read duration 'soon'"):
        given_options({"time_budget": "soon"})


def test_every_option_is_a_field_and_has_its_command_line_option() -> None:
    assert OPTIONS == MODEL_OPTIONS | TRAIN_OPTIONS
    assert {f.name for f in dataclasses.fields(TrainConfig)} == TRAIN_OPTIONS
    parameters = set(inspect.signature(train_command).parameters)  # what Typer reads
    assert parameters >= OPTIONS, sorted(OPTIONS - parameters)


def test_configs_round_trip_through_dicts() -> None:
    config = new_run_config(**VOCAB, preset="rnn-small")
    assert ModelConfig.from_dict(config.model.to_dict()) == config.model
    assert TrainConfig.from_dict(config.train.to_dict()) == config.train
    assert DecodeConfig.from_dict(DecodeConfig(beam_size=3).to_dict()) == DecodeConfig(beam_size=3)
    with pytest.raises(ConfigError, match="unknown field"):
        TrainConfig.from_dict({"colour": "red"})


def test_train_help_shows_the_default_recipe_values() -> None:
    import typer.main

    from mt.cli.app import app

    command = typer.main.get_command(app).get_command(None, "train")
    shown = {param.name: param.show_default for param in command.params}
    default = RECIPES["default"]
    assert shown["lr"] == f"recipe: {default.train.lr}"
    assert shown["d_model"] == f"recipe: {default.shape.d_model}"
    assert shown["force"] is not None and not str(shown["force"]).startswith("recipe")
