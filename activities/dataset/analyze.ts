// Runs analyze.py (ast only; nothing executes) over many candidates in ONE process, isolated
// (`-I`, empty environment) and under a timeout.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { env } from '../../config/env';
import { Analysis } from '../../domain/dataset/analysis';
import type { CandidateMethod } from '../../domain/dataset/types';

export const ANALYZE_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'analyze.py');

export interface AnalyzeOptions {
  python?: string;
  timeoutMs?: number;
}

export async function analyzeCandidates(cands: CandidateMethod[], opts: AnalyzeOptions = {}): Promise<Analysis[]> {
  if (cands.length === 0) return [];
  const python = opts.python ?? env().PAU_PYTHON;
  const input = cands.map((c, i) => JSON.stringify({ key: String(i), code: c.code, entry_point: c.entryPoint ?? null, inputs: c.inputs })).join('\n') + '\n';
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn(python, ['-I', ANALYZE_SCRIPT], { env: {}, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new Error(`analyze.py failed (${signal ?? `exit ${code}`}): ${err.slice(-2000)}`));
    });
    child.stdin.on('error', () => undefined); // a crash is reported by 'close'
    child.stdin.end(input);
  });
  const lines = stdout.split('\n').filter((l) => l.trim());
  if (lines.length !== cands.length) throw new Error(`analyze.py answered ${lines.length} of ${cands.length} records`);
  return lines.map((l) => Analysis.parse(JSON.parse(l)));
}
