"""Does a converted GGUF LoRA serve in llama.cpp like the peft adapter does in transformers?

`compare` runs the same greedy chat requests through llama.cpp (base GGUF, with and without the GGUF
adapter) and scores each llama.cpp token sequence under transformers+peft (teacher forcing): the mean
absolute log-prob difference per token says how closely the two runtimes agree. With a correct conversion,
llama.cpp+adapter agrees with transformers+adapter far better than llama.cpp's base does; a wrong q/k
permutation or scaling shows up as a large difference. Also times both serving paths.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch


def llama_run(model: Path, lora: Path | None, requests: list[dict[str, Any]], threads: int = 1) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(
            {"model": str(model), "lora": [str(lora)] if lora else [], "requests": requests, "threads": threads}, f
        )
    try:
        p = subprocess.run(
            [sys.executable, "-m", "pau_trainer.llama_probe", f.name],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=str(Path(__file__).resolve().parent.parent),
        )
    finally:
        Path(f.name).unlink(missing_ok=True)
    if p.returncode != 0 or not p.stdout.strip():
        raise RuntimeError(f"llama_probe failed ({p.returncode}): {p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def prompt_ids(tok: Any, messages: list[dict[str, Any]]) -> list[int]:
    from .chat import ChatEncoder

    # the trainer's rendering (tool calls written as the template, or the trainer, writes them)
    text = tok.apply_chat_template(ChatEncoder(tok).normalise(messages), tokenize=False, add_generation_prompt=True)
    return list(tok(text, add_special_tokens=False)["input_ids"])


@torch.no_grad()
def score(model: Any, prompt: list[int], completion: list[int]) -> list[float]:
    ids = torch.tensor([prompt + completion])
    logp = torch.log_softmax(model(input_ids=ids).logits[0, :-1].float(), -1)
    targets = ids[0, 1:]
    lp = logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    return lp[len(prompt) - 1 :].tolist()


@torch.no_grad()
def hf_generate(model: Any, tok: Any, messages: list[dict[str, Any]], max_tokens: int) -> tuple[str, float, int]:
    ids = torch.tensor([prompt_ids(tok, messages)])
    t = time.monotonic()
    out = model.generate(
        input_ids=ids,
        attention_mask=torch.ones_like(ids),
        max_new_tokens=max_tokens,
        do_sample=False,
        pad_token_id=tok.pad_token_id or tok.eos_token_id,
    )
    dt = time.monotonic() - t
    new = out[0, ids.shape[1] :].tolist()
    return tok.decode(new, skip_special_tokens=True), dt, len(new)


def mean_abs(a: list[float], b: list[float]) -> float:
    n = min(len(a), len(b))
    return sum(abs(x - y) for x, y in zip(a[:n], b[:n])) / max(n, 1)


def compare(
    base_gguf: Path,
    base_dir: Path,
    adapter_dir: Path,
    lora_gguf: Path,
    requests: list[dict[str, Any]],
    threads: int = 1,
) -> dict[str, Any]:
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with_lora = llama_run(base_gguf, lora_gguf, requests, threads)
    without = llama_run(base_gguf, None, requests, threads)
    tok = AutoTokenizer.from_pretrained(str(base_dir))
    base = AutoModelForCausalLM.from_pretrained(str(base_dir), dtype=torch.float32)
    t = time.monotonic()
    peft_model = PeftModel.from_pretrained(base, str(adapter_dir))
    peft_model.eval()
    hf_load_s = time.monotonic() - t
    rows = []
    for req, lw, lo in zip(requests, with_lora["results"], without["results"]):
        prompt = prompt_ids(tok, req["messages"])
        hf_lw = score(peft_model, prompt, lw["tokens"])
        hf_lo = score(peft_model, prompt, lo["tokens"])
        with peft_model.disable_adapter():
            base_lo = score(peft_model, prompt, lo["tokens"])
        text, hf_s, hf_n = hf_generate(peft_model, tok, req["messages"], int(req.get("max_tokens", 16)))
        rows.append(
            {
                "llama_lora_text": lw["text"],
                "llama_base_text": lo["text"],
                "hf_peft_text": text,
                # how far llama.cpp's log-probs are from transformers+peft on llama.cpp's own tokens
                "diff_llama_lora_vs_hf_peft": mean_abs(lw["logprobs"], hf_lw),
                "diff_llama_base_vs_hf_peft": mean_abs(lo["logprobs"], hf_lo),
                "diff_llama_base_vs_hf_base": mean_abs(lo["logprobs"], base_lo),
                "latency_llama_lora_s": lw["latency_s"],
                "latency_llama_base_s": lo["latency_s"],
                "latency_hf_peft_s": round(hf_s, 4),
                "tokens_llama_lora": len(lw["tokens"]),
                "tokens_llama_base": len(lo["tokens"]),
                "tokens_hf_peft": hf_n,
            }
        )
    return {
        "load_llama_lora_s": with_lora["load_s"],
        "load_llama_base_s": without["load_s"],
        "load_hf_adapter_s": round(hf_load_s, 3),
        "rows": rows,
    }


def main() -> None:
    """python -m pau_trainer.serving_check CONFIG.json -> one JSON line (compare's result).
    CONFIG: {"base_model": GGUF, "adapter_dir": CHECKPOINT, "lora_gguf": GGUF, "requests": [...], "threads": 1}"""
    from .models import prepare_base

    cfg = json.load(open(sys.argv[1], encoding="utf-8"))
    torch.set_num_threads(int(cfg.get("threads", 1)))
    base_dir, _ = prepare_base(cfg["base_model"])
    res = compare(
        Path(cfg["base_model"]),
        base_dir,
        Path(cfg["adapter_dir"]),
        Path(cfg["lora_gguf"]),
        cfg["requests"],
        int(cfg.get("threads", 1)),
    )
    sys.stdout.write(json.dumps(res) + "\n")


if __name__ == "__main__":
    main()
