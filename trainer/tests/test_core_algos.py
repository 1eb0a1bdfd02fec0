"""GRPO math against hand-computed values on fixed tensors (no model)."""

import math

import pytest
import torch

from pau_trainer.core_algos import (
    aac_advantages,
    all_unrated,
    clipped_policy_loss,
    group_outcome_advantages,
    group_step_advantages,
    head_logprobs,
    kl_k3,
    masked_mean,
    returns_to_go,
    sampler_gap,
    tis_weights,
    token_logprobs,
)

S3 = math.sqrt(1 / 3)  # unbiased std of [1, 0, 0, 1]


def test_outcome_advantages_default_is_mean_centred_in_the_rewards_unit():
    # Dr. GRPO (scale "none", the default): no division by the group's std
    adv = group_outcome_advantages([1, 0, 0, 1, 2, 2, 7], ["a", "a", "a", "a", "b", "b", "c"])
    assert adv == pytest.approx([0.5, -0.5, -0.5, 0.5, 0.0, 0.0, 0.0], abs=1e-12)
    # a zero-variance group gets exactly 0, and a group of one rollout has no relative signal
    assert adv[4:7] == [0.0, 0.0, 0.0]


def test_outcome_advantages_with_the_std_and_its_floor():
    # scale "std" divides by the unbiased std (verl, TRL): [1, 0, 0, 1] has std sqrt(1/3)
    adv = group_outcome_advantages([1, 0, 0, 1], ["a"] * 4, scale="std")
    want = 0.5 / (S3 + 1e-6)
    assert adv == pytest.approx([want, -want, -want, want], abs=1e-9)
    # judge noise: two rollouts 0.01 apart. The plain std makes that +-0.71 (the review's finding); a floor at
    # the judge's resolution (0.5) keeps it +-0.01; a real gap of 3 is left as the std makes it.
    noise = group_outcome_advantages([3.00, 3.01], ["g"] * 2, scale="std")
    assert noise == pytest.approx([-0.7071, 0.7071], abs=1e-3)
    floored = group_outcome_advantages([3.00, 3.01], ["g"] * 2, scale="std", std_floor=0.5)
    assert floored == pytest.approx([-0.01, 0.01], abs=1e-4)
    real = group_outcome_advantages([1.0, 4.0], ["g"] * 2, scale="std", std_floor=0.5)
    assert real == pytest.approx([-0.7071, 0.7071], abs=1e-3)
    with pytest.raises(ValueError, match="scale must be one of"):
        group_outcome_advantages([1.0, 2.0], ["g", "g"], scale="max")


def test_outcome_advantages_rejects_misaligned_inputs():
    with pytest.raises(ValueError):
        group_outcome_advantages([1.0, 2.0], ["g"])


def test_returns_to_go_sum_the_uncentred_rewards_still_to_come():
    assert returns_to_go([0.9, 0.0, None, 0.2, None]) == pytest.approx([1.1, 0.2, 0.2, 0.2, 0.0])
    assert returns_to_go([]) == []


# A group whose rollouts stopped when they chose (docs/training.md, "The step return"): step rewards from a
# critic that pays 0 for a call that reveals nothing, each rollout ending in its unrated description.
#   a: 0.9, 0.0, description        b: 0.9, 0.6, 0.3, description        c: 0.9, description
UNEQUAL = [[0.9, 0.0, None], [0.9, 0.6, 0.3, None], [0.9, None]]


def test_step_return_of_unequal_lengths_worked_by_hand():
    # Returns to go:            a: 0.9, 0.0, 0.0          b: 1.8, 0.9, 0.3, 0.0          c: 0.9, 0.0
    # A stopped rollout's return from a later index is 0:  a at t=2 (its description) 0, at t=3 -; c at t>=1 0.
    # Per-index leave-one-out baselines, k = (3 - 1) / 3 = 2/3:
    #   a: t0 (1.8 + 0.9)/2 = 1.35 -> 2/3 (0.9 - 1.35) = -0.3;  t1 (0.9 + 0)/2 = 0.45 -> 2/3 (0 - 0.45) = -0.3;
    #      t2 (0.3 + 0)/2 = 0.15 -> 2/3 (0 - 0.15) = -0.1
    #   b: t0 (0.9 + 0.9)/2 = 0.9 -> 2/3 (1.8 - 0.9) = 0.6;  t1 (0 + 0)/2 = 0 -> 2/3 0.9 = 0.6;
    #      t2 0 -> 2/3 0.3 = 0.2;  t3 (its description) 0 -> 0
    #   c: t0 (0.9 + 1.8)/2 = 1.35 -> -0.3;  t1 (0 + 0.9)/2 = 0.45 -> 2/3 (0 - 0.45) = -0.3
    adv = group_step_advantages(UNEQUAL, ["g"] * 3)
    assert adv[0] == pytest.approx([-0.3, -0.3, -0.1], abs=1e-12)
    assert adv[1] == pytest.approx([0.6, 0.6, 0.2, 0.0], abs=1e-12)
    assert adv[2] == pytest.approx([-0.3, -0.3], abs=1e-12)
    # each index's advantages over the rollouts present there sum to 0 when all are present (t0: -0.3+0.6-0.3)
    assert sum(row[0] for row in adv) == pytest.approx(0.0, abs=1e-12)


def test_step_return_never_pays_for_stopping():
    # The same first call (0.9), then either stop or make a call that reveals something (0.5) or nothing (0).
    # Group-mates fixed. The rollout's first-step advantage is highest when it explored usefully, and a call
    # that revealed nothing costs nothing compared with stopping (the mean-to-go form paid for stopping:
    # a useful 0.5 below the 0.9 lowered the first step's mean).
    mates = [[0.9, 0.9, None], [0.0, None]]

    def first(c: list[float | None]) -> float:
        return group_step_advantages([*mates, c], ["g"] * 3)[2][0]

    stop, useful, useless = first([0.9, None]), first([0.9, 0.5, None]), first([0.9, 0.0, None])
    assert useful > stop
    assert useless == pytest.approx(stop, abs=1e-12)


def test_step_return_unrated_rollouts_and_zero_exploration():
    # the critic rated none of b's steps: b gets 0 and is not in a's and c's baselines
    adv = group_step_advantages([[0.9, None], [None, None, None], [0.3, None]], ["g"] * 3)
    assert adv[1] == [0.0, 0.0, 0.0]
    assert adv[0] == pytest.approx([0.5 * (0.9 - 0.3), 0.0], abs=1e-12)
    assert all_unrated([None, None]) and not all_unrated([None]) and not all_unrated([0.0, None])
    # a rollout that made no call (its description only) is rated: its return is 0 and it lowers no one
    adv = group_step_advantages([[0.9, None], [None]], ["g"] * 2)
    assert adv == [pytest.approx([0.45, 0.0]), pytest.approx([-0.45])]
    # fewer than 2 rated rollouts, or one rollout: nothing to compare with
    assert group_step_advantages([[1.0, None], [None, None]], ["g"] * 2) == [[0.0, 0.0], [0.0, 0.0]]
    assert group_step_advantages([[1.0]], ["g"]) == [[0.0]]


def test_step_return_with_the_std_divides_by_the_groups_returns_std():
    adv = group_step_advantages(UNEQUAL, ["g"] * 3, scale="std")
    plain = group_step_advantages(UNEQUAL, ["g"] * 3)
    rets = [0.9, 0.0, 0.0, 1.8, 0.9, 0.3, 0.0, 0.9, 0.0]
    m = sum(rets) / len(rets)
    s = math.sqrt(sum((r - m) ** 2 for r in rets) / (len(rets) - 1)) + 1e-6
    for got, want in zip(adv, plain):
        assert got == pytest.approx([v / s for v in want], abs=1e-12)
    # equal returns everywhere: 0, not 0/0
    assert group_step_advantages([[0.5, None], [0.5, None]], ["g"] * 2, scale="std") == [[0.0, 0.0], [0.0, 0.0]]


def test_aac_adds_weighted_outcome_to_every_step_and_the_outcome_to_the_final_message():
    steps = [[1.0, 0.0, None], [0.0, 1.0, None]]
    out, s, o = aac_advantages(steps, [1.0, 0.0], ["g", "g"], step_weight=0.5, outcome_weight=2.0)
    assert s == group_step_advantages(steps, ["g", "g"])
    assert o == group_outcome_advantages([1.0, 0.0], ["g", "g"])
    for k in range(2):
        assert out[k][:2] == pytest.approx([0.5 * s[k][0] + 2 * o[k], 0.5 * s[k][1] + 2 * o[k]])
        # the final message: its own outcome advantage, weight 1
        assert out[k][2] == pytest.approx(0.5 * s[k][2] + o[k])
    # step_weight 0, outcome_weight 1 = plain outcome GRPO
    plain, _, _ = aac_advantages(steps, [1.0, 0.0], ["g", "g"], step_weight=0.0)
    assert plain == [[o[0]] * 3, [o[1]] * 3]
    # aac (outcome weight 0): the steps get no outcome, the final message still does
    critic_only, _, _ = aac_advantages(steps, [1.0, 0.0], ["g", "g"], outcome_weight=0.0)
    assert critic_only[0] == pytest.approx([s[0][0], s[0][1], o[0]])


def test_the_best_described_rollout_is_not_pushed_down():
    # G = 4: exploration rewards and judged outcomes; the best description (5) came from a short exploration
    steps = [[0.7] * 4 + [None], [0.6] * 4 + [None], [0.6] * 2 + [None], [0.7] + [None]]
    outcomes = [3.0, 3.0, 5.0, 2.0]
    adv, s, o = aac_advantages(steps, outcomes, ["g"] * 4, step_weight=1.0, outcome_weight=1.0)
    assert o == pytest.approx([-0.25, -0.25, 1.75, -1.25])
    assert all(a > 0 for a in adv[2]), adv[2]
    # its description (index 2) forfeits the returns its group-mates still collected from index 2
    # (1.4, 1.2, 0): 3/4 (0 - 0.8667) = -0.65, and carries its outcome advantage 1.75 beside it
    assert s[2][2] == pytest.approx(-0.65, abs=1e-12)
    assert adv[2][2] == pytest.approx(1.1, abs=1e-12)


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


def _plain_logprobs(logits: torch.Tensor, ids: torch.Tensor, temperature: float) -> torch.Tensor:
    """The whole-vocabulary, whole-sequence computation the chunked ones must reproduce (token_logprobs before
    it took chunks: one fp32 copy of every position's logits)."""
    x = logits[:, :-1, :].float() / temperature
    return x.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1) - torch.logsumexp(x, dim=-1)


@pytest.mark.parametrize("temperature", [1.0, 0.7, 1.3])
@pytest.mark.parametrize("chunk", [1, 5, 7, 36, 37, 1024])
def test_token_logprobs_in_chunks_equal_the_whole_computation(chunk: int, temperature: float):
    # 37 positions: chunks of 5 and 7 end on an odd remainder, 36 leaves one position, 37 and 1024 one chunk
    torch.manual_seed(1)
    logits = torch.randn(2, 38, 50) * 4
    ids = torch.randint(0, 50, (2, 38))
    got = token_logprobs(logits, ids, temperature, chunk=chunk)
    assert got.shape == (2, 37) and got.dtype == torch.float32
    assert torch.allclose(got, _plain_logprobs(logits, ids, temperature), atol=1e-6, rtol=0)
    # bfloat16 logits are upcast per chunk, as the whole computation upcasts them
    half = logits.bfloat16()
    assert torch.allclose(
        token_logprobs(half, ids, temperature, chunk=chunk), _plain_logprobs(half, ids, temperature), atol=1e-6, rtol=0
    )


def test_token_logprobs_of_a_one_token_sequence_is_empty_and_a_bad_chunk_is_refused():
    assert token_logprobs(torch.randn(1, 1, 5), torch.tensor([[3]])).shape == (1, 0)
    with pytest.raises(ValueError, match="chunk must be >= 1"):
        token_logprobs(torch.randn(1, 3, 5), torch.tensor([[1, 2, 3]]), chunk=0)


@pytest.mark.parametrize("temperature", [1.0, 0.7])
@pytest.mark.parametrize("chunk", [1, 6, 23, 1024])
def test_head_logprobs_equal_the_whole_computation_in_value_and_gradient(chunk: int, temperature: float):
    torch.manual_seed(2)
    head = torch.nn.Linear(16, 50, bias=True)
    ids = torch.randint(0, 50, (2, 24))
    weights = torch.randn(2, 23)

    def run(fn):
        hidden = torch.randn(2, 24, 16, generator=torch.Generator().manual_seed(3)).requires_grad_(True)
        head.zero_grad()
        out = fn(hidden)
        (out * weights).sum().backward()
        return out.detach(), hidden.grad.clone(), head.weight.grad.clone()

    want = run(lambda h: _plain_logprobs(head(h), ids, temperature))
    got = run(lambda h: head_logprobs(h, head, ids, temperature, chunk=chunk))
    for g, w in zip(got, want):
        assert torch.allclose(g, w, atol=1e-6, rtol=1e-5)
    with torch.no_grad():
        h = torch.randn(2, 24, 16)
        assert torch.allclose(
            head_logprobs(h, head, ids, temperature, chunk), _plain_logprobs(head(h), ids, temperature), atol=1e-6
        )


def _largest_saved(fn) -> int:
    """The largest tensor (elements) autograd keeps for the backward pass of fn()."""
    sizes: list[int] = []

    def pack(t: torch.Tensor) -> torch.Tensor:
        sizes.append(t.numel())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn().sum().backward()
    return max(sizes)


def test_head_logprobs_keeps_no_logits_for_the_backward_pass():
    torch.manual_seed(4)
    vocab, width, T = 400, 8, 65
    head = torch.nn.Linear(width, vocab, bias=False)
    ids = torch.randint(0, vocab, (1, T))
    hidden = torch.randn(1, T, width, requires_grad=True)
    # the whole computation keeps a (T-1) x vocab float32 tensor; token_logprobs keeps one chunk's per chunk
    assert _largest_saved(lambda: _plain_logprobs(head(hidden), ids, 1.0)) >= (T - 1) * vocab
    assert _largest_saved(lambda: token_logprobs(head(hidden), ids, 1.0, chunk=16)) >= 16 * vocab
    # head_logprobs recomputes each chunk's logits: what it keeps is hidden-state sized
    assert _largest_saved(lambda: head_logprobs(hidden, head, ids, 1.0, chunk=16)) <= max(T * width, vocab * width)


def test_a_policy_failure_at_the_minimum_reward_stays_in_its_group():
    # issue 23: a rollout that failed because of the policy (no description) gets the rubric's minimum (1)
    # and stays in its group (domain/training/rolloutOutcome.ts). Dropped, its two siblings that described
    # alike had no variance and nothing was learnt; kept, the descriptions are pushed up and the failure down.
    assert group_outcome_advantages([3.0, 3.0], ["g"] * 2) == [0.0, 0.0]
    kept = group_outcome_advantages([3.0, 3.0, 1.0], ["g"] * 3)
    assert kept[0] == kept[1] > 0 > kept[2]
    # under the default (mix) the failure's final message carries that negative outcome advantage
    adv, _, _ = aac_advantages(
        [[0.5, None], [0.5, None], [0.5]], [3.0, 3.0, 1.0], ["g"] * 3, step_weight=1.0, outcome_weight=1.0
    )
    assert adv[2][-1] == pytest.approx(kept[2]) and adv[2][-1] < 0


def test_token_kl_is_exact_over_the_vocabulary():
    from pau_trainer.shift import token_kl

    p = torch.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    q = torch.tensor([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    pp = torch.softmax(p[0], -1)
    want = float((pp * (pp.log() - torch.log(torch.tensor(1 / 3)))).sum())
    got = token_kl(p, q)
    assert got.tolist() == pytest.approx([want, 0.0], abs=1e-6)
    # the temperature flattens both distributions before comparing
    assert float(token_kl(p, q, temperature=2.0)[0]) < want


def test_tis_weights_cap_the_ratio_and_leave_unsampled_tokens_at_one():
    old = torch.tensor([[-1.0, -1.0, -1.0, -2.0]])
    sampler = torch.tensor([[-1.0, -2.0, -0.5, 0.0]])
    sampled = torch.tensor([[1.0, 1.0, 1.0, 0.0]])
    w = tis_weights(old, sampler, sampled, cap=2.0)
    # ratios 1, e^1 = 2.72 (capped at 2), e^-0.5 = 0.61 (truncation caps from above only), unsampled 1
    assert torch.allclose(w, torch.tensor([[1.0, 2.0, math.exp(-0.5), 1.0]]))
    for bad in (1.0, 0.5, float("nan")):
        with pytest.raises(ValueError, match="must be > 1"):
            tis_weights(old, sampler, sampled, cap=bad)


def test_is_weights_scale_the_policy_term_and_not_the_kl():
    logp = torch.tensor([[-1.0, -1.0]])
    adv = torch.tensor([[1.0, -1.0]])
    mask = torch.ones(1, 2)
    ref = torch.tensor([[-1.5, -0.5]])
    plain = clipped_policy_loss(logp, logp, adv, mask, ref_logprobs=ref, kl_beta=0.1)
    w = torch.tensor([[2.0, 0.5]])
    weighed = clipped_policy_loss(logp, logp, adv, mask, ref_logprobs=ref, kl_beta=0.1, is_weights=w)
    # ratio 1: pg = -A per token; weighed (-1 * 2 + 1 * 0.5) / 2 = -0.75 against (-1 + 1) / 2 = 0
    assert float(plain.pg_loss) == pytest.approx(0.0) and float(weighed.pg_loss) == pytest.approx(-0.75)
    assert float(weighed.kl) == pytest.approx(float(plain.kl))
    assert float(weighed.loss - plain.loss) == pytest.approx(-0.75)


def test_sampler_gap_over_the_tokens_with_a_recorded_logprob():
    old = torch.tensor([[-1.0, -1.0, -1.0, -9.0]])
    sampler = torch.tensor([[-1.1, -0.5, -1.0, 0.0]])
    sampled = torch.tensor([[1.0, 1.0, 1.0, 0.0]])
    g = sampler_gap(old, sampler, sampled, 0.2, 0.28)
    assert g["sampler_tokens"] == 3
    assert g["sampler_abs_logprob_gap"] == pytest.approx((0.1 + 0.5 + 0.0) / 3)
    # ratios e^0.1 = 1.105 (inside [0.8, 1.28]), e^-0.5 = 0.61 (outside), 1 (inside)
    assert g["sampler_outside_clip"] == pytest.approx(1 / 3)
    none = sampler_gap(old, sampler, torch.zeros(1, 4), 0.2, 0.2)
    assert none["sampler_tokens"] == 0 and math.isnan(none["sampler_abs_logprob_gap"])
