"""`mt serve`: open the socket, run the app under uvicorn, stop cleanly on Ctrl-C or SIGTERM.

In-flight requests finish and the worker drains its queue; `/health` turns 503 as soon as the
signal arrives, so a load balancer stops sending before the port closes.
"""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import uvicorn

from mt.catalog.modelinfo import ModelInfo
from mt.decode.glossary import Glossary
from mt.decode.options import TranslateOptions
from mt.errors import MtError
from mt.serving.app import Service, create_app
from mt.serving.limits import Limits


class _Server(uvicorn.Server):
    """uvicorn's server, plus: a stop signal flips /health to 503 at once."""

    def __init__(self, config: uvicorn.Config, service: Service) -> None:
        super().__init__(config)
        self.service = service

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.service.shutting_down = True
        super().handle_exit(sig, frame)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, opened before the model loads so a taken port fails at once."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except (OSError, OverflowError) as error:
        sock.close()
        reason = getattr(error, "strerror", None) or error
        raise MtError(f"cannot listen on {host}:{port}: {reason}") from None
    sock.set_inheritable(True)
    return sock


def serve(
    model: ModelInfo,
    *,
    host: str,
    port: int,
    options: TranslateOptions,
    limits: Limits,
    device: str = "auto",
    checkpoint: str = "best",
    threads: int | None = None,
    api_key: str | None = None,
    cors_origins: Sequence[str] = (),
    batch_wait: float = 0.005,
    return_wait: float = 0.02,
    log_text: bool = False,
    say: Callable[[str], None] = print,
    warn: Callable[[str], None] = print,
    glossaries: Mapping[str, Glossary] | None = None,
    ct2_model: Path | None = None,
) -> None:
    """Serve until Ctrl-C or SIGTERM; returns normally after a clean stop. `glossaries`: what
    requests may name (mt.serving.requests); `ct2_model`: the CTranslate2 model that searches
    for the run (a shipped model's int8 copy, mt.translator.open_translator)."""
    from mt.decode.translator import open_translator

    decode = options.decode

    _check_serving(host, api_key, warn)
    threads = threads or default_threads()
    sock = listen(host, port)
    bound_port = sock.getsockname()[1]
    address = f"http://{host if ':' not in host else f'[{host}]'}:{bound_port}"
    failures: list[str] = []

    def ready(info: dict[str, Any]) -> None:
        workers = "CTranslate2 int8 worker" if ct2_model else "torch thread"
        say(_ready_line(info, beam=decode.beam_size, workers=workers, threads=threads, at=address))

    def failed(message: str) -> None:
        failures.append(message)
        server.should_exit = True

    app = create_app(
        lambda: open_translator(
            model,
            options,
            device=device,
            checkpoint=checkpoint,
            threads=threads,
            ct2_model=ct2_model,
        ),
        limits,
        model=model,
        decode=decode,
        api_key=api_key,
        cors_origins=cors_origins,
        threads=threads,
        batch_wait=batch_wait,
        return_wait=return_wait,
        log_text=log_text,
        on_ready=ready,
        on_failure=failed,
        glossaries=glossaries,
    )
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,  # RequestLog writes one line per request instead
        timeout_graceful_shutdown=int(limits.timeout) + 5,
        lifespan="on",
    )
    server = _Server(config, app.state.service)
    access = "API key required" if api_key is not None else "no API key"
    if api_key is None and is_loopback(host):
        access += ", so loopback only"
    say(f"loading {model.label}; listening on {address} ({access})")
    _run_until_stopped(server, sock)
    if failures:
        raise MtError(failures[0])
    say("stopped")


def _ready_line(info: dict[str, Any], *, beam: int, workers: str, threads: int, at: str) -> str:
    parameters = info.get("parameters")
    size = f"{info['disk_bytes'] / 1e6:,.1f} MB"
    if isinstance(parameters, int):
        size = f"{parameters:,} parameters, {size}"
    return (
        f"serving {info['name']} ({size}, beam {beam}, {threads} {workers}"
        f"{'s' if threads > 1 else ''}) at {at} (page {at}/, API {at}/translate, docs {at}/docs)"
    )


def _check_serving(host: str, api_key: str | None, warn: Callable[[str], None]) -> None:
    if api_key == "":
        raise MtError("--api-key (or MT_API_KEY) is empty; give a key or leave it unset")
    if api_key is None and not is_loopback(host):
        warn(
            f"no API key and --host {host}: anyone who can reach this address can translate; "
            "set --api-key or MT_API_KEY"
        )


def _run_until_stopped(server: uvicorn.Server, sock: socket.socket) -> None:
    # uvicorn re-raises the stop signal after its graceful shutdown; these handlers then let the
    # command end with status 0 instead of being killed by the default handler.
    previous = {sig: signal.signal(sig, _ignore) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sock.close()


def default_threads() -> int:
    """All cores but one: the event loop (parsing, answering) needs a core of its own, and torch's
    OpenMP threads that find their core busy spin and wait: on the 2-core machine under load one
    sentence took 506 ms with 2 threads and 20 ms with 1."""
    return max(1, (os.cpu_count() or 1) - 1)


def _ignore(sig: int, frame: Any) -> None:
    pass
