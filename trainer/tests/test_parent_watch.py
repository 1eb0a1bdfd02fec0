"""A trainer dies with its parent (parent_watch.py) and says who holds a job directory's lock (job.py).

Real processes: a disposable parent spawns a child that installs one mechanism, the parent is SIGKILLed,
the child must be gone within a few seconds."""

from __future__ import annotations

import fcntl
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from pau_trainer import protocol
from pau_trainer.job import Job
from pau_trainer.parent_watch import ORPHAN_EXIT, PARENT_ENV

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
TRAINER_DIR = Path(__file__).resolve().parents[1]


def running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie may never be reaped inside a container)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_gone(pid: int, timeout_s: float) -> float | None:
    t = time.monotonic()
    while time.monotonic() - t < timeout_s:
        if not running(pid):
            return time.monotonic() - t
        time.sleep(0.05)
    return None


# The child: installs what CHILD_MODE says, prints "ready", then sleeps (a long torch op in real life).
CHILD = """
import os, sys, time
from pau_trainer import parent_watch as pw
mode = sys.argv[1]
if mode == "pdeathsig":
    assert pw.set_pdeathsig()
elif mode == "watchdog":
    pw.start_watchdog(watch_stdin=False, interval_s=0.1)
print("ready", flush=True)
time.sleep(60)
"""

# The disposable parent: starts the child with its stdin open (as a worker does), reports its pid, waits.
PARENT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
assert child.stdout.readline().strip() == b"ready"
print(child.pid, flush=True)
time.sleep(60)
"""


def spawn_family(mode: str) -> tuple[subprocess.Popen[bytes], int]:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, CHILD, mode],
        cwd=TRAINER_DIR,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(TRAINER_DIR)},
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    return parent, child


@linux_only
@pytest.mark.parametrize("mode", ["pdeathsig", "watchdog"])
def test_child_dies_with_its_sigkilled_parent(mode: str) -> None:
    parent, child = spawn_family(mode)
    try:
        assert running(child)
        parent.kill()
        parent.wait()
        took = wait_gone(child, 5)
        assert took is not None, f"{mode}: child {child} still running 5 s after its parent was SIGKILLed"
    finally:
        if running(child):
            os.kill(child, signal.SIGKILL)


@linux_only
def test_control_without_either_mechanism_the_child_survives() -> None:
    """The tests above can fail: an unprotected child of a SIGKILLed parent lives on."""
    parent, child = spawn_family("none")
    try:
        parent.kill()
        parent.wait()
        assert wait_gone(child, 1.5) is None
    finally:
        os.kill(child, signal.SIGKILL)


def run_watchdog_child(code: str, env: dict[str, str], stdin: int = subprocess.PIPE) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=TRAINER_DIR,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(TRAINER_DIR), **env},
    )


WATCH = """
import time
from pau_trainer import parent_watch as pw
pw.start_watchdog(interval_s=0.1)
print("ready", flush=True)
time.sleep(60)
"""


def test_stdin_eof_means_the_parent_is_gone() -> None:
    p = run_watchdog_child(WATCH, {})
    assert p.stdout is not None and p.stdin is not None
    assert p.stdout.readline().strip() == b"ready"
    p.stdin.close()
    assert p.wait(timeout=5) == ORPHAN_EXIT
    assert b"stdin closed" in (p.stderr.read() if p.stderr else b"")


def test_expected_parent_already_dead_exits_at_once() -> None:
    """The worker died between spawn and the watchdog's start (a launcher in between keeps getppid() alive)."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    p = run_watchdog_child(WATCH, {PARENT_ENV: str(dead.pid)})
    assert p.wait(timeout=10) == ORPHAN_EXIT
    assert f"worker {dead.pid} is gone".encode() in (p.stderr.read() if p.stderr else b"")


def test_live_parent_keeps_the_child_running() -> None:
    p = run_watchdog_child(WATCH, {PARENT_ENV: str(os.getpid())})
    try:
        assert p.stdout is not None
        assert p.stdout.readline().strip() == b"ready"
        time.sleep(0.6)
        assert p.poll() is None
    finally:
        p.kill()
        p.wait()


def test_waiting_for_a_held_lock_names_the_holder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pau_trainer.job as job_mod

    monkeypatch.setattr(job_mod, "LOCK_POLL_S", 0.1)
    monkeypatch.setattr(job_mod, "LOCK_REPORT_S", 0.5)
    out = io.StringIO()
    protocol.set_event_stream(out)
    try:
        # another "trainer" holds the lock, with its pid in the file as a trainer writes it
        held = open(tmp_path / ".lock", "a+")
        fcntl.flock(held, fcntl.LOCK_EX)
        held.write("424242\n")
        held.flush()
        job = SimpleNamespace(out=tmp_path)
        t = threading.Thread(target=Job.lock_output_dir, args=(job,))
        t.start()
        time.sleep(1.2)
        assert t.is_alive()
        fcntl.flock(held, fcntl.LOCK_UN)
        held.close()
        t.join(5)
        assert not t.is_alive()
    finally:
        protocol.set_event_stream(sys.stdout)
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    waits = [e for e in events if e.get("lock_holder_pid") is not None]
    assert len(waits) >= 2  # at once, then again while still waiting
    assert all(e["type"] == "info" and e["lock_holder_pid"] == 424242 for e in waits)
    assert "held by pid 424242" in waits[0]["message"]
    # the new holder wrote its own pid for the next one
    assert (tmp_path / ".lock").read_text().strip() == str(os.getpid())
    job._lock.close()  # type: ignore[attr-defined]
