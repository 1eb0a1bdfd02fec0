// The three jsonb columns of a `steps` row (activities/episode/steps.ts lists which step kind writes what).
// Every field is optional: each step kind fills a different part, and rows written by older versions lack
// fields added since. Loose objects: a field a reader does not know passes through as written.
import { z } from 'zod';
import { documentSchema } from '../common/jsonDocument';
import type { CallResult } from '../sandbox/schemas';

/** agent_message: a prompt (system, user) or the model's turn (assistant). */
export const stepAgentMessageSchema = z.looseObject({
  role: z.string().optional(),
  content: z.string().nullable().optional(),
  /** Why a user prompt was sent (a nudge, the final ask). */
  reason: z.string().optional(),
  toolCalls: z.array(z.looseObject({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
  reasoningContent: z.string().optional(),
  latencyMs: z.number().optional(),
  cached: z.boolean().optional(),
  requestHash: z.string().optional(),
});
export type StepAgentMessage = z.infer<typeof stepAgentMessageSchema>;

/** call: the call the agent made (or the in-context example it was shown). */
export const stepCallSchema = z.looseObject({
  toolCallId: z.string().optional(),
  tool: z.string().optional(),
  /** The argument text; a reader checks it is a string (a malformed tool call may carry anything). */
  arguments: z.unknown().optional(),
  raw: z.unknown().optional(),
  /** Where the call came from (native, text, unparsable) and how the transcript shows it. */
  source: z.string().optional(),
  label: z.string().optional(),
  problem: z.string().optional(),
  description: z.string().optional(),
});
export type StepCall = z.infer<typeof stepCallSchema>;

/** observation: what the agent saw; `result` is the sandbox's CallResult (older rows lack its `value`). */
export const stepObservationSchema = z.looseObject({
  text: z.string().optional(),
  category: z.string().optional(),
  executed: z.boolean().optional(),
  result: documentSchema<CallResult>({ ok: z.boolean() }).optional(),
});
export type StepObservation = z.infer<typeof stepObservationSchema>;

/** The kinds of step (activities/episode/steps.ts lists which columns each one fills). */
export type StepKind = 'system' | 'user' | 'assistant' | 'call' | 'problem' | 'submit' | 'example';

/** A step as a turn writes it: absent columns are stored as null, absent token counts as 0. */
export interface StepRow {
  idx: number;
  kind: StepKind;
  agentMessage?: StepAgentMessage | null;
  call?: StepCall | null;
  observation?: StepObservation | null;
  tokensIn?: number;
  tokensOut?: number;
}

/** A stored step as its readers see it (the conversation for the next turn, the transcript): the row's index and kind and its three jsonb columns (null where the kind leaves one empty). */
export interface StoredStep {
  idx: number;
  kind: string;
  agentMessage: StepAgentMessage | null;
  call: StepCall | null;
  observation: StepObservation | null;
}
