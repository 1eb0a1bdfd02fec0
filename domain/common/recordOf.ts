// A record with one entry per key of a fixed list, typed as such: `Object.fromEntries` returns
// `{ [k: string]: V }`, so each caller used to cast its result. The one cast is here, where the keys are the list's.
export function recordOf<const K extends string, V>(keys: readonly K[], value: (key: K, index: number) => V): Record<K, V> {
  return Object.fromEntries(keys.map((k, i) => [k, value(k, i)])) as Record<K, V>;
}
