// Computes a judge card (domain/judge/card.ts): per method, the judge scores every rung, the coder writes
// code from the coded rungs, the sandbox runs the original and that code on the held-out set, and the
// classifier labels one consistent and one contradicting description; methods run in a sliding window
// (fanOut) and each is recorded as it finishes, so a rerun resumes where the last one stopped.
import { deprecatePatch, setHandler } from '@temporalio/workflow';
import type { CardRung, JudgeCardInput, JudgeCardProgress } from '../../domain/judge/card';
import { fanOut } from '../common/fanOut';
import { judge } from '../proxies/mainQueue';
import { judgeCardProgressQuery } from './judgeCardQueries';
import { sandbox } from '../proxies/sandboxQueue';

const LIMITS = { resultBytes: 16_384 };

export async function judgeCardWorkflow(input: JudgeCardInput) {
  const progress: JudgeCardProgress = { done: 0, resumed: 0, total: input.methods };
  setHandler(judgeCardProgressQuery, () => progress);
  const plan = await judge.planJudgeCard(input);
  const { cardKey, methodIds } = plan;
  const todo = methodIds.filter((id) => !plan.recorded.includes(id));
  const samples = plan.coderSamples ?? 1;
  Object.assign(progress, { total: methodIds.length, done: methodIds.length - todo.length, resumed: methodIds.length - todo.length });
  // One method's judge requests at a time: every judge request shares the judge's long system prompt, so the
  // server puts two methods' requests in the same slot and each evicts the other's code-and-reference prefix.
  // In turn, each method's prefix is processed once per side (activities/judge/card.ts scoreCardRungs).
  let judgeTurn: Promise<unknown> = Promise.resolve();
  const inJudgeTurn = <T>(f: () => Promise<T>): Promise<T> => {
    const p = judgeTurn.then(f);
    judgeTurn = p.catch(() => undefined);
    return p;
  };
  const { failures } = await fanOut(
    todo,
    async (methodId) => {
      const mp = await judge.prepareCardMethod({ methodIds, methodId, ...(input.codeAllRungs ? { codeAllRungs: true } : {}) });
      const base = { methodIds, methodId };
      const format = input.format ? { format: input.format } : {};
      // Retired patches (docs/operations.md, "Workflow patches"): called where their patched() was, so that
      // cards recorded with the markers replay; their old branches (a rung per activity) are gone.
      deprecatePatch('card-rungs-one-activity');
      deprecatePatch('card-judge-one-method-at-a-time');
      const [scores, codes, original, classifier] = await Promise.all([
        // One activity scores a method's rungs one after another, in the judge's turn: each request reuses
        // the method's prompt prefix in the server's cache (its code and reference come before the candidate),
        // while the window keeps the coder and the sandbox busy.
        inJudgeTurn(() =>
          judge.scoreCardRungs({
            ...base,
            rungs: mp.rungs,
            ...(mp.codeOnlyRungs?.length ? { codeOnlyRungs: mp.codeOnlyRungs } : {}),
            ...(mp.retestRungs?.length ? { retestRungs: mp.retestRungs } : {}),
            judgeModel: input.judgeModel,
            params: plan.judgeParams,
            ...format,
            contrastMethodId: plan.contrasts?.[methodId] ?? null,
          }),
        ),
        // k programs per coded rung, one after another so each reuses the rung's prompt prefix (k = 1: the
        // single greedy program, the same commands as before MBR-exec).
        Promise.all(
          mp.coded.map(async (rung) => {
            const programs: (string | null)[] = [];
            for (let sample = 0; sample < samples; sample++)
              programs.push(
                (await judge.writeCardCode({ ...base, rung, coderModel: input.coderModel, params: plan.coderParams, ...(sample ? { sample } : {}) })).code,
              );
            return { rung, programs };
          }),
        ),
        mp.heldout
          ? sandbox.runMethodBatch({ source: mp.heldout.source, entry: mp.heldout.entryPoint, calls: mp.heldout.calls, limits: LIMITS, allowSourceError: true })
          : Promise.resolve(null),
        mp.classifier ? judge.classifyCardPair({ ...base, judgeModel: input.judgeModel, params: plan.judgeParams }) : Promise.resolve(null),
      ]);
      const heldout = mp.heldout;
      const usable = heldout && original && !original.sourceError ? original.results : null;
      const run = async (code: string | null): Promise<typeof usable> => {
        if (!heldout || !usable || !code) return null;
        const r = await sandbox.runMethodBatch({ source: code, entry: heldout.entryPoint, calls: heldout.calls, limits: LIMITS, allowSourceError: true });
        return r.sourceError ? null : r.results;
      };
      const candidates = await Promise.all(
        codes.map(async (c): Promise<{ rung: CardRung; results: typeof usable; samples?: (typeof usable)[] }> => {
          const results = await Promise.all(c.programs.map(run));
          return { rung: c.rung, results: results[0] ?? null, ...(results.length > 1 ? { samples: results } : {}) };
        }),
      );
      await judge.recordCardMethod({
        cardKey,
        methodId,
        source: mp.source,
        scores: scores.map((s) => ({
          rung: s.rung,
          score: s.score,
          argmax: s.argmax,
          ...(s.lowMass ? { lowMass: true } : {}),
          ...('mode' in s && s.mode ? { mode: s.mode } : {}),
          ...('retest' in s && s.retest ? { retest: true } : {}),
        })),
        ...(mp.mode ? { mode: mp.mode } : {}),
        original: usable,
        nGiven: heldout?.nGiven ?? 0,
        raisingCounts: heldout?.raisingCounts ?? false,
        candidates,
        classifier,
        ...(mp.nearMissChange ? { nearMissChange: mp.nearMissChange } : {}),
      });
      progress.done++;
    },
    { window: Math.max(1, Math.min(input.window ?? 2, 20)), pauseWhenSuggested: false },
  );
  return judge.finishJudgeCard({ cardKey, methodIds, failed: failures.length, ...(input.thresholds ? { thresholds: input.thresholds } : {}) });
}
