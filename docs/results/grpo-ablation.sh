#!/usr/bin/env bash
# The paper's GRPO reward ablation (issue 23, "The experiment"): outcome (plain GRPO), aac (critic on the
# exploration steps, the outcome on the description) and mix (the default: both), with the base as the
# fourth arm. Policy and critic Qwen2.5-Coder-0.5B; the same training methods, rollout seeds and evaluation
# methods for every arm; a judge that passed its judge card and is not the policy's base.
#
# What each step gives (docs/training.md, "GRPO runs"; docs/results/grpo-ablation.md):
#   - every epoch of every run ends with a benchmark run of its checkpoint beside the base on validation, at
#     the benchmark's budgets (`<run>-eval-e<N>`, its own report: `npm run pau -- report <run>-eval-e<N>`);
#   - `grpo report RUN --compare A,B` pairs the run's checkpoints against the other arms' by method;
#   - the final comparison is one benchmark run of the three last checkpoints and the base, reported like
#     any benchmark run (every episode counted, intervals over methods, every pair of models paired).
#
# Usage: JUDGE=<model> bash docs/results/grpo-ablation.sh            (the full size below)
#        CRITIC=<model> CRITIC_FORMAT=rubric|verify ...              (another step critic than the base)
#        SMALL=1 JUDGE=<model> bash docs/results/grpo-ablation.sh    (the smallest run: 1 epoch, 2 methods, G 2, 6 evaluation methods)
# Environment: workers running (`npm run pau -- stack up`, `npm run workers`), the data set built
# (`npm run pau -- dataset build --name pau-v1`), the 0.5B installed (`npm run pau -- models install`).
set -euo pipefail

: "${JUDGE:?set JUDGE to a judge model that passes its card (the built-in local/qwen2.5-coder-1.5b does in the default contrast format; the critic needs its own card: docs/training.md, section Real critics cards)}"
BASE=${BASE:-local/qwen2.5-coder-0.5b}
# The frozen step critic and its prompt format (docs/training.md, "The critic's formats"): the base in the
# rubric format unless set; CRITIC=local/qwen2.5-coder-1.5b CRITIC_FORMAT=verify is the nearest to its card.
CRITIC=${CRITIC:-$BASE}
CRITIC_FORMAT=${CRITIC_FORMAT:-rubric}
DATASET=${DATASET:-pau-v1}
SEED=${SEED:-7}
TAG=${TAG:-ablation}
# The evaluation's methods: the whole validation split, or EVAL_METHODS. The small run takes the first two of
# each source in the judge card's methods (methods with a gold description, where the card measured judge
# and code writer; the split's first methods by position are CruxEval's, which have none).
if [[ -n "${SMALL:-}" ]]; then
  EPOCHS=1 METHODS=2 GROUP=2
  EVAL_METHODS=${EVAL_METHODS:-mbpp/125,mbpp/237,codealpaca/2k:514,codealpaca/2k:757,humaneval/HumanEval/25,humaneval/HumanEval/33}
else
  EPOCHS=${EPOCHS:-4} METHODS=${METHODS:-8} GROUP=${GROUP:-4} EVAL_METHODS=${EVAL_METHODS:-}
fi
pau() { npm run --silent pau -- "$@"; }

# 0. The judge's card on the data set (exit 1 when it does not qualify: the runs below would refuse it).
pau calibrate judge --judge "$JUDGE" --dataset "$DATASET" --split validation

# 1. One run per reward mode: same methods per epoch (sampled from --seed), same rollout seeds (the first
#    epoch's rollouts are shared through the model-call cache), same validation methods.
for REWARD in outcome aac mix; do
  pau grpo train --base "$BASE" --critic "$CRITIC" --critic-format "$CRITIC_FORMAT" --judge-model "$JUDGE" --dataset "$DATASET" --split train \
    --methods-per-epoch "$METHODS" --group "$GROUP" --epochs "$EPOCHS" --temperature 1 --reward "$REWARD" \
    --seed "$SEED" --eval-every 1 ${EVAL_METHODS:+--eval-methods "$EVAL_METHODS"} --run-id "$TAG-$REWARD"
done

# 2. Each run's report, its checkpoints paired against the other two arms epoch by epoch.
pau grpo report "$TAG-mix" --compare "$TAG-aac,$TAG-outcome"
pau grpo report "$TAG-aac" --compare "$TAG-outcome"

# 3. The final comparison: the three last checkpoints and the base in one benchmark run on validation.
LAST=e$EPOCHS
pau bench run --dataset "$DATASET" --split validation --settings interactive --judge-model "$JUDGE" \
  --models "ckpt:grpo-$TAG-outcome-$LAST,ckpt:grpo-$TAG-aac-$LAST,ckpt:grpo-$TAG-mix-$LAST,$BASE" \
  ${EVAL_METHODS:+--methods "$EVAL_METHODS"} --run-id "$TAG-final"
pau report "$TAG-final"
