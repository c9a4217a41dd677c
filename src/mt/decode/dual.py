"""The reverse model as a judge: how well a Spanish→English run recovers the English source from
a translation (dual conditional cross-entropy, Junczys-Dowmunt 2018).

`ReverseScorer` opens a reverse run or its export and gives, for each (English source, Spanish
translation), the teacher-forced mean log-prob of the source's labels ([EOS] included) given the
translation: the length-normalised log P_reverse(source | translation). Together with the forward
search's own mean log-prob (mt.quality.confidence.Evidence) it makes the dual score
(mt.quality.confidence.dual_conditional_cross_entropy): a translation that says something else,
or leaves something out, is one the reverse model cannot read the source back from.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from mt.catalog.modelinfo import ModelInfo
from mt.data.feed.batching import pad
from mt.data.tokenization import BOS, EOS, PAD, encode_sources
from mt.decode.ct2_engine import ExportedRun
from mt.decode.engine import open_run
from mt.errors import MtError
from mt.model.devices import resolve_device
from mt.model.rundir import LoadedRun
from mt.text.cleaning import clean_text

BATCH = 64


class ReverseScorer:
    """A Spanish→English run or export, scoring English sources given Spanish translations."""

    def __init__(self, info: ModelInfo, *, device: str = "cpu", threads: int | None = None):
        if not info.direction.reverse:
            raise MtError(
                f"{info.label} translates English→Spanish; the dual score needs a Spanish→English "
                "run or export (mt prepare --reverse, then mt train)"
            )
        self.device = resolve_device(device)
        self.run: LoadedRun | ExportedRun = open_run(info, device=self.device, threads=threads)
        self.max_len = self.run.config.max_positions - 1

    def mean_log_probs(self, english: Sequence[str], spanish: Sequence[str]) -> list[float]:
        """log P(english[i] | spanish[i]) / its labels ([EOS] included), for every i."""
        if len(english) != len(spanish):
            raise MtError(f"{len(english)} sources but {len(spanish)} translations")
        sources = encode_sources(
            self.run.source.encode_batch([clean_text(t) for t in spanish]), self.max_len
        )
        targets = [ids[: self.max_len - 1] for ids in self.run.target.encode_batch(english)]
        scores: list[float] = []
        for start in range(0, len(sources), BATCH):
            rows = slice(start, start + BATCH)
            scores += self._batch(sources[rows], targets[rows])
        return scores

    def _batch(self, sources: list[np.ndarray], targets: list[list[int]]) -> list[float]:
        if isinstance(self.run, ExportedRun):
            return _ct2_scores(self.run, sources, targets)
        return _torch_scores(self.run.model, sources, targets, self.device)


@torch.inference_mode()
def _torch_scores(
    model: torch.nn.Module,
    sources: list[np.ndarray],
    targets: list[list[int]],
    device: torch.device,
) -> list[float]:
    src = pad(sources).to(device)
    src_mask = src != PAD
    tgt = pad([np.asarray([BOS, *ids, EOS], dtype=np.int64) for ids in targets]).to(device)
    tgt_in, tgt_out = tgt[:, :-1], tgt[:, 1:]  # (B, T)
    logits = model.decode(tgt_in, model.encode(src, src_mask), src_mask)  # (B, T, V)
    picked = torch.log_softmax(logits.float(), dim=-1).gather(2, tgt_out.unsqueeze(2)).squeeze(2)
    real = tgt_out != PAD
    return ((picked * real).sum(1) / real.sum(1)).tolist()


def _ct2_scores(
    run: ExportedRun, sources: list[np.ndarray], targets: list[list[int]]
) -> list[float]:
    """CTranslate2's score_batch: the log-prob of each target label, [EOS] included."""
    source_tokens = [[run.source.id_to_piece(int(i)) for i in ids] for ids in sources]
    target_tokens = [[run.target.id_to_piece(i) for i in ids] for ids in targets]
    results = run.engine.translator.score_batch(source_tokens, target_tokens, max_input_length=0)
    return [sum(r.log_probs) / max(len(r.log_probs), 1) for r in results]
