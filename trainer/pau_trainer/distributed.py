"""One job as N processes on torch.distributed: torchrun launches the ranks, DDP averages the LoRA gradients.

Why DDP (docs/scale.md): the trainable state is a LoRA adapter (a few MB) and its AdamW moments;
only those gradients cross the wire (DDP buckets only parameters that require grad), and every rank holds
the frozen base. That fits any base that fits one device in the training dtype; FSDP / DeepSpeed ZeRO-3
(sharding the base) is for bases that do not, and is not built here.

The contract with the rest of the trainer:
- a job is the same whatever N: `batch_size` (SFT) and `mini_batch_size` (GRPO) are the global batch of one
  optimizer step; rank r takes items r, r+N, ... of it, and every loss is normalised by the global token
  count, so one step's loss and gradients equal the single-process ones (tested to a stated tolerance);
- rank 0 alone writes (lock, saves, result.json, events on stdout, TensorBoard); the others read saves;
- every decision that ends or pauses the loop (cancel, a finished job, where to resume) is taken
  collectively, so all ranks stop together.
With N = 1 none of this runs: no process group, no torchrun, the single-process code path as before.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

T = TypeVar("T")

ENV_PROCESSES = "PAU_TRAINER_PROCESSES"
ENV_COLLECTIVE_TIMEOUT = "PAU_TRAINER_COLLECTIVE_TIMEOUT_S"
# How long a collective waits for the slowest rank. On GPUs a step of a LoRA update takes seconds to a minute,
# so a peer that hung (another host's GPU wedged, a network partition) fails the job in 10 minutes, not after
# torch's default 30 min (NCCL) or hours; the activity's retry resumes from the last save. On a loaded CPU a
# step of a 0.5B model took minutes, so CPU jobs keep 2 hours. A rank that dies closes its sockets, so its
# peers fail at once rather than after this.
CUDA_COLLECTIVE_TIMEOUT = timedelta(minutes=10)
CPU_COLLECTIVE_TIMEOUT = timedelta(hours=2)


def collective_timeout(raw: str | None, cuda: bool) -> timedelta:
    """PAU_TRAINER_COLLECTIVE_TIMEOUT_S (seconds) or the device's default."""
    if raw is None or not raw.strip():
        return CUDA_COLLECTIVE_TIMEOUT if cuda else CPU_COLLECTIVE_TIMEOUT
    value = raw.strip()
    if not value.isdigit() or int(value) < 1:
        from .protocol import TrainerError

        raise TrainerError("invalid_spec", f"{ENV_COLLECTIVE_TIMEOUT}={raw!r}: expected a positive number of seconds")
    return timedelta(seconds=int(value))


@dataclass(frozen=True)
class Dist:
    rank: int = 0
    world: int = 1
    local_rank: int = 0

    @property
    def enabled(self) -> bool:
        return self.world > 1

    @property
    def main(self) -> bool:
        return self.rank == 0

    def shard(self, items: Sequence[T]) -> list[T]:
        """This rank's part of a global batch: items rank, rank+N, ..."""
        return list(items[self.rank :: self.world])


_current = Dist()


def current() -> Dist:
    return _current


def launched_by_torchrun() -> bool:
    """torchrun (or any launcher following its env contract) sets WORLD_SIZE/RANK for each worker."""
    return "WORLD_SIZE" in os.environ and "RANK" in os.environ


def setup(device_choice: str) -> Dist:
    """In a torchrun worker with WORLD_SIZE > 1: join the process group (nccl on CUDA, gloo on CPU)."""
    global _current
    if not launched_by_torchrun() or int(os.environ["WORLD_SIZE"]) <= 1:
        _current = Dist()
        return _current
    import torch
    import torch.distributed as dist

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", "0"))
    cuda = device_choice == "cuda" or (device_choice == "auto" and torch.cuda.is_available())
    if cuda:
        torch.cuda.set_device(local)
    global _timeout
    _timeout = collective_timeout(os.environ.get(ENV_COLLECTIVE_TIMEOUT), cuda)
    dist.init_process_group(backend="nccl" if cuda else "gloo", timeout=_timeout)
    _current = Dist(rank=rank, world=world, local_rank=local)
    return _current


_timeout = CPU_COLLECTIVE_TIMEOUT


def _collective(d: Dist, what: str, fn: Callable[[], T]) -> T:
    """Run one collective; a peer that does not answer within the timeout, or is gone, is a TrainerError that
    says so (the rank, the timeout, where to look) instead of a backend traceback."""
    import torch.distributed as dist

    try:
        return fn()
    except (dist.DistError, RuntimeError) as e:
        from .protocol import TrainerError

        raise TrainerError(
            "internal",
            f"rank {d.rank} of {d.world}: {what} got no answer from a peer rank within "
            f"{int(_timeout.total_seconds())} s ({ENV_COLLECTIVE_TIMEOUT}), or lost it: a rank on this or another "
            f"host died, hung or runs another job. The job stops here; its retry resumes from the last save. "
            f"Look at the other ranks' stderr (and NCCL_DEBUG=WARN on GPUs; docs/scale.md). "
            f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
        ) from e


def shutdown() -> None:
    global _current
    if _current.enabled:
        import torch.distributed as dist

        if dist.is_initialized():
            dist.destroy_process_group()
    _current = Dist()


def device_of(d: Dist, device: str) -> str:
    """Each rank drives its own GPU (LOCAL_RANK); CPU ranks share the host."""
    return f"cuda:{d.local_rank}" if device == "cuda" and d.enabled else device


def _collective_device() -> Any:
    import torch
    import torch.distributed as dist

    return torch.device("cuda", torch.cuda.current_device()) if dist.get_backend() == "nccl" else torch.device("cpu")


def any_true(d: Dist, flag: bool) -> bool:
    """True on every rank when it is true on any (a SIGTERM seen by one rank stops all at the same step)."""
    if not d.enabled:
        return flag
    import torch
    import torch.distributed as dist

    t = torch.tensor([1 if flag else 0], dtype=torch.int32, device=_collective_device())
    _collective(
        d, "an all-reduce (the step boundary's stop decision)", lambda: dist.all_reduce(t, op=dist.ReduceOp.MAX)
    )
    return bool(t.item())


def sum_floats(d: Dist, values: Sequence[float]) -> list[float]:
    """Element-wise sum over ranks (float64): per-rank partial metrics -> the global step's metrics."""
    if not d.enabled:
        return [float(v) for v in values]
    import torch
    import torch.distributed as dist

    t = torch.tensor(list(values), dtype=torch.float64, device=_collective_device())
    _collective(d, "an all-reduce (the step's metrics)", lambda: dist.all_reduce(t, op=dist.ReduceOp.SUM))
    return [float(x) for x in t.cpu().tolist()]


def broadcast(d: Dist, obj: T | None) -> T:
    """Rank 0's value on every rank (small picklable objects: paths, decisions)."""
    if not d.enabled:
        return obj  # type: ignore[return-value]
    import torch.distributed as dist

    box = [obj]
    _collective(
        d, "a broadcast from rank 0", lambda: dist.broadcast_object_list(box, src=0, device=_collective_device())
    )
    return box[0]  # type: ignore[return-value]


def gather(d: Dist, obj: T) -> list[T]:
    """Every rank's value, in rank order, on every rank."""
    if not d.enabled:
        return [obj]
    import torch.distributed as dist

    out: list[Any] = [None] * d.world
    _collective(d, "an all-gather", lambda: dist.all_gather_object(out, obj))
    return out


def barrier(d: Dist) -> None:
    if d.enabled:
        import torch.distributed as dist

        _collective(d, "a barrier", lambda: dist.barrier())


def broadcast_trainable(d: Dist, params: Sequence[Any]) -> None:
    """Make every rank's adapter rank 0's (after init or resume; the frozen base is never sent)."""
    if not d.enabled:
        return
    import torch.distributed as dist

    for p in params:
        _collective(d, "the adapter's broadcast from rank 0", lambda p=p: dist.broadcast(p.data, src=0))
