// Judges one stored episode: description score (judge model), code written from the description (coder
// model), the sandbox runs of the original and the generated code on held-out and observed inputs, then
// one upsert of the judgment row keyed (episode, judge model). Started as the episode's judge step or by
// judgeRunWorkflow over a stored run, with the same workflow id either way (domain/judge/workflowIds.ts).
import { patched } from '@temporalio/workflow';
import type { JudgeEpisodeInput, JudgeEpisodeResult } from '../../domain/judge/types';
import { judge } from '../proxies/mainQueue';
import { sandbox } from '../proxies/sandboxQueue';

export async function judgeEpisodeWorkflow(input: JudgeEpisodeInput): Promise<JudgeEpisodeResult> {
  const plan = await judge.prepareJudgment(input);
  const { config } = plan;
  if (plan.skip) {
    return {
      episodeId: plan.episodeId,
      judgeModel: config.judgeModel,
      score: null,
      unparsable: false,
      codeMatch: null,
      statementCoverage: null,
      branchCoverage: null,
      contradictsObserved: null,
      skipped: plan.skip,
    };
  }
  const limits = { resultBytes: config.resultBytes };
  const heldout = [...plan.heldoutGiven, ...plan.heldoutGenerated];
  // The judge-model contradiction classifier (behind a patch: histories recorded before it replay as they were).
  const classify = patched('contradiction-classifier')
    ? judge.classifyContradiction({ episodeId: plan.episodeId, judgeModel: config.judgeModel, params: config.judgeParams })
    : Promise.resolve(null);
  // The control of the code-based contradiction check: code from the gold description, checked against
  // the same observations (behind a patch: older histories replay as they were).
  const goldCode =
    patched('gold-description-control') && plan.observedArgs.length > 0
      ? judge.writeCodeFromGold({ episodeId: plan.episodeId, coderModel: config.coderModel, params: config.coderParams })
      : Promise.resolve(null);
  const [verdict, generated, original, observed, contradiction, gold] = await Promise.all([
    judge.judgeDescription({
      episodeId: plan.episodeId,
      judgeModel: config.judgeModel,
      params: config.judgeParams,
      ...(config.format ? { format: config.format } : {}),
    }),
    judge.writeCodeFromDescription({ episodeId: plan.episodeId, coderModel: config.coderModel, params: config.coderParams }),
    heldout.length > 0 ? sandbox.runMethodBatch({ source: plan.source, entry: plan.entryPoint, calls: heldout, limits }) : Promise.resolve(null),
    plan.observedArgs.length > 0
      ? sandbox.runMethodBatch({ source: plan.source, entry: plan.entryPoint, calls: plan.observedArgs, coverage: true, limits })
      : Promise.resolve(null),
    classify,
    goldCode,
  ]);
  // MBR-exec: programs 1..k-1 after the first, one after another so each reuses the description's prompt
  // prefix (k from the plan, so a history replays with the k it ran with; none before it: one program).
  const more = [];
  for (let sample = 1; sample < (config.coderSamples ?? 1); sample++)
    more.push(await judge.writeCodeFromDescription({ episodeId: plan.episodeId, coderModel: config.coderModel, params: config.coderParams, sample }));
  const candidateCalls = [...heldout, ...plan.observedArgs];
  const runCandidate = (code: string | null) =>
    code && candidateCalls.length > 0
      ? // Code that does not compile scores code match 0 with the reason (recordJudgment), not a failed judge.
        sandbox.runMethodBatch({ source: code, entry: plan.entryPoint, calls: candidateCalls, limits, allowSourceError: true })
      : Promise.resolve(null);
  const candidate = await runCandidate(generated.code);
  const moreRuns = await Promise.all(more.map((g) => runCandidate(g.code)));
  const goldRun =
    gold?.code != null
      ? await sandbox.runMethodBatch({ source: gold.code, entry: plan.entryPoint, calls: plan.observedArgs, limits, allowSourceError: true })
      : null;
  return judge.recordJudgment({
    plan,
    verdict,
    generated,
    original: original?.results ?? [],
    candidate: generated.code ? (candidate?.results ?? []) : null,
    candidateSourceError: candidate?.sourceError ?? null,
    coverage: observed?.coverage ?? null,
    ...(contradiction ? { contradiction } : {}),
    ...(gold ? { gold: { generated: gold, results: goldRun?.results ?? null, sourceError: goldRun?.sourceError ?? null } } : {}),
    ...(more.length > 0
      ? {
          samples: [generated, ...more].map((g, i) => {
            const run = i === 0 ? candidate : moreRuns[i - 1];
            return { generated: g, candidate: g.code ? (run?.results ?? []) : null, candidateSourceError: run?.sourceError ?? null };
          }),
        }
      : {}),
  });
}
