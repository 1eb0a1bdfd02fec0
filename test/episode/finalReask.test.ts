// The final ask and its one re-ask, with scripted models that answer the final ask with another call (as
// the 0.5B does): the re-ask says the call was not run, goes without tools, and is asked once only.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { llmCalls } from '../../db/schema/llm';
import { episodes } from '../../db/schema/runs';
import { episodeWorkflowId } from '../../domain/bench/workflowIds';
import { FINAL_ASK_MARK } from '../../domain/episode/prompts';
import { ADD, insertFixtureMethods } from '../fixtures/episodeMethods';
import { useStack } from '../helpers/stack';
import { maybeRecordHistory } from '../helpers/histories';
import { runEpisode, stepsOf } from './helpers';

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  setup: async ({ db }) => {
    await insertFixtureMethods(db, 'fixture-final-reask', [ADD]);
  },
});

type Rows = Awaited<ReturnType<typeof stepsOf>>;
const userPrompts = (rows: Rows) => rows.filter((s) => s.kind === 'user').map((s) => s.agentMessage as { content: string; reason?: string });
const answers = (rows: Rows) => rows.filter((s) => s.kind === 'assistant').map((s) => (s.agentMessage as { answer: string }).answer);
const problems = (rows: Rows) => rows.filter((s) => s.kind === 'problem').map((s) => (s.call as { problem: string }).problem);

/** The request the model was sent for the assistant step at `idx`. */
async function requestOf(rows: Rows, idx: number): Promise<{ tools?: unknown[]; messages: { role: string; content: string }[] }> {
  const hash = (rows.find((r) => r.idx === idx)?.agentMessage as { requestHash: string } | undefined)?.requestHash ?? '';
  const [call] = await stack.db.select({ request: llmCalls.request }).from(llmCalls).where(eq(llmCalls.requestHash, hash));
  return call?.request as { tools?: unknown[]; messages: { role: string; content: string }[] };
}

describe('the final ask and its re-ask', () => {
  it('a call at the final ask is not run; the re-ask says so and names the function; the description then counts', async () => {
    const runId = `t-reask-${Date.now().toString(36)}`;
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'mock-text-reask', 'interactive', { runId, budgets: { maxCalls: 2 } });
    // Two calls run (turns 1-2), a call at the final ask (turn 3), the description on the re-ask (turn 4).
    expect(out).toMatchObject({ status: 'completed', endReason: 'submitted_after_reask', callsMade: 2, turns: 4 });
    const rows = await stepsOf(stack.db, out.episodeId);
    expect(answers(rows)).toEqual(['tool_calls', 'tool_calls', 'problems_only', 'submitted']);
    expect(problems(rows)).toEqual(['over_budget']);
    const asks = userPrompts(rows).filter((u) => u.content.includes(FINAL_ASK_MARK));
    expect(asks.map((u) => u.reason)).toEqual(['You have used all 2 calls.', 'problems_only']);
    // Its calls came from text, so the first final ask is already the plain-language one, without tools.
    expect(asks[0]?.content).toMatch(/^You have used all 2 calls\. No more calls will be run: stop calling add\. Answer in plain sentences/);
    const finalTurn = rows.filter((r) => r.kind === 'assistant')[2];
    expect((await requestOf(rows, finalTurn!.idx)).tools).toBeUndefined();
    expect(asks[1]?.content).toMatch(/^Your last message was a call, not a description: it was not run\. No more calls will be run: stop calling add\./);
    const [ep] = await stack.db.select().from(episodes).where(eq(episodes.id, out.episodeId));
    expect(ep?.finalDescription).toContain(ADD.gold);
    await maybeRecordHistory(
      stack.client.workflow.getHandle(episodeWorkflowId(runId, ADD.id, 'mock-text-reask', 'interactive', 0)),
      'episode-with-final-reask.json',
    );
  });

  it('calls again on the re-ask: the episode ends with no description after exactly one re-ask', async () => {
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'mock-text-calls-only', 'interactive', { budgets: { maxCalls: 2, maxTurns: 10 } });
    expect(out).toMatchObject({ status: 'completed', endReason: 'no_description_after_reask_problems_only', callsMade: 2, turns: 4 });
    const rows = await stepsOf(stack.db, out.episodeId);
    expect(answers(rows)).toEqual(['tool_calls', 'tool_calls', 'problems_only', 'problems_only']);
    expect(problems(rows)).toEqual(['over_budget', 'over_budget']);
    expect(userPrompts(rows).filter((u) => u.content.includes(FINAL_ASK_MARK))).toHaveLength(2);
    const [ep] = await stack.db.select().from(episodes).where(eq(episodes.id, out.episodeId));
    expect(ep?.finalDescription).toBeNull();
  });

  it('a native model: the final ask offers the submit tool, the re-ask sends no tools', async () => {
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'mock-refuse', 'interactive', { budgets: { maxTurns: 1 } });
    expect(out).toMatchObject({ status: 'completed', endReason: 'no_description_after_reask_refusal', turns: 3 });
    const rows = await stepsOf(stack.db, out.episodeId);
    const [, finalTurn, reaskTurn] = rows.filter((s) => s.kind === 'assistant');
    expect(((await requestOf(rows, finalTurn!.idx)).tools ?? []).map((t) => (t as { function: { name: string } }).function.name)).toEqual([
      'submit_description',
    ]);
    const reask = await requestOf(rows, reaskTurn!.idx);
    expect(reask.tools).toBeUndefined();
    expect(reask.messages.at(-1)?.content).toMatch(/^This is a permitted, harmless task\. No more calls will be run: stop calling add\./);
  });
});
