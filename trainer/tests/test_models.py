"""pau_trainer.models: the tokenizer a check builds from a GGUF, saved once and loaded after."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_gguf_tokenizer_is_built_once_and_the_saved_one_tokenises_as_the_built_one(
    tiny_smollm2: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from transformers import AutoTokenizer

    from pau_trainer.models import load_gguf_tokenizer, sha256_file

    monkeypatch.setenv("PAU_CACHE_DIR", str(tmp_path))
    built = AutoTokenizer.from_pretrained(str(tiny_smollm2.parent), gguf_file=tiny_smollm2.name)
    first = load_gguf_tokenizer(tiny_smollm2)
    digest = sha256_file(tiny_smollm2)
    saved = tmp_path / "trainer" / "tokenizers" / digest[:16]
    assert (saved / "DONE").read_text().strip() == digest

    # The second load reads the saved directory: transformers is not asked to read the GGUF again.
    real = AutoTokenizer.from_pretrained.__func__
    asked: list[dict] = []

    def spy(cls, *args, **kwargs):
        asked.append(kwargs)
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(AutoTokenizer, "from_pretrained", classmethod(spy))
    second = load_gguf_tokenizer(tiny_smollm2)
    assert asked and not any("gguf_file" in k for k in asked)

    # The saved tokenizer renders and tokenises as the one built from the GGUF (specials, template, merges).
    conv = [
        {"role": "system", "content": "You explore a Python function."},
        {"role": "user", "content": "safe_div(6, 3) -> 2.0\nsafe_div(1, 0) -> ZeroDivisionError"},
        {"role": "assistant", "content": "It divides a by b; b = 0 raises ZeroDivisionError. Ünïcödé ✓"},
    ]
    text = built.apply_chat_template(conv, tokenize=False)
    for tok in (first, second):
        assert tok.apply_chat_template(conv, tokenize=False) == text
        assert tok(text, add_special_tokens=True)["input_ids"] == built(text, add_special_tokens=True)["input_ids"]
        assert tok.get_vocab() == built.get_vocab()


@pytest.mark.parametrize(
    ("device", "bf16", "expected"),
    [
        ("cuda", True, "bfloat16"),
        # every rank of a multi-GPU job gets its own index: all of them train in bf16
        ("cuda:0", True, "bfloat16"),
        ("cuda:7", True, "bfloat16"),
        ("cuda:12", True, "bfloat16"),
        # a GPU without bf16 (before Ampere) trains in fp32
        ("cuda:1", False, "float32"),
        ("cpu", True, "float32"),
        ("cpu", False, "float32"),
        # not CUDA device strings
        ("cudax", True, "float32"),
        ("cuda:", True, "float32"),
        ("cuda:a", True, "float32"),
    ],
)
def test_the_training_dtype_per_device_string(device: str, bf16: bool, expected: str) -> None:
    from pau_trainer.models import train_dtype

    assert train_dtype(device, bf16) == expected


def test_load_model_on_cpu_is_float32(tiny_smollm2: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from pau_trainer.models import load_model, prepare_base

    monkeypatch.setenv("PAU_CACHE_DIR", str(tmp_path))
    base_dir, _ = prepare_base(tiny_smollm2)
    model = load_model(base_dir, "cpu")
    assert model.dtype == torch.float32
    assert {p.dtype for p in model.parameters()} == {torch.float32}
