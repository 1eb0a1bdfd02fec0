"""LoRA -> llama.cpp GGUF adapter: the q/k row permutation, the file's metadata, and serving it in llama.cpp
next to transformers+peft (the marker adapter from conftest's SFT run)."""

from pathlib import Path

import numpy as np
import pytest

from conftest import marker_spec, run_trainer
from pau_trainer import gguf_lora
from pau_trainer.gguf_lora import convert, rope_row_permutation


def test_row_permutation_matches_llama_cpp_converter_layout():
    n_head, head_dim, n_in = 3, 8, 5
    w = np.arange(n_head * head_dim * n_in, dtype=np.float32).reshape(n_head * head_dim, n_in)
    # llama.cpp's converter: reshape(n_head, 2, d/2, in).swapaxes(1, 2).reshape(original shape)
    ref = w.reshape(n_head, 2, head_dim // 2, n_in).swapaxes(1, 2).reshape(w.shape)
    perm = rope_row_permutation(w.shape[0], n_head)
    assert np.array_equal(w[perm], ref)
    # permuting lora_B's rows permutes the rows of the delta B @ A the same way
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, n_in)), rng.normal(size=(n_head * head_dim, 2))
    assert np.allclose(b[perm] @ a, (b @ a)[perm])


@pytest.mark.model
def test_export_writes_a_llama_cpp_lora_adapter(marker_run, smollm2, tmp_path):
    import gguf

    run, _ = marker_run
    out = tmp_path / "a.gguf"
    info = convert(Path(run.of("done")[0]["checkpoint"]), smollm2, out)
    assert info == {"architecture": "llama", "rank": 8, "alpha": 16.0, "tensors": 120, "permuted": 60}
    r = gguf.GGUFReader(str(out))
    assert r.fields["general.type"].contents() == "adapter"
    assert r.fields["adapter.type"].contents() == "lora"
    assert r.fields["adapter.lora.alpha"].contents() == 16.0
    assert r.fields["general.architecture"].contents() == "llama"
    names = {t.name: t for t in r.tensors}
    a, b = names["blk.0.attn_q.weight.lora_a"], names["blk.0.attn_q.weight.lora_b"]
    # GGUF shapes are (in, rank) and (rank, out): what llama.cpp checks against blk.0.attn_q.weight (576, 576)
    assert list(a.shape) == [576, 8] and list(b.shape) == [8, 576]
    assert "blk.29.ffn_up.weight.lora_a" not in names  # only the targeted modules


@pytest.mark.model
def test_llama_cpp_serves_the_adapter_like_transformers_peft(marker_run, smollm2, smollm2_dir, tmp_path, monkeypatch):
    from pau_trainer.serving_check import compare

    run, _ = marker_run
    ckpt = Path(run.of("done")[0]["checkpoint"])
    lora = tmp_path / "marker.gguf"
    convert(ckpt, smollm2, lora)
    requests = [{"messages": [{"role": "user", "content": "Say the marker."}], "max_tokens": 8}]
    res = compare(smollm2, smollm2_dir, ckpt, lora, requests)
    row = res["rows"][0]
    assert "MARKER-7" in row["hf_peft_text"], row
    assert "MARKER-7" in row["llama_lora_text"], row
    assert "MARKER" not in row["llama_base_text"], row
    # on llama.cpp's own tokens, llama.cpp+adapter agrees with transformers+peft far better than the base does
    assert row["diff_llama_lora_vs_hf_peft"] < 0.25 * row["diff_llama_base_vs_hf_peft"], row
    assert row["diff_llama_lora_vs_hf_peft"] < 0.3, row

    # negative control: the same export without the q/k permutation agrees clearly worse
    monkeypatch.setattr(gguf_lora, "PERMUTED_ARCHS", set())
    wrong = tmp_path / "unpermuted.gguf"
    convert(ckpt, smollm2, wrong)
    bad = compare(smollm2, smollm2_dir, ckpt, wrong, requests)["rows"][0]
    assert bad["diff_llama_lora_vs_hf_peft"] > 2 * row["diff_llama_lora_vs_hf_peft"], (bad, row)


@pytest.mark.model
def test_a_hugging_face_directory_base_trains_exports_and_serves(smollm2, smollm2_dir, tmp_path):
    """A base given as a Hugging Face directory (here SmolLM2 converted once: safetensors, config, tokenizer) is
    trained as it is, its adapter exported against the same directory, and llama.cpp serves that export."""
    from pau_trainer.models import check_hf_dir
    from pau_trainer.serving_check import compare

    run = run_trainer("sft", marker_spec(smollm2, tmp_path / "out", base_model=str(smollm2_dir)), tmp_path / "s.json")
    assert run.rc == 0, run.stderr[-3000:]
    done = run.of("done")[0]
    assert done["base_sha256"] == check_hf_dir(smollm2_dir) and run.of("start")[0]["dtype"] == "float32"
    assert not any("converting" in e["message"] for e in run.of("info"))  # trained as it is, never converted
    ckpt = Path(done["checkpoint"])
    lora = tmp_path / "marker.gguf"
    spec = {"adapter_dir": str(ckpt), "base_model": str(smollm2_dir), "output": str(lora)}
    exported = run_trainer("export-gguf-lora", spec, tmp_path / "e.json")
    assert exported.rc == 0, exported.stderr[-3000:]
    assert exported.of("done")[0]["metrics"]["permuted"] == 60  # llama's q/k heads, read from config.json
    row = compare(
        smollm2,
        smollm2_dir,
        ckpt,
        lora,
        [{"messages": [{"role": "user", "content": "Say the marker."}], "max_tokens": 8}],
    )["rows"][0]
    assert "MARKER-7" in row["llama_lora_text"] and "MARKER" not in row["llama_base_text"], row
