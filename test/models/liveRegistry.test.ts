// A model added to the models file while the workers run, as a user meets it: `bench run` refuses the name
// before the entry exists; once it is added (a second alias of the scripted mock server) the same workers,
// never restarted, run an episode with it; an edit of the entry (another policy) is served by the next run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, like } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { llmCalls } from '../../db/schema/llm';
import { episodes } from '../../db/schema/runs';
import { ADD, insertFixtureMethods } from '../fixtures/episodeMethods';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';

const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pau-models-')), 'pau.models.json');
const write = (models: Record<string, unknown>) => fs.writeFileSync(file, JSON.stringify({ models }));
write({});
// Before anything reads the registry: the in-process workers and the CLI read the same file.
process.env.PAU_MODELS_FILE = file;

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  setup: async ({ db }) => insertFixtureMethods(db, 'fixture-live-models', [{ ...ADD, id: 'fixture/add_live' }]),
});

const bench = (runId: string, model = 'my-alias') =>
  runCli(
    ['bench', 'run', '--dataset', 'fixture-live-models', '--models', model, '--settings', 'interactive', '--judge', 'off', '--run-id', runId],
    {},
    150_000,
  );

async function episodeOf(runId: string) {
  const [e] = await stack.db.select().from(episodes).where(eq(episodes.runId, runId));
  const calls = await stack.db
    .select()
    .from(llmCalls)
    .where(like(llmCalls.callKey, `${runId}/%`));
  return { e: e!, calls };
}

describe('the models file, edited while the workers run', () => {
  it('serves an added entry and then its edit without a worker restart', async () => {
    const stamp = Date.now().toString(36);
    // The workers have served a run (and read the registry) before the file changes.
    const first = await bench(`live-0-${stamp}`, 'mock-oracle');
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const before = await bench(`live-a-${stamp}`);
    expect(before.code).toBe(2);
    expect(before.stderr).toContain('unknown model "my-alias"');

    // Added while the workers run: the scripted mock server under a name of its own.
    write({ 'my-alias': { provider: 'mock', model: 'oracle', params: { temperature: 0 } } });
    const added = await bench(`live-b-${stamp}`);
    expect(added.code, added.stdout + added.stderr).toBe(0);
    const b = await episodeOf(`live-b-${stamp}`);
    expect(b.e).toMatchObject({ model: 'my-alias', status: 'completed' });
    // The oracle policy (its answers to the same requests come from the cache the first run filled).
    const oracle = await episodeOf(`live-0-${stamp}`);
    expect(b.e.finalDescription).toBe(oracle.e.finalDescription);

    // Edited: the next run's calls go out as the new policy, by the same workers.
    write({ 'my-alias': { provider: 'mock', model: 'null', params: { temperature: 0 } } });
    const edited = await bench(`live-c-${stamp}`);
    expect(edited.code, edited.stdout + edited.stderr).toBe(0);
    const c = await episodeOf(`live-c-${stamp}`);
    expect(c.e).toMatchObject({ model: 'my-alias', status: 'completed' });
    expect(c.calls.length).toBeGreaterThan(0);
    expect(c.calls.every((x) => x.model === 'my-alias' && (x.request as { model?: string }).model === 'null')).toBe(true);
    expect(c.e.finalDescription).not.toBe(b.e.finalDescription);
  }, 400_000);
});
