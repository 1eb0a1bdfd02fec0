// The scripted mock model playing the CONTRADICTION CLASSIFIER (not a language model; its reply says
// so). A fixed rule that makes tests exact: the description's explicit claims `f(ARGS) -> VALUE` (also
// `returns`, `=`, `==`) and `f(ARGS) raises E` are compared with the numbered observations of the same
// arguments: a different value or exception is a contradiction (the first one cited); an observed
// exception whose type the description never names is an omission; otherwise consistent. Pure code.
import { readBlock } from './judgePrompt';

interface Obs {
  n: number;
  args: string;
  ok: boolean;
  text: string;
}

const squash = (s: string) => s.replace(/\s+/g, '');

function observations(user: string): Obs[] {
  const body = readBlock(user, 'observations') ?? '';
  return body.split('\n').flatMap((line) => {
    const m = /^#(\d+) [A-Za-z_][A-Za-z0-9_]*\((.*)\) (->|raises) (.*)$/.exec(line);
    return m ? [{ n: Number(m[1]), args: m[2]!, ok: m[3] === '->', text: m[4]! }] : [];
  });
}

/** The verdict text (without the scripted mark) for a classifier request. */
export function scriptedContradictionVerdict(user: string): string {
  const obs = observations(user);
  const description = readBlock(user, 'description') ?? '';
  const claims = [...description.matchAll(/[A-Za-z_][A-Za-z0-9_]*\(([^()]*)\)\s*(?:->|returns|==|=|raises)\s*([^\s,;]+(?:\s*:\s*[^,;\n]*)?)/g)];
  for (const o of obs) {
    for (const c of claims) {
      if (squash(c[1]!) !== squash(o.args)) continue;
      const claimed = squash(c[2]!.replace(/[.]$/, ''));
      const seen = squash(o.ok ? o.text : (o.text.split(':')[0] ?? ''));
      if (!claimed.startsWith(seen) && !seen.startsWith(claimed)) {
        return `The description says ${c[0].trim()}, but observation #${o.n} shows ${o.text}.\nVERDICT: contradicts\nOBSERVATION: #${o.n}`;
      }
    }
  }
  const unexplained = obs.find((o) => !o.ok && !description.includes(o.text.split(':')[0] ?? '\u0000'));
  if (unexplained) return `Observation #${unexplained.n} raised an exception the description never mentions.\nVERDICT: omits\nOBSERVATION: #${unexplained.n}`;
  return 'Every observation fits the description.\nVERDICT: consistent\nOBSERVATION: none';
}
