// The kinds of run (`runs.kind`), in a leaf with no imports: the table reads its column's values from here
// without loading any kind's schemas (domain/runs/runDocuments.ts holds those), so an episode, which writes
// runs rows, loads no training, calibration or report code.
/** `critic-card`: the rollouts an on-policy critic card rates (domain/training/onPolicyCard.ts), recorded once. */
export const RUN_KINDS = ['benchmark', 'judge', 'sft', 'grpo', 'dataset', 'doctor', 'calibration', 'critic-card'] as const;
export type RunKind = (typeof RUN_KINDS)[number];
