"""Cancellation: SIGTERM/SIGINT set a flag that the training loop checks between steps (a step is never
cut in half); the job then saves and raises Cancelled, and the CLI exits with ExitCode.CANCELLED.
Installed first thing in the CLI, before the slow imports, so an early SIGTERM is a clean cancel too."""

from __future__ import annotations

import os
import signal
import threading

from .protocol import ExitCode


class Cancel:
    def __init__(self) -> None:
        self._event = threading.Event()

    def install(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self._event.set())

    def watch_stdin(self) -> None:
        """The parent holds our stdin open; EOF means it died (kill -9 of a worker), so stop like SIGTERM."""

        def watch() -> None:
            try:
                # raw fd reads: a daemon thread blocked in the buffered sys.stdin would abort the interpreter
                # at exit (it holds the buffer's lock)
                while os.read(0, 4096):
                    pass
            except (OSError, ValueError):
                pass
            self._event.set()

        threading.Thread(target=watch, name="stdin-watch", daemon=True).start()

    def set(self) -> None:
        self._event.set()

    @property
    def requested(self) -> bool:
        return self._event.is_set()


class Cancelled(Exception):
    exit_code = ExitCode.CANCELLED
