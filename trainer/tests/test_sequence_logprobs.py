"""sequence_logprobs on tiny random models built from a config: the same log-probs and LoRA gradients as the
model's full logits through token_logprobs, with gradient checkpointing on and off, and the full-logit path for a
model whose logits are not its output layer on its decoder's output (Gemma 2's soft-capping)."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from pau_trainer import sequence_logprobs as sl
from pau_trainer.core_algos import token_logprobs


def tiny(kind: str) -> Any:
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, Gemma2Config, Qwen2Config

    torch.manual_seed(0)
    shape = {
        "vocab_size": 97,
        "hidden_size": 16,
        "intermediate_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
    }
    if kind == "qwen2":
        cfg = Qwen2Config(**shape)
    else:
        cfg = Gemma2Config(**shape, head_dim=8, final_logit_softcapping=0.01)  # random logits are ~0.1: capped hard
    base = AutoModelForCausalLM.from_config(cfg, dtype=torch.float32)
    base.config.use_cache = False
    # init_lora_weights=False: B random too, so the adapter changes the logits and has gradients everywhere
    lora = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], init_lora_weights=False)
    return base, get_peft_model(base, lora)


def grads_of(model: Any, fn: Any, ids: torch.Tensor, weights: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
    model.zero_grad()
    out = fn(model, ids)
    (out * weights).sum().backward()
    return out.detach(), [p.grad.clone() for p in model.parameters() if p.requires_grad]


def full(model: Any, ids: torch.Tensor) -> torch.Tensor:
    return token_logprobs(model(input_ids=ids).logits, ids, 0.8)


@pytest.mark.parametrize("checkpointing", [False, True])
def test_log_probs_and_lora_gradients_equal_those_of_the_full_logits(checkpointing: bool):
    base, model = tiny("qwen2")
    if checkpointing:
        base.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})
    model.train()
    ids = torch.randint(0, 97, (1, 41), generator=torch.Generator().manual_seed(1))
    weights = torch.randn(1, 40, generator=torch.Generator().manual_seed(2))
    want, want_grads = grads_of(model, full, ids, weights)
    # chunk 7: 40 positions end on an odd remainder
    got, got_grads = grads_of(model, lambda m, i: sl.sequence_logprobs(m, i, 0.8, chunk=7), ids, weights)
    assert sl.head_reproduces_logits(model, ids)
    assert torch.allclose(got, want, atol=1e-5, rtol=1e-5)
    assert len(got_grads) == len(want_grads) > 0
    for g, w in zip(got_grads, want_grads):
        assert torch.allclose(g, w, atol=1e-6, rtol=1e-4)
    assert model.training  # the probe put it back in the mode it found
    with torch.no_grad():
        assert torch.allclose(sl.sequence_logprobs(model, ids, 0.8, chunk=7), want, atol=1e-5, rtol=1e-5)


def test_a_model_whose_logits_are_not_its_head_on_its_decoder_output_takes_its_full_logits():
    _base, model = tiny("gemma2")
    ids = torch.randint(0, 97, (1, 20), generator=torch.Generator().manual_seed(3))
    assert not sl.head_reproduces_logits(model, ids)  # soft-capped after the head
    weights = torch.ones(1, 19)
    want, want_grads = grads_of(model, full, ids, weights)
    got, got_grads = grads_of(model, lambda m, i: sl.sequence_logprobs(m, i, 0.8, chunk=4), ids, weights)
    assert torch.allclose(got, want, atol=1e-6)
    for g, w in zip(got_grads, want_grads):
        assert torch.allclose(g, w, atol=1e-7, rtol=1e-5)
