"""`mt serve` as a command: a real process on a free port, SIGTERM, and a graceful drain."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import uvicorn

from conftest import cli_output
from mt.serving.server import _Server, is_loopback
from serve_support import ScriptedTranslator, free_port, scripted_app, wait_healthy


def test_mt_serve_process_translates_and_exits_0_on_sigterm(trained_run: Path, tmp_path) -> None:
    port = free_port()
    log = (tmp_path / "serve.log").open("w+")
    process = subprocess.Popen(
        [sys.executable, "-m", "mt", "serve", str(trained_run), "--port", str(port),
         "--beam-size", "2", "--threads", "1", "--device", "cpu"],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            wait_healthy(client)
            answer = client.post("/translate", json={"q": "Thank you, Nadia!", "target": "es"})
            assert answer.status_code == 200 and answer.json()["translatedText"]
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
    output = Path(log.name).read_text()
    assert f"listening on http://127.0.0.1:{port}" in output and "no API key" in output
    assert f"serving {trained_run.name} (" in output and " MB, beam 2, 1 torch thread)" in output
    assert "POST /translate 200 1 sentence " in output and "Nadia" not in output
    assert "stopped" in output and "Traceback" not in output


def test_sigterm_finishes_requests_in_flight(tmp_path) -> None:
    """A stop signal while the model is busy: /health turns 503, new connections are refused,
    and the request in flight still gets its translation."""
    translator = ScriptedTranslator(hold_first=True)
    app = scripted_app(translator, tmp_path)
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = _Server(config, app.state.service)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    with httpx.Client(base_url=url, timeout=30) as client, ThreadPoolExecutor(1) as pool:
        wait_healthy(client)
        in_flight = pool.submit(client.post, "/translate", json={"q": "in flight"})
        translator.entered.wait(10)
        server.handle_exit(signal.SIGTERM, None)
        assert app.state.service.unavailable() == "the server is shutting down"
        deadline = time.monotonic() + 10
        while _accepts(port):  # the listening socket closes while the request still waits
            assert time.monotonic() < deadline
            time.sleep(0.05)
        translator.gate.set()
        answer = in_flight.result(30)
    thread.join(30)
    assert answer.status_code == 200 and answer.json()["translatedText"] == "IN FLIGHT"
    assert not thread.is_alive() and app.state.service.worker.stopping


def _accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def test_bad_directory_taken_port_and_empty_key_are_one_line(trained_run: Path, tmp_path) -> None:
    assert "no such model: not a model name" in cli_output("serve", tmp_path / "missing", code=2)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        taken_output = cli_output("serve", trained_run, "--port", port, code=2)
    assert "cannot listen on 127.0.0.1:" in taken_output
    empty = cli_output("serve", trained_run, "--api-key", "", code=2)
    assert "--api-key (or MT_API_KEY) is empty" in empty
    no_chars = cli_output("serve", trained_run, "--max-chars", "0", code=2)
    assert "--max-chars must be positive" in no_chars
    negative = cli_output("serve", trained_run, "--max-alternatives", "-1", code=2)
    assert "--max-alternatives must be >= 0" in negative
    missing = cli_output("serve", trained_run, "--dictionary", tmp_path / "none.txt", code=2)
    assert "none.txt: no such file" in missing  # read at start, before listening


def test_a_directory_that_is_not_a_model_stops_the_server(tmp_path) -> None:
    output = cli_output("serve", tmp_path, "--port", str(free_port()), code=2)
    assert "model.json" in output


def test_loopback_addresses() -> None:
    assert all(is_loopback(host) for host in ("127.0.0.1", "::1", "localhost", "127.0.0.2"))
    assert not any(is_loopback(host) for host in ("0.0.0.0", "192.168.1.5", "::", "example.org"))
