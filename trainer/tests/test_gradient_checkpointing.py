"""Gradient checkpointing, on by default in SFT and GRPO jobs: the start event says it is on, and a job with it
off trains the same adapter (checkpointing recomputes the activations it drops; it changes memory, not math).

On the tiny random Llama with SmolLM2's vocabulary (tests/tiny_models.py): the same architecture and the same
checkpointing path as SmolLM2-135M, so the same mechanics, at seconds a job instead of the 457 s the two tests took
on SmolLM2 in the full suite (2026-12-07). What checkpointing saves on a real model is measured by `bench:train
--long-tokens` (docs/trainer.md#memory), not here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from safetensors.torch import load_file
from test_grpo import grpo_spec

from conftest import marker_spec, run_trainer

pytestmark = pytest.mark.model


def both_ways(command: str, spec_of: Any, tmp_path: Path) -> dict[bool, Any]:
    runs = {}
    for on in (True, False):
        spec = spec_of(tmp_path / f"out-{on}")
        if not on:
            spec["gradient_checkpointing"] = False  # absent: the default, on
        run = run_trainer(command, spec, tmp_path / f"spec-{on}.json")
        assert run.rc == 0, run.stderr[-3000:]
        assert run.of("start")[0]["gradient_checkpointing"] is on
        assert all(p["peak_rss_bytes"] > 100 * 2**20 for p in run.of("progress"))  # the model alone is more
        runs[on] = run
    return runs


def assert_same_adapter(runs: dict[bool, Any]) -> None:
    on, off = (load_file(runs[k].of("done")[0]["adapter"]) for k in (True, False))
    assert on.keys() == off.keys()
    moved = [k for k in on if "lora_B" in k and on[k].abs().max() > 0]
    assert moved, "the steps did not move the adapter: nothing compared"
    for k in on:
        assert torch.allclose(on[k], off[k], atol=1e-6, rtol=1e-4), k


def test_sft_trains_the_same_adapter_with_and_without_checkpointing(tiny_smollm2, tmp_path):
    runs = both_ways("sft", lambda out: marker_spec(tiny_smollm2, out, max_steps=2, save_every=10), tmp_path)
    losses = [[p["loss"] for p in runs[k].of("progress")] for k in (True, False)]
    assert losses[0] == pytest.approx(losses[1], rel=1e-5)
    assert_same_adapter(runs)


def test_grpo_trains_the_same_adapter_with_and_without_checkpointing(tiny_smollm2, tmp_path):
    runs = both_ways("grpo-update", lambda out: grpo_spec(tiny_smollm2, out, ppo_epochs=1, max_steps=2), tmp_path)
    for k in ("loss", "kl", "grad_norm"):
        on, off = ([p[k] for p in runs[x].of("progress")] for x in (True, False))
        assert on == pytest.approx(off, rel=1e-4, abs=1e-7), k
    assert_same_adapter(runs)
