// SFT data on the real stack (Temporal, Postgres, the sandbox) with scripted teachers and the scripted
// judge: the stored example is the exact conversation the agent was sent plus its answer (checked against
// the llm_calls ledger, a record written independently of the steps), drops are counted by reason, and the
// exports parse as OpenAI fine-tuning and TRL conversational JSONL.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { llmCalls } from '../../db/schema/llm';
import { steps } from '../../db/schema/runs';
import { sftDatasets, sftExamples } from '../../db/schema/training';
import { startSftBuild } from '../../scripts/client/starters';
import { DEFAULT_SFT_THRESHOLDS, type SftBuildConfig } from '../../domain/training/sftData';
import { sftDataRunId } from '../../domain/training/checkpointIds';
import { trainerLineSchema } from '../../domain/training/trainerProtocol';
import { sftTrainerJsonl } from '../../activities/training/sftData';
import { loadSftExamples } from '../../db/queries/sftData';
import { ADD, insertFixtureMethods, RAISES, REVERSE } from '../fixtures/episodeMethods';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  setup: async ({ db }) => insertFixtureMethods(db, 'fixture-sft', [ADD, REVERSE, RAISES], 'train'),
});

const config = (name: string, teacher: string, extra: Partial<SftBuildConfig> = {}): SftBuildConfig => ({
  name,
  dataset: 'fixture-sft',
  split: 'train',
  teacher,
  judgeModel: 'mock-oracle',
  settings: ['interactive'],
  samples: 1,
  ...DEFAULT_SFT_THRESHOLDS,
  ...extra,
});

// OpenAI fine-tuning, chat format with tools (what its file validation checks, per line).
const oaToolCall = z.strictObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string().min(1), arguments: z.string() }),
});
const oaMessage = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('system'), content: z.string() }),
  z.strictObject({ role: z.literal('user'), content: z.string() }),
  z.strictObject({ role: z.literal('assistant'), content: z.string().optional(), tool_calls: z.array(oaToolCall).min(1).optional() }),
  z.strictObject({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: z.string() }),
]);
const toolDef = z.object({
  type: z.literal('function'),
  function: z.object({ name: z.string(), description: z.string(), parameters: z.object({ type: z.literal('object') }) }),
});
const openAiLine = z.strictObject({ messages: z.array(oaMessage).min(2), tools: z.array(toolDef).optional() });
// TRL / transformers conversational: string contents, tool-call arguments as objects for the templates.
const hfLine = z.strictObject({
  messages: z
    .array(
      z.object({
        role: z.enum(['system', 'user', 'assistant', 'tool']),
        content: z.string(),
        tool_calls: z
          .array(z.object({ type: z.literal('function'), function: z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()) }) }))
          .optional(),
      }),
    )
    .min(2),
  tools: z.array(toolDef).optional(),
});

describe('sft build', () => {
  it('keeps the scripted oracle teacher episodes as the exact transcripts the agent saw, with provenance', async () => {
    const name = `oracle-${Date.now().toString(36)}`;
    const summary = await (await startSftBuild(stack.client, config(name, 'mock-oracle', { minCodeMatch: 0 }))).result();
    expect(summary).toMatchObject({ name, episodes: 3, kept: 3, teacher: 'mock-oracle', judgeModel: 'mock-oracle', runId: sftDataRunId(name) });
    expect(summary.bySource.fixture).toMatchObject({ episodes: 3, kept: 3 });
    expect(summary.tokens).toBeGreaterThan(0);

    const rows = await stack.db.select().from(sftExamples).where(eq(sftExamples.dataset, name));
    expect(rows).toHaveLength(3);
    for (const r of rows) {
      expect(r).toMatchObject({ teacher: 'mock-oracle', judgeModel: 'mock-oracle', setting: 'interactive', source: 'fixture' });
      expect(r.score).toBeGreaterThanOrEqual(4);
      // The ledger's record of the agent's last request and its answer: what the model was sent and said.
      const assistants = (await stack.db.select().from(steps).where(eq(steps.episodeId, r.episodeId)))
        .filter((s) => s.kind === 'assistant')
        .sort((a, b) => a.idx - b.idx);
      const hash = (assistants.at(-1)!.agentMessage as { requestHash: string }).requestHash;
      const [call] = await stack.db.select().from(llmCalls).where(eq(llmCalls.requestHash, hash));
      const sent = (call!.request as { messages: unknown[]; tools?: unknown[] }).messages;
      const answer = (call!.response as { choices: { message: { content: string | null; tool_calls?: unknown[] } }[] }).choices[0]!.message;
      const messages = r.messages;
      expect(messages.slice(0, -1)).toEqual(sent);
      expect(messages.at(-1)).toEqual({ role: 'assistant', content: answer.content, ...(answer.tool_calls?.length ? { tool_calls: answer.tool_calls } : {}) });
      expect(messages.length).toBeGreaterThanOrEqual(4); // system/user, at least one call and its result, the answer
      expect(messages.some((m) => m.role === 'tool')).toBe(true);
      // The tools offered on the first turn (explore: call the method or submit).
      const [first] = await stack.db
        .select()
        .from(llmCalls)
        .where(eq(llmCalls.requestHash, (assistants[0]!.agentMessage as { requestHash: string }).requestHash));
      expect(r.tools).toEqual((first!.request as { tools: unknown[] }).tools);
    }
    const [ds] = await stack.db.select().from(sftDatasets).where(eq(sftDatasets.name, name));
    expect(ds?.summary).toMatchObject({ kept: 3 });

    // The trainer's lines: every assistant message with the tools of the request it was generated from,
    // as the ledger recorded that request (servedLine.ts).
    const examples = await loadSftExamples(stack.db, name);
    const trainerData = await sftTrainerJsonl(stack.db, examples);
    expect(trainerData).toMatchObject({ lines: 3, notAsServed: 0 });
    for (const [e, text] of trainerData.text.trimEnd().split('\n').entries()) {
      const line = trainerLineSchema.parse(JSON.parse(text));
      const assistants = (await stack.db.select().from(steps).where(eq(steps.episodeId, examples[e]!.episodeId)))
        .filter((s) => s.kind === 'assistant')
        .sort((a, b) => a.idx - b.idx);
      expect(line.requests?.map((q) => q.message)).toEqual(line.messages.flatMap((m, i) => (m.role === 'assistant' ? [i] : [])));
      for (const [k, q] of (line.requests ?? []).entries()) {
        const hash = (assistants[k]!.agentMessage as { requestHash: string }).requestHash;
        const [call] = await stack.db.select().from(llmCalls).where(eq(llmCalls.requestHash, hash));
        const sent = call!.request as { messages: unknown[]; tools?: unknown[] };
        expect(q.tools === null ? undefined : line.tool_sets?.[q.tools]).toEqual(sent.tools);
      }
    }

    // Building the same data set again rewrites the same rows.
    await (await startSftBuild(stack.client, config(name, 'mock-oracle', { minCodeMatch: 0 }))).result();
    expect(await stack.db.select().from(sftExamples).where(eq(sftExamples.dataset, name))).toHaveLength(3);

    // Exports: both formats parse, one line per example, the messages survive the conversion.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sft-export-'));
    for (const [format, lineSchema] of [
      ['openai', openAiLine],
      ['hf', hfLine],
    ] as const) {
      const out = path.join(dir, `${format}.jsonl`);
      const r = await runCli(['sft', 'export', name, '--out', out, '--format', format]);
      expect(r.code, r.stderr).toBe(0);
      const lines = fs.readFileSync(out, 'utf8').trimEnd().split('\n');
      expect(lines).toHaveLength(3);
      for (const l of lines) {
        const parsed = lineSchema.parse(JSON.parse(l));
        expect(parsed.messages.at(-1)?.role).toBe('assistant');
        expect(parsed.tools?.map((t) => t.function.name)).toEqual(['call_method', 'submit_description']);
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }, 240_000);

  it('drops episodes below the thresholds and counts them by reason', async () => {
    const name = `strict-${Date.now().toString(36)}`;
    const summary = await (await startSftBuild(stack.client, config(name, 'mock-null', { minScore: 5 }))).result();
    expect(summary.episodes).toBe(3);
    expect(summary.kept).toBe(0);
    const dropped = Object.values(summary.dropped).reduce((s, n) => s + (n ?? 0), 0);
    expect(dropped).toBe(3);
    expect(await stack.db.select().from(sftExamples).where(eq(sftExamples.dataset, name))).toHaveLength(0);
  });
});
