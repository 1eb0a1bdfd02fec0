// Placement `inline` (a step's calls run inside the next model turn, on the pau worker's own sandbox pool)
// against the default `queue` placement, on the real stack; and the conversation each turn sends, built
// from this process's copy of it (conversationCache.ts), against the one rebuilt from Postgres.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { localTurnsFor } from '../../activities/episode/lifecycle';
import { messagesFromSteps } from '../../domain/episode/conversation';
import { reloadEnv } from '../../config/env';
import { models } from '../../config/models';
import { llmCalls } from '../../db/schema/llm';
import { episodes } from '../../db/schema/runs';
import { episodeWorkflowId } from '../../domain/bench/workflowIds';
import { insertFixtureMethods, ADD, RAISES } from '../fixtures/episodeMethods';
import { useStack } from '../helpers/stack';
import { maybeRecordHistory } from '../training/helpers';
import { activitiesOf } from '../helpers/histories';
import { runEpisode, stepsOf } from './helpers';

// Local turns are opt-in: on for this file (the scripted model's 30 s timeout qualifies).
process.env.PAU_LOCAL_TURN_MAX_SECONDS = '30';

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  setup: async ({ db }) => {
    await insertFixtureMethods(db, 'fixture-inline', [ADD, RAISES]);
  },
});

type Row = Awaited<ReturnType<typeof stepsOf>>[number];
/** A step without what differs between two runs of the same episode (times, the cache flag). */
const comparable = (r: Row) => {
  const m = (r.agentMessage ?? null) as Record<string, unknown> | null;
  const o = (r.observation ?? null) as { result?: Record<string, unknown> } | null;
  const { ms: _ms, ...result } = o?.result ?? {};
  return {
    idx: r.idx,
    kind: r.kind,
    call: r.call,
    agentMessage: m && { ...m, latencyMs: 0, cached: false },
    observation: o && (o.result ? { ...o, result } : o),
  };
};

describe('sandbox placement inline', () => {
  it.each([ADD, RAISES])('$id: the same steps as queue, in one activity per step, every request byte-identical', async (method) => {
    const queued = await runEpisode(stack.client, stack.db, method.id, 'mock-steps', 'interactive');
    const runId = `t-inline-${Date.now().toString(36)}-${method.entryPoint}`;
    const inline = await runEpisode(stack.client, stack.db, method.id, 'mock-steps', 'interactive', { runId, sandbox: 'inline' });
    expect(queued).toMatchObject({ status: 'completed', endReason: 'submitted' });
    expect(queued.callsMade).toBeGreaterThan(1);
    const { episodeId: _q, ...queuedRest } = queued;
    const { episodeId: _i, ...inlineRest } = inline;
    expect({ ...inlineRest, costUsd: 0 }).toEqual({ ...queuedRest, costUsd: 0 });

    const a = await stepsOf(stack.db, queued.episodeId);
    const b = await stepsOf(stack.db, inline.episodeId);
    expect(b.map(comparable)).toEqual(a.map(comparable));
    // The scripted model's requests are cacheable: the inline episode's turns were all answered from the
    // queued one's, so every request it sent was the same bytes.
    expect(b.filter((r) => r.kind === 'assistant').every((r) => (r.agentMessage as { cached: boolean }).cached)).toBe(true);
    // No judge: each episode measured its coverage where it ran its calls (inline: on this worker), the same.
    const coverage = async (id: string) =>
      (await stack.db.select({ s: episodes.statementCoverage, b: episodes.branchCoverage }).from(episodes).where(eq(episodes.id, id)))[0];
    const qc = await coverage(queued.episodeId);
    expect(qc?.s).not.toBeNull();
    expect(await coverage(inline.episodeId)).toEqual(qc);

    const workflowId = episodeWorkflowId(runId, method.id, 'mock-steps', 'interactive', 0);
    // The scripted model answers within PAU_LOCAL_TURN_MAX_SECONDS: every turn is a local activity.
    const { scheduled, local } = await activitiesOf(stack.client.workflow.getHandle(workflowId));
    expect(scheduled.filter((t) => t === 'runMethodBatch' || t === 'agentTurn')).toEqual([]);
    expect(local.filter((t) => t === 'agentTurn')).toHaveLength(inline.turns);
    if (method === ADD) await maybeRecordHistory(stack.client.workflow.getHandle(workflowId), 'episode-local-turns.json');
  });

  it("each turn's request is the conversation as Postgres has it (the process's copy is exact)", async () => {
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'mock-steps', 'interactive', { sandbox: 'inline', params: { temperature: 0, seed: 7 } });
    const rows = await stepsOf(stack.db, out.episodeId);
    const assistants = rows.filter((r) => r.kind === 'assistant');
    expect(assistants.length).toBeGreaterThan(3);
    for (const a of assistants) {
      const hash = (a.agentMessage as { requestHash: string }).requestHash;
      const [call] = await stack.db.select({ request: llmCalls.request }).from(llmCalls).where(eq(llmCalls.requestHash, hash));
      const request = (call?.request ?? {}) as { messages?: unknown };
      expect(request.messages, `turn at step ${a.idx}`).toEqual(messagesFromSteps(rows.filter((r) => r.idx < a.idx)));
    }
  });
});

describe('which models run their turns as local activities', () => {
  it('the scripted models (30 s timeout) do; local servers (600 s), checkpoints, unknown names and PAU_LOCAL_TURN_MAX_SECONDS=0 do not', () => {
    expect(localTurnsFor('mock-steps')).toBe(true);
    const local = models()
      .names()
      .find((n) => n.startsWith('local/'));
    expect(local).toBeDefined();
    expect(models().get(local!).timeoutMs).toBeGreaterThan(30_000);
    expect(localTurnsFor(local!)).toBe(false);
    expect(localTurnsFor('ckpt:nonexistent')).toBe(false);
    expect(localTurnsFor('no-such-model')).toBe(false);
    const before = process.env.PAU_LOCAL_TURN_MAX_SECONDS;
    process.env.PAU_LOCAL_TURN_MAX_SECONDS = '0';
    reloadEnv();
    try {
      expect(localTurnsFor('mock-steps')).toBe(false);
    } finally {
      if (before === undefined) delete process.env.PAU_LOCAL_TURN_MAX_SECONDS;
      else process.env.PAU_LOCAL_TURN_MAX_SECONDS = before;
      reloadEnv();
    }
  });
});
