"""A trainer dies with the worker that started it.

A worker killed with SIGKILL cannot stop its trainer child. A trainer that lived on would keep the job
directory's lock (job.py), so the retried activity's new trainer would wait for it; and it would keep
computing for nobody. The cancel flag (cancel.py) is no help there: it is read between optimizer steps only,
and loading a model or precomputing log-probs takes minutes on CPU. So when the parent goes, the trainer exits
at once; saves are atomic (a save counts only with its DONE file), so the retry resumes from the last one.

Two mechanisms, because neither covers every case alone:
- Linux: prctl(PR_SET_PDEATHSIG, SIGKILL). The kernel kills us when the thread that forked us exits (Node
  spawns from its main thread, so that is the worker process dying). Set after exec, so the parent may
  already be gone: the watchdog's first check covers that race.
- Everywhere: a daemon thread that exits the process when getppid() is no longer the expected parent
  (re-parented to init or a subreaper) or stdin reaches EOF (the parent holds our stdin open while it
  lives). Threads run between torch ops (they release the GIL), so this works in every phase.

The expected parent is PAU_TRAINER_PARENT_PID when the spawner sets it (runTrainerProcess does), else the
parent at start. If it is already gone when the watchdog starts, the trainer exits at once.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from collections.abc import Callable

PR_SET_PDEATHSIG = 1
ORPHAN_EXIT = 137  # what a SIGKILLed process reports: nobody reads it, the parent is gone

PARENT_ENV = "PAU_TRAINER_PARENT_PID"


def expected_parent() -> int:
    raw = os.environ.get(PARENT_ENV, "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 1 else os.getppid()


def set_pdeathsig(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send `sig` when our parent exits; False where unsupported (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _die(reason: str) -> None:
    try:
        sys.stderr.write(f"pau_trainer: {reason}; exiting (the retry resumes from the last complete save)\n")
        sys.stderr.flush()
    except Exception:  # stderr may be a broken pipe now
        pass
    os._exit(ORPHAN_EXIT)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, someone else's
        return True
    return True


def start_watchdog(
    parent: int | None = None,
    *,
    watch_stdin: bool = True,
    interval_s: float = 0.5,
    on_orphan: Callable[[str], None] = _die,
) -> int:
    """Start the watchdog threads; returns the parent pid watched. Calls on_orphan(reason) once.

    Two checks per interval: our own parent changed (we were re-parented: it died), and the expected parent
    (the worker) no longer exists. The second covers a launcher between the worker and us, which pdeathsig
    and getppid() alone would not see through."""
    parent = parent if parent is not None else expected_parent()
    first_ppid = os.getppid()
    fired = threading.Lock()

    def orphaned(reason: str) -> None:
        if fired.acquire(blocking=False):
            on_orphan(reason)

    def poll_parent() -> None:
        while True:
            ppid = os.getppid()
            if ppid != first_ppid:
                orphaned(f"parent {first_ppid} is gone (parent now {ppid})")
                return
            if parent != first_ppid and not pid_alive(parent):
                orphaned(f"worker {parent} is gone")
                return
            time.sleep(interval_s)

    threading.Thread(target=poll_parent, name="parent-watch", daemon=True).start()

    if watch_stdin:

        def read_stdin() -> None:
            try:
                # raw fd reads: a daemon thread blocked in the buffered sys.stdin would abort the interpreter
                # at exit (it holds the buffer's lock)
                while os.read(0, 4096):
                    pass
            except (OSError, ValueError):
                pass
            orphaned("stdin closed: the parent is gone")

        threading.Thread(target=read_stdin, name="stdin-watch", daemon=True).start()
    return parent


def die_with_parent(watch_stdin: bool = True) -> int:
    """pdeathsig + watchdog; returns the parent pid watched."""
    set_pdeathsig(signal.SIGKILL)
    return start_watchdog(watch_stdin=watch_stdin)
