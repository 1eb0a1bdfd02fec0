// Training never sees the test split unless asked in so many words: the test split is what the final
// comparison is measured on, and a model trained (or its SFT data built, or its GRPO rollouts sampled) on it
// would be graded on its own training data. Every training entry (sft build, sft train on a data set built
// from test, grpo train) asks this before it starts anything. Pure.

export const TEST_SPLIT = 'test';

/** The refusal message when `split` is the test split and `--allow-test-split` was not given; null otherwise. */
export function testSplitRefusal(what: string, split: string | undefined, allowTestSplit: boolean | undefined): string | null {
  if (split !== TEST_SPLIT || allowTestSplit) return null;
  return (
    `${what} on the test split is refused: the test split is held out for the final comparison, and a model ` +
    'trained on it would be graded on its own training data. Use --split train (or validation), or pass ' +
    '--allow-test-split if you really mean it.'
  );
}

/**
 * `grpo train --methods a,b` names its training methods directly: each must be a method of the data set in the
 * training split asked for (`--split`), so the test split cannot come in through the list. `splitOf`: each
 * named method's split in the data set (absent: not in it). The refusal, or null.
 */
export function namedMethodsRefusal(
  what: string,
  dataset: string,
  split: string,
  splitOf: ReadonlyMap<string, string>,
  methodIds: readonly string[],
  allowTestSplit: boolean | undefined,
): string | null {
  const missing = methodIds.filter((id) => !splitOf.has(id));
  if (missing.length > 0) return `${what}: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not a method of the data set ${dataset}`;
  const onTest = methodIds.filter((id) => splitOf.get(id) === TEST_SPLIT);
  if (onTest.length > 0) {
    const refusal = testSplitRefusal(`${what} (--methods ${onTest.join(', ')})`, TEST_SPLIT, allowTestSplit);
    if (refusal) return refusal;
  }
  const elsewhere = methodIds.filter((id) => splitOf.get(id) !== split && !(splitOf.get(id) === TEST_SPLIT && allowTestSplit));
  if (elsewhere.length > 0) {
    return `${what}: --methods ${elsewhere.map((id) => `${id} (${splitOf.get(id)})`).join(', ')} ${elsewhere.length === 1 ? 'is' : 'are'} not in the ${split} split of ${dataset} (--split ${split})`;
  }
  return null;
}
