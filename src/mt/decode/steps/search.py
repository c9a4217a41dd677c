"""The search step: pieces cleaned, encoded, batched by length and searched by the model's engine
(PyTorch or CTranslate2, mt.decode.engine); what the search saw of each best hypothesis kept as
evidence for the confidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mt.config import DecodeConfig
from mt.data.tokenization import EOS, UNK, encode_sources, source_ids
from mt.decode.hypotheses import Hypothesis, length_limit
from mt.decode.loaded import LoadedModel
from mt.decode.results import Alternatives, Counts
from mt.errors import MtError
from mt.quality.confidence import Evidence
from mt.text.cleaning import clean_text

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class Found:
    """One piece's hypotheses (detokenized, best first), the best one's evidence, the counts."""

    hypotheses: Alternatives
    evidence: Evidence | None = None
    counts: Counts = field(default_factory=Counts)

    @property
    def text(self) -> str:
        return self.hypotheses[0][0] if self.hypotheses else ""


class Search:
    """Searches with `config` (another config per call where a step needs a wider beam)."""

    def __init__(self, model: LoadedModel, config: DecodeConfig) -> None:
        self.model = model
        self.config = config
        self.engine = model.engine(config.precision)

    def apply(self, texts: list[str], config: DecodeConfig | None = None) -> list[Found]:
        """Each text's hypotheses, in order; a text empty after cleaning has none. Texts are
        sorted by length into batches so that each batch is dense."""
        config = config or self.config
        run = self.model.run
        cleaned = [clean_text(text) for text in texts]
        sources = source_ids(run.source.encode_batch(cleaned), self.model.max_src_len)
        results = [Found(()) for _ in texts]
        order = sorted((i for i, text in enumerate(cleaned) if text), key=lambda i: len(sources[i]))
        for start in range(0, len(order), config.batch_size):
            rows = order[start : start + config.batch_size]
            found = self.engine.search([sources[i] for i in rows], config)
            for row, hyps in zip(rows, found, strict=True):
                if not hyps:
                    continue
                results[row] = Found(
                    tuple((run.target.decode(h.tokens), h.score) for h in hyps),
                    evidence=self._evidence(sources[row], hyps[0], config),
                    counts=Counts(decoded_tokens=len(hyps[0].tokens) + 1),
                )
        return results

    def _evidence(self, source: list[int], best: Hypothesis, config: DecodeConfig) -> Evidence:
        """`source` ends in [EOS]; the limit is the search's, so reaching it means a cut."""
        limit = length_limit(
            len(source), config.max_len_a, config.max_len_b, self.model.run.config.max_positions
        )
        return Evidence(
            log_prob=best.log_prob,
            target_labels=len(best.tokens) + 1,
            source_pieces=len(source) - 1,
            unknown_pieces=source.count(UNK),
            cut=len(best.tokens) >= limit,
        )

    def attention(self, sentence: str) -> tuple[list[str], list[str], torch.Tensor]:
        """Source pieces, target pieces and the (target, source) cross-attention of the best
        translation, averaged over the heads of the last decoder layer."""
        import torch

        from mt.decode.engine import attention_engine

        run, device = self.model.run, self.model.device
        engine = attention_engine(run, device)
        if engine is None:
            raise MtError("--attention needs a Transformer: this model has no cross-attention")
        encoded = [run.source.encode(clean_text(sentence))]
        source_ids = encode_sources(encoded, self.model.max_src_len)
        best = self.engine.search(source_ids, self.config)[0][0]
        weights = torch.from_numpy(engine.attention([source_ids[0]], [best.tokens])[0])
        source_pieces = [run.source.id_to_piece(int(i)) for i in source_ids[0]]
        target_pieces = [run.target.id_to_piece(int(i)) for i in (*best.tokens, EOS)]
        return source_pieces, target_pieces, weights
