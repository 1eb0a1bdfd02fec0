// The area under the ROC curve of scores against a yes/no label, a leaf: the on-policy critic card measures
// with it how well a critic's step ratings pick the steps that ruled something out. Pure code.
import { averageRanks } from './ranks';

/**
 * AUROC: the chance that a positive's score is above a negative's, a tie counted half (the Mann-Whitney U
 * over positives x negatives); 1 = every positive above every negative, 0.5 = no better than chance. Null
 * when either class is empty (no pair to order).
 */
export function auroc(scores: readonly number[], labels: readonly boolean[]): number | null {
  if (scores.length !== labels.length) throw new Error(`${scores.length} scores but ${labels.length} labels`);
  const positives = labels.filter(Boolean).length;
  const negatives = labels.length - positives;
  if (positives === 0 || negatives === 0) return null;
  const ranks = averageRanks(scores);
  const rankSum = ranks.reduce((a, r, i) => a + (labels[i] ? r : 0), 0);
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}
