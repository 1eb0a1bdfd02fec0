// One agent turn (queue `pau`): persist the previous turn's observations, rebuild the conversation from
// Postgres, ask the model (through activities/llm/chat.ts), persist its message and one step per tool
// call, and hand the workflow only the calls to run. Retries rewrite the same step indices, and the
// model call is answered from llm_calls, so a retry neither duplicates rows nor pays twice.
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { models } from '../../config/models';
import type { Db } from '../../db/client';
import type { ModelEndpoints } from '../llm/endpoints';
import { methods } from '../../db/schema/datasets';
import { episodes, runs, steps } from '../../db/schema/runs';
import { activityChatDeps } from '../llm/activity';
import { chatDeferred } from '../llm/chat';
import { storedObservation, observationText } from '../../domain/episode/observation';
import {
  EMPTY_SUBMISSION_OBSERVATION,
  finalPrompt,
  finalReaskPrompt,
  plainFinalPrompt,
  inContextUserPrompt,
  nudgePrompt,
  SUBMIT_ONLY,
  SUBMITTED_OBSERVATION,
  TOOL_CALL_METHOD,
  TOOLS,
  type ToolProtocol,
} from '../../domain/episode/prompts';
import { loadSteps, upsertSteps, type StepRow } from './steps';
import {
  callsBeforeDescription,
  classifyText,
  parseToolCall,
  textToolCallsAsParsed,
  type CallSource,
  type ParsedToolCall,
} from '../../domain/episode/toolCalls';
import { paramNames, parseTextToolCalls } from '../../domain/episode/textToolCalls';
import { messagesFromSteps } from '../../domain/episode/conversation';
import { typedDbFailure } from '../common/dbUnavailable';
import { currentActivity } from '../common/workflowContext';
import { asConversationRows, cachedConversation, conversationKey, rememberConversation, withRows } from './conversationCache';
import { runPendingCalls } from './inlineCalls';
import type { AnswerKind, PendingCall, TurnInput, TurnResult } from '../../domain/episode/types';

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
    let idx = input.idx;
    const protocol = protocolOf(input.model);
    const key = conversationKey(input.episodeId);
    const cached = cachedConversation(key, input.idx);
    const observations = input.pending ? [...input.observations, ...(await runPendingCalls(input.pending))] : input.observations;
    // The reserved call rows keep what the previous turn stored about them (raw text, parse source).
    const reserved =
      observations.length === 0
        ? []
        : cached
          ? cached.filter((r) => r.kind === 'call')
          : await d
              .select({ idx: steps.idx, call: steps.call })
              .from(steps)
              .where(
                and(
                  eq(steps.episodeId, input.episodeId),
                  inArray(
                    steps.idx,
                    observations.map((o) => o.stepIdx),
                  ),
                ),
              );
    const before = new Map(reserved.map((r) => [r.idx, r.call ?? {}]));
    const pre: StepRow[] = observations.map((o) => ({
      idx: o.stepIdx,
      kind: 'call',
      call: { ...before.get(o.stepIdx), toolCallId: o.toolCallId, tool: TOOL_CALL_METHOD, arguments: o.arguments },
      observation: storedObservation(o.result),
    }));
    if (input.examples) {
      for (const e of input.examples) pre.push({ idx: e.stepIdx, kind: 'example', call: { arguments: e.arguments }, observation: storedObservation(e.result) });
      const prompt = inContextUserPrompt(
        input.signature ?? '',
        input.entryPoint ?? 'f',
        input.examples.map((e) => ({ arguments: e.arguments, ok: e.result.ok, observation: observationText(e.result) })),
      );
      pre.push({ idx: idx++, kind: 'user', agentMessage: { role: 'user', content: prompt } });
    }
    // The method's entry point and signature, read at most once per turn (prompts and the text-call parser).
    let method: { entryPoint: string; signature: string } | undefined;
    const methodInfo = async () => {
      if (!method) {
        const [m] = await d
          .select({ entryPoint: methods.entryPoint, signature: methods.signature })
          .from(methods)
          .where(eq(methods.id, input.methodId))
          .limit(1);
        const signature = m?.signature ?? '';
        method = { entryPoint: m?.entryPoint ?? /def\s+(\w+)/.exec(signature)?.[1] ?? 'f', signature };
      }
      return method;
    };
    // A model that wrote its last calls as text answers a tool-call-shaped final ask with one more call
    // (measured on the 0.5B: docs/episodes.md#the-final-ask), so its final ask is the plain-language one,
    // sent without tools. Native callers keep the submit tool.
    const plainFinal = input.prompt?.kind === 'final' && [...before.values()].some((c) => c.source === 'text');
    if (input.prompt) {
      const { kind, reason } = input.prompt;
      const content =
        kind === 'final'
          ? plainFinal
            ? plainFinalPrompt(reason, (await methodInfo()).entryPoint)
            : finalPrompt(reason, protocol)
          : kind === 'reask'
            ? finalReaskPrompt(reason, input.entryPoint ?? 'the function')
            : nudgePrompt(reason, protocol);
      pre.push({ idx: idx++, kind: 'user', agentMessage: { role: 'user', content, reason: input.prompt.reason } });
    }
    // In Postgres before the model is asked (chatDeferred awaits it alongside its cache lookup).
    const preWritten = upsertSteps(d, input.episodeId, pre);
    preWritten.catch(() => undefined); // awaited below or by chatDeferred: never an unobserved rejection

    // Appended to this process's copy when it is exact (conversationCache.ts), else read back.
    const history = cached ? withRows(cached, asConversationRows(pre)) : await preWritten.then(() => loadSteps(d, input.episodeId, idx));
    // The re-ask after a final answer with no description goes without tools (finalReaskPrompt says why).
    const reask = input.prompt?.kind === 'reask';
    const tools = protocol === 'text' || reask || plainFinal ? undefined : input.mode === 'explore' ? TOOLS : input.mode === 'final' ? SUBMIT_ONLY : undefined;
    const assistantIdx = idx++;
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

    // Tool-call ids are echoed back in tool messages; make sure each is present and unique.
    const seen = new Set<string>();
    const toolCalls = r.message.toolCalls.map((t, i) => {
      let id = t.id || `call_${assistantIdx}_${i}`;
      if (seen.has(id)) id = `${id}_${i}`;
      seen.add(id);
      return { ...t, id };
    });
    // Native tool calls first; otherwise (interactive turns) calls the model wrote in its text.
    let parsed: ParsedToolCall[] = toolCalls.map(parseToolCall);
    let source: CallSource = toolCalls.length > 0 ? 'native' : 'none';
    let entryPoint = 'f';
    if (toolCalls.length === 0 && input.mode !== 'answer' && (r.message.content ?? '').trim() !== '') {
      const m = await methodInfo();
      entryPoint = m.entryPoint;
      const text = parseTextToolCalls(r.message.content, { entryPoint, params: paramNames(m.signature) });
      if (text.calls.length > 0 || text.unparsable) {
        parsed = textToolCallsAsParsed(text, `text_${assistantIdx}`, protocol);
        if (input.mode === 'explore' && input.callsLeft > 0) parsed = callsBeforeDescription(parsed);
        source = text.calls.length > 0 ? 'text' : 'unparsable';
      }
    }
    const fromText = source === 'text' || source === 'unparsable';
    const label = (args: string) => (fromText ? { source, label: `${entryPoint}(${args})` } : { source });
    const submission = parsed.find((p) => p.kind === 'submit' && p.description.trim() !== '');
    const rows: StepRow[] = [];
    const calls: PendingCall[] = [];
    let callsLeft = input.callsLeft;
    let problems = 0;
    let emptySubmission = false;
    for (const p of parsed) {
      const stepIdx = idx++;
      const problem = (name: string, text: string) => {
        problems++;
        rows.push({
          idx: stepIdx,
          kind: 'problem',
          call: {
            toolCallId: p.id,
            tool: p.kind === 'problem' ? p.tool : p.kind === 'call' ? TOOL_CALL_METHOD : 'submit_description',
            raw: p.raw,
            problem: name,
            ...(p.kind === 'call' ? label(p.arguments) : { source }),
          },
          observation: { text, executed: false },
        });
      };
      if (p.kind === 'problem') problem(p.problem, p.message);
      else if (p.kind === 'submit') {
        const empty = p.description.trim() === '';
        if (empty) emptySubmission = true;
        if (p !== submission && !empty) problem('second_submission', 'Ignored: a description was already submitted in this turn.');
        else
          rows.push({
            idx: stepIdx,
            kind: 'submit',
            call: { toolCallId: p.id, tool: 'submit_description', raw: p.raw, description: p.description, source },
            observation: { text: empty ? EMPTY_SUBMISSION_OBSERVATION : SUBMITTED_OBSERVATION },
          });
      } else if (submission) problem('not_run_submitted', 'Not run: a description was submitted in the same turn.');
      else if (input.mode !== 'explore' || callsLeft <= 0) problem('over_budget', `Not run: the call budget (${input.budgets.maxCalls} calls) is used up.`);
      else {
        callsLeft--;
        calls.push({ stepIdx, toolCallId: p.id, arguments: p.arguments });
        rows.push({
          idx: stepIdx,
          kind: 'call',
          call: { toolCallId: p.id, tool: TOOL_CALL_METHOD, arguments: p.arguments, raw: p.raw, ...label(p.arguments) },
          observation: null,
        });
      }
    }

    let answer: AnswerKind;
    let text: string | undefined;
    if (submission && submission.kind === 'submit') {
      answer = 'submitted';
      text = submission.description.trim();
    } else if (calls.length > 0) answer = 'tool_calls';
    else if (emptySubmission) answer = 'empty_submission';
    else if (parsed.length > 0) answer = 'problems_only';
    else {
      answer = classifyText(r.message.content, r.message.refusal);
      if (answer === 'text') text = (r.message.content ?? '').trim();
    }
    rows.unshift({
      idx: assistantIdx,
      kind: 'assistant',
      agentMessage: {
        role: 'assistant',
        content: r.message.content,
        refusal: r.message.refusal ?? null,
        // Stored, never sent back (transcript.ts): what training renders as generated (servedLine.ts).
        ...(r.message.reasoningContent ? { reasoningContent: r.message.reasoningContent } : {}),
        toolCalls,
        answer,
        // Where this turn's tool calls came from (the report counts them per model).
        toolCallSource: source,
        callCount: source === 'unparsable' ? 0 : parsed.length,
        finishReason: r.finishReason,
        latencyMs: r.latencyMs,
        cached: r.cached,
        requestHash: r.requestHash,
      },
      tokensIn: r.tokensIn,
      tokensOut: r.tokensOut,
    });
    // The turn's rows and the model call's ledger write go out together (one round trip of waiting). A
    // local turn also asks whether its run is being cancelled: its workflow task has been open since an
    // earlier turn, so the cancellation request has not reached the episode's workflow yet.
    const [, , runCancelling] = await Promise.all([
      upsertSteps(d, input.episodeId, rows),
      r.recorded,
      currentActivity()?.info.isLocal ? runCancelRequested(d, input.episodeId) : false,
    ]);
    rememberConversation(key, idx, withRows(history, asConversationRows(rows)));
    return {
      nextIdx: idx,
      calls,
      answer,
      ...(text !== undefined ? { text } : {}),
      tokensIn: r.tokensIn,
      tokensOut: r.tokensOut,
      costUsd: r.costUsd,
      cached: r.cached,
      problems,
      ...(runCancelling ? { runCancelling } : {}),
    };
  };
}
