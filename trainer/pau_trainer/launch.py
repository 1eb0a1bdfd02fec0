"""Starting one job as N processes: the CLI re-runs itself under torchrun (torch.distributed.run, in this
process), and this process stays the job's one face to the worker: same stdin, same stdout (rank 0's
events), same exit codes, same SIGTERM = save and stop.

    worker (node) -> python -m pau_trainer CMD --spec F --watch-stdin      (this process: torchrun's agent)
                       -> N x python -m pau_trainer CMD --spec F --watch-stdin   (ranks, RANK/WORLD_SIZE set)

N comes from PAU_TRAINER_PROCESSES: a positive integer, or "auto" (the default): the number of visible CUDA
devices when the job runs on CUDA, else 1. N = 1 on one host runs the job in this process, without torchrun.

Several hosts (PAU_TRAINER_NODES=K > 1): every host runs this same command on the same spec (the job directory
on shared storage) with its own PAU_TRAINER_NODE_RANK (0 = the host whose pau-gpu activity reads the events)
and the same PAU_TRAINER_MASTER=HOST0:PORT; torchrun's static rendezvous on node 0's TCP store joins them, the
job id (the output directory's name) as rendezvous id, so a host started on another job never joins this one.
A host that does not join within PAU_TRAINER_JOIN_TIMEOUT_S (default 600) fails the job with one line saying
which hosts were awaited (exit 1, retryable). One host keeps `--standalone` (a private rendezvous on a free port).

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
from dataclasses import dataclass
from pathlib import Path

from .distributed import ENV_PROCESSES
from .protocol import TrainerError

ENV_NODES = "PAU_TRAINER_NODES"
ENV_NODE_RANK = "PAU_TRAINER_NODE_RANK"
ENV_MASTER = "PAU_TRAINER_MASTER"
ENV_JOIN_TIMEOUT = "PAU_TRAINER_JOIN_TIMEOUT_S"
DEFAULT_JOIN_TIMEOUT_S = 600


@dataclass(frozen=True)
class Nodes:
    """The hosts of one job: how many, which one this is, node 0's rendezvous address, the join timeout."""

    count: int = 1
    rank: int = 0
    master_addr: str = ""
    master_port: int = 0
    join_timeout_s: int = DEFAULT_JOIN_TIMEOUT_S


def _positive(name: str, raw: str, zero: bool = False) -> int:
    value = raw.strip()
    if not value.isdigit() or (int(value) < 1 and not zero):
        raise TrainerError(
            "invalid_spec", f"{name}={raw!r}: expected a {'non-negative' if zero else 'positive'} integer"
        )
    return int(value)


def resolve_nodes(environ: dict[str, str] | os._Environ[str]) -> Nodes:
    """PAU_TRAINER_NODES / _NODE_RANK / _MASTER / _JOIN_TIMEOUT_S -> Nodes; one host when PAU_TRAINER_NODES is unset or 1."""
    count = _positive(ENV_NODES, environ[ENV_NODES]) if environ.get(ENV_NODES, "").strip() else 1
    timeout = (
        _positive(ENV_JOIN_TIMEOUT, environ[ENV_JOIN_TIMEOUT])
        if environ.get(ENV_JOIN_TIMEOUT, "").strip()
        else DEFAULT_JOIN_TIMEOUT_S
    )
    if count == 1:
        return Nodes(join_timeout_s=timeout)
    if not environ.get(ENV_NODE_RANK, "").strip():
        raise TrainerError("invalid_spec", f"{ENV_NODES}={count}: set {ENV_NODE_RANK} (0 to {count - 1}) on each host")
    rank = _positive(ENV_NODE_RANK, environ[ENV_NODE_RANK], zero=True)
    if rank >= count:
        raise TrainerError("invalid_spec", f"{ENV_NODE_RANK}={rank}: expected 0 to {count - 1} ({ENV_NODES}={count})")
    master = environ.get(ENV_MASTER, "").strip()
    host, sep, port = master.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise TrainerError(
            "invalid_spec",
            f"{ENV_MASTER}={master!r}: expected HOST:PORT of node 0 (the same on every host), e.g. gpu0:29400",
        )
    return Nodes(count=count, rank=rank, master_addr=host.strip("[]"), master_port=int(port), join_timeout_s=timeout)


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


def torchrun_argv(n: int, job_argv: list[str], nodes: Nodes | None = None, job_id: str = "job") -> list[str]:
    """torchrun's arguments for N ranks on this host running `python -m pau_trainer <job_argv>`; with several
    hosts, this host's part of a static rendezvous at node 0 (the same on every host but --node-rank)."""
    nodes = nodes or Nodes()
    rendezvous = (
        [
            f"--nnodes={nodes.count}",
            f"--node-rank={nodes.rank}",
            "--rdzv-backend=static",
            f"--master-addr={nodes.master_addr}",
            f"--master-port={nodes.master_port}",
            f"--rdzv-id={job_id}",
            f"--rdzv-conf=timeout={nodes.join_timeout_s}",
        ]
        if nodes.count > 1
        else ["--standalone"]  # a private rendezvous on a free local port: jobs on one host never collide
    )
    return [
        *rendezvous,
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


def rendezvous_failure(nodes: Nodes, job_id: str, error: BaseException) -> TrainerError:
    """The one line a host prints when the hosts of a job did not all join in time (or node 0 is unreachable)."""
    where = f"{nodes.master_addr}:{nodes.master_port}"
    return TrainerError(
        "internal",
        f"node {nodes.rank} of {nodes.count}: the hosts of job {job_id} did not all join the rendezvous at {where} "
        f"within {nodes.join_timeout_s} s ({ENV_JOIN_TIMEOUT}): start the same job on every host with "
        f"{ENV_NODES}={nodes.count}, its own {ENV_NODE_RANK} and {ENV_MASTER}={where}, and check that node 0's port "
        f"is reachable (docs/scale.md). {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}",
    )


def launch(
    n: int, job_argv: list[str], cancelled: bool = False, nodes: Nodes | None = None, job_id: str = "job"
) -> int:
    """Run the job as N ranks under torchrun (on this host; with `nodes`, this host's part of a job over
    several hosts); returns the job's exit code. `cancelled`: a SIGTERM arrived before the launch (the ranks
    are told as soon as they run)."""
    nodes = nodes or Nodes()
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
        run(parse_args(torchrun_argv(n, job_argv, nodes, job_id)))
    except ChildFailedError as e:
        return exit_code_of({int(rank): int(f.exitcode) for rank, f in e.failures.items()})
    except Exception as e:  # the rendezvous: a host that never came, node 0's store unreachable
        if nodes.count > 1:
            raise rendezvous_failure(nodes, job_id, e) from e
        raise
    finally:
        sys.stderr.flush()
    return 0
