"""Does the text the trainer trains on re-tokenise to the tokens llama.cpp sampled?

python -m pau_trainer.retokenise_check SAMPLES.jsonl BASE.gguf
SAMPLES.jsonl: one {"messages": [...the prompt...], "text": completion, "tokens": [sampled ids]} per line
(harness/gpu/retokenCheck.ts writes it). For each sample, two checks:
- plain: tokenizer(text) == tokens (the completion on its own);
- trained: the ids the trainer's mask selects for the assistant message `text` appended to the prompt
  (ChatEncoder.encode, i.e. the whole conversation tokenised at once, as the GRPO update does), without the
  end-of-turn token, == tokens without a trailing end-of-turn token.
Prints one JSON object with the counts and the first mismatches."""

from __future__ import annotations

import json
import sys

from .chat import ChatEncoder
from .models import load_tokenizer, prepare_base


def main(argv: list[str]) -> int:
    samples_path, base = argv
    base_dir, _ = prepare_base(base)
    tok = load_tokenizer(base_dir)
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
            {"samples": n, "plain_exact": plain_ok, "trained_exact": trained_ok, "mismatches": examples},
            ensure_ascii=False,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
