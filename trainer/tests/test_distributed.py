"""One job as 2 processes (torchrun, DDP over gloo, CPU): the same step as 1 process, and the same durability.

- equivalence: the loss and every LoRA gradient of one SFT step (3 examples: ranks take 2 + 1) and one GRPO
  step (3 rollouts of 4: 2 + 1) computed by 2 ranks equal the single-process ones on the same batch;
- the kill/resume sequence of test_sft.py with PAU_TRAINER_PROCESSES=2, plus a dead worker: SIGTERM to the
  launcher (the process a worker starts) = every rank stops at the same step and the save is made; SIGKILL of
  the launcher and a closed stdin (the worker died) = no rank outlives it; the resumed job ends with the
  uninterrupted single-process job's adapter.
The equivalence runs on a tiny random Llama with SmolLM2's vocabulary (conftest.tiny_smollm2): what it checks is
the mechanics (gradients all-reduced), which any model shows, and a SmolLM2 step costs far more CPU. The
kill/resume sequence runs on SmolLM2: its signals land between steps only when a step takes real time. The real model's jobs are in test_sft.py and test_grpo.py.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
import torch
from safetensors.torch import load_file

from conftest import DATA, TRAINER_DIR, marker_spec, run_trainer
from pau_trainer.launch import exit_code_of, resolve_processes, torchrun_argv
from pau_trainer.protocol import ExitCode, TrainerError

# Stated tolerances (float32 on CPU). The two runs add the same per-token terms in a different order (each
# rank sums its own, gloo sums the ranks), so they differ by float32 rounding: ~1e-7 relative, measured below.
LOSS_REL = 1e-6  # |l2 - l1| / |l1| (the tiny model's SFT loss is ~10.7, ln of its vocabulary: measured 4.5e-8)
GRAD_REL = 1e-5  # |g2 - g1| / |g1| over all LoRA gradients of the step, and max |g2 - g1| / max |g1|


def _gone(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _wait_gone(pids: list[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = [p for p in pids if not _gone(p)]
        if not alive:
            return []
        time.sleep(0.1)
    return [p for p in pids if not _gone(p)]


# ---- the launcher's pure parts ---------------------------------------------------------------------------


def test_processes_from_the_environment():
    assert resolve_processes(None, "cpu") == 1 and resolve_processes("auto", "cpu") == 1
    assert resolve_processes("3", "cpu") == 3
    if not torch.cuda.is_available():
        assert resolve_processes("auto", "auto") == 1
    for bad in ("0", "-2", "two", "1.5"):
        with pytest.raises(TrainerError, match="PAU_TRAINER_PROCESSES"):
            resolve_processes(bad, "cpu")


def test_torchrun_arguments_and_exit_codes():
    argv = torchrun_argv(4, ["sft", "--spec", "s.json", "--watch-stdin"])
    assert argv[-6:] == ["-m", "pau_trainer", "sft", "--spec", "s.json", "--watch-stdin"]
    assert "--nproc-per-node=4" in argv and "--standalone" in argv and "--max-restarts=0" in argv
    # torchrun must not turn SIGTERM into SIGKILL-after-30-s: the launcher forwards it itself
    assert "--signals-to-handle=SIGHUP,SIGQUIT" in argv
    assert exit_code_of({0: 5, 1: 5}) == ExitCode.CANCELLED
    assert exit_code_of({1: 4}) == ExitCode.INVALID_DATA
    assert exit_code_of({0: 1, 1: -9}) == 137  # a rank killed (OOM): a crash, retryable
    # rank 0 cancelled and exited first; torchrun then SIGTERMed rank 1, still exiting: the job was cancelled
    assert exit_code_of({0: 5, 1: -signal.SIGTERM}) == ExitCode.CANCELLED
    assert exit_code_of({0: -9, 1: -signal.SIGTERM}) == 137
    assert exit_code_of({0: -signal.SIGTERM, 1: -signal.SIGTERM}) == 143


# ---- equivalence ------------------------------------------------------------------------------------------


@pytest.mark.model
def test_one_step_on_two_processes_equals_one_process(tiny_smollm2, tmp_path):
    runs = {}
    for world in (1, 2):
        d = tmp_path / f"w{world}"
        d.mkdir()
        (d / "sft.json").write_text(json.dumps(marker_spec(tiny_smollm2, d / "sft", batch_size=3, max_steps=1)))
        (d / "grpo.json").write_text(
            json.dumps(
                {
                    "base_model": str(tiny_smollm2),
                    "rollouts": str(DATA / "tiny_rollouts.jsonl"),
                    "output_dir": str(d / "grpo"),
                    "mini_batch_size": 3,
                    "max_length": 160,
                    "seed": 3,
                    "advantage": {"mode": "aac"},
                    "lora": {"rank": 4, "alpha": 8, "targets": ["q_proj", "v_proj"]},
                }
            )
        )
        harness = [
            str(TRAINER_DIR / "tests" / "dist_step.py"),
            str(d / "sft.json"),
            str(d / "grpo.json"),
            str(d / "out.pt"),
        ]
        launcher = [] if world == 1 else ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2"]
        t = time.monotonic()
        p = subprocess.run(
            [sys.executable, *launcher, *harness],
            cwd=TRAINER_DIR,
            capture_output=True,
            text=True,
            timeout=900,
            env={**__import__("os").environ, "PAU_TRAINER_THREADS": "1"},
        )
        assert p.returncode == 0, p.stderr[-3000:]
        runs[world] = torch.load(d / "out.pt", weights_only=False)
        runs[world]["wall_s"] = time.monotonic() - t
    one, two = runs[1], runs[2]
    assert (one["world"], two["world"]) == (1, 2)
    report = []
    for kind in ("sft", "grpo"):
        a, b = one[kind], two[kind]
        assert a["batch"] == b["batch"] and len(a["batch"]) == 3  # the same global batch, split 2 + 1
        assert a["loss"] != 0
        assert abs(a["loss"] - b["loss"]) <= LOSS_REL * abs(a["loss"]), (kind, a["loss"], b["loss"])
        assert a["grads"].keys() == b["grads"].keys() and a["grads"]
        g1 = torch.cat([a["grads"][k].flatten() for k in sorted(a["grads"])])
        g2 = torch.cat([b["grads"][k].flatten() for k in sorted(b["grads"])])
        assert g1.norm() > 0
        rel = float((g2 - g1).norm() / g1.norm())
        worst = float((g2 - g1).abs().max() / g1.abs().max())
        assert rel <= GRAD_REL and worst <= GRAD_REL, (kind, rel, worst)
        report.append(
            f"{kind}: loss {a['loss']:.7f} vs {b['loss']:.7f} (diff {abs(a['loss'] - b['loss']):.1e}); "
            f"gradients: |g2-g1|/|g1| {rel:.1e}, max|g2-g1|/max|g1| {worst:.1e} "
            f"(max|g1| {float(g1.abs().max()):.1e}, {g1.numel()} values)"
        )
    for k in ("tokens", "trained_tokens"):
        assert one["sft"][k] == two["sft"][k]
    for k in ("pg_loss", "kl", "clip_frac", "adv", "tokens"):
        assert one["grpo"][k] == pytest.approx(two["grpo"][k], abs=1e-6), k
    print("\n".join(report) + f"\nwall: 1 process {one['wall_s']:.1f}s, 2 processes {two['wall_s']:.1f}s")


# ---- durability with 2 processes --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_marker_run(tiny_smollm2, tmp_path_factory):
    """The uninterrupted single-process job the 2-process sequence must end equal to."""
    d = tmp_path_factory.mktemp("tiny-marker")
    run = run_trainer("sft", marker_spec(tiny_smollm2, d / "out"), d / "spec.json")
    assert run.rc == 0, run.stderr[-3000:]
    return run


@pytest.mark.model
def test_two_process_job_survives_sigterm_kill9_and_a_dead_worker(marker_run, smollm2, tmp_path):
    """test_sft.py's sequence on 2 processes: SIGTERM after step 1, SIGKILL of the launcher during step 4
    (after the save at 3), then a dead worker (stdin closed) during the resumed step 4, then a resume to the
    end; the result equals the uninterrupted single-process run's (batch_size 1: rank 1 trains nothing and
    rank 0's gradient is the single-process one). On SmolLM2, not the tiny model: its millisecond steps let the job
    end before the SIGKILL after the save at 3 lands."""
    ref_run, _ = marker_run
    spec = marker_spec(smollm2, tmp_path / "out")
    two = {"PAU_TRAINER_PROCESSES": "2"}

    a = run_trainer(
        "sft", spec, tmp_path / "s.json", env=two, signal_on=lambda e: e["type"] == "progress", sig=signal.SIGTERM
    )
    assert a.rc == ExitCode.CANCELLED, a.stderr[-3000:]
    assert a.of("start")[0]["processes"] == 2
    cancelled = a.of("cancelled")[0]
    assert cancelled["step"] == a.steps()[-1] and a.of("saved")[-1]["step"] == cancelled["step"] and not a.of("done")
    assert len(a.of("cancelled")) == 1 and len(a.of("start")) == 1  # one event stream: rank 0's
    assert len(a.extra["ranks"]) == 2 and _wait_gone(a.extra["ranks"], 5) == []

    b = run_trainer(
        "sft", spec, tmp_path / "s.json", env=two, signal_on=lambda e: e["type"] == "saved" and e["step"] == 3
    )
    assert b.rc == -signal.SIGKILL
    assert b.of("start")[0]["resumed_from_step"] == cancelled["step"]
    left = _wait_gone(b.extra["ranks"], 5)
    assert left == [], f"ranks {left} outlived their SIGKILLed launcher"

    c = run_trainer(
        "sft",
        spec,
        tmp_path / "s.json",
        env=two,
        watch_stdin=True,
        signal_on=lambda e: e["type"] == "progress",
        sig=None,
    )
    assert c.rc == 137, c.stderr[-3000:]  # the launcher's watchdog: its worker is gone
    # from the last save the killed run reported (3 when the kill lands in step 4; the tiny model's steps take
    # milliseconds, so the test asserts what holds at any speed)
    assert c.of("start")[0]["resumed_from_step"] == b.of("saved")[-1]["step"]
    left = _wait_gone(c.extra["ranks"], 5)
    assert left == [], f"ranks {left} outlived a launcher whose worker died"

    d = run_trainer("sft", spec, tmp_path / "s.json", env=two)
    assert d.rc == 0, d.stderr[-3000:]
    start = d.of("start")[0]
    # from c's last reported save, or one c finished just before it was killed (3 or 4 when c dies in step 4)
    c_saved = c.of("saved")[-1]["step"] if c.of("saved") else c.of("start")[0]["resumed_from_step"]
    assert c_saved <= start["resumed_from_step"] <= max(c.steps(), default=c_saved)
    assert d.steps() == list(range(start["resumed_from_step"] + 1, 10))
    done = d.of("done")[0]
    assert done["steps"] == 9 and len(done["metrics"]["losses"]) == 9
    mine, ref = load_file(done["adapter"]), load_file(ref_run.of("done")[0]["adapter"])
    assert mine.keys() == ref.keys()
    for k in ref:
        assert torch.allclose(mine[k], ref[k], atol=1e-5), k
    assert done["metrics"]["losses"] == pytest.approx(ref_run.of("done")[0]["metrics"]["losses"], abs=1e-4)
    # TensorBoard: one file per attempt that trained, the resumed ones starting with a SessionLog START
    assert len(list((tmp_path / "out" / "tensorboard").glob("events.out.tfevents.*"))) >= 3
