"""Evidence for the determinism / statelessness check: a static scan of the source and, per call, what
the running code touched (audit-hook events, mutated globals and default arguments).

None of this is a security boundary (audit hooks can be dodged with ctypes); it is a filter signal for
the dataset builder. The kernel-level limits are in seccomp.py and the bubblewrap launch.
"""

import ast
import sys

from encoding import canonical, encode

# Modules whose use makes outputs depend on something other than the inputs, or touches the world.
NONDETERMINISTIC_MODULES = {
    "random",
    "secrets",
    "time",
    "datetime",
    "uuid",
    "threading",
    "multiprocessing",
    "asyncio",
    "concurrent",
    "calendar",
}
WORLD_MODULES = {
    "os",
    "sys",
    "io",
    "pathlib",
    "shutil",
    "tempfile",
    "glob",
    "subprocess",
    "socket",
    "ctypes",
    "urllib",
    "http",
    "requests",
    "sqlite3",
    "pickle",
    "shelve",
    "signal",
    "resource",
    "gc",
    "importlib",
    "builtins",
    "inspect",
    "platform",
    "getpass",
    "fileinput",
    "logging",
}
NONDETERMINISTIC_CALLS = {
    "id",
    "hash",
    "input",
    "open",
    "globals",
    "vars",
    "locals",
    "exec",
    "eval",
    "compile",
    "__import__",
    "breakpoint",
}


def static_scan(source):
    """Flags from the source text alone (parsed, never run)."""
    flags = set()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ["unparsable"]
    for node in ast.walk(tree):
        mods = []
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            mods = [node.module]
        for m in mods:
            top = m.split(".")[0]
            if top in NONDETERMINISTIC_MODULES:
                flags.add(f"imports-nondeterministic:{top}")
            elif top in WORLD_MODULES:
                flags.add(f"imports-io:{top}")
        if isinstance(node, ast.Global):
            flags.add("global-statement")
        elif isinstance(node, ast.Nonlocal):
            flags.add("nonlocal-statement")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in NONDETERMINISTIC_CALLS:
            flags.add(f"calls:{node.func.id}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for d in list(node.args.defaults) + [d for d in node.args.kw_defaults if d is not None]:
                if isinstance(d, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.Call)):
                    flags.add("mutable-default-argument")
        elif isinstance(node, (ast.AsyncFunctionDef, ast.Await)):
            flags.add("async")
    return sorted(flags)


# Audit events worth reporting, by prefix. Imports of stdlib code show up as 'open' of .py files; those
# are filtered out below.
_EVENT_PREFIXES = (
    "open",
    "os.",
    "socket.",
    "subprocess.",
    "shutil.",
    "ctypes.",
    "time.sleep",
    "sqlite3.",
    "urllib.",
    "builtins.input",
    "sys.settrace",
    "sys.setprofile",
    "sys._getframe",
    "import",
    "exec",
    "compile",
    "object.__setattr__",
    "object.__delattr__",
    "code.__new__",
    "marshal.",
    "pickle.",
    "glob.",
    "tempfile.",
    "signal.",
    "resource.",
    "fcntl.",
    "mmap.",
)
_IGNORED_EVENTS = {"os.scandir", "os.listdir"}  # the import machinery lists directories
_MAX_EVENTS = 40


class EventRecorder:
    """An audit hook that records the events of one call while `active` (it cannot be removed later,
    which is fine: it dies with the call's process)."""

    def __init__(self):
        self.active = False
        self.events = []
        self._seen = set()
        self._code_ok = set()

    def hook(self, event, args):
        if not self.active or not event.startswith(_EVENT_PREFIXES) or event in _IGNORED_EVENTS:
            return
        detail = ""
        if event == "open" and args:
            path = str(args[0])
            if path.endswith((".py", ".pyc", ".so")) or path.startswith((sys.prefix, sys.base_prefix)):
                return
            mode = args[1] if len(args) > 1 and isinstance(args[1], str) else "r"
            detail = f"{path}:{mode}"
        elif event == "import" and args:
            detail = str(args[0])
        elif event in ("exec", "compile"):
            return  # our own exec of the method; the static scan reports exec/eval/compile calls
        key = f"{event}:{detail}" if detail else event
        if key not in self._seen and len(self.events) < _MAX_EVENTS:
            self._seen.add(key)
            self.events.append(key[:200])

    def install(self):
        sys.addaudithook(self.hook)


def _snapshot_value(v):
    try:
        return canonical(encode(v))
    except BaseException:
        return None


def snapshot_state(namespace):
    """Canonical encodings of the plain-data globals and the function defaults of the method's module."""
    snap = {}
    for name, v in list(namespace.items()):
        if name.startswith("__"):
            continue
        if callable(v) and hasattr(v, "__defaults__"):
            snap[f"defaults:{name}"] = _snapshot_value((v.__defaults__, v.__kwdefaults__))
        elif type(v) in (list, dict, set, int, float, str, bytes, bytearray, tuple, bool, type(None), frozenset):
            snap[f"global:{name}"] = _snapshot_value(v)
    return snap


def state_changes(before, namespace):
    after = snapshot_state(namespace)
    changes = []
    for key, value in after.items():
        if key not in before:
            changes.append(f"{key.split(':', 1)[0]}-added:{key.split(':', 1)[1]}")
        elif before[key] != value:
            kind, name = key.split(":", 1)
            changes.append(f"{kind}-mutated:{name}")
    return changes
