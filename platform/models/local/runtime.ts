// The Python runtime of the local model servers: a virtualenv with the pinned llama.cpp wheel
// (requirements.txt beside this file), in the shared cache as `venvs/models-<hash of requirements.txt>`
// so every checkout of the machine uses one copy and a changed pin gets a fresh one. Created under a lock,
// in a temporary folder renamed into place: a half-built virtualenv is never used.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cacheDir } from '../../../config/env';
import { withFileLock } from '../../process/fileLock';

const run = promisify(execFile);
const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REQUIREMENTS = path.join(HERE, 'requirements.txt');
export const SERVER_SCRIPT = path.join(HERE, 'llama_server.py');

export function runtimeDir(): string {
  const hash = createHash('sha256').update(fs.readFileSync(REQUIREMENTS)).digest('hex').slice(0, 12);
  return path.join(cacheDir(), 'venvs', `models-${hash}`);
}

export function runtimePython(dir = runtimeDir()): string {
  return path.join(dir, 'bin', 'python');
}

/** The runtime's python when its virtualenv is complete; undefined when it is not (nothing is created). */
export function readyRuntime(dir = runtimeDir()): string | undefined {
  return fs.existsSync(path.join(dir, '.complete')) ? runtimePython(dir) : undefined;
}

/** The runtime's python, creating the virtualenv first when it is missing (about 10 s, 110 MB). */
export async function ensureRuntime(log: (line: string) => void = () => undefined): Promise<string> {
  const dir = runtimeDir();
  const ready = () => fs.existsSync(path.join(dir, '.complete'));
  if (ready()) return runtimePython(dir);
  return withFileLock(`${dir}.lock`, async () => {
    if (ready()) return runtimePython(dir);
    log(
      `model runtime: creating ${dir} (llama.cpp from PyPI: ${fs
        .readFileSync(REQUIREMENTS, 'utf8')
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .join(' ')})`,
    );
    const tmp = `${dir}.tmp-${process.pid}`;
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    try {
      await run('python3', ['-m', 'venv', tmp]);
      await run(
        path.join(tmp, 'bin', 'python'),
        ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-deps', '--only-binary=:all:', '-r', REQUIREMENTS],
        { maxBuffer: 16 << 20 },
      );
      await run(path.join(tmp, 'bin', 'python'), ['-c', 'import xllamacpp']);
      fs.writeFileSync(path.join(tmp, '.complete'), new Date().toISOString() + '\n');
      fs.rmSync(dir, { recursive: true, force: true });
      fs.renameSync(tmp, dir);
    } catch (err) {
      fs.rmSync(tmp, { recursive: true, force: true });
      const e = err as Error & { stderr?: string };
      throw new Error(`could not create the model runtime ${dir}: ${e.message}${e.stderr ? `\n${e.stderr.slice(-2000)}` : ''}`);
    }
    log(`model runtime: ready (${dir})`);
    return runtimePython(dir);
  });
}
