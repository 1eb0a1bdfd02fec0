"""The log-probs of a sequence's tokens under the policy, from one forward pass, without its whole logits.

A causal LM's forward makes (batch, T, vocab) logits: 8,192 positions of a 152k vocabulary are 2.5 GB in
bfloat16, and the float32 log-softmax over them with its gradient 10 GB more. Here the forward is asked for the
logits of its last position only (transformers' `logits_to_keep`), its decoder's last hidden state is taken as it
leaves the decoder (a forward hook: no tuple of every layer's states is kept), and the output layer is applied to
it a chunk of positions at a time (core_algos.head_logprobs, which recomputes each chunk's logits in the backward
pass instead of keeping them).

That is the model's own computation only where its logits are its output layer on its decoder's output (llama,
qwen2, qwen3: no soft-capping or scaling after the head). Each model is probed once, on a few tokens: where the
two differ (or its forward takes no `logits_to_keep`), its full logits are used, in chunks
(core_algos.token_logprobs), and an info event says which.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from typing import Any

import torch
from torch.nn.parallel import DistributedDataParallel

from .core_algos import LOGPROB_CHUNK, head_logprobs, token_logprobs
from .protocol import emit

PROBE_TOKENS = 8

# per model (the peft model, not its DDP wrapper): whether its logits are head(decoder output)
_from_hidden: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def _transformers_model(model: Any) -> Any:
    """The transformers model under a peft model (its LoRA layers in place), or the model itself."""
    return model.get_base_model() if hasattr(model, "get_base_model") else model


@contextlib.contextmanager
def _decoder_output(model: Any) -> Iterator[list[torch.Tensor]]:
    """Collects the last hidden state the model's decoder returns during the passes inside the block."""
    seen: list[torch.Tensor] = []

    def keep(_module: Any, _args: Any, out: Any) -> None:
        seen.append(out.last_hidden_state if hasattr(out, "last_hidden_state") else out[0])

    handle = _transformers_model(model).get_decoder().register_forward_hook(keep)
    try:
        yield seen
    finally:
        handle.remove()


def _forward_to_hidden(forward: Any, model: Any, input_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(the decoder's last hidden state, the logits the forward made) of one pass that makes the last position's
    logits only; `forward` is the model or DDP around it."""
    with _decoder_output(model) as seen:
        out = forward(input_ids=input_ids, logits_to_keep=1)
    if len(seen) != 1:
        raise RuntimeError(f"the decoder ran {len(seen)} times in one forward pass")
    return seen[0], out.logits


def head_reproduces_logits(model: Any, input_ids: torch.Tensor) -> bool:
    """Whether the model's output layer on its decoder's last hidden state gives its logits, on the first few
    tokens of `input_ids` (in eval mode: LoRA dropout would make two passes differ)."""
    head = _transformers_model(model).get_output_embeddings()
    probe = input_ids[:, :PROBE_TOKENS]
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            try:
                hidden, last = _forward_to_hidden(model, model, probe)
            except (TypeError, AttributeError, RuntimeError):  # no logits_to_keep, no decoder to hook
                return False
            full = model(input_ids=probe).logits.float()
            if head is None or last.shape[1] != 1 or hidden.shape[:2] != probe.shape:
                return False
            mine = head(hidden).float()
            return mine.shape == full.shape and bool(torch.allclose(mine, full, rtol=1e-3, atol=1e-3))
    finally:
        model.train(was_training)


def sequence_logprobs(
    model: Any, input_ids: torch.Tensor, temperature: float = 1.0, chunk: int = LOGPROB_CHUNK
) -> torch.Tensor:
    """log p_T(token_t | tokens_<t) for t = 1..T-1, (batch, T-1) float32, as core_algos.token_logprobs of the
    model's logits; `model` is the peft model or DDP around it (the forward goes through DDP, so its gradient
    hooks see the pass). Differentiable when gradients are on."""
    inner = model.module if isinstance(model, DistributedDataParallel) else model
    if inner not in _from_hidden:
        _from_hidden[inner] = head_reproduces_logits(inner, input_ids)
        emit(
            "info",
            message=(
                f"log-probs from the decoder's last hidden state, the output layer applied {chunk} positions at a time"
                if _from_hidden[inner]
                else f"log-probs from the model's full logits, {chunk} positions at a time (its logits are not its "
                "output layer on its decoder's output)"
            ),
        )
    if _from_hidden[inner]:
        hidden, _ = _forward_to_hidden(model, inner, input_ids)
        head = _transformers_model(inner).get_output_embeddings()
        return head_logprobs(hidden, head, input_ids, temperature, chunk)
    return token_logprobs(model(input_ids=input_ids).logits, input_ids, temperature, chunk)
