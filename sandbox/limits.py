"""Per-call resource limits and file-descriptor hygiene for the call's child, applied before any untrusted
code runs.

The rlimits are set by the executor from outside (prlimit on the waiting child: no work, no page faults
in the child), once when the spare is forked and again only if the next job asks for other limits. The
recursion limit is per interpreter, so the child sets it itself from its job.
The wall-clock deadline is NOT enforced here: the executor watches the child and SIGKILLs it (a timer
signal inside the child misses C-level loops such as `sum(range(10**11))`). RLIMIT_CPU is only a
backstop in case the watcher itself is stalled.
"""

import fcntl
import os
import resource
from dataclasses import dataclass

MIB = 1024 * 1024
RESULT_FD = 3  # the child's result pipe is moved here; everything above the job pipe is closed
FILE_BYTES = 16 * MIB  # largest file a call may write into its scratch directory
OPEN_FILES = 64


@dataclass(frozen=True)
class Limits:
    """What the child itself needs from its job's limits (the executor handles the rest)."""

    recursion_limit: int = 1000
    result_bytes: int = 1_000_000

    @staticmethod
    def from_json(d):
        d = d if isinstance(d, dict) else {}
        return Limits(
            recursion_limit=int(d.get("recursionLimit", 1000)), result_bytes=int(d.get("resultBytes", 1_000_000))
        )


def rlimits(memory_mb, cpu_seconds):
    """(resource, (soft, hard)) pairs for one call's process. Soft == hard so that nothing can raise them
    even without the syscall filter; RLIMIT_CPU keeps one second between SIGXCPU and SIGKILL."""
    return (
        (resource.RLIMIT_AS, (memory_mb * MIB, memory_mb * MIB)),
        (resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1)),
        (resource.RLIMIT_FSIZE, (FILE_BYTES, FILE_BYTES)),
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES)),
    )


def apply_rlimits(pid, pairs, ceilings):
    """Set the limits of process `pid` (0: this process), each capped by the caller's own hard limit
    (`ceilings`, resource -> hard): an unprivileged process cannot hand out more than it has."""
    for res, (soft, hard) in pairs:
        cap = ceilings.get(res, resource.RLIM_INFINITY)
        if cap != resource.RLIM_INFINITY:
            soft, hard = min(soft, cap), min(hard, cap)
        resource.prlimit(pid, res, (soft, hard))


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
