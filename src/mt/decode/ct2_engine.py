"""Search an exported model with `ctranslate2.Translator`, keeping mt.decode.search's semantics.

How mt's search maps onto CTranslate2's (read mt.decode.search first):

- Banned labels: mt bans [PAD] and [BOS] without renormalising; CTranslate2's suppression
  renormalises. So the search runs without suppression (a trained model never chooses them),
  and a sentence whose result holds one is searched again with them suppressed and rescored
  with `score_batch`, which gives unrenormalised log-probs.
- Length: mt emits at most floor(a * S + b) labels per sentence, then forces [EOS]; CTranslate2
  has one limit per batch and stops without [EOS]. So a batch is searched to its largest limit
  and a sentence past its own is redone (greedy output cut, beam search run again to that
  limit keeping every finished hypothesis); a cut hypothesis gets its [EOS] log-prob from
  `score_batch`. With alpha > 0 the batch's finished hypotheses stand for a sentence only when
  all ended before its limit; n-best lists split the batch by limit.
- Score: mt divides the log-prob (with [EOS]) by GNMT's ((5 + n) / 6) ** alpha, CTranslate2 by
  n ** alpha, so scores are recomputed from log-probs. With alpha = 0 CTranslate2's early exit
  gives mt's best hypothesis; an n-best list is mt's only if the search goes on to the limit
  keeping every finished hypothesis (what `--n-best` above 1 costs). With alpha > 0 both
  stopping rules are heuristics and can differ.
- Attention: the export keeps the last decoder layer's cross-attention averaged over its heads
  (mt.export.converter), asked for with the translation as the target prefix (teacher-forced).
- Sampling: CTranslate2's workers seed their generators when the model is loaded
  (ctranslate2.set_random_seed), so `config.seed` does not apply per call.
- Teacher forcing: `score_batch` gives the reference labels' log-probs ([EOS] included), so the
  cross-entropy is mt's; accuracy is not available from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from mt.catalog.modelinfo import ModelInfo, OpenedModel
from mt.config import DecodeConfig, ModelConfig, TrainConfig
from mt.data.tokenization import BOS, PAD, SPECIAL_TOKENS, WordPieceCodec
from mt.decode.hypotheses import Hypothesis, gnmt_penalty, length_limit
from mt.errors import MtError
from mt.runtime.cpus import physical_cores
from mt.storage.files import CT2_MODEL

if TYPE_CHECKING:  # neither torch nor numpy is imported to translate with an export
    import numpy as np

    from mt.data.feed.batching import EncodedPairs

_PAD, _, _BOS, _EOS = SPECIAL_TOKENS
SCORE_BATCH = 64
MAX_BATCH = 32
"""Sentences a CTranslate2 worker searches at a time: small sub-batches keep every worker busy."""

INSTALL_HINT = "pip install 'ctranslate2>=4.5' (or `make setup`, which installs mt's dependencies)"


def require_ctranslate2(purpose: str) -> ModuleType:
    """The ctranslate2 module, or one line saying what to install; imported only when needed."""
    try:
        import ctranslate2
    except ImportError:
        raise MtError(f"{purpose} needs the ctranslate2 package: {INSTALL_HINT}", 1) from None
    return ctranslate2


@dataclass(frozen=True)
class TeacherForced:
    loss: float
    accuracy: float | None = None  # score_batch gives the reference's log-probs only


@dataclass(frozen=True)
class _Found:
    """A hypothesis as CTranslate2 gave it: ids without [EOS], whether it ended so, its log-prob."""

    tokens: tuple[int, ...]
    ended: bool
    log_prob: float

    @property
    def banned(self) -> bool:
        return PAD in self.tokens or BOS in self.tokens


class Ct2Engine:
    """Greedy and beam search through a loaded `ctranslate2.Translator`."""

    def __init__(self, translator, config: ModelConfig, source: list[str], target: list[str]):
        self.translator = translator
        self.max_positions = config.max_positions
        self.source_pieces = source
        self.target_pieces = target
        self.target_ids = {piece: i for i, piece in enumerate(target)}

    def search(
        self, sources: Sequence[Sequence[int]], config: DecodeConfig
    ) -> list[list[Hypothesis]]:
        limits = [self._limit(len(ids), config) for ids in sources]
        if config.n_best == 1 and min(limits) > 0:
            return self._search_batch(sources, limits, config)
        found: list[list[Hypothesis]] = [[] for _ in sources]
        groups: dict[int, list[int]] = {}
        for row, limit in enumerate(limits):
            groups.setdefault(limit, []).append(row)
        for limit, rows in groups.items():
            tokens = [self._source_tokens(sources[row]) for row in rows]
            for row, hyps in zip(rows, self._search_group(tokens, limit, config), strict=True):
                found[row] = hyps
        return found

    def _search_batch(
        self, sources: Sequence[Sequence[int]], limits: list[int], config: DecodeConfig
    ) -> list[list[Hypothesis]]:
        """One best hypothesis each, in one call to the batch's largest limit: a result within its
        own limit stands (with a length penalty, only where all finished ones did), a longer
        greedy one is cut, a longer beam one searched again."""
        tokens = [self._source_tokens(ids) for ids in sources]
        greedy = config.beam_size == 1
        penalised = not greedy and config.alpha > 0  # the beam's finished ones, for GNMT's rank
        results = self._translate(
            tokens, config, limit=max(limits), num_hypotheses=None if penalised else 1
        )
        ranked = []
        for source, limit, found in zip(tokens, limits, results, strict=True):
            best = found[0]
            if penalised:  # the search stopped before the limit: one to the limit stops alike
                within = all(hyp.ended and len(hyp.tokens) < limit for hyp in found)
            else:
                within = len(best.tokens) < limit or (len(best.tokens) == limit and best.ended)
            if any(hyp.banned for hyp in found) or not (within or greedy):
                ranked.append(self._search_group([source], limit, config)[0])
            elif not within:
                ranked.append(self._rank([_Found(best.tokens[:limit], False, 0.0)], source, config))
            else:
                ranked.append(self._rank(found, source, config))
        return ranked

    def _limit(self, source_length: int, config: DecodeConfig) -> int:
        """mt.decode.search.max_lengths for one sentence: labels it may emit before [EOS]."""
        return length_limit(source_length, config.max_len_a, config.max_len_b, self.max_positions)

    def _source_tokens(self, ids: Sequence[int]) -> list[str]:
        return [self.source_pieces[i] for i in _ints(ids)]

    def _search_group(
        self, sources: list[list[str]], limit: int, config: DecodeConfig
    ) -> list[list[Hypothesis]]:
        """Sentences that share one length limit."""
        if limit == 0:  # nothing may be emitted: every translation is [EOS] alone
            return [self._rank([_Found((), False, 0.0)], src, config) for src in sources]
        greedy = config.beam_size == 1
        plain = config.alpha == 0
        # With alpha = 0 one best hypothesis lets CTranslate2 stop as soon as it is final; an
        # n-best list is mt's only if the search goes on to the limit (see the module notes).
        exhaustive = not greedy and plain and config.n_best > 1
        results = self._translate(
            sources,
            config,
            limit=limit,
            num_hypotheses=1 if greedy or (plain and not exhaustive) else None,
            exhaustive=exhaustive,
        )
        ranked = []
        for source, found in zip(sources, results, strict=True):
            if any(hyp.banned for hyp in found):
                again = self._translate(
                    [source], config, limit=limit, exhaustive=not greedy, suppress=True
                )[0]
                found = [
                    _Found(hyp.tokens, True, log_prob)
                    for hyp, log_prob in zip(again, self._exact(again, source), strict=True)
                ]
            elif not greedy and not exhaustive and not all(hyp.ended for hyp in found):
                found = self._translate([source], config, limit=limit, exhaustive=True)[0]
            ranked.append(self._rank(found, source, config))
        return ranked

    def _translate(
        self,
        sources: list[list[str]],
        config: DecodeConfig,
        *,
        limit: int,
        num_hypotheses: int | None = None,
        exhaustive: bool = False,
        suppress: bool = False,
    ) -> list[list[_Found]]:
        beam = config.beam_size
        # Greedy choices do not depend on the penalty: ask for plain log-probs.
        alpha = 0.0 if beam == 1 else config.alpha
        # Searching to the limit and keeping everything: room for `beam` finished per step.
        patience = limit + 1 if exhaustive else 1
        results = self.translator.translate_batch(
            sources,
            beam_size=beam,
            patience=patience,
            num_hypotheses=num_hypotheses or beam * patience,
            length_penalty=alpha,
            max_decoding_length=limit,
            min_decoding_length=0,
            max_input_length=0,
            max_batch_size=MAX_BATCH,
            suppress_sequences=[[_PAD], [_BOS]] if suppress else None,
            sampling_topk=config.sampling_topk,
            sampling_temperature=config.sampling_temperature,
            return_scores=True,
            return_end_token=True,
        )
        return [
            [
                self._found(tokens, score, alpha)
                for tokens, score in zip(r.hypotheses, r.scores, strict=True)
            ]
            for r in results
        ]

    def _found(self, pieces: list[str], score: float, alpha: float) -> _Found:
        ended = bool(pieces) and pieces[-1] == _EOS
        tokens = tuple(self.target_ids[p] for p in (pieces[:-1] if ended else pieces))
        # CTranslate2's score is log_prob / length ** alpha, length counting the [EOS] it has.
        log_prob = score * len(pieces) ** alpha if alpha else score
        return _Found(tokens, ended, log_prob)

    def _rank(
        self, found: list[_Found], source: list[str], config: DecodeConfig
    ) -> list[Hypothesis]:
        """mt's hypotheses: [EOS] added where the limit cut one off, GNMT scores, best first."""
        cut = [hyp for hyp in found if not hyp.ended]
        completed = dict(zip(map(id, cut), self._exact(cut, source), strict=True))
        hyps = []
        for hyp in found:
            log_prob = completed.get(id(hyp), hyp.log_prob)
            penalty = gnmt_penalty(len(hyp.tokens) + 1, config.alpha)
            hyps.append(Hypothesis(hyp.tokens, log_prob / penalty, log_prob))
        hyps.sort(key=lambda hyp: -hyp.score)  # stable: CTranslate2's order breaks ties
        return hyps[: config.n_best]

    def _exact(self, hyps: list[_Found], source: list[str]) -> list[float]:
        """Unrenormalised log-probs of `hyps` with [EOS] appended, in one teacher-forced pass."""
        if not hyps:
            return []
        targets = [[self.target_pieces[i] for i in hyp.tokens] for hyp in hyps]
        scored = self.translator.score_batch([source] * len(hyps), targets, max_input_length=0)
        return [sum(result.log_probs) for result in scored]

    def attention(
        self, sources: list[np.ndarray], targets: list[Sequence[int]]
    ) -> list[np.ndarray]:
        """mt.decode.engine.AttentionEngine: one step past the longest target is decoded freely
        (the row that predicts [EOS]); rows after a target's own are cut off."""
        if not sources:
            return []
        prefixes = [[self.target_pieces[i] for i in target] for target in targets]
        results = self.translator.translate_batch(
            [self._source_tokens(ids) for ids in sources],
            target_prefix=prefixes,
            beam_size=1,
            max_decoding_length=max(len(prefix) for prefix in prefixes) + 1,
            min_decoding_length=0,
            max_input_length=0,
            max_batch_size=MAX_BATCH,
            return_attention=True,
            return_end_token=True,
        )
        import numpy as np

        return [
            np.asarray(result.attention[0], dtype=np.float32)[: len(target) + 1, : len(source)]
            for result, source, target in zip(results, sources, targets, strict=True)
        ]

    def teacher_forced(self, data: EncodedPairs, train_config: TrainConfig) -> TeacherForced:
        """Mean negative log-prob of every reference label after [BOS], [EOS] included."""
        del train_config  # the pairs are already cut to its lengths
        sources = [self._source_tokens(src) for src in data.src]
        targets = [[self.target_pieces[i] for i in tgt[1:-1].tolist()] for tgt in data.tgt]
        results = self.translator.score_batch(
            sources, targets, max_batch_size=SCORE_BATCH, max_input_length=0
        )
        total = sum(sum(r.log_probs) for r in results)
        count = sum(len(r.log_probs) for r in results)
        return TeacherForced(loss=-total / count if count else float("nan"))


@dataclass
class ExportedRun(OpenedModel):
    """What a Translator needs of a run, for an exported directory (compare rundir.LoadedRun)."""

    info: ModelInfo
    source: WordPieceCodec
    target: WordPieceCodec
    engine: Ct2Engine

    @property
    def model(self) -> None:
        raise MtError(
            f"{self.directory} is a CTranslate2 export: it has no PyTorch model; its engine "
            "gives attention (mt.decode.engine.attention_engine), or use the run directory"
        )


def export_device(name: str) -> str:
    """`--device auto|cpu|cuda` for CTranslate2, decided without importing torch."""
    ctranslate2 = require_ctranslate2("an `mt export` directory")
    cuda = ctranslate2.get_cuda_device_count() > 0
    if name == "auto":
        return "cuda" if cuda else "cpu"
    if name.startswith("cuda") and not cuda:
        raise MtError("--device cuda: no CUDA device is available (use --device cpu or auto)")
    if name not in ("cpu", "cuda"):
        raise MtError(f"--device for an export must be auto, cpu or cuda, got {name!r}")
    return name


class CannotLoad(MtError):
    """CTranslate2 refused a model's files: `where` names what to mend, an export's directory or
    a shipped model's int8 copy (which mt.export.int8_copy makes again)."""

    def __init__(self, where: Path, *, reason: str) -> None:
        super().__init__(f"{where}: CTranslate2 cannot load it ({reason})")
        self.where = where
        self.reason = reason


def open_exported(
    info: ModelInfo,
    *,
    device: str,
    threads: int | None,
    compute_type: str,
    ct2_model: Path | None = None,
) -> ExportedRun:
    """Load an export on `device` with `threads` CPU threads (default: one a physical core), or
    `ct2_model`, a CTranslate2 copy of the run `info`, with the run's tokenizers and tables."""
    if info.kind != "export" and ct2_model is None:
        raise MtError(f"{info.label}: not an `mt export` directory (a run: open it with load_run)")
    directory = info.directory
    ctranslate2 = require_ctranslate2(f"{directory} (a CTranslate2 export)")
    config = info.config
    source = WordPieceCodec.load(info.source_tokenizer)
    target = WordPieceCodec.load(info.target_tokenizer)
    workers = threads or physical_cores()
    # On a CPU one single-threaded worker a core, each on its own sub-batches: a small model's
    # matrices are too small to share between threads (1.8x the sentences/s: docs/performance.md).
    cpu = device == "cpu"
    try:
        translator = ctranslate2.Translator(
            str(ct2_model or directory / CT2_MODEL),
            device=device,
            compute_type=compute_type,
            inter_threads=workers if cpu else 1,
            intra_threads=1 if cpu else workers,
        )
    except RuntimeError as error:  # its files: truncated, garbled, missing
        raise CannotLoad(ct2_model or directory, reason=str(error)) from None
    except ValueError as error:  # the options: a compute type this machine lacks
        raise MtError(f"{ct2_model or directory}: CTranslate2 cannot load it ({error})") from None
    pieces = ([codec.id_to_piece(i) for i in range(codec.vocab_size)] for codec in (source, target))
    engine = Ct2Engine(translator, config, *pieces)
    return ExportedRun(info, source, target, engine)


def _ints(ids: Sequence[int]) -> list[int]:
    """A row of ids as Python ints (an array row through one tolist call)."""
    return ids.tolist() if hasattr(ids, "tolist") else list(ids)
