// The anonymised name setting on the real stack: the agent reads `f` everywhere it could read the name (its
// prompts, the in-context examples, the errors its calls raise), the code writer writes from the same view,
// the judge and the sandbox keep the real code, the run's config records the setting, and its report says so.
import { and, eq, like } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { BenchmarkConfig } from '../../domain/bench/types';
import { llmCalls } from '../../db/schema/llm';
import { episodes, judgments, runs, steps } from '../../db/schema/runs';
import { NAMES_ANONYMISED_TEXT } from '../../domain/report/nameFloor';
import { startBenchmark } from '../../scripts/client/starters';
import { insertFixtureMethods, RAISES, REVERSE } from '../fixtures/episodeMethods';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';

const DATASET = 'fixture-names';
const METHODS = [RAISES, REVERSE];
const REAL = new RegExp(`\\b(${METHODS.map((m) => m.entryPoint).join('|')})\\b`);

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  timeoutMs: 180_000,
  setup: async ({ db }) => insertFixtureMethods(db, DATASET, METHODS),
});

describe('names anonymised', () => {
  const runId = `names-${Date.now().toString(36)}`;
  const config: BenchmarkConfig = {
    dataset: DATASET,
    split: 'test',
    models: ['mock-oracle', 'mock-wrong-arity', 'mock-null'],
    settings: ['interactive', 'in-context'],
    samples: 1,
    judgeModel: 'mock-oracle',
    names: 'anonymised',
  };

  it('the agent never reads the name; the code writer writes `f`; the sandbox and the judge keep the real code', async () => {
    const r = await (await startBenchmark(stack.client, runId, config)).result();
    expect(r.totals).toMatchObject({ done: 12, failed: 0 });
    const [run] = await stack.db.select({ config: runs.config }).from(runs).where(eq(runs.id, runId));
    expect(run?.config).toMatchObject({ names: 'anonymised' });

    const rows = await stack.db
      .select({ episodeId: steps.episodeId, idx: steps.idx, kind: steps.kind, agentMessage: steps.agentMessage, observation: steps.observation })
      .from(steps)
      .innerJoin(episodes, eq(episodes.id, steps.episodeId))
      .where(eq(episodes.runId, runId));
    // Everything the agent was sent: system and user messages, observations and examples (its own answers are
    // the oracle's gold, which may name the function in words).
    const sent = rows.flatMap((s) => [
      ...(s.kind === 'system' || s.kind === 'user' ? [String(s.agentMessage?.content ?? '')] : []),
      ...(s.observation ? [String((s.observation as { text?: string }).text)] : []),
    ]);
    expect(sent.length).toBeGreaterThan(20);
    expect(sent.filter((t) => REAL.test(t))).toEqual([]);
    const firsts = rows.filter((s) => s.kind === 'user' && s.idx === 1 && s.episodeId.includes('/interactive/'));
    expect(firsts.length).toBe(6);
    expect(firsts.every((s) => /def f\(/.test(String(s.agentMessage?.content)))).toBe(true);
    // In-context: the example lines call `f` too.
    const inContext = rows.filter((s) => s.kind === 'user' && s.episodeId.includes('/in-context/'));
    expect(inContext.every((s) => /^f\(/m.test(String(s.agentMessage?.content)))).toBe(true);

    // The wrong-arity agent's call raised a TypeError that names the function: the agent read `f()`, the stored
    // result keeps the sandbox's own words.
    const arity = rows.filter((s) => s.episodeId.includes('/mock-wrong-arity/interactive/') && s.kind === 'call');
    expect(arity.length).toBe(2);
    for (const s of arity) {
      const o = s.observation as { text: string; category: string; result: { error: { message: string } } };
      expect(o.category).toBe('wrong_arity');
      expect(o.text).toMatch(/^TypeError: f\(\) takes/);
      expect(o.result.error.message).toMatch(REAL);
    }

    // The code writer was asked for `f` from the signature the agent saw.
    const coder = await stack.db
      .select({ request: llmCalls.request })
      .from(llmCalls)
      .where(and(like(llmCalls.callKey, `judge/${runId}/%/mock-oracle/code`)));
    // One ledger row per distinct request: the agents that submit the gold ask the same thing.
    expect(coder.length).toBeGreaterThanOrEqual(2);
    for (const c of coder) {
      const text = JSON.stringify(c.request);
      expect(text).toContain('must be named `f`');
      expect(text).not.toMatch(REAL);
    }
    // The scripted oracle writes the original code from the gold: it runs under the real name beside the original.
    const judged = await stack.db
      .select({ episodeId: judgments.episodeId, codeMatch: judgments.codeMatch })
      .from(judgments)
      .innerJoin(episodes, eq(episodes.id, judgments.episodeId))
      .where(and(eq(episodes.runId, runId), eq(episodes.model, 'mock-oracle')));
    expect(judged.length).toBe(4);
    expect(judged.every((j) => j.codeMatch === 1)).toBe(true);
  }, 300_000);

  it('the report says the names were anonymised', async () => {
    const out = `${process.env.PAU_STATE_DIR}/reports`;
    const rep = await runCli(['report', runId, '--judge-model', 'mock-oracle', '--out', out]);
    expect(rep.code, rep.stderr).toBe(0);
    expect(rep.stdout).toContain(NAMES_ANONYMISED_TEXT);
    // The transcript is what the agent saw: `f` in the signature and in the calls.
    const episode = `${runId}/${RAISES.id}/mock-wrong-arity/interactive/0`;
    const show = await runCli(['runs', 'show', runId, '--episode', episode]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/signature shown to the agent:\s+def f\(a, b\):/);
    expect(show.stdout).toMatch(/call f\(7, 2, 0, 0, 0\) raises TypeError: f\(\) takes 2 positional arguments/);
    // The transcript itself (the header names the method id for the reader; the judgment below may quote the code
    // writer's program, which the scripted oracle writes as the original).
    const transcript = show.stdout.split('signature shown to the agent:')[1]?.split('final description:')[0];
    expect(transcript).toBeTruthy();
    expect(transcript).not.toMatch(REAL);
  }, 120_000);

  it('an unknown --names value exits 2 naming the choices, before any run starts', async () => {
    const r = await runCli(['bench', 'run', '--dataset', DATASET, '--models', 'mock-null', '--names', 'hidden']);
    expect(r.code).toBe(2);
    expect(r.stderr + r.stdout).toMatch(/--names.*original.*anonymised|original.*anonymised.*names/s);
  }, 60_000);
});
