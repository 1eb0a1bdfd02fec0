"""Is what the trainer trains what llama.cpp served? Token for token, per request.

python -m pau_trainer.template_check CASES.json   (test/training/templateIdentity.test.ts writes it)
CASES.json: {"gguf": PATH, "tokenizer"?: DIR, "cases": [{"name": .., "line": <trainer line>,
             "served": [{"message": i, "messages": [...], "tools": [...] | null}]}]}
`served` are the requests exactly as the harness sent them (messages + tools). For each one:
- served ids: llama.cpp renders the request (its /apply-template, the same code path as /v1/chat/completions,
  with this GGUF's template and llama.cpp's own handling of tools) and tokenises the prompt as a chat
  completion does (/tokenize with add_special and parse_special); a chat completion of the same request
  confirms the prompt's token count: the count it tokenised, either usage.prompt_tokens, or, when the prompt
  is longer than the server's context ("ctx"), the n_prompt_tokens of the exceed_context_size_error it answers
  before evaluating anything (templateIdentity.test.ts sets the smallest context, 256, so the check costs no
  prompt evaluation: at 1 thread that was most of the 1.5B's time);
- trainer ids: the trainer's sequence that trains message i (ChatEncoder.encode_served on the line), up to the
  first token of message i's span: the context the trainer gives that message;
- before ids: the same from the old rendering, one sequence of the whole conversation with the union of
  every request's tools (what the trainer did before "train what was served").
Prints one JSON object: per case and request the three counts, whether trainer == served, and the number of
tokens that differ (difflib opcodes) for trainer and before.
"""

from __future__ import annotations

import difflib
import json
import os
import secrets
import sys
import urllib.error
import urllib.request
from typing import Any

from .chat import ChatEncoder, ServedRequest, line_requests
from .models import load_gguf_tokenizer


def differing(a: list[int], b: list[int]) -> int:
    ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")


def context_ids(segments: list[Any], i: int) -> list[int]:
    for seg in segments:
        if i in seg.messages:
            first = next(t for t, o in enumerate(seg.message_index) if o == i)
            return seg.input_ids[:first]
    raise KeyError(i)


def union_tools(requests: list[ServedRequest]) -> list[Any] | None:
    seen: dict[str, Any] = {}
    for r in requests:
        for t in r.tools or []:
            seen.setdefault(json.dumps(t.get("function", t).get("name")), t)
    return list(seen.values()) or None


def main(argv: list[str]) -> int:
    cfg = json.load(open(argv[0], encoding="utf-8"))
    import xllamacpp as xlc

    key = secrets.token_urlsafe(16)
    p = xlc.CommonParams()
    p.model.path = cfg["gguf"]
    p.hostnames = ["127.0.0.1"]
    p.port = 0
    p.api_keys = [key]
    p.n_parallel = 1
    p.n_ctx = int(cfg.get("ctx", 8192))
    p.cpuparams.n_threads = 1
    p.cpuparams_batch.n_threads = 1
    p.ui = False
    server = xlc.Server(p)
    base = server.listening_address.rstrip("/")

    def post(path: str, body: dict[str, Any]) -> Any:
        req = urllib.request.Request(
            base + path,
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json", "authorization": "Bearer " + key},
        )
        with urllib.request.urlopen(req, timeout=600) as r:
            return json.load(r)

    def completion_prompt_tokens(body: dict[str, Any]) -> tuple[int, bool]:
        """(the prompt's token count as the chat completion tokenised it, whether the prompt was evaluated)."""
        try:
            usage = post("/v1/chat/completions", {**body, "max_tokens": 1, "temperature": 0})["usage"]
            return usage["prompt_tokens"], True
        except urllib.error.HTTPError as e:
            err = json.loads(e.read() or b"{}").get("error") or {}
            if e.code == 400 and err.get("type") == "exceed_context_size_error":
                return int(err["n_prompt_tokens"]), False
            raise

    if cfg.get("tokenizer"):  # a transformers dir with the same vocabulary and template (tests' tiny models)
        from transformers import AutoTokenizer

        tok = AutoTokenizer.from_pretrained(cfg["tokenizer"])
    else:
        tok = load_gguf_tokenizer(cfg["gguf"])
    enc = ChatEncoder(tok)
    out: dict[str, Any] = {"gguf": cfg["gguf"], "native_tool_calls": enc.native_tool_calls, "cases": []}
    for case in cfg["cases"]:
        line = case["line"]
        requests = line_requests(line, case["name"])
        segments = enc.encode_served(line["messages"], requests)
        try:
            old = enc.encode(line["messages"], tools=union_tools(requests))
        except Exception as e:
            old = None
            old_error = str(e)
        results = []
        for s in case["served"]:
            body = {"messages": s["messages"], **({"tools": s["tools"]} if s.get("tools") else {})}
            prompt = post("/apply-template", body)["prompt"]
            served = post("/tokenize", {"content": prompt, "add_special": True, "parse_special": True})["tokens"]
            usage, evaluated = completion_prompt_tokens(body)
            trainer = context_ids(segments, s["message"])
            r: dict[str, Any] = {
                "message": s["message"],
                "tools": [t["function"]["name"] for t in s.get("tools") or []],
                "served_tokens": len(served),
                "completion_prompt_tokens": usage,
                "completion_evaluated": evaluated,
                "trainer_tokens": len(trainer),
                "identical": trainer == served,
                "trainer_differing": differing(trainer, served),
            }
            if trainer != served:
                k = next((j for j, (a, b) in enumerate(zip(trainer, served)) if a != b), min(len(trainer), len(served)))
                r["first_difference"] = {
                    "at": k,
                    "trainer": tok.decode(trainer[max(0, k - 5) : k + 20]),
                    "served": tok.decode(served[max(0, k - 5) : k + 20]),
                }
            if old is not None:
                before = old.input_ids[: next(t for t, o in enumerate(old.message_index) if o == s["message"])]
                r["before_tokens"] = len(before)
                r["before_differing"] = differing(before, served)
            else:
                r["before_error"] = old_error
            results.append(r)
        out["cases"].append(
            {
                "name": case["name"],
                "segments": len(segments),
                "segment_tokens": [len(e.input_ids) for e in segments],
                "requests": results,
            }
        )
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    os._exit(0)  # the server's destructor can block on its threads


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
