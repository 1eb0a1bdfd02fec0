// The trainer's virtualenv (trainer/setup.sh creates it on first use, shared by every checkout of the
// machine) and its python: the trainer jobs (activities/training/trainerProcess.ts) and the CLI's Parquet
// export (pyarrow) run in it.
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { PROJECT_ROOT } from '../../config/env';

export const TRAINER_DIR = path.join(PROJECT_ROOT, 'trainer');

let python: Promise<string> | undefined;

/** The trainer venv's python, creating the venv on first use (minutes; a no-op once it exists). */
export function ensureTrainerPython(onProgress?: (line: string) => void): Promise<string> {
  python ??= new Promise<string>((resolve, reject) => {
    const child = spawn('bash', [path.join(TRAINER_DIR, 'setup.sh')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    readline.createInterface({ input: child.stderr }).on('line', (line) => {
      err = (err + line + '\n').slice(-4000);
      onProgress?.(line);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const py = out.trim().split('\n').pop() ?? '';
      if (code === 0 && py) resolve(py);
      else reject(new Error(`trainer/setup.sh failed (exit ${code}): ${err.trim().slice(-1500)}`));
    });
  }).catch((e: unknown) => {
    python = undefined; // a later call may succeed (e.g. the registry was unreachable)
    throw e;
  });
  return python;
}
