"""The python half of `npm run bench:peer` (harness/bench/peer.ts), two subcommands:

  measure -- CMD...   runs CMD as a child-subreaper (daemons it starts, such as Postgres via pg_ctl, stay
                      its descendants) and, between the lines `@@peer start` and `@@peer end` that CMD
                      prints, measures the CPU time of all its descendants (live ones from /proc, exited
                      ones through getrusage(RUSAGE_CHILDREN)) and their memory: the peak of their summed
                      RSS (sampled every 50 ms) and of their summed PSS (every 0.25 s or more, see Memory),
                      and per part of the stack (PART_RULES: Temporal, Postgres, sandbox, Node, ...) each
                      part's own peaks and its PSS at the moment the summed PSS peaked. Ends with one line
                      `@@peer measured {json}`.
  inspect --items F --calls K --max-samples M
                      the inspect_ai side: one sample per item, the react() agent with a `call_method`
                      tool that runs `python3 -c` per call in inspect's `local` sandbox, a scripted mockllm
                      that calls the method on the item's probe inputs K times (cycling), then submits.
                      Prints `@@peer start`, `@@peer end` and `@@peer result {json}`.
Only the benchmark's own virtualenv runs the `inspect` subcommand (inspect_ai is not a project dependency).
"""

import ctypes
import json
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import NamedTuple

PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")


# The parts of a stack, for the memory breakdown: a process belongs to the first part whose rule matches
# its own name (comm) and command line, else to its parent's part (a forked call child is its
# executor's, a Postgres backend its postmaster's), else to "other".
PART_RULES: tuple[tuple[str, Callable[[str, list[str]], bool]], ...] = (
    ("temporal", lambda comm, argv: comm == "temporal"),
    ("postgres", lambda comm, argv: comm in ("postgres", "pg_ctl")),
    ("sandbox", lambda comm, argv: comm == "bwrap" or any(a.endswith("/executor.py") for a in argv[:4])),
    ("tsx launcher", lambda comm, argv: any(a.endswith(("/.bin/tsx", "/tsx/dist/cli.mjs")) for a in argv[:2])),
    ("esbuild", lambda comm, argv: comm == "esbuild"),
    ("node", lambda comm, argv: comm == "node"),
    ("inspect_ai", lambda comm, argv: any(a.endswith("peer_harness.py") for a in argv[:2]) and "inspect" in argv),
    ("tool calls", lambda comm, argv: comm.startswith("python") and argv[1:2] == ["-c"]),
)


def part_of(comm: str, argv: list[str], parent_part: str | None) -> str:
    for name, rule in PART_RULES:
        if rule(comm, argv):
            return name
    return parent_part or "other"


class Proc(NamedTuple):
    ppid: int
    comm: str
    cpu_s: float  # self + reaped children
    rss: int


def read_proc(pid: int) -> Proc | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            head, tail = f.read().rsplit(")", 1)
        with open(f"/proc/{pid}/statm") as f:
            rss = int(f.read().split()[1]) * PAGE
        fields = tail.split()
        # fields[0] is the state (field 3): ppid is field 4; utime, stime, cutime, cstime are fields 14-17.
        return Proc(int(fields[1]), head.split("(", 1)[1], sum(int(x) for x in fields[11:15]) / TICK, rss)
    except (OSError, IndexError, ValueError):
        return None


def read_pss(pid: int) -> int | None:
    """Proportional set size: each shared page split among the processes mapping it (forks, shared buffers)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def read_argv(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


class Tree:
    """The live descendants of one process, each with its part (command lines read once per process and name)."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.argv: dict[tuple[int, str], list[str]] = {}

    def snapshot(self) -> dict[int, tuple[Proc, str]]:
        procs: dict[int, Proc] = {}
        for name in os.listdir("/proc"):
            if name.isdigit() and (p := read_proc(int(name))):
                procs[int(name)] = p
        children: dict[int, list[int]] = {}
        for pid, p in procs.items():
            children.setdefault(p.ppid, []).append(pid)
        out: dict[int, tuple[Proc, str]] = {}
        todo: list[tuple[int, str | None]] = [(c, None) for c in children.get(self.root, [])]
        while todo:
            pid, parent_part = todo.pop()
            p = procs[pid]
            key = (pid, p.comm)
            if key not in self.argv:
                self.argv[key] = read_argv(pid)
            part = part_of(p.comm, self.argv[key], parent_part)
            out[pid] = (p, part)
            todo.extend((c, part) for c in children.get(pid, []))
        return out


class Memory:
    """Peaks of a process tree's memory, in total and per part. RSS every tick; PSS (smaps_rollup, far
    dearer to read) at most every 0.25 s and at most ~10% of one core, so it can miss a spike shorter than
    its interval."""

    def __init__(self) -> None:
        self.peak_rss = 0
        self.peak_pss = 0
        self.parts: dict[str, dict[str, int]] = {}
        self.pss_samples = 0
        self.pss_time = 0.0
        self.next_pss = 0.0

    def part(self, name: str) -> dict[str, int]:
        return self.parts.setdefault(name, {"peakRssBytes": 0, "peakPssBytes": 0, "pssAtPeakBytes": 0, "processes": 0})

    def add(self, snap: dict[int, tuple[Proc, str]], force_pss: bool = False) -> None:
        rss: dict[str, int] = {}
        count: dict[str, int] = {}
        for p, part in snap.values():
            rss[part] = rss.get(part, 0) + p.rss
            count[part] = count.get(part, 0) + 1
        self.peak_rss = max(self.peak_rss, sum(rss.values()))
        for name in rss:
            m = self.part(name)
            m["peakRssBytes"] = max(m["peakRssBytes"], rss[name])
            m["processes"] = max(m["processes"], count[name])
        t0 = time.monotonic()
        if not force_pss and t0 < self.next_pss:
            return
        pss: dict[str, int] = {}
        for pid, (p, part) in snap.items():
            # A process gone since the snapshot, or one whose smaps we may not read: its RSS (an upper bound).
            own = read_pss(pid)
            pss[part] = pss.get(part, 0) + (p.rss if own is None else own)
        took = time.monotonic() - t0
        self.pss_samples += 1
        self.pss_time += took
        self.next_pss = t0 + max(0.25, 10 * took)
        for name in pss:
            m = self.part(name)
            m["peakPssBytes"] = max(m["peakPssBytes"], pss[name])
        if sum(pss.values()) >= self.peak_pss:
            self.peak_pss = sum(pss.values())
            for name, m in self.parts.items():
                m["pssAtPeakBytes"] = pss.get(name, 0)

    def figures(self) -> dict[str, object]:
        return {
            "peakRssBytes": self.peak_rss,
            "peakPssBytes": self.peak_pss,
            "pssSamples": self.pss_samples,
            "pssSampleS": self.pss_time / max(1, self.pss_samples),
            "parts": self.parts,
        }


def tree_cpu(snap: dict[int, tuple[Proc, str]]) -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime + sum(p.cpu_s for p, _ in snap.values())


def measure(cmd: list[str]) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1)
    tree = Tree(os.getpid())
    memory = Memory()
    lock = threading.Lock()
    state: dict[str, object] = {"phase": "before", "start": None, "end": None}

    def sampler() -> None:
        while child.poll() is None:
            with lock:
                if state["phase"] == "during":
                    memory.add(tree.snapshot())
            time.sleep(0.05)

    threading.Thread(target=sampler, daemon=True).start()
    assert child.stdout is not None
    for line in child.stdout:
        if line.startswith("@@peer start"):
            with lock:
                snap = tree.snapshot()
                memory.add(snap, force_pss=True)
                state.update(phase="during", start=(time.monotonic(), tree_cpu(snap)))
        elif line.startswith("@@peer end"):
            with lock:
                snap = tree.snapshot()
                memory.add(snap, force_pss=True)
                state.update(phase="after", end=(time.monotonic(), tree_cpu(snap)))
        sys.stdout.write(line)
        sys.stdout.flush()
    code = child.wait()
    # Reap what was reparented to us (daemons stopped by CMD).
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass
    if state["start"] and state["end"]:
        (t0, c0), (t1, c1) = state["start"], state["end"]  # type: ignore[misc]
        print("@@peer measured " + json.dumps({"wallS": t1 - t0, "cpuS": c1 - c0, **memory.figures()}), flush=True)
    return code


def inspect_run(items_file: str, calls: int, max_samples: int) -> None:
    from inspect_ai import Task, eval
    from inspect_ai.agent import as_solver, react
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import solver
    from inspect_ai.tool import tool
    from inspect_ai.util import sandbox, store

    with open(items_file) as f:
        items = json.load(f)

    @tool
    def call_method():
        async def execute(arguments: str) -> str:
            """Call the method once.

            Args:
              arguments: the call's arguments as Python source, e.g. `1, 2`.
            """
            code, entry = store().get("code"), store().get("entry")
            script = f"{code}\nprint(repr({entry}({arguments})))"
            r = await sandbox().exec(["python3", "-c", script], timeout=10)
            return r.stdout.strip() if r.success else f"error: {r.stderr.strip()[-500:]}"

        return execute

    @solver
    def load_method():
        async def solve(state, generate):
            store().set("code", state.metadata["code"])
            store().set("entry", state.metadata["entry"])
            return state

        return solve

    def scripted(messages, tools, tool_choice, config) -> ModelOutput:
        observed = sum(1 for m in messages if m.role == "tool")
        probes = json.loads(next(m for m in messages if m.role == "user").text.split("PROBES: ", 1)[1])
        if observed < calls:
            out = ModelOutput.for_tool_call(
                "mockllm/model",
                "call_method",
                {"arguments": probes[observed % len(probes)]},
                content=f"Call {observed + 1}.",
            )
        else:
            out = ModelOutput.for_tool_call(
                "mockllm/model", "submit", {"answer": "It returns a linear function of its inputs."}
            )
        # Usage given: mockllm would otherwise count tokens with tiktoken, which downloads its tables.
        out.usage = ModelUsage(input_tokens=10 * len(messages), output_tokens=10, total_tokens=10 * len(messages) + 10)
        return out

    task = Task(
        dataset=[
            Sample(
                id=it["id"],
                input=f"Find out what the method does.\nPROBES: {json.dumps(it['probes'])}",
                metadata={"code": it["code"], "entry": it["entry"]},
            )
            for it in items
        ],
        solver=[load_method(), as_solver(react(tools=[call_method()]))],
        sandbox="local",
    )
    model = get_model("mockllm/model", custom_outputs=scripted)
    print("@@peer start", flush=True)
    t0 = time.monotonic()
    [log] = eval(
        task,
        model=model,
        max_samples=max_samples,
        display="none",
        log_dir=os.environ.get("PEER_LOG_DIR", "/tmp/peer-inspect-logs"),
        score=False,
    )
    wall = time.monotonic() - t0
    print("@@peer end", flush=True)
    samples = log.samples or []
    done = sum(1 for s in samples if not s.error)
    tool_calls = sum(1 for s in samples for m in s.messages if m.role == "tool")
    print(
        "@@peer result "
        + json.dumps(
            {
                "status": log.status,
                "episodes": done,
                "failed": len(samples) - done,
                "toolResults": tool_calls,
                "wallS": wall,
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["measure"]:
        sys.exit(measure(args[args.index("--") + 1 :]))
    if args[:1] == ["inspect"]:
        opt = dict(zip(args[1::2], args[2::2]))
        inspect_run(opt["--items"], int(opt.get("--calls", "10")), int(opt.get("--max-samples", "20")))
        sys.exit(0)
    sys.exit(__doc__)
