"""pau_trainer.models: the tokenizer a check builds from a GGUF, saved once and loaded after."""

from __future__ import annotations

from pathlib import Path

import pytest

from pau_trainer.protocol import TrainerError


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


def _hf_copy(src: Path, dst: Path, drop: tuple[str, ...] = ()) -> Path:
    import shutil

    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(*drop))
    return dst


def test_a_hugging_face_directory_is_its_own_base_with_a_manifest_identity(tiny_smollm2: Path, tmp_path: Path) -> None:
    from pau_trainer.models import check_hf_dir, hf_metadata, prepare_base

    converted, _ = prepare_base(tiny_smollm2)
    d = _hf_copy(converted, tmp_path / "hf")
    base, digest = prepare_base(d)
    assert base == d.resolve() and digest == check_hf_dir(d) and len(digest) == 64
    assert hf_metadata(d)["architecture"] == "llama"
    # the identity is the files': a weight changed is another base, and an expected hash is checked
    (d / "model.safetensors").write_bytes((d / "model.safetensors").read_bytes()[:-1] + b"\x00")
    assert check_hf_dir(d) != digest
    with pytest.raises(TrainerError, match=r"manifest sha256 .* expected"):
        prepare_base(d, digest)


@pytest.mark.parametrize(
    ("drop", "edit", "says"),
    [
        (("tokenizer.json", "tokenizer.model", "vocab.json"), None, "has no tokenizer"),
        (("config.json",), None, "without config.json"),
        (("*.safetensors",), None, r"no \*\.safetensors"),
        ((), {"model_type": "no-such-arch"}, "architecture 'no-such-arch'"),
    ],
)
def test_a_directory_that_cannot_be_a_base_fails_naming_it(
    tiny_smollm2: Path, tmp_path: Path, drop, edit, says
) -> None:
    import json

    from pau_trainer.models import prepare_base

    converted, _ = prepare_base(tiny_smollm2)
    d = _hf_copy(converted, tmp_path / "bad", drop)
    if edit:
        cfg = json.loads((d / "config.json").read_text())
        (d / "config.json").write_text(json.dumps({**cfg, **edit}))
    with pytest.raises(TrainerError, match=says) as e:
        prepare_base(d)
    assert e.value.code == "base_model_corrupt" and str(d) in e.value.message
