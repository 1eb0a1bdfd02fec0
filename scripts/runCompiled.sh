#!/usr/bin/env bash
# Runs one compiled entry point (npm run build: .build/current/...) as a long-lived process: `npm start`,
# `npm run workers` and `npm run bench:episodes` (which bench:peer measures) start theirs through here, so
# the memory settings are written once. Each was measured in bench:peer (docs/sandbox.md, "Memory beside
# inspect_ai"); a value already in the environment wins.
#   MALLOC_ARENA_MAX=2          glibc: at most two malloc arenas, not one per allocating thread.
#   MALLOC_TRIM_THRESHOLD_ / MALLOC_MMAP_THRESHOLD_=131072
#                               fixed at glibc's starting values: freed memory is handed back to the OS
#                               instead of the thresholds growing with the largest buffer ever freed.
#   --max-semi-space-size=4     V8's young generation 2 x 4 MiB instead of 2 x 16 (per isolate).
#   --optimize-for-size         V8 grows its heaps less before collecting: the workers wait on models and
#                               Postgres, so memory is worth more to them than the CPU a collection costs.
# They are for this Node process alone: scripts/nodeOnlyEnv.cjs (preloaded) removes the ones it set from its
# environment, so the processes it starts (the local stack, sandbox executors, llama.cpp) do not inherit them.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -f "$1" ]; then
  echo "usage: bash scripts/runCompiled.sh <compiled entry .mjs> [args...] (run npm run build first)" >&2
  exit 2
fi
node_only=()
set_default() {
  if [ -z "${!1+x}" ]; then
    export "$1=$2"
    node_only+=("$1")
  fi
}
set_default MALLOC_ARENA_MAX 2
set_default MALLOC_TRIM_THRESHOLD_ 131072
set_default MALLOC_MMAP_THRESHOLD_ 131072
export PAU_NODE_ONLY_ENV="${node_only[*]-}"
# An absolute path: `--require scripts/x.cjs` would be looked up as a package name.
here="$(cd "$(dirname "$0")" && pwd)"
exec node --require "$here/nodeOnlyEnv.cjs" --max-semi-space-size=4 --optimize-for-size "$@"
