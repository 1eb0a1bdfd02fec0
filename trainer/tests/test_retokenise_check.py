"""The sampler/trainer log-prob gap statistics of retokenise_check (pure arithmetic)."""

import math

import pytest

from pau_trainer.retokenise_check import logprob_gap


def test_gap_statistics_by_hand() -> None:
    # Trainer vs sampler on 4 tokens: |Δ| = 0.1, 0.0, 0.3, 0.2.
    g = logprob_gap([([-1.0, -2.0], [-1.1, -2.0]), ([-0.5, -3.0], [-0.2, -3.2])])
    assert g["tokens"] == 4
    assert g["mean_abs"] == pytest.approx(0.15)
    assert g["max_abs"] == pytest.approx(0.3)
    assert g["p95_abs"] == pytest.approx(0.3)
    weights = [math.exp(0.1), 1.0, math.exp(-0.3), math.exp(0.2)]
    assert g["mean_is_weight"] == pytest.approx(sum(weights) / 4)
    # exp(-0.3) = 0.74 and exp(0.2) = 1.22 fall outside [0.8, 1.2].
    assert g["share_outside_clip_0.2"] == pytest.approx(0.5)


def test_no_tokens_and_unequal_lengths() -> None:
    assert logprob_gap([]) == {"tokens": 0}
    with pytest.raises(ValueError):
        logprob_gap([([-1.0], [-1.0, -2.0])])
