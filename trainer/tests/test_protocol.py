"""Spec validation: every mistake is a clear invalid_spec error naming the field (no model needed)."""

import json
import subprocess
import sys

import pytest

from pau_trainer.protocol import ExitCode, GrpoSpec, SftSpec, TrainerError, parse_spec, spec_fingerprint

OK = {"base_model": "/m/smollm2-135m.gguf", "data": "/d.jsonl", "output_dir": "/o"}


def test_minimal_sft_spec_gets_defaults():
    s = parse_spec("sft", OK)
    assert isinstance(s, SftSpec)
    assert (s.epochs, s.batch_size, s.lora.rank, s.lora.targets) == (
        1.0,
        1,
        8,
        ("q_proj", "k_proj", "v_proj", "o_proj"),
    )
    assert s.gradient_checkpointing is True  # on unless a spec turns it off
    grpo = {"base_model": "/m", "output_dir": "/o", "rollouts": "/r", "gradient_checkpointing": False}
    assert parse_spec("grpo-update", grpo).gradient_checkpointing is False


@pytest.mark.parametrize(
    "patch, needle",
    [
        ({"base_model": None}, "spec.base_model is required"),
        ({"lr": "fast"}, "spec.lr must be a number"),
        ({"lr": True}, "spec.lr must be a number"),
        ({"lr": 0}, "spec.lr must be > 0"),
        ({"epochs": -1}, "spec.epochs must be > 0"),
        ({"batch_size": 1.5}, "spec.batch_size must be an integer"),
        ({"lora": {"rank": 0}}, "lora.rank must be > 0"),
        ({"lora": {"targets": []}}, "lora.targets must be a non-empty list"),
        ({"lora": {"dropout": 1}}, "lora.dropout must be in [0, 1)"),
        ({"lora": {"ranks": 8}}, "lora: unknown field(s) ranks"),
        ({"learning_rate": 1e-4}, "unknown field(s) learning_rate"),
        ({"base_model_sha256": "abc"}, "64 lowercase hex"),
        ({"device": "tpu"}, "spec.device must be auto, cpu or cuda"),
        ({"gradient_checkpointing": "yes"}, "spec.gradient_checkpointing must be true or false"),
        ({"command": "grpo-update"}, "but the trainer was run as 'sft'"),
    ],
)
def test_bad_sft_specs_name_the_field(patch, needle):
    spec = {**OK, **patch}
    spec = {k: v for k, v in spec.items() if v is not None}
    with pytest.raises(TrainerError) as e:
        parse_spec("sft", spec)
    assert e.value.code == "invalid_spec"
    assert needle in e.value.message


def test_grpo_spec_clip_and_advantage():
    s = parse_spec(
        "grpo-update",
        {
            "base_model": "/m.gguf",
            "output_dir": "/o",
            "rollouts": "/r.jsonl",
            "clip_eps": 0.3,
            "clip_eps_high": 0.28,
            "advantage": {"mode": "aac", "step_weight": 0.5},
        },
    )
    assert isinstance(s, GrpoSpec)
    # 5e-4: LoRA's step size (1e-5 was a sign step that moved nothing measurable)
    assert (s.clip_eps_low, s.clip_eps_high, s.lr) == (0.3, 0.28, 5e-4)
    # aac: the outcome on the description only, so its outcome weight on the steps is 0 by definition
    assert (s.advantage.mode, s.advantage.step_weight, s.advantage.outcome_weight) == ("aac", 0.5, 0.0)
    assert (s.advantage.scale, s.advantage.std_floor) == ("none", 0.0)
    s2 = parse_spec(
        "grpo-update",
        {
            "base_model": "/m",
            "output_dir": "/o",
            "rollouts": "/r",
            "advantage": {"mode": "mix", "outcome_weight": 0.5, "scale": "std", "std_floor": 0.5},
        },
    )
    assert (s2.advantage.mode, s2.advantage.outcome_weight, s2.advantage.scale, s2.advantage.std_floor) == (
        "mix",
        0.5,
        "std",
        0.5,
    )
    for bad, match in [
        ({"mode": "aac", "outcome_weight": 1}, r"outcome_weight is mix's"),
        ({"scale": "mean"}, "scale must be none or std"),
        ({"std_floor": 0.5}, r"std_floor needs scale std"),
        ({"scale": "std", "std_floor": -1}, "std_floor must be >= 0"),
        ({"step_aggregate": "mean"}, "unknown field"),
        ({"mode": "given"}, r"advantage\.mode given is retired: rollouts carry rewards, and mode outcome, aac or mix"),
    ]:
        with pytest.raises(TrainerError, match=match):
            parse_spec("grpo-update", {"base_model": "/m", "output_dir": "/o", "rollouts": "/r", "advantage": bad})
    # without an advantage block: pau grpo train's default reward, mix
    assert parse_spec("grpo-update", {"base_model": "/m", "output_dir": "/o", "rollouts": "/r"}).advantage.mode == "mix"
    with pytest.raises(TrainerError, match=r"init_optimizer needs spec\.init_adapter"):
        parse_spec("grpo-update", {"base_model": "/m", "output_dir": "/o", "rollouts": "/r", "init_optimizer": True})
    with pytest.raises(TrainerError, match=r"advantage\.mode must be"):
        parse_spec(
            "grpo-update", {"base_model": "/m", "output_dir": "/o", "rollouts": "/r", "advantage": {"mode": "ppo"}}
        )
    with pytest.raises(TrainerError, match="clip_eps_low must be < 1"):
        parse_spec("grpo-update", {"base_model": "/m", "output_dir": "/o", "rollouts": "/r", "clip_eps_low": 1.5})


def test_fingerprint_ignores_machine_settings_only():
    a = spec_fingerprint(parse_spec("sft", {**OK, "threads": 1, "output_dir": "/a"}))
    # gradient checkpointing recomputes what it drops: the same gradients, so a job may resume with it toggled
    b = spec_fingerprint(
        parse_spec("sft", {**OK, "threads": 4, "output_dir": "/b", "keep_saves": 5, "gradient_checkpointing": False})
    )
    c = spec_fingerprint(parse_spec("sft", {**OK, "lr": 1e-3}))
    assert a == b and a != c


def test_cli_bad_spec_is_one_error_line_and_exit_2(tmp_path):
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({**OK, "epochs": "two"}))
    p = subprocess.run(
        [sys.executable, "-m", "pau_trainer", "sft", "--spec", str(spec)], capture_output=True, text=True
    )
    assert p.returncode == ExitCode.INVALID_SPEC
    lines = p.stdout.strip().splitlines()
    assert len(lines) == 1
    ev = json.loads(lines[0])
    assert ev == {"type": "error", "code": "invalid_spec", "message": ev["message"]}
    assert "spec.epochs" in ev["message"]
    spec.write_text("{not json")
    p = subprocess.run(
        [sys.executable, "-m", "pau_trainer", "sft", "--spec", str(spec)], capture_output=True, text=True
    )
    assert p.returncode == ExitCode.INVALID_SPEC and "not JSON" in p.stdout
