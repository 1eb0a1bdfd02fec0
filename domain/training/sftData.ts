// SFT data from judged teacher episodes: the build's configuration and thresholds, which episodes are kept
// (and why the others are dropped), the example as the agent saw it, the build summary, and the two export
// formats (OpenAI fine-tuning JSONL and TRL/Hugging Face conversational JSONL). Pure code.
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { documentSchema } from '../common/jsonDocument';
import type { EpisodeBudgets, Setting } from '../episode/types';

export interface SftThresholds {
  /** Keep episodes whose judge score is at least this (1-5; default 4). */
  minScore: number;
  /**
   * Keep episodes whose code match on the held-out inputs the agent never saw is at least this (0-1; default
   * 0.8): the headline's figure, on which a description that tabulates the observed calls scores nothing.
   */
  minCodeMatch: number;
  /** Drop episodes whose final description contradicts a call the agent observed (default true). */
  dropContradicting: boolean;
}
export const DEFAULT_SFT_THRESHOLDS: SftThresholds = { minScore: 4, minCodeMatch: 0.8, dropContradicting: true };

export interface SftBuildConfig extends SftThresholds {
  /** The data set's name (sft_datasets.name). */
  name: string;
  /** The method dataset and split the teacher runs on (default pau-v1 / train). */
  dataset: string;
  split: string;
  teacher: string;
  judgeModel: string;
  settings: Setting[];
  samples: number;
  limit?: number;
  methodIds?: string[];
  budgets?: Partial<EpisodeBudgets>;
  window?: number;
}

export const SFT_DROP_REASONS = [
  'episode_failed',
  'not_judged',
  'unparsable_score',
  'no_description',
  'score_below_min',
  'no_code_match',
  'code_match_below_min',
  'contradicts_observed',
] as const;
export type SftDropReason = (typeof SFT_DROP_REASONS)[number];

/** What the verdict reads of a judged episode (a report row plus whether it has a final description). */
export interface SftCandidate {
  status: string;
  judged: boolean;
  score: number | null;
  unparsable: boolean;
  /** Code match on the counted held-out inputs the agent never observed (null: none left, or excluded). */
  codeMatchUnobserved: number | null;
  hasDescription: boolean;
  contradictsObserved: boolean | null;
}

/** Keep, or the first reason to drop, in the order of SFT_DROP_REASONS. */
export function sftVerdict(c: SftCandidate, t: SftThresholds): { keep: true } | { keep: false; reason: SftDropReason } {
  const drop = (reason: SftDropReason) => ({ keep: false as const, reason });
  if (c.status !== 'completed') return drop('episode_failed');
  if (!c.judged) return drop('not_judged');
  if (c.unparsable || c.score === null) return drop('unparsable_score');
  if (!c.hasDescription) return drop('no_description');
  if (c.score < t.minScore) return drop('score_below_min');
  if (t.minCodeMatch > 0 && c.codeMatchUnobserved === null) return drop('no_code_match');
  if (c.codeMatchUnobserved !== null && c.codeMatchUnobserved < t.minCodeMatch) return drop('code_match_below_min');
  if (t.dropContradicting && c.contradictsObserved === true) return drop('contradicts_observed');
  return { keep: true };
}

/**
 * The training conversation: the messages the agent was sent on its last turn followed by its answer,
 * i.e. the transcript up to and including the last assistant message (what came after, like the
 * "submitted" acknowledgement of the final tool call, the agent never read).
 */
export function sftConversation(messages: readonly ChatCompletionMessageParam[]): ChatCompletionMessageParam[] {
  let last = -1;
  messages.forEach((m, i) => {
    if (m.role === 'assistant') last = i;
  });
  return messages.slice(0, last + 1);
}

/**
 * The assistant messages (indices into `messages`) whose turn stopped at max_tokens (finish reason `length`):
 * the k-th assistant message is the k-th assistant step, whose stored finish reason is finishReasons[k]. The
 * trainer does not train their end-of-turn token, which the model never sampled (the `length_cut` field of a
 * trainer line; docs/training.md).
 */
export function lengthCutMessages(messages: readonly { role: string }[], finishReasons: readonly (string | null | undefined)[]): number[] {
  const assistants = messages.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
  return assistants.filter((_, k) => finishReasons[k] === 'length');
}

/** Tool definitions offered over the episode's turns, each name once, in order of first appearance. */
export function unionTools(perTurn: readonly (readonly ChatCompletionTool[] | undefined)[]): ChatCompletionTool[] {
  const seen = new Map<string, ChatCompletionTool>();
  for (const tools of perTurn)
    for (const t of tools ?? []) {
      const name = t.type === 'function' ? t.function.name : JSON.stringify(t);
      if (!seen.has(name)) seen.set(name, t);
    }
  return [...seen.values()];
}

export interface SftBuildSummary {
  name: string;
  runId: string;
  teacher: string;
  judgeModel: string;
  episodes: number;
  kept: number;
  dropped: Partial<Record<SftDropReason, number>>;
  bySource: Record<string, { episodes: number; kept: number; tokens: number }>;
  /** Teacher tokens of the kept conversations (the last turn's prompt + completion as its endpoint counted them). */
  tokens: number;
  thresholds: SftThresholds;
}

export function emptySummary(config: SftBuildConfig, runId: string): SftBuildSummary {
  return {
    name: config.name,
    runId,
    teacher: config.teacher,
    judgeModel: config.judgeModel,
    episodes: 0,
    kept: 0,
    dropped: {},
    bySource: {},
    tokens: 0,
    thresholds: { minScore: config.minScore, minCodeMatch: config.minCodeMatch, dropContradicting: config.dropContradicting },
  };
}

/** Adds one episode's verdict to the summary. */
export function tally(s: SftBuildSummary, source: string, verdict: ReturnType<typeof sftVerdict>, tokens: number): void {
  s.episodes++;
  const src = s.bySource[source] ?? { episodes: 0, kept: 0, tokens: 0 };
  s.bySource[source] = src;
  src.episodes++;
  if (verdict.keep) {
    s.kept++;
    src.kept++;
    src.tokens += tokens;
    s.tokens += tokens;
  } else s.dropped[verdict.reason] = (s.dropped[verdict.reason] ?? 0) + 1;
}

export function formatSftSummary(s: SftBuildSummary): string {
  const lines = [
    `data set ${s.name}: ${s.kept} kept of ${s.episodes} episodes (teacher ${s.teacher}, judge ${s.judgeModel}, run ${s.runId})`,
    `thresholds: score >= ${s.thresholds.minScore}, code match >= ${s.thresholds.minCodeMatch}${s.thresholds.dropContradicting ? ', not contradicting observed calls' : ''}`,
    `tokens (kept, teacher's count): ${s.tokens}${s.kept > 0 ? ` (${Math.round(s.tokens / s.kept)} per example)` : ''}`,
    'dropped by reason:',
    ...(Object.keys(s.dropped).length === 0 ? ['  (none)'] : SFT_DROP_REASONS.filter((r) => s.dropped[r]).map((r) => `  ${r.padEnd(22)} ${s.dropped[r]}`)),
    'per source:          episodes  kept  tokens',
    ...Object.entries(s.bySource)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([src, v]) => `  ${src.padEnd(18)} ${String(v.episodes).padStart(8)}  ${String(v.kept).padStart(4)}  ${String(v.tokens).padStart(6)}`),
  ];
  return lines.join('\n');
}

// ---- export formats ----

export const SFT_EXPORT_FORMATS = ['openai', 'hf'] as const;
export type SftExportFormat = (typeof SFT_EXPORT_FORMATS)[number];

interface ToolCallOut {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * OpenAI fine-tuning (chat): `{"messages": [...], "tools": [...]}` with assistant `tool_calls` (arguments as
 * JSON strings) and `tool` messages; an assistant message with tool calls and no text omits `content`. This
 * is also the trainer's input format.
 */
export function openAiLine(messages: readonly ChatCompletionMessageParam[], tools: readonly ChatCompletionTool[] | null): Record<string, unknown> {
  const out = messages.map((m) => {
    if (m.role === 'assistant') {
      const calls = (m.tool_calls ?? []) as ToolCallOut[];
      const content = typeof m.content === 'string' ? m.content : null;
      return {
        role: 'assistant',
        ...(content !== null && content !== '' ? { content } : calls.length === 0 ? { content: content ?? '' } : {}),
        ...(calls.length > 0
          ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.function.name, arguments: c.function.arguments } })) }
          : {}),
      };
    }
    if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id, content: textOf(m.content) };
    return { role: m.role, content: textOf(m.content) };
  });
  return { messages: out, ...(tools && tools.length > 0 ? { tools } : {}) };
}

/**
 * TRL / transformers conversational format: the same messages, every `content` a string (chat templates
 * concatenate it), tool-call arguments as objects when they are a JSON object (what templates index into),
 * and the tool definitions as JSON schemas under `tools`.
 */
export function hfLine(messages: readonly ChatCompletionMessageParam[], tools: readonly ChatCompletionTool[] | null): Record<string, unknown> {
  const out = messages.map((m) => {
    if (m.role === 'assistant') {
      const calls = (m.tool_calls ?? []) as ToolCallOut[];
      return {
        role: 'assistant',
        content: typeof m.content === 'string' ? m.content : '',
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((c) => ({
                id: c.id,
                type: 'function',
                function: { name: c.function.name, arguments: argumentsObject(c.function.arguments) },
              })),
            }
          : {}),
      };
    }
    if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id, content: textOf(m.content) };
    return { role: m.role, content: textOf(m.content) };
  });
  return { messages: out, ...(tools && tools.length > 0 ? { tools } : {}) };
}

function argumentsObject(args: string): unknown {
  try {
    const v: unknown = JSON.parse(args);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v;
  } catch {
    // not JSON: keep the text as the model wrote it
  }
  return args;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === 'object' && 'text' in p ? String((p as { text: unknown }).text) : '')).join('');
  return '';
}

/** sft_datasets.config as stored (checked at the fields every build writes). */
export const sftBuildConfigSchema = documentSchema<SftBuildConfig>({
  name: z.string(),
  dataset: z.string(),
  split: z.string(),
  teacher: z.string(),
  judgeModel: z.string(),
  minScore: z.number(),
  minCodeMatch: z.number(),
});
/** sft_datasets.summary as stored. */
export const sftBuildSummarySchema = documentSchema<SftBuildSummary>({
  name: z.string(),
  runId: z.string(),
  episodes: z.number(),
  kept: z.number(),
  dropped: z.record(z.string(), z.number()),
  bySource: z.record(z.string(), z.unknown()),
});
/** sft_examples.messages: OpenAI chat messages exactly as the agent saw them. */
export const chatMessagesSchema = z.array(
  documentSchema<ChatCompletionMessageParam>({ role: z.enum(['system', 'user', 'assistant', 'tool', 'developer', 'function']) }),
);
/** sft_examples.tools: OpenAI tool definitions. */
export const chatToolsSchema = z.array(documentSchema<ChatCompletionTool>({ type: z.string(), function: z.looseObject({ name: z.string() }) }));
/** Each export format's line. */
const SFT_LINES: Readonly<Record<SftExportFormat, typeof openAiLine>> = { openai: openAiLine, hf: hfLine };

/** The data set as JSONL text in one of the export formats. */
export function sftJsonl(
  examples: readonly { messages: readonly ChatCompletionMessageParam[]; tools: readonly ChatCompletionTool[] | null }[],
  format: SftExportFormat,
): string {
  const line = SFT_LINES[format];
  return examples.map((e) => `${JSON.stringify(line(e.messages, e.tools))}\n`).join('');
}
