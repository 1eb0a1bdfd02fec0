#!/usr/bin/env bash
# The AAC experiment (docs/results/aac-experiment.md, pre-registered): base, outcome, mix + the execution critic,
# mix + the best LLM critic, on the 0.5B at the training budget. Resumable: run it again after an interruption;
# a completed arm is skipped, a running one waited for, a failed one restarted under the same id (its model calls
# come from the cache and its trainer jobs resume from their last save, so nothing is redone from scratch).
#
# Usage: bash docs/results/aac-experiment.sh
#        CRITIC=<model> CRITIC_FORMAT=rubric|verify bash docs/results/aac-experiment.sh   (the LLM critic arm's critic)
# Environment: the stack and workers up (`npm run pau -- stack up`, `npm run workers`), pau-v1 loaded, the 0.5B
# and the 1.5B installed (`npm run pau -- models install`).
set -euo pipefail

BASE=local/qwen2.5-coder-0.5b
JUDGE=${JUDGE:-local/qwen2.5-coder-1.5b}
CRITIC=${CRITIC:-local/qwen2.5-coder-1.5b}
CRITIC_FORMAT=${CRITIC_FORMAT:-verify}
TAG=${TAG:-aac}
# 24 validation methods used for nothing else (the pre-registration says how they were chosen)
EVAL_METHODS=${EVAL_METHODS:-codealpaca/2k:802,codealpaca/2k:996,humaneval/HumanEval/9,mbpp/660,mbpp/891,mbpp/728,mbpp/5,mbpp/19,mbpp/246,mbpp/560,mbpp/113,mbpp/849,mbpp/568,mbpp/969,mbpp/797,mbpp/444,mbpp/972,mbpp/971,mbpp/518,mbpp/182,mbpp/3,mbpp/30,mbpp/222,mbpp/36}
pau() { npm run --silent pau -- "$@"; }
status_of() { pau runs show "$1" 2>/dev/null | head -1 | sed -n 's/^run [^ ]* ([a-z-]*): \([a-z]*\).*/\1/p'; }
stage() { printf '\n== %s  (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }

# One arm: skipped when completed, waited for while running, (re)started otherwise.
arm() {
  local id=$1 t0
  shift
  t0=$(date +%s)
  case "$(status_of "$id")" in
    completed) echo "$id: completed, skipped"; return 0 ;;
    running)
      echo "$id: running, waiting"
      while [[ "$(status_of "$id")" == running ]]; do sleep 60; printf '  %s: running %d min\n' "$id" $(( ($(date +%s) - t0) / 60 )); done ;;
    *) pau grpo train "$@" --run-id "$id" ;;
  esac
  echo "$id: $(status_of "$id") in $(( ($(date +%s) - t0) / 60 )) min"
}

COMMON=(--base "$BASE" --judge-model "$JUDGE" --dataset pau-v1 --split train --methods-per-epoch 6 --group 4
  --epochs 1 --max-calls 4 --max-tokens 192 --temperature 1 --seed 7 --mini-batch-size 4
  --eval-budgets training --eval-methods "$EVAL_METHODS")

stage "judge card of $JUDGE"
pau calibrate judge --judge "$JUDGE" --dataset pau-v1 || echo "the judge did not qualify: its scores are withheld"

stage "arm outcome"
arm "$TAG-outcome" "${COMMON[@]}" --critic exec --reward outcome
stage "arm mix + exec"
arm "$TAG-mix-exec" "${COMMON[@]}" --critic exec --reward mix
stage "arm mix + $CRITIC ($CRITIC_FORMAT)"
arm "$TAG-mix-llm" "${COMMON[@]}" --critic "$CRITIC" --critic-format "$CRITIC_FORMAT" --reward mix

stage "reports: each arm against the others, paired by method, with the gate and the power figures"
pau grpo report "$TAG-mix-exec" --compare "$TAG-outcome,$TAG-mix-llm"
pau grpo report "$TAG-mix-llm" --compare "$TAG-outcome"
