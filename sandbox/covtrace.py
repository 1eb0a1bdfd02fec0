"""Statement and branch coverage of the method, with coverage.py's definitions.

Static side (once per batch): coverage.py's PythonParser gives the statements, the possible arcs, the
exit counts and the excluded / no-branch lines, exactly as `coverage report --branch` would.
Dynamic side (per call): coverage.py's own C tracer (CTracer, the one `coverage run` uses) records the
arcs executed in the method's file only; this is ~3x cheaper than a settrace tracer written in Python.
Summary (per batch): the union of the calls' arcs goes through the same translation and counting as
coverage.py's `analysis_from_file_reporter` / `Analysis`, so the numbers match its report.

This module deliberately reaches into coverage.py internals (CTracer attributes, packed arcs); the version
is pinned in requirements.txt and a test cross-checks against coverage.py's public API.
"""

import collections
import sys

from coverage.parser import PythonParser

try:
    from coverage.tracer import CFileDisposition as _DispositionClass
    from coverage.tracer import CTracer as _Tracer

    PACKED = True  # CTracer packs (l1, l2) into one int (see coverage/collector.py)
except ImportError:  # pragma: no cover - a coverage.py without its C extension
    from coverage.disposition import FileDisposition as _DispositionClass
    from coverage.pytracer import PyTracer as _Tracer

    PACKED = False

METHOD_FILENAME = "<pau-method>"

# coverage.py's defaults (coverage/config.py: DEFAULT_EXCLUDE, DEFAULT_PARTIAL, DEFAULT_PARTIAL_ALWAYS).
EXCLUDE = [
    r"#\s*(pragma|PRAGMA)[:\s]?\s*(no|NO)\s*(cover|COVER)",
    r"^\s*(((async )?def .*?)?[\])]+(\s*->.*?)?:\s*)?\.\.\.\s*(#|$)",
    r"^\s*if (typing\.)?TYPE_CHECKING:",
]
PARTIAL = [
    r"#\s*(pragma|PRAGMA)[:\s]?\s*(no|NO)\s*(branch|BRANCH)",
    r"^\s*while (True|1|False|0):",
    r"^\s*if (True|1|False|0):",
]


def _join(regexes):
    return "|".join(f"(?:{r})" for r in regexes)


class StaticAnalysis:
    """What coverage.py knows about the source before running it."""

    def __init__(self, source):
        self.parser = PythonParser(text=source, filename=METHOD_FILENAME, exclude=_join(EXCLUDE))
        self.parser.parse_source()
        self.statements = self.parser.statements
        self.excluded = self.parser.excluded
        self.arc_possibilities = self.parser.arcs()
        self.exit_counts = self.parser.exit_counts()
        self.no_branch = self.parser.lines_matching(_join(PARTIAL))

    def summary(self, raw_arcs):
        """Coverage numbers for executed (untranslated) arcs, as coverage.py's Analysis counts them."""
        p = self.parser
        executed_lines = p.translate_lines({line for arc in raw_arcs for line in arc if line > 0}) & self.statements
        arcs = p.translate_arcs(raw_arcs)
        # Reduce self-arcs the way analysis_from_file_reporter does.
        dests = collections.defaultdict(set)
        for a, b in self.arc_possibilities:
            dests[a].add(b)
        single = {a: next(iter(bs)) for a, bs in dests.items() if len(bs) == 1}
        reduced = set()
        for a, b in arcs:
            if a != b:
                reduced.add((a, b))
            elif a in single:
                reduced.add((a, single[a]))
        executed_arcs = p.translate_arcs(reduced)
        branch_lines = {line for line, n in self.exit_counts.items() if n > 1}
        total_branches = sum(n for n in self.exit_counts.values() if n > 1)
        missing_branch_arcs = sorted(
            (a, b)
            for (a, b) in self.arc_possibilities
            if (a, b) not in executed_arcs and a not in self.no_branch and b not in self.excluded and a in branch_lines
        )
        missing_lines = sorted(self.statements - executed_lines)
        return {
            "lines": {"hit": len(self.statements) - len(missing_lines), "total": len(self.statements)},
            "branches": {"hit": total_branches - len(missing_branch_arcs), "total": total_branches},
            "missingLines": missing_lines,
            "missingBranchArcs": [list(a) for a in missing_branch_arcs],
            "executedArcs": sorted([list(a) for a in executed_arcs]),
        }


def _should_trace(filename, frame):
    """Trace the method's own file only (the tracer caches the answer per file name)."""
    d = _DispositionClass()
    d.original_filename = d.canonical_filename = filename
    d.trace = filename == METHOD_FILENAME
    d.source_filename = filename if d.trace else None
    d.reason = ""
    d.file_tracer = None
    d.has_dynamic_filename = False
    return d


def _noop(*_args, **_kwargs):
    return None


class ArcRecorder:
    """Records the arcs executed in the method's file between start() and stop()."""

    def __init__(self):
        self.data = {}
        t = _Tracer()
        t.data = self.data
        t.trace_arcs = True
        t.should_trace = _should_trace
        t.should_trace_cache = {}
        t.lock_data = t.unlock_data = _noop
        t.warn = _noop
        for attr in ("should_start_context", "switch_context", "check_include", "concur_id_func", "disable_plugin"):
            if hasattr(t, attr):
                setattr(t, attr, None)
        if hasattr(t, "file_tracers"):
            t.file_tracers = {}
        self.tracer = t

    def start(self):
        self.running = True
        self.tracer.start()

    def stop(self):
        if getattr(self, "running", False):
            self.running = False
            self.tracer.stop()
            sys.settrace(None)

    def arcs(self):
        raw = self.data.get(METHOD_FILENAME, ())
        if not PACKED:
            return set(raw)
        out = set()
        for packed in raw:
            l1 = packed & 0xFFFFFFF
            l2 = (packed & (0xFFFFFFF << 28)) >> 28
            if packed & (1 << 56):
                l1 = -l1
            if packed & (1 << 57):
                l2 = -l2
            out.add((l1, l2))
        return out
