"""What turns Spanish sentences into English for `mt backtranslate`: a reverse run or its export,
or any line-by-line translator run as a command (`--engine "apertium -u spa-eng"`).

Both take a list of sentences and give back exactly as many translations, one line each. A
command gets each chunk on its standard input, closed at the end, and must write one line per
line read: starting it anew per chunk costs a process start, and in return a translator that
buffers its output until its input ends (most do) cannot deadlock the pipe. A command that is
missing, fails, or answers with another number of lines is one clear MtError (exit status 2 for
a command that cannot start, 1 for one that fails while running).
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from mt.config import DecodeConfig
from mt.errors import MtError
from mt.run_configs import read_direction

_STDERR_TAIL = 300  # characters of a failed command's standard error quoted in the message


class LineEngine(Protocol):
    name: str  # what the sidecar records: a changed engine must not resume another's output

    def translate(self, sentences: Sequence[str]) -> list[str]: ...


class CommandEngine:
    """A command line, split as a shell would (no shell runs it), fed one chunk at a time."""

    def __init__(self, command: str) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as error:
            raise MtError(f"--engine {command!r}: {error}") from None
        if not self.argv:
            raise MtError("--engine is empty: give a command such as 'apertium -u spa-eng'")
        self.name = f"engine: {command}"
        self.command = command

    def translate(self, sentences: Sequence[str]) -> list[str]:
        if not sentences:
            return []
        data = "".join(f"{sentence}\n" for sentence in sentences).encode("utf-8")
        try:
            done = subprocess.run(self.argv, input=data, capture_output=True, check=False)
        except FileNotFoundError:
            raise MtError(f"--engine {self.command!r}: no command {self.argv[0]!r} found") from None
        except OSError as error:
            raise MtError(f"--engine {self.command!r} cannot start: {error.strerror}") from None
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip()[-_STDERR_TAIL:]
            raise MtError(
                f"--engine {self.command!r} failed with exit status {done.returncode}"
                + (f": {said}" if said else ""),
                1,
            )
        lines = done.stdout.decode("utf-8", "replace").split("\n")
        if lines and lines[-1] == "":
            lines.pop()  # the last line's newline ends it
        if len(lines) != len(sentences):
            raise MtError(
                f"--engine {self.command!r} answered {len(lines):,} lines for {len(sentences):,}: "
                "it must write one line for each line it reads",
                1,
            )
        return lines


class ModelEngine:
    """A Spanish→English run or export, through the Translator that `mt translate` uses (each
    sentence one piece: they are split already; no casual-English normalising)."""

    def __init__(
        self,
        model_dir: Path,
        config: DecodeConfig,
        *,
        device: str = "auto",
        threads: int | None = None,
        compute_type: str = "default",
    ) -> None:
        from mt.decode.options import TranslateOptions
        from mt.decode.translator import open_translator

        if not read_direction(model_dir).reverse:
            raise MtError(
                f"{model_dir} translates English→Spanish; back-translation needs a "
                "Spanish→English run or export (mt prepare --reverse, then mt train)"
            )
        options = TranslateOptions(decode=config, split=False, normalize=False)
        self.translator = open_translator(
            model_dir, options, device=device, threads=threads, compute_type=compute_type
        )
        self.config = config
        self.name = f"model: {model_dir.resolve()}"

    def translate(self, sentences: Sequence[str]) -> list[str]:
        return [translation.text for translation in self.translator.translate(list(sentences))]
