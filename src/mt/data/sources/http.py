"""Resumable HTTP downloads into a `.part` file, with urllib (httpx is only a dev dependency).

An existing `.part` asks for `Range: bytes=SIZE-`: a `206` is appended, a `200` (GitHub's
generated archives ignore ranges) starts over, a `416` means nothing is left. A broken connection
leaves the part for the next run; checking what was fetched is mt.data.sources.fetch's.
"""

from __future__ import annotations

import http.client
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Protocol

from mt.errors import MtError

BLOCK = 1 << 16
GONE = (404, 410)  # a mirror that answers these is skipped for the next address


class ByteProgress(Protocol):
    """What a progress bar needs: a download starts (its size, when the server says it, and what
    a part already held), grows, and stops."""

    def start(self, label: str, total: int | None, done: int) -> None: ...
    def advance(self, size: int) -> None: ...
    def stop(self) -> None: ...


class Unreachable(MtError):
    """No answer from the address: no network, a name that does not resolve, a refused port."""

    def __init__(self, url: str, reason: object) -> None:
        super().__init__(f"cannot reach {url} ({reason})", exit_code=1)
        self.url = url
        self.reason = reason


class HttpFailure(MtError):
    def __init__(self, url: str, status: int, reason: str) -> None:
        super().__init__(f"{url} answered HTTP {status} {reason}".rstrip(), exit_code=1)
        self.status = status


class Cut(MtError):
    """The connection broke mid-body; the part keeps what came."""


def download(url: str, part: Path, *, label: str, progress: ByteProgress, timeout: float) -> None:
    """Fetch `url` into `part`, going on from what `part` holds."""
    have = part.stat().st_size if part.is_file() else 0
    headers = {"User-Agent": "mt-download", **({"Range": f"bytes={have}-"} if have else {})}
    try:
        response = urllib.request.urlopen(
            urllib.request.Request(url, headers=headers), timeout=timeout
        )
    except urllib.error.HTTPError as error:
        if error.code == 416 and have:  # nothing after `have`: the part is whole (or wrong)
            return
        raise HttpFailure(url, error.code, str(error.reason)) from None
    except urllib.error.URLError as error:
        raise Unreachable(url, error.reason) from None
    except (OSError, http.client.HTTPException) as error:
        raise Unreachable(url, error) from None
    with response:
        resumed = have > 0 and response.status == 206
        if resumed and _range_start(response) != have:
            raise Cut(f"{url} answered a range other than the one asked for; run again", 1)
        start = have if resumed else 0
        length = response.headers.get("Content-Length")
        total = start + int(length) if length and length.isdigit() else None
        _write_body(
            response, part, start=start, total=total, url=url, label=label, progress=progress
        )


def _write_body(
    response: http.client.HTTPResponse,
    part: Path,
    *,
    start: int,
    total: int | None,
    url: str,
    label: str,
    progress: ByteProgress,
) -> None:
    part.parent.mkdir(parents=True, exist_ok=True)
    progress.start(label, total, start)
    broken: Exception | None = None
    try:
        with open(part, "ab" if start else "wb") as out:
            while True:
                try:
                    block = response.read(BLOCK)
                except (OSError, http.client.HTTPException) as error:  # not the disk: the socket
                    broken = error
                    break
                if not block:
                    break
                out.write(block)
                progress.advance(len(block))
    finally:
        progress.stop()
    size = part.stat().st_size
    if broken is not None or (total is not None and size < total):
        of = f" of {total:,}" if total is not None else ""
        raise Cut(
            f"{url}: the download broke after {size:,}{of} bytes "
            f"({broken or 'the server closed the connection'}); {part} keeps them and the next "
            "run goes on from there",
            1,
        )


def _range_start(response: http.client.HTTPResponse) -> int | None:
    found = re.match(r"bytes (\d+)-", response.headers.get("Content-Range", ""))
    return int(found.group(1)) if found else None
