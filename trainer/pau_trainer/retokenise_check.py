"""Does the text the trainer trains on re-tokenise to the tokens llama.cpp sampled?

python -m pau_trainer.retokenise_check SAMPLES.jsonl BASE.gguf
SAMPLES.jsonl: one {"messages": [...the prompt...], "text": completion, "tokens": [sampled ids]} per line
(harness/gpu/retokenCheck.ts writes it). For each sample, two checks:
- plain: tokenizer(text) == tokens (the completion on its own);
- trained: the ids the trainer's mask selects for the assistant message `text` appended to the prompt
  (ChatEncoder.encode, i.e. the whole conversation tokenised at once, as the GRPO update does), without the
  end-of-turn token, == tokens without a trailing end-of-turn token.
With `--logprobs` (the samples then carry "logprobs": the sampler's log-prob of each sampled token), the
sampler/trainer gap on the same tokens: for every sample whose trained ids equal the sampled ones, the
trainer's log p(token) at the sample's temperature (core_algos.token_logprobs, float32 on the CPU, the
dequantised base as the update loads it) against the sampler's; mean and p95 of |difference| per token, and
the mean of the per-token importance weight exp(trainer - sampler) (what a truncated IS correction would use).
Prints one JSON object with the counts and the first mismatches."""

from __future__ import annotations

import json
import sys

from .chat import ChatEncoder
from .models import load_tokenizer, prepare_base


def logprob_gap(pairs: list[tuple[list[float], list[float]]]) -> dict[str, float | int]:
    """Per-token |trainer - sampler| log-prob statistics over (trainer, sampler) pairs of equal length."""
    import math

    diffs = sorted(abs(a - b) for t, s in pairs for a, b in zip(t, s, strict=True))
    weights = [math.exp(a - b) for t, s in pairs for a, b in zip(t, s, strict=True)]
    if not diffs:
        return {"tokens": 0}
    return {
        "tokens": len(diffs),
        "mean_abs": sum(diffs) / len(diffs),
        "p95_abs": diffs[min(len(diffs) - 1, int(0.95 * len(diffs)))],
        "max_abs": diffs[-1],
        "mean_is_weight": sum(weights) / len(weights),
        "share_outside_clip_0.2": sum(1 for w in weights if abs(w - 1) > 0.2) / len(weights),
    }


def trainer_logprobs(model: object, ids: list[int], mask: list[int], temperature: float) -> list[float]:
    """The trainer's log-probs of the masked tokens of one sequence (core_algos.token_logprobs)."""
    import torch

    from .core_algos import token_logprobs

    x = torch.tensor([ids])
    with torch.no_grad():
        logits = model(input_ids=x).logits  # type: ignore[operator]
    lp = token_logprobs(logits, x, temperature)[0].tolist()
    return [lp[i - 1] for i, m in enumerate(mask) if m and i > 0]


def main(argv: list[str]) -> int:
    with_logprobs = "--logprobs" in argv
    samples_path, base = [a for a in argv if a != "--logprobs"]
    base_dir, _ = prepare_base(base)
    tok = load_tokenizer(base_dir)
    model = None
    if with_logprobs:
        from .models import load_model

        model = load_model(base_dir, "cpu")
        model.eval()
    pairs: list[tuple[list[float], list[float]]] = []
    enc = ChatEncoder(tok)
    eot = set(tok.convert_tokens_to_ids([t for t in ("<|im_end|>", "<|endoftext|>") if t in tok.get_vocab()]))
    n = plain_ok = trained_ok = 0
    examples: list[dict[str, object]] = []
    for line in open(samples_path, encoding="utf-8"):
        s = json.loads(line)
        sampled = list(s["tokens"])
        while sampled and sampled[-1] in eot:
            sampled.pop()
        n += 1
        plain = tok(s["text"], add_special_tokens=False)["input_ids"]
        plain_ok += plain == sampled
        msgs = s["messages"] + [{"role": "assistant", "content": s["text"]}]
        e = enc.encode(msgs, train_messages={len(msgs) - 1})
        trained = [t for t, m in zip(e.input_ids, e.mask) if m]
        while trained and trained[-1] in eot:
            trained.pop()
        ok = trained == sampled
        trained_ok += ok
        if ok and model is not None and "logprobs" in s:
            # The mask's span is the sampled tokens (the end-of-turn token popped above is left out on both sides).
            lp = trainer_logprobs(model, e.input_ids, e.mask, float(s.get("temperature", 1.0)))[: len(sampled)]
            pairs.append((lp, [float(v) for v in s["logprobs"][: len(sampled)]]))
        if not ok and len(examples) < 5:
            i = next((k for k, (a, b) in enumerate(zip(trained, sampled)) if a != b), min(len(trained), len(sampled)))
            examples.append(
                {
                    "text": s["text"][:120],
                    "first_difference_at": i,
                    "trained": tok.convert_ids_to_tokens(trained[max(0, i - 2) : i + 3]),
                    "sampled": tok.convert_ids_to_tokens(sampled[max(0, i - 2) : i + 3]),
                }
            )
    print(
        json.dumps(
            {
                "samples": n,
                "plain_exact": plain_ok,
                "trained_exact": trained_ok,
                "mismatches": examples,
                **({"logprob_gap": logprob_gap(pairs)} if model is not None else {}),
            },
            ensure_ascii=False,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
