"""grpo-update: one GRPO update of a LoRA policy from a batch of scored rollouts.

Input (spec.rollouts, JSONL, one rollout per line):
  {"id": "r1", "group": "method-17", "messages": [...OpenAI chat...],
   "requests"?: [{"message": i, "tools": k | null}], "tool_sets"?: [[...]]   # each policy message's request
   "tools"?: [...]                         # (hand-written data: one tool list for every request)
   "policy_messages"?: [2, 4],            # indices of the assistant messages the policy generated
                                           # (default: every assistant message); only their tokens train
   "rewards": {"outcome": 3.0, "steps": [0.5, null]}   # steps: one per policy message, >= 0, null = not rated;
                                           # the advantages come from them (spec.advantage.mode outcome | aac | mix)
   "sampled"?: [{"ids": [..], "logprobs": [..]} | null, ..]   # per policy message: the token ids its server
                                           # sampled and their log-probs (null: none recorded, re-tokenised);
                                           # trained as those ids (chat.py), counted per job
  }

The update (verl/TRL GRPO; math in core_algos.py):
  1. reference log-probs: the base model with the adapter disabled;
  2. old log-probs: computed with the adapter as it was before this update (the server's recorded log-probs
     are the sampler's, not the trainer's: they weigh the update when spec.tis_cap is set, see core_algos
     tis_weights, and their gap to the old log-probs is reported);
     both are computed once and stored in output_dir/precomputed.pt so a resumed job uses the same ones;
  3. ppo_epochs x mini-batches (mini_batch_size rollouts, order seeded by [seed, ppo_epoch]): the clipped
     surrogate + kl_beta * k3 KL, token-mean over the mini-batch's policy tokens, one optimizer step each.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from . import checkpoint as ckpt
from . import distributed
from .cancel import Cancel
from .chat import ChatEncoder, encode_policy_row, too_long_refusal
from .core_algos import (
    aac_advantages,
    all_unrated,
    clipped_policy_loss,
    group_outcome_advantages,
    sampler_gap,
    tis_weights,
)
from .job import Job, read_jsonl
from .protocol import GrpoSpec, TrainerError, emit
from .sequence_logprobs import sequence_logprobs


@dataclass
class Rollout:
    id: str
    group: str
    input_ids: torch.Tensor  # (1, T)
    mask: torch.Tensor  # (1, T-1) float: 1 on the policy's own target tokens
    advantages: torch.Tensor  # (1, T-1) float, 0 off the mask
    message_advantages: list[float]  # per policy message (for reporting)
    sampler_logprobs: torch.Tensor  # (1, T-1): the server's log-prob of each target it sampled, 0 elsewhere
    sampled: torch.Tensor  # (1, T-1) float: 1 on the policy's targets that carry the server's log-prob
    policy_tokens: int
    retokenised_tokens: int  # policy tokens of messages trained from their text (no sampled ids recorded)
    truncated: bool  # longer than max_length: not trained (mask 0), still in its group's statistics
    full_length: int = 0
    cut_eos_masked: int = 0
    cut_whole_masked: int = 0
    reward: float | None = None  # the outcome reward, when given (TensorBoard)
    line: int = 0  # the rollout's line; a line may be several sequences (segments), which share its id


def advantage_terms(step: list[list[float]] | None, outcome: list[float], policies: list[list[int]]) -> dict[str, Any]:
    """The two terms' magnitudes over every policy message (mean |A|), so mix's weights weigh like with like."""
    n = sum(len(p) for p in policies)
    o = sum(abs(v) * len(p) for v, p in zip(outcome, policies)) / max(n, 1)
    s = sum(abs(v) for row in step for v in row) / max(n, 1) if step is not None else None
    return {"outcome_term_abs_mean": round(o, 6), "step_term_abs_mean": None if s is None else round(s, 6)}


def reward_spread(outcome: list[float], groups: list[str]) -> dict[str, Any]:
    """Within-group spread of the outcome reward (max - min, mean over groups) and the share of groups with
    none (every rollout rewarded alike: nothing for the outcome term to learn from)."""
    by: dict[str, list[float]] = {}
    for r, g in zip(outcome, groups):
        by.setdefault(g, []).append(r)
    spreads = [max(v) - min(v) for v in by.values() if len(v) > 1]
    if not spreads:
        return {"reward_spread_mean": None, "zero_spread_groups": None}
    return {
        "reward_spread_mean": round(sum(spreads) / len(spreads), 6),
        "zero_spread_groups": round(sum(1 for x in spreads if x == 0) / len(spreads), 6),
    }


def load_rollouts(spec: GrpoSpec, encoder: ChatEncoder, figures: dict[str, Any] | None = None) -> list[Rollout]:
    """The rollouts as the trainer trains them, with their advantages; `figures` (when given) receives the
    advantage terms' magnitudes and the reward spread (advantage_terms, reward_spread) for the done event."""
    rows = read_jsonl(spec.rollouts, "rollouts")
    mode = spec.advantage.mode
    encoded = []
    for n, row in enumerate(rows, 1):
        # the rollout's id is its episode's: a refused line names the episode it came from
        rid = row.get("id") if isinstance(row, dict) else None
        where = f"{spec.rollouts}:{n}" + (f" (rollout {rid})" if isinstance(rid, str) and rid else "")
        group = row.get("group")
        if not isinstance(group, (str, int)) or isinstance(group, bool):
            raise TrainerError("invalid_data", f'{where}: "group" (string) is required')
        policy, segments = encode_policy_row(encoder, row, where, spec.max_length, strict=True)
        encoded.append((row, where, str(group), policy, segments))

    # advantages per policy message (or per token)
    groups = [g for _, _, g, _, _ in encoded]
    per_message: list[list[float] | None] = [None] * len(encoded)
    terms: dict[str, Any] = {}
    if mode in ("outcome", "aac", "mix"):
        outcome: list[float] = []
        steps: list[list[float | None]] = []
        for row, where, _, policy, _ in encoded:
            rw = row.get("rewards")
            if not isinstance(rw, dict) or not isinstance(rw.get("outcome"), (int, float)):
                raise TrainerError(
                    "invalid_data", f'{where}: advantage.mode={mode} needs "rewards": {{"outcome": number, ...}}'
                )
            outcome.append(float(rw["outcome"]))
            s = rw.get("steps", [None] * len(policy))
            if (
                not isinstance(s, list)
                or len(s) != len(policy)
                or not all(x is None or (isinstance(x, (int, float)) and not isinstance(x, bool)) for x in s)
            ):
                raise TrainerError(
                    "invalid_data",
                    f"{where}: rewards.steps must have one number or null per policy message ({len(policy)})",
                )
            if any(x is not None and not (math.isfinite(x) and x >= 0) for x in s):
                # the step return sums uncentred rewards: a negative one would pay for stopping
                raise TrainerError("invalid_data", f"{where}: rewards.steps must be finite and >= 0 (or null)")
            steps.append([None if x is None else float(x) for x in s])
        a = spec.advantage
        if mode == "outcome":
            adv = group_outcome_advantages(outcome, groups, a.scale, a.std_floor, a.epsilon)
            per_message = [[v] * len(p) for v, (_, _, _, p, _) in zip(adv, encoded)]
            terms = advantage_terms(None, adv, policies=[p for _, _, _, p, _ in encoded])
        else:
            combined, step_term, outcome_term = aac_advantages(
                steps, outcome, groups, a.step_weight, a.outcome_weight, a.scale, a.std_floor, a.epsilon
            )
            per_message = list(combined)
            terms = advantage_terms(step_term, outcome_term, policies=[p for _, _, _, p, _ in encoded])
            terms["all_unrated_rollouts"] = sum(1 for x in steps if all_unrated(x))
        sizes: dict[str, int] = {}
        for g in groups:
            sizes[g] = sizes.get(g, 0) + 1
        lonely = sorted(g for g, c in sizes.items() if c < 2)
        if lonely:
            emit("info", message=f"{len(lonely)} group(s) have a single rollout and get advantage 0: {lonely[:5]}")
        terms.update(reward_spread(outcome, groups))
        emit("info", message=f"advantage terms: {json.dumps(terms)}")

    if figures is not None:
        figures.update(terms)
    out: list[Rollout] = []
    # one Rollout per segment (chat.py: each policy message in the request it was generated from); the
    # advantages are the line's, its segments share them and its id
    flat = [
        (k, row, group, policy, enc)
        for k, (row, _where, group, policy, segments) in enumerate(encoded)
        for enc in segments
    ]
    for k, row, group, policy, enc in flat:
        T = len(enc.input_ids)
        owner = enc.message_index[1:]  # targets are tokens 1..T-1
        mask = torch.tensor(enc.mask[1:], dtype=torch.float32).unsqueeze(0)
        if enc.truncated:
            # too long: dropped from training (never head-kept), counted; its reward still counts in its group
            mask.zero_()
        adv = torch.zeros((1, T - 1), dtype=torch.float32)
        # token positions of each policy message, in order
        positions: dict[int, list[int]] = {i: [] for i in policy}
        here = set(enc.messages)  # the policy messages this segment trains
        for t, o in enumerate(owner):
            if o >= 0 and mask[0, t] > 0:
                positions[o].append(t)
        msg_adv = per_message[k] or []
        for i, v in zip(policy, msg_adv):
            for t in positions[i]:
                adv[0, t] = v
        lp = torch.tensor([[0.0 if v is None else v for v in enc.sampler_logprobs[1:]]], dtype=torch.float32)
        has = torch.tensor([[0.0 if v is None else 1.0 for v in enc.sampler_logprobs[1:]]], dtype=torch.float32)
        retok = {i for i in enc.retokenised if i in here}
        out.append(
            Rollout(
                id=str(row.get("id", f"rollout-{k + 1}")),
                group=group,
                input_ids=torch.tensor([enc.input_ids], dtype=torch.long),
                mask=mask,
                advantages=adv * mask,
                message_advantages=[round(v, 6) for v in msg_adv],
                sampler_logprobs=lp * has * mask,
                sampled=has * mask,
                policy_tokens=int(mask.sum()),
                retokenised_tokens=sum(1 for t, o in enumerate(owner) if o in retok and mask[0, t] > 0),
                truncated=enc.truncated,
                full_length=enc.full_length,
                cut_eos_masked=0 if enc.truncated else enc.cut_eos_masked,
                cut_whole_masked=0 if enc.truncated else enc.cut_whole_masked,
                # once per line (its first segment), so a line of several segments is not counted twice
                reward=float(row["rewards"]["outcome"]) if not any(o.line == k for o in out) else None,
                line=k,
            )
        )
    dropped = len({r.line for r in out if r.truncated})
    refusal = too_long_refusal(
        dropped, len(encoded), spec.max_length, max((r.full_length for r in out), default=0), "rollouts", spec.rollouts
    )
    if refusal:
        raise refusal
    if not any(r.policy_tokens for r in out):
        raise TrainerError("invalid_data", f"{spec.rollouts}: no rollout has policy tokens within max_length")
    return out


def length_counts(rollouts: list[Rollout]) -> dict[str, int]:
    """What did not fit or was not sampled: rollouts dropped as too long, length-cut turns masked, policy
    tokens trained from re-tokenised text (no sampled ids recorded)."""
    return {
        "retokenised_policy_tokens": sum(r.retokenised_tokens for r in rollouts),
        "sampled_policy_tokens": int(sum(float(r.sampled.sum()) for r in rollouts)),
        "dropped_too_long": len({r.line for r in rollouts if r.truncated}),
        "longest_tokens": max((r.full_length for r in rollouts), default=0),
        "length_cut_eos_masked": sum(r.cut_eos_masked for r in rollouts),
        "length_cut_whole_masked": sum(r.cut_whole_masked for r in rollouts),
    }


def sampler_gap_of(rollouts: list[Rollout], old: list[torch.Tensor], spec: GrpoSpec) -> dict[str, Any]:
    """The sampler-trainer gap over every policy token that carries the server's log-prob (core_algos
    sampler_gap), and the correction applied (tis_cap, null: none)."""
    if not rollouts:
        return {}
    gap = sampler_gap(
        torch.cat([o.reshape(-1) for o in old]),
        torch.cat([r.sampler_logprobs.reshape(-1) for r in rollouts]),
        torch.cat([r.sampled.reshape(-1) for r in rollouts]),
        spec.clip_eps_low,
        spec.clip_eps_high,
    )
    return {k: (round(v, 6) if isinstance(v, float) and math.isfinite(v) else v) for k, v in gap.items()} | {
        "tis_cap": spec.tis_cap
    }


def terms_gap(terms: dict[str, Any]) -> dict[str, Any]:
    """The gap's figures alone, for the trainer's log line."""
    return {k: terms[k] for k in ("sampler_tokens", "sampler_abs_logprob_gap", "sampler_outside_clip", "tis_cap")}


def _logprobs(model: Any, r: Rollout, device: str, temperature: float) -> torch.Tensor:
    return sequence_logprobs(model, r.input_ids.to(device), temperature).float().cpu()


def adapter_is_zero(model: Any) -> bool:
    """Every LoRA B is zero (a fresh adapter): the adapter adds exactly nothing, the policy is the reference."""
    return all(not bool(p.detach().any()) for n, p in model.named_parameters() if "lora_B" in n)


def precompute(job: Job, rollouts: list[Rollout], temperature: float = 1.0) -> dict[str, list[torch.Tensor]]:
    """Reference (adapter off) and old (adapter as loaded) log-probs, once per job, saved before step 1.
    With N processes rank r computes rollouts r, r+N, ..., every rank gets all of them, rank 0 saves.
    With a fresh adapter (epoch 1: every LoRA B is zero) the old log-probs are the reference ones, bit for
    bit (the adapter adds zeros), so they are copied instead of computed: one forward pass per rollout less.
    Both at the rollouts' sampling temperature (sequence_logprobs), as the step's new log-probs."""
    d = job.dist
    path = job.out / "precomputed.pt"
    if distributed.broadcast(d, path.is_file() if d.main else None):
        blob = torch.load(path, weights_only=False)
        if blob.get("fingerprint") == job.fingerprint:
            return blob
        raise TrainerError("spec_mismatch", f"{path} was computed for a different job")
    model = job.model
    model.eval()
    mine = d.shard(list(range(len(rollouts))))
    rounds = math.ceil(len(rollouts) / d.world)  # the same number of cancel checks on every rank
    ref: dict[int, torch.Tensor] = {}
    old: dict[int, torch.Tensor] = {}
    t0 = time.monotonic()
    stopped = False
    fresh = adapter_is_zero(model)
    with torch.no_grad():
        for n in range(rounds):
            if n < len(mine):
                k = mine[n]
                r = rollouts[k]
                with model.disable_adapter():
                    ref[k] = _logprobs(model, r, job.device, temperature)
                old[k] = ref[k].clone() if fresh else _logprobs(model, r, job.device, temperature)
            if job.stop_requested():
                stopped = True
                break
    model.train()
    if stopped:
        return {}
    if d.enabled:
        for part_ref, part_old in distributed.gather(d, (ref, old)):
            ref.update(part_ref)
            old.update(part_old)
    emit("info", message=f"reference and old log-probs for {len(rollouts)} rollouts in {time.monotonic() - t0:.1f}s")
    blob = {
        "fingerprint": job.fingerprint,
        "ref": [ref[k] for k in range(len(rollouts))],
        "old": [old[k] for k in range(len(rollouts))],
    }
    if d.main:
        job.out.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp-{os.getpid()}")
        torch.save(blob, tmp)
        os.replace(tmp, path)
    distributed.barrier(d)
    return blob


METRIC_SUMS = (
    "loss",
    "pg_loss",
    "kl",
    "clip_frac",
    "clip_frac_low",
    "clip_frac_high",
    "ratio",
    "adv",
    "reward",
    "rewarded",
    "tokens",
)


def step_backward(
    job: Job, spec: GrpoSpec, rollouts: list[Rollout], batch: list[int], pre: dict[str, list[torch.Tensor]]
) -> dict[str, float]:
    """Forward and backward of one optimizer step (mini-batch `batch`, global indices); the gradients are left
    on the adapter (summed over ranks by DDP). Returns the mini-batch's metrics, summed over ranks.

    The loss is token-mean over the whole mini-batch's policy tokens, so each rollout's term is already
    divided by the global count; with N processes rank r takes rollouts r, r+N, ... and scales its terms by N
    because DDP averages gradients."""
    d = job.dist
    model = job.train_model
    n_tok = sum(rollouts[i].policy_tokens for i in batch)
    agg = dict.fromkeys(METRIC_SUMS, 0.0)
    mine = d.shard(batch)
    trained = [i for i in mine if rollouts[i].policy_tokens > 0]
    for i in mine:
        r = rollouts[i]
        agg["tokens"] += r.input_ids.shape[1]
        if r.reward is not None:
            agg["reward"] += r.reward
            agg["rewarded"] += 1
        if r.policy_tokens == 0:
            continue
        last = i == trained[-1]
        # DDP all-reduces in the backward of a rank's last rollout of the step, and only there
        with contextlib.nullcontext() if last or not d.enabled else model.no_sync():
            logp = sequence_logprobs(model, r.input_ids.to(job.device), spec.temperature).float().cpu()
            out = clipped_policy_loss(
                logp,
                pre["old"][i],
                r.advantages,
                r.mask,
                spec.clip_eps_low,
                spec.clip_eps_high,
                ref_logprobs=pre["ref"][i],
                kl_beta=spec.kl_beta,
                normaliser=n_tok,
                is_weights=None
                if spec.tis_cap is None
                else tis_weights(pre["old"][i], r.sampler_logprobs, r.sampled, spec.tis_cap),
            )
            (out.loss * d.world if d.enabled else out.loss).backward()
        w = r.policy_tokens / max(n_tok, 1)
        agg["loss"] += float(out.loss.detach())
        agg["pg_loss"] += float(out.pg_loss)
        agg["kl"] += float(out.kl)
        agg["clip_frac"] += float(out.clip_frac) * w
        agg["clip_frac_low"] += float(out.clip_frac_low) * w
        agg["clip_frac_high"] += float(out.clip_frac_high) * w
        agg["ratio"] += float(out.ratio_mean) * w
        agg["adv"] += float((r.advantages * r.mask).sum()) / max(n_tok, 1)
    if d.enabled and not trained:
        # nothing of this step to train on this rank: a pass of weight 0 so that DDP's all-reduce still happens
        r = min((rollouts[i] for i in batch), key=lambda x: x.input_ids.shape[1])
        (model(input_ids=r.input_ids.to(job.device)).logits.sum() * 0.0).backward()
    return dict(zip(METRIC_SUMS, distributed.sum_floats(d, [agg[k] for k in METRIC_SUMS])))


def default_mini_batch(world: int) -> int:
    """The mini-batch of a spec that sets none: the smallest multiple of the ranks that is at least the
    single-process default (4), so every rank trains in every step (8 ranks: 8, not 4 with half idle)."""
    base = GrpoSpec.mini_batch_size
    return world * math.ceil(base / world)


def sized_to_ranks(spec: GrpoSpec, world: int, given: bool) -> GrpoSpec:
    """A spec's mini-batch for `world` ranks: the default sized to them when the spec sets none; a given one
    kept (its result then does not depend on the ranks), said when it leaves ranks idle."""
    if not given:
        return dataclasses.replace(spec, mini_batch_size=default_mini_batch(world))
    if spec.mini_batch_size % world:
        idle = world - spec.mini_batch_size % world
        emit(
            "info",
            message=f"mini_batch_size {spec.mini_batch_size} on {world} ranks: {idle} rank(s) idle in a full "
            f"step; a multiple of {world} uses every device",
        )
    return spec


def run_grpo(spec: GrpoSpec, cancel: Cancel) -> dict[str, Any]:
    job = Job("grpo-update", spec, cancel, spec.rollouts)
    done, last = job.open()
    if done is not None:
        return done
    _tok, encoder = job.load_base()
    terms: dict[str, Any] = {}
    rollouts = load_rollouts(spec, encoder, terms)
    n_lines = len({r.line for r in rollouts})  # mini-batches count rollouts (lines), not their segments
    per_epoch = math.ceil(n_lines / spec.mini_batch_size)
    total = per_epoch * spec.ppo_epochs
    if spec.max_steps is not None:
        total = min(total, spec.max_steps)
    # A fresh adapter (LoRA B = 0) is the reference, so with every advantage zero there is neither a policy
    # gradient nor a KL gradient: the update could not move the policy. Skip its passes (most of an epoch's
    # time on CPU) and save the fresh adapter as the checkpoint, 0 steps. With an init adapter the KL term
    # still pulls it toward the reference, so that update runs.
    noop = spec.init_adapter is None and not any(bool(r.advantages.any()) for r in rollouts)
    if noop:
        total = 0
    job.build_model(total)
    start, state = job.resume(last)
    if start > 0 and not (job.out / "precomputed.pt").is_file():
        raise TrainerError("internal", f"{job.out} has saves but no precomputed.pt; cannot resume this update")
    job.emit_start(
        total,
        start,
        encoder,
        rollouts=n_lines,
        sequences=len(rollouts),
        groups=len({r.group for r in rollouts}),
        policy_tokens=sum(r.policy_tokens for r in rollouts),
        **length_counts(rollouts),
    )
    if noop:
        # no reference or old log-probs to compute; the loop below runs no step, so save step 0 here
        emit(
            "info",
            message="every advantage is 0 and the adapter is fresh (the policy is the reference): no update steps",
        )
        job.save(0, {"history": [], "train_s": 0.0, "seen_tokens": 0})
        pre: dict[str, list[torch.Tensor]] = {}
    else:
        job.maybe_cancel(start, {}, start)
        pre = precompute(job, rollouts, spec.temperature)
        job.maybe_cancel(start, {}, start)
        if pre:
            terms.update(sampler_gap_of(rollouts, pre["old"], spec))
            emit("info", message=f"sampler-trainer gap: {json.dumps(terms_gap(terms))}")
    history: list[dict[str, Any]] = list(state.get("history", []))
    train_s = float(state.get("train_s", 0.0))
    seen_tokens = int(state.get("seen_tokens", 0))
    saved_at = start
    for step in range(start + 1, total + 1):
        t0 = time.monotonic()
        epoch, b = divmod(step - 1, per_epoch)
        order = np.random.default_rng([spec.seed, epoch]).permutation(n_lines)
        chosen = {int(i) for i in order[b * spec.mini_batch_size : (b + 1) * spec.mini_batch_size]}
        batch = [i for i, r in enumerate(rollouts) if r.line in chosen]
        n_tok = sum(rollouts[i].policy_tokens for i in batch)
        agg = step_backward(job, spec, rollouts, batch, pre)
        tokens = int(agg["tokens"])
        grad_norm = job.optimizer_step()
        dt = time.monotonic() - t0
        train_s += dt
        seen_tokens += tokens
        metrics = {
            "loss": agg["loss"],
            "pg_loss": agg["pg_loss"],
            "kl": agg["kl"],
            "clip_frac": agg["clip_frac"],
            "clip_frac_low": agg["clip_frac_low"],
            "clip_frac_high": agg["clip_frac_high"],
            "ratio_mean": agg["ratio"],
            "adv_mean": agg["adv"],
            "grad_norm": grad_norm,
            "policy_tokens": n_tok,
            "tokens": tokens,
            "tokens_per_s": round(tokens / dt, 2),
            "step_s": round(dt, 3),
        }
        history.append({"step": step, **{k: (round(v, 6) if isinstance(v, float) else v) for k, v in metrics.items()}})
        emit(
            "progress",
            step=step,
            total=total,
            elapsed_s=job.elapsed(),
            epoch=round(step / per_epoch, 4),
            lr=job.scheduler.get_last_lr()[0],
            rollouts=len(chosen),
            **metrics,
            **job.device_memory(),
        )
        job.log_scalars(
            step,
            {
                **metrics,
                "lr": job.scheduler.get_last_lr()[0],
                **({"reward_mean": agg["reward"] / agg["rewarded"]} if agg["rewarded"] else {}),
                **job.device_memory(),
            },
        )
        state = {
            "cursor": {"ppo_epoch": epoch, "mini_batch": b, "next_step": step + 1},
            "history": history,
            "train_s": train_s,
            "seen_tokens": seen_tokens,
        }
        saved_at = job.end_step(step, total, state, saved_at)
    final = ckpt.step_dir(job.out, total)
    metrics_out = {
        "rollouts": n_lines,
        "sequences": len(rollouts),
        "steps": total,
        "ppo_epochs": spec.ppo_epochs,
        "history": history,
        "train_s": round(train_s, 3),
        "seen_tokens": seen_tokens,
        "tokens_per_s": round(seen_tokens / train_s, 2) if train_s else None,
        "s_per_step": round(train_s / len(history), 3) if history else None,
        "advantages": {r.id: r.message_advantages for r in rollouts},
        **terms,
        **length_counts(rollouts),
        **({"skipped": "all advantages zero"} if noop else {}),
    }
    return job.finish(total, final, metrics_out)
