"""SFT: LoRA on chat conversations, loss on the assistant's tokens only.

Data order is a pure function of (seed, epoch): step s trains on batch (s-1) mod steps_per_epoch of
epoch (s-1) // steps_per_epoch, taken from numpy's permutation of the examples seeded with [seed, epoch].
So the data cursor is the step number itself, and a resumed job trains exactly the batches it had not.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import torch

from . import checkpoint as ckpt
from . import distributed
from .cancel import Cancel
from .chat import ChatEncoder, Encoded, length_cut_of, line_requests, too_long_refusal
from .job import Job, read_jsonl
from .protocol import SftSpec, TrainerError, emit


def load_examples(spec: SftSpec, encoder: ChatEncoder) -> tuple[list[Encoded], dict[str, int]]:
    """The training sequences of the examples that fit max_length (one per segment of a line: chat.py), and
    the counts. An example longer than max_length is dropped and counted (training its head alone would teach the calls without the description); more than 1 % dropped
    refuses the job (too_long_refusal)."""
    rows = read_jsonl(spec.data, "SFT data")
    examples: list[Encoded] = []
    stats = {
        "examples": len(rows),
        "segments": 0,
        "dropped_too_long": 0,
        "longest_tokens": 0,
        "dropped_no_assistant_tokens": 0,
        "length_cut_eos_masked": 0,
        "length_cut_whole_masked": 0,
    }
    for n, row in enumerate(rows, 1):
        if "messages" not in row:
            raise TrainerError("invalid_data", f'{spec.data}:{n}: no "messages" field')
        try:
            segments = encoder.encode_served(
                row["messages"],
                line_requests(row, f"{spec.data}:{n}"),
                max_length=spec.max_length,
                cut_messages=length_cut_of(row, f"{spec.data}:{n}"),
            )
        except TrainerError as e:
            raise TrainerError(e.code, f"{spec.data}:{n}: {e.message}") from e
        # one example per segment: each trained message in the request it was generated from (chat.py)
        stats["longest_tokens"] = max([stats["longest_tokens"], *(e.full_length for e in segments)])
        if any(e.truncated for e in segments):
            stats["dropped_too_long"] += 1
            continue
        stats["segments"] += len(segments)
        stats["length_cut_eos_masked"] += sum(e.cut_eos_masked for e in segments)
        stats["length_cut_whole_masked"] += sum(e.cut_whole_masked for e in segments)
        kept = [e for e in segments if sum(e.mask) > 0]
        if not kept:
            stats["dropped_no_assistant_tokens"] += 1
            continue
        examples.extend(kept)
    refusal = too_long_refusal(
        stats["dropped_too_long"], len(rows), spec.max_length, stats["longest_tokens"], "examples", spec.data
    )
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


def step_backward(job: Job, batch: list[Encoded], pad_id: int) -> tuple[float, int, int]:
    """Forward and backward of one optimizer step's global batch; the gradients are left on the adapter
    (summed over ranks by DDP). Returns (loss, tokens, trained tokens) of the whole batch.

    One process: the model's own mean over the batch's trained tokens, as always. N processes: rank r
    takes examples r, r+N, ...; its loss is the sum over its trained tokens divided by the global count,
    times N because DDP averages gradients: the gradient is the single-process one's (up to rounding)."""
    d = job.dist
    if not d.enabled:
        inputs = collate(batch, pad_id, job.device)
        loss = job.train_model(**inputs).loss
        if not torch.isfinite(loss):
            raise TrainerError("internal", f"loss is {loss.item()} (lower lr?)")
        loss.backward()
        return float(loss.detach()), int(inputs["attention_mask"].sum()), int((inputs["labels"] != -100).sum())
    # targets are tokens 1..L-1 (the model shifts labels left), as its own count is
    trained_global = sum(sum(e.mask[1:]) for e in batch)
    mine = d.shard(batch)
    # a rank without an example still runs a pass (weight 0) so that DDP's all-reduce happens on every rank
    inputs = collate(mine or batch[:1], pad_id, job.device)
    local = job.train_model(**inputs, num_items_in_batch=max(trained_global, 1)).loss
    if not mine:
        local = local * 0.0
    (local * d.world).backward()
    loss, tokens, trained = distributed.sum_floats(
        d,
        [
            float(local.detach()),
            float(inputs["attention_mask"].sum()) if mine else 0.0,
            float((inputs["labels"] != -100).sum()) if mine else 0.0,
        ],
    )
    if not math.isfinite(loss):
        raise TrainerError("internal", f"loss is {loss} (lower lr?)")
    return loss, int(tokens), int(trained)


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
    job.emit_start(
        total,
        start,
        encoder,
        examples=stats["examples"],
        sequences=len(examples),
        steps_per_epoch=per_epoch,
        **{k: v for k, v in stats.items() if k != "examples"},
    )
    losses: list[float] = list(state.get("losses", []))
    train_s = float(state.get("train_s", 0.0))
    trained_tokens = int(state.get("trained_tokens", 0))
    seen_tokens = int(state.get("seen_tokens", 0))
    saved_at = start
    job.maybe_cancel(start, {}, saved_at)  # cancelled while loading: nothing new to save
    step = start
    for step in range(start + 1, total + 1):
        t0 = time.monotonic()
        epoch, idx = batch_indices(step, len(examples), per_epoch, spec)
        try:
            loss, n_tokens, n_trained = step_backward(job, [examples[i] for i in idx], tok.pad_token_id)
        except TrainerError as e:
            raise TrainerError(e.code, f"{e.message} at step {step}") from e
        grad_norm = job.optimizer_step()
        dt = time.monotonic() - t0
        train_s += dt
        trained_tokens += n_trained
        seen_tokens += n_tokens
        losses.append(round(loss, 6))
        progress = dict(
            loss=loss,
            tokens_per_s=round(n_tokens / dt, 2),
            step_s=round(dt, 3),
            lr=job.scheduler.get_last_lr()[0],
            tokens=n_tokens,
            trained_tokens=n_trained,
            grad_norm=grad_norm,
            **job.device_memory(),
        )
        emit(
            "progress", step=step, total=total, elapsed_s=job.elapsed(), epoch=round((step) / per_epoch, 4), **progress
        )
        job.log_scalars(step, progress)
        state = {
            "cursor": {"epoch": epoch, "batch_in_epoch": (step - 1) % per_epoch, "next_step": step + 1},
            "losses": losses,
            "train_s": train_s,
            "trained_tokens": trained_tokens,
            "seen_tokens": seen_tokens,
        }
        saved_at = job.end_step(step, total, state, saved_at)
    final = ckpt.step_dir(job.out, total)
    first = losses[: max(1, min(3, len(losses)))]
    lastl = losses[-max(1, min(3, len(losses))) :]
    metrics = {
        **stats,
        "sequences": len(examples),
        "steps": total,
        "epochs": spec.epochs,
        "first_loss": losses[0] if losses else None,
        "final_loss": losses[-1] if losses else None,
        "mean_loss_first3": sum(first) / len(first) if losses else None,
        "mean_loss_last3": sum(lastl) / len(lastl) if losses else None,
        "losses": losses,
        "train_s": round(train_s, 3),
        "trained_tokens": trained_tokens,
        "seen_tokens": seen_tokens,
        "tokens_per_s": round(seen_tokens / train_s, 2) if train_s else None,
        "s_per_step": round(train_s / len(losses), 3) if losses else None,
    }
    return job.finish(total, final, metrics)
