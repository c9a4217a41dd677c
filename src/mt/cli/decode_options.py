"""The decode options of `mt translate`, `evaluate`, `serve` and `calibrate`, declared once
(DecodeFlags, read by Typer through `@takes_decode_flags(...)`), and what turns them into the
frozen TranslateOptions and a Translator.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, get_type_hints

import typer

from mt.cli.common import Command, Opt, say, takes
from mt.config import DECODE, NORMALIZE_INPUT, DecodeConfig

if TYPE_CHECKING:
    from mt.catalog.modelinfo import ModelInfo
    from mt.decode.options import TranslateOptions
    from mt.decode.translator import Translator

SEARCH = "Decoding"
MODEL = "Model"

_MODEL_HELP = (
    "A shipped model's name (`mt models`), a run directory of `mt train` or an `mt export`; "
    "default: the shipped model."
)
ModelArgument = Annotated[str | None, typer.Argument(help=_MODEL_HELP, show_default=False)]
"""The model of a command that takes no text (evaluate, serve, calibrate, export)."""
ModelOption = Annotated[
    str | None, Opt("--model", "-m", help=_MODEL_HELP, rich_help_panel=MODEL, show_default=False)
]
"""The model of `mt translate`, whose arguments are all text: a sentence that names a
directory is still a sentence."""
Checkpoint = Annotated[
    str, Opt(help="best (lowest selection loss) or last.", rich_help_panel=MODEL)
]


@dataclass(frozen=True)
class DecodeFlags:
    """The decode options the commands share, declared once: `takes_decode_flags` puts those a
    command takes where its `decoding` parameter stands (Typer reads them from these fields, in
    this order) and hands them to it as one DecodeFlags; those it does not take keep these
    defaults, DecodeConfig's."""

    beam_size: Annotated[
        int, Opt("--beam-size", "-b", help="Beam width; 1 = greedy search.", rich_help_panel=SEARCH)
    ] = DECODE.beam_size
    length_penalty: Annotated[
        float | None,
        Opt(
            help="GNMT length penalty α (0 = none). Default: the model's (a shipped model's was "
            "chosen on its dev part: `mt models`), else 0.",
            show_default=False,
            rich_help_panel=SEARCH,
        ),
    ] = DECODE.length_penalty
    max_len_a: Annotated[
        float,
        Opt("--max-len-a", help="Output length limit a·source_length + b.", rich_help_panel=SEARCH),
    ] = DECODE.max_len_a
    max_len_b: Annotated[
        int,
        Opt("--max-len-b", help="Output length limit a·source_length + b.", rich_help_panel=SEARCH),
    ] = DECODE.max_len_b
    batch_size: Annotated[
        int, Opt("--batch-size", help="Sentences decoded together.", rich_help_panel=SEARCH)
    ] = DECODE.batch_size
    checkpoint: Checkpoint = "best"
    device: Annotated[str, Opt(help="auto, cpu or cuda.", rich_help_panel=MODEL)] = "auto"
    threads: Annotated[
        int | None,
        Opt(help="CPU threads (torch, or CTranslate2 for an export).", rich_help_panel=MODEL),
    ] = None
    compute_type: Annotated[
        str,
        Opt(
            help="For an `mt export`: default (as exported), int8, int8_float32, int16, float32.",
            rich_help_panel=MODEL,
        ),
    ] = "default"
    precision: Annotated[
        str,
        Opt(
            help="auto (the shipped model: its int8 CTranslate2 copy on a CPU; a run: bf16 where "
            "a probe finds it faster here), or PyTorch in fp32 or bf16.",
            rich_help_panel=SEARCH,
        ),
    ] = DECODE.precision
    keep: Annotated[
        Path | None,
        Opt(
            "--keep",
            help="File of names (one a line) copied exactly, like URLs, code and numbers; needs a "
            "model trained with placeholder tokens.",
            rich_help_panel=SEARCH,
        ),
    ] = None
    normalize: Annotated[
        bool,
        Opt(
            "--normalize/--no-normalize",
            help="Make casual input look like the training English first: capitals, apostrophes, "
            "final punctuation (docs/text.md).",
            rich_help_panel=SEARCH,
        ),
    ] = NORMALIZE_INPUT
    glossary: Annotated[
        Path | None,
        Opt(
            "--glossary",
            help="TSV of english<TAB>spanish terms the output must use (docs/text.md#glossaries).",
            rich_help_panel=SEARCH,
        ),
    ] = None
    dictionary: Annotated[
        Path | None,
        Opt(
            "--dictionary",
            help="Bilingual dictionary in Wiktionary's format (../shared/data/lexicon): its nouns "
            "for the words the model's training never had (docs/general.md).",
            rich_help_panel=SEARCH,
        ),
    ] = None
    cognates: Annotated[
        bool | None,
        Opt(
            "--cognates/--no-cognates",
            help="Give a noun the model's training never had its Spanish cognate (-ity -idad, "
            "-tion -ción, docs/general.md); default: the model's own choice.",
            rich_help_panel=SEARCH,
            show_default=False,
        ),
    ] = None
    first_words: Annotated[
        bool | None,
        Opt(
            "--first-words/--no-first-words",
            help="Give the model a sentence's first word in lower case where it knows it better "
            '("Happy birthday!", docs/general.md); default: the model\'s own choice.',
            rich_help_panel=SEARCH,
            show_default=False,
        ),
    ] = None
    titles: Annotated[
        bool | None,
        Opt(
            "--titles/--no-titles",
            help='With first words: a line in title case ("Banks Want to Solve Crisis") gets each '
            "capitalised word in the spelling the model knows (docs/general.md); default: its own.",
            rich_help_panel=SEARCH,
            show_default=False,
        ),
    ] = None

    def search(self, n_best: int = 1) -> DecodeConfig:
        """The search options, checked."""
        return DecodeConfig(
            beam_size=self.beam_size,
            n_best=n_best,
            length_penalty=self.length_penalty,
            max_len_a=self.max_len_a,
            max_len_b=self.max_len_b,
            batch_size=self.batch_size,
            precision=self.precision,
        )

    def options(
        self, search: DecodeConfig, *, split: bool = True, check_language: bool = True
    ) -> TranslateOptions:
        """What every command that translates turns its options into: the search and the text
        options, with the --keep, --glossary and --dictionary files read, so that bad input
        stops here, before the model loads."""
        from mt.decode.glossary import read_glossary
        from mt.decode.options import TranslateOptions
        from mt.decode.unseen import read_dictionary
        from mt.text.spans import read_keep

        return TranslateOptions(
            decode=search,
            split=split,
            normalize=self.normalize,
            keep=() if self.keep is None else read_keep(self.keep),
            glossary=None if self.glossary is None else read_glossary(self.glossary),
            dictionary=None if self.dictionary is None else read_dictionary(self.dictionary),
            cognates=self.cognates,
            first_words=self.first_words,
            titles=self.titles,
            check_language=check_language,
        )

    def engine(self, info: ModelInfo) -> Path | None:
        """The int8 copy these options leave the search to, if any (default_engine)."""
        return default_engine(
            info,
            precision=self.precision,
            device=self.device,
            checkpoint=self.checkpoint,
            compute_type=self.compute_type,
        )

    def open(self, info: ModelInfo, options: TranslateOptions) -> Translator:
        """The Translator `mt translate` and `mt evaluate` search with: a shipped model's int8
        copy where the options leave the engine to mt (default_engine), made again once when
        CTranslate2 cannot load it (mt.export.int8_copy.open_with_copy), else the run or export
        itself."""
        from mt.export.int8_copy import open_with_copy

        return open_with_copy(
            info,
            options,
            copy=self.engine(info),
            device=self.device,
            checkpoint=self.checkpoint,
            threads=self.threads,
            compute_type=self.compute_type,
        )


def takes_decode_flags(*names: str) -> Callable[[Command], Command]:
    """The command also takes the DecodeFlags fields `names` (none named: all of them) as
    options, where its parameter `decoding` stands, and gets them there as one DecodeFlags."""
    hints = get_type_hints(DecodeFlags, include_extras=True)
    taken = [f for f in fields(DecodeFlags) if not names or f.name in names]
    if unknown := set(names) - {f.name for f in taken}:
        raise ValueError(f"not DecodeFlags fields: {sorted(unknown)}")
    keyword = inspect.Parameter.KEYWORD_ONLY
    options = [inspect.Parameter(f.name, keyword, default=f.default, annotation=hints[f.name])
               for f in taken]  # fmt: skip
    return takes(options, into="decoding", build=DecodeFlags)


def default_engine(
    info: ModelInfo, *, precision: str, device: str, checkpoint: str, compute_type: str
) -> Path | None:
    """mt.export.int8_copy.searched_copy, saying so when the copy was made now (once)."""
    from mt.export.int8_copy import COPY, searched_copy

    made = info.read_only and not (info.writable_directory / COPY).is_dir()
    started = time.perf_counter()
    copy = searched_copy(
        info, precision=precision, device=device, checkpoint=checkpoint, compute_type=compute_type
    )
    if copy is not None and made:
        say(
            f"{info.label}: made its int8 CTranslate2 copy in {copy} "
            f"({time.perf_counter() - started:.1f} s, once)"
        )
    return copy
