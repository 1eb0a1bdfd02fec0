"""PAU sandbox executor: a pre-forking fork server for running untrusted Python methods.

Protocol: one JSON object per line on stdin, JSON lines on stdout (stderr carries diagnostics only).
  -> {"op": "run", "id": "r1", "source": "...", "entry": "f", "calls": [["1", "2"], "3, k='a'"],
      "coverage": true, "audit": false,
      "limits": {"timeoutMs": 2000, "memoryMb": 512, "stdoutBytes": 65536, "recursionLimit": 1000,
                 "resultBytes": 1000000}}
  <- {"id": "r1", "type": "call", "index": 0, "result": {...}[, "events": [...]]}   (one per call, in order)
  <- {"id": "r1", "type": "done", "coverage": {...} | null, "sourceError": null | {...}
      [, "coverageError": "..."][, "staticFlags": [...]]}
  -> {"op": "ping", "id": "p"}   <- {"id": "p", "type": "pong"}
  At start: <- {"type": "ready", "pid": n, "python": "3.11.7", "seccomp": {"ok": bool, "detail": "..."}}

Why pre-forking: on this kind of VM a fork of a 26 MB Python costs ~0.3 ms, the child's first steps
(copy-on-write faults, seccomp filter attach) ~0.5 ms and its exit another ~0.4 ms. The executor
therefore always keeps one child forked, configured and waiting on its job pipe ("spare"); a call is
handed to the spare, and the next spare is forked as soon as the result is in. Fork, set-up and
teardown stay off the call's critical path.

This process is trusted: it never parses or runs the untrusted source or arguments (children do), it
only moves bytes, enforces deadlines and output caps with SIGKILL, reaps, and wipes the scratch dir.
Options: --seccomp (filter each child), --fs-writes (the file system outside the scratch dir is
read-only by other means, i.e. bubblewrap), --scratch DIR (the call's working directory, emptied after
every call when writable).
"""
import argparse
import ctypes
import gc
import json
import os
import select
import shutil
import signal
import sys
import time

sys.dont_write_bytecode = True

# Imported once here, so every child starts with them loaded (a fork shares them for free). PRELOAD is
# the stdlib that benchmark methods import most; anything else is imported by the call itself.
import audit  # noqa: E402,F401
import child  # noqa: E402
import covtrace  # noqa: E402,F401
import encoding  # noqa: E402,F401
import seccomp  # noqa: E402

PRELOAD = ('typing', 're', 'collections', 'collections.abc', 'itertools', 'functools', 'heapq', 'bisect',
           'string', 'operator', 'fractions', 'decimal', 'statistics', 'hashlib', 'copy', 'random', 'math',
           'cmath', 'array', 'dataclasses', 'enum', 'textwrap', 'unicodedata', 'numbers', 'datetime', 'time',
           'base64', 'struct', 'binascii', 'difflib')
for _name in PRELOAD:
    try:
        __import__(_name)
    except ImportError:
        pass

READ_CHUNK = 65536
MAX_ARC_LINE = 10**7
PR_SET_CHILD_SUBREAPER = 36


def send(msg):
    data = (json.dumps(msg, ensure_ascii=False, separators=(',', ':')) + '\n').encode('utf-8', 'surrogatepass')
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]


def _error(type_, message, ms=0.0, stdout=''):
    return {'ok': False, 'error': {'type': type_, 'message': message}, 'stdout': stdout, 'ms': ms}


class Spare:
    """A forked child waiting for its job, and the parent's ends of its three pipes."""

    def __init__(self, pid, job_w, out_r, res_r, limits_key):
        self.pid, self.job_w, self.out_r, self.res_r = pid, job_w, out_r, res_r
        self.limits_key = limits_key  # the limits it applied before waiting (it cannot change them)


class Server:
    def __init__(self, opts, libc):
        self.opts = opts
        self.libc = libc
        self.devnull = os.open(os.devnull, os.O_RDWR)
        self.spare = None
        self.dying = set()  # pids signalled or finished but not reaped yet

    # --- children -------------------------------------------------------------------------------------
    def fork_spare(self, limits_json):
        job_r, job_w = os.pipe()
        out_r, out_w = os.pipe()
        res_r, res_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                child.main({'stdout': out_w, 'result': res_w, 'devnull': self.devnull, 'job': job_r},
                           self.opts, self.libc, limits_json)
            finally:
                os._exit(70)
        for fd in (job_r, out_w, res_w):
            os.close(fd)
        self.spare = Spare(pid, job_w, out_r, res_r, _limits_key(limits_json))

    def take_spare(self, job_bytes, limits_json):
        """Hand a job to the waiting child (forking one with the right limits if needed); retry once on
        a dead spare."""
        for _attempt in range(2):
            if self.spare is not None and self.spare.limits_key != _limits_key(limits_json):
                self.discard(self.spare)
                self.spare = None
            if self.spare is None:
                self.fork_spare(limits_json)
            sp, self.spare = self.spare, None
            try:
                view = memoryview(job_bytes)
                while view:
                    view = view[os.write(sp.job_w, view):]
                os.close(sp.job_w)
                return sp
            except OSError:  # it died while waiting (killed from outside): discard, fork again
                self.discard(sp)
        raise RuntimeError('cannot start a call child')

    def discard(self, sp):
        for fd in (sp.job_w, sp.out_r, sp.res_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.kill(sp.pid)

    def kill(self, pid):
        for k in (os.killpg, os.kill):
            try:
                k(pid, signal.SIGKILL)
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
        if block:  # anything else reparented to us (we are a subreaper)
            while True:
                try:
                    if os.waitpid(-1, os.WNOHANG)[0] == 0:
                        break
                except ChildProcessError:
                    break

    # --- one job --------------------------------------------------------------------------------------
    def run_job(self, job, timeout_ms, stdout_cap, result_cap):
        """Run one job in the spare; returns (result dict, stdout str). Forks the next spare meanwhile."""
        started = time.monotonic()
        sp = self.take_spare(json.dumps(job, ensure_ascii=False).encode('utf-8', 'surrogatepass'), job['limits'])
        # Fork the next spare now: its set-up then runs on another core while this call runs, instead of
        # after it on the next call's clock (back-to-back calls in a batch never leave idle time).
        self.fork_spare(job['limits'])
        deadline = started + timeout_ms / 1000
        out, out_len, res, res_len, killed = [], 0, [], 0, None
        poller = select.poll()
        poller.register(sp.out_r, select.POLLIN)
        poller.register(sp.res_r, select.POLLIN)
        open_fds = {sp.out_r, sp.res_r}
        while open_fds and not killed:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                killed = 'Timeout'
                break
            for fd, _ev in poller.poll(max(1, int(remaining * 1000 + 0.999))):
                data = os.read(fd, READ_CHUNK)
                if not data:
                    poller.unregister(fd)
                    open_fds.discard(fd)
                elif fd == sp.out_r:
                    room = stdout_cap - out_len
                    if room > 0:
                        out.append(data[:room])
                    out_len += len(data)
                    if out_len > stdout_cap:
                        killed = 'OutputLimit'
                        break
                else:
                    res.append(data)
                    res_len += len(data)
                    if res_len > result_cap + READ_CHUNK:  # the child caps itself; this is a forged write
                        killed = 'ResultLimit'
                        break
        ms = round((time.monotonic() - started) * 1000, 3)
        # Kill the child's process group whatever happened: nothing it started may outlive the call.
        self.kill(sp.pid)
        os.close(sp.out_r)
        os.close(sp.res_r)
        stdout = b''.join(out).decode('utf-8', 'replace')
        if killed == 'Timeout':
            return _error('Timeout', f'the call did not finish within {timeout_ms} ms', ms), stdout
        if killed == 'OutputLimit':
            return _error('OutputLimit', f'the call wrote more than {stdout_cap} bytes to stdout', ms), stdout
        if killed == 'ResultLimit':
            return _error('ResultLimit', f'the call wrote a result over {result_cap} bytes', ms), stdout
        if not res:
            return self._ended_without_result(sp.pid, timeout_ms, ms), stdout
        try:
            result = json.loads(b''.join(res))
            if not isinstance(result, dict) or not isinstance(result.get('ok'), bool):
                raise ValueError('not a result object')
        except ValueError:
            return _error('SandboxError', 'the call wrote an unreadable result', ms), stdout
        if not isinstance(result.get('ms'), (int, float)):
            result['ms'] = ms
        return result, stdout

    def _ended_without_result(self, pid, timeout_ms, ms):
        try:
            _, status = os.waitpid(pid, 0)
            self.dying.discard(pid)
        except ChildProcessError:
            return _error('SandboxError', 'the call vanished without a result', ms)
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig == signal.SIGXCPU:
                return _error('Timeout', f'the call used more than its CPU time limit ({timeout_ms} ms)', ms)
            if sig == signal.SIGSEGV:
                return _error('SandboxError', 'the call crashed the interpreter (SIGSEGV, e.g. a C stack overflow)', ms)
            if sig == signal.SIGSYS:
                return _error('SandboxError', 'the call made a forbidden system call', ms)
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            return _error('SandboxError', f'the call was killed by {name}', ms)
        return _error('SandboxError', f'the call exited without a result (status {os.WEXITSTATUS(status)})', ms)

    def wipe_scratch(self, last_pid):
        """After a call, empty the scratch dir so no file outlives the call."""
        scratch = self.opts['scratch']
        if not (scratch and self.opts['fs_writes']):
            return
        if not self.opts['seccomp']:
            # Without the filter the call may have had threads or children still writing: wait them out.
            self.reap(block=True)
        try:
            entries = list(os.scandir(scratch))
        except OSError:
            return
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    for root, dirs, _files in os.walk(e.path):
                        for d in dirs:
                            os.chmod(os.path.join(root, d), 0o700)
                    os.chmod(e.path, 0o700)
                    shutil.rmtree(e.path, ignore_errors=True)
                else:
                    os.unlink(e.path)
            except OSError as err:
                sys.stderr.write(f'pau-sandbox: cannot remove {e.path}: {err}\n')

    # --- one batch ------------------------------------------------------------------------------------
    def serve_batch(self, req):
        rid = req.get('id')
        calls = req.get('calls')
        if not isinstance(req.get('source'), str) or not isinstance(req.get('entry'), str) or not isinstance(calls, list):
            send({'id': rid, 'type': 'done', 'error': {'type': 'SandboxBadRequest', 'message': 'source, entry and calls are required'}})
            return
        lim = req.get('limits') or {}
        timeout_ms = int(lim.get('timeoutMs', 2000))
        stdout_cap = int(lim.get('stdoutBytes', 65536))
        result_cap = int(lim.get('resultBytes', 1_000_000))
        want_cov, want_audit = bool(req.get('coverage')), bool(req.get('audit'))
        base = {'kind': 'call', 'source': req['source'], 'entry': req['entry'], 'limits': lim,
                'coverage': want_cov, 'audit': want_audit}
        executed, source_error = set(), None
        for i, spec in enumerate(calls):
            if source_error:
                result, stdout = _error(source_error['type'], source_error['message']), ''
            else:
                result, stdout = self.run_job(dict(base, call=spec), timeout_ms, stdout_cap, result_cap)
                self.wipe_scratch(None)
                if result.pop('sourceError', False):
                    source_error = result['error']
            result['stdout'] = stdout
            executed |= _valid_arcs(result.pop('arcs', None))
            events = result.pop('events', None)
            msg = {'id': rid, 'type': 'call', 'index': i, 'result': result}
            if want_audit:
                msg['events'] = [str(e)[:200] for e in events][:50] if isinstance(events, list) else []
            send(msg)
            self.reap()
        done = {'id': rid, 'type': 'done', 'sourceError': source_error, 'coverage': None}
        if (want_cov or want_audit) and not source_error:
            # Same limits as the calls (so the waiting spare fits); only the deadline is longer.
            job = {'kind': 'analyze', 'source': req['source'], 'coverage': want_cov, 'audit': want_audit,
                   'arcs': sorted(executed), 'limits': lim}
            res, _ = self.run_job(job, max(timeout_ms, 10_000), stdout_cap, 1 << 26)
            done['coverage'] = res.get('coverage') if want_cov else None
            if want_cov and not res.get('coverage'):
                done['coverageError'] = res.get('coverageError') or f"analysis failed: {res.get('error')}"
            if want_audit:
                done['staticFlags'] = res.get('staticFlags', [])
        elif want_audit:
            done['staticFlags'] = ['unparsable']
        self.reap(block=True)
        send(done)


def _limits_key(limits_json):
    return json.dumps(limits_json or {}, sort_keys=True)


def _valid_arcs(raw):
    """Arcs come from the (untrusted) child: keep only pairs of small ints."""
    out = set()
    if isinstance(raw, list):
        for a in raw:
            if isinstance(a, list) and len(a) == 2 and all(type(x) is int and abs(x) < MAX_ARC_LINE for x in a):
                out.add((a[0], a[1]))
    return out


def _self_test_seccomp(fs_writes):
    """Fork a child that installs the filter and checks that fork, threads and sockets are refused."""
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            seccomp.install(allow_fs_writes=fs_writes)
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
        except BaseException:
            code = 2
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    detail = {0: 'fork, threads and sockets refused', 1: 'installed, but fork or socket still allowed',
              2: 'the kernel refused the filter', 3: 'could not load'}.get(code, f'self-test died ({status})')
    return {'ok': code == 0, 'detail': detail}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seccomp', action='store_true')
    ap.add_argument('--fs-writes', action='store_true')
    ap.add_argument('--scratch', default='')
    a = ap.parse_args()
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a dead child's pipe must raise, not kill us
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    sec = {'ok': False, 'detail': 'not requested'}
    if a.seccomp:
        seccomp.prepare()
        sec = _self_test_seccomp(a.fs_writes) if seccomp.supported() else {'ok': False, 'detail': 'unsupported platform'}
    opts = {'seccomp': a.seccomp and sec['ok'], 'fs_writes': a.fs_writes, 'scratch': a.scratch}
    server = Server(opts, libc)
    gc.collect()
    gc.freeze()  # keep the shared heap out of the collector, so children do not copy it page by page
    server.fork_spare({})
    send({'type': 'ready', 'pid': os.getpid(), 'python': sys.version.split()[0], 'seccomp': sec})
    stdin = sys.stdin.buffer
    try:
        while True:
            line = stdin.readline()
            if not line:
                return
            if not line.strip():
                continue
            try:
                req = json.loads(line)
                if not isinstance(req, dict):
                    raise ValueError('not an object')
            except ValueError as e:
                send({'type': 'error', 'error': {'type': 'SandboxBadRequest', 'message': f'unreadable request: {e}'}})
                continue
            op = req.get('op')
            if op == 'run':
                server.serve_batch(req)
            elif op == 'ping':
                send({'id': req.get('id'), 'type': 'pong'})
            elif op == 'exit':
                return
            else:
                send({'id': req.get('id'), 'type': 'error', 'error': {'type': 'SandboxBadRequest', 'message': f'unknown op {op!r}'}})
    finally:
        if server.spare:
            server.discard(server.spare)
        server.reap(block=True)


if __name__ == '__main__':
    main()
