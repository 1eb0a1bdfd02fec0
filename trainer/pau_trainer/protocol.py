"""The trainer's wire contract, Python side (TypeScript side: domain/training/trainerProtocol.ts).

Both sides are tested against the same golden cases in trainer/contract/ (valid and invalid specs and events,
exit and error codes): tests/test_contract.py here, test/training/trainerContract.pure.test.ts there.

A job is one process:  python -m pau_trainer <command> --spec SPEC.json
  command: "sft" | "grpo-update" | "export-gguf-lora"
  (with PAU_TRAINER_PROCESSES > 1 that process runs the job's ranks under torchrun and keeps this contract
  for them: rank 0's events, the job's exit code; launch.py)

In:  SPEC.json, a JSON object validated by `parse_spec` (plain dataclasses + explicit checks).
Out: stdout carries JSON lines only, one object per line, each with a "type" field (see Event below);
     everything else (library warnings, tracebacks) goes to stderr.
Exit code: see ExitCode.

Durability contract: `output_dir` belongs to one job. Saves go to output_dir/checkpoints/step-NNNNNN/ and
are complete only when that directory's DONE file exists (written last). Rerunning the same command with the
same spec resumes from the last complete save (incomplete ones are ignored); a job that already finished
re-emits its "done" event and exits 0 without training again. SIGTERM (or SIGINT) = cancel: the trainer
finishes the step in progress, saves, prints a "cancelled" event and exits with ExitCode.CANCELLED.
"""

from __future__ import annotations

import json
import math
import sys
import threading
from dataclasses import asdict, dataclass, field
from enum import IntEnum
from typing import Any, Literal, NoReturn, TextIO

PROTOCOL_VERSION = 1
COMMANDS = ("sft", "grpo-update", "export-gguf-lora", "policy-shift")
Command = Literal["sft", "grpo-update", "export-gguf-lora", "policy-shift"]


class ExitCode(IntEnum):
    OK = 0
    INTERNAL = 1  # a bug or an unexpected failure (traceback on stderr); a retry may help
    INVALID_SPEC = 2  # the spec is malformed, or does not match the job already in output_dir
    BASE_MODEL = 3  # base model missing, unreadable or corrupt (sha256 mismatch, not a GGUF)
    INVALID_DATA = 4  # the training data / rollouts / adapter input is missing or malformed
    CANCELLED = 5  # SIGTERM/SIGINT: saved (when there was anything to save) and stopped; rerun to resume


# Error codes carried by {"type":"error","code":...}; each maps to one exit code. Codes that retrying
# cannot fix are every one except "internal".
ERROR_EXIT: dict[str, ExitCode] = {
    "invalid_spec": ExitCode.INVALID_SPEC,
    "spec_mismatch": ExitCode.INVALID_SPEC,
    "base_model_missing": ExitCode.BASE_MODEL,
    "base_model_corrupt": ExitCode.BASE_MODEL,
    "invalid_data": ExitCode.INVALID_DATA,
    "internal": ExitCode.INTERNAL,
}


class TrainerError(Exception):
    """A failure with a wire error code; the CLI turns it into an error event and the code's exit code."""

    def __init__(self, code: str, message: str) -> None:
        assert code in ERROR_EXIT, code
        super().__init__(message)
        self.code = code
        self.message = message


def spec_error(message: str) -> NoReturn:
    raise TrainerError("invalid_spec", message)


# ---- Events (stdout, one JSON object per line) ------------------------------------------------------
# {"type":"start","command":..,"protocol":1,"output_dir":..,"total_steps":..,"resumed_from_step":0|N}
# {"type":"info","message":..}                                    (free text for people/logs)
# {"type":"info","message":..,"lock_holder_pid":N|null}           (waiting for output_dir's lock, every 10 s)
# {"type":"progress","step":..,"total":..,"loss":..,"tokens_per_s":..,"elapsed_s":..,"epoch":..,
#   "lr":.., "tokens":.., ...command-specific metrics (grpo: pg_loss, kl, clip_frac, clip_frac_low,
#   clip_frac_high, adv_mean, grad_norm)}
# {"type":"saved","step":..,"checkpoint":DIR,"elapsed_s":..}
# {"type":"cancelled","step":..,"checkpoint":DIR|null}
# {"type":"done","checkpoint":DIR,"adapter":FILE,"sha256":HEX,"steps":..,"metrics":{..}}
#   (export-gguf-lora: checkpoint = the input adapter dir, adapter = the written .gguf, sha256 of it)
# {"type":"error","code":ERROR_CODE,"message":..}
EventType = Literal["start", "info", "progress", "saved", "cancelled", "done", "error"]

# The fields each event must carry, and their JSON kinds (None: null allowed). Extra fields are allowed.
# Golden cases both this and the TypeScript reader (trainerEventSchema) are tested against: trainer/contract/.
_NUM = (int, float)
EVENT_FIELDS: dict[str, dict[str, Any]] = {
    "start": {
        "command": str,
        "protocol": int,
        "pid": int,
        "output_dir": str,
        "total_steps": int,
        "resumed_from_step": int,
    },
    "info": {"message": str},
    "progress": {"step": int, "total": int, "loss": (*_NUM, None), "tokens_per_s": (*_NUM, None), "elapsed_s": _NUM},
    "saved": {"step": int, "checkpoint": str},
    "cancelled": {"step": int, "checkpoint": (str, None)},
    "done": {"checkpoint": str, "adapter": str, "sha256": str, "steps": int, "metrics": dict},
    "error": {"code": str, "message": str},
}


def _is_hex64(v: str) -> bool:
    return len(v) == 64 and all(c in "0123456789abcdef" for c in v)


def validate_event(event: Any) -> None:
    """Raise ValueError naming the field when `event` is not an event of this protocol (what readers accept)."""
    if not isinstance(event, dict) or event.get("type") not in EVENT_FIELDS:
        raise ValueError(f"type must be one of {', '.join(EVENT_FIELDS)}")
    for name, kind in EVENT_FIELDS[event["type"]].items():
        kinds = kind if isinstance(kind, tuple) else (kind,)
        v = event.get(name)
        if v is None and name in event and None in kinds:
            continue
        ok = any(k is not None and isinstance(v, k) for k in kinds) and not (isinstance(v, bool) and bool not in kinds)
        if not ok:
            raise ValueError(
                f"{name} must be {_kind_name(tuple(k for k in kinds if k is not None))}, got {json.dumps(v)[:80]}"
            )
    t = event["type"]
    if t == "start" and event["protocol"] != PROTOCOL_VERSION:
        raise ValueError(f"protocol must be {PROTOCOL_VERSION}, got {event['protocol']}")
    if t == "start" and event["command"] not in COMMANDS:
        raise ValueError(f"command must be one of {', '.join(COMMANDS)}, got {event['command']!r}")
    if t == "done" and not _is_hex64(event["sha256"]):
        raise ValueError("sha256 must be 64 lowercase hex characters")
    if t == "error" and event["code"] not in ERROR_EXIT:
        raise ValueError(f"code must be one of {', '.join(ERROR_EXIT)}, got {event['code']!r}")


_out_lock = threading.Lock()
_out: TextIO | None = sys.stdout


def set_event_stream(stream: TextIO | None) -> None:
    """Tests capture events by pointing this elsewhere; None drops them (ranks other than 0 of a job)."""
    global _out
    _out = stream


def _clean(v: Any) -> Any:
    # JSON has no NaN/inf: a diverged loss is reported as null rather than breaking the reader.
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    return v


def emit(type_: EventType, **fields: Any) -> dict[str, Any]:
    event = {"type": type_, **_clean(fields)}
    line = json.dumps(event, separators=(",", ":"))
    with _out_lock:
        if _out is not None:
            _out.write(line + "\n")
            _out.flush()
    return event


# ---- Job specs --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoraSpec:
    rank: int = 8
    alpha: float = 16.0
    dropout: float = 0.0
    # Module names as in the HF model (llama/qwen2 use the same ones).
    targets: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj")


@dataclass(frozen=True)
class CommonSpec:
    base_model: str  # path to a .gguf (from the models directory)
    output_dir: str  # owned by this job: checkpoints, result.json
    base_model_sha256: str | None = None  # when given, checked before anything else
    init_adapter: str | None = None  # a complete checkpoint dir to start from (continue training)
    # carry init_adapter's optimiser state (Adam's moments and step count) into this job: a GRPO epoch goes on
    # where the previous one stopped instead of taking a fresh Adam's sign step
    init_optimizer: bool = False
    lora: LoraSpec = field(default_factory=LoraSpec)
    lr: float = 2e-4
    max_length: int = 8192  # tokens per example (llama.cpp serves the Qwen2.5-Coder models 8192 per slot; the CLI passes the base's own); longer ones are dropped and counted, > 1 % refuses the job
    seed: int = 0
    save_every: int = 50  # optimizer steps between saves; a save is always made at the end
    keep_saves: int = 2  # complete saves kept (older ones are deleted after a new one is DONE)
    max_steps: int | None = None  # cap on optimizer steps (benchmarks, smoke runs)
    threads: int | None = (
        None  # torch CPU threads; default $PAU_TRAINER_THREADS or 1 (see docs: 2 threads on a loaded 2-core box ran 10x slower)
    )
    device: Literal["auto", "cpu", "cuda"] = "auto"
    max_grad_norm: float = 1.0
    weight_decay: float = 0.0
    warmup_steps: int = 0
    # recompute each decoder layer's activations in the backward pass instead of keeping them (docs/trainer.md,
    # "Memory"); the same gradients, so it is not part of the job's fingerprint
    gradient_checkpointing: bool = True


@dataclass(frozen=True)
class SftSpec(CommonSpec):
    # JSONL: {"messages": [...OpenAI chat, assistant "reasoning_content" allowed...], "requests"?: [{"message": i,
    # "tools": k|null}], "tool_sets"?: [[...], ...], "tools"?: [...], "length_cut"?: [...]}: each trained message
    # rendered in the request it was generated from (chat.py line_requests; TS twin trainerLineSchema)
    data: str = ""
    epochs: float = 1.0
    batch_size: int = 1


@dataclass(frozen=True)
class AdvantageSpec:
    # How the advantages come about from the rollouts' rewards (core_algos.py). The modes are the reward names
    # of `pau grpo train` (domain/training/grpo.ts GRPO_REWARDS), one meaning each side, and the default is its:
    #   outcome: plain GRPO on the judged outcome;
    #   aac:     the critic's step return on the exploration steps, the outcome on the description only;
    #   mix:     both: the step return plus outcome_weight x the outcome on every message.
    mode: Literal["outcome", "aac", "mix"] = "mix"
    step_weight: float = 1.0
    outcome_weight: float = 1.0  # mix only (aac's is 0 by definition)
    # the group's divisor: none (Dr. GRPO, the default) or the std floored at std_floor (docs/training.md)
    scale: Literal["none", "std"] = "none"
    std_floor: float = 0.0
    epsilon: float = 1e-6


ADVANTAGE_MODES = ("outcome", "aac", "mix")


@dataclass(frozen=True)
class GrpoSpec(CommonSpec):
    rollouts: str = ""  # JSONL, one rollout per line (see docs/training.md, "grpo-update")
    ppo_epochs: int = 1
    mini_batch_size: int = 4  # rollouts (lines, with all their segments) per optimizer step
    clip_eps_low: float = 0.2
    clip_eps_high: float = 0.2
    kl_beta: float = 0.04
    # the rollouts' sampling temperature: every log-prob (old, new, reference) is log_softmax(logits / T)
    temperature: float = 1.0
    advantage: AdvantageSpec = field(default_factory=AdvantageSpec)
    # truncated importance sampling (core_algos.tis_weights): weigh each sampled token's term by
    # min(pi_old / pi_sampler, tis_cap) from the server's recorded log-probs; None: no correction
    tis_cap: float | None = None
    # LoRA's good learning rate is about 10x full fine-tuning's; with Adam one step moves every entry by about
    # lr, so 1e-5 was a sign step that moved nothing measurable (docs/training.md, "The update's step size")
    lr: float = 5e-4


@dataclass(frozen=True)
class ExportSpec:
    adapter_dir: str  # a checkpoint dir (adapter_model.safetensors + adapter_config.json + DONE)
    base_model: str  # the GGUF the adapter was trained on (architecture + head counts for the permutation)
    output: str  # the .gguf LoRA file to write
    output_dir: str = ""  # unused; present so every command's spec has the same shape


@dataclass(frozen=True)
class ShiftSpec:
    # policy-shift (shift.py): KL(adapter's policy || base) on the policy's tokens of given conversations
    base_model: str
    adapter_dir: str  # a complete checkpoint dir
    episodes: str  # JSONL: the GRPO rollout line's conversation fields
    output_dir: str = ""  # unused; every command's spec has the same shape
    base_model_sha256: str | None = None
    temperature: float = 1.0
    max_length: int = 8192
    threads: int | None = None
    device: Literal["auto", "cpu", "cuda"] = "auto"


def _expect_obj(v: Any, where: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        spec_error(f"{where} must be a JSON object")
    return v


def _take(obj: dict[str, Any], name: str, kind: type | tuple[type, ...], where: str, required: bool = False) -> Any:
    if name not in obj or obj[name] is None:
        if required:
            spec_error(f"{where}.{name} is required")
        return None
    v = obj[name]
    # bool is an int in Python; a spec saying "lr": true is a mistake, not 1.
    if isinstance(v, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        spec_error(f"{where}.{name} must be {_kind_name(kind)}, got {json.dumps(v)}")
    if not isinstance(v, kind):
        spec_error(f"{where}.{name} must be {_kind_name(kind)}, got {json.dumps(v)[:80]}")
    return v


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if set(kinds) == {int, float}:
        return "a number"
    names = {
        int: "an integer",
        float: "a number",
        str: "a string",
        bool: "true or false",
        list: "a list",
        dict: "an object",
    }
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _positive(v: float | int | None, name: str, allow_zero: bool = False) -> None:
    if v is None:
        return
    if (v < 0) if allow_zero else (v <= 0):
        spec_error(f"{name} must be {'>= 0' if allow_zero else '> 0'}, got {v}")


def _parse_lora(raw: Any) -> LoraSpec:
    if raw is None:
        return LoraSpec()
    obj = _expect_obj(raw, "lora")
    _unknown(obj, {"rank", "alpha", "dropout", "targets"}, "lora")
    d = LoraSpec()
    rank = _take(obj, "rank", int, "lora")
    alpha = _take(obj, "alpha", (int, float), "lora")
    dropout = _take(obj, "dropout", (int, float), "lora")
    targets = _take(obj, "targets", list, "lora")
    if targets is not None and (not targets or not all(isinstance(t, str) and t for t in targets)):
        spec_error("lora.targets must be a non-empty list of module names (e.g. q_proj, v_proj)")
    spec = LoraSpec(
        rank=rank if rank is not None else d.rank,
        alpha=float(alpha) if alpha is not None else d.alpha,
        dropout=float(dropout) if dropout is not None else d.dropout,
        targets=tuple(targets) if targets is not None else d.targets,
    )
    _positive(spec.rank, "lora.rank")
    _positive(spec.alpha, "lora.alpha")
    if not 0 <= spec.dropout < 1:
        spec_error(f"lora.dropout must be in [0, 1), got {spec.dropout}")
    return spec


def _not_blank(obj: dict[str, Any], names: tuple[str, ...]) -> None:
    # Paths: a blank one is a mistake (the TypeScript reader refuses it too).
    for name in names:
        v = obj.get(name)
        if isinstance(v, str) and not v.strip():
            spec_error(f"spec.{name} must not be blank")


def _unknown(obj: dict[str, Any], allowed: set[str], where: str) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        spec_error(f"{where}: unknown field(s) {', '.join(extra)} (allowed: {', '.join(sorted(allowed))})")


_COMMON_FIELDS = {
    "command",
    "base_model",
    "output_dir",
    "base_model_sha256",
    "init_adapter",
    "init_optimizer",
    "lora",
    "lr",
    "max_length",
    "seed",
    "save_every",
    "keep_saves",
    "max_steps",
    "threads",
    "device",
    "max_grad_norm",
    "weight_decay",
    "warmup_steps",
    "gradient_checkpointing",
}


def _common(obj: dict[str, Any]) -> dict[str, Any]:
    w = "spec"
    _not_blank(obj, ("base_model", "output_dir", "init_adapter", "data", "rollouts"))
    out: dict[str, Any] = {
        "base_model": _take(obj, "base_model", str, w, required=True),
        "output_dir": _take(obj, "output_dir", str, w, required=True),
        "lora": _parse_lora(obj.get("lora")),
    }
    for name, kind in [
        ("base_model_sha256", str),
        ("init_adapter", str),
        ("init_optimizer", bool),
        ("lr", (int, float)),
        ("max_length", int),
        ("seed", int),
        ("save_every", int),
        ("keep_saves", int),
        ("max_steps", int),
        ("threads", int),
        ("device", str),
        ("max_grad_norm", (int, float)),
        ("weight_decay", (int, float)),
        ("warmup_steps", int),
        ("gradient_checkpointing", bool),
    ]:
        v = _take(obj, name, kind, w)
        if v is not None:
            out[name] = float(v) if kind == (int, float) else v
    sha = out.get("base_model_sha256")
    if sha is not None and (len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha)):
        spec_error("spec.base_model_sha256 must be 64 lowercase hex characters")
    if out.get("device", "auto") not in ("auto", "cpu", "cuda"):
        spec_error(f"spec.device must be auto, cpu or cuda, got {out['device']}")
    for name in ("lr", "max_length", "save_every", "keep_saves", "max_steps", "threads", "max_grad_norm"):
        _positive(out.get(name), f"spec.{name}")
    for name in ("weight_decay", "warmup_steps", "seed"):
        _positive(out.get(name), f"spec.{name}", allow_zero=True)
    if out.get("init_optimizer") and not out.get("init_adapter"):
        spec_error("spec.init_optimizer needs spec.init_adapter (the checkpoint whose optimiser state to carry)")
    if not out["base_model"].strip() or not out["output_dir"].strip():
        spec_error("spec.base_model and spec.output_dir must not be empty")
    return out


def _parse_shift(obj: dict[str, Any]) -> ShiftSpec:
    fields = {"command", "base_model", "base_model_sha256", "adapter_dir", "episodes", "output_dir", "temperature"}
    _unknown(obj, fields | {"max_length", "threads", "device"}, "spec")
    _not_blank(obj, ("base_model", "adapter_dir", "episodes"))
    temp = _take(obj, "temperature", (int, float), "spec")
    if temp is not None and not temp > 0:
        spec_error(f"spec.temperature must be > 0, got {temp!r}")
    ml = _take(obj, "max_length", int, "spec")
    th = _take(obj, "threads", int, "spec")
    _positive(ml, "spec.max_length")
    _positive(th, "spec.threads")
    dev = _take(obj, "device", str, "spec") or "auto"
    if dev not in ("auto", "cpu", "cuda"):
        spec_error(f"spec.device must be auto, cpu or cuda, got {dev}")
    sha = _take(obj, "base_model_sha256", str, "spec")
    if sha is not None and (len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha)):
        spec_error("spec.base_model_sha256 must be 64 lowercase hex characters")
    return ShiftSpec(
        base_model=_take(obj, "base_model", str, "spec", required=True),
        adapter_dir=_take(obj, "adapter_dir", str, "spec", required=True),
        episodes=_take(obj, "episodes", str, "spec", required=True),
        output_dir=_take(obj, "output_dir", str, "spec") or "",
        base_model_sha256=sha,
        temperature=float(temp) if temp is not None else 1.0,
        max_length=ml or 8192,
        threads=th,
        device=dev,  # type: ignore[arg-type]
    )


def parse_spec(command: str, raw: Any) -> SftSpec | GrpoSpec | ExportSpec | ShiftSpec:
    """Validate a decoded spec for `command`. Raises TrainerError("invalid_spec") naming the bad field."""
    if command not in COMMANDS:
        spec_error(f"unknown command {command!r} (expected one of {', '.join(COMMANDS)})")
    obj = _expect_obj(raw, "spec")
    if "command" in obj and obj["command"] != command:
        spec_error(f"spec.command is {obj['command']!r} but the trainer was run as {command!r}")
    if command == "policy-shift":
        return _parse_shift(obj)
    if command == "export-gguf-lora":
        _unknown(obj, {"command", "adapter_dir", "base_model", "output", "output_dir"}, "spec")
        _not_blank(obj, ("adapter_dir", "base_model", "output"))
        return ExportSpec(
            adapter_dir=_take(obj, "adapter_dir", str, "spec", required=True),
            base_model=_take(obj, "base_model", str, "spec", required=True),
            output=_take(obj, "output", str, "spec", required=True),
            output_dir=_take(obj, "output_dir", str, "spec") or "",
        )
    if command == "sft":
        _unknown(obj, _COMMON_FIELDS | {"data", "epochs", "batch_size"}, "spec")
        common = _common(obj)
        data = _take(obj, "data", str, "spec", required=True)
        epochs = _take(obj, "epochs", (int, float), "spec")
        batch = _take(obj, "batch_size", int, "spec")
        _positive(epochs, "spec.epochs")
        _positive(batch, "spec.batch_size")
        return SftSpec(**common, data=data, epochs=float(epochs) if epochs is not None else 1.0, batch_size=batch or 1)
    # grpo-update
    _unknown(
        obj,
        _COMMON_FIELDS
        | {
            "rollouts",
            "ppo_epochs",
            "mini_batch_size",
            "clip_eps",
            "clip_eps_low",
            "clip_eps_high",
            "kl_beta",
            "temperature",
            "advantage",
            "tis_cap",
        },
        "spec",
    )
    common = _common(obj)
    if "lr" not in common:
        common["lr"] = GrpoSpec.lr
    rollouts = _take(obj, "rollouts", str, "spec", required=True)
    ppo_epochs = _take(obj, "ppo_epochs", int, "spec")
    mbs = _take(obj, "mini_batch_size", int, "spec")
    clip = _take(obj, "clip_eps", (int, float), "spec")
    clip_low = _take(obj, "clip_eps_low", (int, float), "spec")
    clip_high = _take(obj, "clip_eps_high", (int, float), "spec")
    beta = _take(obj, "kl_beta", (int, float), "spec")
    temp = _take(obj, "temperature", (int, float), "spec")
    tis_cap = _take(obj, "tis_cap", (int, float), "spec")
    if tis_cap is not None and not (math.isfinite(tis_cap) and tis_cap > 1):
        # min(ratio, C) with C <= 1 caps every weight at or below 1: it would shrink every update, not correct it
        spec_error(f"spec.tis_cap must be a number > 1 (the importance weight's cap), got {tis_cap!r}")
    _positive(ppo_epochs, "spec.ppo_epochs")
    _positive(mbs, "spec.mini_batch_size")
    for n, v in (("clip_eps", clip), ("clip_eps_low", clip_low), ("clip_eps_high", clip_high)):
        _positive(v, f"spec.{n}")
    if clip_low is not None and clip_low >= 1:
        spec_error("spec.clip_eps_low must be < 1 (the ratio's lower bound is 1 - clip_eps_low)")
    if clip is not None and clip >= 1:
        spec_error("spec.clip_eps must be < 1")
    _positive(beta, "spec.kl_beta", allow_zero=True)
    if temp is not None and not temp > 0:
        # greedy (0) draws no distribution to take a ratio against
        spec_error(f"spec.temperature must be > 0 (the rollouts' sampling temperature), got {temp!r}")
    d = GrpoSpec(base_model="", output_dir="")
    adv = AdvantageSpec()
    if obj.get("advantage") is not None:
        adv = _parse_advantage(_expect_obj(obj["advantage"], "advantage"))
    return GrpoSpec(
        **common,
        rollouts=rollouts,
        ppo_epochs=ppo_epochs or d.ppo_epochs,
        mini_batch_size=mbs or d.mini_batch_size,
        clip_eps_low=float(clip_low if clip_low is not None else clip if clip is not None else d.clip_eps_low),
        clip_eps_high=float(clip_high if clip_high is not None else clip if clip is not None else d.clip_eps_high),
        kl_beta=float(beta) if beta is not None else d.kl_beta,
        temperature=float(temp) if temp is not None else d.temperature,
        advantage=adv,
        tis_cap=float(tis_cap) if tis_cap is not None else None,
    )


def _parse_advantage(a: dict[str, Any]) -> AdvantageSpec:
    _unknown(a, {"mode", "step_weight", "outcome_weight", "scale", "std_floor", "epsilon"}, "advantage")
    d = AdvantageSpec()
    mode = _take(a, "mode", str, "advantage")
    if mode == "given":
        # retired 2026-12-07: no caller wrote advantages into the rollouts; they carry rewards
        spec_error(
            "advantage.mode given is retired: rollouts carry rewards, and mode outcome, aac or mix computes the advantages"
        )
    if mode is not None and mode not in ADVANTAGE_MODES:
        spec_error(f"advantage.mode must be one of {', '.join(ADVANTAGE_MODES)}, got {mode!r}")
    sw = _take(a, "step_weight", (int, float), "advantage")
    ow = _take(a, "outcome_weight", (int, float), "advantage")
    if ow is not None and mode == "aac":
        spec_error("advantage.outcome_weight is mix's: aac puts the outcome on the description only (use mode mix)")
    scale = _take(a, "scale", str, "advantage")
    if scale is not None and scale not in ("none", "std"):
        spec_error(f"advantage.scale must be none or std, got {scale!r}")
    floor = _take(a, "std_floor", (int, float), "advantage")
    _positive(floor, "advantage.std_floor", allow_zero=True)
    if floor and (scale or d.scale) != "std":
        spec_error("advantage.std_floor needs scale std (scale none divides by nothing)")
    eps = _take(a, "epsilon", (int, float), "advantage")
    _positive(eps, "advantage.epsilon")
    return AdvantageSpec(
        mode=mode or d.mode,  # type: ignore[arg-type]
        step_weight=float(sw) if sw is not None else d.step_weight,
        outcome_weight=0.0 if mode == "aac" else float(ow) if ow is not None else d.outcome_weight,
        scale=scale or d.scale,  # type: ignore[arg-type]
        std_floor=float(floor) if floor is not None else d.std_floor,
        epsilon=float(eps) if eps is not None else d.epsilon,
    )


def spec_fingerprint(spec: SftSpec | GrpoSpec | ExportSpec | ShiftSpec) -> dict[str, Any]:
    """What must not change between a job's first run and its resumptions (stored in each save)."""
    d = asdict(spec)
    for volatile in ("threads", "device", "keep_saves", "output_dir", "gradient_checkpointing"):
        d.pop(volatile, None)
    return json.loads(json.dumps(d))  # as stored in state.json (tuples become lists), so they compare equal
