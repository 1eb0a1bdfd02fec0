"""Cancellation: SIGTERM/SIGINT set a flag that the training loop checks between steps (a step is never
cut in half); the job then saves and raises Cancelled, and the CLI exits with ExitCode.CANCELLED.
Installed first thing in the CLI, before the slow imports, so an early SIGTERM is a clean cancel too."""

from __future__ import annotations

import signal
import threading

from .protocol import ExitCode


class Cancel:
    def __init__(self) -> None:
        self._event = threading.Event()

    def install(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self._event.set())

    def set(self) -> None:
        self._event.set()

    @property
    def requested(self) -> bool:
        return self._event.is_set()


class Cancelled(Exception):
    exit_code = ExitCode.CANCELLED
