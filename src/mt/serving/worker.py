"""One decoding thread fed by the event loop: requests from all clients become one model batch.

A request queues its lines with an asyncio future; the thread takes every waiting job, waits a few
milliseconds for requests still being read, and decodes them all in one `Translator.translate`
call. So throughput grows with clients instead of queueing behind a lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("mt.serve")


class Unavailable(Exception):
    """The worker cannot take the job now (loading, shutting down, or too much queued)."""


@dataclass
class _Job:
    lines: list[str]
    future: asyncio.Future
    loop: asyncio.AbstractEventLoop
    glossary: Any = None  # the request's glossary (mt.decode.glossary.Glossary), if any
    abandoned: bool = False  # the request timed out; the decoder skips the job if not started
    number: int = 0  # order of submission, to tell jobs sent after a model call from those before


_STOP = None


class BatchingWorker:
    """Loads the translator and decodes in one thread (so `/health` answers 503 while it loads,
    and torch's thread setting applies where the model runs); requests await `translate()`."""

    def __init__(
        self,
        load: Callable[[], Any],
        *,
        threads: int | None = None,
        batch_wait: float = 0.005,
        return_wait: float = 0.02,
        max_batch_lines: int = 256,
        max_queued_lines: int = 20_000,
        on_ready: Callable[[Any], None] = lambda translator: None,
        on_failure: Callable[[str], None] = lambda message: None,
    ) -> None:
        self._load = load
        self.threads = threads
        self.batch_wait = batch_wait
        self.return_wait = return_wait
        self.max_batch_lines = max_batch_lines
        self.max_queued_lines = max_queued_lines
        self._on_ready = on_ready
        self._on_failure = on_failure
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="mt-decoder", daemon=True)
        self._lock = threading.Lock()
        self._queued_lines = 0
        self._arriving = 0  # requests being read on the event loop, soon to be jobs
        self._submitted = 0  # jobs numbered so far
        self._answered = 0  # requests the last model call answered ...
        self._answered_after = 0  # ... when this many jobs had been submitted
        self.ready = threading.Event()
        self.stopping = False
        self.failure: str | None = None
        self.translator: Any = None
        self.batch_lines: deque[int] = deque(maxlen=10_000)  # lines per model call, newest last

    # ----- event-loop side -----------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float | None = None) -> None:
        """Finish every job already queued, then end the thread."""
        self.stopping = True
        if self._thread.is_alive():
            self._queue.put(_STOP)
            self._thread.join(timeout)

    def arriving(self) -> None:
        """A request has started to be read; the decoder waits a little for it to join."""
        with self._lock:
            self._arriving += 1

    def arrived(self) -> None:
        with self._lock:
            self._arriving -= 1

    @property
    def queued_lines(self) -> int:
        return self._queued_lines

    def submit(self, lines: list[str], glossary: Any = None) -> _Job:
        """Queue the lines (with the request's glossary) for the next model call; Unavailable
        when that cannot be now."""
        if self.stopping:
            raise Unavailable("the server is shutting down")
        if not self.ready.is_set():
            raise Unavailable(
                "the model is still loading"
                if self.failure is None
                else f"the model failed to load: {self.failure}"
            )
        with self._lock:
            if self._queued_lines + len(lines) > self.max_queued_lines:
                raise Unavailable("the server is busy (too many sentences queued); retry later")
            self._queued_lines += len(lines)
            self._submitted += 1
            number = self._submitted
        loop = asyncio.get_running_loop()
        job = _Job(lines, loop.create_future(), loop, glossary, number=number)
        self._queue.put(job)
        return job

    async def result(self, job: _Job) -> list[Any]:
        """One Translation per line, in order. A caller that stops waiting (its timeout cancels
        it) leaves the job marked abandoned, so the decoder skips it if it has not started."""
        try:
            return await job.future
        except asyncio.CancelledError:
            job.abandoned = True
            raise

    async def translate(self, lines: list[str]) -> list[Any]:
        return await self.result(self.submit(lines))

    # ----- decoding thread ---------------------------------------------------------------------

    def _run(self) -> None:
        # torch's threads are set in this thread (open_run sets them again for a run); a model
        # searched by CTranslate2 never imports torch
        if self.threads is not None and "torch" in sys.modules:
            import torch

            torch.set_num_threads(self.threads)
        try:
            self.translator = self._load()
            self._on_ready(self.translator)
        except Exception as error:  # reported to the operator; the server stops
            self.failure = str(error) or type(error).__name__
            log.debug("model failed to load", exc_info=True)
            self._on_failure(self.failure)
            return
        self.ready.set()
        while True:
            first = self._queue.get()
            if first is _STOP:
                break
            jobs, stop = self._gather(first)
            self._decode(jobs)
            if stop:
                break
        self._refuse_late_jobs()

    def _refuse_late_jobs(self) -> None:
        """A job queued behind the stop mark (submitted as the stop began) is answered 503."""
        while True:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                return
            if job is not _STOP:
                _hand_back(job, None, Unavailable("the server is shutting down"))

    def _gather(self, first: _Job) -> tuple[list[_Job], bool]:
        """Every job already waiting, plus those arriving within `batch_wait` while requests are
        still being read, and within `return_wait` while fewer clients than the last model call
        answered have sent again (else 32 clients settle into two alternating batches of 16); True
        as well when the stop mark was met."""
        jobs = [first]
        lines = len(first.lines)
        started = time.perf_counter()
        returned = int(first.number > self._answered_after)
        while lines < self.max_batch_lines:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                waited = time.perf_counter() - started
                remaining = max(
                    self.batch_wait - waited if self._arriving > 0 else 0.0,
                    self.return_wait - waited if returned < self._answered else 0.0,
                )
                if remaining <= 0:
                    break
                try:
                    job = self._queue.get(timeout=min(remaining, 0.001))
                except queue.Empty:
                    continue
            if job is _STOP:
                return jobs, True
            jobs.append(job)
            lines += len(job.lines)
            returned += job.number > self._answered_after
        return jobs, False

    def _decode(self, jobs: list[_Job]) -> None:
        with self._lock:
            self._queued_lines -= sum(len(job.lines) for job in jobs)
        live = [job for job in jobs if not job.abandoned]
        if not live:
            return
        lines = [line for job in live for line in job.lines]
        self.batch_lines.append(len(lines))
        try:
            translations = self._translate(live, lines)
        except Exception as error:  # a bug: each waiting request answers 500
            log.exception("decoding failed")
            for job in live:
                _hand_back(job, None, error)
            return
        with self._lock:
            self._answered, self._answered_after = len(live), self._submitted
        start = 0
        for job in live:
            _hand_back(job, translations[start : start + len(job.lines)], None)
            start += len(job.lines)

    def _translate(self, jobs: list[_Job], lines: list[str]) -> list[Any]:
        """One model call for all the jobs; each line keeps its request's glossary."""
        if all(job.glossary is None for job in jobs):
            return list(self.translator.translate(lines))
        glossaries = [job.glossary for job in jobs for _ in job.lines]
        return self.translator.translate_each(lines, glossaries)


def _hand_back(job: _Job, result: list[Any] | None, error: Exception | None) -> None:
    """Resolve the job's future on its own event loop; a loop that has closed meanwhile (its
    request is gone) is no error."""

    def settle() -> None:
        if job.future.done():
            return
        if error is not None:
            job.future.set_exception(error)
        else:
            job.future.set_result(result)

    with contextlib.suppress(RuntimeError):  # "Event loop is closed"
        job.loop.call_soon_threadsafe(settle)
