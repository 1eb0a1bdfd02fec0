"""GRPO math against hand-computed values on fixed tensors (no model)."""

import math

import pytest
import torch

from pau_trainer.core_algos import (
    aac_advantages,
    clipped_policy_loss,
    group_outcome_advantages,
    group_step_advantages,
    kl_k3,
    masked_mean,
    token_logprobs,
)

S3 = math.sqrt(1 / 3)  # unbiased std of [1, 0, 0, 1]


def test_outcome_advantages_normalise_within_each_group():
    adv = group_outcome_advantages([1, 0, 0, 1, 2, 2, 7], ["a", "a", "a", "a", "b", "b", "c"])
    want = 0.5 / (S3 + 1e-6)
    assert adv[:4] == pytest.approx([want, -want, -want, want], abs=1e-9)
    # zero-variance group: every rollout gets exactly 0 (the epsilon only avoids 0/0)
    assert adv[4:6] == [0.0, 0.0]
    # a group of one rollout has no relative signal
    assert adv[6] == 0.0


def test_outcome_advantages_without_std_is_mean_centred():
    adv = group_outcome_advantages([3.0, 1.0], ["g", "g"], norm_by_std=False)
    assert adv == pytest.approx([1.0, -1.0])


def test_outcome_advantages_rejects_misaligned_inputs():
    with pytest.raises(ValueError):
        group_outcome_advantages([1.0, 2.0], ["g"])


def test_step_advantages_sum_is_deepseekmath_reward_to_go():
    # rollout 1: steps rated 1, 0.5, then an unrated final answer; rollout 2: 0, 1
    # the pooled baseline (every rated step of the group), as DeepSeekMath normalises
    adv = group_step_advantages([[1.0, 0.5, None], [0.0, 1.0]], ["g", "g"], aggregate="sum", baseline="pooled")
    rated = [1.0, 0.5, 0.0, 1.0]
    mean = sum(rated) / 4
    std = math.sqrt(sum((r - mean) ** 2 for r in rated) / 3) + 1e-6
    n = [(r - mean) / std for r in rated]
    assert adv[0] == pytest.approx([n[0] + n[1], n[1], 0.0], abs=1e-9)
    assert adv[1] == pytest.approx([n[2] + n[3], n[3]], abs=1e-9)
    # the literal numbers, so a change in the statistics cannot hide behind the same formula
    assert adv[0] == pytest.approx([0.522233, -0.261116, 0.0], abs=1e-5)
    assert adv[1] == pytest.approx([-0.522233, 0.783349], abs=1e-5)


def test_step_advantages_mean_over_rated_steps_to_go():
    adv = group_step_advantages([[1.0, 0.5, None], [0.0, 1.0]], ["g", "g"], baseline="pooled")
    # same z-scores as above (0.783349, -0.261116, -1.305581, 0.783349); the mean of the rated ones to go
    assert adv[0] == pytest.approx([(0.783349 - 0.261116) / 2, -0.261116, 0.0], abs=1e-5)
    assert adv[1] == pytest.approx([(-1.305581 + 0.783349) / 2, 0.783349], abs=1e-5)
    # an unrated step between rated ones neither counts nor dilutes the mean
    assert group_step_advantages([[1.0, None, 0.0], [0.5]], ["g", "g"])[0][0] == pytest.approx(
        group_step_advantages([[1.0, 0.0], [0.5]], ["g", "g"])[0][0]
    )
    with pytest.raises(ValueError):
        group_step_advantages([[1.0]], ["g"], aggregate="max")
    with pytest.raises(ValueError, match="baseline must be one of"):
        group_step_advantages([[1.0]], ["g"], baseline="median")


def test_step_advantage_scale_does_not_grow_with_rated_steps():
    # every rollout's steps rated alike within it: under the mean, a rollout's first-step advantage is its
    # steps' z-score whatever their number; under the sum it is that times the number of steps
    steps = [[0.7] * 10, [0.6] * 2, [0.7], [0.6] * 5]
    mean_adv = group_step_advantages(steps, ["g"] * 4, baseline="pooled")
    sum_adv = group_step_advantages(steps, ["g"] * 4, aggregate="sum", baseline="pooled")
    assert mean_adv[0][0] == pytest.approx(mean_adv[2][0])
    assert sum_adv[0][0] == pytest.approx(10 * sum_adv[2][0])
    assert max(abs(v) for row in mean_adv for v in row) < 2
    # the same under the default baseline: the sum is the mean times the rated steps to go
    loo_mean = group_step_advantages(steps, ["g"] * 4)
    loo_sum = group_step_advantages(steps, ["g"] * 4, aggregate="sum")
    assert loo_sum[0][0] == pytest.approx(10 * loo_mean[0][0])
    assert max(abs(v) for row in loo_mean for v in row) < 2


def test_step_advantages_zero_variance_group_is_zero():
    assert group_step_advantages([[0.5, 0.5], [0.5]], ["g", "g"]) == [[0.0, 0.0], [0.0]]
    assert group_step_advantages([[0.5, 0.5], [0.5]], ["g", "g"], aggregate="sum") == [[0.0, 0.0], [0.0]]
    # exactly 0 also where the means of 0.7s do not round back to 0.7
    assert group_step_advantages([[0.7] * 3, [0.7] * 7], ["g", "g"]) == [[0.0] * 3, [0.0] * 7]
    assert group_step_advantages([[0.7] * 3, [0.7] * 7], ["g", "g"], baseline="pooled") == [[0.0] * 3, [0.0] * 7]


def test_aac_adds_weighted_outcome_to_every_step_and_the_outcome_to_the_final_message():
    steps = [[1.0, 0.0, None], [0.0, 1.0, None]]
    out = aac_advantages(steps, [1.0, 0.0], ["g", "g"], step_weight=0.5, outcome_weight=2.0)
    s = group_step_advantages(steps, ["g", "g"])
    o = group_outcome_advantages([1.0, 0.0], ["g", "g"])
    for k in range(2):
        assert out[k][:2] == pytest.approx([0.5 * s[k][0] + 2 * o[k], 0.5 * s[k][1] + 2 * o[k]])
        # the final message: its own outcome advantage, weight 1
        assert out[k][2] == pytest.approx(0.5 * s[k][2] + o[k])
    # step_weight 0, outcome_weight 1 = plain outcome GRPO, the paper's ablation
    plain = aac_advantages(steps, [1.0, 0.0], ["g", "g"], step_weight=0.0)
    assert plain == [[o[0]] * 3, [o[1]] * 3]
    # critic-only (aac): the steps get no outcome, the final message still does
    critic_only = aac_advantages(steps, [1.0, 0.0], ["g", "g"], outcome_weight=0.0)
    assert critic_only[0] == pytest.approx([s[0][0], s[0][1], o[0]])
    # the old form, for comparison: w_o on every message, the final one too
    old = aac_advantages(steps, [1.0, 0.0], ["g", "g"], outcome_weight=0.0, final_outcome=False, step_aggregate="sum")
    assert old[0][2] == 0.0


# The worked example of issue 23 (G = 4): critic rewards [.7 x 4], [.6 x 4], [.6 x 2], [.7 x 1] on the
# exploration steps, then the unrated final description; judged outcomes 3, 3, 5, 2.
WORKED_STEPS = [[0.7] * 4 + [None], [0.6] * 4 + [None], [0.6] * 2 + [None], [0.7] + [None]]
WORKED_OUTCOMES = [3.0, 3.0, 5.0, 2.0]


def test_worked_example_old_form_pushed_the_best_description_down():
    # what the issue measured: the sum, outcome weight 1 on every message (mix) -> first-message step
    # advantages +4.18, -3.48, -1.74, +1.04 and the best-described rollout's steps pushed down
    old = aac_advantages(
        WORKED_STEPS, WORKED_OUTCOMES, ["g"] * 4, step_aggregate="sum", final_outcome=False, step_baseline="pooled"
    )
    step = group_step_advantages(WORKED_STEPS, ["g"] * 4, aggregate="sum", baseline="pooled")
    assert [row[0] for row in step] == pytest.approx([4.18, -3.48, -1.74, 1.04], abs=0.01)
    assert group_outcome_advantages(WORKED_OUTCOMES, ["g"] * 4) == pytest.approx([-0.2, -0.2, 1.39, -0.99], abs=0.01)
    assert old[2][0] < 0


def test_worked_example_under_the_default_rewards_the_best_description():
    # the default reward (mix = step weight 1, outcome weight 1) with the trainer's default step term
    adv = aac_advantages(WORKED_STEPS, WORKED_OUTCOMES, ["g"] * 4, step_weight=1.0, outcome_weight=1.0)
    best = adv[2]  # outcome 5
    assert all(a > 0 for a in best), best  # none of its messages is pushed down
    assert best[-1] == max(best)  # its final message (the description) gets its largest advantage
    assert best[-1] == pytest.approx(max(v for row in adv for v in row))  # and the largest of the group
    assert best[-1] == pytest.approx(1.75 / math.sqrt(4.75 / 3), abs=1e-5)  # the outcome z-score of 5 in (3, 3, 5, 2)
    # every final message carries its outcome advantage
    o = group_outcome_advantages(WORKED_OUTCOMES, ["g"] * 4)
    assert [row[-1] for row in adv] == pytest.approx(o)
    # and no step term exceeds the z-scores' range: one critic point is about one sigma, not four. The largest
    # is rollout 1's (.7 x 4): its group-mates' 7 ratings average (6 x .6 + .7) / 7 = .614286, the group's 11
    # ratings have std .0522233, so 3/4 x (.7 - .614286) / .0522233 = 1.2310 (pooled: (.7 - .645455) / s = 1.0445)
    s = group_step_advantages(WORKED_STEPS, ["g"] * 4)
    assert max(abs(v) for row in s for v in row) == pytest.approx(1.2310, abs=1e-3)
    pooled = group_step_advantages(WORKED_STEPS, ["g"] * 4, baseline="pooled")
    assert max(abs(v) for row in pooled for v in row) == pytest.approx(1.0445, abs=1e-3)


# A group whose rollouts stopped when they chose: 2, 1 and 3 rated exploration steps, each then an unrated
# description (docs/training.md, "Step advantage under policy-chosen stopping").
UNEQUAL = [[4.0, 8.0, None], [6.0, None], [2.0, 2.0, 8.0, None]]


def test_step_advantages_of_unequal_lengths_worked_by_hand():
    # Without the std (norm_by_std=False) the numbers stay whole. G = 3, k = (G-1)/G = 2/3.
    # Leave-one-out baselines, the mean of the OTHER rollouts' rated steps:
    #   a: (6 + 2 + 2 + 8) / 4 = 4.5     b: (4 + 8 + 2 + 2 + 8) / 5 = 4.8     c: (4 + 8 + 6) / 3 = 6
    # A_{i,t} = k * (mean of i's rated steps to go - b_i):
    #   a: t0 2/3 (6 - 4.5) = 1, t1 2/3 (8 - 4.5) = 7/3, description 0 (no rated step left)
    #   b: t0 2/3 (6 - 4.8) = 0.8, description 0
    #   c: t0 2/3 (4 - 6) = -4/3, t1 2/3 (5 - 6) = -2/3, t2 2/3 (8 - 6) = 4/3, description 0
    loo = group_step_advantages(UNEQUAL, ["g"] * 3, norm_by_std=False)
    assert loo[0] == pytest.approx([1.0, 7 / 3, 0.0], abs=1e-12)
    assert loo[1] == pytest.approx([0.8, 0.0], abs=1e-12)
    assert loo[2] == pytest.approx([-4 / 3, -2 / 3, 4 / 3, 0.0], abs=1e-12)
    # The pooled form: one baseline for all, (4 + 8 + 6 + 2 + 2 + 8) / 6 = 5, k = 1:
    #   a: 6 - 5 = 1, 8 - 5 = 3, 0     b: 6 - 5 = 1, 0     c: 4 - 5 = -1, 5 - 5 = 0, 8 - 5 = 3, 0
    # At the first step that is (1 - n_i / N) / k times the leave-one-out value, n_i of the N = 6 rated steps
    # being the rollout's own: a (4/6)/(2/3) x 1 = 1, b (5/6)/(2/3) x 0.8 = 1, c (3/6)/(2/3) x -4/3 = -1.
    pooled = group_step_advantages(UNEQUAL, ["g"] * 3, norm_by_std=False, baseline="pooled")
    assert pooled == [[1.0, 3.0, 0.0], [1.0, 0.0], [-1.0, 0.0, 3.0, 0.0]]
    for i, n in enumerate((2, 1, 3)):
        assert pooled[i][0] == pytest.approx((1 - n / 6) / (2 / 3) * loo[i][0], abs=1e-12)
    # The sum (DeepSeekMath) subtracts the baseline once per rated step to go, a count the rollout's stopping
    # sets: c's first step sums 2/3 ((2 - 6) + (2 - 6) + (8 - 6)) = -4 = 3 x its mean-form value.
    loo_sum = group_step_advantages(UNEQUAL, ["g"] * 3, norm_by_std=False, aggregate="sum")
    assert loo_sum[2][0] == pytest.approx(-4.0, abs=1e-12)
    # With the std (the default): the 6 ratings have mean 5, squared deviations 1+9+1+9+9+9 = 38, unbiased
    # variance 38/5 = 7.6, so every value above is divided by sqrt(7.6) + 1e-6.
    scaled = group_step_advantages(UNEQUAL, ["g"] * 3)
    s = math.sqrt(7.6) + 1e-6
    for got, want in zip(scaled, loo):
        assert got == pytest.approx([v / s for v in want], abs=1e-12)


def test_leave_one_out_credit_does_not_shrink_with_the_rollouts_own_length():
    # c explores badly (every call rated 2) and either stops after one call or makes nine. Group-mates: [4, 8]
    # and [6], mean 18/3 = 6. Leave-one-out: c's first-step credit is 2/3 (2 - 6) = -8/3 either way. Pooled:
    # one call: baseline (18 + 2) / 4 = 5, credit -3; nine calls: (18 + 18) / 12 = 3, credit -1. The pooled
    # form punishes the long bad exploration a third as much, for being long.
    def first(c: list[float | None], baseline: str) -> float:
        return group_step_advantages([[4.0, 8.0], [6.0], c], ["g"] * 3, norm_by_std=False, baseline=baseline)[2][0]

    assert first([2.0, None], "leave_one_out") == pytest.approx(-8 / 3, abs=1e-12)
    assert first([2.0] * 9 + [None], "leave_one_out") == pytest.approx(-8 / 3, abs=1e-12)
    assert first([2.0, None], "pooled") == pytest.approx(-3.0, abs=1e-12)
    assert first([2.0] * 9 + [None], "pooled") == pytest.approx(-1.0, abs=1e-12)


def test_leave_one_out_rollout_without_rated_group_mates_gets_zero():
    # only rollout 0 has rated steps: nothing to compare its steps with, so 0 (pooled: its own mean)
    assert group_step_advantages([[1.0, 0.0], [None], [None]], ["g"] * 3) == [[0.0, 0.0], [0.0], [0.0]]
    pooled = group_step_advantages([[1.0, 0.0], [None], [None]], ["g"] * 3, norm_by_std=False, baseline="pooled")
    assert pooled == [[0.0, -0.5], [0.0], [0.0]]


def test_aac_passes_the_step_baseline_through():
    on = aac_advantages(UNEQUAL, [3.0, 3.0, 3.0], ["g"] * 3, norm_by_std=False)
    assert [row[0] for row in on] == pytest.approx([1.0, 0.8, -4 / 3], abs=1e-12)
    old = aac_advantages(UNEQUAL, [3.0, 3.0, 3.0], ["g"] * 3, norm_by_std=False, step_baseline="pooled")
    assert [row[0] for row in old] == pytest.approx([1.0, 1.0, -1.0], abs=1e-12)


def test_kl_k3_values_and_sign():
    logp = torch.zeros(2)
    ref = torch.log(torch.tensor([0.5, 2.0]))
    kl = kl_k3(logp, ref)
    assert kl.tolist() == pytest.approx([0.5 + math.log(2) - 1, 2 - math.log(2) - 1], abs=1e-6)
    assert (kl > 0).all()
    assert kl_k3(ref, ref).tolist() == [0.0, 0.0]
    # minimising beta*KL pulls logp towards the reference: the gradient is 1 - exp(ref - logp)
    lp = torch.zeros(2, requires_grad=True)
    kl_k3(lp, ref).sum().backward()
    assert lp.grad.tolist() == pytest.approx([1 - 0.5, 1 - 2.0])
    assert lp.grad[1] < 0 < lp.grad[0]  # ref above logp -> descent raises logp; below -> lowers it


def _loss_case(mask=None, **kw):
    ratios = torch.tensor([[1.5, 0.5, 1.1, 0.7]])
    logp = torch.log(ratios).requires_grad_(True)
    old = torch.zeros_like(ratios)
    adv = torch.tensor([[1.0, 1.0, -1.0, -1.0]])
    mask = torch.ones_like(ratios) if mask is None else mask
    return logp, clipped_policy_loss(logp, old, adv, mask, clip_eps_low=0.2, clip_eps_high=0.2, **kw)


def test_clipped_loss_both_sides_of_the_clip():
    logp, out = _loss_case()
    # per token: max(-A r, -A clip(r)): -1.2 (clipped high), -0.5 (unclipped), 1.1, 0.8 (clipped low)
    assert out.loss.item() == pytest.approx((-1.2 - 0.5 + 1.1 + 0.8) / 4)
    assert out.pg_loss.item() == pytest.approx(0.05)
    assert out.clip_frac.item() == pytest.approx(0.5)
    assert out.clip_frac_high.item() == pytest.approx(0.25)
    assert out.clip_frac_low.item() == pytest.approx(0.25)
    out.loss.backward()
    # clipped tokens carry no gradient; the others d(-A r)/dlogp = -A r, over 4 tokens
    assert logp.grad[0].tolist() == pytest.approx([0.0, -0.5 / 4, 1.1 / 4, 0.0])


def test_clipped_loss_masks_tokens_out():
    mask = torch.tensor([[1.0, 1.0, 0.0, 1.0]])
    logp, out = _loss_case(mask=mask)
    assert out.loss.item() == pytest.approx((-1.2 - 0.5 + 0.8) / 3)
    out.loss.backward()
    assert logp.grad[0, 2].item() == 0.0


def test_clipped_loss_adds_beta_kl_and_shared_normaliser():
    ref = torch.zeros(1, 4)
    _, out = _loss_case(ref_logprobs=ref, kl_beta=0.1, normaliser=8)
    ratios = [1.5, 0.5, 1.1, 0.7]
    kl = [1 / r + math.log(r) - 1 for r in ratios]  # k3 with ref = 0: exp(-logp) + logp - 1
    assert out.kl.item() == pytest.approx(sum(kl) / 8, abs=1e-6)
    assert out.loss.item() == pytest.approx((0.2 + 0.1 * sum(kl)) / 8, abs=1e-6)


def test_masked_mean_and_empty_mask():
    x = torch.tensor([1.0, 2.0, 3.0])
    assert masked_mean(x, torch.tensor([1, 0, 1])).item() == 2.0
    assert masked_mean(x, torch.zeros(3)).item() == 0.0


def test_token_logprobs_match_log_softmax():
    torch.manual_seed(0)
    logits = torch.randn(2, 5, 7)
    ids = torch.randint(0, 7, (2, 5))
    want = torch.log_softmax(logits, -1)[:, :-1].gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    assert torch.allclose(token_logprobs(logits, ids), want, atol=1e-6)


def test_token_logprobs_at_the_sampling_temperature_are_log_softmax_of_logits_over_t():
    torch.manual_seed(0)
    logits = torch.randn(2, 5, 7) * 3
    ids = torch.randint(0, 7, (2, 5))
    at = token_logprobs(logits, ids, temperature=0.7)
    want = torch.log_softmax(logits / 0.7, -1)[:, :-1].gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    assert torch.allclose(at, want, atol=1e-6)
    # not the T = 1 values: the sampler's distribution at 0.7 is sharper
    assert not torch.allclose(at, token_logprobs(logits, ids), atol=1e-3)
    for bad in (0.0, -1.0):
        with pytest.raises(ValueError, match="temperature must be > 0"):
            token_logprobs(logits, ids, temperature=bad)


def test_a_policy_failure_at_the_minimum_reward_stays_in_its_group():
    # issue 23: a rollout that failed because of the policy (no description) gets the rubric's minimum (1)
    # and stays in its group (domain/training/rolloutOutcome.ts). Dropped, its two siblings that described
    # alike had no variance and nothing was learnt; kept, the descriptions are pushed up and the failure down.
    assert group_outcome_advantages([3.0, 3.0], ["g"] * 2) == [0.0, 0.0]
    kept = group_outcome_advantages([3.0, 3.0, 1.0], ["g"] * 3)
    assert kept[0] == kept[1] > 0 > kept[2]
    # under the default (mix) the failure's final message carries that negative outcome advantage
    adv = aac_advantages(
        [[0.5, None], [0.5, None], [0.5]], [3.0, 3.0, 1.0], ["g"] * 3, step_weight=1.0, outcome_weight=1.0
    )
    assert adv[2][-1] == pytest.approx(kept[2]) and adv[2][-1] < 0
