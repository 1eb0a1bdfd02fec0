"""What SFT and GRPO jobs share: base + LoRA model, optimizer, save/resume/cancel, the done event."""

from __future__ import annotations

import fcntl
import json
import math
import os
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from . import checkpoint as ckpt
from . import distributed
from .cancel import Cancel, Cancelled
from .chat import ChatEncoder
from .models import load_model, load_tokenizer, pick_device, prepare_base, sha256_file
from .parent_watch import pid_alive
from .protocol import GrpoSpec, SftSpec, TrainerError, emit, spec_fingerprint

LOCK_POLL_S = 1.0
LOCK_REPORT_S = 10.0


def lock_holder(lock_file: Path) -> int | None:
    """The pid the current holder wrote into the lock file (None if unreadable: e.g. an older trainer)."""
    try:
        raw = lock_file.read_text().strip()
    except OSError:
        return None
    return int(raw) if raw.isdigit() else None


class Job:
    def __init__(self, command: str, spec: SftSpec | GrpoSpec, cancel: Cancel, data_path: str) -> None:
        self.command = command
        self.spec = spec
        self.cancel = cancel
        self.out = Path(spec.output_dir)
        # the data file's content is part of the job: the same path with other content is another job
        self.fingerprint = {**spec_fingerprint(spec), "data_sha256": data_sha256(data_path)}
        self.started = time.monotonic()
        self.model: Any = None  # the peft model (saves, no-grad passes)
        self.train_model: Any = None  # what training steps call: the peft model, or DDP around it
        self.dist = distributed.current()
        self._tb: Any = None  # tensorboardX EventsWriter, opened at the first step this process trains
        self.optimizer: torch.optim.Optimizer | None = None
        self.scheduler: Any = None
        self.device = "cpu"
        self.dtype = "float32"  # the frozen base's dtype on this rank (models.train_dtype)
        self.base_sha256 = ""
        self.total_steps = 0
        self.checkpointing = False  # whether the model recomputes its layers' activations (gradient_checkpointing)

    # ---- before any heavy work ----------------------------------------------------------------------
    def lock_output_dir(self) -> None:
        """One trainer per output_dir. The holder's pid is written into the lock file, so a trainer that finds
        the lock taken says who holds it (every LOCK_REPORT_S while it waits) instead of waiting silently.
        Holders die with their worker (parent_watch.py), so a wait here is a previous attempt still exiting."""
        self.out.mkdir(parents=True, exist_ok=True)
        self._lock = open(self.out / ".lock", "a+")
        started = time.monotonic()
        reported: float | None = None
        while True:
            try:
                fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                now = time.monotonic()
                if reported is None or now - reported >= LOCK_REPORT_S:
                    reported = now
                    holder = lock_holder(self.out / ".lock")
                    state = "" if holder is None else " (running)" if pid_alive(holder) else " (not running here)"
                    emit(
                        "info",
                        message=f"waiting for the lock on {self.out}: held by pid {holder or '?'}{state}, "
                        f"{now - started:.0f}s so far",
                        lock_holder_pid=holder,
                    )
                time.sleep(LOCK_POLL_S)
        self._lock.seek(0)
        self._lock.truncate()
        self._lock.write(f"{os.getpid()}\n")
        self._lock.flush()

    def open(self) -> tuple[dict[str, Any] | None, Path | None]:
        """Lock the output dir; (the finished job's done event, already re-reported, or None; the save to
        resume from, or None). With N processes rank 0 locks and decides, the others follow."""
        if not self.dist.enabled:
            return self._open()
        decision: tuple[dict[str, Any] | None, Path | None] | None = None
        error: tuple[str, str] | None = None  # (code, message): exceptions do not travel as pickles
        if self.dist.main:
            try:
                decision = self._open()
            except TrainerError as e:
                error = (e.code, e.message)
        decision, error = distributed.broadcast(self.dist, (decision, error) if self.dist.main else None)
        if error is not None:
            raise TrainerError(*error)
        assert decision is not None
        return decision

    def _open(self) -> tuple[dict[str, Any] | None, Path | None]:
        self.lock_output_dir()
        done = self.finished_result()
        if done is not None:
            replay_done(done)
            return done, None
        return None, self.check_resumable()

    def finished_result(self) -> dict[str, Any] | None:
        """A job whose result.json exists (and whose checkpoint is complete) is not run again."""
        result = ckpt.read_result(self.out)
        if result is None:
            return None
        if result.get("spec") != self.fingerprint:
            raise TrainerError(
                "spec_mismatch",
                f"{self.out} holds a finished job with a different spec; use a new output_dir for a new job",
            )
        return result

    def check_resumable(self) -> Path | None:
        last = ckpt.latest_complete(self.out)
        if last is None:
            return None
        saved = ckpt.load_state(last).get("spec", {})
        if saved != self.fingerprint:
            changed = sorted(k for k in set(self.fingerprint) | set(saved) if self.fingerprint.get(k) != saved.get(k))
            raise TrainerError(
                "spec_mismatch",
                f"{self.out} holds saves of a job with a different spec (changed: {', '.join(changed)}); "
                "resume with the same spec or use a new output_dir",
            )
        return last

    # ---- model ----------------------------------------------------------------------------------------
    def load_base(self) -> tuple[Any, ChatEncoder]:
        base_dir, self.base_sha256 = prepare_base(
            self.spec.base_model, self.spec.base_model_sha256, log=lambda m: emit("info", message=m)
        )
        tok = load_tokenizer(base_dir)
        if tok.pad_token_id is None:
            tok.pad_token = tok.eos_token
        self.device = distributed.device_of(self.dist, pick_device(self.spec.device))
        self.base_dir = base_dir
        return tok, ChatEncoder(tok)

    def build_model(self, total_steps: int) -> None:
        from peft import LoraConfig, PeftModel, get_peft_model

        base = load_model(self.base_dir, self.device)
        self.dtype = str(base.dtype).removeprefix("torch.")
        base.config.use_cache = False  # a job never generates: a pass keeps no key/value cache
        if self.spec.gradient_checkpointing:
            # Each decoder layer keeps only its input and recomputes the rest in the backward pass (one more
            # forward's time for a fraction of the activations: docs/trainer.md, "Memory"). Non-reentrant, so
            # LoRA dropout's RNG and the frozen inputs need nothing special; transformers also makes the input
            # embeddings' output require grad, as peft needs with the base frozen.
            base.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})
        self.checkpointing = bool(base.is_activation_checkpointing)
        # LoRA's A matrices start random: seed first so a job (and its rerun elsewhere) starts identically
        torch.manual_seed(self.spec.seed)
        random.seed(self.spec.seed)
        np.random.seed(self.spec.seed % 2**32)
        if self.spec.init_adapter:
            init = Path(self.spec.init_adapter)
            if not ckpt.is_complete(init):
                raise TrainerError("invalid_data", f"init_adapter {init} is not a complete checkpoint (no DONE file)")
            # the adapter's own LoRA config (rank, alpha, targets) wins over spec.lora
            self.model = PeftModel.from_pretrained(base, str(init), is_trainable=True)
        else:
            lora = self.spec.lora
            cfg = LoraConfig(
                r=lora.rank,
                lora_alpha=lora.alpha,
                lora_dropout=lora.dropout,
                target_modules=list(lora.targets),
                task_type="CAUSAL_LM",
                bias="none",
            )
            try:
                self.model = get_peft_model(base, cfg)
            except ValueError as e:  # e.g. a target module the architecture does not have
                raise TrainerError("invalid_spec", f"lora.targets: {e}") from e
        self.model.train()
        params = [p for p in self.model.parameters() if p.requires_grad]
        self.train_model = self.model
        if self.dist.enabled:
            from torch.nn.parallel import DistributedDataParallel as DDP

            # Same seed, same base: every rank built the same adapter; rank 0's is sent anyway (a few MB),
            # and DDP's own start-up broadcast, which would send the frozen base too, is skipped.
            # forward_sync_buffers=False: ranks run different numbers of forward passes per step (GRPO), and
            # the only buffers (rotary frequencies) are constants.
            distributed.broadcast_trainable(self.dist, params)
            self.train_model = DDP(
                self.model,
                device_ids=[self.dist.local_rank] if self.device.startswith("cuda") else None,
                forward_sync_buffers=False,
                init_sync=False,
            )
        self.optimizer = torch.optim.AdamW(params, lr=self.spec.lr, weight_decay=self.spec.weight_decay)
        warm = self.spec.warmup_steps
        # linear warm-up, then constant: a resumed or extended job sees the same learning rate per step
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: min(1.0, (s + 1) / warm) if warm else 1.0
        )
        if self.spec.init_adapter and self.spec.init_optimizer:
            ckpt.load_carried_optimizer(Path(self.spec.init_adapter), self.optimizer, self.scheduler)
            emit("info", message=f"optimiser state carried from {self.spec.init_adapter}")
        self.total_steps = total_steps

    def trainable(self) -> list[torch.nn.Parameter]:
        return [p for p in self.model.parameters() if p.requires_grad]

    def resume(self, last: Path | None) -> tuple[int, dict[str, Any]]:
        """Load the last complete save (adapter, optimizer, scheduler, RNG); (step, state) or (0, {})."""
        if last is None:
            return 0, {}
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        state = ckpt.load_state(last)
        weights = load_file(str(last / ckpt.ADAPTER_FILE), device=self.device)
        result = set_peft_model_state_dict(self.model, weights)
        unexpected = list(getattr(result, "unexpected_keys", []) or [])
        if unexpected:
            raise TrainerError("internal", f"save {last} has adapter keys the model lacks: {unexpected[:3]}")
        assert self.optimizer is not None
        ckpt.load_optimizer(last, self.optimizer, self.scheduler)
        ckpt.load_rng(last, self.dist.rank)
        distributed.broadcast_trainable(self.dist, self.trainable())
        emit("info", message=f"resumed from {last} (step {state['step']})")
        return int(state["step"]), state

    def emit_start(self, total: int, start: int, encoder: ChatEncoder, **fields: Any) -> None:
        """The job's `start` event: what every training job reports (protocol, pid, output dir, steps, device,
        processes, threads, native tool calls), then the command's own `fields`."""
        emit(
            "start",
            command=self.command,
            protocol=1,
            pid=os.getpid(),
            output_dir=str(self.out),
            total_steps=total,
            resumed_from_step=start,
            device=self.device,
            dtype=self.dtype,
            gradient_checkpointing=self.checkpointing,
            processes=self.dist.world,
            threads=torch.get_num_threads(),
            tool_calls_in_template=encoder.native_tool_calls,
            **fields,
        )

    # ---- one optimizer step (SFT and GRPO alike) ------------------------------------------------------
    def optimizer_step(self) -> float:
        """After the step's backward pass: clip to max_grad_norm, step optimizer and schedule, clear; the grad norm."""
        assert self.optimizer is not None
        grad_norm = float(torch.nn.utils.clip_grad_norm_(self.trainable(), self.spec.max_grad_norm))
        self.optimizer.step()
        self.scheduler.step()
        self.optimizer.zero_grad(set_to_none=True)
        return grad_norm

    def end_step(self, step: int, total: int, state: dict[str, Any], saved_at: int) -> int:
        """After step `step` of `total`: save every save_every steps and at the last; stop here on a cancel
        request (saving `state` first). Returns the step last saved."""
        if step % self.spec.save_every == 0 or step == total:
            self.save(step, state)
            saved_at = step
        if step < total:
            self.maybe_cancel(step, state, saved_at)
        return saved_at

    # ---- saving ---------------------------------------------------------------------------------------
    def save(self, step: int, state: dict[str, Any]) -> Path:
        """Rank 0 writes the save (with every rank's RNG state); all ranks return once it is complete."""
        assert self.optimizer is not None
        t = time.monotonic()
        rng = distributed.gather(self.dist, ckpt.rng_state()) if self.dist.enabled else None
        d = ckpt.step_dir(self.out, step)
        if self.dist.main:
            d = ckpt.save(
                self.out,
                step,
                self.model,
                self.optimizer,
                self.scheduler,
                {
                    **state,
                    "spec": self.fingerprint,
                    "command": self.command,
                    "base_sha256": self.base_sha256,
                    "total_steps": self.total_steps,
                    "processes": self.dist.world,
                },
                keep=self.spec.keep_saves,
                rng_of_ranks=rng,
            )
            emit("saved", step=step, checkpoint=str(d), save_s=round(time.monotonic() - t, 3), elapsed_s=self.elapsed())
        distributed.barrier(self.dist)
        return d

    def stop_requested(self) -> bool:
        """Whether to stop now; with N processes a SIGTERM seen by any rank stops every rank here."""
        return distributed.any_true(self.dist, self.cancel.requested)

    def maybe_cancel(self, step: int, state: dict[str, Any], saved_at: int) -> None:
        """On a cancel request: make sure `step` is saved (unless nothing was trained), report, stop."""
        if not self.stop_requested():
            return
        d: Path | None
        if step == 0:
            d = None
        elif saved_at == step:
            d = ckpt.step_dir(self.out, step)
        else:
            d = self.save(step, state)
        emit("cancelled", step=step, checkpoint=str(d) if d else None)
        raise Cancelled()

    def finish(self, step: int, final_dir: Path, metrics: dict[str, Any]) -> dict[str, Any]:
        if not self.dist.main:
            distributed.barrier(self.dist)  # rank 0 writes result.json
            return {}
        event = {
            "checkpoint": str(final_dir),
            "adapter": str(final_dir / ckpt.ADAPTER_FILE),
            "sha256": ckpt.adapter_sha256(final_dir),
            "steps": step,
            "base_sha256": self.base_sha256,
            "metrics": metrics,
        }
        ckpt.write_result(self.out, {"type": "done", **event, "spec": self.fingerprint})
        emit("done", **event)
        distributed.barrier(self.dist)
        return event

    def device_memory(self) -> dict[str, int]:
        """Peak memory since the job started: the process's resident set (peak_rss_bytes, what bench:train
        compares) and, on CUDA, this rank's GPU (peak_memory_bytes, what check:gpu prints)."""
        out = {"peak_rss_bytes": peak_rss_bytes()}
        if self.device.startswith("cuda"):
            out["peak_memory_bytes"] = int(torch.cuda.max_memory_allocated(self.device))
        return out

    def log_scalars(self, step: int, values: dict[str, Any]) -> None:
        """TensorBoard scalars of one step (output_dir/tensorboard/, rank 0), numbers only, tags train/<name>."""
        if not self.dist.main:
            return
        from tensorboardX.event_file_writer import EventsWriter
        from tensorboardX.proto.event_pb2 import Event, SessionLog
        from tensorboardX.proto.summary_pb2 import Summary

        now = time.time()
        if self._tb is None:
            # tensorboardX's synchronous writer: SummaryWriter writes from a thread that os._exit and kill -9 cut
            # off, and a step is logged before it is saved. One file per attempt (the pid: two in one second).
            (self.out / "tensorboard").mkdir(parents=True, exist_ok=True)
            self._tb = EventsWriter(str(self.out / "tensorboard" / "events"), f".{os.getpid()}")
            if step > 1:  # resumed: TensorBoard drops the older files' points from here (the killed attempt's)
                self._tb.write_event(Event(wall_time=now, step=step, session_log=SessionLog(status=SessionLog.START)))
        numbers = {k: float(v) for k, v in values.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        tags = [Summary.Value(tag=f"train/{k}", simple_value=v) for k, v in numbers.items() if math.isfinite(v)]
        if tags:
            self._tb.write_event(Event(wall_time=now, step=step, summary=Summary(value=tags)))
        self._tb.flush()  # on disk before the step's save: a kill -9 loses no point that a resume keeps

    def elapsed(self) -> float:
        return round(time.monotonic() - self.started, 3)


def peak_rss_bytes() -> int:
    """The process's peak resident set size so far (getrusage: kilobytes on Linux, bytes on macOS)."""
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def replay_done(result: dict[str, Any]) -> None:
    emit("info", message="job already finished; reporting its result")
    emit("done", **{k: v for k, v in result.items() if k not in ("type", "spec")})


def data_sha256(path: str) -> str:
    p = Path(path)
    if not p.is_file():
        raise TrainerError("invalid_data", f"data file {p} does not exist")
    return sha256_file(p)


def read_jsonl(path: str, what: str) -> list[dict[str, Any]]:
    p = Path(path)
    if not p.is_file():
        raise TrainerError("invalid_data", f"{what} file {p} does not exist")
    rows: list[dict[str, Any]] = []
    with open(p, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as e:
                raise TrainerError("invalid_data", f"{p}:{n}: not JSON ({e})") from e
            if not isinstance(obj, dict):
                raise TrainerError("invalid_data", f"{p}:{n}: each line must be a JSON object")
            rows.append(obj)
    if not rows:
        raise TrainerError("invalid_data", f"{what} file {p} has no examples")
    return rows


def finite(x: float) -> float | None:
    return x if math.isfinite(x) else None
