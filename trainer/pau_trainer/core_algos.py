"""GRPO math as pure tensor functions (no model, no I/O), tested against hand-computed values.

Follows verl's `verl/trainer/ppo/core_algos.py` (compute_grpo_outcome_advantage, compute_policy_loss_vanilla,
kl_penalty "low_var_kl", agg_loss "token-mean") and TRL's GRPOTrainer (same k3 estimator, same clipped
objective); the AAC step advantage follows GRPO's process supervision (Shao et al. 2024, DeepSeekMath,
section 4.1.3), with the mean instead of the sum over the steps to go and a leave-one-out baseline by default. Formulas, with the choices made where those differ, are in docs/training.md.

Shapes: per-token tensors are (batch, seq); masks are 0/1 floats or bools of the same shape.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import torch


def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of x over mask==1. An all-zero mask gives 0 (an empty mini-batch contributes nothing)."""
    m = mask.to(x.dtype)
    return (x * m).sum() / m.sum().clamp(min=1.0)


def _group_stats(values: Sequence[float], norm_by_std: bool, epsilon: float) -> tuple[float, float]:
    t = torch.tensor(values, dtype=torch.float64)
    mean = float(t.mean())
    # Unbiased std as torch.std (verl, TRL). A group of one has no relative signal: its advantage is 0.
    std = float(t.std()) if t.numel() > 1 else 0.0
    return mean, (std + epsilon) if norm_by_std else 1.0


def group_outcome_advantages(
    rewards: Sequence[float],
    groups: Sequence[Hashable],
    norm_by_std: bool = True,
    epsilon: float = 1e-6,
) -> list[float]:
    """Outcome GRPO: A_i = (R_i - mean_g R) / (std_g R + eps) over the rollouts i of the same group g.

    A group whose rewards are all equal (zero variance) gets A = 0 for every rollout: (R - mean) is exactly 0,
    so the epsilon only avoids 0/0. A group of a single rollout also gets 0 (verl would give the raw reward
    there; with G >= 2 rollouts per method, as here, that case is a data error, not a baseline choice).
    norm_by_std=False is Dr. GRPO's variant (mean-centred only).
    """
    if len(rewards) != len(groups):
        raise ValueError(f"{len(rewards)} rewards but {len(groups)} group ids")
    by_group: dict[Hashable, list[int]] = {}
    for i, g in enumerate(groups):
        by_group.setdefault(g, []).append(i)
    out = [0.0] * len(rewards)
    for idx in by_group.values():
        if len(idx) < 2:
            continue
        mean, scale = _group_stats([rewards[i] for i in idx], norm_by_std, epsilon)
        for i in idx:
            out[i] = (rewards[i] - mean) / scale
    return out


STEP_AGGREGATES = ("mean", "sum")
# leave_one_out (default): a rollout's steps are centred on the mean of the OTHER rollouts' rated steps, so the
# baseline does not depend on what this rollout did nor on when it stopped; pooled: on the mean of every rated
# step of the group, this rollout's included with the weight of its share of them (the form used before).
STEP_BASELINES = ("leave_one_out", "pooled")


def group_step_advantages(
    step_rewards: Sequence[Sequence[float | None]],
    groups: Sequence[Hashable],
    norm_by_std: bool = True,
    epsilon: float = 1e-6,
    aggregate: str = "mean",
    baseline: str = "leave_one_out",
) -> list[list[float]]:
    """Process-supervised GRPO on the critic's per-step rewards (docs/training.md, "Advantages" and "Step
    advantage under policy-chosen stopping").

    r~_{i,t} = k (r_{i,t} - b_i) / (std_g r + eps), std over every rated step of every rollout in group g, and
      baseline="leave_one_out" (default): b_i = mean of the rated steps of the group's other rollouts,
                                          k = (G-1)/G (G rollouts in the group; the outcome term's unit)
      baseline="pooled":                  b_i = mean of every rated step of the group (rollout i's included), k = 1
    Then each step's advantage aggregates the normalised rewards of the rated steps to go (t' >= t):
      aggregate="mean" (default): A_{i,t} = mean_{t' >= t, rated} r~_{i,t'}   (0 when none is left)
      aggregate="sum" (DeepSeekMath 4.1.3):  A_{i,t} = sum_{t' >= t} r~_{i,t'}
    The sum grows with the number of rated steps to go (one critic point over ten steps is ten sigma), so a
    long rollout outweighs its group's outcome, and it subtracts the baseline once per step to go, a number
    the rollout's own stopping sets; the mean subtracts it once: A_{i,t} = (mean_{t' >= t} r_{i,t'} - b_i) / s.
    The pooled baseline holds rollout i's own ratings with weight n_i / N (its share of the group's rated
    steps), so at its first rated step A_pooled = (1 - n_i/N) / k * A_leave_one_out: the credit shrinks with the
    rollout's own length, which the policy chose; the leave-one-out one does not move with it.
    A step the critic did not rate (None; e.g. the final answer) takes no part in the statistics nor in the
    aggregate, but still receives the aggregate of later rated steps (0 when there is none).
    Zero variance within a group gives r~ = 0 for all its steps; a group with fewer than 2 rated steps, and
    under leave_one_out a rollout whose group-mates rated none, get 0 (nothing to compare with).
    """
    if aggregate not in STEP_AGGREGATES:
        raise ValueError(f"aggregate must be one of {STEP_AGGREGATES}, got {aggregate!r}")
    if baseline not in STEP_BASELINES:
        raise ValueError(f"baseline must be one of {STEP_BASELINES}, got {baseline!r}")
    if len(step_rewards) != len(groups):
        raise ValueError(f"{len(step_rewards)} step-reward lists but {len(groups)} group ids")
    by_group: dict[Hashable, list[int]] = {}
    for i, g in enumerate(groups):
        by_group.setdefault(g, []).append(i)
    normed: list[list[float | None]] = [[None] * len(r) for r in step_rewards]
    for idx in by_group.values():
        rated = [float(r) for i in idx for r in step_rewards[i] if r is not None]
        if len(rated) < 2 or min(rated) == max(rated):
            # nothing to compare, or a zero-variance group: every r~ is 0 exactly (not a rounding residue / eps)
            for i in idx:
                normed[i] = [None if r is None else 0.0 for r in step_rewards[i]]
            continue
        mean, scale = _group_stats(rated, norm_by_std, epsilon)
        # (G-1)/G: the outcome term's group mean holds the rollout itself, which makes it (G-1)/G times its
        # leave-one-out difference; the same factor keeps both terms in one unit (w_step, w_outcome compare)
        loo = (len(idx) - 1) / len(idx)
        for i in idx:
            if baseline == "pooled":
                b, k = mean, 1.0
            else:
                others = [float(r) for j in idx if j != i for r in step_rewards[j] if r is not None]
                if not others:
                    normed[i] = [None if r is None else 0.0 for r in step_rewards[i]]
                    continue
                b, k = sum(others) / len(others), loo
            normed[i] = [None if r is None else k * (float(r) - b) / scale for r in step_rewards[i]]
    out: list[list[float]] = []
    for row in normed:
        acc = 0.0
        count = 0
        togo = [0.0] * len(row)
        for t in range(len(row) - 1, -1, -1):
            v = row[t]
            if v is not None:
                acc += v
                count += 1
            togo[t] = (acc / count if count else 0.0) if aggregate == "mean" else acc
        out.append(togo)
    return out


def aac_advantages(
    step_rewards: Sequence[Sequence[float | None]],
    outcome_rewards: Sequence[float],
    groups: Sequence[Hashable],
    step_weight: float = 1.0,
    outcome_weight: float = 1.0,
    norm_by_std: bool = True,
    epsilon: float = 1e-6,
    step_aggregate: str = "mean",
    final_outcome: bool = True,
    step_baseline: str = "leave_one_out",
) -> list[list[float]]:
    """AAC-GRPO per-step advantage: A_{i,t} = w_s * A^step_{i,t} + w_o * A^outcome_i for t < T_i, and for the
    final policy message T_i (the description the judge scored) w_s * A^step_{i,T} + A^outcome_i: the final
    message always carries its outcome advantage, whatever w_o says about the steps (final_outcome=False
    gives the old form, w_o on every message).

    A^step: group_step_advantages (the frozen privileged critic's step rewards, normalised in the group,
    aggregated over the steps to go); A^outcome: group_outcome_advantages (the judged final reward).
    w_s = 0 gives plain outcome GRPO (the paper's ablation), w_o = 0 critic-only on the steps.
    Returns one list per rollout, one value per policy step.
    """
    step = group_step_advantages(step_rewards, groups, norm_by_std, epsilon, step_aggregate, step_baseline)
    outcome = group_outcome_advantages(outcome_rewards, groups, norm_by_std, epsilon)
    out: list[list[float]] = []
    for row, o in zip(step, outcome):
        adv = [step_weight * a + outcome_weight * o for a in row]
        if final_outcome and row:
            adv[-1] = step_weight * row[-1] + o
        out.append(adv)
    return out


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
) -> PolicyLossOutput:
    """PPO/GRPO clipped surrogate, per token, aggregated as token-mean:

    ratio = exp(logp - logp_old);  pg = max(-A * ratio, -A * clip(ratio, 1 - eps_low, 1 + eps_high))
    loss  = sum_mask(pg + beta * k3(logp, logp_ref)) / N,   N = number of masked tokens (or `normaliser`).

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


def token_logprobs(logits: torch.Tensor, input_ids: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """log p_T(token_t | tokens_<t) for t = 1..T-1: shape (batch, T-1), aligned with input_ids[:, 1:], under the
    distribution the sampler drew from at `temperature`: log_softmax(logits / T) (verl's logits.div_(temperature),
    TRL's logits / self.temperature), so the ratio and the KL are those of the sampled policy.

    Computed row by row with logsumexp to avoid materialising a (batch, T, vocab) log-softmax twice.
    """
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    targets = input_ids[:, 1:]
    shifted = logits[:, :-1, :].float()
    if temperature != 1.0:
        shifted = shifted / temperature
    picked = torch.gather(shifted, -1, targets.unsqueeze(-1)).squeeze(-1)
    return picked - torch.logsumexp(shifted, dim=-1)
