"""The web page in a real browser: headless Chromium, driven over the DevTools protocol, types
into the box, presses the button (and Ctrl+Enter) and reads the translation from the page.

Chromium is required, never skipped: `make test` installs it where it can (root with apt).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from mt.catalog.modelinfo import resolve
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.serving.limits import Limits
from serve_support import DECODE, model_app, threaded_server

INSTALL = (
    "the browser test needs Chromium: install it with `apt-get install chromium` (Debian/Ubuntu; "
    "`make test` does this itself when run as root) or put a chromium binary on PATH"
)


def chromium_binary() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail(INSTALL)
    return found


class DevTools:
    """The smallest Chrome DevTools protocol client: one page, commands answered in order."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.next_id = 0

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=30))
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message.get("result", {})

    def text(self, element_id: str, prop: str = "textContent") -> Any:
        return self.evaluate(f"document.getElementById('{element_id}').{prop}")

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def wait_for(self, expression: str, seconds: float = 30.0) -> Any:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"page never satisfied: {expression}")

    def type_text(self, text: str) -> None:
        for char in text:
            self.send("Input.dispatchKeyEvent", type="keyDown", text=char, key=char)
            self.send("Input.dispatchKeyEvent", type="keyUp", key=char)

    def click(self, element_id: str) -> None:
        box = self.evaluate(
            f"JSON.stringify(document.getElementById('{element_id}').getBoundingClientRect())"
        )
        rect = json.loads(box)
        x, y = rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def ctrl_enter(self) -> None:
        for kind in ("rawKeyDown", "keyUp"):
            self.send(
                "Input.dispatchKeyEvent",
                type=kind,
                key="Enter",
                code="Enter",
                windowsVirtualKeyCode=13,
                modifiers=2,  # Ctrl
            )


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[DevTools]:
    binary = chromium_binary()
    process = subprocess.Popen(
        [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--remote-debugging-port=0", f"--user-data-dir={tmp_path / 'profile'}",
         "--window-size=1000,800", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    endpoint: list[str] = []
    found = threading.Event()

    def read_stderr() -> None:
        for line in process.stderr:
            match = re.search(r"DevTools listening on ws://([\d.]+:\d+)/", line)
            if match and not endpoint:
                endpoint.append(match.group(1))
                found.set()

    threading.Thread(target=read_stderr, daemon=True).start()
    try:
        assert found.wait(60), f"{binary} did not open its DevTools port"
        pages = httpx.get(f"http://{endpoint[0]}/json/list", timeout=10).json()
        page = next(target for target in pages if target["type"] == "page")
        with connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=20) as socket:
            yield DevTools(socket)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


def test_page_types_translates_and_shows_errors(browser: DevTools, trained_run: Path) -> None:
    direct = open_translator(resolve(trained_run), TranslateOptions(decode=DECODE), device="cpu")
    first, second = "Where is the harbour, Bruno?", "I have 4 keys."
    translations = list(direct.translate([first, second]))
    expected = [t.text for t in translations]
    percent = round(translations[0].confidence * 100)
    app = model_app(trained_run, Limits(max_chars=60))
    with threaded_server(app) as (url, _):
        browser.send("Page.navigate", url=url + "/")
        browser.wait_for(
            f"document.getElementById('model').textContent.includes('{trained_run.name}')"
        )
        assert "parameters" in browser.text("model")

        browser.evaluate("document.getElementById('source').focus()")
        browser.type_text(first)
        assert browser.text("source", "value") == first
        browser.click("translate")
        shown = browser.wait_for("document.getElementById('result').textContent")
        assert shown == expected[0]
        assert re.fullmatch(
            r"\d+ ms", browser.evaluate("document.getElementById('elapsed').textContent")
        )
        assert browser.evaluate("document.getElementById('copy').hidden") is False
        confidence = browser.text("confidence")
        assert confidence.startswith(f"confidence {percent}%")
        assert browser.evaluate("document.getElementById('confidence').hidden") is False

        browser.evaluate("document.getElementById('source').select()")
        browser.type_text(second)
        browser.ctrl_enter()
        browser.wait_for(
            f"document.getElementById('result').textContent === {json.dumps(expected[1])}"
        )

        browser.evaluate("document.getElementById('source').select()")
        browser.type_text("x" * 61)
        browser.click("translate")
        error = browser.wait_for("!$('error').hidden && $('error').textContent")
        assert "413" in error and "at most 60" in error
