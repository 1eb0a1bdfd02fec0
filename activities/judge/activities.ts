// Judge activities (queue `pau`): plan a judgment from Postgres, score the description with the judge
// model, have the coder model write code from the description, and record the judgment (code match,
// coverage, diagnostics) with one upsert keyed (episode, judge model): a retry or a re-judge by the same
// judge rewrites the row; another judge model adds its own row. The sandbox runs happen in the workflow
// (runMethodBatch on `pau-sandbox`) between these activities.
import { methodView, runNameSetting, underRealName } from '../../domain/episode/names';
import { ApplicationFailure } from '@temporalio/common';
import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { ModelEndpoints } from '../llm/endpoints';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { methods } from '../../db/schema/datasets';
import { episodes, judgments, runs } from '../../db/schema/runs';
import { activityChatDeps } from '../llm/activity';
import { LLM_ERROR_TYPES } from '../llm/errors';
import { ModelConfigError, models } from '../../config/models';
import type { ModelParams } from '../../domain/llm/modelParams';
import { requestParams, sampleParams, withTokenLimit } from '../../domain/llm/requestParams';
import { chat } from '../llm/chat';
import { loadSteps } from '../episode/steps';
import { buildCoderMessages, extractCode } from '../../domain/judge/coderPrompt';
import { CODER_SAMPLE_TEMPERATURE, sampleCallKey } from '../../domain/judge/mbrExec';
import { observedCalls } from '../../domain/episode/observedCalls';
import { codeMatchSet } from '../../domain/judge/codeMatch';
import { resolveJudgeConfig } from '../../domain/judge/config';
import { judgmentOf, type JudgmentInput } from '../../domain/judge/judgment';
import { parseRunJudgeFields } from '../../db/runJudgeFields';
import { neutraliseCandidateText } from '../../domain/judge/candidateText';
import { DEFAULT_SAMPLES, type JudgeFormat, TOP_LOGPROBS } from '../../domain/judge/judgePrompt';
import { judgeFormat, type JudgeAsk, type PlannedRequest, type ScoreCase } from '../../domain/judge/formats';
import { contrastMethodFor, contrastScopeSchema } from './contrastMethod';
import type { ScoreDetail } from '../../domain/judge/scoreDistribution';
import type { TokenLogprob } from '../../domain/llm/tokenLogprobs';
import type { ChatMessage } from '../../domain/llm/chatMessage';
import type { DescriptionVerdict, GeneratedCode, GoldCode, JudgeConfig, JudgeEpisodeInput, JudgeEpisodeResult, JudgePlan } from '../../domain/judge/types';
import { entryPointOf } from '../../domain/dataset/entryPoint';
import { acceptedReferenceDescriptions } from '../../platform/dataset/referenceDescriptions';

/** The params a call to `model` sends with these overrides (the registry's defaults, minus what it rejects). */
export function sentParams(model: string, overrides: ModelParams | undefined): ModelParams {
  try {
    return requestParams(models().get(model), overrides);
  } catch (err) {
    if (err instanceof ModelConfigError) throw ApplicationFailure.nonRetryable(err.message, LLM_ERROR_TYPES.config);
    throw err;
  }
}

async function loadEpisode(db: Db, episodeId: string) {
  const [row] = await db
    .select({ e: episodes, m: methods, runKind: runs.kind, runConfig: runs.config })
    .from(episodes)
    .innerJoin(methods, eq(methods.id, episodes.methodId))
    .innerJoin(runs, eq(runs.id, episodes.runId))
    .where(eq(episodes.id, episodeId))
    .limit(1);
  if (!row)
    throw ApplicationFailure.nonRetryable(`no episode ${JSON.stringify(episodeId)} (or its method or run is missing)`, FAILURE_TYPES.judgeEpisodeNotFound);
  return row;
}

// The registry's params for the model (not a forced temperature 0, which reasoning models reject),
// with the run's overrides as planned; chat() applies the same rule, so this is what is sent.
function judgeChat(
  db: () => Db,
  endpoints: ModelEndpoints,
  model: string,
  methodId: string,
  callKey: string,
  messages: ChatMessage[],
  params: ModelParams | undefined,
  fresh = false,
) {
  return chat(
    { model, messages, params: sentParams(model, params), callKey, about: { methodId }, ...(fresh ? { fresh } : {}) },
    activityChatDeps(db, endpoints),
  );
}

interface JudgeReply {
  text: string;
  logprobs: TokenLogprob[] | undefined;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}

/**
 * One verdict: the judge's reply and, when it has no parsable score, one retry that asks for the score line
 * alone; the reply that holds the score (or the retry) is the one whose logprobs are read.
 */
async function oneVerdict(
  db: () => Db,
  endpoints: ModelEndpoints,
  model: string,
  methodId: string,
  callKey: string,
  messages: ChatMessage[],
  params: ModelParams,
  ask: JudgeAsk,
  fresh = false,
) {
  const first = await judgeChat(db, endpoints, model, methodId, callKey, messages, params, fresh);
  const firstText = first.message.content ?? first.message.refusal ?? '';
  const reply: JudgeReply = { text: firstText, logprobs: first.message.logprobs, tokensIn: first.tokensIn, tokensOut: first.tokensOut, costUsd: first.costUsd };
  if (ask.parse(firstText) !== null || (first.message.logprobs && ask.hasAnswer(first.message.logprobs))) return { reply, rationale: firstText };
  const retry = await judgeChat(
    db,
    endpoints,
    model,
    methodId,
    `${callKey}-retry`,
    [...messages, { role: 'assistant', content: firstText }, { role: 'user', content: ask.retryPrompt }],
    withTokenLimit(params, 8),
    fresh,
  );
  const retryText = retry.message.content ?? retry.message.refusal ?? '';
  return {
    reply: {
      text: retryText,
      logprobs: retry.message.logprobs,
      tokensIn: reply.tokensIn + retry.tokensIn,
      tokensOut: reply.tokensOut + retry.tokensOut,
      costUsd: reply.costUsd + retry.costUsd,
    },
    rationale: `${firstText}\n\n[retry]\n${retryText}`,
  };
}

/** What scoreDescriptions scores: descriptions of one method, in one format, by one judge model. */
export interface ScoreRequest {
  model: string;
  params: ModelParams | undefined;
  format?: JudgeFormat;
  samples?: number;
  cases: ScoreCase[];
  /** Ask every request anew, keyed by its call key (chat's `fresh`): the card's test–retest repeat. */
  fresh?: boolean;
}

/**
 * Descriptions' scores by the judge model in a format (domain/judge/formats/): the format plans the requests,
 * each is sent in turn (`afterEach` runs after each: the card's heartbeat), and the format combines their
 * verdicts into one per description. Benchmark judging and the judge card share it.
 */
export async function scoreDescriptions(db: () => Db, endpoints: ModelEndpoints, req: ScoreRequest, afterEach = () => {}): Promise<DescriptionVerdict[]> {
  const plan = judgeFormat(req.format).plan(req.cases);
  const verdicts: DescriptionVerdict[] = [];
  for (const r of plan.requests) {
    verdicts.push(await askJudge(db, endpoints, req, r));
    afterEach();
  }
  return plan.combine(verdicts);
}

/**
 * One planned request's verdict: the expectation over its answer token's distribution when the endpoint
 * returns logprobs; otherwise the mean of `samples` sampled verdicts (the first with the judge's params, the
 * others with seeds 1..n-1, at temperature 1 where the params set one); unscorable (score null) when no
 * answer token or parsable verdict is found.
 */
async function askJudge(db: () => Db, endpoints: ModelEndpoints, req: ScoreRequest, r: PlannedRequest): Promise<DescriptionVerdict> {
  const { ask } = r;
  const messages = ask.messages(r.input);
  // From what is sent (registry and run), so the token cap and the samples' temperature follow the endpoint's rules.
  const params: ModelParams = { ...withTokenLimit(sentParams(req.model, req.params), ask.maxTokens), logprobs: true, top_logprobs: TOP_LOGPROBS };
  const v0 = await oneVerdict(db, endpoints, req.model, r.methodId, r.callKey, messages, params, ask, req.fresh);
  const replies = [v0.reply];
  let detail: ScoreDetail;
  if (v0.reply.logprobs) detail = ask.fromLogprobs(v0.reply.logprobs);
  else {
    const n = Math.max(1, req.samples ?? DEFAULT_SAMPLES);
    for (let i = 1; i < n; i++)
      replies.push(
        (await oneVerdict(db, endpoints, req.model, r.methodId, `${r.callKey}-sample${i}`, messages, sampleParams(params, i), ask, req.fresh)).reply,
      );
    detail = ask.fromSamples(replies.map((x) => ask.parse(x.text)));
  }
  const tokensIn = replies.reduce((a, x) => a + x.tokensIn, 0);
  const tokensOut = replies.reduce((a, x) => a + x.tokensOut, 0);
  const costUsd = replies.reduce((a, x) => a + x.costUsd, 0);
  // What the prompt builder removed from the description (an appended score line, a fence tag).
  const n = neutraliseCandidateText(r.input.agentDescription);
  const neutralised = n.removedLines + n.removedTags > 0 ? { neutralised: { lines: n.removedLines, tags: n.removedTags } } : {};
  const score = detail.expected;
  return { score, unparsable: score === null, rationale: v0.rationale, tokensIn, tokensOut, costUsd, scoreDetail: detail, ...neutralised };
}

/** Code the coder model writes for a method from a description alone (the benchmark's coder prompt). */
export async function writeCode(
  db: () => Db,
  endpoints: ModelEndpoints,
  req: {
    model: string;
    methodId: string;
    callKey: string;
    signature: string;
    entryPoint: string;
    description: string;
    params: ModelParams | undefined;
    /** Which of the description's k programs (domain/judge/mbrExec.ts): 0 (default) is the greedy one. */
    sample?: number;
  },
): Promise<GeneratedCode> {
  const messages = buildCoderMessages({ signature: req.signature, entryPoint: req.entryPoint, description: req.description });
  const sample = req.sample ?? 0;
  // Programs after the first sample (a seed each) from what is sent, so an endpoint's own temperature rule holds.
  const params = sample === 0 ? req.params : sampleParams(sentParams(req.model, req.params), sample, CODER_SAMPLE_TEMPERATURE);
  const r = await judgeChat(db, endpoints, req.model, req.methodId, sampleCallKey(req.callKey, sample), messages, params);
  return { code: extractCode(r.message.content, req.entryPoint), tokensIn: r.tokensIn, tokensOut: r.tokensOut, costUsd: r.costUsd };
}

export function createJudgeActivities(db: () => Db, endpoints: ModelEndpoints) {
  return {
    async prepareJudgment(input: JudgeEpisodeInput): Promise<JudgePlan> {
      const { e, m, runKind, runConfig } = await loadEpisode(db(), input.episodeId);
      const resolved = (() => {
        try {
          return resolveJudgeConfig(input, parseRunJudgeFields(runKind, runConfig, e.runId));
        } catch (err) {
          // A config value out of range (coder samples): retrying the same config cannot help.
          if (err instanceof RangeError) throw ApplicationFailure.nonRetryable(`run ${e.runId}: ${err.message}`, FAILURE_TYPES.badRunConfig);
          throw err;
        }
      })();
      const config: JudgeConfig = {
        ...resolved,
        judgeParams: sentParams(resolved.judgeModel, resolved.judgeParams),
        coderParams: sentParams(resolved.coderModel, resolved.coderParams),
      };
      const observed = observedCalls(await loadSteps(db(), e.id));
      const set = codeMatchSet(m, config.heldout);
      return {
        episodeId: e.id,
        methodId: m.id,
        config,
        source: m.code,
        entryPoint: entryPointOf(m),
        observedArgs: observed.map((o) => o.arguments),
        heldoutGiven: set.given,
        heldoutGenerated: set.generated,
        heldoutRaisingCounts: set.raisingCounts,
        ...(set.excluded ? { codeMatchExcluded: set.excluded } : {}),
        ...(e.status !== 'completed' ? { skip: `episode is ${e.status}` } : {}),
      };
    },

    /** The description score: the judge model with the planned params; one retry when unparsable. */
    async judgeDescription(input: { episodeId: string; judgeModel: string; params?: ModelParams; format?: JudgeFormat }): Promise<DescriptionVerdict> {
      const { e, m, runConfig } = await loadEpisode(db(), input.episodeId);
      const besideAnother = judgeFormat(input.format).besideAnother;
      const scope = contrastScopeSchema.safeParse(runConfig);
      const [verdict] = await scoreDescriptions(db, endpoints, {
        model: input.judgeModel,
        params: input.params,
        ...(input.format ? { format: input.format } : {}),
        cases: [
          {
            methodId: m.id,
            // The retry's key is this plus `-retry` (`.../score-retry`, as before).
            callKey: `judge/${e.id}/${input.judgeModel}/score`,
            input: {
              signature: m.signature ?? `def ${entryPointOf(m)}(...)`,
              code: m.code,
              goldDescription: m.goldDescription,
              agentDescription: e.finalDescription ?? '',
            },
            ...(besideAnother ? { contrast: await contrastMethodFor(db(), m.id, scope.success ? scope.data : null) } : {}),
          },
        ],
      });
      return verdict!;
    },

    /** The coder model writes the function from the description alone. */
    async writeCodeFromDescription(input: { episodeId: string; coderModel: string; params?: ModelParams; sample?: number }): Promise<GeneratedCode> {
      const { e, m, runConfig } = await loadEpisode(db(), input.episodeId);
      const entry = entryPointOf(m);
      // The code writer sees the method as the agent did (domain/episode/names.ts): with the name taken away, code
      // match measures the description, not the name; the program is then callable under the real name.
      const names = runNameSetting(runConfig);
      const view = methodView({ entryPoint: entry, signature: m.signature ?? `def ${entry}(...)` }, names);
      const code = await writeCode(db, endpoints, {
        model: input.coderModel,
        methodId: m.id,
        callKey: `judge/${e.id}/${input.coderModel}/code`,
        signature: view.signature,
        entryPoint: view.entryPoint,
        description: e.finalDescription ?? '',
        params: input.params,
        ...(input.sample ? { sample: input.sample } : {}),
      });
      return code.code === null ? code : { ...code, code: underRealName(code.code, entry, names) };
    },

    /**
     * The control of the contradiction check: the coder writes code from the method's gold description
     * (the same prompt as for the agent's). Keyed by method, not episode: one coder call per method and
     * coder model, shared by every episode of it through the llm_calls cache. Null code: no gold description.
     */
    async writeCodeFromGold(input: { episodeId: string; coderModel: string; params?: ModelParams }): Promise<GoldCode> {
      const { m } = await loadEpisode(db(), input.episodeId);
      // CruxEval has no gold: its accepted reference description (pau dataset describe) stands in for it.
      const ref = m.goldDescription?.trim() ? null : (await acceptedReferenceDescriptions(db(), [m.id])).get(m.id);
      const gold = m.goldDescription?.trim() ? m.goldDescription : ref?.description;
      if (!gold?.trim()) return { code: null, noGold: true, tokensIn: 0, tokensOut: 0, costUsd: 0 };
      const entry = entryPointOf(m);
      return writeCode(db, endpoints, {
        model: input.coderModel,
        methodId: m.id,
        callKey: ref ? `gold-code/${m.id}/${input.coderModel}/reference` : `gold-code/${m.id}/${input.coderModel}`,
        signature: m.signature ?? `def ${entry}(...)`,
        entryPoint: entry,
        description: gold,
        params: input.params,
      });
    },

    /** The judgment (domain/judge/judgment.ts) from the sandbox results and the agent's observations; one upsert of its row. */
    async recordJudgment(input: JudgmentInput): Promise<JudgeEpisodeResult> {
      const observed = observedCalls(await loadSteps(db(), input.plan.episodeId));
      const { row, result } = judgmentOf(input, observed);
      const values = { ...row, updatedAt: new Date() };
      await db()
        .insert(judgments)
        .values(values)
        .onConflictDoUpdate({ target: [judgments.episodeId, judgments.judgeModel], set: { ...values, createdAt: sql`${judgments.createdAt}` } });
      return result;
    },

    /** A page of the run's completed episodes (by id) to judge, with their method ids (for search attributes). */
    async listEpisodesToJudge(input: {
      runId: string;
      judgeModel: string;
      force?: boolean;
      afterId?: string;
      limit?: number;
    }): Promise<{ episodeId: string; methodId: string }[]> {
      const conds = [eq(episodes.runId, input.runId), eq(episodes.status, 'completed')];
      if (input.afterId) conds.push(gt(episodes.id, input.afterId));
      if (!input.force) conds.push(isNull(judgments.episodeId));
      const rows = await db()
        .select({ episodeId: episodes.id, methodId: episodes.methodId })
        .from(episodes)
        .leftJoin(judgments, and(eq(judgments.episodeId, episodes.id), eq(judgments.judgeModel, input.judgeModel)))
        .where(and(...conds))
        .orderBy(asc(episodes.id))
        .limit(input.limit ?? 200);
      return rows;
    },
  };
}

export type JudgeActivities = ReturnType<typeof createJudgeActivities>;
