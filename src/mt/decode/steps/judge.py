"""The judge step: a translated line's confidence (mt.quality.confidence) and flags."""

from __future__ import annotations

from dataclasses import dataclass

from mt.decode.results import Alternatives, Counts, Translation
from mt.quality.confidence import Calibration, Evidence, Uncalibrated
from mt.quality.flags import flags_for


@dataclass(frozen=True)
class Judge:
    calibration: Calibration | Uncalibrated
    english_source: bool = True  # the copy and not_english flags read English (mt.quality.flags)
    check_language: bool = True  # TranslateOptions.check_language

    def apply(
        self,
        line: str,
        hypotheses: Alternatives,
        *,
        pieces: int,
        evidence: Evidence | None,
        counts: Counts,
    ) -> Translation:
        text = hypotheses[0][0] if hypotheses else ""
        cut = evidence is not None and evidence.cut
        return Translation(
            line,
            hypotheses,
            pieces,
            evidence=evidence,
            confidence=self.calibration.confidence(evidence),
            flags=flags_for(
                line,
                text,
                cut=cut,
                english_source=self.english_source,
                check_language=self.check_language,
            ),
            counts=counts,
        )
