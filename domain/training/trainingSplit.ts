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
