"""The decoding worker batches across clients: N concurrent requests become one model call."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from mt.catalog.modelinfo import resolve
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.serving.worker import BatchingWorker, Unavailable
from serve_support import DECODE, ScriptedTranslator, model_app, scripted_app, wait_healthy


def wait_until(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.005)


@pytest.mark.parametrize("clients", [8, 32])
def test_concurrent_requests_become_one_model_batch(tmp_path: Path, clients: int) -> None:
    """The first request holds the model; the N sent meanwhile are decoded in one call, and
    each client gets its own text back."""
    translator = ScriptedTranslator(hold_first=True)
    app = scripted_app(translator, tmp_path)
    worker = app.state.service.worker
    with TestClient(app) as client, ThreadPoolExecutor(clients + 1) as pool:
        wait_healthy(client)
        first = pool.submit(client.post, "/translate", json={"q": "first"})
        translator.entered.wait(10)
        texts = [f"text {i}" for i in range(clients)]
        answers = [pool.submit(client.post, "/translate", json={"q": text}) for text in texts]
        wait_until(lambda: worker.queued_lines == clients)
        translator.gate.set()
        assert first.result().json()["translatedText"] == "FIRST"
        results = [answer.result().json()["translatedText"] for answer in answers]
    assert results == [text.upper() for text in texts]
    assert [len(batch) for batch in translator.batches] == [1, clients]
    assert sorted(translator.batches[1]) == sorted(texts)
    assert list(worker.batch_lines) == [1, clients]


def test_arrays_and_single_texts_share_a_batch(tmp_path: Path) -> None:
    translator = ScriptedTranslator(hold_first=True)
    app = scripted_app(translator, tmp_path)
    with TestClient(app) as client, ThreadPoolExecutor(4) as pool:
        wait_healthy(client)
        pool.submit(client.post, "/translate", json={"q": "hold"})
        translator.entered.wait(10)
        array = pool.submit(client.post, "/translate", json={"q": ["a", "b\nc"]})
        single = pool.submit(client.post, "/translate", json={"q": "d"})
        wait_until(lambda: app.state.service.worker.queued_lines == 4)
        translator.gate.set()
        assert array.result().json()["translatedText"] == ["A", "B\nC"]
        assert single.result().json()["translatedText"] == "D"
    assert sorted(translator.batches[1]) == ["a", "b", "c", "d"]


def test_concurrent_model_requests_equal_one_by_one(trained_run: Path) -> None:
    """Batching changes nothing in the output: padding and sorting are invisible."""
    sentences = [
        "Where is the bakery, Wanda?",
        "I have 12 lamps.",
        "Teodor's kite is green.",
        "Does Ilse want bread?",
        "It's 7:45 already.",
        "Thank you, Oskar!",
    ] * 2
    direct = open_translator(resolve(trained_run), TranslateOptions(decode=DECODE), device="cpu")
    expected = [t.text for t in direct.translate(sentences)]
    with TestClient(model_app(trained_run)) as client, ThreadPoolExecutor(len(sentences)) as pool:
        wait_healthy(client)
        answers = list(pool.map(lambda s: client.post("/translate", json={"q": s}), sentences))
    assert [a.json()["translatedText"] for a in answers] == expected


def test_worker_waits_only_while_requests_are_being_read() -> None:
    """A lone request is decoded at once; one still being read is waited for (batch_wait)."""
    translator = ScriptedTranslator()
    worker = BatchingWorker(lambda: translator, batch_wait=5.0)
    worker.start()
    worker.ready.wait(10)

    async def scenario() -> list[list[str]]:
        started = time.monotonic()
        assert [t.text for t in await worker.translate(["alone"])] == ["ALONE"]
        assert time.monotonic() - started < 2.0  # not the 5 s window
        worker.arriving()
        first = asyncio.create_task(worker.translate(["one"]))
        await asyncio.sleep(0.2)
        job = worker.submit(["two"])
        worker.arrived()  # the second request is queued: both go in one call
        second = await worker.result(job)
        return [[t.text for t in await first], [t.text for t in second]]

    try:
        assert asyncio.run(scenario()) == [["ONE"], ["TWO"]]
    finally:
        worker.stop(10)
    assert translator.batches == [["alone"], ["one", "two"]]


def test_stop_finishes_queued_jobs_then_refuses() -> None:
    translator = ScriptedTranslator(hold_first=True)
    worker = BatchingWorker(lambda: translator)
    worker.start()
    worker.ready.wait(10)

    async def scenario() -> list[str]:
        jobs = [asyncio.create_task(worker.translate([f"t{i}"])) for i in range(3)]
        await asyncio.sleep(0.05)
        stopper = threading.Thread(target=worker.stop, args=(10,))
        stopper.start()
        translator.gate.set()
        results = [(await job)[0].text for job in jobs]
        stopper.join()
        with pytest.raises(Unavailable, match="shutting down"):
            await worker.translate(["late"])
        return results

    assert asyncio.run(scenario()) == ["T0", "T1", "T2"]


def test_too_much_queued_is_refused() -> None:
    translator = ScriptedTranslator(hold_first=True)
    worker = BatchingWorker(lambda: translator, max_queued_lines=3)
    worker.start()
    worker.ready.wait(10)

    async def scenario() -> None:
        held = asyncio.create_task(worker.translate(["held"]))
        await asyncio.sleep(0.05)
        waiting = asyncio.create_task(worker.translate(["a", "b"]))
        await asyncio.sleep(0.05)
        with pytest.raises(Unavailable, match="busy"):
            await worker.translate(["c", "d"])
        translator.gate.set()
        await held
        await waiting

    try:
        asyncio.run(scenario())
    finally:
        worker.stop(10)


def test_a_job_queued_behind_the_stop_is_refused_not_lost() -> None:
    translator = ScriptedTranslator()
    worker = BatchingWorker(lambda: translator)
    worker.start()
    worker.ready.wait(10)

    async def scenario() -> None:
        worker._queue.put(None)  # the stop mark, as stop() puts it, before the job below
        job = worker.submit(["late"])
        with pytest.raises(Unavailable, match="shutting down"):
            await asyncio.wait_for(worker.result(job), 10)

    asyncio.run(scenario())
    worker.stop(10)
    assert translator.batches == []


@pytest.mark.parametrize(
    ("return_wait", "batches"),
    [(5.0, [["a1"], ["b1", "a2"]]), (0.0, [["a1"], ["b1"], ["a2"]])],
)
def test_clients_just_answered_join_the_next_batch(
    tmp_path: Path, return_wait: float, batches: list[list[str]]
) -> None:
    """Client A's answer comes back while B waits in the queue; A sends again at once. With a
    return wait the decoder holds B's batch open for A (one model call for both), without it B
    and A's second request are two calls: the alternating half-batches busy clients fall into."""
    translator = ScriptedTranslator(hold_first=True)
    app = scripted_app(translator, tmp_path, return_wait=return_wait)
    worker = app.state.service.worker

    def client_a() -> list[str]:
        answers = [client.post("/translate", json={"q": q}) for q in ("a1", "a2")]
        return [answer.json()["translatedText"] for answer in answers]

    with TestClient(app) as client, ThreadPoolExecutor(2) as pool:
        wait_healthy(client)
        a = pool.submit(client_a)
        translator.entered.wait(10)
        b = pool.submit(client.post, "/translate", json={"q": "b1"})
        wait_until(lambda: worker.queued_lines == 1)
        translator.gate.set()
        assert a.result() == ["A1", "A2"]
        assert b.result().json()["translatedText"] == "B1"
    assert translator.batches == batches
