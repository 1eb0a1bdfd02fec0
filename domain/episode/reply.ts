// How a model's reply becomes a turn (pure): its tool calls, native or written in its text, become calls
// to run, a submitted description or named problems, each one step; the reply itself one `assistant` step
// with its answer kind. activities/episode/agentTurn.ts stores the rows and hands the workflow the calls.
import { TOOL_CALL_METHOD, TOOL_SUBMIT, EMPTY_SUBMISSION_OBSERVATION, SUBMITTED_OBSERVATION, type ToolProtocol } from './prompts';
import type { StepRow } from './stepRecord';
import { paramNames, parseTextToolCalls } from './textToolCalls';
import { callsBeforeDescription, classifyText, parseToolCall, textToolCallsAsParsed, type CallSource, type ParsedToolCall } from './toolCalls';
import type { AnswerKind, PendingCall, TurnMode } from './types';

/** A model's reply as the chat call returns it (activities/llm/chat.ts `ChatResult`). */
export interface ModelReply {
  message: {
    content: string | null;
    toolCalls: { id: string; name: string; arguments: string }[];
    refusal?: string | null;
    reasoningContent?: string;
  };
  finishReason: string | null;
  tokensIn: number;
  tokensOut: number;
  latencyMs: number;
  cached: boolean;
  requestHash: string;
}

export interface ReplyContext {
  /** The step index of the reply itself; its calls take the indices after it. */
  assistantIdx: number;
  mode: TurnMode;
  callsLeft: number;
  maxCalls: number;
  protocol: ToolProtocol;
  /** The method's entry point and signature, for reading calls from the text (needed when readsTextCalls). */
  method?: { entryPoint: string; signature: string };
}

export interface InterpretedReply {
  /** The assistant step, then one step per call, submission or problem, in the reply's order. */
  rows: StepRow[];
  /** Valid calls to run (their steps reserved, observations pending). */
  calls: PendingCall[];
  answer: AnswerKind;
  /** The submitted description, or the plain-text answer. */
  text?: string;
  problems: number;
  /** The next free step index. */
  nextIdx: number;
}

/** Whether the reply's text is read for calls: no native tool calls, a turn that may call, and some text. */
export function readsTextCalls(message: ModelReply['message'], mode: TurnMode): boolean {
  return message.toolCalls.length === 0 && mode !== 'answer' && (message.content ?? '').trim() !== '';
}

/** Tool-call ids are echoed back in tool messages: each one present and unique. */
export function uniqueToolCallIds(toolCalls: ModelReply['message']['toolCalls'], assistantIdx: number): ModelReply['message']['toolCalls'] {
  const seen = new Set<string>();
  return toolCalls.map((t, i) => {
    let id = t.id || `call_${assistantIdx}_${i}`;
    if (seen.has(id)) id = `${id}_${i}`;
    seen.add(id);
    return { ...t, id };
  });
}

/** Native tool calls first; otherwise (interactive turns) calls the model wrote in its text. */
function readCalls(
  message: ModelReply['message'],
  toolCalls: ModelReply['message']['toolCalls'],
  ctx: ReplyContext,
): { parsed: ParsedToolCall[]; source: CallSource; entryPoint: string } {
  const native = { parsed: toolCalls.map(parseToolCall), source: toolCalls.length > 0 ? ('native' as const) : ('none' as const) };
  if (!readsTextCalls(message, ctx.mode)) return { ...native, entryPoint: 'f' };
  const entryPoint = ctx.method?.entryPoint ?? 'f';
  const text = parseTextToolCalls(message.content, { entryPoint, params: paramNames(ctx.method?.signature ?? '') });
  if (text.calls.length === 0 && !text.unparsable) return { ...native, entryPoint };
  let parsed = textToolCallsAsParsed(text, `text_${ctx.assistantIdx}`, ctx.protocol);
  if (ctx.mode === 'explore' && ctx.callsLeft > 0) parsed = callsBeforeDescription(parsed);
  return { parsed, source: text.calls.length > 0 ? 'text' : 'unparsable', entryPoint };
}

/** A model's reply as the steps, calls and answer of its turn. */
export function interpretReply(reply: ModelReply, ctx: ReplyContext): InterpretedReply {
  const { message } = reply;
  const toolCalls = uniqueToolCallIds(message.toolCalls, ctx.assistantIdx);
  const { parsed, source, entryPoint } = readCalls(message, toolCalls, ctx);
  const fromText = source === 'text' || source === 'unparsable';
  const label = (args: string) => (fromText ? { source, label: `${entryPoint}(${args})` } : { source });
  const submission = parsed.find((p) => p.kind === 'submit' && p.description.trim() !== '');
  let idx = ctx.assistantIdx + 1;
  const rows: StepRow[] = [];
  const calls: PendingCall[] = [];
  let callsLeft = ctx.callsLeft;
  let problems = 0;
  let emptySubmission = false;
  for (const p of parsed) {
    const stepIdx = idx++;
    const problem = (name: string, text: string) => {
      problems++;
      const tool = p.kind === 'problem' ? p.tool : p.kind === 'call' ? TOOL_CALL_METHOD : TOOL_SUBMIT;
      const call = { toolCallId: p.id, tool, raw: p.raw, problem: name, ...(p.kind === 'call' ? label(p.arguments) : { source }) };
      rows.push({ idx: stepIdx, kind: 'problem', call, observation: { text, executed: false } });
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
          call: { toolCallId: p.id, tool: TOOL_SUBMIT, raw: p.raw, description: p.description, source },
          observation: { text: empty ? EMPTY_SUBMISSION_OBSERVATION : SUBMITTED_OBSERVATION },
        });
    } else if (submission) problem('not_run_submitted', 'Not run: a description was submitted in the same turn.');
    else if (ctx.mode !== 'explore' || callsLeft <= 0) problem('over_budget', `Not run: the call budget (${ctx.maxCalls} calls) is used up.`);
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
  const { answer, text } = answerOf(reply, { submission, calls: calls.length, emptySubmission, parsed: parsed.length });
  rows.unshift({
    idx: ctx.assistantIdx,
    kind: 'assistant',
    agentMessage: {
      role: 'assistant',
      content: message.content,
      refusal: message.refusal ?? null,
      // Stored, never sent back (transcript.ts): what training renders as generated (servedLine.ts).
      ...(message.reasoningContent ? { reasoningContent: message.reasoningContent } : {}),
      toolCalls,
      answer,
      // Where this turn's tool calls came from (the report counts them per model).
      toolCallSource: source,
      callCount: source === 'unparsable' ? 0 : parsed.length,
      finishReason: reply.finishReason,
      latencyMs: reply.latencyMs,
      cached: reply.cached,
      requestHash: reply.requestHash,
    },
    tokensIn: reply.tokensIn,
    tokensOut: reply.tokensOut,
  });
  return { rows, calls, answer, ...(text !== undefined ? { text } : {}), problems, nextIdx: idx };
}

/** The turn's answer: a description submitted, calls to run, only an empty submission, only problems, else what the text is. */
function answerOf(
  reply: ModelReply,
  turn: { submission: ParsedToolCall | undefined; calls: number; emptySubmission: boolean; parsed: number },
): { answer: AnswerKind; text?: string } {
  if (turn.submission?.kind === 'submit') return { answer: 'submitted', text: turn.submission.description.trim() };
  if (turn.calls > 0) return { answer: 'tool_calls' };
  if (turn.emptySubmission) return { answer: 'empty_submission' };
  if (turn.parsed > 0) return { answer: 'problems_only' };
  const answer = classifyText(reply.message.content, reply.message.refusal);
  return answer === 'text' ? { answer, text: (reply.message.content ?? '').trim() } : { answer };
}
