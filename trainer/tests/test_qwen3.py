"""Qwen3 (the paper's backbone) without a download: a tiny randomly initialised Qwen3 built from a config, with
Qwen2.5's vocabulary (the same byte-level BPE Qwen3 uses; read from the cached Qwen2.5-Coder GGUF) and a chat
template in Qwen3's format (tests/data/qwen3_format.jinja), written both as a transformers checkpoint and as
a GGUF for llama.cpp (architecture qwen3, f32). On it:
- a peft LoRA on every projection exports to a GGUF adapter that llama.cpp loads and serves like
  transformers + peft (log-probs on llama.cpp's own greedy tokens);
- the trainer renders each request of a tool-calling episode with reasoning exactly as llama.cpp serves it
  (Qwen3's template drops earlier <think> blocks), and trains each message's reasoning as generated.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from standin_models import ensure_model
from tiny_models import copy_tokenizer_fields, write_gguf

pytestmark = pytest.mark.model

TEMPLATE = Path(__file__).resolve().parent / "data" / "qwen3_format.jinja"
TRAINER_DIR = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def tiny_qwen3(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """{"hf": transformers dir (model + tokenizer), "gguf": the same weights for llama.cpp}."""
    import gguf
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    from pau_trainer.models import load_gguf_tokenizer

    qwen25 = ensure_model("qwen2.5-coder-0.5b")
    d = tmp_path_factory.mktemp("qwen3")
    tok = load_gguf_tokenizer(qwen25)
    tok.chat_template = TEMPLATE.read_text()
    out = d / "model.gguf"
    w = gguf.GGUFWriter(str(out), "qwen3")
    n_vocab = copy_tokenizer_fields(qwen25, w, TEMPLATE.read_text())
    cfg = Qwen3Config(
        vocab_size=n_vocab,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        max_position_embeddings=2048,
        rope_theta=1_000_000.0,
        rms_norm_eps=1e-6,
        tie_word_embeddings=True,
        initializer_range=0.2,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    torch.manual_seed(0)
    model = Qwen3ForCausalLM(cfg).eval()
    # norms start at 1; give them some spread so a wrong q/k norm mapping would show in the log-probs
    with torch.no_grad():
        for n, p in model.named_parameters():
            if n.endswith("norm.weight"):
                p.copy_(1 + 0.3 * torch.randn_like(p))
    model.save_pretrained(str(d / "hf"))
    tok.save_pretrained(str(d / "hf"))
    write_gguf(model, "qwen3", w)
    return {"hf": d / "hf", "gguf": out, "dir": d}


def _lora_checkpoint(hf_dir: Path, out: Path) -> Path:
    """A peft LoRA on every projection with random (non-zero) B, saved as a complete trainer checkpoint."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    from pau_trainer.checkpoint import ADAPTER_FILE, DONE
    from pau_trainer.models import sha256_file

    base = AutoModelForCausalLM.from_pretrained(str(hf_dir), dtype=torch.float32)
    targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    peft_model = get_peft_model(base, LoraConfig(r=4, lora_alpha=8, target_modules=targets, lora_dropout=0.0))
    torch.manual_seed(1)
    with torch.no_grad():
        for n, p in peft_model.named_parameters():
            if "lora_B" in n:
                p.normal_(0, 0.3)
    peft_model.save_pretrained(str(out))
    (out / DONE).write_text(sha256_file(out / ADAPTER_FILE) + "\n")
    return out


def test_qwen3_lora_exports_and_llama_cpp_serves_it_like_transformers_peft(tiny_qwen3, tmp_path):
    import gguf

    from pau_trainer.gguf_lora import convert
    from pau_trainer.serving_check import compare

    ckpt = _lora_checkpoint(tiny_qwen3["hf"], tmp_path / "ckpt")
    lora = tmp_path / "adapter.gguf"
    info = convert(ckpt, tiny_qwen3["gguf"], lora)
    assert info == {"architecture": "qwen3", "rank": 4, "alpha": 8.0, "tensors": 14, "permuted": 0}
    base_names = {t.name for t in gguf.GGUFReader(str(tiny_qwen3["gguf"])).tensors}
    adapter_names = {t.name for t in gguf.GGUFReader(str(lora)).tensors}
    # every adapter tensor names a tensor of the base GGUF (llama.cpp's loader refuses the file otherwise)
    assert {n.rsplit(".", 1)[0] for n in adapter_names} <= base_names
    res = compare(
        tiny_qwen3["gguf"],
        tiny_qwen3["hf"],
        ckpt,
        lora,
        [{"messages": [{"role": "user", "content": "Describe f."}], "max_tokens": 8}],
    )
    row = res["rows"][0]
    print(json.dumps({k: v for k, v in row.items() if k.startswith("diff") or k.endswith("text")}))
    # the base GGUF is the transformers model (f32 both): llama.cpp base vs transformers base
    assert row["diff_llama_base_vs_hf_base"] < 0.01, row
    # llama.cpp + the exported adapter is transformers + peft; without the adapter it is not
    assert row["diff_llama_lora_vs_hf_peft"] < 0.01, row
    assert row["diff_llama_base_vs_hf_peft"] > 10 * max(row["diff_llama_lora_vs_hf_peft"], 1e-3), row


def _episode_with_reasoning() -> tuple[list[dict[str, Any]], list[list[dict[str, Any]] | None]]:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "call_method",
                "description": "Call f once.",
                "parameters": {
                    "type": "object",
                    "properties": {"arguments": {"type": "string"}},
                    "required": ["arguments"],
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "submit_description",
                "description": "Submit.",
                "parameters": {
                    "type": "object",
                    "properties": {"description": {"type": "string"}},
                    "required": ["description"],
                },
            },
        },
    ]
    call = lambda i, n, a: {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}  # noqa: E731
    conv = [
        {"role": "system", "content": "You investigate a black-box function f."},
        {"role": "user", "content": "Find out what f(x) does."},
        {
            "role": "assistant",
            "content": "",
            "reasoning_content": "Start with a small integer.",
            "tool_calls": [call("c1", "call_method", {"arguments": "3"})],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "9"},
        {
            "role": "assistant",
            "content": "Now a negative one.",
            "reasoning_content": "9 = 3 squared?",
            "tool_calls": [call("c2", "call_method", {"arguments": "-2"})],
        },
        {"role": "tool", "tool_call_id": "c2", "content": "4"},
        {"role": "user", "content": "No more calls will be run. Submit your description."},
        {
            "role": "assistant",
            "content": "",
            "reasoning_content": "It squares.",
            "tool_calls": [call("c3", "submit_description", {"description": "f squares x."})],
        },
        {"role": "tool", "tool_call_id": "c3", "content": "Description received."},
        {"role": "user", "content": "Say it in plain words."},
        {"role": "assistant", "content": "f returns x squared.", "reasoning_content": "Plainly."},
    ]
    return conv, [tools, tools, tools[1:], None]


def test_qwen3_template_each_request_as_served_and_reasoning_trained_as_generated(tiny_qwen3, tmp_path):
    from transformers import AutoTokenizer

    from pau_trainer.chat import ChatEncoder, line_requests, served_context

    conv, tools = _episode_with_reasoning()
    assistants = [i for i, m in enumerate(conv) if m["role"] == "assistant"]
    sets = [t for t in tools if t]
    unique = [json.loads(s) for s in dict.fromkeys(json.dumps(t) for t in sets)]
    line = {
        "messages": conv,
        "tool_sets": unique,
        "requests": [{"message": i, "tools": unique.index(t) if t else None} for i, t in zip(assistants, tools)],
    }
    # the requests as the harness sends them: the conversation before the message, reasoning never sent back
    served = [{"message": i, "messages": served_context(conv, i), "tools": t} for i, t in zip(assistants, tools)]
    cases = tmp_path / "cases.json"
    cases.write_text(
        json.dumps(
            {
                "gguf": str(tiny_qwen3["gguf"]),
                "tokenizer": str(tiny_qwen3["hf"]),
                "ctx": 2048,
                "cases": [{"name": "qwen3-reasoning", "line": line, "served": served}],
            }
        )
    )
    p = subprocess.run(
        [sys.executable, "-m", "pau_trainer.template_check", str(cases)],
        cwd=TRAINER_DIR,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    res = json.loads(p.stdout.strip().splitlines()[-1])
    case = res["cases"][0]
    print(json.dumps(case))
    for r in case["requests"]:
        assert r["completion_prompt_tokens"] == r["served_tokens"], r
        assert r["identical"], r
    # each request drops the <think> blocks its predecessors generated: no request extends another
    assert case["segments"] == len(assistants)
    # the old rendering (one sequence, every tool) could not represent it at all
    assert all("before_error" in r for r in case["requests"])

    tok = AutoTokenizer.from_pretrained(str(tiny_qwen3["hf"]))
    enc = ChatEncoder(tok)
    segments = enc.encode_served(conv, line_requests(line, "line"))
    trained = {
        i: tok.decode([t for t, o in zip(s.input_ids, s.message_index) if o == i]) for s in segments for i in s.messages
    }
    assert trained[2] == (
        "<think>\nStart with a small integer.\n</think>\n\n<tool_call>\n"
        '{"name": "call_method", "arguments": {"arguments": "3"}}\n</tool_call><|im_end|>'
    )
    assert trained[10] == "<think>\nPlainly.\n</think>\n\nf returns x squared.<|im_end|>"
