"""How many conversations of a trainer JSONL (SFT data, GRPO rollouts) fit a max_length, rendered exactly as
the trainer renders them (ChatEncoder with the base's chat template and tokenizer, tools included).

python -m pau_trainer.length_check DATA.jsonl BASE.gguf 1024 4096 8192
Prints one JSON object: the number of conversations, the longest, the token lengths, and per limit how many
would be dropped (the trainer drops, never cuts, a longer one; more than 1 % refuses the job)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .chat import ChatEncoder


def main(argv: list[str]) -> int:
    data, base, *limits = argv
    from transformers import AutoTokenizer

    path = Path(base).expanduser().resolve()
    # The tokenizer alone, from the GGUF (no model conversion): its vocabulary and its chat template.
    tok = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    enc = ChatEncoder(tok)
    lengths: list[int] = []
    for line in open(data, encoding="utf-8"):
        if not line.strip():
            continue
        row = json.loads(line)
        lengths.append(enc.encode(row["messages"], tools=row.get("tools")).full_length)
    out = {
        "conversations": len(lengths),
        "longest": max(lengths, default=0),
        "lengths": sorted(lengths),
        "over": {str(n): sum(1 for x in lengths if x > int(n)) for n in limits},
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
