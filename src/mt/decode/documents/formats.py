"""Which format a document is, reading it, and translating a file into a file of the same kind."""

from __future__ import annotations

import enum
from pathlib import Path

from mt.decode.documents import html, markdown, po, subtitles, text
from mt.decode.documents.document import Document
from mt.errors import MtError


class Format(enum.StrEnum):
    text = "text"
    html = "html"
    markdown = "markdown"
    po = "po"
    srt = "srt"
    vtt = "vtt"


EXTENSIONS = {
    ".html": Format.html,
    ".htm": Format.html,
    ".xhtml": Format.html,
    ".md": Format.markdown,
    ".markdown": Format.markdown,
    ".po": Format.po,
    ".pot": Format.po,
    ".srt": Format.srt,
    ".vtt": Format.vtt,
}
"""Anything else is text."""


def format_named(name: str | None, path: Path | None) -> Format:
    """The --format given, else the one the file's extension says, else text."""
    if name is not None:
        try:
            return Format(name.lower())
        except ValueError:
            choices = ", ".join(f.value for f in Format)
            raise MtError(f"--format {name}: not a format; choose one of {choices}") from None
    if path is not None:
        return EXTENSIONS.get(path.suffix.lower(), Format.text)
    return Format.text


def decode(data: bytes, name: str) -> tuple[str, str]:
    """(byte-order mark or "", the text after it); bad UTF-8 names its line."""
    try:
        content = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - data.rfind(b"\n", 0, error.start)  # as mt translate counts it
        raise MtError(f"{name}:{line}: not valid UTF-8 (byte {column})") from None
    bom = "\ufeff" if content.startswith("\ufeff") else ""
    return bom, content[len(bom) :]


def parse_document(content: str, form: Format, *, name: str, overwrite: bool = False) -> Document:
    """The document's units and skeleton; `overwrite` retranslates translated .po entries."""
    match form:
        case Format.html:
            return html.parse(content, name=name)
        case Format.markdown:
            return markdown.parse(content, name=name)
        case Format.po:
            return po.parse(content, name=name, overwrite=overwrite)
        case Format.srt:
            return subtitles.parse_srt(content, name=name)
        case Format.vtt:
            return subtitles.parse_vtt(content, name=name)
        case Format.text:
            return text.parse(content, name=name)


def read_document(
    data: bytes, form: Format, *, name: str, overwrite: bool = False
) -> tuple[str, Document]:
    """(BOM or "", the document) of a file's bytes: every input check, before any model loads."""
    bom, content = decode(data, name)
    return bom, parse_document(content, form, name=name, overwrite=overwrite)
