// Where a dataset's shipped judge cards live (datasets/<name>/judge-cards/*.json) and which are there: apart from
// their reader (shippedCardFile.ts), which reaches the model servers' plans, so that `npm start`'s plan can ask.
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../config/env';

/** Where a dataset's shipped judge cards live. */
export function shippedCardDir(dataset: string, dir?: string): string {
  return dir ?? path.join(PROJECT_ROOT, 'datasets', dataset, 'judge-cards');
}

/** The file a card of `judgeModel` (and a coder other than it) is shipped in. */
export function shippedCardPath(dataset: string, judgeModel: string, coderModel: string, dir?: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_');
  return path.join(shippedCardDir(dataset, dir), `${safe(judgeModel)}${coderModel === judgeModel ? '' : `__coder-${safe(coderModel)}`}.json`);
}

/** The card files a dataset ships, in name order (none when it has no judge-cards directory). */
export function shippedCardFiles(dataset: string, dir?: string): string[] {
  const d = shippedCardDir(dataset, dir);
  return fs.existsSync(d)
    ? fs
        .readdirSync(d)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => path.join(d, f))
    : [];
}
