"""The HTTP side: `create_app` builds a FastAPI app around one `BatchingWorker`.

An app factory rather than a module global, so tests build apps in-process with their own limits
and translator. Handlers only parse, check and wait; the model runs in the worker's thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.exceptions import HTTPException

from mt.catalog.direction import FORWARD, LANGUAGE_NAMES, Direction
from mt.catalog.modelinfo import ModelInfo
from mt.config import DecodeConfig
from mt.decode.glossary import Glossary
from mt.serving.answers import text_answer
from mt.serving.documents import (
    html_answer,
    parse_html,
    render_documents,
    source_words,
    unit_lines,
)
from mt.serving.files import add_file_routes
from mt.serving.info import model_info
from mt.serving.limits import Limits, RateLimiter, key_matches
from mt.serving.request_log import RequestLog
from mt.serving.requests import (
    ApiError,
    check_request,
    parse_fields,
    read_body,
)
from mt.serving.worker import BatchingWorker, Unavailable

log = logging.getLogger("mt.serve")


def languages_of(direction: Direction) -> list[dict[str, Any]]:
    """/languages in LibreTranslate's shape: the served model's one pair."""
    return [
        {
            "code": code,
            "name": name,
            "targets": [direction.target] if code == direction.source else [],
        }
        for code, name in LANGUAGE_NAMES.items()
    ]


TRANSLATE_BODY = {
    "type": "object",
    "required": ["q"],
    "properties": {
        "q": {
            "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
            "description": "Text, or an array of texts; lines are translated one by one.",
        },
        "source": {"type": "string", "enum": ["en", "auto"], "default": "auto"},
        "target": {"type": "string", "enum": ["es"], "default": "es"},
        "format": {
            "type": "string",
            "enum": ["text", "html"],
            "default": "text",
            "description": "html: each text an HTML fragment, translated with its tags kept.",
        },
        "alternatives": {"type": "integer", "minimum": 0, "default": 0},
        "api_key": {"type": "string"},
    },
}
ERROR = {"content": {"application/json": {"example": {"error": "one clear sentence"}}}}


def stderr_line(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


class Service:
    """The state one app's handlers share."""

    def __init__(
        self,
        worker: BatchingWorker,
        limits: Limits,
        api_key: str | None,
        max_alternatives: int,
        glossaries: Mapping[str, Glossary] | None = None,
        direction: Direction = FORWARD,
    ) -> None:
        self.worker = worker
        self.direction = direction  # which way the model translates (mt.catalog.direction)
        self.glossaries = dict(glossaries or {})  # loaded at start, by name
        self.limits = limits
        self.api_key = api_key
        self.max_alternatives = max_alternatives
        self.limiter = RateLimiter(limits.per_minute)
        self.info: dict[str, Any] | None = None
        self.shutting_down = False

    def unavailable(self) -> str | None:
        """Why the server cannot translate now, or None when it can."""
        if self.shutting_down or self.worker.stopping:
            return "the server is shutting down"
        if self.worker.failure is not None:
            return f"the model failed to load: {self.worker.failure}"
        if not self.worker.ready.is_set():
            return "the model is still loading"
        return None


def create_app(
    load: Callable[[], Any],
    limits: Limits,
    *,
    model: ModelInfo | None,
    decode: DecodeConfig,
    api_key: str | None = None,
    cors_origins: Sequence[str] = (),
    threads: int | None = None,
    batch_wait: float = 0.005,
    return_wait: float = 0.02,
    log_text: bool = False,
    log_line: Callable[[str], None] = stderr_line,
    on_ready: Callable[[dict[str, Any]], None] = lambda info: None,
    on_failure: Callable[[str], None] = lambda message: None,
    glossaries: Mapping[str, Glossary] | None = None,
) -> FastAPI:
    """`load` opens the translator (in the decoding thread, so /health is 503 meanwhile);
    `model` is what it opens (mt.catalog.modelinfo; None for a scripted translator), `decode` the
    configuration it was opened with, for /model and the alternatives' bound;
    `glossaries` are those a request may name (the one named "" applies when it names none)."""

    def ready(translator: Any) -> None:
        service.info = model_info(model, translator, decode)
        on_ready(service.info)

    worker = BatchingWorker(
        load,
        threads=threads,
        batch_wait=batch_wait,
        return_wait=return_wait,
        max_queued_lines=limits.max_queued_lines,
        on_ready=ready,
        on_failure=on_failure,
    )
    service = Service(
        worker,
        limits,
        api_key,
        max_alternatives=decode.n_best - 1,
        glossaries=glossaries,
        direction=model.direction if model else FORWARD,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        worker.start()
        yield
        service.shutting_down = True
        await asyncio.to_thread(worker.stop, limits.timeout)

    app = FastAPI(
        title="mt serve",
        summary="English→Spanish translation with a LibreTranslate-compatible API",
        version="1",
        lifespan=lifespan,
    )
    app.state.service = service
    _add_error_handlers(app)
    app.add_middleware(RequestLog, log_line=log_line, log_text=log_text)
    if cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["*"],
        )
    _add_routes(app, service, log_text=log_text)
    return app


def _add_routes(app: FastAPI, service: Service, *, log_text: bool) -> None:
    _add_info_routes(app, service)
    _add_translate_route(app, service, log_text=log_text)
    add_file_routes(
        app,
        worker=service.worker,
        limits=service.limits,
        admit=lambda request, fields: _admit(service, request, fields),
        target=service.direction.target,
    )


def _add_info_routes(app: FastAPI, service: Service) -> None:
    page = resources.files("mt.serving").joinpath("web/index.html").read_text(encoding="utf-8")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index() -> HTMLResponse:
        return HTMLResponse(page)

    @app.get("/health", responses={503: ERROR})
    async def health() -> JSONResponse:
        """`{"status": "ok"}` once the model is loaded; 503 while loading or shutting down."""
        reason = service.unavailable()
        if reason is not None:
            return JSONResponse({"error": reason}, status_code=503)
        return JSONResponse({"status": "ok"})

    @app.get("/languages")
    async def languages() -> list[dict[str, Any]]:
        """The one pair, in LibreTranslate's shape."""
        return languages_of(service.direction)

    @app.get("/model", responses={503: ERROR})
    async def model() -> JSONResponse:
        """Architecture, parameters, vocabularies, training summary, last stored evaluation."""
        if service.info is None:
            raise ApiError(503, service.unavailable() or "the model is still loading")
        limits = service.limits
        limits_info = {
            "max_chars": limits.max_chars,
            "max_items": limits.max_items,
            "max_body_bytes": limits.max_body_bytes,
            "timeout": limits.timeout,
            "requests_per_minute": limits.per_minute,
        }
        return JSONResponse(
            {**service.info, "api_key_required": service.api_key is not None, "limits": limits_info}
        )


def _add_translate_route(app: FastAPI, service: Service, *, log_text: bool) -> None:
    limits = service.limits

    @app.post(
        "/translate",
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {"schema": TRANSLATE_BODY},
                    "application/x-www-form-urlencoded": {"schema": TRANSLATE_BODY},
                },
            }
        },
        responses={
            200: {
                "content": {
                    "application/json": {"example": {"translatedText": "¿Dónde está la estación?"}}
                }
            },
            **{status: ERROR for status in (400, 403, 413, 429, 503)},
        },
    )
    async def translate(request: Request) -> JSONResponse:
        """LibreTranslate's /translate: `{"q": str | [str], "source": "en", "target": "es"}`."""
        try:
            async with asyncio.timeout(limits.timeout):
                return await _translate(service, request, log_text)
        except TimeoutError:
            raise ApiError(
                503,
                f"no answer within the server's {limits.timeout:g} s limit; "
                "send less text per request or retry",
            ) from None


async def _translate(service: Service, request: Request, log_text: bool) -> JSONResponse:
    worker = service.worker
    worker.arriving()
    try:
        body = await read_body(request, service.limits.max_body_bytes)
        fields = await parse_fields(request.headers, body)
        _admit(service, request, fields)
        checked = check_request(
            fields,
            service.limits,
            service.max_alternatives,
            service.glossaries,
            direction=service.direction,
        )
        documents = parse_html(checked.texts) if checked.html else None
        lines_per_text = [
            [line.removesuffix("\r") for line in text.split("\n")] for text in checked.texts
        ]
        lines = (
            unit_lines(documents)
            if documents is not None
            else [line for text_lines in lines_per_text for line in text_lines]
        )
        request.state.sentences = sum(1 for line in lines if line.strip())
        if log_text:
            request.state.text = " | ".join(checked.texts)
        try:
            job = worker.submit(lines, checked.glossary)
        except Unavailable as error:
            raise ApiError(503, str(error), headers={"Retry-After": "1"}) from None
    finally:
        worker.arrived()  # after the job is queued: the decoder never misses it
    try:
        translations = await worker.result(job)
    except Unavailable as error:  # queued just as the server began to stop
        raise ApiError(503, str(error), headers={"Retry-After": "1"}) from None
    if documents is not None:
        texts = await render_documents(worker, documents, translations)
        answer = html_answer(
            texts,
            is_list=checked.is_list,
            detect=checked.detect,
            language=checked.language,
            sources=source_words(documents),
        )
        return JSONResponse(answer)
    return JSONResponse(text_answer(checked, lines_per_text, translations))


def _admit(service: Service, request: Request, fields: dict[str, Any]) -> None:
    """The API key (403) and the per-client rate (429), for every translating route."""
    key = fields.get("api_key")
    if not key_matches(key if isinstance(key, str) else None, service.api_key):
        reason = "missing" if key is None else "wrong"
        raise ApiError(403, f"{reason} api_key: this server needs its API key in api_key")
    client = key if service.api_key is not None else _client(request)
    wait = service.limiter.wait_seconds(client)
    if wait > 0:
        raise ApiError(
            429,
            f"over the limit of {service.limits.per_minute} requests per minute; retry in "
            f"{math.ceil(wait)} s",
            headers={"Retry-After": str(math.ceil(wait))},
        )


def _client(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


def _add_error_handlers(app: FastAPI) -> None:
    async def api_error(request: Request, error: ApiError) -> JSONResponse:
        return JSONResponse({"error": error.message}, error.status, headers=error.headers)

    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        messages = {404: f"no such endpoint: {request.url.path}", 405: "method not allowed here"}
        message = messages.get(error.status_code, str(error.detail))
        return JSONResponse({"error": message}, error.status_code, headers=error.headers)

    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": f"bad request: {error.errors()[0].get('msg')}"}, 400)

    async def bug(request: Request, error: Exception) -> JSONResponse:
        log.error("internal error on %s", request.url.path, exc_info=error)
        return JSONResponse({"error": "internal error (a bug); the server log has details"}, 500)

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(Exception, bug)
