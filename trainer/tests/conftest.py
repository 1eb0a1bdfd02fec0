"""Shared fixtures. Model tests use SmolLM2-135M on CPU with tiny jobs (a few steps, short sequences)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

TRAINER_DIR = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(Path(__file__).resolve().parent))

from standin_models import ensure_model  # noqa: E402  (stand-in for `pau models install`)
from tiny_models import tiny_llama  # noqa: E402


@pytest.fixture(scope="session")
def smollm2() -> Path:
    return ensure_model("smollm2-135m")


@pytest.fixture(scope="session")
def tiny_smollm2(smollm2: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Llama GGUF with SmolLM2's vocabulary and template (tests/tiny_models.py): for mechanics."""
    return tiny_llama(smollm2, tmp_path_factory.mktemp("tiny") / "tiny-smollm2.gguf")


@pytest.fixture(scope="session")
def smollm2_dir(smollm2: Path) -> Path:
    from pau_trainer.models import prepare_base

    return prepare_base(smollm2)[0]


@pytest.fixture(scope="session")
def tokenizer(smollm2_dir: Path) -> Any:
    from pau_trainer.models import load_tokenizer

    return load_tokenizer(smollm2_dir)


@dataclass
class Run:
    rc: int
    events: list[dict[str, Any]]
    stderr: str
    killed_at: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def of(self, type_: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == type_]

    def steps(self) -> list[int]:
        return [e["step"] for e in self.of("progress")]


def run_trainer(
    command: str,
    spec: dict[str, Any],
    spec_path: Path,
    *,
    signal_on=None,
    sig=signal.SIGKILL,
    timeout: float = 900,
    env: dict[str, str] | None = None,
    watch_stdin: bool = False,
) -> Run:
    """Run `python -m pau_trainer COMMAND` like the TS side does; optionally send `sig` when an event matching
    `signal_on(event)` arrives (sig None: close the trainer's stdin, as a dying worker does; needs
    watch_stdin). Every stdout line must be a JSON object with a type (the wire contract). With
    PAU_TRAINER_PROCESSES > 1 the pids of the ranks (the launcher's children) at that moment are in
    extra["ranks"]."""
    spec_path.write_text(json.dumps(spec))
    env = {**os.environ, "PAU_TRAINER_THREADS": os.environ.get("PAU_TRAINER_THREADS", "1"), **(env or {})}
    args = [sys.executable, "-m", "pau_trainer", command, "--spec", str(spec_path)] + (
        ["--watch-stdin"] if watch_stdin else []
    )
    p = subprocess.Popen(
        args,
        cwd=TRAINER_DIR,
        stdin=subprocess.PIPE if watch_stdin else None,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    events: list[dict[str, Any]] = []
    killed_at = None
    extra: dict[str, Any] = {}
    deadline = time.monotonic() + timeout
    assert p.stdout is not None
    for line in p.stdout:
        ev = json.loads(line)
        assert isinstance(ev, dict) and isinstance(ev.get("type"), str), line
        events.append(ev)
        if signal_on is not None and killed_at is None and signal_on(ev):
            killed_at = ev
            if env.get("PAU_TRAINER_PROCESSES", "1") not in ("1", "auto"):
                import psutil

                extra["ranks"] = [c.pid for c in psutil.Process(p.pid).children()]
            if sig is None:
                assert p.stdin is not None
                p.stdin.close()
            else:
                p.send_signal(sig)
        if time.monotonic() > deadline:
            p.kill()
            raise TimeoutError(command)
    rc = p.wait()
    stderr = p.stderr.read() if p.stderr else ""
    return Run(rc=rc, events=events, stderr=stderr, killed_at=killed_at, extra=extra)


def marker_spec(smollm2: Path, out: Path, **over: Any) -> dict[str, Any]:
    """A tiny memorisation job: 3 conversations whose assistant turns say MARKER-7, LoRA on q/k/v/o (so the
    GGUF export's q/k permutation is exercised), 9 steps of one example each."""
    spec = {
        "base_model": str(smollm2),
        "data": str(DATA / "marker_sft.jsonl"),
        "output_dir": str(out),
        "lr": 0.003,
        "epochs": 3,
        "batch_size": 1,
        "max_length": 96,
        "seed": 7,
        "save_every": 3,
        "lora": {"rank": 8, "alpha": 16, "targets": ["q_proj", "k_proj", "v_proj", "o_proj"]},
    }
    spec.update(over)
    return spec


@pytest.fixture(scope="session")
def marker_run(
    smollm2: Path, smollm2_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Run, dict[str, Any]]:
    d = tmp_path_factory.mktemp("marker")
    spec = marker_spec(smollm2, d / "out")
    run = run_trainer("sft", spec, d / "spec.json")
    assert run.rc == 0, run.stderr[-3000:]
    return run, spec
