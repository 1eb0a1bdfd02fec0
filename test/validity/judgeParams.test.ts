// Judge and coder request params come from the model registry (not a forced temperature 0): against a
// fake OpenAI-compatible provider that answers 400 to `temperature` as reasoning models do, a registry
// entry without temperature judges and writes code; an entry that lists `temperature` as unsupported
// never sends it, even when the run asks for it; what was sent is in `llm_calls.request` and in the
// judgment's diagnostics (`requestParams`).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSlotPool } from '../../activities/llm/concurrency';
import { llmCalls } from '../../db/schema/llm';
import { judgments } from '../../db/schema/runs';
import { requestParams } from '../../domain/llm/requestParams';
import { startJudgeRun } from '../../scripts/client/starters';
import { runEpisode } from '../episode/helpers';
import { ADD, insertFixtureMethods } from '../fixtures/episodeMethods';
import { useStack } from '../helpers/stack';

/** Answers like a reasoning model: 400 on sampling params; otherwise a verdict and a function. */
function reasoningProvider() {
  const bodies: Record<string, unknown>[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      bodies.push(body);
      res.setHeader('content-type', 'application/json');
      for (const p of ['temperature', 'top_p']) {
        if (p in body) {
          res.writeHead(400);
          return res.end(
            JSON.stringify({ error: { message: `Unsupported parameter: '${p}' is not supported with this model.`, param: p, code: 'unsupported_parameter' } }),
          );
        }
      }
      const content = 'The description matches the code.\nSCORE: 4\n```python\ndef add(a, b):\n    return a + b\n```';
      res.writeHead(200);
      res.end(
        JSON.stringify({
          id: 'chatcmpl-reasoner',
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
      );
    });
  });
  return { server, bodies };
}

let provider: ReturnType<typeof reasoningProvider>;
const REASONING = { max_completion_tokens: 256, reasoning_effort: 'low' };

beforeAll(async () => {
  provider = reasoningProvider();
  await new Promise<void>((resolve) => provider.server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(provider.server.address() as AddressInfo).port}/v1`;
  const modelsFile = path.join(process.env.PAU_STATE_DIR!, 'reasoning.models.json');
  fs.writeFileSync(
    modelsFile,
    JSON.stringify({
      models: {
        // Its params leave temperature out: nothing else should add it.
        reasoner: { baseUrl, model: 'o-fake', params: REASONING, timeoutMs: 10_000 },
        // Says the endpoint rejects temperature/top_p: dropped even when a run asks for them.
        'reasoner-strict': { baseUrl, model: 'o-fake-strict', params: REASONING, unsupportedParams: ['temperature', 'top_p'], timeoutMs: 10_000 },
      },
    }),
  );
  process.env.PAU_MODELS_FILE = modelsFile; // read once by this process's registry (and its workers)
});
const stack = useStack({ workers: ['pau', 'pau-sandbox'], setup: ({ db }) => insertFixtureMethods(db, 'fixture-judge-params', [ADD]) });
afterAll(async () => {
  await closeSlotPool();
  await new Promise((resolve) => provider?.server.close(resolve));
});

describe('requestParams', () => {
  it('registry defaults, then overrides, minus what the endpoint rejects', () => {
    expect(requestParams({ params: { temperature: 0 } })).toEqual({ temperature: 0 });
    expect(requestParams({ params: { temperature: 0, max_tokens: 9 } }, { temperature: 0.7 })).toEqual({ temperature: 0.7, max_tokens: 9 });
    expect(requestParams({ params: REASONING, unsupportedParams: ['temperature', 'top_p'] }, { temperature: 0, top_p: 0.9, seed: 3 })).toEqual({
      ...REASONING,
      seed: 3,
    });
    expect(requestParams({ params: {} }, { temperature: undefined })).toEqual({});
  });
});

describe('judge params from the registry, on the real stack', () => {
  it('a judge whose endpoint rejects temperature scores and writes code; the request and the judgment record what was sent', async () => {
    const outcome = await runEpisode(stack.client, stack.db, ADD.id, 'mock-oracle', 'interactive');
    expect(outcome.status).toBe('completed');
    const runId = outcome.episodeId.split('/')[0]!;

    // 1. Registry params without temperature (the project used to force temperature 0 here).
    // The provider answers in the rationale format (a reasoning model's text, `SCORE: 4`), so the run asks for it.
    const plain = await (await startJudgeRun(stack.client, { runId, judgeModel: 'reasoner', config: { format: 'rationale' } })).result();
    expect(plain).toMatchObject({ judged: 1, failed: 0 });
    // 2. The run asks for temperature 0 and top_p; the strict entry drops both.
    const strict = await (
      await startJudgeRun(stack.client, {
        runId,
        judgeModel: 'reasoner-strict',
        config: { format: 'rationale', judgeParams: { temperature: 0, top_p: 1 }, coderParams: { temperature: 0 } },
      })
    ).result();
    expect(strict).toMatchObject({ judged: 1, failed: 0 });

    for (const judgeModel of ['reasoner', 'reasoner-strict']) {
      const [j] = await stack.db
        .select()
        .from(judgments)
        .where(and(eq(judgments.episodeId, outcome.episodeId), eq(judgments.judgeModel, judgeModel)));
      expect(j?.score).toBe(4);
      expect(j?.codeMatch).toBe(1);
      expect((j?.diagnostics as { requestParams?: unknown } | undefined)?.requestParams).toEqual({ judge: REASONING, coder: REASONING });
      const calls = await stack.db.select().from(llmCalls).where(eq(llmCalls.model, judgeModel));
      // Three verdicts (no logprobs come back, so the score is the mean of 3 samples), the agent's code, the code
      // from the gold description (the control) and the contradiction classification.
      expect(calls).toHaveLength(6);
      for (const c of calls) {
        const req = c.request as Record<string, unknown>;
        expect(req).not.toHaveProperty('temperature');
        expect(req).not.toHaveProperty('top_p');
        expect(req).toMatchObject(REASONING);
      }
    }
    expect(provider.bodies.some((b) => 'temperature' in b)).toBe(false);
  });
});
