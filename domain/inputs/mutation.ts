// Inputs made by mutating known ones: each number, string and boolean literal may change while every bracket,
// comma and keyword name stays, so a list of ints stays a list of ints of the same length, a string stays a
// string of about the same length and alphabet. Deterministic: the same inputs, count, key and seed give the
// same inputs. Used for code match's held-out inputs (domain/judge/heldoutInputs.ts) and for inputs the
// typed generator cannot parse (generator.ts). Pure code, no I/O.
import { fnv1a } from '../common/hash';
import { seededRandom } from '../common/seededRandom';
import { tokenize } from '../python/literal';

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
export function mutateInputs(known: readonly string[], count: number, seedKey: string, seed: number): string[] {
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
