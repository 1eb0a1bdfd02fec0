"""A pre-forked call child ("spare"). It is forked from the executor (the template) before its job
exists. Everything that does not depend on the job was done once in the executor and is inherited:
modules imported, sys.stdout/stderr/stdin objects made, signal dispositions, working directory,
no-new-privs, not dumpable, the seccomp program assembled; the executor also sets this process's group
and rlimits from outside. What is left here is per process and cheap: die with the executor, put the
pipes in place and close everything else, install the filter with this pid, say "ready" (one byte on
the result pipe), warm the parser/encoder pages while no job is waiting.

Then it takes ONE job. The head spare (told so by the executor on its control pipe, with the limits it
was given) reads its request straight from the client's request stream: it says "begin" on the result
pipe, reads the 32-byte header, and, when the job's limits are the ones it already has, exactly
`length` bytes of job; it closes the stream and reports the header ("taken") before anything of the job
is parsed. A job with other limits waits, header read, until the executor has set them ("go") or hands
the job to a fresh child ("step aside"). A child forked for one known request (no spare ready, or
`--spares 0`) gets its header from the executor and reads only the job's bytes. The job:
  - "call": compile the method, parse the arguments, run, write one JSON result;
  - "analyze": coverage.py's static analysis of the source (+ the determinism scan), summarised over the
    arcs the batch's calls executed.
Then it closes its pipes and exits. Everything the untrusted code changed (sys.modules, builtins,
imported modules, globals, the heap) dies with it; the next call is a new fork of the clean executor,
whose memory never held another call's source, arguments or results (it never reads a job at all).
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

MODULE_NAME = '__pau_method__'
MAX_MESSAGE = 2000
CTL_FD = 4  # executor -> child control pipe, after isolate_fds
REQ_FD = 5  # the client's request stream (the executor's stdin), after isolate_fds; closed before the job
BEGIN_FD = 6  # child -> executor: BEGIN, on a pipe of its own that the executor looks at only if needed
PR_SET_PDEATHSIG = 1
SETUP_FAILED = 71  # exit status of a child that could not configure itself (it never reads a job)
REQUEST = struct.Struct('<8I')  # the client's request header (see executor.py)
OP_JOB = 1
# child -> executor, written by this (trusted) code only: on the result pipe before the job's result,
READY = b'R'  # configured, filter installed
TAKEN = struct.Struct('<cB2x8Id')  # b'T', outcome, the request header, CLOCK_MONOTONIC when it was read
# and on BEGIN_FD (not watched, so it does not wake the executor in the middle of a call):
BEGIN = b'B'  # about to read the request stream (a death from here to TAKEN leaves it out of step)
T_JOB, T_LIMITS, T_OTHER, T_END = 0, 1, 2, 3  # job read / other limits: header only / not a job / EOF
# executor -> child, on the control pipe: (kind, memory_mb, cpu_seconds)
CONTROL = struct.Struct('<c3xII')
C_HEAD, C_GO, C_ASIDE = b'H', b'G', b'X'  # read the next request (with these limits) / read the job / exit


# Made once, in the template: json.loads(bytes) sniffs the encoding in Python code and json.dumps with
# options builds an encoder per call, which cost a fresh child 50-90 us and ~15 us of its critical path
# (measured in forks after a 20 ms pause, caches cold).
_DECODER = json.JSONDecoder()
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(',', ':'))


def _parse_job(data):
    """The job's JSON (UTF-8 text from the client); ValueError if it is not exactly one JSON value."""
    text = data.decode('utf-8', 'surrogatepass')
    job, end = _DECODER.raw_decode(text)
    if end != len(text):
        raise ValueError('trailing data after the job')
    return job


def _error(type_, message):
    return {'ok': False, 'error': {'type': type_, 'message': str(message)[:MAX_MESSAGE]}}


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _encode_result(result, result_limit):
    """The result as JSON bytes, or a ResultLimit error when that is over the limit."""
    try:
        data = _ENCODER.encode(result).encode('utf-8', 'surrogatepass')
        if len(data) > result_limit:
            r = _error('ResultLimit', f'the encoded result is {len(data)} bytes; the limit is {result_limit}')
            r['ms'] = result.get('ms', 0)
            data = json.dumps(r).encode()
    except MemoryError:
        data = b'{"ok":false,"error":{"type":"MemoryLimit","message":"out of memory while encoding the result"}}'
    except BaseException as e:
        data = json.dumps(_error('SandboxError', f'cannot serialise the result: {type(e).__name__}')).encode()
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
_WARM_JOB = b'{"kind":"call","source":"def f(x):\\n    return x + 1\\n","entry":"f","coverage":false,' \
            b'"audit":false,"limits":{"recursionLimit":1000,"resultBytes":1000000},"call":["1"]}'


def _warm_up():
    """Run a trusted dummy call through the job reader, compiler, argument parser, encoder and result
    serialiser while no job is waiting: the copy-on-write page faults a first call takes in a fresh
    fork (a few hundred, most of the child's cost) are then paid before the job arrives instead of on
    its clock. It touches what a real call touches and little else; skipped when a job is waiting."""
    if _readable(REQ_FD):
        return
    try:
        job = _parse_job(bytearray(_WARM_JOB))
        lim = limits_mod.Limits.from_json(job['limits'])
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
    job = _parse_job(bytearray(_WARM_JOB))
    lim = limits_mod.Limits.from_json(job['limits'])
    traced = dict(job, coverage=True)
    for _ in range(rounds):
        _encode_result(call_result(job, lim), lim.result_bytes)
        arcs = call_result(traced, lim).get('arcs', [])
        _encode_result(analysis_result({'source': job['source'], 'coverage': True, 'audit': True, 'arcs': arcs}), 1 << 26)


def _readable(fd):
    try:
        return bool(select.select([fd], [], [], 0)[0])
    except (OSError, ValueError):
        return False


def _read_exact(fd, n):
    """n bytes from fd, or None at end of file."""
    chunks, left = [], n
    while left:
        b = os.read(fd, left)
        if not b:
            return None
        chunks.append(b)
        left -= len(b)
    return b''.join(chunks)


def _control():
    """The executor's next control message (kind, memory_mb, cpu_seconds); None when it closed the pipe."""
    raw = _read_exact(CTL_FD, CONTROL.size)
    return None if raw is None else CONTROL.unpack(raw)


def _taken(outcome, header, t0):
    os.write(limits_mod.RESULT_FD, TAKEN.pack(b'T', outcome, *header, t0))


def _take_request(memory_mb, cpu_seconds):
    """As the head spare: read the next request's header from the stream; (header, t0) of a job whose
    limits are this process's own (or have been made so by the executor). Exits for anything else."""
    select.select([REQ_FD], [], [])  # wait without consuming: nothing is read before BEGIN is said
    os.write(BEGIN_FD, BEGIN)
    raw = _read_exact(REQ_FD, REQUEST.size)
    t0 = time.monotonic()
    if raw is None:
        _taken(T_END, (0,) * 8, t0)
        os._exit(0)
    header = REQUEST.unpack(raw)
    if header[0] != OP_JOB:
        _taken(T_OTHER, header, t0)
        os._exit(0)
    if memory_mb == 0 or (header[5], header[4]) != (memory_mb, cpu_seconds):
        _taken(T_LIMITS, header, t0)
        reply = _control()
        if reply is None or reply[0] != C_GO:
            os._exit(0)
    return header, t0


def _read_job(length):
    """The job's bytes from the stream into one buffer. Under a memory limit too small for them they are
    still consumed (the stream must stay in step), and None is returned. EOFError: the stream ended."""
    try:
        buf = bytearray(length)
    except MemoryError:
        buf = None
    if buf is None:
        while length:  # in small pieces (the stream is a socket: no splice to /dev/null)
            moved = len(os.read(REQ_FD, min(length, 1 << 14)))
            if moved == 0:
                raise EOFError
            length -= moved
        return None
    view, got = memoryview(buf), 0
    while got < length:
        n = os.readv(REQ_FD, [view[got:]])
        if n == 0:
            raise EOFError
        got += n
    return buf


def main(fds, executor_pid, libc, prepared_filter, request=None):
    """Child entry point after fork; never returns. `request` (header, t0): the request this child was
    forked for, its header already read by the executor (None: a spare, told what to do on CTL_FD)."""
    try:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # die with the executor, never linger
        if os.getppid() != executor_pid:  # it died before the line above took effect
            os._exit(SETUP_FAILED)
        limits_mod.isolate_fds(fds['stdout'], fds['devnull'],
                               {limits_mod.RESULT_FD: fds['result'], CTL_FD: fds['ctl'], REQ_FD: fds['request'],
                                BEGIN_FD: fds['begin']})
        if prepared_filter is not None:
            prepared_filter.install(os.getpid())
        os.write(limits_mod.RESULT_FD, READY)
    except BaseException:  # never run untrusted code in a half-configured sandbox
        os._exit(SETUP_FAILED)
    if request is None:
        msg = _control() if _readable(CTL_FD) else None
        if msg is None or not _readable(REQ_FD):
            _warm_up()  # while no request is waiting: its page faults are then off the call's clock
        if msg is None:
            msg = _control()
        if msg is None or msg[0] != C_HEAD:  # discarded, or the executor is gone
            os._exit(0)
        header, t0 = _take_request(msg[1], msg[2])
    else:
        header, t0 = request
        msg = _control()  # GO once the executor has set this process's limits
        if msg is None or msg[0] != C_GO:
            os._exit(0)
        os.write(BEGIN_FD, BEGIN)
    try:
        body = _read_job(header[2])
    except EOFError:
        _taken(T_END, header, t0)
        os._exit(0)
    os.close(REQ_FD)  # before anything of the job is looked at: no call can read the next request
    os.close(BEGIN_FD)
    _taken(T_JOB, header, t0)
    if body is None:
        _finish(_error('MemoryLimit', 'the job does not fit in the memory limit'), 1 << 20)
    try:
        job = _parse_job(body)
    except MemoryError:
        _finish(_error('MemoryLimit', 'the job does not fit in the memory limit'), 1 << 20)
    except ValueError:
        _finish(_error('SandboxError', 'unreadable job'), 1 << 20)
    del body
    if not isinstance(job, dict):
        _finish(_error('SandboxError', 'unreadable job'), 1 << 20)
    lim = limits_mod.Limits.from_json(job.get('limits'))
    sys.setrecursionlimit(lim.recursion_limit)
    if job.get('kind') == 'analyze':
        analyze(job, lim)
    run_call(job, lim)


def _compile(job):
    from covtrace import METHOD_FILENAME
    try:
        return compile(job['source'], METHOD_FILENAME, 'exec', dont_inherit=True), None
    except (SyntaxError, ValueError, OverflowError, MemoryError, RecursionError) as e:
        message = getattr(e, 'msg', None) or str(e)
        if isinstance(e, SyntaxError) and e.lineno:
            message += f' (line {e.lineno})'
        return None, {'type': type(e).__name__, 'message': message[:MAX_MESSAGE]}


def run_call(job, lim):
    _finish(call_result(job, lim), lim.result_bytes)


def call_result(job, lim):
    """Compile, parse the arguments, run; the result record (never raises for what the code does)."""
    code, source_error = _compile(job)
    if source_error:
        return {'ok': False, 'error': source_error, 'ms': 0, 'sourceError': True}
    try:
        args, kwargs = parse_call(job['call'])
    except BadArguments as e:
        return _error('BadArguments', e)
    except MemoryError:
        return _error('MemoryLimit', 'out of memory while parsing the arguments')
    except RecursionError:
        return _error('BadArguments', 'arguments nested too deeply')

    recorder = audit.EventRecorder() if job.get('audit') else None
    tracer = None
    if job.get('coverage'):
        from covtrace import ArcRecorder
        tracer = ArcRecorder()
    namespace = {'__name__': MODULE_NAME, '__builtins__': __builtins__}
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
        fn = namespace.get(job['entry'])
        if fn is None:
            result = _error('EntryNotFound', f"the source defines no {job['entry']!r}")
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
    result['ms'] = round(elapsed * 1000, 3)
    if tracer:
        result['arcs'] = [list(a) for a in tracer.arcs()]
    if recorder:
        result['events'] = recorder.events + state_events
    return result


def _exception_result(e):
    if isinstance(e, MemoryError):
        return _error('MemoryLimit', 'the call ran out of memory (memory limit reached)')
    try:
        message = str(e)
    except BaseException:
        message = '<unprintable exception message>'
    return _error(type(e).__name__, message)


def _value_result(value, lim):
    """Encoding runs the value's own __repr__ code, so its failures are reported, not raised."""
    try:
        r = repr(value)
        if len(r) > lim.result_bytes:
            r = r[: lim.result_bytes] + '...'
        return {'ok': True, 'value': encode(value), 'repr': r}
    except MemoryError:
        return _error('MemoryLimit', 'out of memory while encoding the result')
    except RecursionError:
        return _error('ResultLimit', 'the result is nested too deeply to encode')
    except BaseException as e:
        return _error('SandboxError', f'cannot encode the result: {type(e).__name__}: {e}')


def analyze(job, lim):
    _finish(analysis_result(job), 1 << 26)


def analysis_result(job):
    """Static coverage analysis + summary over the executed arcs; determinism scan when asked."""
    out = {'ok': True}
    try:
        if job.get('coverage'):
            from covtrace import StaticAnalysis
            arcs = {(a, b) for a, b in job.get('arcs', [])}
            out['coverage'] = StaticAnalysis(job['source']).summary(arcs)
    except BaseException as e:
        out['coverageError'] = f'{type(e).__name__}: {e}'[:500]
    if job.get('audit'):
        out['staticFlags'] = audit.static_scan(job['source'])
    return out

