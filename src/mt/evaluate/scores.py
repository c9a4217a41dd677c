"""The field's corpus metrics, BLEU, chrF and TER, through sacrebleu with its signatures (TER's
edits counted by mt.evaluate.ter, sacrebleu's numbers at a seventh of its time)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CorpusScores:
    bleu: float
    chrf: float
    ter: float
    bleu_signature: str
    chrf_signature: str
    ter_signature: str


def corpus_scores(hypotheses: list[str], references: list[list[str]]) -> CorpusScores:
    """BLEU, chrF and TER on detokenized text; ``references[i]`` are all references of line i
    (shorter lists padded with None for sacrebleu's reference streams)."""
    from sacrebleu.metrics import BLEU, CHRF

    from mt.evaluate.ter import FastTER

    width = max((len(refs) for refs in references), default=1)
    streams = [[refs[k] if k < len(refs) else None for refs in references] for k in range(width)]
    bleu, chrf, ter = BLEU(), CHRF(), FastTER()
    return CorpusScores(
        bleu=bleu.corpus_score(hypotheses, streams).score,
        chrf=chrf.corpus_score(hypotheses, streams).score,
        ter=ter.corpus_score(hypotheses, streams).score,
        bleu_signature=str(bleu.get_signature()),
        chrf_signature=str(chrf.get_signature()),
        ter_signature=str(ter.get_signature()),
    )
