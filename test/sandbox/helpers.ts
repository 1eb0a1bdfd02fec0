// Shared helpers for the sandbox tests: a pool on the real sandbox, one-call shortcuts, and a process
// census (no test may leave a process behind).
import { execFileSync } from 'node:child_process';
import { SandboxPool, type CallResult, type CallSpec, type Limits } from '../../activities/sandbox/index';

export function newPool(opts: ConstructorParameters<typeof SandboxPool>[0] = {}): SandboxPool {
  return new SandboxPool({ size: 1, ...opts });
}

export async function call1(pool: SandboxPool, source: string, call: CallSpec = [], limits?: Partial<Limits>, entry = 'f'): Promise<CallResult> {
  const r = await pool.runBatch({ source, entry, calls: [call], ...(limits ? { limits } : {}) });
  const first = r.results[0];
  if (!first) throw new Error('no result');
  return first;
}

/** This test process's descendants (its sandboxes and everything under them), as "pid stat args". */
export function descendants(root = process.pid): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' });
  const rows = out
    .split('\n')
    .map((l) => l.trim().match(/^(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), line: `${m[1]} ${m[3]} ${m[4]}` }));
  const found: string[] = [];
  const frontier = [root];
  while (frontier.length) {
    const p = frontier.pop();
    for (const r of rows) {
      if (r.ppid === p && !r.line.includes('ps -eo')) {
        found.push(r.line);
        frontier.push(r.pid);
      }
    }
  }
  return found;
}
