"""One job over several hosts (launch.py, distributed.py), on this one host with gloo on CPU:

- the environment that names the hosts (PAU_TRAINER_NODES / _NODE_RANK / _MASTER / _JOIN_TIMEOUT_S) and the
  torchrun arguments it gives: a static rendezvous at node 0, never --standalone;
- two launchers as two "hosts" (one rank each, 127.0.0.1 as node 0) train one SFT step together: node 0 speaks
  for the job (start event with 2 processes, done event), node 1 says nothing on stdout, both exit 0, and the
  adapter equals the single-process job's (the same global batch);
- a host that never comes: node 0 fails within the join timeout with one line naming the rendezvous;
- a hung peer: a collective fails within PAU_TRAINER_COLLECTIVE_TIMEOUT_S with the trainer's error.
Tiny random Llama (conftest.tiny_smollm2): mechanics, not learning.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from conftest import TRAINER_DIR, marker_spec, run_trainer
from pau_trainer.distributed import CPU_COLLECTIVE_TIMEOUT, CUDA_COLLECTIVE_TIMEOUT, collective_timeout
from pau_trainer.launch import Nodes, resolve_nodes, torchrun_argv
from pau_trainer.protocol import TrainerError


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_hosts_of_a_job_from_the_environment():
    assert resolve_nodes({}) == Nodes()
    assert resolve_nodes({"PAU_TRAINER_NODES": "1"}).count == 1
    two = resolve_nodes(
        {
            "PAU_TRAINER_NODES": "2",
            "PAU_TRAINER_NODE_RANK": "1",
            "PAU_TRAINER_MASTER": "gpu0:29400",
            "PAU_TRAINER_JOIN_TIMEOUT_S": "120",
        }
    )
    assert two == Nodes(count=2, rank=1, master_addr="gpu0", master_port=29400, join_timeout_s=120)
    bad = [
        ({"PAU_TRAINER_NODES": "two"}, "PAU_TRAINER_NODES='two'"),
        ({"PAU_TRAINER_NODES": "2", "PAU_TRAINER_MASTER": "gpu0:29400"}, "set PAU_TRAINER_NODE_RANK"),
        ({"PAU_TRAINER_NODES": "2", "PAU_TRAINER_NODE_RANK": "2", "PAU_TRAINER_MASTER": "gpu0:1"}, "expected 0 to 1"),
        ({"PAU_TRAINER_NODES": "2", "PAU_TRAINER_NODE_RANK": "0"}, "PAU_TRAINER_MASTER=''"),
        ({"PAU_TRAINER_NODES": "2", "PAU_TRAINER_NODE_RANK": "0", "PAU_TRAINER_MASTER": "gpu0"}, "HOST:PORT"),
        ({"PAU_TRAINER_NODES": "2", "PAU_TRAINER_NODE_RANK": "0", "PAU_TRAINER_MASTER": "gpu0:0"}, "HOST:PORT"),
        ({"PAU_TRAINER_JOIN_TIMEOUT_S": "0"}, "PAU_TRAINER_JOIN_TIMEOUT_S"),
    ]
    for environ, message in bad:
        with pytest.raises(TrainerError, match=message.replace("(", r"\(")) as e:
            resolve_nodes(environ)
        assert e.value.code == "invalid_spec"


def test_torchrun_arguments_for_several_hosts():
    one = torchrun_argv(8, ["sft", "--spec", "s.json"])
    assert one[0] == "--standalone" and "--nproc-per-node=8" in one
    argv = torchrun_argv(8, ["sft", "--spec", "s.json"], Nodes(2, 1, "gpu0", 29400, 300), "sft-run-1")
    assert "--standalone" not in argv
    assert argv[:7] == [
        "--nnodes=2",
        "--node-rank=1",
        "--rdzv-backend=static",
        "--master-addr=gpu0",
        "--master-port=29400",
        "--rdzv-id=sft-run-1",
        "--rdzv-conf=timeout=300",
    ]
    assert "--nproc-per-node=8" in argv and "--max-restarts=0" in argv
    assert argv[-5:] == ["-m", "pau_trainer", "sft", "--spec", "s.json"]


def test_collective_timeouts_fail_in_minutes_on_gpus():
    assert collective_timeout(None, cuda=True) == CUDA_COLLECTIVE_TIMEOUT == timedelta(minutes=10)
    assert collective_timeout("", cuda=False) == CPU_COLLECTIVE_TIMEOUT
    assert collective_timeout("90", cuda=True) == timedelta(seconds=90)
    with pytest.raises(TrainerError, match="PAU_TRAINER_COLLECTIVE_TIMEOUT_S"):
        collective_timeout("soon", cuda=True)


def _node(rank: int, port: int, spec_path: Path, extra: dict[str, str] | None = None) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "PAU_TRAINER_THREADS": "1",
        "PAU_TRAINER_PROCESSES": "1",
        "PAU_TRAINER_NODES": "2",
        "PAU_TRAINER_NODE_RANK": str(rank),
        "PAU_TRAINER_MASTER": f"127.0.0.1:{port}",
        **(extra or {}),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "pau_trainer", "sft", "--spec", str(spec_path)],
        cwd=TRAINER_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_two_hosts_train_one_job_through_the_rendezvous(tiny_smollm2, tmp_path):
    # the single-process job on the same global batch: what the two hosts must end equal to
    single = run_trainer(
        "sft", marker_spec(tiny_smollm2, tmp_path / "one", batch_size=2, max_steps=1), tmp_path / "one.json"
    )
    assert single.rc == 0, single.stderr[-3000:]

    spec_path = tmp_path / "spec.json"  # one spec and one output_dir (shared storage on real hosts)
    spec_path.write_text(json.dumps(marker_spec(tiny_smollm2, tmp_path / "sft-two-hosts", batch_size=2, max_steps=1)))
    port = _free_port()
    t0 = time.monotonic()
    nodes = [_node(0, port, spec_path), _node(1, port, spec_path)]
    outs = [p.communicate(timeout=600) for p in nodes]
    wall = time.monotonic() - t0
    for p, (_, err) in zip(nodes, outs, strict=True):
        assert p.returncode == 0, err[-3000:]
    events = [json.loads(line) for line in outs[0][0].splitlines()]
    start = next(e for e in events if e["type"] == "start")
    done = next(e for e in events if e["type"] == "done")
    assert start["processes"] == 2 and start["dtype"] == "float32"
    assert outs[1][0].strip() == ""  # node 1's rank is not rank 0: the job speaks once
    a = load_file(str(Path(single.of("done")[0]["adapter"])))
    b = load_file(str(Path(done["adapter"])))
    assert a.keys() == b.keys()
    worst = max(float((a[k] - b[k]).abs().max()) for k in a)
    assert worst <= 1e-5, worst
    print(f"2 hosts x 1 rank: {wall:.1f} s wall; adapter max |diff| vs 1 process {worst:.1e}")


def test_a_host_that_never_joins_fails_the_job_within_the_join_timeout(tiny_smollm2, tmp_path):
    spec_path = tmp_path / "spec.json"
    spec_path.write_text(json.dumps(marker_spec(tiny_smollm2, tmp_path / "alone", batch_size=2, max_steps=1)))
    port = _free_port()
    t0 = time.monotonic()
    p = _node(0, port, spec_path, {"PAU_TRAINER_JOIN_TIMEOUT_S": "5"})
    out, err = p.communicate(timeout=300)
    waited = time.monotonic() - t0
    assert p.returncode == 1, err[-3000:]
    errors = [e for e in map(json.loads, out.splitlines()) if e["type"] == "error"]
    assert len(errors) == 1 and errors[0]["code"] == "internal"
    assert errors[0]["message"].startswith(
        f"node 0 of 2: the hosts of job alone did not all join the rendezvous at 127.0.0.1:{port} within 5 s"
    ), errors[0]["message"]
    assert waited < 120, waited


def test_a_hung_peer_fails_a_collective_within_the_timeout(tmp_path):
    port = _free_port()
    env = {
        **os.environ,
        "WORLD_SIZE": "2",
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(port),
        "PAU_TRAINER_COLLECTIVE_TIMEOUT_S": "3",
        "PYTHONPATH": str(TRAINER_DIR),
    }
    script = str(TRAINER_DIR / "tests" / "dist_hang.py")
    procs = [
        subprocess.Popen(
            [sys.executable, script, "20"],
            cwd=TRAINER_DIR,
            env={**env, "RANK": str(r), "LOCAL_RANK": "0"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for r in (0, 1)
    ]
    out0, err0 = procs[0].communicate(timeout=120)
    procs[1].kill()
    procs[1].communicate()
    got = json.loads(out0.strip().splitlines()[-1]) if out0.strip() else {"stderr": err0[-2000:]}
    assert got.get("code") == "internal", got
    assert got["message"].startswith(
        "rank 0 of 2: an all-reduce (the step boundary's stop decision) got no answer from a peer rank within 3 s"
    )
    assert got["waited_s"] < 30
    assert torch.distributed.is_available()


def test_the_default_mini_batch_is_a_multiple_of_the_ranks():
    from pau_trainer.grpo import default_mini_batch, sized_to_ranks
    from pau_trainer.protocol import parse_spec

    assert [default_mini_batch(w) for w in (1, 2, 3, 4, 5, 8, 16)] == [4, 4, 6, 4, 5, 8, 16]
    spec = parse_spec("grpo-update", {"base_model": "b.gguf", "rollouts": "r.jsonl", "output_dir": "o"})
    assert spec.mini_batch_size == 4
    assert sized_to_ranks(spec, 8, given=False).mini_batch_size == 8
    given = parse_spec(
        "grpo-update", {"base_model": "b.gguf", "rollouts": "r.jsonl", "output_dir": "o", "mini_batch_size": 4}
    )
    assert sized_to_ranks(given, 8, given=True).mini_batch_size == 4  # a job's own choice is kept


def test_a_peer_joins_what_node_0_announces_once_per_attempt(tmp_path):
    from pau_trainer.peer import announce, pending

    jobs = tmp_path / "jobs"
    nodes = Nodes(2, 1, "gpu0", 29400, join_timeout_s=600)
    assert pending(jobs, nodes) == []
    first = announce("sft", str(tmp_path / "s.json"), str(jobs / "sft-a"), "sft-a")
    assert first["spec"] == str((tmp_path / "s.json").resolve())
    assert [e["job_id"] for e in pending(jobs, nodes)] == ["sft-a"]
    (jobs / ".peers" / "sft-a.node1").write_text(first["attempt"] + "\n")  # run by node 1
    assert pending(jobs, nodes) == []
    assert [e["job_id"] for e in pending(jobs, Nodes(3, 2, "gpu0", 29400))] == ["sft-a"]  # node 2 has not
    retry = announce("sft", str(tmp_path / "s.json"), str(jobs / "sft-a"), "sft-a")  # the activity's retry
    assert [e["attempt"] for e in pending(jobs, nodes)] == [retry["attempt"]]
    assert pending(jobs, nodes, now=retry["created"] + 601) == []  # node 0 gave up on it by then


def test_a_peer_host_trains_the_job_node_0_starts(tiny_smollm2, tmp_path):
    jobs = tmp_path / "jobs"
    job = jobs / "sft-peer"
    job.mkdir(parents=True)
    spec_path = job / "spec.json"
    spec_path.write_text(json.dumps(marker_spec(tiny_smollm2, job, batch_size=2, max_steps=1)))
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(TRAINER_DIR),
        "PAU_TRAINER_THREADS": "1",
        "PAU_TRAINER_PROCESSES": "1",
        "PAU_TRAINER_NODES": "2",
        "PAU_TRAINER_NODE_RANK": "1",
        "PAU_TRAINER_MASTER": f"127.0.0.1:{port}",
        "PAU_TRAINER_JOBS_DIR": str(jobs),
    }
    peer = subprocess.Popen(
        [sys.executable, "-m", "pau_trainer.peer"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        node0 = _node(0, port, spec_path)
        out, err = node0.communicate(timeout=600)
        assert node0.returncode == 0, err[-3000:]
        events = [json.loads(line) for line in out.splitlines()]
        assert next(e for e in events if e["type"] == "start")["processes"] == 2
        assert any(e["type"] == "done" for e in events)
        deadline = time.monotonic() + 120
        marker = jobs / ".peers" / "sft-peer.node1"
        while time.monotonic() < deadline and not marker.is_file():
            time.sleep(0.2)
        assert marker.is_file()
    finally:
        peer.send_signal(__import__("signal").SIGTERM)
        pout, perr = peer.communicate(timeout=120)
    assert peer.returncode == 0, perr[-3000:]
    lines = pout.strip().splitlines()
    assert lines[0] == f"pau_trainer.peer: node 1 of 2, watching {jobs / '.peers'}"
    assert (
        len(lines) == 2 and lines[1].startswith("pau_trainer.peer: job sft-peer attempt ") and ": exit 0 (" in lines[1]
    ), lines


def test_a_peer_needs_the_hosts_variables(tmp_path):
    base = {k: v for k, v in os.environ.items() if not k.startswith("PAU_TRAINER_")}
    for extra, message in (
        ({}, "PAU_TRAINER_JOBS_DIR"),
        ({"PAU_TRAINER_JOBS_DIR": str(tmp_path)}, "a peer is a host of rank 1 or more"),
        (
            {
                "PAU_TRAINER_JOBS_DIR": str(tmp_path),
                "PAU_TRAINER_NODES": "2",
                "PAU_TRAINER_NODE_RANK": "0",
                "PAU_TRAINER_MASTER": "h:1",
            },
            "a peer is a host of rank 1 or more",
        ),
    ):
        p = subprocess.run(
            [sys.executable, "-m", "pau_trainer.peer"],
            cwd=TRAINER_DIR,
            env={**base, **extra},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert p.returncode == 2 and message in p.stderr, (extra, p.stderr)
