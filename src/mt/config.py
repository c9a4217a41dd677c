"""Frozen configurations for model, training and decoding: the only home of defaults and presets.

Each config validates itself in ``__post_init__`` and round-trips through plain dicts, so it can be
stored as JSON inside a run directory and a model rebuilds from its files alone.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, fields
from typing import Any, Literal, Self

from mt.errors import MtError


class ConfigError(MtError, ValueError):
    """An option or stored configuration that cannot be used; the message names it."""


def check(condition: bool, message: str) -> None:
    """A ConfigError with `message` unless `condition` holds."""
    if not condition:
        raise ConfigError(message)


def flag(name: str) -> str:
    """The option that sets the field `name`: --max-len-a for max_len_a."""
    return "--" + name.replace("_", "-")


def _positive(config: object, *names: str) -> None:
    for name in names:
        value = getattr(config, name)
        check(value > 0, f"{flag(name)} must be positive, got {value}")


def _not_negative(config: object, *names: str) -> None:
    for name in names:
        value = getattr(config, name)
        check(value >= 0, f"{flag(name)} must be >= 0, got {value}")


class _DictMixin:
    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        unknown = sorted(set(data) - known)
        check(not unknown, f"{cls.__name__}: unknown field(s) {', '.join(unknown)}")
        return cls(**data)


Arch = Literal["transformer", "rnn"]


@dataclass(frozen=True)
class ModelConfig(_DictMixin):
    """Architecture of one model; the vocabulary sizes come from the prepared tokenizers."""

    src_vocab: int
    tgt_vocab: int
    arch: Arch = "transformer"
    d_model: int = 256
    ff: int = 512
    heads: int = 8
    layers: int = 2  # each stack's depth, unless the stack's own count below is given
    encoder_layers: int | None = None  # None: `layers`
    decoder_layers: int | None = None  # None: `layers`
    dropout: float = 0.1
    pre_norm: bool = False
    tie_embeddings: bool = False
    max_positions: int = 512
    # recurrent baseline only
    cell: Literal["lstm", "gru"] = "lstm"
    attention: Literal["bahdanau", "luong"] = "bahdanau"

    @property
    def encoder_depth(self) -> int:
        return self.layers if self.encoder_layers is None else self.encoder_layers

    @property
    def decoder_depth(self) -> int:
        return self.layers if self.decoder_layers is None else self.decoder_layers

    def to_dict(self) -> dict[str, Any]:
        """As stored in model.json: the stacks' own depths only where they differ."""
        data = super().to_dict()
        return {k: v for k, v in data.items() if k not in DEPTHS or v is not None}

    def __post_init__(self) -> None:
        check(self.arch in ("transformer", "rnn"), f"unknown architecture {self.arch!r}")
        check(self.src_vocab > 4 and self.tgt_vocab > 4, "vocabularies need more than 4 labels")
        _positive(self, "d_model", "ff", "heads", "layers")
        self._settle_depths()
        if self.arch == "transformer":
            check(
                self.d_model % self.heads == 0,
                f"--d-model {self.d_model} is not divisible by --heads {self.heads}",
            )
        check(0.0 <= self.dropout < 1.0, f"--dropout must be in [0, 1), got {self.dropout}")
        check(
            not self.tie_embeddings or self.src_vocab == self.tgt_vocab,
            "tied embeddings need a shared vocabulary (prepare with --shared-vocab N)",
        )
        check(self.cell in ("lstm", "gru"), f"unknown --cell {self.cell!r}")
        check(self.attention in ("bahdanau", "luong"), f"unknown --attention {self.attention!r}")

    def _settle_depths(self) -> None:
        """One spelling per shape, so two configs of one shape compare equal however they were
        given: equal stacks are `layers` alone (`--encoder-layers 3 --decoder-layers 3` is stored
        as `--layers 3` is), unequal ones both counts with `layers` the encoder's (6+2 from a
        2-layer preset and 6+2 grown from a 6-layer base are one config). The recurrent baseline
        has one depth for both stacks."""
        _positive(self, *(name for name in DEPTHS if getattr(self, name) is not None))
        encoder, decoder = self.encoder_depth, self.decoder_depth
        check(
            self.arch != "rnn" or encoder == decoder,
            f"--arch rnn has one depth for both stacks (--layers), not {encoder}+{decoder}",
        )
        same = encoder == decoder
        object.__setattr__(self, "layers", encoder)  # frozen: settled once, while built
        object.__setattr__(self, "encoder_layers", None if same else encoder)
        object.__setattr__(self, "decoder_layers", None if same else decoder)


DEPTHS = ("encoder_layers", "decoder_layers")
"""The two stacks' own depths, each None where it is `layers`."""


@dataclass(frozen=True)
class ModelShape:
    """A model config without its vocabulary sizes: what a preset and the model options set."""

    d_model: int
    ff: int
    heads: int
    layers: int
    encoder_layers: int | None = None
    decoder_layers: int | None = None
    arch: Arch = "transformer"
    pre_norm: bool = False
    tie_embeddings: bool = False
    dropout: float = 0.1
    cell: Literal["lstm", "gru"] = "lstm"
    attention: Literal["bahdanau", "luong"] = "bahdanau"

    def with_vocabularies(self, src_vocab: int, tgt_vocab: int) -> ModelConfig:
        return ModelConfig(src_vocab=src_vocab, tgt_vocab=tgt_vocab, **dataclasses.asdict(self))


PRESETS: dict[str, ModelShape] = {
    # The reference thesis: post-norm, separate embeddings, untied output projection.
    "thesis-small": ModelShape(d_model=64, ff=128, heads=4, layers=1),
    "thesis-medium": ModelShape(d_model=128, ff=256, heads=4, layers=2),
    "thesis-large": ModelShape(d_model=256, ff=512, heads=8, layers=2),
    # Recurrent baselines (mt.model.rnn: d_model = embedding size, ff = hidden size) within 1% of
    # parameters of thesis-small / thesis-large with the 4,562 / 6,134 vocabularies.
    "rnn-small": ModelShape(d_model=64, ff=56, heads=1, layers=1, arch="rnn"),
    "rnn-large": ModelShape(d_model=264, ff=256, heads=1, layers=1, arch="rnn"),
}


NOISE_KINDS = ("lower", "punctuation", "apostrophes", "typos")
"""What --source-noise may do to a chosen source (mt.data.feed.noise says how)."""


@dataclass(frozen=True)
class TrainConfig(_DictMixin):
    """How to train; defaults follow the thesis where it is explicit."""

    lr: float = 0.001
    warmup: int = 4000
    lr_decay: Literal["rsqrt", "budget", "auto"] = "rsqrt"  # budget: linear to 0 at the budget's
    # end; auto: budget when --time-budget or --max-steps is given, else rsqrt
    beta1: float = 0.9
    beta2: float = 0.999
    batch_size: int = 64
    batch_tokens: int = 0  # 0: batches of batch_size sentences; else about this many target tokens
    label_smoothing: float = 0.0
    max_src_len: int = 56
    max_tgt_len: int = 53
    accuracy_goal: float = 0.90
    max_epochs: int = 1000
    max_steps: int = 0  # 0: no limit
    time_budget: float = 0.0  # seconds, 0: no limit
    patience: int = 0  # epochs without selection-loss improvement, 0: no limit
    eval_every: int = 0  # steps between extra selection evaluations, 0: once per epoch
    eval_sample: int = 0  # pairs those extra evaluations score (0: all); see mt.train.selection
    clip_norm: float = 0.0  # 0: no clipping
    grad_accum: int = 1
    precision: Literal["auto", "fp32", "bf16", "fp16"] = "auto"  # auto: mt.model.precision decides
    compile: bool = False
    average_last: int = 0  # average this many last evaluation snapshots into the final weights
    skip_nonfinite: int = 0
    source_noise: float = 0.0  # share of sources made casual each epoch (mt.data.feed.noise)
    source_noise_kinds: str = "lower,punctuation"  # how: mt.data.feed.noise.KINDS, comma-separated
    placeholders: float | None = None  # share of pairs with shared spans given placeholder
    # tokens each epoch (mt.text.spans); None: PLACEHOLDER_RATE when the tokenizers have them
    seed: int = 0

    @property
    def has_budget(self) -> bool:
        """A step or time limit known in advance (other stops are decided as training goes)."""
        return bool(self.max_steps or self.time_budget)

    @property
    def decays_to_budget(self) -> bool:
        """Whether the rate falls to 0 at the end of the step or time budget (--lr-decay)."""
        return self.lr_decay == "budget" or (self.lr_decay == "auto" and self.has_budget)

    def __post_init__(self) -> None:
        _positive(self, "lr", "warmup", "batch_size", "max_epochs", "grad_accum")
        _not_negative(self, "batch_tokens", "max_steps", "time_budget", "patience", "eval_every")
        _not_negative(self, "eval_sample", "clip_norm", "average_last", "skip_nonfinite")
        check(
            self.lr_decay in ("rsqrt", "budget", "auto"),
            f"unknown --lr-decay {self.lr_decay!r} (rsqrt, budget or auto)",
        )
        check(
            self.lr_decay != "budget" or self.has_budget,
            "--lr-decay budget needs --time-budget or --max-steps: the budget it decays to",
        )
        check(0 <= self.beta1 < 1 and 0 <= self.beta2 < 1, "--beta1/--beta2 must be in [0, 1)")
        check(
            0 <= self.label_smoothing < 1,
            f"--label-smoothing must be in [0, 1), got {self.label_smoothing}",
        )
        check(self.max_src_len >= 3, f"--max-src-len must be >= 3, got {self.max_src_len}")
        check(self.max_tgt_len >= 3, f"--max-tgt-len must be >= 3, got {self.max_tgt_len}")
        check(
            0 < self.accuracy_goal <= 1,
            f"--accuracy-goal must be in (0, 1], got {self.accuracy_goal}",
        )
        check(
            self.precision in ("auto", "fp32", "bf16", "fp16"),
            f"unknown --precision {self.precision!r}",
        )
        check(
            0 <= self.source_noise <= 1,
            f"--source-noise must be in [0, 1], got {self.source_noise}",
        )
        kinds = {kind.strip() for kind in self.source_noise_kinds.split(",")} - {""}
        check(
            bool(kinds) and kinds <= set(NOISE_KINDS),
            f"--source-noise-kinds must be some of {', '.join(NOISE_KINDS)}, comma-separated;"
            f" got {self.source_noise_kinds!r}",
        )
        check(
            self.placeholders is None or 0 <= self.placeholders <= 1,
            f"--placeholders must be in [0, 1], got {self.placeholders}",
        )


@dataclass(frozen=True)
class Recipe:
    """A named bundle of model shape and training settings; `default` is what `mt train` uses."""

    shape: ModelShape
    train: TrainConfig


THESIS_TRAIN = TrainConfig()
RNN_CLIP_NORM = 1.0
"""Recurrent models train with the gradient norm clipped (exploding gradients); `--arch rnn`
gets it unless the recipe or --clip-norm says otherwise."""

RECIPES: dict[str, Recipe] = {
    **{
        name: Recipe(
            shape,
            dataclasses.replace(THESIS_TRAIN, clip_norm=RNN_CLIP_NORM)
            if shape.arch == "rnn"
            else THESIS_TRAIN,
        )
        for name, shape in PRESETS.items()
    },
    # Chosen by measurement on the selection part (docs/recipe.md, docs/text.md): small batches
    # give a CPU the most updates per second; 30% casual sources cost clean input nothing.
    "default": Recipe(
        ModelShape(d_model=256, ff=512, heads=8, layers=2, pre_norm=True, dropout=0.1),
        TrainConfig(
            lr=0.05,
            warmup=800,
            batch_size=64,
            label_smoothing=0.1,
            max_src_len=64,
            max_tgt_len=64,
            accuracy_goal=1.0,
            patience=5,
            average_last=3,
            lr_decay="auto",
            eval_sample=3000,
            source_noise=0.3,
            source_noise_kinds="lower,punctuation,apostrophes,typos",
        ),
    ),
}
# A few minutes of training see the training part once or twice: nothing to overfit yet, so
# dropout, label smoothing and source noise only slow learning (measured in docs/recipe.md).
RECIPES["quick"] = Recipe(
    dataclasses.replace(RECIPES["default"].shape, dropout=0.0),
    dataclasses.replace(RECIPES["default"].train, label_smoothing=0.0, source_noise=0.0),
)


NORMALIZE_INPUT = True
"""Whether `translate`, `evaluate` and `serve` normalise casual input before translating it
(mt.text.normalize; docs/text.md has the measurements that chose it)."""


@dataclass(frozen=True)
class DecodeConfig(_DictMixin):
    """Search settings shared by `translate` and `evaluate`."""

    beam_size: int = 5
    n_best: int = 1
    length_penalty: float | None = None
    """GNMT α. None: the model's own (its decode.json, chosen on its dev part), else 0, which the
    selection part chose for the Tatoeba recipe (docs/recipe.md); mt.decode.translator fills it
    in."""
    max_len_a: float = 1.5
    max_len_b: int = 10
    batch_size: int = 64
    precision: str = "auto"  # auto: bf16 where a probe on this machine finds it faster (PyTorch)
    sampling_topk: int = 1
    """1: no sampling (greedy or beam search); k > 1: each label drawn from the k likeliest; 0:
    from the whole distribution (CTranslate2's convention). Sampling needs beam_size 1."""
    sampling_temperature: float = 1.0  # the logits are divided by it before drawing
    seed: int = 0  # of the draws: the same seed and batch give the same translations

    def __post_init__(self) -> None:
        _positive(self, "beam_size", "sampling_temperature", "batch_size")
        _not_negative(self, "sampling_topk", "max_len_a")
        check(
            self.sampling_topk == 1 or self.beam_size == 1,
            f"sampling (--sampling-topk {self.sampling_topk}) needs --beam-size 1",
        )
        check(
            0 < self.n_best <= self.beam_size,
            f"--n-best must be between 1 and --beam-size ({self.beam_size}), got {self.n_best}",
        )
        check(
            self.length_penalty is None or self.length_penalty >= 0,
            f"--length-penalty must be >= 0, got {self.length_penalty}",
        )
        check(self.max_len_b >= 1, f"--max-len-b must be >= 1, got {self.max_len_b}")
        check(
            self.precision in ("auto", "fp32", "bf16"),
            f"--precision must be auto, fp32 or bf16, got {self.precision!r}",
        )

    @property
    def alpha(self) -> float:
        """The length penalty searched with: 0 where no model filled it in."""
        return self.length_penalty or 0.0


DECODE = DecodeConfig()
"""The defaults of `mt translate`, `mt evaluate` and `mt serve`."""


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")
_UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> float:
    """Seconds in `90`, `90s`, `30m`, `1.5h`; a clear error for anything else."""
    match = _DURATION.match(text)
    check(match is not None, f"cannot read duration {text!r} (use e.g. 90s, 30m, 2h)")
    assert match is not None
    return float(match.group(1)) * _UNIT_SECONDS[match.group(2)]


_RESERVED = 20  # labels no text decides: [PAD] [UNK] [BOS] [EOS] and ｟1｠…｟16｠


@dataclass(frozen=True)
class PrepareConfig(_DictMixin):
    """`mt prepare`'s settings: the split, the tokenizers, and the filters (words and ratios on raw
    text while reading; `max_length` on word-pieces, once the tokenizers exist)."""

    split: tuple[float, float, float] = (0.6, 0.2, 0.2)  # train, selection, test
    seed: int = 0  # of the split and the tokenizers' sample
    max_selection: int = 25_000
    """Pairs at most in the selection and in the test part: the 119k corpus's 20% parts (23,843
    and 23,754 pairs) stay whole, and on millions of pairs evaluation during training stays
    cheap."""
    max_test: int = 25_000
    src_vocab: int = 4562  # the thesis' vocabularies
    tgt_vocab: int = 6134
    shared_vocab: int = 0  # one joint vocabulary of this size (0: off)
    tokenizer_sample: int = 1_000_000
    """Training pairs the tokenizers learn from; WordPiece statistics settle long before that."""
    max_words: int = 0  # a side of more words than this leaves (0: no limit)
    max_ratio: float = 0.0  # word counts differing by more than this factor (0: off)
    drop_identical: bool = False  # both sides the same text (untranslated copies)
    max_length: int = 0  # a side of more word-pieces than this leaves (0: no limit)
    strict: bool = False  # stop at the first bad line
    paragraphs: Literal["auto", "all", "none"] = "auto"
    """Which corpora's pairs are cut into sentence pairs where both sides have as many sentences:
    auto, those of translator files (.po, TMX, XLIFF: documentation paragraphs); all; none."""
    extend_vocab: bool = True
    """With --tokenizers-from: append the placeholders and the characters the run's vocabulary
    cannot spell (mt.data.prepare.vocab_growth); False copies the run's tokenizers byte for byte."""
    min_char_count: int = 5  # a character is added when the training text has it this often
    sampling_temperature: float = 1.0
    """Each corpus's training pairs repeated so that its share goes as size^(1/T)
    (mt.data.prepare.upsampling); 1 keeps the corpora as they are."""
    reverse: bool = False
    """Spanish→English: the same inputs, Spanish as the source (mt.catalog.direction)."""
    synthetic_share: float = 0.5
    """At most this share of the training pairs comes from --synthetic (back-translated) files;
    the rest of them leave (mt.data.prepare.synthetic)."""

    def __post_init__(self) -> None:
        check(
            0 < self.synthetic_share <= 1,
            f"--synthetic-share must be in (0, 1], got {self.synthetic_share}",
        )
        check(
            len(self.split) == 3
            and all(f > 0 for f in self.split)
            and abs(sum(self.split) - 1) < 1e-6,
            f"--split needs three positive fractions that sum to 1, got {self.split}",
        )
        # 4 special labels and the 16 placeholders (mt.data.tokenization.RESERVED) are inside
        # the size asked for, so a model's vocabulary is the number its user gave.
        for name, size in (("--src-vocab", self.src_vocab), ("--tgt-vocab", self.tgt_vocab)):
            check(
                size > _RESERVED or bool(self.shared_vocab),
                f"{name} must be more than {_RESERVED}, got {size}",
            )
        check(
            self.shared_vocab == 0 or self.shared_vocab > _RESERVED,
            f"--shared-vocab must be more than {_RESERVED} (or 0 for none), "
            f"got {self.shared_vocab}",
        )
        check(
            self.sampling_temperature >= 1,
            f"--sampling-temperature must be 1 (corpora as they are) or more, "
            f"got {self.sampling_temperature}",
        )
        for name, what in (
            ("min_char_count", "number"),
            ("max_selection", "number of pairs"),
            ("max_test", "number of pairs"),
            ("tokenizer_sample", "number of pairs"),
        ):
            value = getattr(self, name)
            check(value > 0, f"{flag(name)} must be a positive {what}, got {value}")
        check(
            self.max_length >= 0,
            f"--max-length must be 0 (none) or a positive number of labels, got {self.max_length}",
        )
        check(
            self.paragraphs in ("auto", "all", "none"),
            f"--paragraphs must be auto, all or none, got {self.paragraphs!r}",
        )


PREPARE = PrepareConfig()
"""The defaults of `mt prepare`, as DECODE is of `mt translate`."""
