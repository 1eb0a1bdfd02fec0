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
