"""Archives built in memory for the download and source tests: the shapes the real ones have."""

from __future__ import annotations

import io
import tarfile
import zipfile


def zip_bytes(members: dict[str, str]) -> bytes:
    """A zip of text `members` (name -> text)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def tar_bytes(top: str, files: dict[str, bytes], compression: str = "gz") -> bytes:
    """A tar (`compression`: gz or xz) of `files`, each below the folder `top` ("": none)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=f"w:{compression}") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{top}/{name}" if top else name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()
