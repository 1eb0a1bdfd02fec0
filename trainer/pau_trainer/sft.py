"""SFT: LoRA on chat conversations, loss on the assistant's tokens only.

Data order is a pure function of (seed, epoch): step s trains on batch (s-1) mod steps_per_epoch of
epoch (s-1) // steps_per_epoch, taken from numpy's permutation of the examples seeded with [seed, epoch].
So the data cursor is the step number itself, and a resumed job trains exactly the batches it had not.
"""

from __future__ import annotations

import math
import os
import time
from typing import Any

import numpy as np
import torch

from .cancel import Cancel
from .chat import ChatEncoder, Encoded, length_cut_of, too_long_refusal
from .job import Job, read_jsonl
from .protocol import SftSpec, TrainerError, emit


def load_examples(spec: SftSpec, encoder: ChatEncoder) -> tuple[list[Encoded], dict[str, int]]:
    """The examples that fit max_length, and the counts. An example longer than max_length is dropped and
    counted (training its head alone would teach the calls without the description); more than 1 % dropped
    refuses the job (too_long_refusal)."""
    rows = read_jsonl(spec.data, "SFT data")
    examples: list[Encoded] = []
    stats = {"examples": len(rows), "dropped_too_long": 0, "longest_tokens": 0, "dropped_no_assistant_tokens": 0,
             "length_cut_eos_masked": 0, "length_cut_whole_masked": 0}
    for n, row in enumerate(rows, 1):
        if "messages" not in row:
            raise TrainerError("invalid_data", f"{spec.data}:{n}: no \"messages\" field")
        tools = row.get("tools")
        if tools is not None and not isinstance(tools, list):
            raise TrainerError("invalid_data", f"{spec.data}:{n}: \"tools\" must be a list")
        try:
            enc = encoder.encode(row["messages"], tools=tools, max_length=spec.max_length,
                                 cut_messages=length_cut_of(row, f"{spec.data}:{n}"))
        except TrainerError as e:
            raise TrainerError(e.code, f"{spec.data}:{n}: {e.message}") from e
        stats["longest_tokens"] = max(stats["longest_tokens"], enc.full_length)
        if enc.truncated:
            stats["dropped_too_long"] += 1
            continue
        stats["length_cut_eos_masked"] += enc.cut_eos_masked
        stats["length_cut_whole_masked"] += enc.cut_whole_masked
        if sum(enc.mask) == 0:
            stats["dropped_no_assistant_tokens"] += 1
            continue
        examples.append(enc)
    refusal = too_long_refusal(stats["dropped_too_long"], len(rows), spec.max_length, stats["longest_tokens"], "examples", spec.data)
    if refusal:
        raise refusal
    if not examples:
        raise TrainerError("invalid_data", f"{spec.data}: no example has assistant tokens within max_length")
    return examples, stats


def plan(n_examples: int, spec: SftSpec) -> tuple[int, int]:
    """(steps per epoch, total steps)."""
    per_epoch = math.ceil(n_examples / spec.batch_size)
    total = max(1, math.ceil(per_epoch * spec.epochs))
    if spec.max_steps is not None:
        total = min(total, spec.max_steps)
    return per_epoch, total


def batch_indices(step: int, n: int, per_epoch: int, spec: SftSpec) -> tuple[int, list[int]]:
    epoch, b = divmod(step - 1, per_epoch)
    order = np.random.default_rng([spec.seed, epoch]).permutation(n)
    return epoch, [int(i) for i in order[b * spec.batch_size : (b + 1) * spec.batch_size]]


def collate(batch: list[Encoded], pad_id: int, device: str) -> dict[str, torch.Tensor]:
    width = max(len(e.input_ids) for e in batch)
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    attn = torch.zeros((len(batch), width), dtype=torch.long)
    labels = torch.full((len(batch), width), -100, dtype=torch.long)
    for r, e in enumerate(batch):
        L = len(e.input_ids)
        row = torch.tensor(e.input_ids, dtype=torch.long)
        ids[r, :L] = row
        attn[r, :L] = 1
        m = torch.tensor(e.mask, dtype=torch.bool)
        labels[r, :L] = torch.where(m, row, torch.full_like(row, -100))
    return {"input_ids": ids.to(device), "attention_mask": attn.to(device), "labels": labels.to(device)}


def run_sft(spec: SftSpec, cancel: Cancel) -> dict[str, Any]:
    job = Job("sft", spec, cancel, spec.data)
    done, last = job.open()
    if done is not None:
        return done
    tok, encoder = job.load_base()
    examples, stats = load_examples(spec, encoder)
    per_epoch, total = plan(len(examples), spec)
    job.build_model(total)
    start, state = job.resume(last)
    emit(
        "start", command="sft", protocol=1, pid=os.getpid(), output_dir=str(job.out), total_steps=total, resumed_from_step=start,
        examples=len(examples), steps_per_epoch=per_epoch, device=job.device, threads=torch.get_num_threads(),
        tool_calls_in_template=encoder.native_tool_calls, **{k: v for k, v in stats.items() if k != "examples"},
    )
    losses: list[float] = list(state.get("losses", []))
    train_s = float(state.get("train_s", 0.0))
    trained_tokens = int(state.get("trained_tokens", 0))
    seen_tokens = int(state.get("seen_tokens", 0))
    saved_at = start
    job.maybe_cancel(start, {}, saved_at)  # cancelled while loading: nothing new to save
    model = job.model
    assert job.optimizer is not None
    step = start
    for step in range(start + 1, total + 1):
        t0 = time.monotonic()
        epoch, idx = batch_indices(step, len(examples), per_epoch, spec)
        batch = collate([examples[i] for i in idx], tok.pad_token_id, job.device)
        out = model(**batch)
        loss = out.loss
        if not torch.isfinite(loss):
            raise TrainerError("internal", f"loss is {loss.item()} at step {step} (lower lr?)")
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(
            [p for p in model.parameters() if p.requires_grad], spec.max_grad_norm
        )
        job.optimizer.step()
        job.scheduler.step()
        job.optimizer.zero_grad(set_to_none=True)
        dt = time.monotonic() - t0
        n_tokens = int(batch["attention_mask"].sum())
        n_trained = int((batch["labels"] != -100).sum())
        train_s += dt
        trained_tokens += n_trained
        seen_tokens += n_tokens
        losses.append(round(float(loss.detach()), 6))
        emit(
            "progress", step=step, total=total, loss=float(loss.detach()), tokens_per_s=round(n_tokens / dt, 2),
            step_s=round(dt, 3), elapsed_s=job.elapsed(), epoch=round((step) / per_epoch, 4), lr=job.scheduler.get_last_lr()[0],
            tokens=n_tokens, trained_tokens=n_trained, grad_norm=float(grad_norm),
        )
        state = {
            "cursor": {"epoch": epoch, "batch_in_epoch": (step - 1) % per_epoch, "next_step": step + 1},
            "losses": losses, "train_s": train_s, "trained_tokens": trained_tokens, "seen_tokens": seen_tokens,
        }
        if step % spec.save_every == 0 or step == total:
            job.save(step, state)
            saved_at = step
        if step < total:
            job.maybe_cancel(step, state, saved_at)
    final = job.out / "checkpoints" / f"step-{total:06d}"
    first = losses[: max(1, min(3, len(losses)))]
    lastl = losses[-max(1, min(3, len(losses))):]
    metrics = {
        "examples": len(examples), **stats, "steps": total, "epochs": spec.epochs,
        "first_loss": losses[0] if losses else None, "final_loss": losses[-1] if losses else None,
        "mean_loss_first3": sum(first) / len(first) if losses else None,
        "mean_loss_last3": sum(lastl) / len(lastl) if losses else None,
        "losses": losses, "train_s": round(train_s, 3), "trained_tokens": trained_tokens, "seen_tokens": seen_tokens,
        "tokens_per_s": round(seen_tokens / train_s, 2) if train_s else None,
        "s_per_step": round(train_s / len(losses), 3) if losses else None,
    }
    return job.finish(total, final, metrics)
