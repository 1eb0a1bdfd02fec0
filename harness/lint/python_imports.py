"""The import rule of the Python here, run by `npm run lint` (beside ruff and the TypeScript rule file,
.dependency-cruiser.cjs). Each Python home may import the standard library, its own modules and the
third-party packages its environment installs, and nothing else: the sandbox stays stdlib-first (it forks
for every call, so every module is paid for), no home reaches into another (the trainer never imports the
sandbox, and the reverse), and a new third-party import is a decision made here, with the requirements file
that installs it. A Python file under no home fails: give it one below.

Usage: python3 harness/lint/python_imports.py (from anywhere; checks the files git knows and new ones)
"""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# psutil: pinned in trainer/requirements.txt (a dependency of accelerate); the torchrun launcher and the tests
# use it to find and stop the ranks.
TRAINER_PACKAGES = {
    "torch",
    "transformers",
    "peft",
    "safetensors",
    "numpy",
    "gguf",
    "xllamacpp",
    "psutil",
    "tensorboardX",
}
# pyarrow: pinned in trainer/requirements.txt; pau_trainer.dataset_file writes the dataset file as Parquet with it.
# datasets and pandas (pinned there too): the tests read the shipped dataset file with them, as a user outside the
# project would.
DATASET_FILE_PACKAGES = {"pyarrow"}
DATASET_FILE_TEST_PACKAGES = {"datasets", "pandas"}

# (folder, what it is, the third-party modules it may import, folders whose modules it imports by name). The
# third-party modules are those its environment installs: requirements.txt (the sandbox), trainer/requirements.txt,
# platform/models/local/requirements.txt; inspect_ai (platform/export/requirements.txt) for the peer benchmark and
# the export test's reader.
HOMES = [
    ("sandbox/", "the sandbox executor", {"coverage"}, ["sandbox", "sandbox/tests"]),
    ("trainer/pau_trainer/", "the trainer", TRAINER_PACKAGES | DATASET_FILE_PACKAGES, ["trainer"]),
    (
        "trainer/tests/",
        "the trainer's tests",
        TRAINER_PACKAGES | DATASET_FILE_PACKAGES | DATASET_FILE_TEST_PACKAGES | {"pytest"},
        ["trainer", "trainer/tests"],
    ),
    ("activities/dataset/", "the static analysis of methods, run with python -I", set(), ["activities/dataset"]),
    ("activities/calibration/", "the calibration mutants, run in the sandbox", set(), ["activities/calibration"]),
    ("platform/models/local/", "the local model server's helpers", {"xllamacpp"}, ["platform/models/local"]),
    ("harness/bench/", "the inspect_ai side of bench:peer", {"inspect_ai"}, ["harness/bench"]),
    ("harness/lint/", "this rule", set(), ["harness/lint"]),
    ("test/report/", "the export test's reader of eval logs", {"inspect_ai"}, ["test/report"]),
]


def python_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", "*.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted({f for f in out.splitlines() if (ROOT / f).exists()})


def own_modules(folders: list[str]) -> set[str]:
    names = set()
    for folder in folders:
        for p in (ROOT / folder).iterdir():
            if p.suffix == ".py":
                names.add(p.stem)
            elif p.is_dir() and (p / "__init__.py").exists():
                names.add(p.name)
    return names


def imports(source: str, filename: str):
    """(line, top-level module) of every absolute import, wherever it stands (functions, try blocks)."""
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module.split(".")[0]


def main() -> int:
    stdlib = set(sys.stdlib_module_names)
    errors = []
    files = python_files()
    for f in files:
        home = next((h for h in HOMES if f.startswith(h[0])), None)
        if home is None:
            errors.append(f"{f}: no import rule covers this file: give its folder a home in {Path(__file__).name}")
            continue
        folder, what, third_party, own = home
        allowed = stdlib | third_party | own_modules(own)
        for line, module in imports((ROOT / f).read_text(encoding="utf-8"), f):
            if module not in allowed:
                extra = ", ".join(sorted(third_party)) or "no third-party package"
                errors.append(
                    f"{f}:{line}: imports {module}, which {folder} ({what}) may not: it imports the standard library, "
                    f"its own modules and {extra}"
                )
    for e in errors:
        print(e, file=sys.stderr)
    print(f"python imports: {len(files)} files, {len(errors)} violations")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
