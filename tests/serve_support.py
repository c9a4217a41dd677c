"""Helpers shared by the `mt serve` tests: scripted translators, apps, servers on free ports."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient

from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.decode.options import TranslateOptions
from mt.decode.results import Translation
from mt.decode.translator import open_translator
from mt.serving.app import create_app
from mt.serving.limits import Limits

DECODE = DecodeConfig(beam_size=3, n_best=3)


class ScriptedTranslator:
    """Upper-cases each line (two hypotheses), records every batch it is given, and can hold
    its first call until `gate` is set, so tests decide what queues up meanwhile."""

    def __init__(self, *, hold_first: bool = False, delay: float = 0.0, fail: bool = False):
        self.batches: list[list[str]] = []
        self.gate = threading.Event()
        self.entered = threading.Event()
        if not hold_first:
            self.gate.set()
        self.delay = delay
        self.fail = fail
        self.finished = 0  # calls that ran to the end

    def translate(self, lines: list[str]) -> Iterator[Translation]:
        lines = list(lines)
        self.batches.append(lines)
        self.entered.set()
        self.gate.wait(10)
        time.sleep(self.delay)
        if self.fail:
            raise RuntimeError("scripted failure")
        for line in lines:
            hyps = ((line.upper(), -0.1), (line.upper() + "!", -0.5)) if line.strip() else ()
            yield Translation(line, hyps)
        self.finished += 1


def scripted_app(
    translator: ScriptedTranslator,
    tmp_path: Path,
    limits: Limits = Limits(),
    **options,
) -> FastAPI:
    return create_app(
        lambda: translator,
        limits,
        model=None,
        decode=DECODE,
        **{"log_line": lambda line: None, **options},
    )


def model_app(run: Path, limits: Limits = Limits(), **options) -> FastAPI:
    """The app around a real tiny run, opened as `mt serve` opens it."""
    return create_app(
        lambda: open_translator(resolve(run), TranslateOptions(decode=DECODE), device="cpu"),
        limits,
        model=resolve(run),
        decode=DECODE,
        threads=1,
        **{"log_line": lambda line: None, **options},
    )


def wait_healthy(client: TestClient | httpx.Client, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.TransportError):
            if client.get("/health").status_code == 200:
                return
        time.sleep(0.05)
    raise AssertionError(f"/health not 200 within {seconds} s")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def threaded_server(app: FastAPI) -> Iterator[tuple[str, uvicorn.Server]]:
    """The app under a real uvicorn on a free loopback port, in a thread; yields its URL."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url) as client:
            wait_healthy(client)
        yield url, server
    finally:
        server.should_exit = True
        thread.join(30)
