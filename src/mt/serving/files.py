"""POST /translate_file and GET /download_file: whole documents, as LibreTranslate serves them.

The upload (multipart, field `file`, plus LibreTranslate's source, target and api_key) is
translated in the kind of file it is, by its extension: .html, .md, .po, .srt, .vtt or .txt. The
answer is `{"translatedFileUrl": ...}`, and that URL gives the translated file once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from mt.decode.documents.formats import read_document
from mt.errors import MtError
from mt.serving.documents import FileStore, read_upload, render_documents, unit_lines
from mt.serving.limits import Limits
from mt.serving.requests import TARGET_LANGUAGE, ApiError, check_chars, read_body
from mt.serving.worker import BatchingWorker, Unavailable

ERROR = {"content": {"application/json": {"example": {"error": "one clear sentence"}}}}
MEDIA_TYPES = {
    ".html": "text/html",
    ".htm": "text/html",
    ".xhtml": "application/xhtml+xml",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".po": "text/x-gettext-translation",
    ".pot": "text/x-gettext-translation",
    ".srt": "application/x-subrip",
    ".vtt": "text/vtt",
    ".txt": "text/plain",
}


def add_file_routes(
    app: FastAPI,
    *,
    worker: BatchingWorker,
    limits: Limits,
    admit: Callable[[Request, dict[str, Any]], None],
    store: FileStore | None = None,
    target: str = TARGET_LANGUAGE,
) -> None:
    """`admit` checks the API key and rate as /translate does; `target` is the served model's
    target language."""
    files = store or FileStore()

    @app.post("/translate_file", responses={s: ERROR for s in (400, 403, 413, 429, 503)})
    async def translate_file(request: Request) -> JSONResponse:
        """Multipart `file` (.html .md .po .srt .vtt .txt), `source`, `target`, `api_key`:
        `{"translatedFileUrl": URL}`; the URL gives the translated file once."""
        try:
            async with asyncio.timeout(limits.timeout):
                name, data = await _translate_upload(request, worker, limits, admit, target)
        except TimeoutError:
            raise ApiError(
                503, f"no answer within the server's {limits.timeout:g} s limit"
            ) from None
        key = files.put(name, data)
        url = str(request.base_url) + "download_file/" + quote(key)
        return JSONResponse({"translatedFileUrl": url})

    @app.get("/download_file/{token}/{name}", responses={404: ERROR})
    async def download_file(token: str, name: str) -> Response:
        """A file /translate_file translated, once."""
        data = files.take(f"{token}/{name}")
        if data is None:
            raise ApiError(404, "no such file: it was downloaded already or has expired")
        suffix = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ".txt"
        return Response(
            data,
            media_type=MEDIA_TYPES.get(suffix, "text/plain") + "; charset=utf-8",
            headers={"Content-Disposition": f"attachment; filename*=UTF-8''{quote(name)}"},
        )


async def _translate_upload(
    request: Request, worker: BatchingWorker, limits: Limits, admit, target: str
) -> tuple[str, bytes]:
    body = await read_body(request, limits.max_body_bytes)
    upload = await read_upload(request.headers, body)
    admit(request, upload.fields)
    if upload.fields.get("target", target).strip().lower() != target:
        raise ApiError(400, f"this server translates into {target} only")
    try:
        bom, document = read_document(upload.data, upload.form, name=upload.name)
    except MtError as error:
        raise ApiError(400, str(error)) from None
    lines = unit_lines([document])
    check_chars(lines, limits, what=upload.name)
    request.state.sentences = len(lines)
    try:
        translations = await worker.translate(lines) if lines else []
    except Unavailable as error:
        raise ApiError(503, str(error), headers={"Retry-After": "1"}) from None
    (text,) = await render_documents(worker, [document], translations)
    return upload.name, (bom + text).encode("utf-8")
