"""Documents through the server: HTML texts on /translate and files on /translate_file. A
document's units go to the decoding worker as one job, batching with everyone's lines; putting the
markup back runs in a thread, never on the event loop.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from starlette.datastructures import Headers, UploadFile
from starlette.formparsers import MultiPartParser

from mt.decode.documents.align import aligner_for
from mt.decode.documents.document import Document, place_splits
from mt.decode.documents.formats import EXTENSIONS, Format, read_document
from mt.decode.documents.split import Split, split_unit
from mt.errors import MtError
from mt.serving.detect import detected_languages
from mt.serving.requests import ApiError
from mt.serving.worker import BatchingWorker

FILE_FORMATS = {**EXTENSIONS, ".txt": Format.text}


def unit_lines(documents: Sequence[Document]) -> list[str]:
    """What the worker translates for these documents: every unit's text, a long unit as its
    parts (mt.decode.documents.split), in order."""
    return [part.text for split in _splits(documents) for part in split.parts]


def _splits(documents: Sequence[Document]) -> list[Split]:
    return [split_unit(unit) for document in documents for unit in document.units]


async def render_documents(
    worker: BatchingWorker, documents: Sequence[Document], translations: Sequence
) -> list[str]:
    """Each document written back around its units' translations (the worker's answer to
    unit_lines); the markup is put back in a thread, the alignment may run the model."""
    texts = [translation.text for translation in translations]
    aligner = aligner_for(worker.translator)
    placed = await asyncio.to_thread(place_splits, _splits(documents), texts, aligner)
    rendered, start = [], 0
    for document in documents:
        count = len(document.units)
        rendered.append(document.render(placed[start : start + count]))
        start += count
    return rendered


def html_answer(
    texts: list[str],
    *,
    is_list: bool,
    detect: bool,
    language: str = "en",
    sources: Sequence[str] = (),
) -> dict[str, Any]:
    """LibreTranslate's answer for "format": "html" (no alternatives: markup is placed on the
    best translation only); `language`: the source's, answered for a text without letters;
    `sources`: the words of each source text (`source_words`), which detection reads."""
    answer: dict[str, Any] = {"translatedText": texts if is_list else texts[0]}
    if detect:
        answer["detectedLanguage"] = detected_languages(sources, is_list=is_list, fallback=language)
    return answer


def source_words(documents: Sequence[Document]) -> list[str]:
    """Each document's text without its markup (its units' text), for language detection."""
    return [" ".join(unit.text for unit in document.units) for document in documents]


def parse_html(texts: Sequence[str]) -> list[Document]:
    """`"format": "html"`: each text an HTML fragment (broken HTML is read as browsers do)."""
    try:
        return [read_document(t.encode("utf-8"), Format.html, name="q")[1] for t in texts]
    except MtError as error:
        raise ApiError(400, str(error)) from None


@dataclass(frozen=True)
class Upload:
    name: str
    form: Format
    data: bytes
    fields: dict[str, str]


async def read_upload(headers: Headers, body: bytes) -> Upload:
    """The one file of a /translate_file form and its other fields."""
    if headers.get("content-type", "").split(";")[0].strip().lower() != "multipart/form-data":
        raise ApiError(400, "send the file as multipart/form-data with a field named file")

    async def stream():
        yield body

    try:
        form = await MultiPartParser(headers, stream(), max_files=1, max_fields=100).parse()
    except Exception as error:  # python-multipart's errors have no common base worth naming
        raise ApiError(400, f"cannot read the multipart form ({error})") from None
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise ApiError(400, "missing file: send the document in a form field named file")
    name = PurePath(upload.filename or "document.txt").name
    form_of = FILE_FORMATS.get(PurePath(name).suffix.lower())
    if form_of is None:
        known = ", ".join(sorted(FILE_FORMATS))
        raise ApiError(400, f"cannot translate {name}: send one of {known}")
    fields = {key: value for key, value in form.items() if isinstance(value, str)}
    return Upload(name, form_of, await upload.read(), fields)


class FileStore:
    """Translated files until they are downloaded once or `keep_seconds` pass; at most
    `max_files` at a time (the oldest goes first)."""

    def __init__(self, max_files: int = 64, keep_seconds: float = 600.0) -> None:
        self.max_files = max_files
        self.keep_seconds = keep_seconds
        self._files: OrderedDict[str, tuple[float, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, name: str, data: bytes) -> str:
        key = f"{secrets.token_urlsafe(12)}/{name}"
        with self._lock:
            self._expire()
            self._files[key] = (time.monotonic(), data)
            while len(self._files) > self.max_files:
                self._files.popitem(last=False)
        return key

    def take(self, key: str) -> bytes | None:
        with self._lock:
            self._expire()
            found = self._files.pop(key, None)
        return None if found is None else found[1]

    def _expire(self) -> None:
        now = time.monotonic()
        for key in [k for k, (made, _) in self._files.items() if now - made > self.keep_seconds]:
            del self._files[key]
