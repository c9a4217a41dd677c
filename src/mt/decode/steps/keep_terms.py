"""Keep every glossary term in the output, after the search: where the best hypothesis lost a
stand-in, the best one that holds them all, among the n-best or those of a beam search at least
5 wide; where none does, or a term had no stand-in, the text around the terms translated stretch
by stretch (mt.decode.glossary.split_at_terms)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from mt.decode.glossary import holds_all, inner, join_around, needs_translation, split_at_terms
from mt.decode.results import Counts, TermCounts, Translation, total
from mt.decode.steps.mask import Masked
from mt.decode.steps.search import Found, Search

WIDE_BEAM = 5
"""The beam of the second search for a piece whose best hypothesis lost a stand-in."""


@dataclass(frozen=True)
class KeepTerms:
    """`translate`: the whole pipeline without a glossary, for the stretches between terms."""

    search: Search
    translate: Callable[[list[str]], list[Translation]]

    def apply(self, found: list[Found], masked: list[Masked]) -> tuple[list[Found], list[Masked]]:
        found, masked = self._search_again(list(found), masked), list(masked)
        around = [
            i
            for i, m in enumerate(masked)
            if m.unplaced or (m.terms and not holds_all(found[i].text, m.terms))
        ]
        for i, (text, counts) in zip(
            around, self._around([masked[i] for i in around]), strict=True
        ):
            # already whole: its stretches were protected and restored on their own
            extra = counts + Counts(terms=TermCounts(translated_around=1))
            found[i] = replace(
                found[i],
                hypotheses=((text, found[i].hypotheses[0][1]),),
                counts=found[i].counts + extra,
            )
            masked[i] = replace(masked[i], text=text, slots=(), terms=())
        return found, masked

    def _search_again(self, found: list[Found], masked: list[Masked]) -> list[Found]:
        again = [
            i for i, m in enumerate(masked) if m.terms and not holds_all(found[i].text, m.terms)
        ]
        if not again:
            return found
        wide = max(self.search.config.beam_size, WIDE_BEAM)
        config = replace(self.search.config, beam_size=wide, n_best=wide)
        retried = self.search.apply([masked[i].text for i in again], config)
        for i, extra in zip(again, retried, strict=True):
            hyps = found[i].hypotheses
            keep = [h for h in hyps + extra.hypotheses if holds_all(h[0], masked[i].terms)]
            counts = found[i].counts + extra.counts + Counts(terms=TermCounts(searched_again=1))
            found[i] = replace(
                found[i], hypotheses=(keep[0], *hyps[1:]) if keep else hyps, counts=counts
            )
        return found

    def _around(self, masked: list[Masked]) -> list[tuple[str, Counts]]:
        """Each piece translated around its terms, the terms between, and what that took."""
        if not masked:
            return []
        plans = [split_at_terms(m.original, m.glossary) for m in masked]  # type: ignore[arg-type]
        wanted = [inner(s) for stretches, _ in plans for s in stretches if needs_translation(s)]
        done = iter(self.translate(wanted))
        joined = []
        for stretches, spanish in plans:
            parts = [next(done) for s in stretches if needs_translation(s)]
            joined.append((join_around(stretches, [t.text for t in parts], spanish), total(parts)))
        return joined
