"""The executor's pre-forked spares, driven over its real wire protocol (no Node): each spare serves one
job and is then gone, the filter a spare installs is exactly the per-pid program, limits are set on it,
a burst larger than the spare pool is served, and no spare outlives its executor (EXIT or SIGKILL).

Runs under pytest or plain unittest: `python -m pytest sandbox/tests` or
`python -m unittest discover -s sandbox/tests` (test/sandbox/pythonTests.test.ts runs the latter).
"""

import json
import os
import struct
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SANDBOX = os.path.dirname(HERE)
sys.path.insert(0, SANDBOX)

import seccomp  # noqa: E402

# The sandbox's interpreter (it has coverage.py), whatever runs these tests.
_VENV_PYTHON = os.path.join(os.path.dirname(SANDBOX), ".venv", "bin", "python")
PYTHON = os.environ.get("PAU_PYTHON") or (_VENV_PYTHON if os.path.exists(_VENV_PYTHON) else sys.executable)

REQUEST = struct.Struct("<8I")
FRAME = struct.Struct("<3I")
F_READY, F_STDOUT, F_RESULT, F_END, F_ERROR = 1, 2, 3, 4, 6
LIMITS = (2000, 3, 256, 65536, 1_000_000)  # timeoutMs, cpuSeconds, memoryMb, stdoutBytes, resultBytes
PROBE = """import os, resource, socket
def f(tag):
    status = dict(l.split(':', 1) for l in open('/proc/self/status').read().splitlines() if ':' in l)
    try:
        socket.socket()
        sock = 'allowed'
    except PermissionError:
        sock = 'refused'
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        forked = 'allowed'
    except PermissionError:
        forked = 'refused'
    mark = globals().setdefault('MARK', tag)
    import builtins
    seen = getattr(builtins, 'pau_test_mark', None)
    builtins.pau_test_mark = tag
    return [os.getpid(), os.getppid(), status['Seccomp'].strip(), status['NoNewPrivs'].strip(),
            list(resource.getrlimit(resource.RLIMIT_AS)), list(resource.getrlimit(resource.RLIMIT_NOFILE)),
            sock, forked, mark, seen]
"""


def alive(pid):
    """A pid that exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except FileNotFoundError:
        return []


def wait_until(cond, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return cond()


class Executor:
    """executor.py with the filter on, driven frame by frame."""

    def __init__(self, spares):
        self.scratch = tempfile.mkdtemp(prefix="pau-prefork-test-")
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "HOME": self.scratch}
        self.proc = subprocess.Popen(
            [
                PYTHON,
                "-s",
                "-B",
                os.path.join(SANDBOX, "executor.py"),
                "--seccomp",
                "--scratch",
                self.scratch,
                "--spares",
                str(spares),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.seq = 0
        kind, _, payload = self.frame()
        assert kind == F_READY, kind
        self.ready = json.loads(payload)

    def _read(self, n):
        out = b""
        while len(out) < n:
            b = os.read(self.proc.stdout.fileno(), n - len(out))
            if not b:
                raise EOFError("executor closed its output")
            out += b
        return out

    def frame(self):
        kind, seq, length = FRAME.unpack(self._read(FRAME.size))
        return kind, seq, self._read(length)

    def send(self, source, args, entry="f", limits=LIMITS):
        self.seq += 1
        job = json.dumps(
            {
                "kind": "call",
                "source": source,
                "entry": entry,
                "coverage": False,
                "audit": False,
                "limits": {"recursionLimit": 1000, "resultBytes": limits[4]},
                "call": [json.dumps(a) for a in args],
            }
        ).encode()
        self.proc.stdin.write(REQUEST.pack(1, self.seq, len(job), *limits) + job)
        self.proc.stdin.flush()
        return self.seq

    def job(self, source, args, entry="f", limits=LIMITS):
        return json.dumps(
            {
                "kind": "call",
                "source": source,
                "entry": entry,
                "coverage": False,
                "audit": False,
                "limits": {"recursionLimit": 1000, "resultBytes": limits[4]},
                "call": [json.dumps(a) for a in args],
            }
        ).encode()

    def send_batch(self, jobs, limits=LIMITS, payload=None):
        """One BATCH message (op 2): <I count>, then <I length> + bytes per job; job i answers seq + i."""
        if payload is None:
            payload = struct.pack("<I", len(jobs)) + b"".join(struct.pack("<I", len(j)) + j for j in jobs)
        first = self.seq + 1
        self.seq += max(1, len(jobs))
        self.proc.stdin.write(REQUEST.pack(2, first, len(payload), *limits) + payload)
        self.proc.stdin.flush()
        return first

    def outcome(self):
        """(end record, result) of the next job."""
        result = b""
        while True:
            kind, _, payload = self.frame()
            if kind == F_RESULT:
                result += payload
            elif kind == F_END:
                return json.loads(payload), (json.loads(result) if result else None)

    def call(self, source, args, **kw):
        self.send(source, args, **kw)
        return self.outcome()

    def spares(self):
        return [p for p in children(self.proc.pid) if alive(p)]

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(REQUEST.pack(3, 0, 0, 0, 0, 0, 0, 0))
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
            self.proc.wait(10)
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except BrokenPipeError:
                pass
        os.rmdir(self.scratch)


@unittest.skipUnless(seccomp.supported(), "the seccomp filter needs x86_64 Linux")
class PreforkTest(unittest.TestCase):
    def test_the_filter_on_a_spare_is_the_per_pid_program(self):
        for fs_writes in (False, True):
            prepared = seccomp.Prepared(allow_fs_writes=fs_writes)
            for pid in (1, 4242, 123456, 2**22):
                self.assertEqual(prepared.for_pid(pid), seccomp.build_filter(pid, fs_writes))

    def test_each_call_runs_on_a_ready_configured_spare_that_serves_it_alone(self):
        ex = Executor(spares=3)
        try:
            self.assertTrue(ex.ready["seccomp"]["ok"], ex.ready)
            self.assertTrue(wait_until(lambda: len(ex.spares()) == 3))
            seen = []
            for i in range(4):
                self.assertTrue(wait_until(lambda: len(ex.spares()) == 3))
                waiting = set(ex.spares())
                end, res = ex.call(PROBE, [f"call{i}"])
                self.assertEqual(end["status"], "ok", (end, res))
                pid, ppid, filt, nnp, as_lim, nofile, sock, forked, mark, previous = res["value"]
                # It ran in a process that was already forked and waiting before the job was sent.
                self.assertIn(pid, waiting)
                self.assertEqual(ppid, ex.proc.pid)
                self.assertEqual([filt, nnp], ["2", "1"])  # seccomp filter mode, no-new-privs
                self.assertEqual(as_lim, [256 << 20, 256 << 20])
                self.assertEqual(nofile, [64, 64])
                self.assertEqual([sock, forked], ["refused", "refused"])
                # Nothing the previous call set is there: a fresh process, used once.
                self.assertEqual(mark, f"call{i}")
                self.assertIsNone(previous)
                seen.append(pid)
                self.assertTrue(wait_until(lambda: not alive(pid)), "a spare outlived its one call")  # noqa: B023 (waited on at once)
            self.assertEqual(len(set(seen)), 4)
        finally:
            ex.close()

    def test_a_spare_waiting_with_other_limits_gets_the_calls_limits(self):
        ex = Executor(spares=2)
        try:
            self.assertTrue(wait_until(lambda: len(ex.spares()) == 2))
            end, res = ex.call(PROBE, ["x"], limits=(2000, 3, 128, 65536, 1_000_000))
            self.assertEqual(end["status"], "ok", (end, res))
            self.assertEqual(res["value"][4], [128 << 20, 128 << 20])
            end, res = ex.call(
                "def f():\n    return bytearray(200 << 20)\n", [], limits=(2000, 3, 128, 65536, 1_000_000)
            )
            self.assertEqual(res["error"]["type"], "MemoryLimit")
            end, res = ex.call(
                "import time\ndef f():\n    while True:\n        pass\n", [], limits=(300, 1, 128, 65536, 1_000_000)
            )
            self.assertEqual(end["status"], "Timeout")
            self.assertLess(end["ms"], 3000)
        finally:
            ex.close()

    def test_a_burst_larger_than_the_spare_pool_is_served(self):
        for spares in (2, 0):
            ex = Executor(spares=spares)
            try:
                n = 12
                for i in range(n):  # all written at once: far more than the spares ready
                    ex.send("import os\ndef f(i):\n    return [i, os.getpid()]\n", [i])
                rows = []
                for _ in range(n):
                    end, res = ex.outcome()
                    self.assertEqual(end["status"], "ok", (spares, end, res))
                    rows.append(res["value"])
                self.assertEqual([r[0] for r in rows], list(range(n)))
                self.assertEqual(len({r[1] for r in rows}), n, "every call its own process")
            finally:
                ex.close()

    def test_a_batch_message_runs_each_call_in_its_own_fresh_child_in_order(self):
        ex = Executor(spares=1)
        try:
            tamper = "import builtins\ndef f(i):\n    builtins.pau_test_mark = i\n    return i\n"
            look = 'import builtins, os\ndef f(i):\n    return [i, os.getpid(), getattr(builtins, "pau_test_mark", None)]\n'
            spin = "def f(i):\n    while True:\n        pass\n"
            jobs = [
                ex.job(look, [0]),
                ex.job(tamper, [1]),
                ex.job(spin, [2]),
                ex.job(look, [3]),
                ex.job("def f(i):\n    return bytearray(400 << 20)\n", [4]),
                ex.job(look, [5]),
            ]
            limits = (400, 2, 256, 65536, 1_000_000)
            first = ex.send_batch(jobs, limits=limits)
            ends, results, seqs = [], [], []
            for _ in jobs:
                result = b""
                while True:
                    kind, seq, payload = ex.frame()
                    if kind == F_RESULT:
                        result += payload
                    elif kind == F_END:
                        seqs.append(seq)
                        ends.append(json.loads(payload))
                        results.append(json.loads(result) if result else None)
                        break
            self.assertEqual(seqs, [first + i for i in range(len(jobs))])
            self.assertEqual([e["status"] for e in ends], ["ok", "ok", "Timeout", "ok", "ok", "ok"])
            self.assertEqual(results[4]["error"]["type"], "MemoryLimit")
            # Each call has its own deadline: the ones after the spinning call are not cut short.
            self.assertLess(ends[3]["ms"], 400)
            pids = [results[i]["value"][1] for i in (0, 3, 5)]
            self.assertEqual(len(set(pids)), 3, "every call its own process")
            # What call 1 set is gone: every later call is a fresh fork of the clean template.
            self.assertEqual([results[i]["value"][2] for i in (0, 3, 5)], [None, None, None])
            # A plain job after the batch is served as usual.
            end, res = ex.call("def f(x):\n    return x * 2\n", [21])
            self.assertEqual((end["status"], res["value"]), ("ok", 42))
        finally:
            ex.close()

    def test_a_malformed_batch_message_is_answered_with_a_clear_error(self):
        cases = {
            "no calls": struct.pack("<I", 0),
            "overrun": struct.pack("<I", 1) + struct.pack("<I", 10_000) + b"{}",
            "short count": b"\x01\x00",
        }
        for name, payload in cases.items():
            ex = Executor(spares=1)
            try:
                seq = ex.send_batch([], payload=payload)
                kind, got, body = ex.frame()
                self.assertEqual((kind, got), (F_ERROR, seq), name)
                self.assertIn("malformed batch request", json.loads(body)["message"], name)
                self.assertEqual(ex.proc.wait(10), 0, name)  # it stops: the stream is out of step
            finally:
                ex.close()

    def test_no_spare_outlives_its_executor(self):
        for how in ("exit", "sigkill"):
            ex = Executor(spares=4)
            try:
                self.assertTrue(wait_until(lambda: len(ex.spares()) == 4))  # noqa: B023 (waited on at once)
                spares = ex.spares()
                if how == "exit":
                    ex.close()
                else:
                    ex.proc.kill()
                    ex.proc.wait(10)
                # EXIT: killed and reaped by the executor; SIGKILL: PR_SET_PDEATHSIG kills them.
                self.assertTrue(wait_until(lambda: not any(alive(p) for p in spares)), (how, spares))  # noqa: B023 (waited on at once)
            finally:
                if how == "sigkill":
                    ex.close()


if __name__ == "__main__":
    unittest.main()
