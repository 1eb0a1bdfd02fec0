"""Harness for test_distributed.py: one SFT step's and one GRPO step's loss and LoRA gradients, computed by the
trainer's own step functions (sft.step_backward, grpo.step_backward) in this process, or in each rank when
started by torchrun. Rank 0 writes {"sft": {...}, "grpo": {...}} with the loss, metrics and gradients
(after DDP's all-reduce, before clipping) to OUT.

Usage: python tests/dist_step.py SFT_SPEC GRPO_SPEC OUT
       python -m torch.distributed.run --standalone --nproc-per-node 2 tests/dist_step.py SFT_SPEC GRPO_SPEC OUT
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pau_trainer import distributed, grpo, sft
from pau_trainer.cancel import Cancel
from pau_trainer.job import Job
from pau_trainer.protocol import parse_spec, set_event_stream


def grads(job: Job) -> dict[str, torch.Tensor]:
    return {n: p.grad.detach().cpu().clone() for n, p in job.model.named_parameters() if p.requires_grad}


def sft_step(spec_path: str) -> dict:
    spec = parse_spec("sft", json.loads(Path(spec_path).read_text()))
    job = Job("sft", spec, Cancel(), spec.data)
    tok, encoder = job.load_base()
    examples, _ = sft.load_examples(spec, encoder)
    per_epoch, total = sft.plan(len(examples), spec)
    job.build_model(total)
    _, idx = sft.batch_indices(1, len(examples), per_epoch, spec)
    loss, tokens, trained = sft.step_backward(job, [examples[i] for i in idx], tok.pad_token_id)
    return {"loss": loss, "tokens": tokens, "trained_tokens": trained, "batch": idx, "grads": grads(job)}


def grpo_step(spec_path: str) -> dict:
    spec = parse_spec("grpo-update", json.loads(Path(spec_path).read_text()))
    job = Job("grpo-update", spec, Cancel(), spec.rollouts)
    _, encoder = job.load_base()
    rollouts = grpo.load_rollouts(spec, encoder)
    job.build_model(1)
    pre = grpo.precompute(job, rollouts, spec.temperature)
    import numpy as np

    batch = [int(i) for i in np.random.default_rng([spec.seed, 0]).permutation(len(rollouts))[: spec.mini_batch_size]]
    metrics = grpo.step_backward(job, spec, rollouts, batch, pre)
    return {**metrics, "batch": batch, "grads": grads(job)}


def main() -> None:
    sft_spec, grpo_spec, out = sys.argv[1:4]
    torch.set_num_threads(int(os.environ.get("PAU_TRAINER_THREADS", "1")))
    d = distributed.setup("cpu")
    set_event_stream(sys.stderr if d.main else None)
    result = {"world": d.world, "sft": sft_step(sft_spec), "grpo": grpo_step(grpo_spec)}
    if d.main:
        torch.save(result, out)
    distributed.shutdown()


if __name__ == "__main__":
    main()
