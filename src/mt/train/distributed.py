"""PyTorch's own distributed engine, used when `torchrun` sets WORLD_SIZE: DDP, NCCL or gloo.

A single process gets the same interface with no-op collectives, so the loop has one code path.
Every rank must call the collectives alike: the loop calls them at points set by the step alone.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import TypeVar

import torch
import torch.distributed as dist
from torch import Tensor, nn

from mt.errors import MtError

Agreed = TypeVar("Agreed")


@dataclass(frozen=True)
class Distributed:
    rank: int = 0
    world_size: int = 1
    local_rank: int = 0

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def enabled(self) -> bool:
        return self.world_size > 1

    def wrap(self, model: nn.Module, device: torch.device) -> nn.Module:
        if not self.enabled:
            return model
        from torch.nn.parallel import DistributedDataParallel

        ids = [device.index] if device.type == "cuda" else None
        return DistributedDataParallel(model, device_ids=ids)

    def no_sync(self, wrapped: nn.Module) -> contextlib.AbstractContextManager:
        """Skip the gradient all-reduce for all but the last micro-batch of a step."""
        if self.enabled and hasattr(wrapped, "no_sync"):
            return wrapped.no_sync()
        return contextlib.nullcontext()

    def sum(self, values: Tensor) -> Tensor:
        """``values`` summed over all ranks; asynchronous on CUDA (no host sync)."""
        if not self.enabled:
            return values
        total = values.clone()
        dist.all_reduce(total)
        return total

    def agree(self, value: Agreed) -> Agreed:
        """Rank 0's value (a stopping decision, its clock), so every rank acts alike."""
        if not self.enabled:
            return value
        box = [value]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def barrier(self) -> None:
        if self.enabled:
            dist.barrier()

    def close(self) -> None:
        if self.enabled and dist.is_initialized():
            dist.destroy_process_group()


def setup_distributed(device_name: str) -> tuple[Distributed, str]:
    """Join torchrun's process group on the local rank's GPU (NCCL) where CUDA is asked for or
    available, else the CPU (gloo); the handle and the device."""
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    if world_size <= 1:
        return Distributed(), device_name
    rank = int(os.environ["RANK"])
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if device_name.startswith("cuda:"):
        raise MtError(f"--device {device_name}: under torchrun each process uses cuda:LOCAL_RANK")
    use_cuda = device_name in ("auto", "cuda") and torch.cuda.is_available()
    if use_cuda:
        if local_rank >= torch.cuda.device_count():
            raise MtError(
                f"local rank {local_rank} has no GPU: this node has {torch.cuda.device_count()}; "
                "give torchrun --nproc_per_node at most that many"
            )
        torch.cuda.set_device(local_rank)
        device_name = f"cuda:{local_rank}"
    elif device_name == "auto":
        device_name = "cpu"
    if not dist.is_initialized():
        if use_cuda:
            dist.init_process_group(backend="nccl", device_id=torch.device(device_name))
        else:
            dist.init_process_group(backend="gloo")
    return Distributed(rank=rank, world_size=world_size, local_rank=local_rank), device_name
