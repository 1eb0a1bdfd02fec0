"""Base models: a GGUF from the models directory, or a Hugging Face model directory as its user has it.

A GGUF (what llama.cpp serves): transformers reads it (dequantising to float) but its Trainer/peft path
refuses a model that still carries the GGUF quantization config, and dequantising takes seconds to minutes.
So the first use of a GGUF saves it as plain safetensors + tokenizer under
$PAU_CACHE_DIR/trainer/bases/<sha256 of the GGUF, 16 hex>/ (complete when its DONE file exists, built under an
flock); every later job loads that directory.

A Hugging Face directory (config.json, *.safetensors, the tokenizer; what vLLM serves): trained as it is, in
bf16 on a GPU and fp32 on the CPU (load_model), never copied or converted, so the adapter is trained against
the very weights the server loads. Its identity is the sha256 of its manifest (each weight, config and
tokenizer file's name and sha256), checked before any work like a GGUF's.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .protocol import TrainerError


def pau_cache_dir() -> Path:
    """PAU_CACHE_DIR, default ${XDG_CACHE_HOME:-$HOME/.cache}/pau (shared by the checkouts of a machine)."""
    base = os.environ.get("PAU_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "pau"
    )
    return Path(base)


def models_dir() -> Path:
    """PAU_MODELS_DIR, default $PAU_CACHE_DIR/models."""
    return Path(os.environ["PAU_MODELS_DIR"]) if os.environ.get("PAU_MODELS_DIR") else pau_cache_dir() / "models"


def cache_root() -> Path:
    """$PAU_CACHE_DIR/trainer: converted base models (and tokenizers built from a GGUF alone)."""
    return pau_cache_dir() / "trainer"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@contextmanager
def flocked(lock_path: Path) -> Iterator[None]:
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def check_gguf(path: Path, expected_sha256: str | None = None) -> str:
    """The GGUF's sha256, after checking it exists, is a GGUF and (when given) has the expected hash."""
    if not path.exists():
        raise TrainerError(
            "base_model_missing",
            f"base model {path} does not exist (install it with `npm run pau -- models install`, or check PAU_MODELS_DIR)",
        )
    if not path.is_file():
        raise TrainerError("base_model_missing", f"base model {path} is not a file")
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic != b"GGUF":
        raise TrainerError("base_model_corrupt", f"base model {path} is not a GGUF file (magic {magic!r})")
    digest = sha256_file(path)
    if expected_sha256 and digest != expected_sha256:
        raise TrainerError(
            "base_model_corrupt", f"base model {path} has sha256 {digest}, expected {expected_sha256} (reinstall it)"
        )
    return digest


def gguf_metadata(path: Path) -> dict[str, Any]:
    """The few GGUF header fields the trainer needs (architecture and attention head counts)."""
    import gguf  # local import: heavy

    try:
        reader = gguf.GGUFReader(str(path))
    except Exception as e:  # a truncated or damaged file fails here
        raise TrainerError("base_model_corrupt", f"base model {path} cannot be read as GGUF: {e}") from e

    def field(name: str) -> Any:
        f = reader.fields.get(name)
        if f is None:
            return None
        return f.contents()

    arch = field("general.architecture")
    return {
        "architecture": arch,
        "n_head": field(f"{arch}.attention.head_count"),
        "n_head_kv": field(f"{arch}.attention.head_count_kv"),
        "n_layer": field(f"{arch}.block_count"),
        "name": field("general.name"),
    }


# What a Hugging Face directory must hold to be trained and served (the tokenizer: either file will do).
_HF_TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json")
_HF_HASHED = (
    "config.json",
    "generation_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "tokenizer.model",
    "vocab.json",
    "merges.txt",
    "special_tokens_map.json",
    "chat_template.jinja",
)


def validate_hf_dir(path: Path) -> list[str]:
    """Checks that a Hugging Face model directory has a config whose architecture transformers loads as a
    causal LM, safetensors weights and a tokenizer; returns its weight files. Reads no weights."""
    if not (path / "config.json").is_file():
        raise TrainerError(
            "base_model_corrupt",
            f"base model {path} is a directory without config.json: not a Hugging Face model directory",
        )
    weights = sorted(p.name for p in path.glob("*.safetensors"))
    if not weights:
        raise TrainerError("base_model_corrupt", f"base model {path} has no *.safetensors weights")
    if not any((path / f).is_file() for f in _HF_TOKENIZER_FILES):
        raise TrainerError(
            "base_model_corrupt",
            f"base model {path} has no tokenizer ({', '.join(_HF_TOKENIZER_FILES)}): save it beside the weights "
            "(tokenizer.save_pretrained)",
        )
    try:
        cfg = json.loads((path / "config.json").read_text())
    except ValueError as e:
        raise TrainerError("base_model_corrupt", f"base model {path}: config.json is not JSON: {e}") from e
    from transformers import AutoConfig
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    model_type = cfg.get("model_type") if isinstance(cfg, dict) else None
    if model_type not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        raise TrainerError(
            "base_model_corrupt",
            f"base model {path}: architecture {model_type!r} (config.json model_type) is not one transformers loads "
            "as a causal language model",
        )
    try:
        AutoConfig.from_pretrained(str(path))
    except Exception as e:
        raise TrainerError("base_model_corrupt", f"base model {path}: transformers cannot read config.json: {e}") from e
    return weights


def check_hf_dir(path: Path, expected_sha256: str | None = None) -> str:
    """A Hugging Face model directory's identity (sha256 of its manifest: each weight, config and tokenizer
    file's name and sha256), after validate_hf_dir."""
    weights = validate_hf_dir(path)
    h = hashlib.sha256()
    for name in sorted({*weights, *(f for f in _HF_HASHED if (path / f).is_file())}):
        h.update(f"{name}\0{sha256_file(path / name)}\n".encode())
    digest = h.hexdigest()
    if expected_sha256 and digest != expected_sha256:
        raise TrainerError(
            "base_model_corrupt", f"base model {path} has manifest sha256 {digest}, expected {expected_sha256}"
        )
    return digest


def hf_metadata(path: Path) -> dict[str, Any]:
    """gguf_metadata's fields from a Hugging Face directory's config.json (its model_type is llama.cpp's
    architecture name for the families the adapter converter supports)."""
    cfg = json.loads((path / "config.json").read_text())
    n_head = cfg.get("num_attention_heads")
    return {
        "architecture": cfg.get("model_type"),
        "n_head": n_head,
        "n_head_kv": cfg.get("num_key_value_heads") or n_head,
        "n_layer": cfg.get("num_hidden_layers"),
        "name": cfg.get("_name_or_path") or path.name,
    }


def base_metadata(path: Path) -> dict[str, Any]:
    """Architecture and head counts of a base, GGUF or Hugging Face directory (checked first)."""
    if path.is_dir():
        validate_hf_dir(path)
        return hf_metadata(path)
    check_gguf(path)
    return gguf_metadata(path)


def prepare_base(gguf_path: str | Path, expected_sha256: str | None = None, log: Any = None) -> tuple[Path, str]:
    """(directory of the plain safetensors model + tokenizer, the base's sha256): a Hugging Face directory as
    it is; a GGUF converted on first use."""
    path = Path(gguf_path).expanduser().resolve()
    if path.is_dir():
        return path, check_hf_dir(path, expected_sha256)
    digest = check_gguf(path, expected_sha256)
    root = cache_root() / "bases"
    out = root / digest[:16]
    if (out / "DONE").exists():
        return out, digest
    with flocked(root / f"{digest[:16]}.lock"):
        if (out / "DONE").exists():
            return out, digest
        if log:
            log(f"converting {path.name} to safetensors once (cached in {out})")
        tmp = root / f"{digest[:16]}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        try:
            tok = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
            model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name, dtype=torch.float32)
        except TrainerError:
            raise
        except Exception as e:
            raise TrainerError("base_model_corrupt", f"transformers cannot load {path}: {type(e).__name__}: {e}") from e
        # The dequantised weights are plain floats now; the config must stop saying "GGUF-quantized" or the
        # Trainer/peft refuse the model and from_pretrained tries to re-quantise.
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.hf_quantizer = None
        model.save_pretrained(str(tmp), safe_serialization=True)
        tok.save_pretrained(str(tmp))
        cfg_path = tmp / "config.json"
        cfg = json.loads(cfg_path.read_text())
        cfg.pop("quantization_config", None)
        cfg_path.write_text(json.dumps(cfg, indent=2))
        (tmp / "pau_source.json").write_text(json.dumps({"gguf": str(path), "sha256": digest}, indent=2))
        shutil.rmtree(out, ignore_errors=True)
        os.replace(tmp, out)
        (out / "DONE").write_text(digest + "\n")
    return out, digest


def pick_device(choice: str) -> str:
    import torch

    if choice == "cuda" or (choice == "auto" and torch.cuda.is_available()):
        return "cuda"
    return "cpu"


def is_cuda(device: str) -> bool:
    """A CUDA device string: "cuda" or "cuda:<index>" (each rank of a multi-GPU job gets its own index)."""
    return device == "cuda" or (device.startswith("cuda:") and device[5:].isdigit())


def train_dtype(device: str, bf16_supported: bool) -> str:
    """The dtype a job trains in on `device`: bfloat16 on every CUDA device that supports it, else float32
    (CPU: bf16 matmuls are slower there than fp32, and fp32 is what the equivalence tests compare)."""
    return "bfloat16" if is_cuda(device) and bf16_supported else "float32"


def load_model(base_dir: Path, device: str) -> Any:
    import torch
    from transformers import AutoModelForCausalLM

    bf16 = is_cuda(device) and torch.cuda.is_bf16_supported()
    dtype = getattr(torch, train_dtype(device, bf16))
    model = AutoModelForCausalLM.from_pretrained(str(base_dir), dtype=dtype)
    model.to(device)
    model.config.use_cache = False
    return model


def load_tokenizer(base_dir: Path) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(base_dir))


def load_gguf_tokenizer(gguf_path: str | Path) -> Any:
    """The tokenizer (and chat template) a job on this GGUF trains with, without converting the weights: the
    prepared base's when it exists, else built from the GGUF as prepare_base builds it (the same object it
    saves). For checks that need only the renderer (template_check)."""
    path = Path(gguf_path).expanduser().resolve()
    if path.is_dir():
        validate_hf_dir(path)
        return load_tokenizer(path)
    digest = check_gguf(path)
    prepared = cache_root() / "bases" / digest[:16]
    if (prepared / "DONE").exists():
        return load_tokenizer(prepared)
    # Building it from the GGUF costs ~20 s for a 150k vocabulary (gguf-py reads every token and merge through
    # numpy memmap views); the tokenizer alone is saved once, as prepare_base saves it, and loads in a second.
    root = cache_root() / "tokenizers"
    out = root / digest[:16]
    if (out / "DONE").exists():
        return load_tokenizer(out)
    from transformers import AutoTokenizer

    with flocked(root / f"{digest[:16]}.lock"):
        if (out / "DONE").exists():
            return load_tokenizer(out)
        tok = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
        tmp = root / f"{digest[:16]}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tok.save_pretrained(str(tmp))
        shutil.rmtree(out, ignore_errors=True)
        os.replace(tmp, out)
        (out / "DONE").write_text(digest + "\n")
    return load_tokenizer(out)  # the saved one, as every later check loads it


def main(argv: list[str]) -> int:
    """`python -m pau_trainer.models DIR`: can DIR be a base? One JSON line: {"ok": true, "architecture"} or
    {"ok": false, "code", "message"} (exit 3, the base-model exit code). The CLI asks it before a run starts;
    the weights are not hashed here (the job hashes them, once, as its base's identity)."""
    if len(argv) != 1:
        print("usage: python -m pau_trainer.models BASE_DIR", file=sys.stderr)
        return 2
    path = Path(argv[0]).expanduser().resolve()
    try:
        if not path.is_dir():
            raise TrainerError("base_model_missing", f"base model {path} is not a directory")
        validate_hf_dir(path)
    except TrainerError as e:
        print(json.dumps({"ok": False, "code": e.code, "message": e.message}))
        return 3
    print(json.dumps({"ok": True, "architecture": hf_metadata(path)["architecture"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
