"""Starting one job as N processes: the CLI re-runs itself under torchrun (torch.distributed.run, in this
process), and this process stays the job's one face to the worker: same stdin, same stdout (rank 0's
events), same exit codes, same SIGTERM = save and stop.

    worker (node) -> python -m pau_trainer CMD --spec F --watch-stdin      (this process: torchrun's agent)
                       -> N x python -m pau_trainer CMD --spec F --watch-stdin   (ranks, RANK/WORLD_SIZE set)

N comes from PAU_TRAINER_PROCESSES: a positive integer, or "auto" (the default): the number of visible CUDA
devices when the job runs on CUDA, else 1. N = 1 runs the job in this process, without torchrun.

What torchrun would do by itself and why it is changed here:
- SIGTERM: torchrun forwards it, then SIGKILLs the ranks after --shutdown-timeout (default 30 s) and exits
  with a traceback, losing the ranks' exit code. A step plus a save can take minutes on CPU, and the worker
  reads exit 5 as "cancelled". So torchrun does not handle SIGTERM/SIGINT here: this process forwards them
  to the ranks (each sets its cancel flag; they agree at the next step boundary, rank 0 saves, all exit 5),
  and torchrun sees N ranks exit 5.
- Exit code: torchrun raises ChildFailedError for any rank that exited non-zero; this process exits with
  128 + signal if a rank died of a signal (e.g. OOM-killed: retryable), else with the lowest failed rank's
  code (ranks fail alike: a bad spec or data fails on every rank; cancel exits 5 on every rank).
- A dead worker: this process dies with it (parent_watch.py, set up before it launches); each rank has
  PR_SET_PDEATHSIG on this process and watches the worker's pid, so none outlives it.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

from .distributed import ENV_PROCESSES
from .protocol import TrainerError

# How long torchrun waits for the other ranks to exit after one failed before SIGKILLing them. They are then
# either stopping at a step boundary (a save) or failing in a collective with the dead rank (at once).
SHUTDOWN_TIMEOUT_S = 900


def resolve_processes(raw: str | None, device_choice: str) -> int:
    """PAU_TRAINER_PROCESSES -> N. "auto"/unset: visible CUDA devices when the job runs on CUDA, else 1."""
    value = (raw or "auto").strip().lower()
    if value != "auto":
        if not value.isdigit() or int(value) < 1:
            raise TrainerError("invalid_spec", f'{ENV_PROCESSES}={raw!r}: expected a positive integer or "auto"')
        return int(value)
    if device_choice == "cpu":
        return 1
    import torch

    if not torch.cuda.is_available():
        return 1
    return max(1, torch.cuda.device_count())


def torchrun_argv(n: int, job_argv: list[str]) -> list[str]:
    """torchrun's arguments for N ranks on this host running `python -m pau_trainer <job_argv>`."""
    return [
        "--standalone",  # a private rendezvous on a free local port: jobs on one host never collide
        f"--nproc-per-node={n}",
        "--max-restarts=0",  # a failed job is retried by the activity, from the last save
        "--signals-to-handle=SIGHUP,SIGQUIT",  # SIGTERM/SIGINT are forwarded by us (module docstring)
        f"--shutdown-timeout={SHUTDOWN_TIMEOUT_S}",
        "--monitor-interval=0.5",
        "-m",
        "pau_trainer",
        *job_argv,
    ]


def exit_code_of(failures: dict[int, int]) -> int:
    """The job's exit code from the failed ranks' exit codes (negative = killed by that signal). Once one rank
    has exited non-zero, torchrun SIGTERMs the ranks still running (a cancelled rank 0 exits 5 while rank 1 is
    still tearing down): those SIGTERMs are its doing, not the cause, and are left out when another rank failed."""
    caused = {r: c for r, c in failures.items() if c != -signal.SIGTERM}
    failures = caused or failures
    signalled = sorted(-c for c in failures.values() if c < 0)
    if signalled:
        return 128 + signalled[0]
    return failures[min(failures)]


class _Forwarder:
    """Delivers a SIGTERM/SIGINT the launcher got to every rank, including ranks started after it arrived
    (a cancel while torchrun was still starting them). A rank gets it once it has run for a moment, so its
    own handler (cancel.py, installed first thing) is in place and the signal means "save and stop"."""

    SETTLE_S = 3.0

    def __init__(self) -> None:
        self.signum: int | None = None
        self.sent: set[int] = set()

    def request(self, signum: int, _frame: object = None) -> None:
        self.signum = signum

    def deliver(self) -> None:
        import psutil

        while True:
            if self.signum is not None:
                for child in psutil.Process().children():
                    try:
                        if child.pid not in self.sent and time.time() - child.create_time() >= self.SETTLE_S:
                            os.kill(child.pid, self.signum)
                            self.sent.add(child.pid)
                    except (ProcessLookupError, psutil.NoSuchProcess):
                        pass
            time.sleep(0.2)


def launch(n: int, job_argv: list[str], cancelled: bool = False) -> int:
    """Run the job as N ranks under torchrun; returns the job's exit code. `cancelled`: a SIGTERM arrived
    before the launch (the ranks are told as soon as they run)."""
    forwarder = _Forwarder()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, forwarder.request)
    if cancelled:
        forwarder.request(signal.SIGTERM)
    threading.Thread(target=forwarder.deliver, name="forward-signals", daemon=True).start()
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.run import parse_args, run

    # the ranks import pau_trainer from wherever this process did
    pkg_root = str(Path(__file__).resolve().parent.parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_root, os.environ.get("PYTHONPATH", "")) if p)
    os.environ.setdefault("OMP_NUM_THREADS", os.environ.get("PAU_TRAINER_THREADS", "1"))
    try:
        run(parse_args(torchrun_argv(n, job_argv)))
    except ChildFailedError as e:
        return exit_code_of({int(rank): int(f.exitcode) for rank, f in e.failures.items()})
    finally:
        sys.stderr.flush()
    return 0
