"""The server's access log: one line a request, written when its answer has gone."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


class RequestLog:
    """One line per request: method, path, status, sentences, milliseconds (text on request)."""

    def __init__(self, app: Any, log_line: Callable[[str], None], log_text: bool) -> None:
        self.app = app
        self.log_line = log_line
        self.log_text = log_text

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_status(message: dict) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            state = scope.get("state") or {}
            sentences = state.get("sentences")
            line = (
                f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {scope['method']} {scope['path']} {status}"
                + (
                    f" {sentences} sentence{'s' * (sentences != 1)}"
                    if sentences is not None
                    else ""
                )
                + f" {(time.perf_counter() - started) * 1000:.1f} ms"
            )
            if self.log_text and state.get("text"):
                line += f" text: {state['text']}"
            self.log_line(line)
