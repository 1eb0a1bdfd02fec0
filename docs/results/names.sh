#!/usr/bin/env bash
# The names measurement (docs/results/names.md): two benchmark runs that differ only in `--names`, then the
# paired report of the anonymised run against the original one. Both runs and the report are resumable: a run
# id that exists is continued (`--resume`), not started again.
#
# Usage: bash docs/results/names.sh
# Environment: workers running (`npm run pau -- stack up`, `npm run workers`), the data set built
# (`npm run pau -- dataset build --name pau-v1`), the 0.5B and the 1.5B installed (`npm run pau -- models install`).
set -euo pipefail
cd "$(dirname "$0")/../.."

# The first 4 test methods of each source with meaningful names (humaneval, mbpp, codealpaca), in dataset order.
METHODS=mbpp/534,mbpp/179,mbpp/265,mbpp/738,humaneval/HumanEval/16,codealpaca/2k:134,codealpaca/2k:1522,codealpaca/2k:968,codealpaca/2k:1516,humaneval/HumanEval/99,humaneval/HumanEval/49,humaneval/HumanEval/74
COMMON=(--dataset pau-v1 --split test --methods "$METHODS" --models local/qwen2.5-coder-0.5b,mock-oracle,mock-null
  --settings interactive --max-calls 10 --max-turns 10 --temperature 0 --judge-model local/qwen2.5-coder-1.5b)

run() {
  local id=$1
  shift
  if npm run -s pau -- runs show "$id" >/dev/null 2>&1; then
    npm run -s pau -- bench run --run-id "$id" --resume
  else
    npm run -s pau -- bench run "${COMMON[@]}" "$@" --run-id "$id"
  fi
}

run names-original-1207
run names-anonymised-1207 --names anonymised
npm run -s pau -- report names-anonymised-1207 --compare names-original-1207 --out reports/names
