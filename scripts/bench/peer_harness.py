"""The python half of `npm run bench:peer` (scripts/bench/peer.ts), two subcommands:

  measure -- CMD...   runs CMD as a child-subreaper (daemons it starts, such as Postgres via pg_ctl, stay
                      its descendants) and, between the lines `@@peer start` and `@@peer end` that CMD
                      prints, measures the CPU time of all its descendants (live ones from /proc, exited
                      ones through getrusage(RUSAGE_CHILDREN)) and the peak of their summed RSS (sampled
                      every 50 ms). Ends with one line `@@peer measured {json}`.
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

PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")


def descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(name))
    out, todo = [], [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def proc_cpu_rss(pid: int) -> tuple[float, int]:
    """Seconds of CPU (self + reaped children) and resident bytes of one process; (0, 0) when gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/statm") as f:
            rss = int(f.read().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0.0, 0
    # fields[0] is the state (field 3): utime, stime, cutime, cstime are fields 14-17.
    return sum(int(x) for x in fields[11:15]) / TICK, rss


def tree_cpu_rss() -> tuple[float, int]:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu, rss = ru.ru_utime + ru.ru_stime, 0
    for pid in descendants(os.getpid()):
        c, r = proc_cpu_rss(pid)
        cpu += c
        rss += r
    return cpu, rss


def measure(cmd: list[str]) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1)
    state = {"phase": "before", "peak": 0, "start": None, "end": None}

    def sampler() -> None:
        while child.poll() is None:
            if state["phase"] == "during":
                state["peak"] = max(state["peak"], tree_cpu_rss()[1])
            time.sleep(0.05)

    threading.Thread(target=sampler, daemon=True).start()
    assert child.stdout is not None
    for line in child.stdout:
        if line.startswith("@@peer start"):
            cpu, rss = tree_cpu_rss()
            state.update(phase="during", start=(time.monotonic(), cpu), peak=rss)
        elif line.startswith("@@peer end"):
            cpu, rss = tree_cpu_rss()
            state["peak"] = max(state["peak"], rss)
            state.update(phase="after", end=(time.monotonic(), cpu))
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
        (t0, c0), (t1, c1) = state["start"], state["end"]
        print("@@peer measured " + json.dumps({"wallS": t1 - t0, "cpuS": c1 - c0, "peakRssBytes": state["peak"]}), flush=True)
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
            out = ModelOutput.for_tool_call("mockllm/model", "call_method", {"arguments": probes[observed % len(probes)]}, content=f"Call {observed + 1}.")
        else:
            out = ModelOutput.for_tool_call("mockllm/model", "submit", {"answer": "It returns a linear function of its inputs."})
        # Usage given: mockllm would otherwise count tokens with tiktoken, which downloads its tables.
        out.usage = ModelUsage(input_tokens=10 * len(messages), output_tokens=10, total_tokens=10 * len(messages) + 10)
        return out

    task = Task(
        dataset=[
            Sample(id=it["id"], input=f"Find out what the method does.\nPROBES: {json.dumps(it['probes'])}", metadata={"code": it["code"], "entry": it["entry"]})
            for it in items
        ],
        solver=[load_method(), as_solver(react(tools=[call_method()]))],
        sandbox="local",
    )
    model = get_model("mockllm/model", custom_outputs=scripted)
    print("@@peer start", flush=True)
    t0 = time.monotonic()
    [log] = eval(task, model=model, max_samples=max_samples, display="none", log_dir=os.environ.get("PEER_LOG_DIR", "/tmp/peer-inspect-logs"), score=False)
    wall = time.monotonic() - t0
    print("@@peer end", flush=True)
    samples = log.samples or []
    done = sum(1 for s in samples if not s.error)
    tool_calls = sum(1 for s in samples for m in s.messages if m.role == "tool")
    print("@@peer result " + json.dumps({"status": log.status, "episodes": done, "failed": len(samples) - done, "toolResults": tool_calls, "wallS": wall}), flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["measure"]:
        sys.exit(measure(args[args.index("--") + 1 :]))
    if args[:1] == ["inspect"]:
        opt = dict(zip(args[1::2], args[2::2]))
        inspect_run(opt["--items"], int(opt.get("--calls", "10")), int(opt.get("--max-samples", "20")))
        sys.exit(0)
    sys.exit(__doc__)
