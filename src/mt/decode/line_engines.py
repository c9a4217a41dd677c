"""What turns Spanish sentences into English for `mt backtranslate`: a reverse run or its export,
or any line-by-line translator run as a command (`--engine "apertium -u spa-eng"`); each gives
back (spanish, english) pairs in input order, a chunk at a time.

A command is started once, and a thread feeds it the sentences while its answers are read, so
the pipe stays full (a process per chunk costs Apertium about a second). It must answer as it
reads (in bursts is fine): one that keeps every answer until its input ends gets MAX_IN_FLIGHT
lines at a time. A command that is missing, fails, or answers with another number of lines is one
MtError (exit status 2 if it cannot start, 1 if it fails); the chunks answered before stay
written. A model translates in a worker thread while the next chunk is read.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import shlex
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import IO, Protocol

from mt.catalog.modelinfo import ModelInfo
from mt.config import DecodeConfig
from mt.errors import MtError

Pair = tuple[str, str]  # (spanish, english)
MAX_IN_FLIGHT = 100_000  # sentences given to a command and not answered yet (about 20 MB)
_STDERR_TAIL = 300  # characters of a failed command's standard error quoted in the message


class LineEngine(Protocol):
    name: str  # what the sidecar records: a changed engine must not resume another's output

    def pairs(self, sentences: Iterator[str], chunk: int) -> Iterator[list[Pair]]:
        """(spanish, english) of every sentence, in order, `chunk` at a time (fewer last); an
        MtError from `sentences` comes after the chunks answered before it."""
        ...


class CommandEngine:
    """A command line, split as a shell would (no shell runs it), fed through one pipe."""

    def __init__(self, command: str) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as error:
            raise MtError(f"--engine {command!r}: {error}") from None
        if not self.argv:
            raise MtError("--engine is empty: give a command such as 'apertium -u spa-eng'")
        self.name = f"engine: {command}"
        self.command = command

    def pairs(self, sentences: Iterator[str], chunk: int) -> Iterator[list[Pair]]:
        with tempfile.TemporaryFile() as stderr:
            process = self._start(stderr)
            feeder = _Feeder(process.stdin, sentences)  # type: ignore[arg-type]
            feeder.start()
            batch: list[Pair] = []
            try:
                for raw in process.stdout:  # type: ignore[union-attr]
                    spanish = feeder.answered()
                    if spanish is None:
                        raise self._miscount(feeder.given + 1, feeder.given)
                    batch.append((spanish, raw.decode("utf-8", "replace").rstrip("\r\n")))
                    if len(batch) == chunk:
                        yield batch
                        batch = []
            except BaseException:  # a miscount, Ctrl-C, or the caller stopped reading
                process.kill()
                raise
            finally:
                feeder.stop()
                process.stdout.close()  # type: ignore[union-attr]
                returncode = process.wait()
            self._check_end(returncode, feeder, stderr)
            if batch:
                yield batch
            if feeder.error is not None:
                raise feeder.error

    def _start(self, stderr: IO[bytes]) -> subprocess.Popen:
        try:
            return subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
            )
        except FileNotFoundError:
            raise MtError(f"--engine {self.command!r}: no command {self.argv[0]!r} found") from None
        except OSError as error:
            raise MtError(f"--engine {self.command!r} cannot start: {error.strerror}") from None

    def _check_end(self, returncode: int, feeder: _Feeder, stderr: IO[bytes]) -> None:
        if returncode != 0:
            stderr.seek(0)
            said = stderr.read().decode("utf-8", "replace").strip()[-_STDERR_TAIL:]
            raise MtError(
                f"--engine {self.command!r} failed with exit status {returncode}"
                + (f": {said}" if said else ""),
                1,
            )
        if feeder.waiting():
            raise self._miscount(feeder.given - feeder.waiting(), feeder.given)

    def _miscount(self, answered: int, given: int) -> MtError:
        return MtError(
            f"--engine {self.command!r} answered {answered:,} lines for {given:,}: it must "
            "write one line for each line it reads",
            1,
        )


class _Feeder(threading.Thread):
    """Writes the sentences into the command, remembering those not answered yet; closes its
    input at the end (or at a bad input line, kept in `error`)."""

    def __init__(self, stdin: IO[bytes], sentences: Iterator[str]) -> None:
        super().__init__(daemon=True)
        self.stdin, self.sentences = stdin, sentences
        self.pending: collections.deque[str] = collections.deque()
        self.given = 0
        self.error: MtError | None = None
        self.room = threading.Condition()
        self.stopped = False

    def run(self) -> None:
        try:
            for sentence in self.sentences:
                with self.room:
                    self.room.wait_for(lambda: len(self.pending) < MAX_IN_FLIGHT or self.stopped)
                    if self.stopped:
                        return
                    self.pending.append(sentence)
                    self.given += 1
                self.stdin.write(f"{sentence}\n".encode())
        except MtError as error:
            self.error = error
        except (BrokenPipeError, ValueError):
            pass  # the command ended (or was stopped): its exit status tells why
        finally:
            with contextlib.suppress(BrokenPipeError):
                self.stdin.close()

    def answered(self) -> str | None:
        """The oldest sentence not answered yet, now answered; None when there is none."""
        with self.room:
            if not self.pending:
                return None
            sentence = self.pending.popleft()
            self.room.notify()
            return sentence

    def waiting(self) -> int:
        self.join()
        return len(self.pending)

    def stop(self) -> None:
        with self.room:
            self.stopped = True
            self.room.notify()


class ModelEngine:
    """A Spanish→English run or export, through the Translator (each sentence one piece)."""

    def __init__(
        self,
        info: ModelInfo,
        config: DecodeConfig,
        *,
        device: str = "auto",
        threads: int | None = None,
        compute_type: str = "default",
    ) -> None:
        from mt.decode.ct2_engine import require_ctranslate2
        from mt.decode.options import TranslateOptions
        from mt.decode.translator import open_translator

        if not info.direction.reverse:
            raise MtError(
                f"{info.label} translates English→Spanish; back-translation needs a "
                "Spanish→English run or export (mt prepare --reverse, then mt train)"
            )
        options = TranslateOptions(decode=config, split=False, normalize=False)
        if info.kind == "export" and config.sampling_topk != 1:
            # CTranslate2 seeds its draws when the model is loaded, not per search
            require_ctranslate2("sampling").set_random_seed(config.seed)
        self.translator = open_translator(
            info, options, device=device, threads=threads, compute_type=compute_type
        )
        self.name = f"model: {info.name or info.directory.resolve()}"

    def translate(self, sentences: Sequence[str]) -> list[str]:
        return [translation.text for translation in self.translator.translate(list(sentences))]

    def pairs(self, sentences: Iterator[str], chunk: int) -> Iterator[list[Pair]]:
        """Chunk n+1 is read while chunk n is translated in a worker thread."""
        with ThreadPoolExecutor(max_workers=1) as worker:
            batch = list(itertools.islice(sentences, chunk))
            pending: Future[list[str]] | None = (
                worker.submit(self.translate, batch) if batch else None
            )
            while pending is not None:
                error: MtError | None = None
                try:
                    following = list(itertools.islice(sentences, chunk))
                except MtError as found:
                    following, error = [], found
                yield list(zip(batch, pending.result(), strict=True))
                if error is not None:
                    raise error
                batch = following
                pending = worker.submit(self.translate, batch) if batch else None
