"""The library's door: what `import mt` promises (mt.translate, mt.load, mt.models and the error
family), as one caller of the same pipeline the command uses.

A reference is resolved here, once, and its ModelInfo goes down (mt.catalog.modelinfo); the engine
is the one `mt translate` would choose (a shipped model's int8 CTranslate2 copy on a CPU, an
export's CTranslate2 model, else PyTorch). Problems are MtError with the command's one-line
messages: nothing here prints or exits.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

from mt.catalog.modelinfo import DEFAULT_MODEL, ModelInfo, local_models, resolve, shipped_names
from mt.config import DECODE, NORMALIZE_INPUT, DecodeConfig
from mt.errors import MtError

if TYPE_CHECKING:
    from mt.decode.glossary import Glossary
    from mt.decode.results import Translation
    from mt.decode.translator import Translator as Pipeline

GlossaryLike = Path | str | Mapping[str, str]
"""A TSV file of english<TAB>spanish terms (its path), or the terms themselves."""
KeepLike = Path | str | Sequence[str]
"""A file of names to copy exactly, one a line (its path), or the names themselves."""
DOCUMENT_FORMATS = ("text", "html", "markdown", "po", "srt", "vtt")


@dataclass(frozen=True)
class ModelEntry:
    """One model `mt.load` can open: `name` is what it takes."""

    name: str
    kind: Literal["shipped", "run", "export"]
    direction: str  # "en→es"
    summary: str
    path: Path
    default: bool = False


@dataclass(frozen=True)
class Scored:
    """A translation with what `mt translate --json` says of it (docs/trust.md): `confidence`,
    `flags`, and with n_best the `alternatives` (text, score)."""

    text: str
    confidence: float | None
    flags: tuple[str, ...]
    alternatives: tuple[tuple[str, float], ...]


def models(under: Path | str | None = None) -> list[ModelEntry]:
    """The shipped models, then the runs and exports directly inside `under` (if given)."""
    entries = []
    for name in shipped_names():
        info = resolve(name)
        entries.append(
            ModelEntry(
                name=name,
                kind="shipped",
                direction=info.direction.label,
                summary=str(info.card.get("summary", "")),
                path=info.directory,
                default=name == DEFAULT_MODEL,
            )
        )
    for info in local_models(Path(under)) if under is not None else []:
        shape = info.config
        equal = shape.encoder_depth == shape.decoder_depth
        layers = shape.layers if equal else f"{shape.encoder_depth}+{shape.decoder_depth}"
        summary = f"{shape.arch}, d {shape.d_model}, {layers} layers"
        if info.lineage.get("init_from"):
            summary += f", fine-tuned from {info.lineage['init_from'].get('run')}"
        entries.append(
            ModelEntry(
                name=str(info.directory),
                kind=info.kind,
                direction=info.direction.label,
                summary=summary,
                path=info.directory,
            )
        )
    return entries


class Translator:
    """A model opened once, for many calls and threads; options given to a call apply to that call
    only, and the model is never reloaded."""

    def __init__(self, pipeline: Pipeline) -> None:
        self._pipeline = pipeline
        self._lock = threading.Lock()  # builds a call's variant; translating runs unlocked

    @property
    def model(self) -> ModelInfo:
        """What was loaded: its name or directory (`label`), direction, settings and card."""
        return self._pipeline.run.info

    @property
    def engine(self) -> str:
        """What searches: "ctranslate2 int8 copy" or "export", or "pytorch" and its precision."""
        from mt.decode.ct2_engine import ExportedRun

        if isinstance(self._pipeline.run, ExportedRun):
            return f"ctranslate2 {'export' if self.model.kind == 'export' else 'int8 copy'}"
        return f"pytorch, {self._pipeline.precision_reason}"

    @overload
    def translate(
        self,
        text: str,
        *,
        beam_size: int | None = None,
        glossary: GlossaryLike | None = None,
        keep: KeepLike | None = None,
        normalize: bool | None = None,
    ) -> str: ...
    @overload
    def translate(
        self,
        text: Sequence[str],
        *,
        beam_size: int | None = None,
        glossary: GlossaryLike | None = None,
        keep: KeepLike | None = None,
        normalize: bool | None = None,
    ) -> list[str]: ...
    def translate(
        self,
        text: str | Sequence[str],
        *,
        beam_size: int | None = None,
        glossary: GlossaryLike | None = None,
        keep: KeepLike | None = None,
        normalize: bool | None = None,
    ) -> str | list[str]:
        """Spanish for `text`, line by line: a string gives a string, a list a list in order. A
        line with several sentences is split and joined back with its spacing."""
        lines = _lines(text)
        variant = self._variant(
            beam_size=beam_size, glossary=glossary, keep=keep, normalize=normalize
        )
        found = [t.text for t in variant.translate(lines)]
        return found[0] if isinstance(text, str) else found

    @overload
    def scored(self, text: str, *, n_best: int = 1, beam_size: int | None = None) -> Scored: ...
    @overload
    def scored(
        self, text: Sequence[str], *, n_best: int = 1, beam_size: int | None = None
    ) -> list[Scored]: ...
    def scored(
        self, text: str | Sequence[str], *, n_best: int = 1, beam_size: int | None = None
    ) -> Scored | list[Scored]:
        """Like translate, each with its confidence, flags and the `n_best` alternatives."""
        lines = _lines(text)
        variant = self._variant(beam_size=beam_size, n_best=n_best, check_language=True)
        found = [_scored(t) for t in variant.translate(lines)]
        return found[0] if isinstance(text, str) else found

    def translate_document(
        self,
        content: str | bytes,
        *,
        format: str,  # noqa: A002 - the word users know (`mt translate --format`)
        overwrite: bool = False,
        glossary: GlossaryLike | None = None,
    ) -> str:
        """A whole document (html, markdown, po, srt, vtt or text) translated with its markup kept
        (docs/documents.md); `overwrite` retranslates a .po file's translated entries too."""
        from mt.decode.documents.document import translate_document
        from mt.decode.documents.formats import format_named, read_document

        form = format_named(format, None)
        data = content.encode("utf-8") if isinstance(content, str) else content
        bom, document = read_document(data, form, name=f"<{form} document>", overwrite=overwrite)
        return bom + translate_document(document, self._variant(glossary=glossary))

    def _variant(
        self,
        *,
        beam_size: int | None = None,
        n_best: int = 1,
        glossary: GlossaryLike | None = None,
        keep: KeepLike | None = None,
        normalize: bool | None = None,
        check_language: bool = False,
    ) -> Pipeline:
        """The loaded pipeline, or one built on the same model for this call's options."""
        base = self._pipeline.options
        decode = base.decode
        if beam_size is not None or n_best != decode.n_best:
            beam = beam_size if beam_size is not None else max(decode.beam_size, n_best)
            decode = dataclasses.replace(decode, beam_size=beam, n_best=n_best)
        changes = {
            "decode": decode,
            "glossary": base.glossary if glossary is None else _glossary(glossary),
            "keep": base.keep if keep is None else _keep(keep),
            "normalize": base.normalize if normalize is None else normalize,
            "check_language": check_language,
        }
        if all(getattr(base, field) == value for field, value in changes.items()):
            return self._pipeline
        with self._lock:
            return self._pipeline.with_options(dataclasses.replace(base, **changes))


def load(
    model: str | Path | None = None,
    *,
    beam_size: int = DECODE.beam_size,
    length_penalty: float | None = None,
    normalize: bool = NORMALIZE_INPUT,
    glossary: GlossaryLike | None = None,
    keep: KeepLike | None = None,
    dictionary: Path | str | None = None,
    cognates: bool | None = None,
    first_words: bool | None = None,
    titles: bool | None = None,
    split: bool = True,
    device: str = "auto",
    threads: int | None = None,
    precision: str = DECODE.precision,
) -> Translator:
    """A Translator for `model` (a shipped model's name, a run or export directory; None: the
    shipped model) on the engine `mt translate` would choose; the options are every call's
    defaults, as `mt translate`'s (docs/api.md); None: as the model's decode.json says."""
    from mt.decode.options import TranslateOptions
    from mt.decode.unseen import read_dictionary
    from mt.export.int8_copy import open_with_copy, searched_copy

    if threads is not None and threads < 1:
        raise MtError(f"threads must be positive, got {threads}")
    options = TranslateOptions(
        decode=DecodeConfig(
            beam_size=beam_size, length_penalty=length_penalty, precision=precision
        ),
        split=split,
        normalize=normalize,
        keep=() if keep is None else _keep(keep),
        glossary=None if glossary is None else _glossary(glossary),
        dictionary=None if dictionary is None else read_dictionary(Path(dictionary)),
        cognates=cognates,
        first_words=first_words,
        titles=titles,
        check_language=False,  # only `scored` shows flags; it turns the check on
    )
    info = resolve(model)
    copy = searched_copy(
        info, precision=precision, device=device, checkpoint="best", compute_type="default"
    )
    return Translator(open_with_copy(info, options, copy=copy, device=device, threads=threads))


_loaded: dict[str, Translator] = {}
"""mt.translate's Translators, by the model reference they were loaded for."""
_loading = threading.Lock()


@overload
def translate(
    text: str,
    *,
    model: str | Path | None = None,
    beam_size: int | None = None,
    glossary: GlossaryLike | None = None,
    keep: KeepLike | None = None,
    normalize: bool | None = None,
) -> str: ...
@overload
def translate(
    text: Sequence[str],
    *,
    model: str | Path | None = None,
    beam_size: int | None = None,
    glossary: GlossaryLike | None = None,
    keep: KeepLike | None = None,
    normalize: bool | None = None,
) -> list[str]: ...
def translate(
    text: str | Sequence[str],
    *,
    model: str | Path | None = None,
    beam_size: int | None = None,
    glossary: GlossaryLike | None = None,
    keep: KeepLike | None = None,
    normalize: bool | None = None,
) -> str | list[str]:
    """Spanish for `text` (a string gives a string, a list a list) with `model`, the shipped one
    by default, loaded on the first call and kept (`mt.load` for your own Translator)."""
    _lines(text)  # a wrong type is told before a model loads
    key = str(model or DEFAULT_MODEL)
    with _loading:
        if key not in _loaded:
            _loaded[key] = load(model)
        translator = _loaded[key]
    return translator.translate(
        text, beam_size=beam_size, glossary=glossary, keep=keep, normalize=normalize
    )


def _lines(text: str | Sequence[str]) -> list[str]:
    """The lines of `text`, or an MtError naming the type given and what is taken: a string, or
    a list (any iterable) of strings; bytes are no text until decoded."""
    if isinstance(text, str):
        return [text]
    if isinstance(text, bytes | bytearray | memoryview):
        raise MtError(
            f"text: expected a string or a list of strings, got {type(text).__name__}; "
            "decode it first (text.decode('utf-8'))"
        )
    if not isinstance(text, Iterable):
        raise MtError(f"text: expected a string or a list of strings, got {type(text).__name__}")
    lines = list(text)
    for number, line in enumerate(lines, 1):
        if not isinstance(line, str):
            raise MtError(f"text {number}: expected a string, got {type(line).__name__}")
    return lines


def _glossary(glossary: GlossaryLike) -> Glossary:
    from mt.decode.glossary import glossary_from_pairs, read_glossary

    if isinstance(glossary, Mapping):
        return glossary_from_pairs(list(glossary.items()), "glossary")
    return read_glossary(Path(glossary))


def _keep(keep: KeepLike) -> tuple[str, ...]:
    from mt.text.spans import read_keep

    if isinstance(keep, str | Path):
        return read_keep(Path(keep))
    names = tuple(keep)
    for number, name in enumerate(names, 1):
        if not isinstance(name, str) or not name.strip():
            raise MtError(f"keep {number}: expected a non-empty name, got {name!r}")
    return names


def _scored(translation: Translation) -> Scored:
    return Scored(
        text=translation.text,
        confidence=translation.confidence,
        flags=translation.flags,
        alternatives=translation.hypotheses,
    )


__all__ = ["DOCUMENT_FORMATS", "ModelEntry", "Scored", "Translator", "load", "models", "translate"]
