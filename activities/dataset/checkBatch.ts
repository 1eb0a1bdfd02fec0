import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../../db/client';
import { sha256Hex } from '../../domain/common/hash';
import { BuildLimits, InputsConfig } from '../../domain/dataset/config';
import { RUNTIME_REASONS, runtimeVerdict, type RuntimeVerdict } from '../../domain/dataset/filters';
import type { MethodRow } from '../../db/schema/datasets';
import { methodsByIds, recordCheck } from '../../platform/dataset/store';
import { codeMatchExclusion, fingerprintText, selectGeneratedHeldout } from '../../domain/dataset/heldout';
import type { ClassifiedCall, StoredOutcome } from '../../domain/dataset/outcome';
import { fromSandboxBatch, portLimits, tallied, type DatasetSandbox } from '../../domain/dataset/sandboxPort';
import type { SandboxWork } from '../../domain/sandbox/schemas';
import { fingerprintPlan, generateInputs, inputSpec } from '../../domain/inputs/generator';
import { parseArgs } from '../../domain/python/literal';
import { literal } from '../../domain/python/print';

/** The first argument as Python prints it (to spot a method that returns it unchanged). */
function firstArgText(input: string): string | null {
  const a = parseArgs(input)?.args[0];
  return a ? literal(a) : null; // the stored form (as before), not repr: the verdicts made with it must not change
}

/** A verdict a time limit decided: under a stalled machine it may not be the method's own (checked once more). */
function timedOut(v: RuntimeVerdict): boolean {
  return !v.accepted && (v.reasons[0] === RUNTIME_REASONS.limit || v.reasons[0] === RUNTIME_REASONS.nondeterministic) && /timeout/i.test(v.detail);
}
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { currentActivity } from '../common/workflowContext';

export interface CheckBatchInput {
  ids: string[];
  limits?: Partial<BuildLimits>;
  /** Generated inputs (held-out, fingerprint); the build config's `inputs`. */
  inputs?: Partial<InputsConfig>;
}

export interface CheckBatchResult {
  checked: number;
  accepted: number;
  rejected: number;
  /** The sandbox calls this batch ran (absent in results recorded before it was counted). */
  work?: SandboxWork;
}

/** A verdict, and which of the known inputs (indexes) a limit stopped on its first run. */
export type CheckedVerdict = RuntimeVerdict & { limited: number[] };

const limitedIndexes = (calls: ClassifiedCall[]) => calls.flatMap((c, i) => (c.limit ? [i] : []));

export async function checkOneMethod(sandbox: DatasetSandbox, m: MethodRow, limits: BuildLimits): Promise<CheckedVerdict> {
  const inputs = [...m.probeInputs, ...m.heldoutInputs];
  const req = { source: m.code, entry: m.entryPoint ?? '', calls: inputs, limits: portLimits(limits) };
  // With the sandbox's determinism check, this first run is that check's run A (audited), not a run of its own.
  const run = await sandbox.runBatch(sandbox.checkDeterminism ? { ...req, audit: true } : req);
  const first = fromSandboxBatch(run);
  const limited = limitedIndexes(first.calls);
  if (first.sourceError || first.calls.some((c) => c.limit || c.sandboxError))
    return { ...runtimeVerdict(first.calls, null, first.sourceError ? { sourceError: first.sourceError } : {}), limited };
  if (sandbox.checkDeterminism) {
    const determinism = await sandbox.checkDeterminism(req, run);
    return { ...runtimeVerdict(first.calls, null, { determinism }), limited };
  }
  const second = fromSandboxBatch(await sandbox.runBatch(req));
  return { ...runtimeVerdict(first.calls, second.calls), limited: [...new Set([...limited, ...limitedIndexes(second.calls)])] };
}

export interface GeneratedCheck {
  heldoutGenerated: string[];
  heldoutGeneratedOutputs: StoredOutcome[];
  codeMatchExclusion: string | null;
  behaviourKey: string | null;
  /** The fingerprint's input types (e.g. `(list[int], int)`), for the summary and for reading clusters. */
  fingerprintTypes: string | null;
  /** Generated inputs (candidates, fingerprint) a limit stopped: on another machine they may finish, and change the rows. */
  limitedCalls: string[];
}

/** The generated part of an accepted method's check: one sandbox batch of held-out candidates and
 * fingerprint inputs (shorter wall-time limit), then the pure decisions of domain/dataset/heldout.ts. */
export async function checkGenerated(
  sandbox: DatasetSandbox,
  m: { id: string; code: string; entryPoint: string | null },
  known: string[],
  givenOutcomes: ClassifiedCall[],
  limits: BuildLimits,
  cfg: InputsConfig,
): Promise<GeneratedCheck> {
  const spec = inputSpec(known);
  const candidates = generateInputs(spec, { count: cfg.heldoutCandidates, seedKey: m.id, purpose: 'heldout', seed: cfg.seed });
  const fp = cfg.fingerprint > 0 ? fingerprintPlan(spec, cfg.fingerprint) : null;
  const fpInputs = fp?.inputs ?? [];
  const lim = portLimits({ ...limits, timeoutMs: Math.min(limits.timeoutMs, cfg.timeoutMs) });
  const run = async (calls: string[]): Promise<ClassifiedCall[]> => {
    if (calls.length === 0) return [];
    const r = fromSandboxBatch(await sandbox.runBatch({ source: m.code, entry: m.entryPoint ?? '', calls, limits: lim }));
    return r.sourceError ? calls.map(() => ({ ok: false, sandboxError: r.sourceError })) : r.calls;
  };
  // The selection takes candidates in order until it has its target, so the first `target` candidates
  // run first (in one batch with the fingerprint inputs) and the rest only when some of those could not
  // be kept (a limit, too many raising): the same selection, without running candidates it never reads.
  const select = { target: cfg.heldoutGenerated, maxRaisingShare: cfg.maxRaisingShare };
  const firstN = Math.min(candidates.length, cfg.heldoutGenerated);
  const firstRun = await run([...candidates.slice(0, firstN), ...fpInputs]);
  let candidateOutcomes = firstRun.slice(0, firstN);
  let held = selectGeneratedHeldout(candidates.slice(0, firstN), candidateOutcomes, select);
  if (held.inputs.length < cfg.heldoutGenerated && firstN < candidates.length) {
    candidateOutcomes = [...candidateOutcomes, ...(await run(candidates.slice(firstN)))];
    held = selectGeneratedHeldout(candidates, candidateOutcomes, select);
  }
  const fpText = fp ? fingerprintText(fp.key, firstRun.slice(firstN), fpInputs.map(firstArgText)) : null;
  const ran = [...candidates.slice(0, candidateOutcomes.length), ...fpInputs];
  const ranOutcomes = [...candidateOutcomes, ...firstRun.slice(firstN)];
  return {
    limitedCalls: limitedIndexes(ranOutcomes).map((i) => ran[i]!),
    heldoutGenerated: held.inputs,
    heldoutGeneratedOutputs: held.outcomes,
    codeMatchExclusion: codeMatchExclusion([...givenOutcomes, ...held.outcomes], cfg.minDistinctOutputs),
    behaviourKey: fpText ? sha256Hex(fpText) : null,
    fingerprintTypes: fp?.key ?? null,
  };
}

export function makeCheckMethodsBatch(deps: { db: () => Db; sandbox: () => DatasetSandbox }) {
  return async function checkMethodsBatch(input: CheckBatchInput): Promise<CheckBatchResult> {
    if (!Array.isArray(input?.ids)) throw ApplicationFailure.nonRetryable('checkMethodsBatch needs { ids: string[] }', FAILURE_TYPES.badDatasetInput);
    const limits = BuildLimits.parse(input.limits ?? {});
    const inputsCfg = InputsConfig.parse(input.inputs ?? {});
    const rows = await methodsByIds(deps.db(), input.ids);
    const out: CheckBatchResult = { checked: 0, accepted: 0, rejected: 0 };
    const { sandbox, total } = tallied(deps.sandbox());
    const ctx = currentActivity();
    for (const m of rows) {
      if (ctx?.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? new Error('cancelled');
      ctx?.heartbeat({ done: out.checked, of: rows.length, id: m.id });
      if (m.verdict !== 'pending') {
        // Already decided (a retry of this batch, or a static rejection): nothing to redo.
        out.checked++;
        if (m.verdict === 'accepted') out.accepted++;
        else out.rejected++;
        continue;
      }
      let v = await checkOneMethod(sandbox, m, limits);
      if (timedOut(v)) v = await checkOneMethod(sandbox, m, limits);
      const dropped = new Set(v.droppedInputs);
      const nProbe = m.probeInputs.length;
      const keep = (i: number) => !v.accepted || !dropped.has(i);
      const probeIdx = m.probeInputs.map((_, i) => i).filter(keep);
      const heldIdx = m.heldoutInputs.map((_, i) => i + nProbe).filter(keep);
      const all = [...m.probeInputs, ...m.heldoutInputs];
      const heldoutOutputs = heldIdx.map((i) => v.outcomes[i] ?? { ok: false });
      const gen = v.accepted
        ? await checkGenerated(
            sandbox,
            m,
            [...probeIdx, ...heldIdx].map((i) => all[i]!),
            heldoutOutputs,
            limits,
            inputsCfg,
          )
        : null;
      // Known inputs the build generated (no example call in the source) that all raise: say so.
      const generatedKnown = typeof m.meta?.inputsGenerated === 'number';
      // The calls a time limit stopped, named (`dataset build` explains a row that differs from the shipped file with them).
      const limitedCalls = [...v.limited.map((i) => all[i]!), ...(gen?.limitedCalls ?? [])];
      await recordCheck(deps.db(), {
        id: m.id,
        accepted: v.accepted,
        reasons: v.reasons.map((r) => (generatedKnown && r === RUNTIME_REASONS.noWorking ? 'no-working-generated-inputs' : r)),
        detail: v.detail,
        probeInputs: probeIdx.map((i) => all[i]!),
        heldoutInputs: heldIdx.map((i) => all[i]!),
        probeOutputs: probeIdx.map((i) => v.outcomes[i] ?? { ok: false }),
        heldoutOutputs,
        ...(gen
          ? {
              heldoutGenerated: gen.heldoutGenerated,
              heldoutGeneratedOutputs: gen.heldoutGeneratedOutputs,
              codeMatchExclusion: gen.codeMatchExclusion,
              behaviourKey: gen.behaviourKey,
              meta: { fingerprintTypes: gen.fingerprintTypes, ...(limitedCalls.length ? { limitedCalls } : {}) },
            }
          : limitedCalls.length
            ? { meta: { limitedCalls } }
            : {}),
      });
      out.checked++;
      if (v.accepted) out.accepted++;
      else out.rejected++;
    }
    return { ...out, work: total() };
  };
}
