// A benchmark run as inspect_ai eval logs (`pau export inspect`): one log per (model, setting), in the JSON
// log format of the pinned inspect-ai release (scripts/inspect/requirements.txt; its pydantic models EvalLog,
// EvalSpec, EvalSample, ChatMessage*, Score are what the schema below follows, field for field, for the
// fields written). One sample per episode: the conversation as the harness sent it
// (domain/episode/conversation.ts), the final description as the output, and the scores the report may
// show; a score the report withholds (judge card: domain/report/judgeCardView.ts) is exported as
// "withheld", never as its number. Pure: the reads are platform/export/inspectExport.ts's. Format: docs/inspect.md.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import type { JudgeCardStatus } from '../judge/card';
import type { ModelParams } from '../llm/modelParams';
import { fnv1aHex } from '../common/hash';
import { type ReportView, cardTitle, reportView } from '../report/judgeCardView';
import type { Estimate } from '../report/stats';
import { type EpisodeRow, type GroupSummary, type Metric, type ScoreDistribution, endReasonsText } from '../report/summarize';

// --- the schema: the subset of inspect_ai's EvalLog this export writes ---------------------------------

const jsonObject = z.record(z.string(), z.unknown());

const toolCallSchema = z
  .object({
    id: z.string(),
    function: z.string(),
    arguments: jsonObject,
    parse_error: z.string().optional(),
    type: z.literal('function'),
  })
  .strict();

export const chatMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string(), source: z.literal('input') }).strict(),
  z.object({ role: z.literal('user'), content: z.string(), source: z.literal('input') }).strict(),
  z
    .object({
      role: z.literal('assistant'),
      content: z.string(),
      source: z.literal('generate'),
      model: z.string(),
      tool_calls: z.array(toolCallSchema).optional(),
    })
    .strict(),
  z.object({ role: z.literal('tool'), content: z.string(), tool_call_id: z.string(), function: z.string().optional() }).strict(),
]);
export type InspectChatMessage = z.infer<typeof chatMessageSchema>;

/** inspect's Score.value: a number, a string ("withheld", "unparsable", an end reason) or a boolean. */
const scoreSchema = z
  .object({
    value: z.union([z.number(), z.string(), z.boolean()]),
    answer: z.string().optional(),
    explanation: z.string().optional(),
    metadata: jsonObject.optional(),
  })
  .strict();
export type InspectScore = z.infer<typeof scoreSchema>;

const modelUsageSchema = z
  .object({ input_tokens: z.number().int(), output_tokens: z.number().int(), total_tokens: z.number().int(), total_cost: z.number() })
  .strict();

const evalErrorSchema = z.object({ message: z.string(), traceback: z.string(), traceback_ansi: z.string() }).strict();

export const evalSampleSchema = z
  .object({
    id: z.string(),
    epoch: z.number().int().positive(),
    input: z.string(),
    target: z.string(),
    messages: z.array(chatMessageSchema),
    output: z
      .object({
        model: z.string(),
        choices: z.array(
          z
            .object({
              message: chatMessageSchema,
              stop_reason: z.enum(['stop', 'max_tokens', 'model_length', 'tool_calls', 'content_filter', 'unknown']),
            })
            .strict(),
        ),
        completion: z.string(),
      })
      .strict(),
    scores: z.record(z.string(), scoreSchema),
    metadata: jsonObject,
    model_usage: z.record(z.string(), modelUsageSchema),
    error: evalErrorSchema.optional(),
  })
  .strict();
export type InspectSample = z.infer<typeof evalSampleSchema>;

const generateConfigSchema = z
  .object({
    temperature: z.number().optional(),
    top_p: z.number().optional(),
    max_tokens: z.number().int().optional(),
    seed: z.number().int().optional(),
  })
  .strict();

const evalMetricSchema = z.object({ name: z.string(), value: z.number(), params: jsonObject }).strict();
const evalScoreSchema = z
  .object({
    name: z.string(),
    scorer: z.string(),
    scored_samples: z.number().int(),
    unscored_samples: z.number().int(),
    params: jsonObject,
    metrics: z.record(z.string(), evalMetricSchema),
    metadata: jsonObject.optional(),
  })
  .strict();

export const evalLogSchema = z
  .object({
    version: z.literal(2),
    status: z.enum(['success', 'cancelled', 'error']),
    eval: z
      .object({
        eval_id: z.string(),
        run_id: z.string(),
        created: z.string(),
        task: z.string(),
        task_id: z.string(),
        task_version: z.string(),
        task_display_name: z.string(),
        task_description: z.string(),
        task_args: jsonObject,
        solver: z.string(),
        tags: z.array(z.string()),
        dataset: z.object({ name: z.string(), location: z.string(), samples: z.number().int(), sample_ids: z.array(z.string()) }).strict(),
        model: z.string(),
        model_generate_config: generateConfigSchema,
        model_args: jsonObject,
        config: z.object({ epochs: z.number().int().positive() }).strict(),
        packages: z.record(z.string(), z.string()),
        metadata: jsonObject,
      })
      .strict(),
    plan: z
      .object({
        name: z.string(),
        steps: z.array(z.object({ solver: z.string(), params: jsonObject }).strict()),
        config: generateConfigSchema,
      })
      .strict(),
    results: z
      .object({ total_samples: z.number().int(), completed_samples: z.number().int(), scores: z.array(evalScoreSchema), metadata: jsonObject })
      .strict(),
    stats: z.object({ started_at: z.string(), completed_at: z.string(), model_usage: z.record(z.string(), modelUsageSchema) }).strict(),
    error: evalErrorSchema.optional(),
    tags: z.array(z.string()),
    metadata: jsonObject,
    samples: z.array(evalSampleSchema),
  })
  .strict();
export type InspectEvalLog = z.infer<typeof evalLogSchema>;

// --- what the builder is given --------------------------------------------------------------------------

/** One episode: its report row (the report's judge), its stored steps rebuilt as sent, and what the row lacks. */
export interface ExportEpisode {
  row: EpisodeRow;
  /** The conversation as the harness sent it (messagesFromSteps), the final answer included. */
  messages: ChatCompletionMessageParam[];
  /** How many steps were stored: 0 means the episode has no transcript. */
  steps: number;
  finalDescription: string | null;
  error: string | null;
  /** The report judge's rationale (shown only with its score). */
  rationale: string | null;
  /** The signature line the agent was shown. */
  signature: string | null;
}

export interface InspectExportInput {
  /** An ended run (the export refuses one not started or still running): startedAt is set. */
  run: { id: string; status: string; startedAt: string; finishedAt: string | null };
  config: { dataset: string; split: string; samples: number; budgets?: unknown; k?: number; inContextExamples?: string };
  dataset: { name: string; contentHash: string | null };
  judgeModel: string | null;
  judgeCard: JudgeCardStatus | undefined;
  groups: readonly GroupSummary[];
  distribution: readonly ScoreDistribution[];
  episodes: readonly ExportEpisode[];
  /** The request parameters each model's turns were sent with (registry defaults, then the run's). */
  params: Readonly<Record<string, ModelParams>>;
  /** What made the log, recorded as the eval's packages: this project's version, the inspect_ai it targets. */
  packages: Readonly<Record<string, string>>;
}

export interface InspectLogFile {
  /** `<created>_pau-<setting>_<id>.json`: the name inspect's log listing parses (timestamp, task, id). */
  fileName: string;
  model: string;
  setting: string;
  log: InspectEvalLog;
}

// --- the builder -----------------------------------------------------------------------------------------

/** The scorers, in the order a sample lists them. */
export const SCORERS = ['judge', 'code_match_unseen', 'statement_coverage', 'branch_coverage', 'calls', 'end_reason'] as const;
export type ScorerName = (typeof SCORERS)[number];
export const WITHHELD = 'withheld';

const SCORER_METRIC: Partial<Record<ScorerName, Metric>> = {
  judge: 'score',
  code_match_unseen: 'codeMatchUnobserved',
  statement_coverage: 'statementCoverage',
  branch_coverage: 'branchCoverage',
};

/** A run's logs, one per (model, setting) that has episodes; deterministic (the same run gives the same files). */
export function inspectLogs(input: InspectExportInput): InspectLogFile[] {
  const view = reportView(input);
  const keys = [...new Set(input.episodes.map((e) => `${e.row.model}\u0000${e.row.setting}`))].sort();
  return keys.map((key) => {
    const [model, setting] = key.split('\u0000') as [string, string];
    const eps = input.episodes.filter((e) => e.row.model === model && e.row.setting === setting);
    const group = input.groups.find((g) => g.model === model && g.setting === setting);
    const dist = input.distribution.find((d) => d.model === model && d.setting === setting);
    const log = buildLog(input, view, model, setting, eps, group, dist);
    const stamp = log.eval.created.replace(/\.\d+/, '').replace(/:/g, '-');
    return { fileName: `${stamp}_${log.eval.task}_${log.eval.task_id}.json`, model, setting, log: evalLogSchema.parse(log) };
  });
}

function buildLog(
  input: InspectExportInput,
  view: ReportView,
  model: string,
  setting: string,
  eps: readonly ExportEpisode[],
  group: GroupSummary | undefined,
  dist: ScoreDistribution | undefined,
): InspectEvalLog {
  const { run, config } = input;
  const created = iso(run.startedAt);
  const taskId = fnv1aHex(`${run.id}\u0000${model}\u0000${setting}`);
  const samples = eps.map((e) => sample(e, view, input.judgeModel));
  const usage = sumUsage(eps.map((e) => e.row));
  const params = input.params[model] ?? {};
  const generate = generateConfig(params);
  const ended = eps.filter((e) => e.row.status !== 'pending' && e.row.status !== 'running').length;
  return {
    version: 2,
    status: run.status === 'failed' ? 'error' : run.status === 'cancelled' ? 'cancelled' : 'success',
    eval: {
      eval_id: fnv1aHex(`eval\u0000${run.id}\u0000${model}\u0000${setting}`),
      run_id: run.id,
      created,
      task: `pau-${setting}`,
      task_id: taskId,
      task_version: 'pau-v1',
      task_display_name: `PAU ${config.dataset}/${config.split} · ${setting}`,
      task_description:
        setting === 'interactive'
          ? "The agent sees a Python method's name and signature, calls it with inputs it chooses, and describes what it does."
          : "The agent sees a Python method's name, signature and example calls, and describes what it does.",
      task_args: {
        dataset: config.dataset,
        split: config.split,
        setting,
        samples: config.samples,
        ...(config.budgets !== undefined ? { budgets: config.budgets } : {}),
        ...(config.k !== undefined ? { k: config.k } : {}),
        ...(config.inContextExamples !== undefined ? { in_context_examples: config.inContextExamples } : {}),
      },
      solver: `pau/${setting}`,
      tags: ['pau', setting],
      dataset: {
        name: input.dataset.name,
        location: `pau:${input.dataset.name}@${input.dataset.contentHash ?? 'unknown'}#${config.split}`,
        samples: samples.length,
        sample_ids: [...new Set(samples.map((s) => s.id))],
      },
      model,
      model_generate_config: generate,
      model_args: {},
      config: { epochs: Math.max(1, config.samples) },
      packages: { ...input.packages },
      metadata: {
        pau_run_id: run.id,
        pau_run_status: run.status,
        dataset: { name: input.dataset.name, content_hash: input.dataset.contentHash, split: config.split },
        request_params: params,
        judge: judgeMetadata(input, view),
      },
    },
    plan: {
      name: 'plan',
      steps: [{ solver: `pau/${setting}`, params: { setting, ...(config.budgets !== undefined ? { budgets: config.budgets } : {}) } }],
      config: generate,
    },
    results: {
      total_samples: samples.length,
      completed_samples: ended,
      scores: SCORERS.flatMap((name) => evalScore(name, samples, view, group, dist)),
      metadata: { counting: 'every ended episode; failed, cancelled, unjudged and unparsable ones score 1 / code match 0 (the report headline)' },
    },
    stats: { started_at: created, completed_at: iso(run.finishedAt ?? run.startedAt), model_usage: { [model]: usage } },
    ...(run.status === 'failed' ? { error: { message: `run ${run.id} failed`, traceback: '', traceback_ansi: '' } } : {}),
    tags: ['pau'],
    metadata: {},
    samples,
  };
}

function sample(e: ExportEpisode, view: ReportView, judgeModel: string | null): InspectSample {
  const r = e.row;
  const messages = toInspectMessages(e.messages, r.model);
  const description = e.finalDescription ?? '';
  const first = messages.find((m) => m.role === 'user');
  return {
    id: r.methodId,
    epoch: r.sample + 1,
    input: first?.content ?? e.signature ?? r.methodId,
    // The reference description is not exported: a shared log would carry the split's answers.
    target: '',
    messages,
    output: {
      model: r.model,
      choices: [{ message: { role: 'assistant', content: description, source: 'generate', model: r.model }, stop_reason: 'stop' }],
      completion: description,
    },
    scores: sampleScores(e, view, judgeModel),
    metadata: {
      episode_id: r.episodeId,
      method_id: r.methodId,
      source: r.source,
      setting: r.setting,
      sample: r.sample,
      status: r.status,
      end_reason: r.endReason,
      calls: r.callsMade,
      signature: e.signature,
      cost_usd: r.costUsd,
      ...(r.inContextK != null ? { in_context_k: r.inContextK } : {}),
      ...(r.workflowId ? { workflow_id: r.workflowId } : {}),
      ...(r.uiLink ? { temporal_ui: r.uiLink } : {}),
      ...(e.steps === 0 ? { no_transcript: noTranscriptReason(e) } : {}),
    },
    model_usage: { [r.model]: usage(r) },
    ...(r.status === 'failed' || r.status === 'cancelled' ? { error: { message: e.error ?? `episode ${r.status}`, traceback: '', traceback_ansi: '' } } : {}),
  };
}

function noTranscriptReason(e: ExportEpisode): string {
  const r = e.row;
  const why = e.error ? `: ${e.error}` : '';
  if (r.status === 'pending') return 'no steps recorded: the episode never started';
  if (r.status === 'failed' || r.status === 'cancelled') return `no steps recorded: the episode ${r.status} before its first step${why}`;
  return `no steps recorded (episode ${r.status})${why}`;
}

/** The scores of one episode; a judge-based one the report withholds is `withheld`, with the reason. */
export function sampleScores(e: Pick<ExportEpisode, 'row' | 'rationale'>, view: ReportView, judgeModel: string | null): Record<string, InspectScore> {
  const r = e.row;
  const out: Record<string, InspectScore> = {};
  const withheld = (why: string | null): InspectScore => ({ value: WITHHELD, explanation: why ?? 'withheld by the judge card' });
  if (r.judged && view.judged) {
    const meta = { judge_model: judgeModel };
    if (!view.scores) out.judge = { ...withheld(view.withheld), metadata: meta };
    else if (r.scoreWithheld)
      out.judge = { ...withheld(`the judge card did not qualify the judge in this method's mode (${r.judgeMode ?? 'unknown'})`), metadata: meta };
    else if (r.unparsable || r.score === null) out.judge = { value: 'unparsable', explanation: 'the judge answer could not be parsed', metadata: meta };
    else
      out.judge = {
        value: r.score,
        ...(e.rationale ? { explanation: e.rationale } : {}),
        metadata: { ...meta, ...(view.forcedBanner ? { forced: view.forcedBanner } : {}) },
      };
    if (!view.codeMatch) out.code_match_unseen = withheld(view.withheld);
    else if (r.codeMatchUnobserved != null)
      out.code_match_unseen = {
        value: r.codeMatchUnobserved,
        metadata: { code_match_all_inputs: r.codeMatch, ...(r.diagnostics?.heldout ? { heldout: r.diagnostics.heldout } : {}) },
      };
  }
  // Coverage needs no judge: shown wherever it was measured (by the judge step, or the episode's own when none).
  if (r.statementCoverage !== null) out.statement_coverage = { value: r.statementCoverage };
  if (r.branchCoverage !== null) out.branch_coverage = { value: r.branchCoverage };
  out.calls = { value: r.callsMade };
  out.end_reason = { value: r.endReason ?? r.status };
  return out;
}

/** The run-level figure of one scorer: the report's headline estimate (mean and 95% interval), or withheld. */
function evalScore(
  name: ScorerName,
  samples: readonly InspectSample[],
  view: ReportView,
  group: GroupSummary | undefined,
  dist: ScoreDistribution | undefined,
): z.infer<typeof evalScoreSchema>[] {
  const scored = samples.filter((s) => s.scores[name] !== undefined).length;
  const base = { name, scorer: name, scored_samples: scored, unscored_samples: samples.length - scored, params: {} };
  // No judge, no score row: the judge's scorers are left out of the results, not shown as withheld.
  if (!view.judged && (name === 'judge' || name === 'code_match_unseen')) return [];
  const gated = (name === 'judge' && !view.scores) || (name === 'code_match_unseen' && !view.codeMatch);
  if (gated) return [{ ...base, metrics: {}, metadata: { withheld: view.withheld } }];
  if (name === 'calls') {
    const calls = samples.map((s) => s.scores.calls?.value).filter((v): v is number => typeof v === 'number');
    return [{ ...base, metrics: calls.length > 0 ? { mean: metric('mean', calls.reduce((a, b) => a + b, 0) / calls.length) } : {} }];
  }
  if (name === 'end_reason') return [{ ...base, metrics: {}, metadata: { end_reasons: group?.endReasons ?? {}, text: group ? endReasonsText(group) : '-' } }];
  const m = SCORER_METRIC[name];
  const est: Estimate | undefined = m ? group?.metrics[m] : undefined;
  const metrics: Record<string, z.infer<typeof evalMetricSchema>> = {};
  if (est && est.mean !== null) {
    metrics.mean = metric('mean', est.mean);
    if (est.lo !== null) metrics.ci_lo = metric('ci_lo', est.lo);
    if (est.hi !== null) metrics.ci_hi = metric('ci_hi', est.hi);
  }
  const distribution = name === 'judge' && dist ? { distribution: dist.counts } : {};
  const forced = name === 'judge' && view.forcedBanner ? { forced: view.forcedBanner } : {};
  return [{ ...base, metrics, metadata: { n: est?.n ?? 0, interval: '95% bootstrap over methods', ...distribution, ...forced } }];
}

function metric(name: string, value: number): z.infer<typeof evalMetricSchema> {
  return { name, value, params: {} };
}

/** The judge card's verdict as the eval's metadata: who judged, qualified or not, what is withheld and why. */
function judgeMetadata(input: InspectExportInput, view: ReportView): Record<string, unknown> {
  const c = input.judgeCard;
  return {
    judge_model: input.judgeModel,
    card: c ? cardTitle(c) : input.judgeModel ? 'no judge card attached' : 'not judged',
    status: c?.status ?? null,
    judge_qualified: c && c.status !== 'missing' ? c.card.judgeQualified : null,
    judge_qualified_code_only: c && c.status !== 'missing' ? (c.card.judgeQualifiedCodeOnly ?? null) : null,
    coder_qualified: c && c.status !== 'missing' ? c.card.coderQualified : null,
    checks:
      c && c.status !== 'missing'
        ? c.card.checks.map((k) => ({ name: k.name, applies: k.applies, mode: k.mode ?? 'reference', value: k.value, threshold: k.threshold, pass: k.pass }))
        : [],
    scores_shown: view.scores,
    code_match_shown: view.codeMatch,
    withheld: view.withheld,
    forced: view.forcedBanner,
    ...(c?.status === 'missing' ? { command: c.command } : {}),
  };
}

/** OpenAI-style chat messages (as sent) in inspect's shape; a tool result names its tool from the call it answers. */
export function toInspectMessages(messages: readonly ChatCompletionMessageParam[], model: string): InspectChatMessage[] {
  const toolNames = new Map<string, string>();
  const out: InspectChatMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case 'system':
      case 'developer':
        out.push({ role: 'system', content: textOf(m.content), source: 'input' });
        break;
      case 'user':
        out.push({ role: 'user', content: textOf(m.content), source: 'input' });
        break;
      case 'assistant': {
        const calls = (m.tool_calls ?? []).flatMap((t) => (t.type === 'function' ? [t] : []));
        for (const t of calls) toolNames.set(t.id, t.function.name);
        out.push({
          role: 'assistant',
          content: textOf(m.content ?? ''),
          source: 'generate',
          model,
          ...(calls.length > 0 ? { tool_calls: calls.map((t) => toolCall(t.id, t.function.name, t.function.arguments)) } : {}),
        });
        break;
      }
      case 'tool': {
        const fn = toolNames.get(m.tool_call_id);
        out.push({ role: 'tool', content: textOf(m.content), tool_call_id: m.tool_call_id, ...(fn ? { function: fn } : {}) });
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/** inspect's ToolCall holds parsed arguments; text that is no JSON object is kept whole, with the parse error. */
function toolCall(id: string, fn: string, args: string): z.infer<typeof toolCallSchema> {
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return { id, function: fn, arguments: parsed as Record<string, unknown>, type: 'function' };
    return { id, function: fn, arguments: { value: parsed }, type: 'function' };
  } catch (err) {
    return { id, function: fn, arguments: { raw: args }, parse_error: err instanceof Error ? err.message : String(err), type: 'function' };
  }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === 'object' && 'text' in p ? String((p as { text: unknown }).text) : '')).join('');
  return '';
}

function generateConfig(p: ModelParams): z.infer<typeof generateConfigSchema> {
  const maxTokens = p.max_tokens ?? p.max_completion_tokens;
  return {
    ...(p.temperature !== undefined ? { temperature: p.temperature } : {}),
    ...(p.top_p !== undefined ? { top_p: p.top_p } : {}),
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...(p.seed !== undefined ? { seed: p.seed } : {}),
  };
}

function usage(r: Pick<EpisodeRow, 'tokensIn' | 'tokensOut' | 'costUsd'>): z.infer<typeof modelUsageSchema> {
  return { input_tokens: r.tokensIn, output_tokens: r.tokensOut, total_tokens: r.tokensIn + r.tokensOut, total_cost: r.costUsd };
}

function sumUsage(rows: readonly EpisodeRow[]): z.infer<typeof modelUsageSchema> {
  return usage({
    tokensIn: rows.reduce((a, r) => a + r.tokensIn, 0),
    tokensOut: rows.reduce((a, r) => a + r.tokensOut, 0),
    costUsd: rows.reduce((a, r) => a + r.costUsd, 0),
  });
}

/** A timestamp as inspect writes it (ISO 8601 with an explicit UTC offset). */
function iso(t: string): string {
  return new Date(t).toISOString().replace('Z', '+00:00');
}
