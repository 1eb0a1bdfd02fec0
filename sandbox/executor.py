"""PAU sandbox executor: the template process from which every call gets a fresh, pre-configured child.

Wire protocol with the client (platform/sandbox/wire.ts), binary, little-endian:
  client -> executor: a 32-byte header <8I: op, seq, length, timeoutMs, cpuSeconds, memoryMb, stdoutBytes,
    resultBytes; then `length` payload bytes.
      op 1 JOB   the payload is one child's job (JSON: see child.py); opaque here. Limits as in the header.
      op 2 BATCH many jobs in one message: the payload is <I count>, then count times <I length> and that
                 many bytes of one job. Job i has the sequence number seq + i (mod 2**32) and the header's
                 limits; each runs in its own fresh child exactly like a JOB, its frames streamed back as
                 it ends. A count or length that does not fit the payload is answered with ERROR.
      op 3 EXIT  the executor stops its children and exits.
  executor -> client: a 12-byte header <3I: kind, seq, length; then `length` bytes.
      1 READY   JSON {pid, python, seccomp: {ok, detail}}, once at start
      2 STDOUT  raw bytes of the call's stdout, in order, at most stdoutBytes in all
      3 RESULT  raw bytes of the child's result JSON, in order (the client parses and validates it)
      4 END     JSON made here: {status: ok|Timeout|OutputLimit|ResultLimit|NoResult|Lost, ms
                [, signal][, exit]}; last frame of a job
      6 ERROR   JSON {message}: the request stream is unreadable; the executor exits after it
  Jobs are served one at a time, in order; the client may queue several requests.

The template: this process imports everything once and does every job-independent part of a child's
set-up once (stdio objects, signal dispositions, working directory, no-new-privs, not dumpable, the
seccomp program assembled into a buffer), so a forked child inherits it for free. It keeps `--spares`
children forked and fully configured (rlimits set on them from here with prlimit; the child installs the
filter, says "ready" and warms up), each waiting on its own pipe for ONE job; a job goes to the oldest
ready spare. Replacements are forked off the call's critical path: once the executor has been idle for
IDLE_FORK_S after a reply (a fork and a spare's set-up compete for the CPU with the client digesting that
reply), or at once, overlapping the running call, when requests arrive back to back and none is left.
Within a BATCH, AHEAD spares are kept ready ahead of the calls still to come, refilled after a call's END.
A burst that finds no spare ready is served by forking one on demand (slower, never a failure).
`--spares 0` forks every call's child on demand (the fork-per-call baseline of bench:sandbox).

This process is trusted and stays clean: it never parses or runs untrusted text, and it never holds a
call's data at all. Jobs, stdout and results move between pipes with splice(2) inside the kernel, so no
later fork of this process can carry one call's source, arguments or results into another. It only reads
headers, enforces deadlines and output caps with SIGKILL, reaps, and empties the scratch dir.
Options: --seccomp (filter each child), --fs-writes (the file system outside the scratch dir is
read-only by other means, i.e. bubblewrap), --scratch DIR (the call's working directory, emptied after
every call when writable), --scratch-tmpfs (it is a tmpfs: emptiness is checked with one stat),
--spares N (children kept ready, 0-8).
"""

import collections
import fcntl
import gc
import json
import os
import resource
import select
import signal
import struct
import sys
import termios
import time
import types

sys.dont_write_bytecode = True


def _import_coverage_parts():
    """Import only the parts of coverage.py a call needs (its C tracer, its parser), without running
    coverage/__init__.py: that pulls in the whole tool (sqlite3, reporting, ...), which tripled this
    process's private memory and with it the cost of every fork. A method that imports `coverage` gets
    this partial package."""
    import importlib.util

    spec = importlib.util.find_spec("coverage")
    if spec is None or "coverage" in sys.modules:
        return
    pkg = types.ModuleType("coverage")
    pkg.__path__ = list(spec.submodule_search_locations or [])
    pkg.__spec__ = spec
    pkg.__file__ = spec.origin
    sys.modules["coverage"] = pkg


_import_coverage_parts()

# Imported once here, so every child starts with them loaded (a fork shares them for free). PRELOAD is
# the stdlib that the datasets' methods import (HumanEval, MBPP, CRUXEval, CodeAlpaca: re, math,
# collections, random, typing, heapq, itertools, string, ... in that order); anything else is imported
# by the call itself. Every module here makes every fork dearer (more pages and mappings to copy).
import audit  # noqa: E402,F401
import child  # noqa: E402
import covtrace  # noqa: E402,F401
import encoding  # noqa: E402,F401
import limits as limits_mod  # noqa: E402
import seccomp  # noqa: E402

PRELOAD = (
    "typing",
    "re",
    "collections",
    "collections.abc",
    "itertools",
    "functools",
    "heapq",
    "string",
    "operator",
    "copy",
    "random",
    "math",
    "time",
    "json",
)
for _name in PRELOAD:
    try:
        __import__(_name)
    except ImportError:
        pass

REQUEST = struct.Struct("<8I")
OP_JOB, OP_BATCH, OP_EXIT = 1, 2, 3
U32 = struct.Struct("<I")
FRAME = struct.Struct("<3I")
F_READY, F_STDOUT, F_RESULT, F_END, F_ERROR = 1, 2, 3, 4, 6
RESULT_SLACK = 65536  # the child caps its own result; more than cap + slack is a forged write
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 4, 36, 38
_FIONREAD_BUF = bytearray(4)
# How long the executor waits after a reply before forking a replacement spare, if no request comes: long
# enough for the client to read the reply undisturbed (a fork and the new spare's set-up take ~2-5 ms of
# CPU, on a core the client may need), short next to an agent's model turn between calls.
IDLE_FORK_S = 0.003
# Spares forked in one go when a batch has more calls waiting and none is left: after a fork every page
# this process writes is copied again, so forking several in a row pays that copy once for all of them
# (measured: ~136 -> ~70 page copies in the executor per call). Each waiting spare holds a few MB.
BURST = 4
# Spares kept forked ahead of a batch's remaining calls: the one for the next call, and one more being
# set up behind it, so a spare has had a call's time to get ready before its job comes (refilled up to
# BURST when fewer are left). Before, spares were forked only once none was left, in the middle of a
# call (delaying its result), and the next call then waited for its child's set-up on its own clock.
AHEAD = 2


def _pending(fd):
    """Bytes waiting in a pipe (0 at end of file)."""
    fcntl.ioctl(fd, termios.FIONREAD, _FIONREAD_BUF, True)
    return int.from_bytes(_FIONREAD_BUF, "little")


def _read_exact(fd, n):
    chunks, left = [], n
    while left:
        b = os.read(fd, left)
        if not b:
            return None
        chunks.append(b)
        left -= len(b)
    return b"".join(chunks)


def _splice_exact(src, dst, n):
    """Move n bytes from src to dst inside the kernel; raises EOFError if src ends first."""
    while n:
        moved = os.splice(src, dst, n)
        if moved == 0:
            raise EOFError
        n -= moved


def send(kind, seq, payload=b""):
    data = FRAME.pack(kind, seq, len(payload)) + payload
    view = memoryview(data)
    while view:
        view = view[os.write(1, view) :]


def send_json(kind, seq, obj):
    send(kind, seq, json.dumps(obj, separators=(",", ":")).encode())


def send_end(seq, status, ms, detail=""):
    """The END record (built by hand: the json encoder would be one more thing each cycle touches)."""
    send(F_END, seq, f'{{"status":"{status}","ms":{ms:.3f}{detail}}}'.encode())


class Spare:
    """A forked child waiting for its job, and the executor's ends of its three pipes."""

    __slots__ = ("job_w", "limits", "out_r", "pid", "ready", "res_r")

    def __init__(self, pid, job_w, out_r, res_r):
        self.pid, self.job_w, self.out_r, self.res_r = pid, job_w, out_r, res_r
        self.limits = None  # (memory_mb, cpu_seconds) set on it with prlimit
        self.ready = False  # its READY byte has been read


class Executor:
    def __init__(self, opts, libc, prepared_filter):
        self.opts = opts
        self.libc = libc
        self.filter = prepared_filter
        self.pid = os.getpid()
        self.devnull = os.open(os.devnull, os.O_RDWR)
        self.want = opts["spares"]
        self.spares = collections.deque()
        self.limits = None  # what new spares get: the last job's (memory_mb, cpu_seconds)
        self.dying = set()  # pids signalled but not reaped yet
        # Whether requests have been arriving back to back (one was already waiting when the previous
        # job was done). Decides when the replacement spare is forked: see run_job.
        self.back_to_back = False
        self.batch_left = 0  # calls of the current BATCH after the one running
        self.ceilings = {res: resource.getrlimit(res)[1] for res, _ in limits_mod.rlimits(1, 1)}
        self.clean_scratch = self._scratch_state() if opts["scratch_tmpfs"] else None

    # --- spares ---------------------------------------------------------------------------------------
    def fork_spare(self):
        job_r, job_w = os.pipe()
        out_r, out_w = os.pipe()
        res_r, res_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                child.main(
                    {"stdout": out_w, "result": res_w, "devnull": self.devnull, "job": job_r},
                    self.pid,
                    self.libc,
                    self.filter,
                )
            finally:
                os._exit(child.SETUP_FAILED)
        for fd in (job_r, out_w, res_w):
            os.close(fd)
        try:
            os.setpgid(pid, pid)  # its own group, so a kill reaches all it is; set here, before any job
        except OSError:
            pass  # it died already: found out before it gets a job
        sp = Spare(pid, job_w, out_r, res_r)
        if self.limits is not None and not self._limit(sp, self.limits):
            self.discard(sp)
            return None
        return sp

    def top_up(self, extra=False):
        """Fork one spare if fewer than wanted are waiting (or `extra`: for calls already queued in a
        batch); True if one was added."""
        if len(self.spares) >= self.want and not extra:
            return False
        sp = self.fork_spare()
        if sp is None:
            return False
        self.spares.append(sp)
        return True

    def _limit(self, sp, lim):
        """Set a waiting spare's rlimits; False if that is impossible (raising a hard limit)."""
        try:
            limits_mod.apply_rlimits(sp.pid, limits_mod.rlimits(*lim), self.ceilings)
        except OSError:
            return False
        sp.limits = lim
        return True

    def _usable(self, sp):
        """A spare may take a job only while it is exactly as forked: alive, silent on stdout, and on the
        result pipe nothing but its READY byte. Anything else (killed from outside, set-up failed,
        tampered with) discards it; every spare takes at most one job."""
        r, _, _ = select.select([sp.res_r, sp.out_r], [], [], 0)
        if sp.out_r in r:
            return False
        if sp.res_r in r:
            if sp.ready or os.read(sp.res_r, 1) != child.READY:
                return False
            sp.ready = True
            if select.select([sp.res_r], [], [], 0)[0]:
                return False
        return True

    def take_spare(self, lim):
        while self.spares:
            sp = self.spares.popleft()
            if self._usable(sp) and (sp.limits == lim or self._limit(sp, lim)):
                return sp
            self.discard(sp)
        for _attempt in range(3):  # none usable: fork one on the call's clock (self.limits == lim)
            sp = self.fork_spare()
            if sp is not None:
                return sp
        return None

    def discard(self, sp):
        for fd in (sp.job_w, sp.out_r, sp.res_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.kill(sp.pid)

    def kill(self, pid):
        """SIGKILL the child's process group (all it is: it cannot leave it), or the child alone if its
        group was never set up; reaped later."""
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.dying.add(pid)

    def reap(self, block=False):
        for pid in list(self.dying):
            try:
                done, _ = os.waitpid(pid, 0 if block else os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                self.dying.discard(pid)
        if block and not self.opts["seccomp"]:
            # Without the filter a call may have started processes of its own (we are their subreaper).
            while True:
                try:
                    if os.waitpid(-1, os.WNOHANG)[0] == 0:
                        break
                except ChildProcessError:
                    break

    # --- one job --------------------------------------------------------------------------------------
    def run_job(self, seq, length, timeout_ms, cpu_s, memory_mb, stdout_cap, result_cap):
        started = time.monotonic()
        lim = (memory_mb, cpu_s)
        self.limits = lim
        sp = self.take_spare(lim)
        if sp is None:
            _splice_exact(0, self.devnull, length)
            send_end(seq, "NoResult", 0, f',"exit":{child.SETUP_FAILED}')
            return
        left = length
        try:
            os.write(sp.job_w, child.JOB_LENGTH.pack(length))
            while left:
                moved = os.splice(0, sp.job_w, left)
                if moved == 0:
                    raise EOFError("the request stream ended inside a job")
                left -= moved
        except BrokenPipeError:  # it died in the microseconds since it was checked: the job is lost
            _splice_exact(0, self.devnull, left)
            self.discard(sp)
            self.reap(block=True)
            send_end(seq, "Lost", 0)
            return
        os.close(sp.job_w)
        # A fork of this process and a spare's set-up cost a few ms of CPU on this kind of VM, so they are
        # kept off the call's clock: the replacement is forked once the executor is idle (serve). Only
        # when calls come back to back and no spare is left is it forked now, so that it overlaps this
        # call (the child runs on the other core) instead of delaying the next one in full.
        if not self.spares and self.want and self.back_to_back and not self.batch_left:
            self.top_up(extra=True)
        send_end(seq, *self.watch(sp, seq, started, started + timeout_ms / 1000, stdout_cap, result_cap))
        # Within a batch the calls still to come are known: keep AHEAD spares forked ahead of them, so
        # the next call's child has had at least one call's time to set itself up (fork, filter,
        # warm-up) and is ready when its job comes. Refilled once this call's result is out (a fork
        # here neither delays that result nor eats into this call's deadline), for up to BURST calls in
        # a row (forking several in a row pays the executor's page copies once).
        if self.want and self.batch_left and len(self.spares) < min(self.batch_left, AHEAD):
            for _ in range(min(self.batch_left, BURST) - len(self.spares)):
                if not self.top_up(extra=True):
                    break
        # After the reply: wait until the child is really gone (a killed process can finish the syscall
        # it was in), then empty the scratch dir, so nothing of this call reaches the next one.
        self.reap(block=True)
        self.wipe_scratch()

    def watch(self, sp, seq, started, deadline, stdout_cap, result_cap):
        """Forward the child's stdout and result until both pipes close, the deadline passes or a cap
        is exceeded; returns the END record as (status, ms, detail)."""
        poller = select.poll()
        poller.register(sp.out_r, select.POLLIN)
        poller.register(sp.res_r, select.POLLIN)
        open_fds, out_len, res_len, killed, need_ready = 2, 0, 0, None, not sp.ready
        while open_fds and not killed:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                killed = "Timeout"
                break
            for fd, _ev in poller.poll(max(1, int(remaining * 1000 + 0.999))):
                n = _pending(fd)
                if n == 0:  # end of file
                    poller.unregister(fd)
                    open_fds -= 1
                    continue
                if fd == sp.res_r:
                    if need_ready:  # set-up finished after the job was handed over
                        if os.read(fd, 1) != child.READY:
                            killed = "Broken"
                            break
                        need_ready, n = False, n - 1
                        if n == 0:
                            continue
                    res_len += n
                    if res_len > result_cap + RESULT_SLACK:  # the child caps itself; this is forged
                        killed = "ResultLimit"
                        break
                    self.forward(F_RESULT, seq, fd, n)
                else:
                    room = stdout_cap - out_len
                    if room > 0:
                        self.forward(F_STDOUT, seq, fd, min(n, room))
                    out_len += n
                    if out_len > stdout_cap:
                        killed = "OutputLimit"
                        break
        ms = (time.monotonic() - started) * 1000
        # Kill the child's process group whatever happened: nothing it started may outlive the call.
        self.kill(sp.pid)
        os.close(sp.out_r)
        os.close(sp.res_r)
        if killed == "Broken":
            return "NoResult", ms, f',"exit":{child.SETUP_FAILED}'
        if killed:
            return killed, ms, ""
        if res_len == 0:
            return "NoResult", ms, self._exit_detail(sp.pid)
        return "ok", ms, ""

    def forward(self, kind, seq, fd, n):
        os.write(1, FRAME.pack(kind, seq, n))
        _splice_exact(fd, 1, n)

    def _exit_detail(self, pid):
        """How a child that wrote no result ended (it was killed just now if it was still running)."""
        try:
            _, status = os.waitpid(pid, 0)
            self.dying.discard(pid)
        except ChildProcessError:
            return ""
        if os.WIFSIGNALED(status):
            return f',"signal":{os.WTERMSIG(status)}'
        return f',"exit":{os.WEXITSTATUS(status)}'

    # --- scratch dir ----------------------------------------------------------------------------------
    def _scratch_state(self):
        st = os.stat(self.opts["scratch"])
        return (st.st_size, st.st_nlink)

    def wipe_scratch(self):
        """After a call, empty the scratch dir so no file outlives the call. On a tmpfs (bubblewrap) one
        stat says whether anything is there (its size counts entries), and the names are read and
        removed in a short-lived child, so they never enter this process's memory either. Elsewhere
        (mode 'none': no isolation to keep) it is emptied here."""
        scratch = self.opts["scratch"]
        if not (scratch and self.opts["fs_writes"]):
            return
        if self.clean_scratch is None:
            _empty_dir(scratch)
            return
        if self._scratch_state() == self.clean_scratch:
            return
        pid = os.fork()
        if pid == 0:
            try:
                _empty_dir(scratch)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        if self._scratch_state() != self.clean_scratch:
            # Something the call left cannot be removed: no later call may see it, so this executor
            # (and its tmpfs) goes; the client starts a fresh one.
            os.write(2, b"pau-sandbox: the scratch dir cannot be emptied; exiting\n")
            raise SystemExit(3)


def _empty_dir(scratch):
    import shutil  # here, not in the template: it pulls in bz2 and lzma

    try:
        entries = list(os.scandir(scratch))
    except OSError:
        return
    for e in entries:
        try:
            if e.is_dir(follow_symlinks=False):
                for root, dirs, _files in os.walk(e.path):
                    for d in dirs:
                        try:
                            os.chmod(os.path.join(root, d), 0o700)
                        except OSError:
                            pass
                os.chmod(e.path, 0o700)
                shutil.rmtree(e.path, ignore_errors=True)
            else:
                os.unlink(e.path)
        except Exception as err:
            os.write(2, f"pau-sandbox: cannot remove {e.path}: {err}\n".encode(errors="replace"))


def _self_test_seccomp(prepared):
    """Fork a child that installs the prepared filter the way a spare does and checks that fork,
    sockets, System V IPC and signals to other processes are refused while signals to itself are not."""
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            prepared.install(os.getpid())
            code = 0
            try:
                if os.fork() == 0:
                    os._exit(0)
                code = 1
            except PermissionError:
                pass
            import socket

            try:
                socket.socket()
                code = 1
            except PermissionError:
                pass
            try:
                os.kill(os.getppid(), 0)
                code = 1
            except PermissionError:
                pass
            os.kill(os.getpid(), 0)
            libc = seccomp.prepare()
            if libc.syscall(seccomp.NR["msgget"], 0, 0o1600) != -1:
                code = 1
        except BaseException:
            code = 2 if code == 3 else 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    detail = {
        0: "fork, threads, sockets, IPC and signals to others refused",
        1: "installed, but something that must be refused was allowed",
        2: "the kernel refused the filter",
        3: "could not load",
    }.get(code, f"self-test died ({status})")
    return {"ok": code == 0, "detail": detail}


def _become_template(a, libc):
    """The job-independent part of every child's set-up, done once here and inherited by each fork."""
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a dead child's pipe must raise, not kill us
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # over-size writes fail with EFBIG, not a dead child
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    # Not dumpable: no other process of this uid (a call's child among them) may open this process's or
    # a spare's /proc/<pid>/mem, /fd or /environ. Without it a call could write into the executor (no
    # filter) or into the spare that will run the next call. Inherited by every fork.
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    # Big ints must print (they are part of the value contract); the time limit bounds the cost.
    sys.set_int_max_str_digits(0)
    # The objects a call's print()/input() use; the child swaps the file descriptors under them. This
    # process itself writes only with os.write, so their buffers stay empty.
    sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
    sys.stdin = open(0, encoding="utf-8", closefd=False)
    if a.scratch:
        os.chdir(a.scratch)


def _parse_args(argv):
    """The command line (no argparse: it would sit in the template's memory for nothing)."""
    a = types.SimpleNamespace(seccomp=False, fs_writes=False, scratch="", scratch_tmpfs=False, spares=1)
    it = iter(argv)
    for arg in it:
        if arg in ("--seccomp", "--fs-writes", "--scratch-tmpfs"):
            setattr(a, arg[2:].replace("-", "_"), True)
        elif arg in ("--scratch", "--spares"):
            value = next(it, None)
            if value is None:
                raise SystemExit(f"executor.py: {arg} needs a value")
            setattr(a, arg[2:], int(value) if arg == "--spares" else value)
        else:
            raise SystemExit(f"executor.py: unknown argument {arg!r}")
    return a


def main():
    a = _parse_args(sys.argv[1:])
    libc = seccomp.prepare()
    _become_template(a, libc)
    sec = {"ok": False, "detail": "not requested"}
    prepared = None
    if a.seccomp:
        if seccomp.supported():
            prepared = seccomp.Prepared(allow_fs_writes=a.fs_writes)
            sec = _self_test_seccomp(prepared)
        else:
            sec = {"ok": False, "detail": "unsupported platform"}
        if not sec["ok"]:
            prepared = None
    opts = {
        "seccomp": prepared is not None,
        "fs_writes": a.fs_writes,
        "scratch": a.scratch,
        "scratch_tmpfs": a.scratch_tmpfs and bool(a.scratch),
        "spares": max(0, min(a.spares, 8)),
    }
    ex = Executor(opts, libc, prepared)
    del a
    child.prime()
    gc.collect()
    gc.freeze()  # keep the shared heap out of the collector, so children do not copy it page by page
    # Give back the free memory that compiling this directory's modules at start left in the C heap
    # (~0.7-1 MB of resident pages): every fork copies the page-table entries of every resident page and
    # every child's exit tears them down, ~0.2 ms per MB per call on this VM. glibc only (musl has none).
    trim = getattr(libc, "malloc_trim", None)
    if trim is not None:
        trim(0)
    while ex.top_up():
        pass
    send_json(F_READY, 0, {"pid": os.getpid(), "python": sys.version.split()[0], "seccomp": sec})
    try:
        serve(ex)
    finally:
        for sp in list(ex.spares):
            ex.discard(sp)
        ex.reap(block=True)


def _readable(fd):
    return bool(select.select([fd], [], [], 0)[0])


def run_batch(ex, seq, length, lim):
    """Serve one BATCH request: each job in a fresh child, in order, like a JOB. Reads only the framing
    (count and lengths), never a job's bytes. Returns why the framing is wrong, or None."""
    if length < U32.size:
        return f"{length} bytes cannot hold the call count"
    head = _read_exact(0, U32.size)
    if head is None:
        return "the request stream ended inside the batch"
    (count,) = U32.unpack(head)
    left = length - U32.size
    if count == 0:
        return "a batch of no calls"
    for i in range(count):
        if left < U32.size:
            return f"call {i} of {count}: no room for its length ({left} bytes left)"
        head = _read_exact(0, U32.size)
        if head is None:
            return "the request stream ended inside the batch"
        (n,) = U32.unpack(head)
        left -= U32.size
        if n > left:
            return f"call {i} of {count}: its job of {n} bytes overruns the batch ({left} bytes left)"
        ex.batch_left = count - i - 1
        try:
            ex.run_job((seq + i) & 0xFFFFFFFF, n, *lim)
        finally:
            ex.batch_left = 0
        left -= n
        ex.reap()
    if left:
        return f"{left} bytes after the last of {count} calls"
    return None


def serve(ex):
    replied = False  # a reply went out and nothing has been forked since
    while True:
        waiting = _readable(0)
        ex.back_to_back = waiting
        # Top up while idle, one at a time: a waiting request goes first. Right after a reply, first
        # give the client IDLE_FORK_S to take it in (a request arriving meanwhile is served at once).
        if not waiting and len(ex.spares) < ex.want:
            if replied:
                replied = False
                if select.select([0], [], [], IDLE_FORK_S)[0]:
                    continue
            if ex.top_up():
                continue
        head = _read_exact(0, REQUEST.size)
        if head is None:
            return
        op, seq, length, timeout_ms, cpu_s, memory_mb, stdout_cap, result_cap = REQUEST.unpack(head)
        if op == OP_JOB:
            ex.run_job(seq, length, timeout_ms, cpu_s, memory_mb, stdout_cap, result_cap)
            replied = True
        elif op == OP_BATCH:
            problem = run_batch(ex, seq, length, (timeout_ms, cpu_s, memory_mb, stdout_cap, result_cap))
            if problem:
                send_json(F_ERROR, seq, {"message": f"malformed batch request (seq {seq}, length {length}): {problem}"})
                return
            replied = True
        elif op == OP_EXIT:
            return
        else:
            send_json(F_ERROR, seq, {"message": f"unknown request op {op} (length {length})"})
            return
        ex.reap()


if __name__ == "__main__":
    main()
