// Which generated inputs become a method's held-out inputs, whether the method can be scored by code match
// at all, and its behaviour fingerprint: pure decisions over what the dataset build's sandbox observed.
// See docs/datasets.md ("Held-out inputs") and docs/judging.md ("Code match").

import { type ClassifiedCall, type StoredOutcome, toStoredOutcome } from './outcome';

export const CODE_MATCH_EXCLUSIONS = {
  none: 'no-heldout-inputs',
  oneOutcome: 'fewer-than-2-distinct-heldout-outputs',
} as const;

/**
 * The generated held-out inputs to keep, in generation order: calls a limit stopped are dropped; calls that
 * raise are kept (their exception type is expected behaviour) but at most `maxRaisingShare` of `target`,
 * so a generator that often builds inputs the method rejects does not turn code match into a test of
 * error handling.
 */
export function selectGeneratedHeldout(
  inputs: readonly string[],
  outcomes: readonly ClassifiedCall[],
  o: { target: number; maxRaisingShare: number },
): { inputs: string[]; outcomes: StoredOutcome[] } {
  const maxRaising = Math.floor(o.target * o.maxRaisingShare);
  const keep: number[] = [];
  let raising = 0;
  for (let i = 0; i < inputs.length && keep.length < o.target; i++) {
    const r = outcomes[i];
    if (!r || r.limit || r.sandboxError) continue;
    if (!r.ok) {
      if (raising >= maxRaising) continue;
      raising++;
    }
    keep.push(i);
  }
  return { inputs: keep.map((i) => inputs[i]!), outcomes: keep.map((i) => toStoredOutcome(outcomes[i]!, 300)) };
}

/** The outcome as behaviour: the value's repr, or the exception type (messages are not compared). */
export function outcomeToken(r: ClassifiedCall): string {
  if (r.limit || r.sandboxError) return '!limit';
  return r.ok ? `=${r.repr ?? ''}` : `!${r.excType ?? 'Exception'}`;
}

/**
 * Why a method cannot be scored by code match, or null when it can: it needs held-out inputs, and at least
 * `minDistinct` distinct outcomes among them (otherwise a function returning one constant scores 100 %).
 */
export function codeMatchExclusion(outcomes: readonly ClassifiedCall[], minDistinct = 2): string | null {
  const usable = outcomes.filter((r) => !r.limit && !r.sandboxError);
  if (usable.length === 0) return CODE_MATCH_EXCLUSIONS.none;
  if (new Set(usable.map(outcomeToken)).size < minDistinct) return CODE_MATCH_EXCLUSIONS.oneOutcome;
  return null;
}

/**
 * The text a behaviour key hashes: the input types' key and the outcomes on the shared fingerprint inputs.
 * Null when the outcomes cannot tell methods apart: no value returned, fewer than two distinct outcomes,
 * or the method gives back its first argument unchanged on most of them (many string functions only act on
 * characters the inputs lack; being the identity there says nothing about what they do). Such methods are
 * not clustered.
 */
export function fingerprintText(typesKey: string, outcomes: readonly ClassifiedCall[], firstArgs?: readonly (string | null)[]): string | null {
  const tokens = outcomes.map(outcomeToken);
  const ok = outcomes.map((r, i) => [r, i] as const).filter(([r]) => r.ok);
  if (ok.length === 0 || new Set(tokens).size < 2) return null;
  if (firstArgs && ok.filter(([r, i]) => firstArgs[i] != null && r.repr === firstArgs[i]).length >= 0.75 * ok.length) return null;
  return `${typesKey}\n${tokens.join('\n')}`;
}
