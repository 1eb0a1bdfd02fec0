import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { loadEpisodeTranscript } from '../../activities/episode/transcript';
import { episodes } from '../../db/schema/runs';
import { episodeWorkflowId } from '../../domain/bench/workflowIds';
import { maybeRecordHistory } from '../helpers/histories';
import { ADD, insertFixtureMethods, LOOPS, RAISES, REVERSE } from '../fixtures/episodeMethods';
import { runEpisode, stepsOf } from './helpers';
import { useStack } from '../helpers/stack';

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  setup: async ({ db }) => {
    await insertFixtureMethods(db, 'fixture-episodes', [ADD, REVERSE, RAISES, LOOPS]);
  },
});

const observations = (rows: Awaited<ReturnType<typeof stepsOf>>) =>
  rows.filter((s) => s.kind === 'call').map((s) => s.observation as { text: string; category: string });

describe('interactive episode', () => {
  it('oracle: calls the method on its probe inputs in one batch, then submits the gold description', async () => {
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'mock-oracle', 'interactive');
    expect(out).toMatchObject({ status: 'completed', endReason: 'submitted', callsMade: 4, turns: 2 });
    const rows = await stepsOf(stack.db, out.episodeId);
    expect(rows.map((s) => s.kind)).toEqual(['system', 'user', 'assistant', 'call', 'call', 'call', 'call', 'assistant', 'submit']);
    expect(rows.map((s) => s.idx)).toEqual(rows.map((_, i) => i));
    expect(observations(rows).map((o) => o.text)).toEqual(['3', '0', "'abcd'", '[1, 2, 3]']);
    const t = await loadEpisodeTranscript(stack.db, out.episodeId);
    expect(t?.finalDescription).toBe(ADD.gold);
    expect(t?.episode.status).toBe('completed');
    expect(t?.episode.callsMade).toBe(4);
    expect(t?.episode.tokensIn).toBeGreaterThan(0);
    expect(t?.observedCalls.map((c) => c.arguments)).toEqual(ADD.probes);
    // The messages the model saw are rebuilt from the steps: tool results follow their calls.
    expect(t?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'tool', 'tool', 'assistant', 'tool']);
  });

  it('malformed tool-call JSON is recorded as a problem, shown to the agent, and the episode goes on', async () => {
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'mock-malformed', 'interactive');
    expect(out).toMatchObject({ status: 'completed', endReason: 'submitted', callsMade: 0 });
    const rows = await stepsOf(stack.db, out.episodeId);
    const problem = rows.find((s) => s.kind === 'problem');
    expect(problem?.call).toMatchObject({ problem: 'malformed_json', raw: '{"arguments": "1, 2' });
    expect((problem!.observation as { text: string }).text).toMatch(/not valid JSON/);
  });

  it('wrong arity is an observation (TypeError) labelled wrong_arity', async () => {
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'mock-wrong-arity', 'interactive');
    expect(out.status).toBe('completed');
    const [obs] = observations(await stepsOf(stack.db, out.episodeId));
    expect(obs?.category).toBe('wrong_arity');
    expect(obs?.text).toMatch(/^TypeError: .*positional argument/);
  });

  it("a raising method's exception is the observation", async () => {
    const out = await runEpisode(stack.client, stack.db, RAISES.id, 'mock-oracle', 'interactive');
    expect(out.status).toBe('completed');
    expect(observations(await stepsOf(stack.db, out.episodeId)).map((o) => o.text)).toEqual(['3', 'ValueError: division by zero is not allowed', '-4']);
  });

  it('a sandbox timeout is an observation, and the other calls of the batch still answer', async () => {
    const out = await runEpisode(stack.client, stack.db, LOOPS.id, 'mock-oracle', 'interactive', { sandboxLimits: { timeoutMs: 300 } });
    expect(out.status).toBe('completed');
    const obs = observations(await stepsOf(stack.db, out.episodeId));
    expect(obs[0]?.category).toBe('timeout');
    expect(obs[0]?.text).toMatch(/^Timeout: /);
    expect(obs[1]?.text).toBe('0');
  });

  it('refusals are recorded as refusals; the agent is nudged, then asked for a final description and re-asked once', async () => {
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'mock-refuse', 'interactive', { budgets: { maxTurns: 2 } });
    expect(out).toMatchObject({ status: 'completed', endReason: 'no_description_after_reask_refusal', turns: 4 });
    const rows = await stepsOf(stack.db, out.episodeId);
    expect(rows.filter((s) => s.kind === 'assistant').map((s) => (s.agentMessage as { answer: string }).answer)).toEqual([
      'refusal',
      'refusal',
      'refusal',
      'refusal',
    ]);
    expect(rows.filter((s) => s.kind === 'user').map((s) => (s.agentMessage as { reason?: string }).reason)).toEqual([
      undefined,
      'refusal',
      'You have used all 2 turns.',
      'refusal',
    ]);
    const [ep] = await stack.db.select().from(episodes).where(eq(episodes.id, out.episodeId));
    expect(ep?.finalDescription).toBeNull();
  });

  it('turns without progress (no call, no description) end the episode early as no_progress, keeping no prose', async () => {
    const runId = `t-noprogress-${Date.now().toString(36)}`;
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'mock-refuse', 'interactive', { runId, budgets: { maxIdleTurns: 3 } });
    // Three refusals in a row (maxIdleTurns), long before the turn budget (20): no final ask, no re-ask.
    expect(out).toMatchObject({ status: 'completed', endReason: 'no_progress', turns: 3, callsMade: 0 });
    const [ep] = await stack.db.select().from(episodes).where(eq(episodes.id, out.episodeId));
    expect(ep?.finalDescription).toBeNull();
    await maybeRecordHistory(stack.client.workflow.getHandle(episodeWorkflowId(runId, ADD.id, 'mock-refuse', 'interactive', 0)), 'episode-no-progress.json');
  });

  it('empty answers are recorded as empty', async () => {
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'mock-empty', 'interactive', { budgets: { maxTurns: 1 } });
    expect(out).toMatchObject({ status: 'completed', endReason: 'no_description_after_reask_empty' });
  });

  it('null policy: submits a useless description at once', async () => {
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'mock-null', 'interactive');
    expect(out).toMatchObject({ status: 'completed', endReason: 'submitted', callsMade: 0 });
    const t = await loadEpisodeTranscript(stack.db, out.episodeId);
    expect(t?.finalDescription).toContain('I do not know');
  });

  it('a budget of calls: excess calls are not run, then the final ask', async () => {
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'mock-oracle', 'interactive', { budgets: { maxCalls: 2 } });
    expect(out).toMatchObject({ status: 'completed', endReason: 'submitted_after_final_ask', callsMade: 2 });
    const rows = await stepsOf(stack.db, out.episodeId);
    expect(rows.filter((s) => s.kind === 'problem').map((s) => (s.call as { problem: string }).problem)).toEqual(['over_budget', 'over_budget']);
  });
});

describe('in-context episode', () => {
  it('shows k probe inputs with their outputs and takes one answer', async () => {
    const out = await runEpisode(stack.client, stack.db, REVERSE.id, 'mock-oracle', 'in-context', { k: 3 });
    expect(out).toMatchObject({ status: 'completed', endReason: 'answered', callsMade: 0, turns: 1 });
    const rows = await stepsOf(stack.db, out.episodeId);
    expect(rows.map((s) => s.kind)).toEqual(['system', 'example', 'example', 'example', 'user', 'assistant']);
    const user = (rows[4]!.agentMessage as { content: string }).content;
    expect(user).toContain("reverse_words('hello world') -> 'world hello'");
    expect(user).toContain("reverse_words('') -> ''");
    const t = await loadEpisodeTranscript(stack.db, out.episodeId);
    expect(t?.finalDescription).toBe(REVERSE.gold);
    expect(t?.observedCalls.map((c) => c.source)).toEqual(['example', 'example', 'example']);
  });

  it('an example that raises is shown as raising', async () => {
    const out = await runEpisode(stack.client, stack.db, RAISES.id, 'mock-random', 'in-context');
    expect(out.status).toBe('completed');
    const rows = await stepsOf(stack.db, out.episodeId);
    const user = (rows.find((s) => s.kind === 'user')!.agentMessage as { content: string }).content;
    expect(user).toContain('safe_div(1, 0) raises ValueError: division by zero is not allowed');
  });
});
