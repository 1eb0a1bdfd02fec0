"""PAU sandbox executor: the template process from which every call gets a fresh, pre-configured child.

Wire protocol with the client (activities/sandbox/wire.ts), binary, little-endian:
  client -> executor: a 32-byte header <8I: op, seq, length, timeoutMs, cpuSeconds, memoryMb, stdoutBytes,
    resultBytes; then `length` payload bytes.
      op 1 JOB   the payload is one child's job (JSON: see child.py); opaque here. Limits as in the header.
      op 3 EXIT  the executor stops its children and exits.
  executor -> client: a 12-byte header <3I: kind, seq, length; then `length` bytes.
      1 READY   JSON {pid, python, seccomp: {ok, detail}}, once at start
      2 STDOUT  raw bytes of the call's stdout, in order, at most stdoutBytes in all
      3 RESULT  raw bytes of the child's result JSON, in order (the client parses and validates it)
      4 END     JSON made here: {status: ok|Timeout|OutputLimit|ResultLimit|NoResult|Lost, ms
                [, signal][, exit]}; last frame of a job
      6 ERROR   JSON {message}: the request stream is unreadable; the executor exits after it
  Jobs are served one at a time, in order; the client may queue several.
  Inside the sandbox (child.py): a child writes on its result pipe, before its job's result, READY b'R'
  and TAKEN <cB2x8Id: b'T', outcome, the request header, the CLOCK_MONOTONIC time it read it (and BEGIN
  b'B' on a pipe of its own just before it reads the stream); the executor writes <c3xII control messages (kind, memoryMb,
  cpuSeconds) on the child's control pipe: H (be the head; your limits), G (go on), X (step aside).

The template: this process imports everything once and does every job-independent part of a child's
set-up once (stdio objects, signal dispositions, working directory, no-new-privs, not dumpable, the
seccomp program assembled into a buffer), so a forked child inherits it for free. It keeps `--spares`
children forked and fully configured (rlimits set on them from here with prlimit; the child installs the
filter, says "ready" and warms up). One of them at a time is the head: it reads the next request straight
from this process's stdin, which every fork inherits (see child.py: header, then exactly its job's bytes,
then it closes the stream and reports the header on its result pipe before it parses anything). The
executor only learns of a job from that report: it starts the deadline at the time the head read the
header, forwards the child's output as frames with the header's seq and caps, and makes the next spare
head only once this call's child is gone and the scratch dir is empty, so jobs are still served one at a
time, in order. A job whose limits are not the head's waits, header read, until the executor has set them
with prlimit (or, when a hard limit would have to rise, is read by a child forked for it). With no spare
ready (a burst, `--spares 0`: the fork-per-call baseline of bench:sandbox) the executor reads the header
itself and forks a child with the job's limits that reads the job's bytes. Replacements are forked off
the call's critical path: once the executor has been idle for IDLE_FORK_S after a reply, or at once,
overlapping the running call, when the next request is already waiting and no spare is left.

This process is trusted and stays clean: it never parses or runs untrusted text, and it never holds a
call's data at all: it never reads a job (children read their own from the stream), and a child's stdout
and result move to the client with splice(2) inside the kernel, so no later fork of this process can
carry one call's source, arguments or results into another. It only reads request headers, enforces
deadlines and output caps with SIGKILL, reaps, and empties the scratch dir.
Options: --seccomp (filter each child), --fs-writes (the file system outside the scratch dir is
read-only by other means, i.e. bubblewrap), --scratch DIR (the call's working directory, emptied after
every call when writable), --scratch-tmpfs (it is a tmpfs: emptiness is checked with one stat),
--spares N (children kept ready, 0-8), --limits MEMORY_MB,CPU_SECONDS (what the first spares get: the
client's default limits, so a first job with them need not wait for prlimit).
"""
import collections
import ctypes
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
    spec = importlib.util.find_spec('coverage')
    if spec is None or 'coverage' in sys.modules:
        return
    pkg = types.ModuleType('coverage')
    pkg.__path__ = list(spec.submodule_search_locations or [])
    pkg.__spec__ = spec
    pkg.__file__ = spec.origin
    sys.modules['coverage'] = pkg


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

PRELOAD = ('typing', 're', 'collections', 'collections.abc', 'itertools', 'functools', 'heapq', 'string',
           'operator', 'copy', 'random', 'math', 'time', 'json')
for _name in PRELOAD:
    try:
        __import__(_name)
    except ImportError:
        pass

REQUEST = struct.Struct('<8I')
OP_JOB, OP_EXIT = 1, 3
FRAME = struct.Struct('<3I')
F_READY, F_STDOUT, F_RESULT, F_END, F_ERROR = 1, 2, 3, 4, 6
RESULT_SLACK = 65536  # the child caps its own result; more than cap + slack is a forged write
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 4, 36, 38
_FIONREAD_BUF = bytearray(4)
# How long the executor waits after a reply before forking a replacement spare, if no request comes: long
# enough for the client to read the reply undisturbed (a fork and the new spare's set-up take ~2-5 ms of
# CPU, on a core the client may need), short next to an agent's model turn between calls.
IDLE_FORK_S = 0.003


def _pending(fd):
    """Bytes waiting in a pipe (0 at end of file)."""
    fcntl.ioctl(fd, termios.FIONREAD, _FIONREAD_BUF, True)
    return int.from_bytes(_FIONREAD_BUF, 'little')


def _read_exact(fd, n):
    chunks, left = [], n
    while left:
        b = os.read(fd, left)
        if not b:
            return None
        chunks.append(b)
        left -= len(b)
    return b''.join(chunks)


def _splice_exact(src, dst, n):
    """Move n bytes from src to dst inside the kernel; raises EOFError if src ends first."""
    while n:
        moved = os.splice(src, dst, n)
        if moved == 0:
            raise EOFError
        n -= moved


_SINK = []  # a pipe to pass discarded request bytes through (the stream may be a socket)


def _skip_request(n):
    """Drop the next n bytes of the request stream without reading them into this process."""
    if not _SINK:
        _SINK.extend(os.pipe())
    while n:
        moved = os.splice(0, _SINK[1], min(n, 1 << 16))
        if moved == 0:
            raise EOFError
        _splice_exact(_SINK[0], _devnull(), moved)
        n -= moved


def _devnull():
    if len(_SINK) < 3:
        _SINK.append(os.open(os.devnull, os.O_WRONLY))
    return _SINK[2]


def send(kind, seq, payload=b''):
    data = FRAME.pack(kind, seq, len(payload)) + payload
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]


def send_json(kind, seq, obj):
    send(kind, seq, json.dumps(obj, separators=(',', ':')).encode())


class Outbox:
    """A call's frames on their way to the client, gathered in a pipe of this process and moved to
    stdout with one splice per poll round: the client then wakes once for RESULT and END, not once per
    frame (a third of paced calls woke Node two or three times). Only ever filled while a call is
    watched and emptied before the next fork, so no child inherits what is in it."""
    MAX = 60000  # below the pipe's 64 KiB capacity: a write into it never blocks

    def __init__(self):
        self.r, self.w = os.pipe()
        self.n = 0

    def splice(self, kind, seq, fd, n):
        """A frame whose payload is the next n bytes of pipe fd (moved inside the kernel)."""
        if self.n + FRAME.size + n > self.MAX:  # too big to gather: after what is gathered, directly
            self.flush()
            os.write(1, FRAME.pack(kind, seq, n))
            _splice_exact(fd, 1, n)
            return
        os.write(self.w, FRAME.pack(kind, seq, n))
        _splice_exact(fd, self.w, n)
        self.n += FRAME.size + n

    def end(self, seq, status, ms, detail=''):
        """The END record (built by hand: the json encoder would be one more thing each cycle touches),
        then everything gathered, at once."""
        payload = f'{{"status":"{status}","ms":{ms:.3f}{detail}}}'.encode()
        os.write(self.w, FRAME.pack(F_END, seq, len(payload)) + payload)
        self.n += FRAME.size + len(payload)
        self.flush()

    def flush(self):
        if self.n:
            _splice_exact(self.r, 1, self.n)
            self.n = 0


class Desync(Exception):
    """A child died while reading the request stream: where the next request starts is unknown."""


class Spare:
    """A forked child and the executor's ends of its three pipes."""
    __slots__ = ('pid', 'ctl_w', 'out_r', 'res_r', 'beg_r', 'limits', 'ready')

    def __init__(self, pid, ctl_w, out_r, res_r, beg_r):
        self.pid, self.ctl_w, self.out_r, self.res_r, self.beg_r = pid, ctl_w, out_r, res_r, beg_r
        self.limits = None  # (memory_mb, cpu_seconds) set on it with prlimit
        self.ready = False  # its READY byte has been read

    def began(self):
        """Whether it said BEGIN: it may have consumed part of the request stream."""
        return _pending(self.beg_r) > 0


WAIT, GONE = object(), object()  # next_record: nothing yet / the child died before it began to read


class Executor:
    def __init__(self, opts, libc, prepared_filter):
        self.opts = opts
        self.libc = libc
        self.filter = prepared_filter
        self.pid = os.getpid()
        self.devnull = os.open(os.devnull, os.O_RDWR)
        self.want = opts['spares']
        self.spares = collections.deque()  # waiting, oldest first; not the head
        self.head = None  # the spare that reads the next request from the stream
        self.limits = opts['limits']  # what new spares get: the last job's (memory_mb, cpu_seconds)
        self.dying = set()  # pids signalled but not reaped yet
        self.ceilings = {res: resource.getrlimit(res)[1] for res, _ in limits_mod.rlimits(1, 1)}
        self.clean_scratch = self._scratch_state() if opts['scratch_tmpfs'] else None
        self.out = Outbox()

    # --- children -------------------------------------------------------------------------------------
    def fork_child(self, request=None):
        """A configured child with self.limits set: a spare, or (request given) one forked to read that
        request's job. None if it cannot be limited."""
        ctl_r, ctl_w = os.pipe()
        out_r, out_w = os.pipe()
        res_r, res_w = os.pipe()
        beg_r, beg_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                child.main({'stdout': out_w, 'result': res_w, 'devnull': self.devnull, 'ctl': ctl_r, 'request': 0,
                            'begin': beg_w}, self.pid, self.libc, self.filter, request)
            finally:
                os._exit(child.SETUP_FAILED)
        for fd in (ctl_r, out_w, res_w, beg_w):
            os.close(fd)
        try:
            os.setpgid(pid, pid)  # its own group, so a kill reaches all it is; set here, before any job
        except OSError:
            pass  # it died already: found out before it gets a job
        sp = Spare(pid, ctl_w, out_r, res_r, beg_r)
        if self.limits is not None and not self._limit(sp, self.limits):
            self.discard(sp)
            return None
        return sp

    def count(self):
        return len(self.spares) + (self.head is not None)

    def top_up(self):
        """Fork one spare if fewer than wanted are waiting; True if one was added."""
        if self.count() >= self.want:
            return False
        sp = self.fork_child()
        if sp is None:
            return False
        self.spares.append(sp)
        return True

    def _limit(self, sp, lim):
        """Set a waiting child's rlimits; False if that is impossible (raising a hard limit)."""
        try:
            limits_mod.apply_rlimits(sp.pid, limits_mod.rlimits(*lim), self.ceilings)
        except OSError:
            return False
        sp.limits = lim
        return True

    def _tell(self, sp, kind, lim=None):
        try:
            os.write(sp.ctl_w, child.CONTROL.pack(kind, *(lim or (0, 0))))
            return True
        except OSError:
            return False

    def _usable(self, sp):
        """A spare may become the head only while it is exactly as forked: alive, silent on stdout, and on
        the result pipe nothing but its READY byte. Anything else (killed from outside, set-up failed,
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

    def promote(self):
        """Make the oldest usable spare the head, with the current limits; None if there is none."""
        while self.spares:
            sp = self.spares.popleft()
            if (self._usable(sp) and (sp.limits == self.limits or self._limit(sp, self.limits))
                    and self._tell(sp, child.C_HEAD, sp.limits)):
                self.head = sp
                return sp
            self.discard(sp)
        return None

    def next_record(self, sp, timeout=None):
        """The child's TAKEN record (outcome, header, t0); WAIT if none within `timeout`; GONE if it died
        before it began to read. Raises Desync if it died after."""
        while True:
            if not select.select([sp.res_r], [], [], timeout)[0]:
                return WAIT
            b = os.read(sp.res_r, 1)
            if b == child.READY and not sp.ready:
                sp.ready = True
                continue
            rest = _read_exact(sp.res_r, child.TAKEN.size - 1) if b == b'T' and sp.ready else None
            if rest is None:  # died (or wrote what its trusted code never writes)
                if sp.began():
                    raise Desync('a call child died while reading its request')
                return GONE
            rec = child.TAKEN.unpack(b + rest)
            return rec[1], rec[2:10], rec[10]

    def discard(self, sp):
        for fd in (sp.ctl_w, sp.out_r, sp.res_r, sp.beg_r):
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
        if block and not self.opts['seccomp']:
            # Without the filter a call may have started processes of its own (we are their subreaper).
            while True:
                try:
                    if os.waitpid(-1, os.WNOHANG)[0] == 0:
                        break
                except ChildProcessError:
                    break

    # --- one request ----------------------------------------------------------------------------------
    def dispatch(self, outcome, header, t0, sp):
        """Serve one request whose header was read at t0 (by the head `sp`, or by this process when sp is
        None). False when the executor is to exit."""
        op, seq, length, timeout_ms, cpu_s, memory_mb, stdout_cap, result_cap = header
        if outcome == child.T_END:
            return False
        if op == OP_EXIT:
            return False
        if op != OP_JOB:
            send_json(F_ERROR, seq, {'message': f'unknown request op {op} (length {length})'})
            return False
        lim = (memory_mb, cpu_s)
        self.limits = lim
        if sp is not None and outcome == child.T_LIMITS:
            # The head holds the header and waits: lower its limits (prlimit) and let it go on, or, if a
            # hard limit would have to rise, let a child forked with the job's limits read the job.
            if self._limit(sp, lim) and self._tell(sp, child.C_GO):
                outcome, _, _ = self.next_record(sp)
            else:
                self._tell(sp, child.C_ASIDE)
                self.discard(sp)
                sp = None
        if sp is None:
            sp = self.child_for((header, t0))
            if sp is None:
                _skip_request(length)
                self.out.end(seq, 'NoResult', 0, f',"exit":{child.SETUP_FAILED}')
                return True
            outcome, _, _ = self.next_record(sp)
            if outcome is GONE:  # died before it read anything: the job is still in the stream
                _skip_request(length)
                self.discard(sp)
                self.reap(block=True)
                self.out.end(seq, 'Lost', 0)
                return True
        if outcome != child.T_JOB:  # the stream ended inside the job
            self.discard(sp)
            return False
        # A fork of this process and a spare's set-up cost a few ms of CPU on this kind of VM, so they are
        # kept off the call's clock: the replacement is forked once the executor is idle (serve). Only
        # when the next request is already waiting and no spare is left is it forked now, so that it
        # overlaps this call (the child runs on the other core) instead of delaying the next one in full.
        if not self.spares and self.want and _pending(0):
            self.top_up()
        self.out.end(seq, *self.watch(sp, seq, t0, t0 + timeout_ms / 1000, stdout_cap, result_cap))
        # Kill the child's process group whatever happened: nothing it started may outlive the call.
        self.discard(sp)
        # After the reply: wait until the child is really gone (a killed process can finish the syscall
        # it was in), then empty the scratch dir, so nothing of this call reaches the next one.
        self.reap(block=True)
        self.wipe_scratch()
        return True

    def child_for(self, request):
        """A child forked for one request whose header is read (its limits set first), told to go on."""
        for _attempt in range(3):
            sp = self.fork_child(request)
            if sp is not None and self._tell(sp, child.C_GO):
                return sp
            if sp is not None:
                self.discard(sp)
        return None

    def watch(self, sp, seq, started, deadline, stdout_cap, result_cap):
        """Forward the child's stdout and result until both pipes close, the deadline passes or a cap
        is exceeded; returns the END record as (status, ms, detail)."""
        poller = select.poll()
        poller.register(sp.out_r, select.POLLIN)
        poller.register(sp.res_r, select.POLLIN)
        open_fds, out_len, res_len, killed = 2, 0, 0, None
        while open_fds and not killed:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                killed = 'Timeout'
                break
            for fd, ev in poller.poll(max(1, int(remaining * 1000 + 0.999))):
                n = _pending(fd)
                if fd == sp.res_r:
                    res_len += n
                    if res_len > result_cap + RESULT_SLACK:  # the child caps itself; this is forged
                        killed = 'ResultLimit'
                        break
                    if n:
                        self.out.splice(F_RESULT, seq, fd, n)
                elif n:
                    room = stdout_cap - out_len
                    if room > 0:
                        self.out.splice(F_STDOUT, seq, fd, min(n, room))
                    out_len += n
                    if out_len > stdout_cap:
                        killed = 'OutputLimit'
                        break
                # Drained and no writer left (POLLHUP): its end of file, in this round, not the next.
                if n == 0 or ev & select.POLLHUP:
                    poller.unregister(fd)
                    open_fds -= 1
            if open_fds and not killed:  # still running: what it printed so far goes out now
                self.out.flush()
        ms = (time.monotonic() - started) * 1000
        if killed:
            self.kill(sp.pid)
            return killed, ms, ''
        if res_len == 0:
            self.kill(sp.pid)
            return 'NoResult', ms, self._exit_detail(sp.pid)
        return 'ok', ms, ''

    def _exit_detail(self, pid):
        """How a child that wrote no result ended (it was killed just now if it was still running)."""
        try:
            _, status = os.waitpid(pid, 0)
            self.dying.discard(pid)
        except ChildProcessError:
            return ''
        if os.WIFSIGNALED(status):
            return f',"signal":{os.WTERMSIG(status)}'
        return f',"exit":{os.WEXITSTATUS(status)}'

    # --- scratch dir ----------------------------------------------------------------------------------
    def _scratch_state(self):
        st = os.stat(self.opts['scratch'])
        return (st.st_size, st.st_nlink)

    def wipe_scratch(self):
        """After a call, empty the scratch dir so no file outlives the call. On a tmpfs (bubblewrap) one
        stat says whether anything is there (its size counts entries), and the names are read and
        removed in a short-lived child, so they never enter this process's memory either. Elsewhere
        (mode 'none': no isolation to keep) it is emptied here."""
        scratch = self.opts['scratch']
        if not (scratch and self.opts['fs_writes']):
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
            os.write(2, b'pau-sandbox: the scratch dir cannot be emptied; exiting\n')
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
            os.write(2, f'pau-sandbox: cannot remove {e.path}: {err}\n'.encode(errors='replace'))


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
            if libc.syscall(seccomp.NR['msgget'], 0, 0o1600) != -1:
                code = 1
        except BaseException:
            code = 2 if code == 3 else 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    detail = {0: 'fork, threads, sockets, IPC and signals to others refused',
              1: 'installed, but something that must be refused was allowed',
              2: 'the kernel refused the filter', 3: 'could not load'}.get(code, f'self-test died ({status})')
    return {'ok': code == 0, 'detail': detail}


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
    sys.stdout = open(1, 'w', encoding='utf-8', errors='backslashreplace', closefd=False)
    sys.stderr = open(2, 'w', encoding='utf-8', errors='backslashreplace', closefd=False)
    sys.stdin = open(0, 'r', encoding='utf-8', closefd=False)
    if a.scratch:
        os.chdir(a.scratch)


def _parse_args(argv):
    """The command line (no argparse: it would sit in the template's memory for nothing)."""
    a = types.SimpleNamespace(seccomp=False, fs_writes=False, scratch='', scratch_tmpfs=False, spares=1, limits=None)
    it = iter(argv)
    for arg in it:
        if arg in ('--seccomp', '--fs-writes', '--scratch-tmpfs'):
            setattr(a, arg[2:].replace('-', '_'), True)
        elif arg in ('--scratch', '--spares', '--limits'):
            value = next(it, None)
            if value is None:
                raise SystemExit(f'executor.py: {arg} needs a value')
            if arg == '--spares':
                a.spares = int(value)
            elif arg == '--limits':
                a.limits = tuple(int(x) for x in value.split(','))
                if len(a.limits) != 2 or min(a.limits) < 1:
                    raise SystemExit(f'executor.py: --limits MEMORY_MB,CPU_SECONDS, got {value!r}')
            else:
                a.scratch = value
        else:
            raise SystemExit(f'executor.py: unknown argument {arg!r}')
    return a


def main():
    a = _parse_args(sys.argv[1:])
    libc = seccomp.prepare()
    _become_template(a, libc)
    sec = {'ok': False, 'detail': 'not requested'}
    prepared = None
    if a.seccomp:
        if seccomp.supported():
            prepared = seccomp.Prepared(allow_fs_writes=a.fs_writes)
            sec = _self_test_seccomp(prepared)
        else:
            sec = {'ok': False, 'detail': 'unsupported platform'}
        if not sec['ok']:
            prepared = None
    opts = {'seccomp': prepared is not None, 'fs_writes': a.fs_writes, 'scratch': a.scratch,
            'scratch_tmpfs': a.scratch_tmpfs and bool(a.scratch), 'spares': max(0, min(a.spares, 8)),
            'limits': a.limits}
    ex = Executor(opts, libc, prepared)
    del a
    child.prime()
    gc.collect()
    gc.freeze()  # keep the shared heap out of the collector, so children do not copy it page by page
    while ex.top_up():
        pass
    send_json(F_READY, 0, {'pid': os.getpid(), 'python': sys.version.split()[0], 'seccomp': sec})
    try:
        serve(ex)
    except Desync as e:
        send_json(F_ERROR, 0, {'message': str(e)})
    finally:
        for sp in list(ex.spares) + ([ex.head] if ex.head else []):
            ex.discard(sp)
        ex.reap(block=True)


def _readable(fd, timeout=0):
    return bool(select.select([fd], [], [], timeout)[0])


def serve(ex):
    replied = False  # a reply went out and nothing has been forked since
    while True:
        head = ex.head or ex.promote()
        if head is None and ex.want:
            # Right after a reply, first give the client IDLE_FORK_S to take it in (a request arriving
            # meanwhile is served at once, by a spare forked now).
            if replied:
                _readable(0, IDLE_FORK_S)
            replied = False
            if ex.top_up():
                continue
        if head is None:  # no spare: read the header here; a child forked for it reads the job
            raw = _read_exact(0, REQUEST.size)
            if raw is None:
                return
            if not ex.dispatch(child.T_JOB, REQUEST.unpack(raw), time.monotonic(), None):
                return
        else:
            # Wait for the head's request; top up the other spares meanwhile, one at a time.
            timeout = None
            if ex.count() < ex.want:
                timeout, replied = (IDLE_FORK_S if replied else 0), False
            rec = ex.next_record(head, timeout)
            if rec is WAIT:
                ex.top_up()
                continue
            ex.head = None
            if rec is GONE:  # killed while it waited: nothing of the stream was read
                ex.discard(head)
                continue
            if not ex.dispatch(*rec, head):
                ex.discard(head)
                return
        replied = True
        ex.reap()


if __name__ == '__main__':
    main()
