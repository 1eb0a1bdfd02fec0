#!/usr/bin/env bash
# The Python part of `npm run lint`: Ruff's lint rules and format check (ruff.toml), then the import rule of
# each Python home (python_imports.py beside this file). Ruff is the pinned copy scripts/setup.sh installs.
set -euo pipefail
cd "$(dirname "$0")/../.."
ruff=.tools/ruff/bin/ruff
[ -x "$ruff" ] || { echo "lint: Ruff is not installed in .tools/ruff: run npm run setup" >&2; exit 1; }
"$ruff" check --quiet .
"$ruff" format --check --quiet .
python3 harness/lint/python_imports.py
