"""The decode options of `mt translate`, `mt evaluate`, `mt serve` and `mt calibrate`, declared
once, and the one function that turns them into the frozen TranslateOptions.

Each command lists the options it takes (Typer reads a command's parameters); their types, help
and help panel are these, and their defaults are DecodeConfig's, so each is spelled once.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mt.cli.common import Opt, say
from mt.config import NORMALIZE_INPUT, DecodeConfig

if TYPE_CHECKING:
    from mt.decode.options import TranslateOptions
    from mt.decode.translator import Translator
    from mt.modelinfo import ModelInfo

SEARCH = "Decoding"
MODEL = "Model"

BeamSize = Annotated[
    int, Opt("--beam-size", "-b", help="Beam width; 1 = greedy search.", rich_help_panel=SEARCH)
]
LengthPenalty = Annotated[
    float | None,
    Opt(
        help="GNMT length penalty α (0 = none). Default: the model's (a shipped model's was "
        "chosen on its dev part: `mt models`), else 0.",
        show_default=False,
        rich_help_panel=SEARCH,
    ),
]
MaxLenA = Annotated[
    float,
    Opt("--max-len-a", help="Output length limit a·source_length + b.", rich_help_panel=SEARCH),
]
MaxLenB = Annotated[
    int,
    Opt("--max-len-b", help="Output length limit a·source_length + b.", rich_help_panel=SEARCH),
]
BatchSize = Annotated[
    int, Opt("--batch-size", help="Sentences decoded together.", rich_help_panel=SEARCH)
]
Precision = Annotated[
    str,
    Opt(
        help="auto (the shipped model: its int8 CTranslate2 copy on a CPU; a run: bf16 where "
        "a probe finds it faster here), or PyTorch in fp32 or bf16.",
        rich_help_panel=SEARCH,
    ),
]
Normalize = Annotated[
    bool,
    Opt(
        "--normalize/--no-normalize",
        help="Make casual input look like the training English first: capitals, apostrophes, "
        "final punctuation (docs/text.md).",
        rich_help_panel=SEARCH,
    ),
]
Keep = Annotated[
    Path | None,
    Opt(
        "--keep",
        help="File of names (one a line) copied exactly, like URLs, code and numbers; needs a "
        "model trained with placeholder tokens.",
        rich_help_panel=SEARCH,
    ),
]
GlossaryFile = Annotated[
    Path | None,
    Opt(
        "--glossary",
        help="TSV of english<TAB>spanish terms the output must use (docs/text.md#glossaries).",
        rich_help_panel=SEARCH,
    ),
]
DictionaryFile = Annotated[
    Path | None,
    Opt(
        "--dictionary",
        help="Bilingual dictionary in Wiktionary's format (../shared/data/lexicon): its nouns "
        "for the words the model's training never had (docs/general.md).",
        rich_help_panel=SEARCH,
    ),
]
Cognates = Annotated[
    bool | None,
    Opt(
        "--cognates/--no-cognates",
        help="Give a noun the model's training never had its Spanish cognate (-ity -idad, "
        "-tion -ción, docs/general.md); default: the model's own choice.",
        rich_help_panel=SEARCH,
        show_default=False,
    ),
]
FirstWordsSwitch = Annotated[
    bool | None,
    Opt(
        "--first-words/--no-first-words",
        help="Give the model a sentence's first word in lower case where it knows that spelling "
        'better ("Happy birthday!", docs/general.md); default: the model\'s own choice.',
        rich_help_panel=SEARCH,
        show_default=False,
    ),
]
TitlesSwitch = Annotated[
    bool | None,
    Opt(
        "--titles/--no-titles",
        help='With first words: a line in title case ("Banks Want to Solve Crisis") gets each '
        "capitalised word in the spelling the model knows (docs/general.md); default: the "
        "model's own choice.",
        rich_help_panel=SEARCH,
        show_default=False,
    ),
]
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
Device = Annotated[str, Opt(help="auto, cpu or cuda.", rich_help_panel=MODEL)]
Threads = Annotated[
    int | None,
    Opt(help="CPU threads (torch, or CTranslate2 for an export).", rich_help_panel=MODEL),
]
ComputeType = Annotated[
    str,
    Opt(
        help="For an `mt export`: default (as exported), int8, int8_float32, int16, float32.",
        rich_help_panel=MODEL,
    ),
]


def decode_config(
    beam_size: int,
    n_best: int,
    length_penalty: float | None,
    max_len_a: float,
    max_len_b: int,
    batch_size: int,
    precision: str,
) -> DecodeConfig:
    """The search options, in DecodeConfig's order, checked."""
    return DecodeConfig(
        beam_size=beam_size,
        n_best=n_best,
        length_penalty=length_penalty,
        max_len_a=max_len_a,
        max_len_b=max_len_b,
        batch_size=batch_size,
        precision=precision,
    )


def translate_options(
    decode: DecodeConfig,
    *,
    split: bool = True,
    normalize: bool = NORMALIZE_INPUT,
    keep: Path | None = None,
    glossary: Path | None = None,
    dictionary: Path | None = None,
    cognates: bool | None = None,
    first_words: bool | None = None,
    titles: bool | None = None,
    check_language: bool = True,
) -> TranslateOptions:
    """What every command that translates turns its options into: the search (decode_config)
    and the text options, with the --keep and --glossary files read, so that bad input stops
    here, before the model loads."""
    from mt.decode.glossary import read_glossary
    from mt.decode.options import TranslateOptions
    from mt.decode.unseen import read_dictionary
    from mt.text.spans import read_keep

    return TranslateOptions(
        decode=decode,
        split=split,
        normalize=normalize,
        keep=() if keep is None else read_keep(keep),
        glossary=None if glossary is None else read_glossary(glossary),
        dictionary=None if dictionary is None else read_dictionary(dictionary),
        cognates=cognates,
        first_words=first_words,
        titles=titles,
        check_language=check_language,
    )


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


def open_for_command(
    info: ModelInfo,
    options: TranslateOptions,
    *,
    precision: str,
    device: str,
    checkpoint: str,
    threads: int | None,
    compute_type: str,
) -> Translator:
    """The Translator `mt translate` and `mt evaluate` search with: a shipped model's int8 copy
    where the options leave the engine to mt (default_engine), made again once when CTranslate2
    cannot load it (mt.export.int8_copy.open_with_copy), else the run or export itself."""
    from mt.export.int8_copy import open_with_copy

    copy = default_engine(
        info, precision=precision, device=device, checkpoint=checkpoint, compute_type=compute_type
    )
    return open_with_copy(
        info,
        options,
        copy=copy,
        device=device,
        checkpoint=checkpoint,
        threads=threads,
        compute_type=compute_type,
    )
