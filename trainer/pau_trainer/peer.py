"""The other hosts of a job over several hosts: `python -m pau_trainer.peer` on every host but node 0.

Node 0's `pau-gpu` activity starts each job (launch.py: a static rendezvous at PAU_TRAINER_MASTER). Before its
launch, node 0 announces the job in the shared jobs directory: <jobs dir>/.peers/<job id>.json = {command, spec,
job_id, attempt, created}. A peer polls that directory and runs every announced attempt it has not run yet as
`python -m pau_trainer <command> --spec <spec>` with its own PAU_TRAINER_NODE_RANK, so it joins that
attempt's rendezvous; a retried job is a new attempt and is joined again. An announcement older than the join
timeout is not joined (node 0 has given up on it by then). What a peer ran is recorded in
<job id>.node<rank> (the attempt), so a restarted peer does not rerun it. One line per job on stdout.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .launch import ENV_NODE_RANK, Nodes, resolve_nodes
from .protocol import TrainerError

PEERS_DIR = ".peers"
POLL_S = 1.0


def announcements_dir(jobs_dir: Path) -> Path:
    return jobs_dir / PEERS_DIR


def announce(command: str, spec_path: str, output_dir: str, job_id: str) -> dict[str, Any]:
    """Node 0, before its launch: tell the peers to join this attempt of the job (written atomically)."""
    d = announcements_dir(Path(output_dir).resolve().parent)
    d.mkdir(parents=True, exist_ok=True)
    entry = {
        "command": command,
        "spec": str(Path(spec_path).resolve()),
        "job_id": job_id,
        "attempt": f"{os.getpid()}-{time.time_ns()}",
        "created": time.time(),
    }
    tmp = d / f".{job_id}.json.tmp-{os.getpid()}"
    tmp.write_text(json.dumps(entry))
    os.replace(tmp, d / f"{job_id}.json")
    return entry


def pending(jobs_dir: Path, nodes: Nodes, now: float | None = None) -> list[dict[str, Any]]:
    """The announced attempts this node has not run, not older than the join timeout, oldest first."""
    d = announcements_dir(jobs_dir)
    if not d.is_dir():
        return []
    now = time.time() if now is None else now
    out = []
    for f in sorted(d.glob("*.json")):
        try:
            entry = json.loads(f.read_text())
        except (OSError, ValueError):
            continue  # being replaced
        marker = d / f"{entry.get('job_id')}.node{nodes.rank}"
        if marker.is_file() and marker.read_text().strip() == entry.get("attempt"):
            continue
        if now - float(entry.get("created", 0)) > nodes.join_timeout_s:
            continue
        out.append(entry)
    return sorted(out, key=lambda e: float(e["created"]))


def run_attempt(jobs_dir: Path, nodes: Nodes, entry: dict[str, Any]) -> int:
    """Join one attempt: the trainer's own CLI with this node's rank; records it as run whatever its exit code."""
    marker = announcements_dir(jobs_dir) / f"{entry['job_id']}.node{nodes.rank}"
    marker.write_text(str(entry["attempt"]) + "\n")
    pkg_root = str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (pkg_root, os.environ.get("PYTHONPATH", "")) if p)}
    p = subprocess.Popen(
        [sys.executable, "-m", "pau_trainer", str(entry["command"]), "--spec", str(entry["spec"])],
        env=env,
        stdout=subprocess.DEVNULL,  # a rank other than 0 prints no events
    )
    _child[0] = p
    try:
        return p.wait()
    finally:
        _child[0] = None


_child: list[subprocess.Popen[bytes] | None] = [None]


def main() -> int:
    raw = os.environ.get("PAU_TRAINER_JOBS_DIR", "").strip()
    try:
        if not raw:
            raise TrainerError("invalid_spec", "PAU_TRAINER_JOBS_DIR: the jobs directory node 0 shares with this host")
        nodes = resolve_nodes(os.environ)
        if nodes.count < 2 or nodes.rank == 0:
            raise TrainerError(
                "invalid_spec", f"a peer is a host of rank 1 or more: set PAU_TRAINER_NODES >= 2 and {ENV_NODE_RANK}"
            )
    except TrainerError as e:
        print(f"pau_trainer.peer: {e.message}", file=sys.stderr)
        return 2
    jobs_dir = Path(raw).resolve()
    stop = [False]

    def on_signal(signum: int, _frame: object) -> None:
        stop[0] = True
        child = _child[0]
        if child is not None and child.poll() is None:
            child.send_signal(signum)  # the job saves and stops with the other hosts

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    print(f"pau_trainer.peer: node {nodes.rank} of {nodes.count}, watching {announcements_dir(jobs_dir)}", flush=True)
    while not stop[0]:
        for entry in pending(jobs_dir, nodes):
            if stop[0]:
                break
            t0 = time.monotonic()
            rc = run_attempt(jobs_dir, nodes, entry)
            print(
                f"pau_trainer.peer: job {entry['job_id']} attempt {entry['attempt']}: exit {rc} "
                f"({time.monotonic() - t0:.1f} s)",
                flush=True,
            )
        time.sleep(POLL_S)
    return 0


if __name__ == "__main__":
    sys.exit(main())
