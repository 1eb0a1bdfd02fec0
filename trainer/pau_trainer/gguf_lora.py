"""export-gguf-lora: a peft LoRA checkpoint -> a llama.cpp GGUF LoRA adapter (served with the base GGUF).

What llama.cpp's loader (src/llama-adapter.cpp) requires, and how it is met here:
  * general.type = "adapter", adapter.type = "lora", general.architecture = the base's, adapter.lora.alpha;
    llama.cpp scales by alpha / rank (rank read from the tensors), like peft; an rsLoRA adapter (peft
    scaling alpha / sqrt(rank)) is written with alpha * sqrt(rank) so the product is the same.
  * tensors "<base tensor name>.lora_a" and ".lora_b" with base tensor names in llama.cpp's scheme
    (blk.N.attn_q.weight, ...). peft's lora_A.weight is (rank, in) and lora_B.weight (out, rank); written
    as is, their GGUF shapes are (in, rank) and (rank, out), which is what the loader checks against the base
    tensor (in, out).
  * llama.cpp's HF->GGUF converter permutes the rows of q_proj and k_proj for the llama architecture (to
    llama.cpp's rotary layout: per head, the two halves interleaved), and not for qwen2 or qwen3 (its Qwen3
    model class derives from Qwen2's, which writes q/k as they are). A base GGUF of a
    llama model therefore holds W_q and W_k with permuted rows, and the adapter's delta B @ A must be
    permuted the same way: the permutation acts on output rows, i.e. on the rows of lora_B only.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from . import checkpoint as ckpt
from .models import base_metadata, sha256_file
from .protocol import ExportSpec, TrainerError, emit

# HF module name -> llama.cpp tensor name, per decoder block
MODULE_TO_GGUF = {
    "self_attn.q_proj": "attn_q",
    "self_attn.k_proj": "attn_k",
    "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output",
    "mlp.gate_proj": "ffn_gate",
    "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down",
}
# architectures whose q/k rows llama.cpp's converter permutes
PERMUTED_ARCHS = {"llama"}
# qwen3 = qwen2's blocks plus q/k RMS norms (attn_q_norm, attn_k_norm), which are not LoRA targets; its
# projections have the same llama.cpp names (tested against gguf's own name map in test_qwen3.py)
SUPPORTED_ARCHS = {"llama", "qwen2", "qwen3"}

_KEY = re.compile(r"^(?:base_model\.model\.)?model\.layers\.(\d+)\.(\w+\.\w+)\.lora_([AB])\.weight$")


def rope_row_permutation(n_rows: int, n_head: int) -> np.ndarray:
    """Row order llama.cpp's converter gives q/k weights: rows (head, half, i) -> (head, i, half).

    new[h*d + 2*i + j] = old[h*d + j*(d/2) + i] for head h, head dim d, i < d/2, j in {0, 1}.
    """
    if n_rows % n_head or (n_rows // n_head) % 2:
        raise TrainerError("invalid_data", f"cannot permute {n_rows} rows over {n_head} heads")
    idx = np.arange(n_rows).reshape(n_head, 2, n_rows // n_head // 2)
    return idx.transpose(0, 2, 1).reshape(-1)


def convert(adapter_dir: Path, base_gguf: Path, out: Path) -> dict[str, Any]:
    from gguf import GGUFType, GGUFWriter, Keys
    from safetensors.numpy import load_file

    if not ckpt.is_complete(adapter_dir):
        raise TrainerError("invalid_data", f"{adapter_dir} is not a complete checkpoint (no DONE file)")
    cfg_path = adapter_dir / "adapter_config.json"
    weights_path = adapter_dir / ckpt.ADAPTER_FILE
    if not cfg_path.is_file() or not weights_path.is_file():
        raise TrainerError("invalid_data", f"{adapter_dir} lacks adapter_config.json or {ckpt.ADAPTER_FILE}")
    cfg = json.loads(cfg_path.read_text())
    if cfg.get("peft_type", "LORA") != "LORA" or cfg.get("use_dora"):
        raise TrainerError("invalid_data", "only plain LoRA adapters convert (no DoRA or other peft types)")
    rank = int(cfg["r"])
    alpha = float(cfg["lora_alpha"])
    if cfg.get("use_rslora"):
        alpha *= math.sqrt(rank)
    if cfg.get("rank_pattern") or cfg.get("alpha_pattern"):
        raise TrainerError("invalid_data", "per-module rank/alpha patterns are not supported by llama.cpp adapters")

    # the GGUF, or the Hugging Face directory, the adapter was trained on: its architecture and head counts
    meta = base_metadata(base_gguf)
    arch = meta["architecture"]
    if arch not in SUPPORTED_ARCHS:
        raise TrainerError(
            "invalid_data", f"base architecture {arch!r} is not supported (supported: {sorted(SUPPORTED_ARCHS)})"
        )
    n_head, n_head_kv = int(meta["n_head"]), int(meta["n_head_kv"] or meta["n_head"])

    tensors = load_file(str(weights_path))
    pairs: dict[str, dict[str, np.ndarray]] = {}
    for key, value in tensors.items():
        m = _KEY.match(key)
        if not m:
            raise TrainerError(
                "invalid_data", f"unexpected adapter tensor {key!r} (only decoder-block LoRA weights convert)"
            )
        layer, module, ab = m.groups()
        if module not in MODULE_TO_GGUF:
            raise TrainerError("invalid_data", f"no llama.cpp tensor for module {module!r}")
        name = f"blk.{layer}.{MODULE_TO_GGUF[module]}.weight"
        pairs.setdefault(name, {})[ab] = value.astype(np.float32)

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + f".tmp-{os.getpid()}")
    writer = GGUFWriter(str(tmp), arch)
    writer.add_type(GGUFType.ADAPTER)
    writer.add_string(Keys.Adapter.TYPE, "lora")
    writer.add_float32(Keys.Adapter.LORA_ALPHA, alpha)
    writer.add_name(f"{meta.get('name') or arch} LoRA ({adapter_dir.name})")
    permuted = 0
    for name in sorted(pairs, key=_natural):
        p = pairs[name]
        if "A" not in p or "B" not in p:
            raise TrainerError("invalid_data", f"{name}: lora_A or lora_B missing")
        a, b = p["A"], p["B"]
        if arch in PERMUTED_ARCHS and (".attn_q." in name or ".attn_k." in name):
            heads = n_head if ".attn_q." in name else n_head_kv
            b = b[rope_row_permutation(b.shape[0], heads)]
            permuted += 1
        writer.add_tensor(name + ".lora_a", np.ascontiguousarray(a))
        writer.add_tensor(name + ".lora_b", np.ascontiguousarray(b))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    os.replace(tmp, out)
    return {"architecture": arch, "rank": rank, "alpha": alpha, "tensors": len(pairs), "permuted": permuted}


def _natural(name: str) -> tuple[int, str]:
    m = re.match(r"blk\.(\d+)\.(.*)", name)
    return (int(m.group(1)), m.group(2)) if m else (-1, name)


def run_export(spec: ExportSpec) -> dict[str, Any]:
    out = Path(spec.output)
    info = convert(Path(spec.adapter_dir), Path(spec.base_model), out)
    event = {
        "checkpoint": spec.adapter_dir,
        "adapter": str(out),
        "sha256": sha256_file(out),
        "steps": 0,
        "metrics": info,
    }
    emit("done", **event)
    return event
