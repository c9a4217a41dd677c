"""A `/translate` body, JSON or form, checked field by field into a `TranslateRequest`.

LibreTranslate's clients send `{"q", "source", "target", "format", "alternatives", "api_key"}`
as JSON or as a form; each problem becomes an `ApiError` with one sentence and its status code.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from starlette.datastructures import Headers, UploadFile
from starlette.formparsers import MultiPartParser
from starlette.requests import Request

from mt.catalog.direction import FORWARD, Direction
from mt.decode.glossary import Glossary, glossary_from_pairs
from mt.errors import MtError
from mt.serving.limits import Limits

TARGET_LANGUAGE = "es"
MAX_GLOSSARY_PAIRS = 1000
DEFAULT_GLOSSARY = ""  # the name of the glossary a request gets when it names none


class ApiError(Exception):
    """Answered as `{"error": message}` with `status`."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers


@dataclass(frozen=True)
class TranslateRequest:
    texts: list[str]
    is_list: bool  # q was an array: the answer is one too
    alternatives: int
    api_key: str | None
    detect: bool  # source "auto": the answer says which language was detected, as LibreTranslate
    html: bool = False  # "format": "html": each text an HTML fragment, markup kept
    glossary: Glossary | None = None  # the request's terms, or a glossary loaded at start
    language: str = "en"  # the source language, the one "detected" for source "auto"


async def read_body(request: Request, limit: int) -> bytes:
    """The body, refused with 413 as soon as it passes `limit` bytes (before it is all read)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _too_large_body(int(declared), limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large_body(size, limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large_body(size: int, limit: int) -> ApiError:
    return ApiError(
        413, f"the body has more than {limit:,} bytes ({size:,}); send less per request"
    )


def check_chars(texts: list[str], limits: Limits, *, what: str) -> None:
    """The one --max-chars rule of /translate and /translate_file: the characters of all `texts`
    of a request together; over the limit is a 413 that names what was sent (`what`)."""
    chars = sum(len(text) for text in texts)
    if chars > limits.max_chars:
        raise ApiError(
            413,
            f"{what} has {chars:,} characters to translate; this server takes at most "
            f"{limits.max_chars:,} per request",
        )


async def parse_fields(headers: Headers, body: bytes) -> dict[str, Any]:
    """JSON object or form fields; a form field given several times is a list (`q` arrays)."""
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "application/x-www-form-urlencoded":
        try:
            pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
        except UnicodeDecodeError:
            raise ApiError(400, "the form body is not valid UTF-8") from None
        return _collect(pairs)
    if kind == "multipart/form-data":
        return _collect(await _multipart(headers, body))
    if kind and not kind.endswith("json") and kind != "text/plain":
        raise ApiError(
            400,
            f"cannot read a {kind} body; send JSON (Content-Type: application/json) or a form",
        )
    try:
        data = json.loads(body.decode("utf-8").removeprefix("\ufeff"))
    except UnicodeDecodeError:
        raise ApiError(400, "the JSON body is not valid UTF-8") from None
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}"
        raise ApiError(400, f"the body is not valid JSON ({error.msg} at {where})") from None
    if not isinstance(data, dict):
        raise ApiError(400, 'the JSON body must be an object such as {"q": "Hello"}')
    return data


async def _multipart(headers: Headers, body: bytes) -> list[tuple[str, str]]:
    async def stream() -> AsyncIterator[bytes]:
        yield body

    try:
        form = await MultiPartParser(headers, stream(), max_files=0, max_fields=1000).parse()
    except Exception as error:  # python-multipart's errors have no common base worth naming
        raise ApiError(400, f"cannot read the multipart form ({error})") from None
    fields = []
    for name, value in form.multi_items():
        if isinstance(value, UploadFile):
            raise ApiError(400, f"form field {name} is a file; send text fields only")
        fields.append((name, value))
    return fields


def _collect(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name, value in pairs:
        if name in fields:
            previous = fields[name]
            fields[name] = [*previous, value] if isinstance(previous, list) else [previous, value]
        else:
            fields[name] = value
    return fields


def check_request(
    fields: dict[str, Any],
    limits: Limits,
    max_alternatives: int,
    glossaries: Mapping[str, Glossary] | None = None,
    direction: Direction = FORWARD,
) -> TranslateRequest:
    """Field checks, then size limits: 400 for a wrong field, 413 for too much text.
    `glossaries`: those loaded at start, by name (DEFAULT_GLOSSARY for requests naming none);
    `direction`: the served model's (mt.catalog.direction)."""
    if "q" not in fields:
        raise ApiError(400, "missing q: give the text as a string or an array of strings")
    q = fields["q"]
    if isinstance(q, str):
        texts, is_list = [q], False
    elif isinstance(q, list) and all(isinstance(item, str) for item in q):
        texts, is_list = q, True
    else:
        raise ApiError(400, "q must be a string or an array of strings")
    source = _language(fields, "source", "auto")
    target = _language(fields, "target", direction.target)
    if source not in (direction.source, "auto") or target != direction.target:
        pair = (
            f"{direction.source} → {direction.target} (source {direction.source} or auto, "
            f"target {direction.target})"
        )
        raise ApiError(
            400, f"this server translates only {pair}; got source {source!r}, target {target!r}"
        )
    text_format = fields.get("format", "text")
    if text_format not in ("text", "html"):
        raise ApiError(400, f"format must be text or html, got {text_format!r}")
    api_key = fields.get("api_key")
    if api_key is not None and not isinstance(api_key, str):
        raise ApiError(400, "api_key must be a string")
    alternatives = _alternatives(fields.get("alternatives", 0))
    if len(texts) > limits.max_items:
        raise ApiError(
            413,
            f"q has {len(texts):,} texts; this server takes at most {limits.max_items:,} "
            "per request",
        )
    check_chars(texts, limits, what="the text")
    return TranslateRequest(
        texts=texts,
        is_list=is_list,
        alternatives=min(alternatives, max_alternatives),
        api_key=api_key,
        detect=source == "auto",
        html=text_format == "html",
        glossary=_glossary(fields.get("glossary"), glossaries or {}),
        language=direction.source,
    )


def _glossary(value: Any, named: Mapping[str, Glossary]) -> Glossary | None:
    """`glossary`: a name of one loaded at start, or a list of [english, spanish] pairs."""
    if value is None:
        return named.get(DEFAULT_GLOSSARY)
    if isinstance(value, str):
        if value not in named or value == DEFAULT_GLOSSARY:
            known = ", ".join(sorted(n for n in named if n != DEFAULT_GLOSSARY)) or "none"
            raise ApiError(400, f"no glossary named {value!r} (this server has: {known})")
        return named[value]
    pairs = value if isinstance(value, list) else None
    if pairs is None or not all(isinstance(p, list | tuple) and len(p) == 2 for p in pairs):
        raise ApiError(
            400,
            "glossary must be a name or a list of [english, spanish] pairs, "
            'e.g. [["OK", "Aceptar"]]',
        )
    if len(pairs) > MAX_GLOSSARY_PAIRS:
        raise ApiError(
            413,
            f"glossary has {len(pairs):,} pairs; this server takes at most {MAX_GLOSSARY_PAIRS:,}",
        )
    try:
        return glossary_from_pairs([tuple(pair) for pair in pairs], "glossary")
    except MtError as error:
        raise ApiError(400, str(error)) from None


def _language(fields: dict[str, Any], name: str, default: str) -> str:
    value = fields.get(name, default)
    if not isinstance(value, str):
        raise ApiError(400, f"{name} must be a language code such as {default!r}")
    return value.strip().lower()


def _alternatives(value: Any) -> int:
    """A count of extra translations; forms send it as text."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ApiError(400, f"alternatives must be a whole number >= 0, got {value!r}")
    return value
