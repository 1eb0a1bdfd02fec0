"""GRPO math as pure tensor functions (no model, no I/O), tested against hand-computed values.

Follows verl's `verl/trainer/ppo/core_algos.py` (compute_grpo_outcome_advantage, compute_policy_loss_vanilla,
kl_penalty "low_var_kl", agg_loss "token-mean") and TRL's GRPOTrainer (same k3 estimator, same clipped
objective); the AAC step advantage follows GRPO's process supervision (Shao et al. 2024, DeepSeekMath,
section 4.1.3) as a return-to-go of uncentred step rewards against a per-index leave-one-out baseline. Formulas,
with the choices made where those differ, are in docs/training.md.

Shapes: per-token tensors are (batch, seq); masks are 0/1 floats or bools of the same shape.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import torch
from torch.utils.checkpoint import checkpoint


def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of x over mask==1. An all-zero mask gives 0 (an empty mini-batch contributes nothing)."""
    m = mask.to(x.dtype)
    return (x * m).sum() / m.sum().clamp(min=1.0)


def _scale(values: Sequence[float], scale: str, std_floor: float, epsilon: float) -> float:
    """The divisor of a group's centred rewards: 1 (scale="none", Dr. GRPO, TRL's scale_rewards="none"), or
    the unbiased std floored at `std_floor` (scale="std"; floor 0 is verl's and TRL's default GRPO)."""
    if scale == "none":
        return 1.0
    t = torch.tensor(values, dtype=torch.float64)
    std = float(t.std()) if t.numel() > 1 else 0.0
    return max(std, std_floor) + epsilon


ADVANTAGE_SCALES = ("none", "std")


def group_outcome_advantages(
    rewards: Sequence[float],
    groups: Sequence[Hashable],
    scale: str = "none",
    std_floor: float = 0.0,
    epsilon: float = 1e-6,
) -> list[float]:
    """Outcome GRPO: A_i = (R_i - mean_g R) / s_g over the rollouts i of the same group g, with
    s_g = 1 (scale="none", the default: Dr. GRPO) or max(std_g R, std_floor) + eps (scale="std").

    Why not the std by default: with continuous judge scores the std of a group of 4 is mostly the judge's
    noise when the rollouts are alike, and dividing by it turns a 0.01 difference into a full-size advantage
    (with G = 2 every pair gets +-0.71 whatever the gap). A floor at the judge's resolution keeps GRPO's
    scale-free form for real differences and damps the noise; none keeps the reward's own unit.
    A group whose rewards are all equal gets A = 0; a group of one rollout gets 0 (nothing to compare with).
    """
    if scale not in ADVANTAGE_SCALES:
        raise ValueError(f"scale must be one of {ADVANTAGE_SCALES}, got {scale!r}")
    if len(rewards) != len(groups):
        raise ValueError(f"{len(rewards)} rewards but {len(groups)} group ids")
    out = [0.0] * len(rewards)
    for idx in _by_group(groups).values():
        if len(idx) < 2:
            continue
        vals = [float(rewards[i]) for i in idx]
        mean = sum(vals) / len(vals)
        s = _scale(vals, scale, std_floor, epsilon)
        for i in idx:
            out[i] = (float(rewards[i]) - mean) / s
    return out


def _by_group(groups: Sequence[Hashable]) -> dict[Hashable, list[int]]:
    by_group: dict[Hashable, list[int]] = {}
    for i, g in enumerate(groups):
        by_group.setdefault(g, []).append(i)
    return by_group


def returns_to_go(step_rewards: Sequence[float | None]) -> list[float]:
    """G_t = sum_{t' >= t} r_t' of one rollout's uncentred step rewards; an unrated step (None) adds 0."""
    out = [0.0] * len(step_rewards)
    acc = 0.0
    for t in range(len(step_rewards) - 1, -1, -1):
        r = step_rewards[t]
        acc += 0.0 if r is None else float(r)
        out[t] = acc
    return out


def all_unrated(step_rewards: Sequence[float | None]) -> bool:
    """The critic rated none of the rollout's steps although it took at least one exploration step (every
    message but the last, the description, is one; the last is one too when the rollout ended without a
    description, and then it may be rated)."""
    return len(step_rewards) > 1 and all(r is None for r in step_rewards)


def _at(returns: list[float], t: int) -> float:
    """A rollout's return from index t; 0 where it had stopped before t (no step left to earn anything)."""
    return returns[t] if t < len(returns) else 0.0


def group_step_advantages(
    step_rewards: Sequence[Sequence[float | None]],
    groups: Sequence[Hashable],
    scale: str = "none",
    std_floor: float = 0.0,
    epsilon: float = 1e-6,
) -> list[list[float]]:
    """The step term: a return-to-go of uncentred step rewards against a per-index leave-one-out baseline
    (docs/training.md, "The step return"):

      G_{i,t} = sum_{t' >= t} r_{i,t'}                     (r >= 0: a step that reveals nothing earns 0)
      b_{i,t} = mean_{j != i, j rated} G_{j,t}              (G_{j,t} = 0 where rollout j had stopped before t)
      A_{i,t} = k (G_{i,t} - b_{i,t}) / s_g,   k = (n_g - 1) / n_g,  n_g the group's rated rollouts

    k puts the term in the outcome term's unit (its group mean holds the rollout itself, which makes it k times
    its leave-one-out difference), and with it A_{i,t} = G_{i,t} - mean over all rated rollouts of G_{.,t}.
    s_g = 1 (scale="none") or max(std of the group's G values at every index, std_floor) + eps (scale="std").

    Why this form: rewards are not centred per step, so a step that adds information raises the return of
    every step before it and a step that adds none changes nothing; stopping early forfeits the rewards of
    the steps not taken and is never paid for. The baseline depends only on the group-mates (independent
    samples of the same policy on the same method), so it adds no bias (the argument: docs/training.md), and
    it compares a rollout's return from index t with its group-mates' returns from the same index, not with
    their whole episodes.

    A rollout whose exploration steps are all unrated (all_unrated: the critic rated none of them) has no step
    signal: its step advantages are 0 and it takes no part in its group-mates' baselines (it gets the outcome
    only). A rollout that took no exploration step (its one policy message the description) is rated: its
    return is 0. A group with fewer than 2 rated rollouts gets 0 everywhere.
    """
    if scale not in ADVANTAGE_SCALES:
        raise ValueError(f"scale must be one of {ADVANTAGE_SCALES}, got {scale!r}")
    if len(step_rewards) != len(groups):
        raise ValueError(f"{len(step_rewards)} step-reward lists but {len(groups)} group ids")
    out: list[list[float]] = [[0.0] * len(r) for r in step_rewards]
    for idx in _by_group(groups).values():
        rated = [i for i in idx if not all_unrated(step_rewards[i])]
        if len(rated) < 2:
            continue
        ret = {i: returns_to_go(step_rewards[i]) for i in rated}
        pooled = [v for i in rated for v in ret[i]]
        s = _scale(pooled, scale, std_floor, epsilon) if min(pooled) != max(pooled) else 1.0
        k = (len(rated) - 1) / len(rated)
        for i in rated:
            others = [ret[j] for j in rated if j != i]
            out[i] = [k * (g - sum(_at(o, t) for o in others) / len(others)) / s for t, g in enumerate(ret[i])]
    return out


def aac_advantages(
    step_rewards: Sequence[Sequence[float | None]],
    outcome_rewards: Sequence[float],
    groups: Sequence[Hashable],
    step_weight: float = 1.0,
    outcome_weight: float = 1.0,
    scale: str = "none",
    std_floor: float = 0.0,
    epsilon: float = 1e-6,
) -> tuple[list[list[float]], list[list[float]], list[float]]:
    """AAC-GRPO per-step advantage: A_{i,t} = w_s * A^step_{i,t} + w_o * A^outcome_i for t < T_i, and for the
    final policy message T_i (the description the judge scored) w_s * A^step_{i,T} + A^outcome_i: the final
    message always carries its outcome advantage. w_o = 1 is the `mix` reward, w_o = 0 `aac` (the outcome on
    the description only), w_s = 0 plain outcome GRPO.
    Returns (advantages, the step term, the outcome term): one list per rollout, one value per policy step;
    the terms are returned so each epoch can log their magnitudes side by side.
    """
    step = group_step_advantages(step_rewards, groups, scale, std_floor, epsilon)
    outcome = group_outcome_advantages(outcome_rewards, groups, scale, std_floor, epsilon)
    out: list[list[float]] = []
    for row, o in zip(step, outcome):
        adv = [step_weight * a + outcome_weight * o for a in row]
        if row:
            adv[-1] = step_weight * row[-1] + o
        out.append(adv)
    return out, step, outcome


def kl_k3(logprobs: torch.Tensor, ref_logprobs: torch.Tensor) -> torch.Tensor:
    """Per-token KL(pi || pi_ref) estimate, Schulman's k3: exp(ref - logp) - (ref - logp) - 1 >= 0.

    Unbiased for tokens sampled from pi, always >= 0, 0 iff logp == ref. Same as verl's "low_var_kl" and
    TRL's per_token_kl (verl clamps the log-ratio to [-20, 20] and the result to [-10, 10]; we do the same).
    """
    delta = (ref_logprobs - logprobs).clamp(min=-20.0, max=20.0)
    return (torch.exp(delta) - delta - 1.0).clamp(min=-10.0, max=10.0)


@dataclass
class PolicyLossOutput:
    loss: torch.Tensor  # scalar: token-mean of (pg + beta * kl) over the mask; differentiable
    pg_loss: torch.Tensor  # scalar, token-mean of the clipped surrogate alone
    kl: torch.Tensor  # scalar, token-mean of k3 (detached)
    clip_frac: torch.Tensor  # share of masked tokens where the clipped term was the active one
    clip_frac_low: torch.Tensor  # ratio < 1 - eps_low with A < 0 (clipped from below)
    clip_frac_high: torch.Tensor  # ratio > 1 + eps_high with A > 0 (clipped from above)
    ratio_mean: torch.Tensor


def clipped_policy_loss(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    clip_eps_low: float = 0.2,
    clip_eps_high: float = 0.2,
    ref_logprobs: torch.Tensor | None = None,
    kl_beta: float = 0.0,
    normaliser: float | None = None,
    is_weights: torch.Tensor | None = None,
) -> PolicyLossOutput:
    """PPO/GRPO clipped surrogate, per token, aggregated as token-mean:

    ratio = exp(logp - logp_old);  pg = max(-A * ratio, -A * clip(ratio, 1 - eps_low, 1 + eps_high))
    loss  = sum_mask(w * pg + beta * k3(logp, logp_ref)) / N,   N = number of masked tokens (or `normaliser`),
    w = `is_weights` (truncated importance sampling, see tis_weights; 1 when not given).

    `normaliser` lets a mini-batch processed in pieces (gradient accumulation) keep one token-mean over the
    whole mini-batch: pass the mini-batch's total token count to every piece and sum the losses.
    """
    m = mask.to(logprobs.dtype)
    n = float(m.sum()) if normaliser is None else float(normaliser)
    n = max(n, 1.0)
    log_ratio = (logprobs - old_logprobs).clamp(min=-20.0, max=20.0)
    ratio = torch.exp(log_ratio)
    unclipped = -advantages * ratio
    clipped = -advantages * torch.clamp(ratio, 1.0 - clip_eps_low, 1.0 + clip_eps_high)
    pg = torch.maximum(unclipped, clipped)
    if is_weights is not None:
        pg = pg * is_weights.detach()
    per_token = pg
    kl = torch.zeros_like(pg)
    if ref_logprobs is not None:
        kl = kl_k3(logprobs, ref_logprobs)
        if kl_beta:
            per_token = pg + kl_beta * kl
    with torch.no_grad():
        mt = m.sum().clamp(min=1.0)
        clip_frac = ((clipped > unclipped).to(m.dtype) * m).sum() / mt
        low = (((ratio < 1.0 - clip_eps_low) & (advantages < 0)).to(m.dtype) * m).sum() / mt
        high = (((ratio > 1.0 + clip_eps_high) & (advantages > 0)).to(m.dtype) * m).sum() / mt
        ratio_mean = (ratio * m).sum() / mt
    return PolicyLossOutput(
        loss=(per_token * m).sum() / n,
        pg_loss=((pg * m).sum() / n).detach(),
        kl=((kl * m).sum() / n).detach(),
        clip_frac=clip_frac,
        clip_frac_low=low,
        clip_frac_high=high,
        ratio_mean=ratio_mean,
    )


def tis_weights(
    old_logprobs: torch.Tensor, sampler_logprobs: torch.Tensor, sampled: torch.Tensor, cap: float
) -> torch.Tensor:
    """Truncated importance sampling (TIS; verl's `tis_imp_ratio_cap`, TRL's `vllm_importance_sampling_cap`):
    per token w = min(pi_old / pi_sampler, cap), the trainer's old policy over the server's that sampled the
    token, so the update corrects for the two computing different probabilities (quantised weights, another
    kernel, top-k/top-p). 1 where the sampler recorded no log-prob (`sampled` 0). Detached; cap > 1."""
    if not cap > 1.0:
        raise ValueError(f"the importance-sampling cap must be > 1, got {cap}")
    log_w = (old_logprobs - sampler_logprobs).clamp(min=-20.0, max=20.0)
    w = torch.exp(log_w).clamp(max=cap)
    return torch.where(sampled > 0, w, torch.ones_like(w)).detach()


def sampler_gap(
    old_logprobs: torch.Tensor,
    sampler_logprobs: torch.Tensor,
    sampled: torch.Tensor,
    clip_eps_low: float,
    clip_eps_high: float,
) -> dict[str, float]:
    """How far the trainer's log-probs of the sampled tokens are from the server's (over tokens with both):
    mean |delta log-prob|, and the share of tokens whose ratio pi_old / pi_sampler lies outside the clip range
    [1 - eps_low, 1 + eps_high] (those an uncorrected update would treat as already moved)."""
    m = sampled > 0
    n = int(m.sum())
    if n == 0:
        return {"sampler_tokens": 0, "sampler_abs_logprob_gap": float("nan"), "sampler_outside_clip": float("nan")}
    d = (old_logprobs - sampler_logprobs)[m]
    ratio = torch.exp(d.clamp(min=-20.0, max=20.0))
    outside = ((ratio < 1.0 - clip_eps_low) | (ratio > 1.0 + clip_eps_high)).float().mean()
    return {
        "sampler_tokens": n,
        "sampler_abs_logprob_gap": float(d.abs().mean()),
        "sampler_outside_clip": float(outside),
    }


# Positions whose fp32 logits exist at once in token_logprobs and head_logprobs: 1,024 x a 152k vocabulary is
# 0.6 GB, where the whole of an 8k-token sequence would be 5 GB (and as much again for its gradient).
LOGPROB_CHUNK = 1024


def _picked_logprobs(logits: torch.Tensor, targets: torch.Tensor, temperature: float) -> torch.Tensor:
    """log_softmax(logits / T) at `targets`, for one chunk of positions, in float32."""
    x = logits.float()
    if temperature != 1.0:
        x = x / temperature
    return torch.gather(x, -1, targets.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(x, dim=-1)


def _check(temperature: float, chunk: int) -> None:
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    if chunk < 1:
        raise ValueError(f"chunk must be >= 1, got {chunk}")


def token_logprobs(
    logits: torch.Tensor, input_ids: torch.Tensor, temperature: float = 1.0, chunk: int = LOGPROB_CHUNK
) -> torch.Tensor:
    """log p_T(token_t | tokens_<t) for t = 1..T-1: shape (batch, T-1), aligned with input_ids[:, 1:], under the
    distribution the sampler drew from at `temperature`: log_softmax(logits / T) (verl's logits.div_(temperature),
    TRL's logits / self.temperature), so the ratio and the KL are those of the sampled policy.

    Taken `chunk` positions at a time, each chunk upcast to float32 and reduced with logsumexp, so the fp32 copy
    of the whole (batch, T, vocab) never exists; every position's value is what the whole computation gives.
    Under autograd each chunk's fp32 tensor is kept for the backward pass: a forward that needs gradients takes
    head_logprobs, which recomputes its chunks instead.
    """
    _check(temperature, chunk)
    targets = input_ids[:, 1:]
    n = targets.shape[1]
    parts = [
        _picked_logprobs(logits[:, s : min(s + chunk, n), :], targets[:, s : s + chunk], temperature)
        for s in range(0, n, chunk)
    ]
    return torch.cat(parts, dim=1) if parts else logits.new_zeros((logits.shape[0], 0), dtype=torch.float32)


def head_logprobs(
    hidden: torch.Tensor,
    head: Callable[[torch.Tensor], torch.Tensor],
    input_ids: torch.Tensor,
    temperature: float = 1.0,
    chunk: int = LOGPROB_CHUNK,
) -> torch.Tensor:
    """token_logprobs of the logits head(hidden) (hidden: the model's last hidden state, (batch, T, hidden); head:
    its output layer), with the logits made `chunk` positions at a time. With gradients on, each chunk is
    checkpointed: its logits are made again in the backward pass, so what autograd keeps is the hidden state
    alone, and one chunk's logits exist at any time, forward or backward."""
    _check(temperature, chunk)
    targets = input_ids[:, 1:]
    n = targets.shape[1]
    grad = torch.is_grad_enabled() and hidden.requires_grad

    def piece(h: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        return _picked_logprobs(head(h), t, temperature)

    parts = []
    for s in range(0, n, chunk):
        h, t = hidden[:, s : min(s + chunk, n), :], targets[:, s : s + chunk]
        parts.append(checkpoint(piece, h, t, use_reentrant=False) if grad else piece(h, t))
    return torch.cat(parts, dim=1) if parts else hidden.new_zeros((hidden.shape[0], 0), dtype=torch.float32)
