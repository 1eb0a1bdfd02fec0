"""policy-shift: how far a trained adapter moved its policy from the base, on given conversations.

The gate of a training run (docs/training.md, "Did the policy move?") reads this on the evaluation episodes'
agent turns: at every token the policy wrote, the exact KL(checkpoint || base) of the next-token distributions
at temperature T, sum_v p_ckpt(v) (log p_ckpt(v) - log p_base(v)), from one forward pass with the adapter
and one with it disabled. Only the policy's positions are taken through the log-softmax, so the full-vocabulary
fp32 tensor is never built for the whole sequence.

Input (spec.episodes, JSONL): the GRPO rollout line's conversation fields ({"id", "messages", "requests"?,
"tool_sets"?, "policy_messages"?}); rewards are not read. Output: the done event, its metrics
{kl_mean (token-mean), kl_episode_mean, tokens, episodes, truncated, per_episode: {id: kl}}.
"""

from __future__ import annotations

import time
from typing import Any

import torch

from .cancel import Cancel, Cancelled
from .chat import ChatEncoder, encode_policy_row
from .checkpoint import ADAPTER_FILE, is_complete, load_state
from .job import read_jsonl
from .models import load_model, load_tokenizer, pick_device, prepare_base, sha256_file
from .protocol import ShiftSpec, TrainerError, emit


def token_kl(logits_p: torch.Tensor, logits_q: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """KL(p || q) per row of next-token logits (rows, vocab) -> (rows,), exact over the vocabulary."""
    lp = torch.log_softmax(logits_p.float() / temperature, dim=-1)
    lq = torch.log_softmax(logits_q.float() / temperature, dim=-1)
    return (lp.exp() * (lp - lq)).sum(-1).clamp(min=0.0)


def run_shift(spec: ShiftSpec, cancel: Cancel) -> dict[str, Any]:
    from pathlib import Path

    from peft import PeftModel

    adapter_dir = Path(spec.adapter_dir)
    if not is_complete(adapter_dir):
        raise TrainerError("invalid_data", f"adapter_dir {adapter_dir} is not a complete checkpoint (no DONE file)")
    base_dir, base_sha = prepare_base(spec.base_model, spec.base_model_sha256, log=lambda m: emit("info", message=m))
    trained_on = load_state(adapter_dir).get("base_sha256") if (adapter_dir / "state.json").is_file() else None
    if trained_on and trained_on != base_sha:
        # the gate compares a checkpoint with the base it was trained on; another base measures nothing
        raise TrainerError(
            "spec_mismatch",
            f"adapter_dir {adapter_dir} was trained on base sha256 {trained_on[:12]}..., "
            f"not on {spec.base_model} (sha256 {base_sha[:12]}...)",
        )
    tok = load_tokenizer(base_dir)
    encoder = ChatEncoder(tok)
    device = pick_device(spec.device)
    model = PeftModel.from_pretrained(load_model(base_dir, device), str(adapter_dir))
    model.eval()
    rows = read_jsonl(spec.episodes, "episodes")
    t0 = time.monotonic()
    per_episode: dict[str, float] = {}
    total_kl, total_tokens, truncated = 0.0, 0, 0
    with torch.no_grad():
        for n, row in enumerate(rows, 1):
            if cancel.requested:
                raise Cancelled()
            where = f"{spec.episodes}:{n}"
            _, segments = encode_policy_row(encoder, row, where, spec.max_length, strict=False)
            ep_kl, ep_tokens = 0.0, 0
            for enc in segments:
                if enc.truncated:
                    truncated += 1
                    continue
                pos = [t for t, m in enumerate(enc.mask[1:]) if m]
                if not pos:
                    continue
                ids = torch.tensor([enc.input_ids], dtype=torch.long, device=device)
                idx = torch.tensor(pos, dtype=torch.long, device=device)
                on = model(input_ids=ids).logits[0, :-1].index_select(0, idx)
                with model.disable_adapter():
                    off = model(input_ids=ids).logits[0, :-1].index_select(0, idx)
                kl = token_kl(on, off, spec.temperature)
                ep_kl += float(kl.sum())
                ep_tokens += len(pos)
            rid = str(row.get("id", f"episode-{n}"))
            if ep_tokens:
                per_episode[rid] = round(ep_kl / ep_tokens, 8)
            total_kl += ep_kl
            total_tokens += ep_tokens
            emit(
                "progress",
                step=n,
                total=len(rows),
                loss=None,
                tokens_per_s=round(total_tokens / max(time.monotonic() - t0, 1e-9), 2),
                elapsed_s=round(time.monotonic() - t0, 3),
            )
    if total_tokens == 0:
        raise TrainerError("invalid_data", f"{spec.episodes}: no agent token within max_length to measure")
    metrics = {
        "kl_mean": round(total_kl / total_tokens, 8),
        "kl_episode_mean": round(sum(per_episode.values()) / len(per_episode), 8),
        "tokens": total_tokens,
        "episodes": len(per_episode),
        "truncated": truncated,
        "temperature": spec.temperature,
        "per_episode": per_episode,
    }
    event = {
        "checkpoint": str(adapter_dir),
        "adapter": str(adapter_dir / ADAPTER_FILE),
        "sha256": sha256_file(adapter_dir / ADAPTER_FILE),
        "steps": 0,
        "metrics": metrics,
    }
    emit("done", **event)
    return event
