"""Tiny randomly initialised models built from a config (no download), written as a GGUF the trainer takes as its
base model (and llama.cpp serves), with the vocabulary and chat template of a real cached GGUF.

For tests of mechanics, where a real model's output is not what is checked: the 2-process equivalence and
kill/resume (test_distributed.py) and Qwen3's template and LoRA export (test_qwen3.py). A step of SmolLM2-135M
costs ~0.5 s of CPU; the same step on these costs milliseconds, and converting one to safetensors is instant.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def copy_tokenizer_fields(src: Path, writer: Any, chat_template: str | None = None) -> int:
    """The tokenizer.* metadata of a GGUF into a writer (its chat template, or `chat_template` instead); returns
    the vocabulary size."""
    import gguf

    r = gguf.GGUFReader(str(src))
    n_vocab = 0
    for name, f in r.fields.items():
        if not name.startswith("tokenizer.") or (chat_template is not None and name == "tokenizer.chat_template"):
            continue
        vtype = f.types[0]
        value = f.contents()
        if vtype == gguf.GGUFValueType.ARRAY:
            writer.add_array(name, value)
            if name == "tokenizer.ggml.tokens":
                n_vocab = len(value)
        else:
            writer.add_key_value(name, value, vtype)
    if chat_template is not None:
        writer.add_chat_template(chat_template)
    return n_vocab


def _permute(w: np.ndarray, n_head: int) -> np.ndarray:
    """llama.cpp's convert_hf_to_gguf permutation of a llama q/k weight (transformers' GGUF loader undoes it)."""
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def write_gguf(model: Any, arch: str, writer: Any) -> None:
    """The model's weights and shape into a GGUF writer (f32) that already holds the tokenizer, then the file."""
    import gguf

    cfg = model.config
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    writer.add_block_count(cfg.num_hidden_layers)
    writer.add_context_length(cfg.max_position_embeddings)
    writer.add_embedding_length(cfg.hidden_size)
    writer.add_feed_forward_length(cfg.intermediate_size)
    writer.add_head_count(cfg.num_attention_heads)
    writer.add_head_count_kv(cfg.num_key_value_heads)
    writer.add_key_length(head_dim)
    writer.add_value_length(head_dim)
    writer.add_rope_dimension_count(head_dim)
    writer.add_rope_freq_base(cfg.rope_parameters["rope_theta"])
    writer.add_layer_norm_rms_eps(cfg.rms_norm_eps)
    writer.add_vocab_size(cfg.vocab_size)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    mapped = {"llama": gguf.MODEL_ARCH.LLAMA, "qwen3": gguf.MODEL_ARCH.QWEN3}[arch]
    names = gguf.get_tensor_name_map(mapped, cfg.num_hidden_layers)
    for key, t in model.state_dict().items():
        if key == "lm_head.weight" and cfg.tie_word_embeddings:
            continue  # tied to token_embd
        name = names.get_name(key, try_suffixes=(".weight", ".bias"))
        assert name, key
        a = t.float().numpy()
        if arch == "llama" and key.endswith("q_proj.weight"):
            a = _permute(a, cfg.num_attention_heads)
        elif arch == "llama" and key.endswith("k_proj.weight"):
            a = _permute(a, cfg.num_key_value_heads)
        writer.add_tensor(name, np.ascontiguousarray(a))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def tiny_llama(vocab_gguf: Path, out: Path, seed: int = 0) -> Path:
    """A 2-layer Llama (hidden 64, 4 heads, 2 KV heads) with the vocabulary and chat template of `vocab_gguf`
    (SmolLM2's: the same architecture family), written to `out` as an f32 GGUF."""
    import gguf
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    w = gguf.GGUFWriter(str(out), "llama")
    n_vocab = copy_tokenizer_fields(vocab_gguf, w)
    r = gguf.GGUFReader(str(vocab_gguf))
    ids = {k: int(r.fields[f"tokenizer.ggml.{k}_token_id"].contents()) for k in ("bos", "eos")}
    cfg = LlamaConfig(
        vocab_size=n_vocab,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        rope_theta=100_000.0,
        rms_norm_eps=1e-5,
        tie_word_embeddings=True,
        bos_token_id=ids["bos"],
        eos_token_id=ids["eos"],
    )
    torch.manual_seed(seed)
    write_gguf(LlamaForCausalLM(cfg).eval(), "llama", w)
    return out
