"""Per-call resource limits and file-descriptor hygiene, applied in the call's child before untrusted code.

The wall-clock deadline is NOT enforced here: the batch process watches the child and SIGKILLs it (a
timer signal inside the child misses C-level loops such as `sum(range(10**11))`). RLIMIT_CPU is only a
backstop in case the watcher itself is stalled.
"""
import fcntl
import math
import os
import resource
import signal
import sys
from dataclasses import dataclass

MIB = 1024 * 1024
RESULT_FD = 3  # the child's result pipe is moved here; everything above is closed


@dataclass(frozen=True)
class Limits:
    timeout_ms: int = 2000
    memory_mb: int = 512
    stdout_bytes: int = 65536
    recursion_limit: int = 1000
    result_bytes: int = 1_000_000
    file_bytes: int = 16 * MIB  # largest file a call may write into its scratch directory

    @staticmethod
    def from_json(d):
        d = d or {}
        return Limits(
            timeout_ms=int(d.get('timeoutMs', 2000)),
            memory_mb=int(d.get('memoryMb', 512)),
            stdout_bytes=int(d.get('stdoutBytes', 65536)),
            recursion_limit=int(d.get('recursionLimit', 1000)),
            result_bytes=int(d.get('resultBytes', 1_000_000)),
        )


def _set(res, value):
    try:
        resource.setrlimit(res, (value, value))
    except (ValueError, OSError):
        # Cannot raise above an existing hard limit; keep whichever is lower.
        soft, hard = resource.getrlimit(res)
        resource.setrlimit(res, (min(value, hard), hard))


def apply_address_space(limits):
    """Cap the address space (makes large allocations raise MemoryError instead of swapping the host)."""
    _set(resource.RLIMIT_AS, limits.memory_mb * MIB)


def apply_call_limits(limits):
    apply_address_space(limits)
    cpu = math.ceil(limits.timeout_ms / 1000) + 1
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    except (ValueError, OSError):
        pass
    _set(resource.RLIMIT_FSIZE, limits.file_bytes)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # over-size writes fail with EFBIG, not a dead child
    _set(resource.RLIMIT_CORE, 0)
    _set(resource.RLIMIT_NOFILE, 64)
    sys.setrecursionlimit(limits.recursion_limit)
    # Big ints must print (they are part of the value contract); the time limit bounds the cost.
    sys.set_int_max_str_digits(0)


def isolate_fds(stdout_fd, result_fd, devnull_fd, job_fd, job_target):
    """stdin <- /dev/null, stdout <- capture pipe, stderr <- /dev/null, result pipe -> fd 3, job pipe ->
    `job_target` (4); every other descriptor is closed.

    The executor's protocol pipes (its own stdin/stdout) are replaced here, so the untrusted code cannot
    write into the protocol or read the next request.
    """
    # Move the two pipes we keep above every fd we are about to overwrite, then into place.
    high_result = fcntl.fcntl(result_fd, fcntl.F_DUPFD, 16)
    high_job = fcntl.fcntl(job_fd, fcntl.F_DUPFD, 16)
    os.dup2(devnull_fd, 0)
    os.dup2(stdout_fd, 1)
    os.dup2(devnull_fd, 2)
    os.dup2(high_result, RESULT_FD)
    os.dup2(high_job, job_target)
    os.closerange(job_target + 1, 1 << 16)
