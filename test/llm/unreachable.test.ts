// A model entry whose endpoint can never be reached, as a user meets it: `bench run` with an API model at a
// loopback port nothing listens on and one at a port the HTTP client refuses. Each episode fails within
// seconds, non-retryably, saying why (not an outage waited out for the default 6 hours), and the ledger counts
// no send: `runs show` reports nothing paid twice and nothing sent unanswered.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, like } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { llmCalls } from '../../db/schema/llm';
import { episodes } from '../../db/schema/runs';
import { freePort } from '../../platform/process/processes';
import { ADD, insertFixtureMethods } from '../fixtures/episodeMethods';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';

// Nothing listens on `port` (a free one); 6000 is one of the ports fetch will not connect to.
const port = await freePort();
const refusedUrl = `http://127.0.0.1:${port}/v1`;
const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pau-models-')), 'pau.models.json');
fs.writeFileSync(
  file,
  JSON.stringify({
    models: {
      'api-refused': { provider: 'openai', model: 'some-model', baseUrl: refusedUrl },
      'api-bad-port': { provider: 'openai', model: 'some-model', baseUrl: 'http://127.0.0.1:6000/v1' },
    },
  }),
);
// Before anything reads the registry: the in-process workers and the CLI read the same file.
process.env.PAU_MODELS_FILE = file;

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  setup: async ({ db }) => insertFixtureMethods(db, 'fixture-unreachable', [ADD]),
});

describe('an endpoint that can never be reached', () => {
  it('fails its episodes within seconds with the reason, and no send is counted', async () => {
    const runId = `unreachable-${Date.now().toString(36)}`;
    const bench = await runCli(
      [
        'bench',
        'run',
        '--dataset',
        'fixture-unreachable',
        '--models',
        'api-refused,api-bad-port',
        '--settings',
        'interactive',
        '--judge',
        'off',
        '--run-id',
        runId,
      ],
      {},
      150_000,
    );
    expect(bench.stdout + bench.stderr).toMatch(/2\/2 episodes\s+failed 2/);
    expect(bench.code).toBe(1); // every episode failed

    const eps = await stack.db.select().from(episodes).where(eq(episodes.runId, runId));
    const of = (model: string) => eps.find((e) => e.model === model)!;
    expect(of('api-refused').status).toBe('failed');
    expect(of('api-refused').error).toContain(
      `model api-refused: nothing listens at ${refusedUrl} (connection refused 4 times over 3.5 s); start its server, or fix the baseUrl of model api-refused`,
    );
    expect(of('api-bad-port').error).toContain(
      'model api-bad-port: its endpoint http://127.0.0.1:6000/v1 can never be reached: the HTTP client refuses this port',
    );
    // Seconds, not the outage wait: the first turn fails non-retryably (a generous bound for a loaded machine).
    for (const e of eps) expect(e.finishedAt!.getTime() - e.startedAt!.getTime(), e.model).toBeLessThan(45_000);
    expect(of('api-refused').waitingFor).toBeNull();

    // Nothing left for the endpoints: each call's row counts no send and is not left `sent`.
    const calls = await stack.db
      .select()
      .from(llmCalls)
      .where(like(llmCalls.callKey, `${runId}/%`));
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const c of calls) expect(c).toMatchObject({ sends: 0, resent: 0, state: 'failed' });

    const show = await runCli(['runs', 'show', runId]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('model calls paid twice: 0 call(s), 0 extra send(s), ~$0.0000; sent and unanswered: 0');
    expect(show.stdout).toContain('nothing listens at');
  }, 200_000);
});
