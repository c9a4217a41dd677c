"""Protected spans: the parts of a sentence a translation must copy exactly, and the training
pairs that teach a model to copy them.

A URL, a path, code, a format placeholder or a number met as rare sub-word pieces comes out
mangled ("www.cisco.com" came out "se mudó"). So before translation each span becomes a token
(PLACEHOLDERS: ｟1｠, ｟2｠ ...), put back after it (mt.decode.placeholders); a model learns to copy
them from pairs whose shared spans were replaced alike on both sides (`placeheld`;
mt.data.feed.augment draws which pairs, as a pure function of seed and epoch).

`find_spans` is the one detector: one regular expression whose alternatives are tried most
specific first (a URL before the path inside it); matches never overlap. tldr's `{{placeholders}}`
are protected where its Spanish copies them, not where they hold words ("{{ruta/al/archivo}}").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mt.errors import MtError
from mt.storage.files import listed_lines
from mt.text.kept import HOLD_NUMBERS, kept_pieces, overlaps
from mt.text.lexicon import CAPITALISED
from mt.text.words import ANY_WORD

_URL = (
    r"\b(?:https?|ftp)://[^\s<>\"'`]*[^\s<>\"'`.,;:!?)\]}]"
    r"|\bwww\.[\w-]+\.[^\s<>\"'`]*[\w/]"
    r"|<https?://[^\s<>]+>"
)
_EMAIL = r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b"
_CODE = r"``[^`\n]+``|:[\w.:+-]{1,60}:`[^`\n]+`|`[^`\n]+`"
_TLDR = r"\{\{[^{}\n]*\}\}"
_BRACES = r"\{[\w.\[\]]*(?:![rsa])?(?::[^{}\n]*)?\}"
_PRINTF = (
    r"%(?:\([A-Za-z_]\w*\))?[-#0+]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[diouxXeEfFgGcrsa%](?![A-Za-z])"
)
_VARIABLE = r"\$\{[A-Za-z_]\w*\}|\$[A-Za-z_]\w*"
_EXTENSIONS = (
    "py|pyc|pyi|txt|md|rst|json|toml|yaml|yml|ini|cfg|conf|csv|tsv|xml|html?|css|js|ts|c|h|cpp|"
    "java|rs|go|sh|bat|exe|dll|so|zip|gz|tar|pdf|png|jpe?g|gif|svg|log|po|odt|ods|docx?|xlsx?"
)
_PATH = (
    r"(?<![\w/.~-])(?:~|\.{1,2})?/[\w.+-]+(?:/[\w.+-]+)*/?(?<![.,])"  # /usr/bin, ~/.bashrc, ./a
    r"|\b[A-Za-z]:\\(?:[\w. -]+\\)*[\w.-]+(?<![.,])"  # C:\Users\me\file.txt
    r"|(?<![\w.-])[\w.-]+/(?:[\w.-]+/)+[\w.-]*(?<![.,])"  # src/mt/data ("and/or" is no path)
    r"|(?<![\w.-])[\w.-]+/[\w-]+\.\w+"  # docs/index.rst
    rf"|(?<![\w-])(?<![\w-]\.)[\w-]+(?:\.[\w-]+)*\.(?:{_EXTENSIONS})\b(?!\.\w)"  # setup.py
)
_NUMBER = (
    r"(?<![\w.,:/-])"
    r"\d+(?:[.,:/-]\d+)*(?:%|\b)"  # 555-1234, 3.5%, 1,000.50, 10:30, 2024-01-31
    r"(?![\w%]|[.,:/-]\d)"
)
_MARKUP = (
    r"<(?i:script|style)\b[^<>]{0,300}>[^<]{0,2000}</(?i:script|style)\s*>"  # code, not prose
    r"|</?[A-Za-z][\w:.-]*(?:\s[^<>\n]{0,300})?/?>"
)
"""A tag in plain text ("<script>", "</b>", "<br/>"): copied as typed, never "<Script>"; a script
or style element whole ("<script>alert(1)</script>"): what it holds is code."""
_PATTERNS = {
    "markup": _MARKUP,  # before URLs: "<https://x.org>" is none (a scheme's "//" ends a name)
    "url": _URL,
    "email": _EMAIL,
    "code": _CODE,
    "tldr": _TLDR,
    "placeholder": rf"{_BRACES}|{_PRINTF}",
    "variable": _VARIABLE,
    "number": _NUMBER,  # before paths: 1/2/2024 is a date
    "path": _PATH,
}
MSGFMT_PRINTF = r"%(?:\([^)]*\))?[-#0+ ]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[hlL]?[diouxXeEfFgGcrsa%]"
"""Every directive msgfmt sees in a string flagged c-format or python-format, "10% on" ("% o")
included: a .po file's translation must keep all of them for `msgfmt --check`, however odd."""


@functools.cache
def _detector(kinds: frozenset[str], msgfmt: bool) -> re.Pattern[str]:
    """One expression of the `kinds` (in _PATTERNS' order; MSGFMT_PRINTF first with `msgfmt`)."""
    alternatives = [f"(?P<{kind}>{p})" for kind, p in _PATTERNS.items() if kind in kinds]
    if msgfmt:
        alternatives.insert(0, f"(?P<msgfmt>{MSGFMT_PRINTF})")
    return re.compile("|".join(alternatives) or "(?!)")


_DETECTOR = _detector(frozenset(_PATTERNS), False)
# A pattern whose first run may hold what follows it ("a.b.c") starts only where such a run
# starts (a lookbehind, not \b), or is bounded ({1,60}): else the detector is quadratic
# (tests/text/test_kept.py).
_MAY_HOLD_A_SPAN = re.compile(r"[\d/\\@`{%$<]|www\.|\.\w")
"""A character every pattern of _DETECTOR needs (a digit, a slash, `@`, a backtick, a brace, `%`,
`$`, `<`, "www." or a dot before a letter, as in "setup.py"): most sentences have none, and this one
search is much cheaper than trying the detector's alternatives at every position."""
_KIND = {"msgfmt": "placeholder"}  # the group a kind's second pattern matches in
_NAME = re.compile(CAPITALISED)


@dataclass(frozen=True)
class Span:
    """text[start:end] of a sentence; `kind` is a detector group (url, email, code, placeholder,
    variable, number, path), markup, or one of mt.text.kept's (symbol, foreign, identifier, long),
    or "name" (a --keep name, or in training a copied capitalised word)."""

    start: int
    end: int
    kind: str
    text: str


def find_spans(text: str, names: Iterable[str] = ()) -> list[Span]:
    """The protected spans of `text` in order: the detector's, then each of `names` (a --keep
    list: exact, whole words) where no detected span is; never overlapping."""
    spans = list(_detected(text))
    named = sorted(set(names), key=len, reverse=True)  # "New York City" before "New York"
    if named:
        pattern = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, named)) + r")(?!\w)")
        taken = [(m.start(), m.end()) for m in _DETECTOR.finditer(text)]
        taken += [(span.start, span.end) for span in spans]
        for match in pattern.finditer(text):
            if not any(match.start() < end and start < match.end() for start, end in taken):
                spans.append(Span(match.start(), match.end(), "name", match.group()))
        spans.sort(key=lambda span: span.start)
    return spans


_OPTION_OR_EXTENSION = re.compile(r"(?<![\w-])--?[\w-]+|\.\w+")


def _copied_tldr(span: str) -> bool:
    """Whether a tldr `{{placeholder}}` is copied, not translated: alternatives of options or
    subcommands ("{{[-s|--status]}}"), numbers, globs ("{{*.jpg}}"); not words ("{{version}}")."""
    inner = span[2:-2]
    return inner.startswith("[") or not re.search(
        r"[A-Za-z]{2,}", _OPTION_OR_EXTENSION.sub("", inner)
    )


@functools.lru_cache(maxsize=4096)
def _detected(text: str) -> tuple[Span, ...]:
    """The detector's spans of `text`, then mt.text.kept's outside them (cached: asked often)."""
    matches = list(_DETECTOR.finditer(text)) if _MAY_HOLD_A_SPAN.search(text) else []
    spans = [
        Span(m.start(), m.end(), m.lastgroup or "", m.group())
        for m in matches
        if m.lastgroup != "tldr" or _copied_tldr(m.group())
    ]
    numbers = [(m.start(), m.end()) for m in matches if m.lastgroup == "number"]
    taken = [(m.start(), m.end()) for m in matches if m.lastgroup != "number"]  # {{words}} too
    kept = kept_pieces(text, taken, numbers)
    holders = sorted((a, b) for a, b, kind in kept if kind in HOLD_NUMBERS)
    spans = [s for s in spans if s.kind != "number" or not overlaps(s.start, s.end, holders)]
    spans += [Span(a, b, kind, text[a:b]) for a, b, kind in kept]
    return tuple(sorted(spans, key=lambda span: span.start))


def find_kinds(text: str, kinds: frozenset[str], *, msgfmt: bool = False) -> list[Span]:
    """The spans of `kinds` alone, by the detector's patterns in its order (documents protect
    URLs and placeholders in their units and leave numbers and paths to the translator); with
    `msgfmt`, msgfmt's directives (MSGFMT_PRINTF, kind "placeholder") before everything."""
    return [
        Span(m.start(), m.end(), _KIND.get(m.lastgroup or "", m.lastgroup or ""), m.group())
        for m in _detector(kinds, msgfmt).finditer(text)
        if m.lastgroup != "tldr" or _copied_tldr(m.group())
    ]


def read_keep(path: Path) -> tuple[str, ...]:
    """The names of a --keep file, one a line; blank lines and lines starting with "#" skipped."""
    try:
        data = path.read_bytes()
        lines = data.decode("utf-8").splitlines()
    except FileNotFoundError:
        raise MtError(f"--keep {path}: no such file") from None
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise MtError(f"--keep {path}, line {line}: not UTF-8 text") from None
    except OSError as error:
        raise MtError(f"--keep {path}: cannot be read ({error.strerror})") from None
    names = []
    for number, name in listed_lines(lines):
        if "\t" in name:
            raise MtError(f"--keep {path}, line {number}: a tab; give one name a line")
        names.append(name)
    return tuple(names)


def shared_spans(english: str, spanish: str) -> list[Span]:
    """The English spans a pair copies: detected on both sides with the same text (a number
    written 1.000,50 in the Spanish for 1,000.50 is not shared), or capitalised words found
    whole in the Spanish (Tom, Mary). Each text once, in English order."""
    spanish_texts = {span.text for span in find_spans(spanish)}
    spanish_words = set(ANY_WORD.findall(spanish))
    spans = find_spans(english)
    taken = [(span.start, span.end) for span in spans]
    for match in _NAME.finditer(english):
        if match.group() in spanish_words and not any(
            match.start() < end and start < match.end() for start, end in taken
        ):
            spans.append(Span(match.start(), match.end(), "name", match.group()))
    seen: set[str] = set()
    shared = []
    for span in sorted(spans, key=lambda span: span.start):
        if span.text in seen:
            continue
        if span.text in spanish_texts or (span.kind == "name" and span.text in spanish_words):
            seen.add(span.text)
            shared.append(span)
    return shared


def mask_spans(text: str, stand_in: str, names: Iterable[str] = ()) -> str:
    """`text` with every protected span (and `names`, a --keep list) replaced by `stand_in`."""
    spans = find_spans(text, names)
    return replace_spans(text, spans, dict.fromkeys((span.text for span in spans), stand_in))


def replace_spans(text: str, spans: Sequence[Span], tokens: dict[str, str]) -> str:
    """`text` with each span whose text has a token replaced by it (spans in order, apart)."""
    out, position = [], 0
    for span in spans:
        if span.text in tokens:
            out += [text[position : span.start], tokens[span.text]]
            position = span.end
    return "".join(out) + text[position:]


def placeheld(english: str, spanish: str, placeholders: Sequence[str]) -> tuple[str, str]:
    """The pair with its shared spans replaced by `placeholders` in English order, the same
    token for the same text on both sides; spans past the last placeholder stay as they are."""
    shared = shared_spans(english, spanish)[: len(placeholders)]
    if not shared:
        return english, spanish
    tokens = {span.text: token for span, token in zip(shared, placeholders, strict=False)}
    names = {span.text for span in shared if span.kind == "name"}
    return (
        replace_spans(english, _occurrences(english, tokens, names), tokens),
        replace_spans(spanish, _occurrences(spanish, tokens, names), tokens),
    )


def _occurrences(text: str, tokens: dict[str, str], names: set[str]) -> list[Span]:
    """Every occurrence of a span `tokens` replaces: detected ones by text, `names` as words."""
    spans = [span for span in find_spans(text) if span.text in tokens]
    if names:
        pattern = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, names)) + r")(?!\w)")
        for match in pattern.finditer(text):
            if not any(match.start() < s.end and s.start < match.end() for s in spans):
                spans.append(Span(match.start(), match.end(), "name", match.group()))
    return sorted(spans, key=lambda span: span.start)
