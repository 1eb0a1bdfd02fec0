// inspect_ai's virtualenv (requirements.txt beside this file), created by scripts/setup.sh in the shared
// cache as `venvs/inspect-<first 12 hex of sha256(requirements.txt)>`: the same path is computed here, so a
// changed pin is a fresh venv on both sides. Used to name `inspect view` to the user, by the tests, and by
// bench:peer (inspect_ai's side of the comparison).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from '../../config/env';

const REQUIREMENTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'requirements.txt');

export function inspectVenvDir(): string {
  const hash = createHash('sha256').update(fs.readFileSync(REQUIREMENTS)).digest('hex').slice(0, 12);
  return path.join(cacheDir(), 'venvs', `inspect-${hash}`);
}

/** The venv's `inspect` command when the venv is complete, else undefined (setup creates it). */
export function readyInspectBin(dir = inspectVenvDir()): string | undefined {
  return fs.existsSync(path.join(dir, '.complete')) ? path.join(dir, 'bin', 'inspect') : undefined;
}

/** The venv's python; throws naming the command that creates it when the venv is not complete. */
export function inspectPython(dir = inspectVenvDir()): string {
  if (!readyInspectBin(dir))
    throw new Error(`inspect_ai's virtualenv ${dir} is not ready: run npm run setup (it installs ${path.relative(process.cwd(), REQUIREMENTS)})`);
  return path.join(dir, 'bin', 'python');
}

/** The pinned inspect_ai version (its line in requirements.txt). */
export function inspectVersion(): string {
  return /^inspect_ai==(\S+)$/m.exec(fs.readFileSync(REQUIREMENTS, 'utf8'))?.[1] ?? 'unknown';
}
