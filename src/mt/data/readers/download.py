"""Fetch the English-Spanish corpus (URL or local file; zip, gzip or TSV) and store it as a TSV.

The stored file keeps every line of the source in order, cut to its first two columns, so a line
number that `mt prepare` reports is also the line number in the source.
"""

from __future__ import annotations

import gzip
import http.client
import io
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from mt.errors import MtError
from mt.storage.atomic import atomic_write_text

DEFAULT_SOURCE = "https://storage.googleapis.com/download.tensorflow.org/data/spa-eng.zip"
DEFAULT_OUT = Path("data/spa-eng.tsv")
_MEMBER_SUFFIXES = (".txt", ".tsv")
_SNIFF_LINES = 50


@dataclass(frozen=True)
class Downloaded:
    out: Path
    source: str
    member: str | None  # the file taken from a zip archive
    lines: int
    pairs: int  # lines with a non-empty English and Spanish side


def download_corpus(
    *, out: Path = DEFAULT_OUT, source: str = DEFAULT_SOURCE, timeout: float = 60.0
) -> Downloaded:
    """Fetch `source`, check it holds tab-separated pairs, write `out` atomically."""
    data = _fetch(source, timeout=timeout)
    member = None
    if data.startswith(b"PK\x03\x04"):
        member, data = _zip_member(source, data)
    elif data.startswith(b"\x1f\x8b"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as error:
            raise MtError(f"{source}: broken gzip file: {error}") from None
    name = f"{source}:{member}" if member else source
    lines = _two_columns(name, data)
    pairs = sum(1 for line in lines if _is_pair(line))
    if pairs == 0:
        raise MtError(
            f"{name}: no english<TAB>spanish line in {len(lines)} lines "
            "(for a CSV with a header, run `mt prepare FILE.csv` directly)"
        )
    atomic_write_text(out, "".join(f"{line}\n" for line in lines))
    return Downloaded(out=out, source=source, member=member, lines=len(lines), pairs=pairs)


def _fetch(source: str, *, timeout: float) -> bytes:
    if source.startswith(("http://", "https://")):
        try:
            with urllib.request.urlopen(source, timeout=timeout) as response:
                return response.read()
        except (OSError, http.client.HTTPException) as error:  # URLError is an OSError
            plain = isinstance(error, urllib.error.URLError) and not isinstance(
                error, urllib.error.HTTPError
            )
            reason = error.reason if plain else error
            raise MtError(
                f"cannot download {source}: {reason}; download it by hand from {DEFAULT_SOURCE} "
                f"and run `mt download --source PATH`, or put a TSV at {DEFAULT_OUT}"
            ) from None
    path = Path(source)
    if path.is_dir():
        raise MtError(f"--source {source} is a directory, not a file")
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise MtError(f"--source {source} does not exist (give a URL or a local file)") from None
    except OSError as error:
        raise MtError(f"cannot read {source}: {error.strerror}") from None


def _zip_member(source: str, data: bytes) -> tuple[str, bytes]:
    """The text member with tab-separated pairs (spa.txt, not _about.txt)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = [info.filename for info in archive.infolist() if not info.is_dir()]
        for name in sorted(names, key=lambda n: -archive.getinfo(n).file_size):
            base = PurePosixPath(name).name
            if base.startswith(("_", ".")) or not base.lower().endswith(_MEMBER_SUFFIXES):
                continue
            content = archive.read(name)
            if _looks_tabular(content):
                return name, content
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as error:
        raise MtError(f"{source}: broken zip archive: {error}") from None
    raise MtError(
        f"{source}: no .txt or .tsv member with english<TAB>spanish lines "
        f"(members: {', '.join(names) or 'none'})"
    )


def _looks_tabular(content: bytes) -> bool:
    head = content.split(b"\n", _SNIFF_LINES)[:_SNIFF_LINES]
    return sum(b"\t" in line for line in head) > len(head) // 2


def _two_columns(name: str, data: bytes) -> list[str]:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise MtError(
            f"{name} line {line}: not valid UTF-8; convert it, e.g. `iconv -f latin1 -t utf-8`"
        ) from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    # Drop the attribution column of newer exports; keep bad lines for `mt prepare` to report.
    return ["\t".join(line.removesuffix("\r").split("\t", 2)[:2]) for line in lines]


def _is_pair(line: str) -> bool:
    english, tab, spanish = line.partition("\t")
    return bool(tab and english.strip() and spanish.strip())
