// Held-out inputs for code match: the method's own held-out probe inputs plus generated inputs of the same
// shapes. Generation mutates the literals of the known inputs (numbers, strings, booleans) and keeps
// every bracket, comma and keyword name, so a list of ints stays a list of ints of the same length, a
// string stays a string of about the same length and alphabet. Deterministic: the same method, inputs,
// count and seed give the same inputs. Pure code, no I/O.
import { fnv1a } from '../common/hash';
import { tokenize } from '../python/literal';
import { seededRandom } from '../common/seededRandom';

export interface HeldoutOptions {
  /** How many generated inputs to add (before the sandbox drops those the original rejects). */
  generated: number;
  seed: number;
}

export const DEFAULT_HELDOUT: HeldoutOptions = { generated: 10, seed: 1 };

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const DIGITS = '0123456789';

function pick(rand: () => number, s: string): string {
  return s[Math.floor(rand() * s.length)] as string;
}

function randInt(rand: () => number, lo: number, hi: number): number {
  return lo + Math.floor(rand() * (hi - lo + 1));
}

function mutateNumber(text: string, rand: () => number): string {
  if (/^0[xXoObB]/.test(text) || /[jJ]$/.test(text)) return text; // rare forms: keep
  const clean = text.replace(/_/g, '');
  if (/^\d+$/.test(clean)) {
    const v = Number(clean);
    if (!Number.isSafeInteger(v)) return text;
    const next = rand() < 0.5 ? Math.max(0, v + randInt(rand, -3, 3)) : randInt(rand, 0, Math.max(10, 2 * v));
    return String(next);
  }
  const v = Number(clean);
  if (!Number.isFinite(v)) return text;
  const decimals = /\.(\d+)/.exec(clean)?.[1]?.length ?? 1;
  const scaled = v === 0 ? rand() * 2 : v * (0.5 + rand());
  const fixed = scaled.toFixed(Math.min(decimals, 6));
  return fixed.includes('.') ? fixed : `${fixed}.0`;
}

function mutateString(text: string, rand: () => number): string {
  const m = /^([rRbBuU]*)('''|"""|'|")([\s\S]*)\2$/.exec(text);
  if (!m) return text;
  const [, prefix, quote, body] = m as unknown as [string, string, string, string];
  if (body.includes('\\')) return text; // escapes: keep rather than risk breaking the literal
  const chars = [...body].map((c) => {
    if (rand() >= 0.35) return c;
    if (LOWER.includes(c)) return pick(rand, LOWER);
    if (UPPER.includes(c)) return pick(rand, UPPER);
    if (DIGITS.includes(c)) return pick(rand, DIGITS);
    return c;
  });
  const r = rand();
  if (r < 0.15 && chars.length > 0) chars.splice(randInt(rand, 0, chars.length - 1), 1);
  else if (r < 0.3) {
    const sample = chars.find((c) => /[A-Za-z0-9]/.test(c)) ?? 'a';
    const alphabet = DIGITS.includes(sample) ? DIGITS : UPPER.includes(sample) ? UPPER : LOWER;
    chars.splice(randInt(rand, 0, chars.length), 0, pick(rand, alphabet));
  }
  return `${prefix}${quote}${chars.join('').replaceAll(quote, '')}${quote}`;
}

/** One mutation of a literal argument text: each number, string and bool may change; structure stays. */
export function mutateLiteral(text: string, rand: () => number): string {
  return tokenize(text)
    .map((t) => {
      if (t.kind === 'num') return rand() < 0.7 ? mutateNumber(t.text, rand) : t.text;
      if (t.kind === 'str') return rand() < 0.7 ? mutateString(t.text, rand) : t.text;
      if (t.kind === 'name' && (t.text === 'True' || t.text === 'False')) return rand() < 0.3 ? (t.text === 'True' ? 'False' : 'True') : t.text;
      return t.text;
    })
    .join('');
}

/**
 * `count` new argument texts made by mutating the known inputs, all distinct from each other and from the
 * known ones. Fewer when the inputs leave too little to vary (e.g. no literals at all).
 */
export function generateInputs(known: readonly string[], count: number, seedKey: string, seed = DEFAULT_HELDOUT.seed): string[] {
  const bases = known.filter((k) => k.trim() !== '');
  if (count <= 0 || bases.length === 0) return [];
  const rand = seededRandom(fnv1a(`${seed}:${seedKey}`));
  const seen = new Set(bases.map(normalise));
  const out: string[] = [];
  for (let attempt = 0; attempt < count * 20 && out.length < count; attempt++) {
    const base = bases[attempt % bases.length] as string;
    const next = mutateLiteral(base, rand);
    const key = normalise(next);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(next);
  }
  return out;
}

function normalise(s: string): string {
  return s.replace(/\s+/g, '');
}

export interface HeldoutSet {
  /** The method's own held-out inputs (always used). */
  given: string[];
  /** Generated inputs of the same shapes (dropped by code match where the original rejects them). */
  generated: string[];
}

/** The held-out set of a method: its held-out inputs plus `generated` mutations of probe and held-out inputs. */
export function heldoutSet(
  method: { id: string; probeInputs: readonly string[]; heldoutInputs: readonly string[] },
  options: Partial<HeldoutOptions> = {},
): HeldoutSet {
  const o = { ...DEFAULT_HELDOUT, ...options };
  const known = [...method.heldoutInputs, ...method.probeInputs];
  return { given: [...method.heldoutInputs], generated: generateInputs(known, o.generated, method.id, o.seed) };
}
