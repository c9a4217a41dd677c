"""Tensor files written atomically and read back without ever executing code.

Weights and optimizer tensors go to safetensors with a SHA-256 of their tensor bytes in the
header; configs and counters go to JSON through mt.storage.files. Every file is written through
mt.storage.atomic, so a crash leaves either the old file or the new one, never half of one.
Resumable checkpoints are step-numbered pairs (``step-N.safetensors`` then ``step-N.json``, the
JSON written last), so the newest JSON always names a complete tensor file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_safetensors_bytes
from safetensors.torch import save as save_safetensors_bytes
from torch import Tensor

from mt.errors import MtError
from mt.storage.atomic import atomic_write_bytes

CHECKSUM_KEY = "mt_sha256"


def tensors_digest(tensors: dict[str, Tensor]) -> str:
    digest = hashlib.sha256()
    for name in sorted(tensors):
        tensor = tensors[name].detach().contiguous().cpu()
        digest.update(name.encode())
        digest.update(str(tensor.dtype).encode())
        digest.update(str(tuple(tensor.shape)).encode())
        digest.update(
            tensor.reshape(-1).view(torch.uint8).numpy().tobytes() if tensor.numel() else b""
        )
    return digest.hexdigest()


def save_tensors(
    path: Path, tensors: dict[str, Tensor], metadata: dict[str, str] | None = None
) -> None:
    # Tied weights share storage, which safetensors refuses: store independent copies.
    plain = {name: t.detach().cpu().contiguous().clone() for name, t in tensors.items()}
    header = {**(metadata or {}), CHECKSUM_KEY: tensors_digest(plain)}
    atomic_write_bytes(path, save_safetensors_bytes(plain, metadata=header))


def load_tensors(path: Path) -> tuple[dict[str, Tensor], dict[str, str]]:
    """Tensors and header metadata; a missing, truncated, foreign or corrupt file is an MtError."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise MtError(f"{path}: file is missing") from None
    except OSError as error:
        raise MtError(f"{path}: cannot read ({error.strerror})") from None
    try:
        tensors = load_safetensors_bytes(data)
        metadata = _header_metadata(data)
    except (SafetensorError, ValueError, json.JSONDecodeError, UnicodeDecodeError):
        raise MtError(f"{path}: not a valid safetensors file (truncated or corrupted)") from None
    expected = metadata.get(CHECKSUM_KEY)
    if expected is None:
        raise MtError(f"{path}: has no {CHECKSUM_KEY} checksum; not written by mt")
    if tensors_digest(tensors) != expected:
        raise MtError(f"{path}: checksum mismatch, the file is corrupted")
    return tensors, metadata


def _header_metadata(data: bytes) -> dict[str, str]:
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + size].decode("utf-8"))
    return dict(header.get("__metadata__", {}))


def optimizer_to_tensors(state: dict[str, Any]) -> tuple[dict[str, Tensor], dict[str, Any]]:
    """Split a torch optimizer state dict into tensors (safetensors) and the rest (JSON)."""
    tensors: dict[str, Tensor] = {}
    scalars: dict[str, dict[str, Any]] = {}
    for param_id, param_state in state["state"].items():
        for key, value in param_state.items():
            if isinstance(value, Tensor):
                tensors[f"optimizer.{param_id}.{key}"] = value
            else:
                scalars.setdefault(str(param_id), {})[key] = value
    return tensors, {"param_groups": state["param_groups"], "scalars": scalars}


def optimizer_from_tensors(tensors: dict[str, Tensor], rest: dict[str, Any]) -> dict[str, Any]:
    state: dict[int, dict[str, Any]] = {}
    for name, value in tensors.items():
        if name.startswith("optimizer."):
            _, param_id, key = name.split(".", 2)
            state.setdefault(int(param_id), {})[key] = value
    for param_id, values in rest["scalars"].items():
        state.setdefault(int(param_id), {}).update(values)
    return {"state": state, "param_groups": rest["param_groups"]}
