// Calibrates one method: runs the original on the judge's held-out set, generates the candidates from
// its AST in the sandbox (mutants, constant functions of its outputs, identity), runs each on the same
// inputs, and records the code match of each (the original against itself included). A candidate that
// cannot run scores 0 with its error; the method fails only when the sandbox itself is unusable.
import type { CandidateRun, MethodCalibration } from '../../domain/calibration/types';
import { constantReprs } from '../../domain/calibration/codeMatch';
import { countedInputs } from '../../domain/judge/codeMatch';
import { generatorCall, parseCandidates } from '../../domain/calibration/candidates';
import { errorText } from '../../domain/temporal/errorText';
import { calibration } from '../proxies/mainQueue';
import { sandbox } from '../proxies/sandboxQueue';

const LIMITS = { resultBytes: 16_384 };

export async function calibrateMethodWorkflow(input: { runId: string; methodId: string }): Promise<MethodCalibration> {
  const plan = await calibration.prepareCalibrationMethod({ methodId: input.methodId });
  const base = { runId: input.runId, methodId: plan.methodId, nGiven: plan.nGiven, raisingCounts: plan.raisingCounts };
  if (plan.excluded) return calibration.recordCalibrationMethod({ ...base, datasetExclusion: plan.excluded, original: null, candidates: [] });
  if (plan.heldout.length === 0) return calibration.recordCalibrationMethod({ ...base, original: [], candidates: [] });
  const original = await sandbox
    .runMethodBatch({ source: plan.source, entry: plan.entryPoint, calls: plan.heldout, limits: LIMITS, allowSourceError: true })
    .catch((err: unknown) => ({ error: errorText(err) }));
  if ('error' in original || original.sourceError) {
    const why = 'error' in original ? original.error : `${original.sourceError?.type}: ${original.sourceError?.message}`;
    return calibration.recordCalibrationMethod({ ...base, original: null, originalError: why, candidates: [] });
  }
  const counted = countedInputs(original.results, plan.nGiven, plan.raisingCounts);
  // Nothing counts (every input raised or hit a limit): recorded as excluded without running candidates.
  if (counted.length === 0) return calibration.recordCalibrationMethod({ ...base, original: original.results, candidates: [] });
  const reprs = constantReprs(original.results, counted);
  let generatorError: string | undefined;
  let generated: ReturnType<typeof parseCandidates> = [];
  try {
    const g = await sandbox.runMethodBatch({
      source: plan.generator,
      entry: 'calibration_candidates',
      calls: [generatorCall(plan.source, plan.entryPoint, reprs)],
      limits: { resultBytes: 2_000_000 },
    });
    generated = parseCandidates(g.results[0]);
  } catch (err) {
    generatorError = errorText(err);
  }
  const candidates = [{ kind: 'original' as const, site: 'the method itself', source: plan.source }, ...generated];
  const runs = await Promise.all(
    candidates.map(async (c): Promise<CandidateRun> => {
      try {
        const r = await sandbox.runMethodBatch({ source: c.source, entry: plan.entryPoint, calls: plan.heldout, limits: LIMITS, allowSourceError: true });
        return r.sourceError
          ? { kind: c.kind, site: c.site, results: null, error: `${r.sourceError.type}: ${r.sourceError.message}` }
          : { kind: c.kind, site: c.site, results: r.results };
      } catch (err) {
        return { kind: c.kind, site: c.site, results: null, error: errorText(err) };
      }
    }),
  );
  return calibration.recordCalibrationMethod({ ...base, original: original.results, candidates: runs, ...(generatorError ? { generatorError } : {}) });
}
