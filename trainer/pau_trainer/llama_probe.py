"""One-shot llama.cpp run (xllamacpp) of a base GGUF, optionally with GGUF LoRA adapters: answers a list of
chat requests greedily and prints one JSON object {"load_s", "results": [{"text", "tokens", "logprobs",
"latency_s"}]} on stdout. Used to prove that a converted adapter serves (tests, bench:train); serving
proper is the model server's job (platform/models/local on the local-models branch takes `lora` paths).

Usage: python -m pau_trainer.llama_probe CONFIG.json
CONFIG: {"model": GGUF, "lora": [GGUF, ...], "requests": [{"messages": [...], "max_tokens": N}], "threads": 1}
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import time


def main() -> None:
    cfg = json.load(open(sys.argv[1], encoding="utf-8"))
    import xllamacpp as xlc

    p = xlc.CommonParams()
    p.model.path = cfg["model"]
    p.hostnames = ["127.0.0.1"]
    p.api_keys = [secrets.token_urlsafe(32)]  # the binding also listens on HTTP; nobody else may use it
    p.n_parallel = 1
    p.n_ctx = int(cfg.get("ctx", 2048))
    threads = int(cfg.get("threads", 1))
    p.cpuparams.n_threads = threads
    p.cpuparams_batch.n_threads = threads
    p.ui = False
    if cfg.get("lora"):
        p.lora_adapters = [xlc.CommonAdapterLoraInfo(path, 1.0) for path in cfg["lora"]]
    t = time.monotonic()
    server = xlc.Server(p)
    load_s = time.monotonic() - t
    results = []
    for req in cfg["requests"]:
        body = {
            "messages": req["messages"],
            "max_tokens": int(req.get("max_tokens", 16)),
            "temperature": 0,
            "logprobs": True,
            "top_logprobs": 1,
            "seed": 0,
        }
        t = time.monotonic()
        r = server.handle_chat_completions(body)
        latency = time.monotonic() - t
        choice = r["choices"][0]
        content = (choice.get("logprobs") or {}).get("content") or []
        results.append(
            {
                "text": choice["message"].get("content") or "",
                "tokens": [c["id"] for c in content],
                "logprobs": [c["logprob"] for c in content],
                "latency_s": round(latency, 4),
                "completion_tokens": r.get("usage", {}).get("completion_tokens"),
            }
        )
    sys.stdout.write(json.dumps({"load_s": round(load_s, 3), "results": results}) + "\n")
    sys.stdout.flush()
    # the server's destructor can block on its threads; the OS frees everything
    os._exit(0)


if __name__ == "__main__":
    main()
