// The filters that need the method to RUN, as a pure function of what the sandbox observed. The sandbox
// (activities/sandbox) does the running; this file only decides. Static filters live in activities/dataset/analyze.py.
import { type ClassifiedCall, type StoredOutcome, toStoredOutcome } from './outcome';

export const RUNTIME_REASONS = {
  sourceError: 'fails-to-load',
  limit: 'exceeds-limits',
  noWorking: 'no-working-inputs',
  nondeterministic: 'nondeterministic',
  allNone: 'returns-none',
  nonLiteral: 'non-literal-output',
  badInputs: 'non-literal-input',
  stateful: 'stateful',
} as const;

/** The sandbox's own determinism check, when it ran one. */
export interface DeterminismCheck {
  deterministic: boolean;
  stateless: boolean;
  flags: string[];
}

export interface RuntimeVerdict {
  accepted: boolean;
  reasons: string[];
  detail: string;
  /** Inputs (indexes into the list checked) that raised and are dropped from the method's inputs. */
  droppedInputs: number[];
  outcomes: StoredOutcome[];
}

/** Decides from a run of the known inputs (each call in a fresh namespace) plus either a second run of
 * the same inputs or the sandbox's determinism check:
 * - the module must load; no call may hit a limit; the sandbox must accept every argument list;
 * - the same inputs give the same results (deterministic) and calls do not leak state (stateless);
 * - inputs whose call raises are dropped (a test input should not raise), and at least one must remain;
 * - not every result may be None; every result must be a Python literal (no `other` in the encoding). */
export function runtimeVerdict(
  first: ClassifiedCall[],
  second: ClassifiedCall[] | null,
  opts: { sourceError?: string; determinism?: DeterminismCheck } = {},
): RuntimeVerdict {
  const sourceError = opts.sourceError;
  const outcomes = first.map((c) => toStoredOutcome(c, 500));
  const reject = (reason: string, detail: string): RuntimeVerdict => ({ accepted: false, reasons: [reason], detail, droppedInputs: [], outcomes });
  if (sourceError) return reject(RUNTIME_REASONS.sourceError, sourceError);
  const bad = first.find((c) => c.sandboxError);
  if (bad) return reject(RUNTIME_REASONS.badInputs, bad.sandboxError ?? '');
  const limited = [...first, ...(second ?? [])].find((c) => c.limit);
  if (limited) return reject(RUNTIME_REASONS.limit, `${limited.limit}`);
  const droppedInputs = first.map((c, i) => (c.ok ? -1 : i)).filter((i) => i >= 0);
  const working = first.filter((c) => c.ok);
  if (working.length === 0) return { ...reject(RUNTIME_REASONS.noWorking, `every known input raised (${first[0]?.excType ?? '?'})`), droppedInputs };
  if (working.every((c) => c.isNone)) return { ...reject(RUNTIME_REASONS.allNone, 'returns None for every input'), droppedInputs };
  const nonLit = working.find((c) => c.literal === false);
  if (nonLit) return { ...reject(RUNTIME_REASONS.nonLiteral, `output ${String(nonLit.repr).slice(0, 200)} is not a Python literal`), droppedInputs };
  const det = opts.determinism;
  if (det && !det.deterministic) return { ...reject(RUNTIME_REASONS.nondeterministic, det.flags.join(', ').slice(0, 500)), droppedInputs };
  if (det && !det.stateless) return { ...reject(RUNTIME_REASONS.stateful, det.flags.join(', ').slice(0, 500)), droppedInputs };
  for (let i = 0; second && i < first.length; i++) {
    const a = first[i]!;
    const b = second[i];
    const same = b !== undefined && a.ok === b.ok && (a.ok ? a.repr === b.repr : a.excType === b.excType);
    if (!same)
      return {
        ...reject(
          RUNTIME_REASONS.nondeterministic,
          `input ${i}: ${a.ok ? a.repr : a.excType} then ${b ? (b.ok ? b.repr : b.excType) : 'nothing'}`.slice(0, 500),
        ),
        droppedInputs,
      };
  }
  return { accepted: true, reasons: [], detail: '', droppedInputs, outcomes };
}
