"""The steps in their order, built once from a LoadedModel and TranslateOptions:
normalise -> segment -> first words -> glossary -> protect -> search -> keep the terms -> restore
-> judge."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from mt.decode.glossary import Glossary
from mt.decode.loaded import LoadedModel
from mt.decode.options import TranslateOptions
from mt.decode.results import Translation, total
from mt.decode.segment import Segmented
from mt.decode.steps.first_word import LowerFirstWords
from mt.decode.steps.judge import Judge
from mt.decode.steps.keep_terms import KeepTerms
from mt.decode.steps.mask import Mask
from mt.decode.steps.protect import ProtectSpans
from mt.decode.steps.search import Found, Search
from mt.decode.steps.segment import Segment
from mt.decode.steps.terms import PlaceTerms
from mt.quality.confidence import add_evidence
from mt.text.cleaning import without_surrogates
from mt.text.first_words import FirstWords


def _first_words(model: LoadedModel, options: TranslateOptions) -> FirstWords:
    """The model's first-word rule, for titles' every capitalised word too where asked."""
    return replace(model.first_words, titles=True) if options.titles else model.first_words


class Pipeline:
    def __init__(
        self,
        *,
        segment: Segment,
        first_words: LowerFirstWords,
        mask: Mask,
        search: Search,
        judge: Judge,
    ) -> None:
        self.segment = segment
        self.first_words = first_words
        self.mask = mask
        self.search = search
        self.keep_terms = KeepTerms(search, self.without_glossary)
        self.judge = judge

    @classmethod
    def build(cls, model: LoadedModel, options: TranslateOptions) -> Pipeline:
        """Each step from the options; the model directory's tables are read once (`model`)."""
        normalise = None
        if options.normalize and model.direction.english_source:  # casual English only
            normalise = options.normalizer if options.normalizer is not None else model.normalise
        spans = ProtectSpans(
            enabled=options.placeholders,
            span_tokens=model.span_tokens,
            protectable=options.protectable if options.protectable is not None else model.name_rule,
            keep=options.keep,
        )
        segment = Segment(
            model.run.source,
            limit=model.piece_len if options.split else model.max_src_len,
            split=options.split,
            normalise=normalise,
            span_tokens=options.placeholders and model.span_tokens,
            keep=options.keep,
            language=model.direction.source,
        )
        calibration = options.calibration
        english_source = model.direction.english_source  # the steps of English into Spanish
        lower_first = options.first_words and english_source
        return cls(
            segment=segment,
            first_words=LowerFirstWords(_first_words(model, options) if lower_first else None),
            mask=Mask(PlaceTerms(model.term_stand_ins), spans),
            search=Search(model, options.decode),
            judge=Judge(
                calibration if calibration is not None else model.calibration,
                english_source=model.direction.english_source,
                check_language=options.check_language,
            ),
        )

    def apply(
        self, lines: Sequence[str], glossaries: Sequence[Glossary | None]
    ) -> list[Translation]:
        """Lines with a glossary are first translated without it: where that has every term's
        Spanish it is kept, so a model that knows the terms keeps its own phrasing."""
        lines, glossaries = list(lines), list(glossaries)
        # Only lines that hold a term: for the others the plain translation is the answer.
        asked = {
            i: (glossary, len(found))
            for i, (line, glossary) in enumerate(zip(lines, glossaries, strict=True))
            if glossary is not None and (found := glossary.find(line))
        }
        if not asked:
            return self._translate(lines, glossaries)
        results = self.without_glossary(lines)
        forced = []
        for i, (glossary, found) in asked.items():
            kept = self.mask.terms.already_there(lines[i], results[i], glossary, found)
            if kept is None:
                forced.append(i)
            else:
                results[i] = kept
        redone = self._translate([lines[i] for i in forced], [glossaries[i] for i in forced])
        for i, translation in zip(forced, redone, strict=True):
            # the first translation's search still counts
            results[i] = replace(translation, counts=results[i].counts + translation.counts)
        return results

    def without_glossary(self, lines: list[str]) -> list[Translation]:
        return self._translate(lines, [None] * len(lines))

    def _translate(self, lines: list[str], glossaries: list[Glossary | None]) -> list[Translation]:
        lines = [without_surrogates(line) for line in lines]
        cuts = [self.segment.apply(line) for line in lines]
        starts = [self.first_words.apply(cut) for cut in cuts]
        masked = [
            self.mask.apply(piece, glossary)
            for (pieces, _), glossary in zip(starts, glossaries, strict=True)
            for piece in pieces
        ]
        lowered = [flag for _, flags in starts for flag in flags]
        found = self.search.apply([m.text for m in masked])
        found, masked = self.keep_terms.apply(found, masked)
        restored = iter(
            [
                self.first_words.reverse(self.mask.reverse(f, m), low)
                for f, m, low in zip(found, masked, lowered, strict=True)
            ]
        )
        return [
            self._line(line, cut, [next(restored) for _ in cut.pieces])
            for line, cut in zip(lines, cuts, strict=True)
        ]

    def _line(self, line: str, cut: Segmented, pieces: list[Found]) -> Translation:
        """A line's Translation from its pieces', judged."""
        hypotheses = self.segment.reverse(cut, [piece.hypotheses for piece in pieces])
        evidence = add_evidence([piece.evidence for piece in pieces if piece.evidence is not None])
        counts = total(pieces)
        return self.judge.apply(
            line, hypotheses, pieces=len(cut.pieces), evidence=evidence, counts=counts
        )
