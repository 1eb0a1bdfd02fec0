"""Checkpoint directories: output_dir/checkpoints/step-NNNNNN/, complete only when DONE exists.

A save holds the LoRA adapter (peft's adapter_model.safetensors + adapter_config.json, loadable by peft and
convertible to a llama.cpp GGUF adapter), optimizer + scheduler state, every RNG state, and state.json
(step, data cursor, metrics, the job spec's fingerprint). DONE is written last, after every other file is
fsynced, so a save interrupted by kill -9 is never mistaken for a complete one; such leftovers are ignored
when resuming and deleted by the next save.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

from .models import sha256_file

STEP_DIR = re.compile(r"^step-(\d{6,})$")
DONE = "DONE"
ADAPTER_FILE = "adapter_model.safetensors"


def checkpoints_dir(output_dir: str | Path) -> Path:
    return Path(output_dir) / "checkpoints"


def step_dir(output_dir: str | Path, step: int) -> Path:
    return checkpoints_dir(output_dir) / f"step-{step:06d}"


def complete_saves(output_dir: str | Path) -> list[tuple[int, Path]]:
    root = checkpoints_dir(output_dir)
    if not root.is_dir():
        return []
    out = []
    for p in root.iterdir():
        m = STEP_DIR.match(p.name)
        if m and (p / DONE).is_file():
            out.append((int(m.group(1)), p))
    return sorted(out)


def latest_complete(output_dir: str | Path) -> Path | None:
    saves = complete_saves(output_dir)
    return saves[-1][1] if saves else None


def is_complete(path: str | Path) -> bool:
    return (Path(path) / DONE).is_file()


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def rng_state() -> dict[str, Any]:
    import numpy as np
    import torch

    state: dict[str, Any] = {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    import numpy as np
    import torch

    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def save(
    output_dir: str | Path,
    step: int,
    model: Any,
    optimizer: torch.optim.Optimizer,
    scheduler: Any,
    state: dict[str, Any],
    keep: int = 2,
    rng_of_ranks: list[dict[str, Any]] | None = None,
) -> Path:
    """Write a complete save for `step` (replacing an incomplete one) and prune old saves. A job of N
    processes passes every rank's RNG state (rank 0's stays the top level, so any N resumes from it)."""
    import torch

    d = step_dir(output_dir, step)
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    model.save_pretrained(str(d), safe_serialization=True)
    torch.save(
        {"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(), "key": optimizer_key(optimizer)},
        d / OPTIMIZER_FILE,
    )
    rng = rng_state() if rng_of_ranks is None else {**rng_of_ranks[0], "ranks": rng_of_ranks}
    torch.save(rng, d / "rng.pt")
    (d / "state.json").write_text(json.dumps({**state, "step": step}, indent=2))
    for f in d.iterdir():
        _fsync_file(f)
    (d / DONE).write_text(sha256_file(d / ADAPTER_FILE) + "\n")
    _fsync_file(d / DONE)
    _fsync_file(d)
    prune(output_dir, keep)
    return d


def prune(output_dir: str | Path, keep: int) -> None:
    """Keep the newest `keep` complete saves; drop older ones and any incomplete leftovers."""
    root = checkpoints_dir(output_dir)
    if not root.is_dir():
        return
    complete = complete_saves(output_dir)
    keep_paths = {p for _, p in complete[-keep:]}
    for p in root.iterdir():
        if p.is_dir() and STEP_DIR.match(p.name) and p not in keep_paths:
            shutil.rmtree(p, ignore_errors=True)


def load_state(d: Path) -> dict[str, Any]:
    return json.loads((d / "state.json").read_text())


def load_optimizer(d: Path, optimizer: torch.optim.Optimizer, scheduler: Any) -> None:
    import torch

    blob = torch.load(d / OPTIMIZER_FILE, weights_only=False)
    optimizer.load_state_dict(blob["optimizer"])
    scheduler.load_state_dict(blob["scheduler"])


OPTIMIZER_FILE = "optimizer.pt"


def optimizer_key(optimizer: torch.optim.Optimizer) -> dict[str, Any]:
    """What an optimiser state must share with the optimiser that loads it: the hyper-parameters of each
    group and the shapes of the parameters it steps (an adapter of another rank or other targets differs)."""
    groups = []
    for g in optimizer.param_groups:
        hp = {
            k: (list(v) if isinstance(v, tuple) else v)
            for k, v in g.items()
            if k in ("lr", "betas", "eps", "weight_decay")
        }
        groups.append({**hp, "shapes": [list(p.shape) for p in g["params"]]})
    return {"groups": groups}


def load_carried_optimizer(d: Path, optimizer: torch.optim.Optimizer, scheduler: Any) -> None:
    """The optimiser state of the checkpoint a job continues from (a GRPO epoch's previous one), so Adam's
    moments and bias correction go on where they were instead of restarting with a sign step. Refused, naming
    the file, when it is missing or was saved by an optimiser of another spec (retrying cannot help)."""
    import torch

    from .protocol import TrainerError

    f = d / OPTIMIZER_FILE
    if not f.is_file():
        raise TrainerError(
            "invalid_data", f"{f}: init_optimizer needs the init adapter's optimiser state; the file is missing"
        )
    blob = torch.load(f, weights_only=False)
    want = optimizer_key(optimizer)
    have = blob.get("key")
    if have != want:
        what = (
            "has no key (saved before keys were recorded)"
            if have is None
            else f"was saved with {_key_diff(have, want)}"
        )
        raise TrainerError("spec_mismatch", f"{f} holds the optimiser state of another spec: it {what}")
    optimizer.load_state_dict(blob["optimizer"])
    scheduler.load_state_dict(blob["scheduler"])


def _key_diff(have: dict[str, Any], want: dict[str, Any]) -> str:
    hg, wg = have.get("groups", []), want.get("groups", [])
    if len(hg) != len(wg):
        return f"{len(hg)} parameter groups, this job has {len(wg)}"
    for h, w in zip(hg, wg):
        for k in ("lr", "betas", "eps", "weight_decay"):
            if h.get(k) != w.get(k):
                return f"{k} {h.get(k)}, this job has {w.get(k)}"
        if h.get("shapes") != w.get("shapes"):
            return f"{len(h.get('shapes', []))} parameters of other shapes than this job's {len(w.get('shapes', []))}"
    return "another key"


def load_rng(d: Path, rank: int = 0) -> None:
    """This rank's RNG state; rank 0's for a rank the save did not have (resumed with more processes)."""
    import torch

    state = torch.load(d / "rng.pt", weights_only=False)
    ranks = state.get("ranks") or []
    set_rng_state(ranks[rank] if rank < len(ranks) else state)


def adapter_sha256(d: Path) -> str:
    return sha256_file(d / ADAPTER_FILE)


def write_result(output_dir: str | Path, event: dict[str, Any]) -> None:
    p = Path(output_dir) / "result.json"
    tmp = p.with_suffix(f".tmp-{os.getpid()}")
    tmp.write_text(json.dumps(event, indent=2))
    _fsync_file(tmp)
    os.replace(tmp, p)


def read_result(output_dir: str | Path) -> dict[str, Any] | None:
    p = Path(output_dir) / "result.json"
    if not p.is_file():
        return None
    try:
        event = json.loads(p.read_text())
    except ValueError:
        return None
    ckpt = event.get("checkpoint")
    return event if ckpt and is_complete(ckpt) else None
