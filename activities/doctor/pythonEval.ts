// Doctor part on `pau-sandbox`: evaluate a small Python method in the real sandbox (the same pool the
// benchmark uses), and report its isolation mode.
import { sharedSandboxPool } from '../sandbox/index';
import type { DoctorPartResult } from './checkDatabase';

const PROBE = 'def probe(n):\n    return sum(i * i for i in range(n))\n';

export async function pythonEval(): Promise<DoctorPartResult> {
  const pool = sharedSandboxPool();
  const [mode, batch] = await Promise.all([pool.mode(), pool.runBatch({ source: PROBE, entry: 'probe', calls: ['10'] })]);
  const r = batch.results[0];
  const value = r?.ok ? r.repr : `${r?.error.type}: ${r?.error.message}`;
  const ok = r?.ok === true && r.repr === '285';
  return {
    part: 'sandbox',
    ok,
    detail: `probe(10) = ${value} (sum of squares 0..9), sandbox mode ${mode}${mode === 'bwrap+seccomp' ? '' : ' — WEAKER than bwrap+seccomp, see docs/sandbox.md'}`,
  };
}
