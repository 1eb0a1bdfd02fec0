// The columns of a method that its row, its dataset-file record and the build share, named once in two
// groups: what the source record fixes, and what the sandbox's check records (a rebuild whose check key is
// unchanged keeps these). The build's upsert, a file's import and export, and the tests read them. Pure.

/** What a method's source record fixes (the build's normalise step writes them, a dataset file carries them). */
export const METHOD_SOURCE_COLUMNS = ['source', 'sourceId', 'entryPoint', 'signature', 'code', 'codeHash', 'nearHash', 'goldKind', 'goldDescription'] as const;

/** What the sandbox's check of a method records: its verdict, the inputs it ran and what they did. */
export const METHOD_CHECK_COLUMNS = [
  'verdict',
  'rejectReasons',
  'probeInputs',
  'heldoutInputs',
  'probeOutputs',
  'heldoutOutputs',
  'heldoutGenerated',
  'heldoutGeneratedOutputs',
  'codeMatchExclusion',
  'behaviourKey',
] as const;

/** The `keys` of `o` (a row, a record, a normalised method) as an object of their own, in the keys' order. */
export function pickColumns<T, K extends keyof T>(o: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, o[k]])) as Pick<T, K>;
}
