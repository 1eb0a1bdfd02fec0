// One agent turn (queue `pau`): persist the previous turn's observations, rebuild the conversation from
// Postgres, ask the model (through activities/llm/chat.ts), persist its message and one step per tool
// call, and hand the workflow only the calls to run. Retries rewrite the same step indices, and the
// model call is answered from llm_calls, so a retry neither duplicates rows nor pays twice.
import type { Db } from '../../db/client';
import { activityChatDeps } from '../llm/activity';
import { chat } from '../llm/chat';
import { storedObservation, observationText } from '../../domain/episode/observation';
import {
  EMPTY_SUBMISSION_OBSERVATION,
  finalPrompt,
  inContextUserPrompt,
  nudgePrompt,
  SUBMIT_ONLY,
  SUBMITTED_OBSERVATION,
  TOOL_CALL_METHOD,
  TOOLS,
} from '../../domain/episode/prompts';
import { loadSteps, upsertSteps, type StepRow } from './steps';
import { classifyText, parseToolCall } from '../../domain/episode/toolCalls';
import { messagesFromSteps } from './transcript';
import type { AnswerKind, PendingCall, TurnInput, TurnResult } from '../../domain/episode/types';

export function makeAgentTurn(db: () => Db) {
  return async function agentTurn(input: TurnInput): Promise<TurnResult> {
    const d = db();
    let idx = input.idx;
    const pre: StepRow[] = input.observations.map((o) => ({
      idx: o.stepIdx,
      kind: 'call',
      call: { toolCallId: o.toolCallId, tool: TOOL_CALL_METHOD, arguments: o.arguments },
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
    if (input.prompt) {
      const content = input.prompt.kind === 'final' ? finalPrompt(input.prompt.reason) : nudgePrompt(input.prompt.reason);
      pre.push({ idx: idx++, kind: 'user', agentMessage: { role: 'user', content, reason: input.prompt.reason } });
    }
    await upsertSteps(d, input.episodeId, pre);

    const history = await loadSteps(d, input.episodeId, idx);
    const tools = input.mode === 'explore' ? TOOLS : input.mode === 'final' ? SUBMIT_ONLY : undefined;
    const assistantIdx = idx++;
    const r = await chat(
      {
        model: input.model,
        messages: messagesFromSteps(history),
        ...(tools ? { tools } : {}),
        ...(input.params ? { params: input.params } : {}),
        ...(input.replay ? { replay: true } : {}),
        callKey: `${input.episodeId}#${assistantIdx}`,
        mockMethodId: input.methodId,
      },
      activityChatDeps(db),
    );

    // Tool-call ids are echoed back in tool messages; make sure each is present and unique.
    const seen = new Set<string>();
    const toolCalls = r.message.toolCalls.map((t, i) => {
      let id = t.id || `call_${assistantIdx}_${i}`;
      if (seen.has(id)) id = `${id}_${i}`;
      seen.add(id);
      return { ...t, id };
    });
    const parsed = toolCalls.map(parseToolCall);
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
            call: { toolCallId: p.id, tool: 'submit_description', raw: p.raw, description: p.description },
            observation: { text: empty ? EMPTY_SUBMISSION_OBSERVATION : SUBMITTED_OBSERVATION },
          });
      } else if (submission) problem('not_run_submitted', 'Not run: a description was submitted in the same turn.');
      else if (input.mode !== 'explore' || callsLeft <= 0) problem('over_budget', `Not run: the call budget (${input.budgets.maxCalls} calls) is used up.`);
      else {
        callsLeft--;
        calls.push({ stepIdx, toolCallId: p.id, arguments: p.arguments });
        rows.push({ idx: stepIdx, kind: 'call', call: { toolCallId: p.id, tool: TOOL_CALL_METHOD, arguments: p.arguments, raw: p.raw }, observation: null });
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
        toolCalls,
        answer,
        finishReason: r.finishReason,
        latencyMs: r.latencyMs,
        cached: r.cached,
        requestHash: r.requestHash,
      },
      tokensIn: r.tokensIn,
      tokensOut: r.tokensOut,
    });
    await upsertSteps(d, input.episodeId, rows);
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
    };
  };
}
