// What a turn writes before the model is asked, as rules (pure): the previous turn's observations at the
// indices it reserved, the in-context examples and their user prompt, the nudge or final ask; and which
// tools the request offers. activities/episode/agentTurn.ts stores the rows and sends the request.
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { observationText, storedObservation } from './observation';
import {
  finalPrompt,
  finalReaskPrompt,
  inContextUserPrompt,
  nudgePrompt,
  plainFinalPrompt,
  SUBMIT_ONLY,
  TOOL_CALL_METHOD,
  TOOLS,
  type ToolProtocol,
} from './prompts';
import type { StepCall, StepRow } from './stepRecord';
import type { CallOutcome, TurnInput } from './types';

export type TurnPromptInput = Pick<TurnInput, 'idx' | 'examples' | 'signature' | 'entryPoint' | 'prompt' | 'mode'>;

/**
 * A model that wrote its last calls as text answers a tool-call-shaped final ask with one more call
 * (measured on the 0.5B: docs/episodes.md#the-final-ask), so its final ask is the plain-language one,
 * sent without tools. Native callers keep the submit tool. `reserved`: the stored call rows of the
 * observations this turn writes, by step index.
 */
export function isPlainFinalAsk(prompt: TurnInput['prompt'], reserved: ReadonlyMap<number, StepCall>): boolean {
  return prompt?.kind === 'final' && [...reserved.values()].some((c) => c.source === 'text');
}

export interface TurnPromptContext {
  protocol: ToolProtocol;
  /** The reserved call rows, which keep what the previous turn stored about them (raw text, parse source). */
  reserved: ReadonlyMap<number, StepCall>;
  /** The method's entry point as the agent sees it, for the plain-language final ask (needed only when isPlainFinalAsk). */
  methodEntryPoint?: string;
  /** An observation's text as the agent reads it (the anonymised name setting: domain/episode/names.ts). */
  shown?: (text: string, ok: boolean) => string;
}

export interface TurnPromptRows {
  rows: StepRow[];
  /** The next free step index after these rows. */
  nextIdx: number;
}

/** The rows a turn writes before its model call; `observations` includes the outcomes of calls the turn ran itself. */
export function turnPromptRows(input: TurnPromptInput, observations: CallOutcome[], ctx: TurnPromptContext): TurnPromptRows {
  let idx = input.idx;
  const rows: StepRow[] = observations.map((o) => ({
    idx: o.stepIdx,
    kind: 'call',
    call: { ...ctx.reserved.get(o.stepIdx), toolCallId: o.toolCallId, tool: TOOL_CALL_METHOD, arguments: o.arguments },
    observation: storedObservation(o.result, ctx.shown),
  }));
  if (input.examples) {
    for (const e of input.examples)
      rows.push({ idx: e.stepIdx, kind: 'example', call: { arguments: e.arguments }, observation: storedObservation(e.result, ctx.shown) });
    const shown = ctx.shown ?? ((text: string) => text);
    const prompt = inContextUserPrompt(
      input.signature ?? '',
      input.entryPoint ?? 'f',
      input.examples.map((e) => ({ arguments: e.arguments, ok: e.result.ok, observation: shown(observationText(e.result), e.result.ok) })),
    );
    rows.push({ idx: idx++, kind: 'user', agentMessage: { role: 'user', content: prompt } });
  }
  if (input.prompt) {
    const { kind, reason } = input.prompt;
    const content =
      kind === 'final'
        ? isPlainFinalAsk(input.prompt, ctx.reserved)
          ? plainFinalPrompt(reason, ctx.methodEntryPoint ?? 'f')
          : finalPrompt(reason, ctx.protocol)
        : kind === 'reask'
          ? finalReaskPrompt(reason, input.entryPoint ?? 'the function')
          : nudgePrompt(reason, ctx.protocol);
    rows.push({ idx: idx++, kind: 'user', agentMessage: { role: 'user', content, reason } });
  }
  return { rows, nextIdx: idx };
}

/**
 * The tools a turn's request offers: none to a text-protocol model, to the re-ask after a final answer with
 * no description (finalReaskPrompt says why) and to the plain final ask; all of them while exploring; the
 * submit tool alone at the final ask; none for an in-context answer.
 */
export function turnTools(
  input: Pick<TurnInput, 'mode' | 'prompt'>,
  protocol: ToolProtocol,
  reserved: ReadonlyMap<number, StepCall>,
): ChatCompletionTool[] | undefined {
  if (protocol === 'text' || input.prompt?.kind === 'reask' || isPlainFinalAsk(input.prompt, reserved)) return undefined;
  return input.mode === 'explore' ? TOOLS : input.mode === 'final' ? SUBMIT_ONLY : undefined;
}
