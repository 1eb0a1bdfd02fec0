"""One llama.cpp HTTP server (OpenAI-compatible /v1/chat/completions, /health) for one GGUF model.

Usage: python llama_server.py CONFIG_JSON
CONFIG_JSON: {"model": PATH, "port": N, "threads": N, "ctx_per_slot": N, "parallel": N, "alias": NAME,
              "lora": [PATH, ...], "cache_ram_mib": N}
The API key is read from the environment variable PAU_MODEL_SERVER_KEY (never from argv, which other
users can read); the server refuses requests without it (401). It listens on 127.0.0.1 only, keeps
prompt caching on, prints one line `listening <url>` once the model is loaded, and runs until SIGTERM
or SIGINT. Exit 2: bad configuration; exit 3: the model could not be loaded.
"""

import json
import os
import signal
import sys
import threading


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    cfg = json.loads(sys.argv[1])
    key = os.environ.get("PAU_MODEL_SERVER_KEY", "").strip()
    if not key:
        print("PAU_MODEL_SERVER_KEY is not set: refusing to serve without an API key", file=sys.stderr)
        return 2
    import xllamacpp as xlc

    p = xlc.CommonParams()
    p.model.path = cfg["model"]
    p.hostnames = ["127.0.0.1"]
    p.port = int(cfg["port"])
    p.api_keys = [key]
    p.n_parallel = int(cfg.get("parallel", 1))
    # llama.cpp splits n_ctx evenly over the slots: each conversation gets ctx_per_slot tokens.
    p.n_ctx = int(cfg.get("ctx_per_slot", 4096)) * p.n_parallel
    threads = int(cfg.get("threads", 1))
    p.cpuparams.n_threads = threads
    p.cpuparams_batch.n_threads = threads
    p.cache_prompt = True
    p.cache_ram_mib = int(cfg.get("cache_ram_mib", 512))
    p.ui = False
    p.endpoint_metrics = True
    if cfg.get("alias"):
        p.model_alias = {cfg["alias"]}
    lora = cfg.get("lora") or []
    if lora:
        p.lora_adapters = [xlc.CommonAdapterLoraInfo(path, 1.0) for path in lora]
    try:
        server = xlc.Server(p)
    except Exception as err:  # the binding raises on a model it cannot load
        print(f"could not load the model {cfg['model']}: {type(err).__name__}: {err}", file=sys.stderr, flush=True)
        return 3
    print(f"listening {server.listening_address}", flush=True)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
    # Leave without running the server's destructor on a busy slot (it can block); the OS frees it all.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
