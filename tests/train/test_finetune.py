"""`mt train PREPARED --init-from RUN [--mix BASE:FRACTION]`: a fine-tuned run starts from exactly
the base weights, records where it came from, trains and resumes like any run, rehearses the
asked share of base data, and refuses data or settings that do not fit the base model."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from conftest import run_cli
from mt.catalog.modelinfo import read_lineage, read_model_config, read_train_config, resolve
from mt.config import PrepareConfig, TrainConfig
from mt.data.feed.batching import encode_pairs
from mt.data.feed.rehearsal import Mix, base_count, mixed_pairs, parse_mix
from mt.data.prepare.pipeline import prepare_corpus
from mt.data.prepared_dir import load_prepared
from mt.errors import MtError
from mt.model.rundir import load_run
from mt.storage.checksums import file_sha256
from mt.storage.files import BEST_WEIGHTS, MODEL_JSON
from mt.train.finetune import rehearsal
from mt.train.launch import train_data, train_run
from mt.train.run_config import FINETUNE_PEAK_SHARE, FINETUNE_WARMUP
from mt.train.trainer import Trainer

TINY = {"max_steps": 4, "eval_every": 2, "batch_size": 16, "seed": 3}
DOMAIN = [
    (f"Bruno likes the function {i}.", f"A Bruno le gusta la función {i}.") for i in range(60)
] + [(f"Where is the file {i}, Wanda?", f"¿Dónde está el archivo {i}, Wanda?") for i in range(60)]


@pytest.fixture(scope="module")
def domain(trained_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Domain pairs prepared with the trained run's tokenizers as they are."""
    root = tmp_path_factory.mktemp("domain")
    corpus = root / "domain.tsv"
    corpus.write_text("".join(f"{en}\t{es}\n" for en, es in DOMAIN), encoding="utf-8")
    config = PrepareConfig(extend_vocab=False)
    prepare_corpus(corpus, out=root / "prepared", config=config, tokenizers_from=trained_run)
    return root / "prepared"


@pytest.fixture(scope="module")
def grown(trained_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Domain pairs full of characters the trained run cannot spell: its vocabularies grow."""
    root = tmp_path_factory.mktemp("grown")
    corpus = root / "domain.tsv"
    pairs = [(f"Type <b>{i}</b> | {{x}}.", f"Escribe <b>{i}</b> | {{x}}.") for i in range(40)]
    corpus.write_text("".join(f"{en}\t{es}\n" for en, es in DOMAIN + pairs), encoding="utf-8")
    prepare_corpus(corpus, out=root / "prepared", tokenizers_from=trained_run)
    return root / "prepared"


def base_prepared(trained_run: Path) -> Path:
    return read_train_config(trained_run)[1]


def test_fine_tuning_starts_from_exactly_the_base_weights(
    trained_run: Path, domain: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, object] = {}

    def stop_before_the_first_step(trainer: Trainer) -> str:
        seen["weights"] = {k: v.clone() for k, v in trainer.model.state_dict().items()}
        seen["loss"] = trainer.selection.score(trainer.model).loss
        seen["selection"] = trainer.selection
        return "stopped by the test"

    monkeypatch.setattr(Trainer, "train", stop_before_the_first_step)
    train_run(prepared=domain, out=tmp_path / "ft", init_from=trained_run, changes=TINY)
    base = load_run(resolve(trained_run)).model.state_dict()
    weights = seen["weights"]
    assert weights.keys() == base.keys()
    assert all(torch.equal(weights[name], base[name]) for name in base)
    base_loss = seen["selection"].score(load_run(resolve(trained_run)).model).loss
    assert seen["loss"] == base_loss  # the step-0 loss is the base model's, exactly

    # The same model trained from scratch starts elsewhere: the checks above can fail.
    train_run(prepared=domain, out=tmp_path / "fresh", preset="thesis-small", changes=TINY)
    assert seen["weights"].keys() == base.keys()
    assert not any(torch.equal(seen["weights"][name], base[name]) for name in base)
    assert seen["loss"] != base_loss


def test_a_fine_tuned_run_records_its_lineage_trains_and_resumes(
    trained_run: Path, domain: Path, tmp_path: Path
) -> None:
    run = tmp_path / "ft"
    summary = train_run(prepared=domain, out=run, init_from=trained_run, changes=TINY)
    assert (summary.steps, summary.stop_reason) == (4, "reached --max-steps 4")
    assert read_lineage(run) == {
        "init_from": {
            "run": str(trained_run.resolve()),
            "weights": BEST_WEIGHTS,
            "sha256": file_sha256(trained_run / BEST_WEIGHTS),
        }
    }
    assert read_model_config(run) == read_model_config(trained_run)
    base_train, _ = read_train_config(trained_run)
    train, prepared = read_train_config(run)
    base_peak = base_train.lr * base_train.warmup**-0.5
    assert train.lr * train.warmup**-0.5 == pytest.approx(FINETUNE_PEAK_SHARE * base_peak)
    assert (train.warmup, train.lr_decay, train.max_steps) == (FINETUNE_WARMUP, "auto", 4)
    assert train.decays_to_budget, "with a step budget the rate falls to 0 at its end"
    assert (train.batch_size, train.seed, prepared) == (16, 3, domain.resolve())
    moved = load_run(resolve(run), checkpoint="last").model.state_dict()
    base = load_run(resolve(trained_run)).model.state_dict()
    assert not all(torch.equal(moved[name], base[name]) for name in base)

    resumed = train_run(resume=run, changes={"max_steps": 6})
    assert resumed.steps == 6
    assert read_lineage(run)["init_from"]["run"] == str(trained_run.resolve())


def test_a_fine_tuned_run_inherits_its_base_s_length_penalty(
    trained_run: Path, domain: Path, tmp_path: Path
) -> None:
    base = tmp_path / "base"
    shutil.copytree(trained_run, base)
    (base / "decode.json").write_text('{"length_penalty": 1.4}\n', encoding="utf-8")
    run = tmp_path / "ft"
    train_run(prepared=domain, out=run, init_from=base, changes=TINY)
    assert resolve(run).length_penalty == 1.4  # until its own dev part chooses another
    plain = tmp_path / "plain"
    train_run(prepared=domain, out=plain, init_from=trained_run, changes=TINY)
    assert not (plain / "decode.json").exists()


def test_a_grown_vocabulary_keeps_the_base_rows_and_trains(
    trained_run: Path, grown: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepared, base_run = load_prepared(grown), load_run(resolve(trained_run))
    old = (base_run.config.src_vocab, base_run.config.tgt_vocab)
    new = (prepared.source.vocab_size, prepared.target.vocab_size)
    assert new[0] > old[0] and new[1] > old[1]
    seen: dict[str, dict[str, torch.Tensor]] = {}

    def stop_before_the_first_step(trainer: Trainer) -> str:
        seen["weights"] = {k: v.clone() for k, v in trainer.model.state_dict().items()}
        return "stopped by the test"

    with monkeypatch.context() as patch:
        patch.setattr(Trainer, "train", stop_before_the_first_step)
        train_run(prepared=grown, out=tmp_path / "look", init_from=trained_run, changes=TINY)
    weights, base = seen["weights"], base_run.model.state_dict()
    rows = {
        "src_embedding.tokens.weight": old[0],
        "tgt_embedding.tokens.weight": old[1],
        "projection.weight": old[1],
        "projection.bias": old[1],
    }
    for name, tensor in base.items():
        if name in rows:
            assert weights[name].shape[0] == new[0 if name.startswith("src") else 1]
            assert torch.equal(weights[name][: rows[name]], tensor), "old ids keep their rows"
        else:
            assert torch.equal(weights[name], tensor)
    added = weights["src_embedding.tokens.weight"][old[0] :]
    mean = base["src_embedding.tokens.weight"][4:].mean(dim=0)
    assert torch.allclose(added, mean.expand_as(added))
    bias = base["projection.bias"]
    assert torch.all(weights["projection.bias"][old[1] :] == bias[4:].min())

    run = tmp_path / "ft"
    mix = Mix(base_prepared(trained_run), 0.25)
    summary = train_run(prepared=grown, out=run, init_from=trained_run, changes=TINY, mix=mix)
    assert summary.steps == 4
    config = read_model_config(run)
    assert (config.src_vocab, config.tgt_vocab) == new
    lineage = read_lineage(run)["init_from"]
    assert lineage["vocabulary"] == {"source": [old[0], new[0]], "target": [old[1], new[1]]}
    assert lineage["sha256"] == file_sha256(trained_run / BEST_WEIGHTS)
    trained = load_run(resolve(run), checkpoint="last")
    text = "Type <b>7</b> | {x}."
    assert trained.source.decode(trained.source.encode(text)) == text
    assert train_run(resume=run, changes={"max_steps": 6}).steps == 6


def test_the_command_line_fine_tunes_with_rehearsal(
    trained_run: Path, domain: Path, tmp_path: Path
) -> None:
    base = base_prepared(trained_run)
    run_cli(
        "train", domain, "--init-from", trained_run, "--mix", f"{base}:0.25", "--out",
        tmp_path / "ft", "--max-steps", "2", "--threads", "1", "--device", "cpu",
    )  # fmt: skip
    lineage = read_lineage(tmp_path / "ft")
    assert lineage["mix"] == {"prepared": str(base.resolve()), "fraction": 0.25}
    assert set(lineage) == {"init_from", "mix"}


def test_mismatched_vocabulary_is_one_clear_error(trained_run: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "d.tsv"
    corpus.write_text("".join(f"{en}\t{es}\n" for en, es in DOMAIN), encoding="utf-8")
    own = tmp_path / "own-vocabulary"
    prepare_corpus(corpus, out=own, config=PrepareConfig(src_vocab=120, tgt_vocab=180))
    with pytest.raises(MtError, match=r"the source vocabularies differ \(\d+ labels, 150 in the"):
        train_run(prepared=own, out=tmp_path / "ft", init_from=trained_run, changes=TINY)
    output = run_cli("train", own, "--init-from", trained_run, "-o", tmp_path / "ft", code=2)
    line = output.output.strip()
    assert len(line.splitlines()) == 1 and "--tokenizers-from" in line
    assert not (tmp_path / "ft").exists(), "nothing is claimed before the checks"


def test_a_shape_mismatch_or_a_model_option_is_one_clear_error(
    trained_run: Path, domain: Path, tmp_path: Path
) -> None:
    damaged = tmp_path / "damaged"
    shutil.copytree(trained_run, damaged)
    data = json.loads((damaged / MODEL_JSON).read_text())
    data["model"]["ff"] *= 2
    (damaged / MODEL_JSON).write_text(json.dumps(data))
    with pytest.raises(
        MtError,
        match=r"best.safetensors: weights do not match model.json: .*feed_forward.* has shape",
    ):
        train_run(prepared=domain, out=tmp_path / "a", init_from=damaged, changes=TINY)
    with pytest.raises(MtError, match=r"keeps the base run's model; drop --d-model, --layers"):
        train_run(
            prepared=domain, out=tmp_path / "b", init_from=trained_run,
            changes={"d_model": 128, "layers": 3},
        )  # fmt: skip
    dry = run_cli("train", domain, "--init-from", trained_run, "--dry-run", code=2).output
    assert "--init-from takes the run's model as it is" in dry
    with pytest.raises(MtError, match="no --preset"):
        train_run(prepared=domain, out=tmp_path / "c", init_from=trained_run, preset="default")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["damaged"]


def column_rows(column, indices) -> list[list[int]]:
    return [column.row(int(i)).tolist() for i in indices]


def test_mix_draws_the_asked_share_anew_each_epoch() -> None:
    new = encode_pairs([[5, 6]] * 30, [[7]] * 30, max_src_len=8, max_tgt_len=8)
    base_ids = [[10 + i, 11 + i] for i in range(100)]
    base = encode_pairs(base_ids, base_ids, max_src_len=8, max_tgt_len=8)
    epoch0 = mixed_pairs(new, base, fraction=0.25, seed=1, epoch=0)
    assert len(epoch0) == 40 and base_count(30, 0.25) == 10  # 10 of 40 pairs: a quarter
    assert column_rows(epoch0.source, range(30)) == [[5, 6]] * 30
    drawn = column_rows(epoch0.source, range(30, 40))
    assert len({tuple(row) for row in drawn}) == 10 and all(row in base_ids for row in drawn)
    assert column_rows(epoch0.target, range(30, 40)) == drawn, "pairs stay pairs"
    assert list(epoch0.source.sizes()) == [2] * 40
    again = mixed_pairs(new, base, fraction=0.25, seed=1, epoch=0)
    assert column_rows(again.source, range(40)) == column_rows(epoch0.source, range(40))
    epoch1 = mixed_pairs(new, base, fraction=0.25, seed=1, epoch=1)
    assert column_rows(epoch1.source, range(30, 40)) != drawn
    small = mixed_pairs(new, base, fraction=0.9, seed=1, epoch=0)  # 270 from 100: repeats
    assert len(small) == 300


def test_training_data_with_mix_has_the_share_of_base_pairs(
    trained_run: Path, domain: Path
) -> None:
    prepared, base = load_prepared(domain), base_prepared(trained_run)
    config = TrainConfig(**LIMITS, placeholders=0.0)  # the new pairs as prepared
    data = train_data(prepared, config, rehearsal(prepared, Mix(base, 0.3), config))
    new = len(data.train)
    epoch = data.epoch_train(0)
    assert len(epoch) - new == round(new * 0.3 / 0.7)
    assert math.isclose((len(epoch) - new) / len(epoch), 0.3, abs_tol=1 / len(epoch))
    base_train = load_prepared(base).encoded("train", **LIMITS)
    base_rows = {tuple(row) for row in column_rows(base_train.source, range(len(base_train)))}
    drawn = column_rows(epoch.source, range(new, len(epoch)))
    assert all(tuple(row) in base_rows for row in drawn)
    assert np.array_equal(epoch.lengths()[0][:new], data.train.lengths()[0])


LIMITS = {"max_src_len": 64, "max_tgt_len": 64}


@pytest.mark.parametrize("text", ["data", "data:0", "data:1", "data:x", ":0.3", "data:-0.2"])
def test_a_bad_mix_is_one_clear_error(text: str) -> None:
    with pytest.raises(MtError, match="--mix must be BASE_PREPARED:FRACTION"):
        parse_mix(text)
    assert parse_mix("C:/data/x:0.3") == Mix(Path("C:/data/x"), 0.3)


@pytest.fixture(scope="module")
def pre_norm_run(trained_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny pre-norm run of 1+1 layers: a base that can grow deeper."""
    run = tmp_path_factory.mktemp("pre_norm") / "run"
    changes = {**TINY, "max_steps": 6, "pre_norm": True, "layers": 1}
    train_run(prepared=base_prepared(trained_run), out=run, preset="thesis-small", changes=changes)
    return run


def before_the_first_step(
    base_run: Path, domain: Path, out: Path, changes: dict, monkeypatch: pytest.MonkeyPatch
) -> dict[str, object]:
    """A grown run's weights and selection loss before it trains, and its base's loss."""
    seen: dict[str, object] = {}

    def stop_before_the_first_step(trainer: Trainer) -> str:
        seen["weights"] = {k: v.clone() for k, v in trainer.model.state_dict().items()}
        seen["loss"] = trainer.selection.score(trainer.model).loss
        seen["base_loss"] = trainer.selection.score(load_run(resolve(base_run)).model).loss
        return "stopped by the test"

    with monkeypatch.context() as patched:
        patched.setattr(Trainer, "train", stop_before_the_first_step)
        train_run(prepared=domain, out=out, init_from=base_run, changes=changes)
    return seen


def test_a_deeper_model_starts_as_its_base_and_learns(
    pre_norm_run: Path, domain: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deeper = {**TINY, "encoder_layers": 3, "decoder_layers": 2}
    seen = before_the_first_step(pre_norm_run, domain, tmp_path / "first", deeper, monkeypatch)
    base = load_run(resolve(pre_norm_run)).model.state_dict()
    weights = seen["weights"]
    assert {
        k for k in weights if k.startswith("encoder.2.")
    } and "decoder.1.feed_forward.3.bias" in weights
    assert all(torch.equal(weights[name], base[name]) for name in base)
    assert not weights["encoder.2.attention.out.weight"].any()
    assert weights["encoder.2.attention.qkv.weight"].any()  # drawn, so the zeros get gradients
    assert seen["loss"] == pytest.approx(seen["base_loss"], abs=1e-6)  # the new layers pass through

    run = tmp_path / "deep"
    summary = train_run(prepared=domain, out=run, init_from=pre_norm_run, changes=deeper)
    assert summary.steps == 4
    config = read_model_config(run)
    assert (config.encoder_depth, config.decoder_depth) == (3, 2)
    assert read_lineage(run)["init_from"]["layers"] == {"decoder": [1, 2], "encoder": [1, 3]}
    trained = load_run(resolve(run), checkpoint="last").model.state_dict()
    assert trained["encoder.2.attention.out.weight"].any(), "the new layer learned"


def test_a_wider_deeper_model_starts_as_its_base_and_learns(
    pre_norm_run: Path, domain: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base_config = read_model_config(pre_norm_run)
    student = {**TINY, "encoder_layers": 3, "ff": base_config.ff * 3}
    seen = before_the_first_step(pre_norm_run, domain, tmp_path / "first", student, monkeypatch)
    base = load_run(resolve(pre_norm_run)).model.state_dict()
    weights = seen["weights"]
    ff = base_config.ff
    first, second = "encoder.0.feed_forward.0.weight", "decoder.0.feed_forward.3.weight"
    assert weights[first].shape[0] == 3 * ff and torch.equal(weights[first][:ff], base[first])
    assert weights[first][ff:].any()  # drawn, so the zero columns get gradients
    assert torch.equal(weights[second][:, :ff], base[second]) and not weights[second][:, ff:].any()
    assert weights["encoder.2.feed_forward.0.weight"].shape[0] == 3 * ff
    assert seen["loss"] == pytest.approx(seen["base_loss"], abs=1e-5)  # the new units are silent

    run = tmp_path / "student"
    train_run(prepared=domain, out=run, init_from=pre_norm_run, changes=student)
    assert read_model_config(run).ff == 3 * ff
    assert read_lineage(run)["init_from"]["ff"] == [ff, 3 * ff]
    trained = load_run(resolve(run), checkpoint="last").model.state_dict()
    assert trained[second][:, ff:].any(), "the new units learned"


def test_perceptrons_only_grow_wider(pre_norm_run: Path, domain: Path, tmp_path: Path) -> None:
    ff = read_model_config(pre_norm_run).ff
    with pytest.raises(MtError, match=f"can widen the base's perceptrons of {ff}, not narrow"):
        train_run(
            prepared=domain, out=tmp_path / "a", init_from=pre_norm_run,
            changes={**TINY, "ff": ff // 2},
        )  # fmt: skip
    assert not (tmp_path / "a").exists()


def test_only_a_pre_norm_model_grows_and_never_shrinks(
    trained_run: Path, pre_norm_run: Path, domain: Path, tmp_path: Path
) -> None:
    with pytest.raises(MtError, match="only a pre-norm Transformer grows deeper"):
        train_run(
            prepared=domain, out=tmp_path / "a", init_from=trained_run,
            changes={**TINY, "encoder_layers": 4},
        )  # fmt: skip
    deep = tmp_path / "deep"
    train_run(
        prepared=domain, out=deep, init_from=pre_norm_run, changes={**TINY, "encoder_layers": 2}
    )
    with pytest.raises(MtError, match="can add layers to the base's encoder of 2, not remove them"):
        train_run(
            prepared=domain, out=tmp_path / "b", init_from=deep,
            changes={**TINY, "encoder_layers": 1},
        )  # fmt: skip
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
