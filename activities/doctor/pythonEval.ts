// Doctor part on `pau-sandbox`: evaluate a Python expression in the project's interpreter.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { env } from '../../config/env';
import type { DoctorPartResult } from './checkDatabase';

const run = promisify(execFile);

export async function pythonEval(): Promise<DoctorPartResult> {
  const python = env().PAU_PYTHON;
  const { stdout } = await run(python, ['-I', '-c', 'import sys; print(sum(i*i for i in range(10)), sys.version.split()[0])'], {
    timeout: 20_000,
    env: {},
  });
  const [value, version] = stdout.trim().split(' ');
  const ok = value === '285';
  return { part: 'sandbox', ok, detail: `${python}: sum of squares 0..9 = ${value} (Python ${version})` };
}
