#!/usr/bin/env bash
# Creates the trainer's virtualenv on first use, shared by every checkout of this machine:
#   $PAU_CACHE_DIR/venvs/trainer-<first 12 hex of sha256(trainer/requirements.txt)>
# (PAU_CACHE_DIR defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/pau). A no-op (well under a second) when that
# venv is complete. Building takes minutes (torch with its CUDA libraries is ~6 GB), so it runs under an
# flock: a second checkout waits for the first instead of building the same thing twice.
#
# Output contract (used by activities/training/trainerProcess.ts): progress goes to stderr; stdout gets one
# line, the absolute path of the venv's python. Exit code 0 = ready, non-zero = failed (message on stderr).
#   --quiet   no progress lines (errors still go to stderr)
set -euo pipefail
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
HERE=$(cd "$(dirname "$0")" && pwd)
QUIET=0
[ "${1:-}" = "--quiet" ] && QUIET=1
say() { [ "$QUIET" = 1 ] || echo "trainer-setup: $*" >&2; }
die() { echo "trainer-setup: error: $*" >&2; exit 1; }

CACHE=${PAU_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pau}
req_sum=$(sha256sum "$HERE/requirements.txt" | cut -c1-12)
VENV=$CACHE/venvs/trainer-$req_sum
READY=$VENV/.pau-ready

# Fast path: complete venv (the marker is written last, after every package installed).
if [ -f "$READY" ]; then
  echo "$VENV/bin/python"
  exit 0
fi

mkdir -p "$CACHE/venvs"
exec 9>"$VENV.lock"
if ! flock -n 9; then
  say "another process is building $VENV; waiting for it"
  flock 9
fi
# The holder may have finished while we waited.
if [ -f "$READY" ]; then
  echo "$VENV/bin/python"
  exit 0
fi

started=$(date +%s)
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || die "python3 (3.10+) is required"
"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' || die "python3 must be 3.10 or newer ($PY)"
total=$(grep -cE '^[A-Za-z0-9]' "$HERE/requirements.txt")
say "creating $VENV ($total pinned packages; torch with its CUDA libraries is ~6 GB, first install takes minutes)"
rm -rf "$VENV"   # a leftover from an interrupted build: never trusted
"$PY" -m venv "$VENV" || die "python3 -m venv failed; install your distro's python3-venv package"

# pip prints one 'Collecting' line per package, then downloads, then installs; turn that into a live count.
log=$VENV/.pau-install.log
# pip is silent while it unpacks ~6 GB: say we are alive every 30 s
( while sleep 30; do say "still installing ($(( $(date +%s) - started ))s, $(du -sh "$VENV" 2>/dev/null | cut -f1))"; done ) &
ticker=$!
# `|| true`: the ticker is usually gone by now, and a failing command in an EXIT trap under `set -e` would
# turn a finished install into exit 1 (it did: the first `npm test` on a fresh machine stopped there).
trap 'kill $ticker 2>/dev/null || true' EXIT
set +e
"$VENV/bin/python" -m pip install --only-binary=:all: --progress-bar off -r "$HERE/requirements.txt" 2>&1 \
  | tee "$log" | {
    n=0
    while IFS= read -r line; do
      case "$line" in
        Collecting*) n=$((n + 1)); say "[$n/$total] $(echo "$line" | cut -c12- | cut -d' ' -f1) ($(( $(date +%s) - started ))s)";;
        Installing\ collected*) say "installing $n packages into the venv ($(( $(date +%s) - started ))s)";;
      esac
    done
  }
rc=${PIPESTATUS[0]}
set -e
kill $ticker 2>/dev/null || true
if [ "$rc" != 0 ]; then
  tail -20 "$log" >&2
  die "pip install failed (exit $rc); full log in $log"
fi
"$VENV/bin/python" -c 'import torch, transformers, peft, gguf, safetensors' || die "the venv does not import its packages"
size=$(du -sh "$VENV" 2>/dev/null | cut -f1)
touch "$READY"
say "ready: $VENV ($size) in $(( $(date +%s) - started ))s"
echo "$VENV/bin/python"
