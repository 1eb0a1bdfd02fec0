"""A pre-forked call child ("spare"). It is forked from the executor (the template) before its job
exists. Everything that does not depend on the job was done once in the executor and is inherited:
modules imported, sys.stdout/stderr/stdin objects made, signal dispositions, working directory,
no-new-privs, not dumpable, the seccomp program assembled; the executor also sets this process's group
and rlimits from outside. What is left here is per process and cheap: die with the executor, put the
pipes in place and close everything else, install the filter with this pid, say "ready" (one byte on
the result pipe), warm the parser/encoder pages while no job is waiting. Then it reads ONE job:
  - "call": compile the method, parse the arguments, run, write one JSON result;
  - "analyze": coverage.py's static analysis of the source (+ the determinism scan), summarised over the
    arcs the batch's calls executed.
Then it closes its pipes and exits. Everything the untrusted code changed (sys.modules, builtins,
imported modules, globals, the heap) dies with it; the next call is a new fork of the clean executor,
whose memory never held another call's source, arguments or results (it splices them between pipes).
Untrusted text (source, arguments) is only ever parsed or run here, never in the executor.
"""

import json
import os
import select
import signal
import struct
import sys
import time

import audit
import limits as limits_mod
from args import BadArguments, parse_call
from encoding import encode

MODULE_NAME = "__pau_method__"
MAX_MESSAGE = 2000
JOB_FD = 4  # the job pipe's read end, after isolate_fds
PR_SET_PDEATHSIG = 1
READY = b"R"  # first byte on the result pipe: configured, filter installed, waiting for the job
JOB_LENGTH = struct.Struct("<I")  # the job on its pipe: u32 length, then that many bytes of JSON
SETUP_FAILED = 71  # exit status of a child that could not configure itself (it never reads a job)


def _error(type_, message):
    return {"ok": False, "error": {"type": type_, "message": str(message)[:MAX_MESSAGE]}}


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _encode_result(result, result_limit):
    """The result as JSON bytes, or a ResultLimit error when that is over the limit."""
    try:
        data = json.dumps(result, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
        if len(data) > result_limit:
            r = _error("ResultLimit", f"the encoded result is {len(data)} bytes; the limit is {result_limit}")
            r["ms"] = result.get("ms", 0)
            data = json.dumps(r).encode()
    except MemoryError:
        data = b'{"ok":false,"error":{"type":"MemoryLimit","message":"out of memory while encoding the result"}}'
    except BaseException as e:
        data = json.dumps(_error("SandboxError", f"cannot serialise the result: {type(e).__name__}")).encode()
    return data


def _finish(result, result_limit):
    """Serialise under the result-size limit, close the pipes (the executor reads EOF now, not after
    the slow address-space teardown), exit."""
    sys.settrace(None)
    try:
        sys.stdout.flush()
    except BaseException:
        pass
    data = _encode_result(result, result_limit)
    try:
        _write_all(limits_mod.RESULT_FD, data)
        os.close(limits_mod.RESULT_FD)
        os.close(1)
    finally:
        os._exit(0)


# A job like the smallest real one, run through the same code as a real call while the spare waits.
_WARM_JOB = (
    b'{"kind":"call","source":"def f(x):\\n    return x + 1\\n","entry":"f","coverage":false,'
    b'"audit":false,"limits":{"recursionLimit":1000,"resultBytes":1000000},"call":["1"]}'
)


def _warm_up():
    """Run a trusted dummy call through the job reader, compiler, argument parser, encoder and result
    serialiser while no job is waiting: the copy-on-write page faults a first call takes in a fresh
    fork (a few hundred, most of the child's cost) are then paid before the job arrives instead of on
    its clock. It touches what a real call touches and little else; skipped when a job is waiting."""
    if _job_waiting():
        return
    try:
        job = json.loads(_WARM_JOB)
        lim = limits_mod.Limits.from_json(job["limits"])
        _encode_result(call_result(job, lim), lim.result_bytes)
    except BaseException:
        pass


def prime(rounds=64):
    """Run a dummy call, a traced dummy call and the coverage analysis in the (trusted) executor itself,
    before it forks anything. CPython 3.11 quickens and specialises bytecode in place as it runs, so
    code that first runs in a fresh fork redoes that work in every child and rewrites (copies) the
    whole bytecode of every function it runs; coverage.py's parser is big. Run here often enough to be
    specialised (> 53 runs), every child starts with it done: a single-call coverage batch costs about
    a third less CPU."""
    job = json.loads(_WARM_JOB)
    lim = limits_mod.Limits.from_json(job["limits"])
    traced = dict(job, coverage=True)
    for _ in range(rounds):
        _encode_result(call_result(job, lim), lim.result_bytes)
        arcs = call_result(traced, lim).get("arcs", [])
        _encode_result(
            analysis_result({"source": job["source"], "coverage": True, "audit": True, "arcs": arcs}), 1 << 26
        )


def _job_waiting():
    try:
        return bool(select.select([JOB_FD], [], [], 0)[0])
    except (OSError, ValueError):
        return False


def _read_exact(n):
    chunks, left = [], n
    while left:
        b = os.read(JOB_FD, min(left, 1 << 20))
        if not b:
            return None
        chunks.append(b)
        left -= len(b)
    return b"".join(chunks)


def read_job():
    """The job (u32 length + JSON); None when the pipe closes without one (executor gone or spare
    discarded)."""
    head = _read_exact(JOB_LENGTH.size)
    if head is None:
        return None
    body = _read_exact(JOB_LENGTH.unpack(head)[0])
    return None if body is None else json.loads(body)


def main(fds, executor_pid, libc, prepared_filter):
    """Child entry point after fork; never returns."""
    try:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # die with the executor, never linger
        if os.getppid() != executor_pid:  # it died before the line above took effect
            os._exit(SETUP_FAILED)
        limits_mod.isolate_fds(fds["stdout"], fds["result"], fds["devnull"], fds["job"], JOB_FD)
        if prepared_filter is not None:
            prepared_filter.install(os.getpid())
        os.write(limits_mod.RESULT_FD, READY)
    except BaseException:  # never run untrusted code in a half-configured sandbox
        os._exit(SETUP_FAILED)
    _warm_up()
    try:
        job = read_job()
    except MemoryError:
        _finish(_error("MemoryLimit", "the job does not fit in the memory limit"), 1 << 20)
    except ValueError:
        _finish(_error("SandboxError", "unreadable job"), 1 << 20)
    if not isinstance(job, dict):  # the executor is shutting down, or discarded this spare
        os._exit(0)
    lim = limits_mod.Limits.from_json(job.get("limits"))
    sys.setrecursionlimit(lim.recursion_limit)
    if job.get("kind") == "analyze":
        analyze(job, lim)
    run_call(job, lim)


def _compile(job):
    from covtrace import METHOD_FILENAME

    try:
        return compile(job["source"], METHOD_FILENAME, "exec", dont_inherit=True), None
    except (SyntaxError, ValueError, OverflowError, MemoryError, RecursionError) as e:
        message = getattr(e, "msg", None) or str(e)
        if isinstance(e, SyntaxError) and e.lineno:
            message += f" (line {e.lineno})"
        return None, {"type": type(e).__name__, "message": message[:MAX_MESSAGE]}


def run_call(job, lim):
    _finish(call_result(job, lim), lim.result_bytes)


def call_result(job, lim):
    """Compile, parse the arguments, run; the result record (never raises for what the code does)."""
    code, source_error = _compile(job)
    if source_error:
        return {"ok": False, "error": source_error, "ms": 0, "sourceError": True}
    try:
        args, kwargs = parse_call(job["call"])
    except BadArguments as e:
        return _error("BadArguments", e)
    except MemoryError:
        return _error("MemoryLimit", "out of memory while parsing the arguments")
    except RecursionError:
        return _error("BadArguments", "arguments nested too deeply")

    recorder = audit.EventRecorder() if job.get("audit") else None
    tracer = None
    if job.get("coverage"):
        from covtrace import ArcRecorder

        tracer = ArcRecorder()
    namespace = {"__name__": MODULE_NAME, "__builtins__": __builtins__}
    state_events = []
    if recorder:
        recorder.install()
    started = time.perf_counter()
    try:
        if tracer:
            tracer.start()
        if recorder:
            recorder.active = True  # after tracer.start(), whose own sys.settrace is not the method's
        exec(code, namespace)  # module level: defs, imports, constants
        fn = namespace.get(job["entry"])
        if fn is None:
            result = _error("EntryNotFound", f"the source defines no {job['entry']!r}")
        else:
            before = audit.snapshot_state(namespace) if recorder else None
            value = fn(*args, **kwargs)
            if tracer:
                tracer.stop()
            if recorder:
                recorder.active = False
                state_events = audit.state_changes(before, namespace)
            result = _value_result(value, lim)
    except BaseException as e:
        result = _exception_result(e)
    elapsed = time.perf_counter() - started
    if tracer:
        tracer.stop()
    if recorder:
        recorder.active = False
    result["ms"] = round(elapsed * 1000, 3)
    if tracer:
        result["arcs"] = [list(a) for a in tracer.arcs()]
    if recorder:
        result["events"] = recorder.events + state_events
    return result


def _exception_result(e):
    if isinstance(e, MemoryError):
        return _error("MemoryLimit", "the call ran out of memory (memory limit reached)")
    try:
        message = str(e)
    except BaseException:
        message = "<unprintable exception message>"
    return _error(type(e).__name__, message)


def _value_result(value, lim):
    """Encoding runs the value's own __repr__ code, so its failures are reported, not raised."""
    try:
        r = repr(value)
        if len(r) > lim.result_bytes:
            r = r[: lim.result_bytes] + "..."
        return {"ok": True, "value": encode(value), "repr": r}
    except MemoryError:
        return _error("MemoryLimit", "out of memory while encoding the result")
    except RecursionError:
        return _error("ResultLimit", "the result is nested too deeply to encode")
    except BaseException as e:
        return _error("SandboxError", f"cannot encode the result: {type(e).__name__}: {e}")


def analyze(job, lim):
    _finish(analysis_result(job), 1 << 26)


def analysis_result(job):
    """Static coverage analysis + summary over the executed arcs; determinism scan when asked."""
    out = {"ok": True}
    try:
        if job.get("coverage"):
            from covtrace import StaticAnalysis

            arcs = {(a, b) for a, b in job.get("arcs", [])}
            out["coverage"] = StaticAnalysis(job["source"]).summary(arcs)
    except BaseException as e:
        out["coverageError"] = f"{type(e).__name__}: {e}"[:500]
    if job.get("audit"):
        out["staticFlags"] = audit.static_scan(job["source"])
    return out
