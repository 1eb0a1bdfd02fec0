// One agent turn (queue `pau`): persist the previous turn's observations, rebuild the conversation from
// Postgres, ask the model (through activities/llm/chat.ts), persist its message and one step per tool
// call, and hand the workflow only the calls to run. Retries rewrite the same step indices, and the
// model call is answered from llm_calls, so a retry neither duplicates rows nor pays twice.
import { methodView, shownObservation } from '../../domain/episode/names';
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { models } from '../../config/models';
import type { Db } from '../../db/client';
import type { ModelEndpoints } from '../llm/endpoints';
import { methods } from '../../db/schema/datasets';
import { episodes, runs, steps } from '../../db/schema/runs';
import { activityChatDeps } from '../llm/activity';
import { chatDeferred } from '../llm/chat';
import { interpretReply, readsTextCalls } from '../../domain/episode/reply';
import type { ToolProtocol } from '../../domain/episode/prompts';
import type { StoredStep } from '../../domain/episode/stepRecord';
import { isPlainFinalAsk, turnPromptRows, turnTools } from '../../domain/episode/turnPrompt';
import { loadSteps, upsertSteps } from './steps';
import { recordSampledWith } from './lifecycle';
import { messagesFromSteps } from '../../domain/episode/conversation';
import { typedDbFailure } from '../common/dbUnavailable';
import { currentActivity } from '../common/workflowContext';
import { asConversationRows, cachedConversation, conversationKey, rememberConversation, withRows } from './conversationCache';
import { runPendingCalls } from './inlineCalls';
import type { CallOutcome, TurnInput, TurnResult } from '../../domain/episode/types';

function protocolOf(model: string): ToolProtocol {
  try {
    return models().get(model).toolProtocol;
  } catch {
    return 'native'; // an unknown model fails in chat() with its own clear error
  }
}

/** Whether a cancellation reached the episode's run (runs.cancelRequestedAt, set by its workflow). */
async function runCancelRequested(d: Db, episodeId: string): Promise<boolean> {
  const [row] = await d
    .select({ runId: runs.id })
    .from(episodes)
    .innerJoin(runs, eq(runs.id, episodes.runId))
    .where(and(eq(episodes.id, episodeId), isNotNull(runs.cancelRequestedAt)))
    .limit(1);
  return row !== undefined;
}

export function makeAgentTurn(db: () => Db, endpoints: ModelEndpoints) {
  const turn = makeTurn(db, endpoints);
  // A Postgres outage is typed (DbUnavailable) so the episode waits it out like a model outage.
  return async function agentTurn(input: TurnInput): Promise<TurnResult> {
    try {
      return await turn(input);
    } catch (err) {
      throw typedDbFailure(err);
    }
  };
}

function makeTurn(db: () => Db, endpoints: ModelEndpoints) {
  return async function turn(input: TurnInput): Promise<TurnResult> {
    const d = db();
    const protocol = protocolOf(input.model);
    const key = conversationKey(input.episodeId);
    const cached = cachedConversation(key, input.idx);
    const observations = input.pending ? [...input.observations, ...(await runPendingCalls(input.pending))] : input.observations;
    const reserved = new Map((await reservedCalls(d, input.episodeId, observations, cached)).map((r) => [r.idx, r.call ?? {}]));
    // The method's entry point and signature, read at most once per turn (prompts and the text-call parser).
    let method: Promise<{ entryPoint: string; signature: string }> | undefined;
    const methodInfo = () => {
      method ??= readMethod(d, input.methodId);
      return method;
    };
    const view = async () => methodView(await methodInfo(), input.names);
    const methodEntryPoint = isPlainFinalAsk(input.prompt, reserved) ? (await view()).entryPoint : undefined;
    // The anonymised name setting rewrites the name in the errors the agent reads (domain/episode/names.ts).
    const real = input.names === 'anonymised' && (observations.length > 0 || input.examples) ? (await methodInfo()).entryPoint : undefined;
    const shown = real ? { shown: (text: string, ok: boolean) => shownObservation(text, ok, real, input.names) } : {};
    const pre = turnPromptRows(input, observations, { protocol, reserved, ...(methodEntryPoint ? { methodEntryPoint } : {}), ...shown });
    // In Postgres before the model is asked (chatDeferred awaits it alongside its cache lookup).
    const preWritten = upsertSteps(d, input.episodeId, pre.rows);
    preWritten.catch(() => undefined); // awaited below or by chatDeferred: never an unobserved rejection

    // Appended to this process's copy when it is exact (conversationCache.ts), else read back.
    const history = cached ? withRows(cached, asConversationRows(pre.rows)) : await preWritten.then(() => loadSteps(d, input.episodeId, pre.nextIdx));
    const tools = turnTools(input, protocol, reserved);
    const assistantIdx = pre.nextIdx;
    const r = await chatDeferred(
      {
        model: input.model,
        messages: messagesFromSteps(history),
        ...(tools ? { tools } : {}),
        ...(input.params ? { params: input.params } : {}),
        ...(input.replay ? { replay: true } : {}),
        callKey: `${input.episodeId}#${assistantIdx}`,
        about: { methodId: input.methodId },
      },
      { ...activityChatDeps(db, endpoints), before: preWritten },
    );
    const reply = interpretReply(r, {
      assistantIdx,
      mode: input.mode,
      callsLeft: input.callsLeft,
      maxCalls: input.budgets.maxCalls,
      protocol,
      ...(readsTextCalls(r.message, input.mode) ? { method: await view() } : {}),
    });
    // The turn's rows and the model call's ledger write go out together (one round trip of waiting). A
    // local turn also asks whether its run is being cancelled: its workflow task has been open since an
    // earlier turn, so the cancellation request has not reached the episode's workflow yet.
    // The adapter that served the turn goes onto the episode (sampled-with = trained-on: a GRPO update checks it).
    const [, , runCancelling] = await Promise.all([
      upsertSteps(d, input.episodeId, reply.rows),
      r.recorded,
      currentActivity()?.info.isLocal ? runCancelRequested(d, input.episodeId) : false,
      recordSampledWith(d, input.episodeId, r.sampledWith),
    ]);
    rememberConversation(key, reply.nextIdx, withRows(history, asConversationRows(reply.rows)));
    return {
      nextIdx: reply.nextIdx,
      calls: reply.calls,
      answer: reply.answer,
      ...(reply.text !== undefined ? { text: reply.text } : {}),
      tokensIn: r.tokensIn,
      tokensOut: r.tokensOut,
      costUsd: r.costUsd,
      cached: r.cached,
      problems: reply.problems,
      ...(runCancelling ? { runCancelling } : {}),
    };
  };
}

/** The stored call rows of the observations this turn writes (from this process's copy when it is exact). */
async function reservedCalls(d: Db, episodeId: string, observations: CallOutcome[], cached: StoredStep[] | undefined) {
  if (observations.length === 0) return [];
  if (cached) return cached.filter((r) => r.kind === 'call');
  const idxs = observations.map((o) => o.stepIdx);
  return d
    .select({ idx: steps.idx, call: steps.call })
    .from(steps)
    .where(and(eq(steps.episodeId, episodeId), inArray(steps.idx, idxs)));
}

async function readMethod(d: Db, methodId: string): Promise<{ entryPoint: string; signature: string }> {
  const [m] = await d.select({ entryPoint: methods.entryPoint, signature: methods.signature }).from(methods).where(eq(methods.id, methodId)).limit(1);
  const signature = m?.signature ?? '';
  return { entryPoint: m?.entryPoint ?? /def\s+(\w+)/.exec(signature)?.[1] ?? 'f', signature };
}
