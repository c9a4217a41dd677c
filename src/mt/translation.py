"""Translate streams of sentences with a trained run, in bounded chunks and in input order."""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TextIO

import torch

from mt.atomic import atomic_output
from mt.batching import encode_sources, pad
from mt.config import DecodeConfig
from mt.decode import Hypothesis, search
from mt.errors import MtError
from mt.rundir import LoadedRun
from mt.tokenization import BOS, EOS, PAD

CHUNK_LINES = 2000
"""Lines read before decoding: sorted by length inside a chunk for dense batches, and the bound
on what is held in memory however long the input is."""

_INVISIBLE = re.compile(r"[\u200b\u200c\u200d\u2060\ufeff]")
_SPACES = re.compile(r"\s+")


def clean_input(text: str) -> str:
    """The cleaning `mt prepare` applies, plus removal of control characters."""
    text = unicodedata.normalize("NFC", _INVISIBLE.sub("", text))
    text = "".join(ch if unicodedata.category(ch) != "Cc" else " " for ch in text)
    return _SPACES.sub(" ", text).strip()


def read_lines(stream: BinaryIO, name: str) -> Iterator[str]:
    """Lines without their newline; undecodable bytes are an error naming the line."""
    for number, raw in enumerate(stream, start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise MtError(f"{name}:{number}: not valid UTF-8 (byte {error.start + 1})") from None
        if number == 1:
            line = line.removeprefix("\ufeff")
        yield line.rstrip("\r\n")


@dataclass(frozen=True)
class Translation:
    source: str
    hypotheses: tuple[tuple[str, float], ...]  # (detokenized text, score), best first

    @property
    def text(self) -> str:
        return self.hypotheses[0][0] if self.hypotheses else ""


class Translator:
    """A loaded run plus decode settings; translate() keeps order and streams chunk by chunk."""

    def __init__(
        self,
        run: LoadedRun,
        config: DecodeConfig,
        device: torch.device,
        warn: Callable[[str], None] = lambda message: None,
    ) -> None:
        self.run = run
        self.config = config
        self.device = device
        self.warn = warn
        self.max_src_len = run.config.max_positions - 1
        self.decoded_tokens = 0

    def translate(self, lines: Iterable[str]) -> Iterator[Translation]:
        chunk: list[str] = []
        offset = 0
        for line in lines:
            chunk.append(line)
            if len(chunk) == CHUNK_LINES:
                yield from self._translate_chunk(chunk, offset)
                offset += len(chunk)
                chunk = []
        if chunk:
            yield from self._translate_chunk(chunk, offset)

    def _translate_chunk(self, lines: list[str], offset: int) -> list[Translation]:
        cleaned = [clean_input(line) for line in lines]
        ids = self.run.source.encode_batch(cleaned)
        for index, sentence_ids in enumerate(ids):
            if len(sentence_ids) >= self.max_src_len:
                self.warn(
                    f"line {offset + index + 1}: {len(sentence_ids)} labels, longer than the "
                    f"model's {self.max_src_len - 1}; translating the first {self.max_src_len - 1}"
                )
        sources = encode_sources(ids, self.max_src_len)
        results: list[tuple[tuple[str, float], ...]] = [()] * len(lines)
        order = sorted((i for i, text in enumerate(cleaned) if text), key=lambda i: len(sources[i]))
        for start in range(0, len(order), self.config.batch_size):
            rows = order[start : start + self.config.batch_size]
            for row, hyps in zip(rows, self._search([sources[i] for i in rows]), strict=True):
                results[row] = tuple((self.run.target.decode(h.tokens), h.score) for h in hyps)
        return [Translation(line, hyps) for line, hyps in zip(lines, results, strict=True)]

    @torch.inference_mode()
    def _search(self, sources: list) -> list[list[Hypothesis]]:
        src = pad(sources).to(self.device)
        hypotheses = search(self.run.model, src, src != PAD, self.config)
        self.decoded_tokens += sum(len(h[0].tokens) + 1 for h in hypotheses if h)
        return hypotheses

    def attention(self, sentence: str) -> tuple[list[str], list[str], torch.Tensor]:
        """Source pieces, target pieces and the (target, source) cross-attention of the best
        translation, averaged over the heads of the last decoder layer."""
        text = clean_input(sentence)
        source_ids = encode_sources([self.run.source.encode(text)], self.max_src_len)[0]
        best = self._search([source_ids])[0][0]
        src = torch.as_tensor(source_ids)[None].to(self.device)
        tgt_in = torch.tensor([[BOS, *best.tokens]], device=self.device)
        weights = self.run.model.cross_attention_map(src, src != PAD, tgt_in)[0].cpu()
        source_pieces = [self.run.source.id_to_piece(int(i)) for i in source_ids]
        target_pieces = [self.run.target.id_to_piece(int(i)) for i in (*best.tokens, EOS)]
        return source_pieces, target_pieces, weights


def open_translator(
    model_dir: Path,
    config: DecodeConfig,
    *,
    device: str = "auto",
    checkpoint: str = "best",
    warn: Callable[[str], None] = lambda message: None,
) -> Translator:
    """The one way callers (CLI, server, benchmarks) open a model directory for translation."""
    from mt.distributed import resolve_device
    from mt.rundir import load_run

    torch_device = resolve_device(device)
    return Translator(load_run(model_dir, checkpoint, torch_device), config, torch_device, warn)


def file_lines(path: Path) -> Iterator[str]:
    """The lines of --input, decoded as read_lines does."""
    if not path.is_file():
        raise MtError(f"--input {path}: no such file")
    with path.open("rb") as stream:
        yield from read_lines(stream, str(path))


def write_translations(
    translations: Iterable[Translation], output_file: Path | None, *, n_best: bool
) -> None:
    """Stream to stdout, or to a temporary file renamed into place when complete."""

    def emit(stream: TextIO) -> None:
        for index, translation in enumerate(translations):
            if n_best:
                for hypothesis, score in translation.hypotheses:
                    stream.write(f"{index}\t{score:.4f}\t{hypothesis}\n")
            else:
                stream.write(translation.text + "\n")
            if stream is sys.stdout:
                stream.flush()  # a pipe sees each translation as soon as it exists

    if output_file is None:
        emit(sys.stdout)
        return
    if output_file.is_dir():
        raise MtError(f"--output {output_file} is a directory; give a file name")
    with atomic_output(output_file, text=True) as stream:
        emit(stream)
