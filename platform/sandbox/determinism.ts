// Is a method deterministic and stateless? Evidence from three runs of the same inputs:
//   A: in order, on the pool's (reused) executors, with audit events and the static scan (or the
//      caller's own such run, `runA`: the dataset build's first run of a method is this run);
//   B: in reverse order, on the same pool;
//   C: in order, on a fresh executor with a different PYTHONHASHSEED (catches set/dict-order and
//      hash() dependence, and anything seeded per process).
// Outcomes (value or error type+message, plus stdout) must agree call by call. Flags name what was seen;
// the dataset builder filters on `deterministic && stateless` or on individual flags.
import { SandboxPool } from './pool';
import { determinismInputSchema, type BatchResult, type DeterminismInput, type DeterminismVerdict } from '../../domain/sandbox/schemas';
import { outcomeKey } from '../../domain/sandbox/outcomeKey';
import { isTimeout } from '../../domain/sandbox/errorTypes';
import { addWork, workOf } from '../../domain/sandbox/work';

const NONDETERMINISM = [/^imports-nondeterministic:/, /^outputs-differ$/, /^hash-seed-dependent$/, /^timeouts$/, /^calls:(id|input|hash)$/, /^sleeps$/];
const STATEFUL = [
  /^mutates-globals$/,
  /^mutates-defaults$/,
  /^global-statement$/,
  /^touches-files$/,
  /^network$/,
  /^subprocess$/,
  /^calls:(open|globals|vars)$/,
];

/** Turn one call's audit events into coarse flags. */
function eventFlags(events: string[]): string[] {
  const out = new Set<string>();
  for (const e of events) {
    if (e.startsWith('global-mutated:') || e.startsWith('global-added:')) out.add('mutates-globals');
    else if (e.startsWith('defaults-mutated:')) out.add('mutates-defaults');
    else if (
      e.startsWith('open:') ||
      /^os\.(remove|rename|mkdir|rmdir|chmod|truncate|link|symlink|unlink)/.test(e) ||
      e.startsWith('shutil.') ||
      e.startsWith('tempfile.')
    )
      out.add('touches-files');
    else if (e.startsWith('socket.') || e.startsWith('urllib.')) out.add('network');
    else if (e.startsWith('subprocess.') || e.startsWith('os.system') || e.startsWith('os.exec') || e.startsWith('os.fork') || e.startsWith('os.posix_spawn'))
      out.add('subprocess');
    else if (e.startsWith('time.sleep')) out.add('sleeps');
    else if (e.startsWith('os.putenv') || e.startsWith('os.unsetenv')) out.add('mutates-environment');
    else if (e.startsWith('import:')) out.add(`imports-at-call:${e.slice(7)}`);
  }
  return [...out];
}

export interface DeterminismOptions {
  /** Creates the fresh single-executor pool of run C (default: a new SandboxPool, same settings, seed 1). */
  freshPool?: () => SandboxPool;
  /** Run A, already made by the caller: the same calls in order, with `audit`. B and C then run at once. */
  runA?: BatchResult;
}

export async function checkDeterminism(pool: SandboxPool, input: DeterminismInput, opts: DeterminismOptions = {}): Promise<DeterminismVerdict> {
  const req = determinismInputSchema.parse(input);
  const n = req.calls.length;
  const base = { source: req.source, entry: req.entry, limits: req.limits };
  if (opts.runA && (opts.runA.results.length !== n || !opts.runA.events || !opts.runA.staticFlags))
    throw new Error(`checkDeterminism: runA must be an audited run of the same ${n} calls`);
  const ownA = opts.runA === undefined;
  const runA = opts.runA ?? (await pool.runBatch({ ...base, calls: req.calls, audit: true }));
  const fresh = opts.freshPool?.() ?? new SandboxPool({ size: 1, hashSeed: 1 });
  let reversed: BatchResult;
  let runC: BatchResult;
  try {
    // B and C are independent (other executors): run them side by side.
    [reversed, runC] = await Promise.all([pool.runBatch({ ...base, calls: [...req.calls].reverse() }), fresh.runBatch({ ...base, calls: req.calls })]);
  } finally {
    await fresh.close();
  }
  const runB: BatchResult = { ...reversed, results: [...reversed.results].reverse() };
  const runs = ['in order (reused executors)', 'reversed order (reused executors)', 'in order (fresh executor, other hash seed)'];
  const flags = new Set<string>(runA.staticFlags ?? []);
  const eventsByCall = runA.events ?? Array.from({ length: n }, () => []);
  for (const ev of eventsByCall) for (const f of eventFlags(ev)) flags.add(f);
  const mismatches: { call: number; outcomes: string[] }[] = [];
  let onlyHashSeed = true;
  for (let i = 0; i < n; i++) {
    const results = [runA, runB, runC].map((r) => r.results[i]);
    const keys = results.map((res) => (res ? outcomeKey(res, { withMessage: true, withStdout: true }) : 'missing'));
    if (results.some((res) => res && !res.ok && isTimeout(res.error.type))) flags.add('timeouts');
    if (new Set(keys).size > 1) {
      mismatches.push({ call: i, outcomes: keys });
      if (keys[0] !== keys[1]) onlyHashSeed = false;
    }
  }
  if (mismatches.length) flags.add(onlyHashSeed ? 'hash-seed-dependent' : 'outputs-differ');
  const list = [...flags].sort();
  return {
    deterministic: !list.some((f) => NONDETERMINISM.some((re) => re.test(f))),
    stateless: !list.some((f) => STATEFUL.some((re) => re.test(f))),
    flags: list,
    work: [reversed, runC, ...(ownA ? [runA] : [])].map((r) => workOf(r.results)).reduce(addWork),
    details: { runs, mismatches, eventsByCall, staticFlags: runA.staticFlags ?? [], mode: runA.mode },
  };
}
