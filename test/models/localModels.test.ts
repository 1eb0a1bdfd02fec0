// Real local models on the real stack (issue 11): the installer (shared models directory, a second
// install is a no-op), a corrupt or truncated model file is a clear error, the server refuses requests
// without its API key, a real interactive episode of the 0.5B executes a call read from whatever it
// emitted, the judge parses a real model's answer, and a model server SIGKILLed mid-run is restarted and
// the episode finishes. SmolLM2 where only speed matters, the 0.5B where behaviour matters; one busy
// server at a time (the machine has 2 cores). Models are installed through the project's installer into
// the shared cache, so a machine pays the download once.
import { and, eq } from 'drizzle-orm';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EpisodeInput, EpisodeOutcome } from '../../domain/episode/types';
import { checkModelFile, installModel, modelFile } from '../../platform/models/local/install';
import { LocalServerError, planFor, serverFiles, startLocalServer, stopAllLocalServers } from '../../platform/models/local/server';
import { catalogueEntry } from '../../domain/llm/localModels';
import { judgeEpisodeWorkflowId } from '../../domain/judge/workflowIds';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { models, type ModelSpec } from '../../config/models';
import { readOrCreateSecret, secretPath } from '../../config/secrets';
import { episodes, judgments } from '../../db/schema/runs';
import { runningPid } from '../../platform/process/processes';
import { judgeEpisodeWorkflow } from '../../workflows/judge/judgeEpisodeWorkflow';
import { runEpisode, stepsOf } from '../episode/helpers';
import { ADD, insertFixtureMethods, REVERSE } from '../fixtures/episodeMethods';
import { useStack } from '../helpers/stack';

const SMOL = 'local/smollm2-135m';
const QWEN = 'local/qwen2.5-coder-0.5b';

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  timeoutMs: 600_000,
  setup: async ({ db }) => {
    // Through the project's installer, into the shared models directory (a no-op once installed).
    await installModel('smollm2-135m');
    await installModel('qwen2.5-coder-0.5b');
    await insertFixtureMethods(db, 'fixture-local-models', [ADD, REVERSE]);
  },
});
afterAll(async () => {
  await stopAllLocalServers();
});

const episode = (model: string, methodId: string, extra: Partial<EpisodeInput> = {}): Promise<EpisodeOutcome> =>
  runEpisode(stack.client, stack.db, methodId, model, 'interactive', extra, '20 minutes');

describe('install', () => {
  it('a second install is a no-op that checks the file cheaply (size, mtime and hash in a sidecar)', async () => {
    const again = await installModel('smollm2-135m');
    expect(again.outcome).toBe('already installed');
    expect(again.seconds).toBeLessThan(1);
    expect(again.file).toBe(modelFile('smollm2-135m'));
    expect(fs.statSync(again.file).size).toBe(catalogueEntry('smollm2-135m')!.bytes);
  });

  it('a truncated or altered model file is reported as corrupt, and serving it is a clear error', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-corrupt-'));
    const entry = catalogueEntry('smollm2-135m')!;
    const truncated = path.join(dir, 'smol.gguf');
    const fd = fs.openSync(modelFile('smollm2-135m'), 'r');
    const buf = Buffer.alloc(8 << 20);
    fs.readSync(fd, buf, 0, buf.length, 0);
    fs.closeSync(fd);
    fs.writeFileSync(truncated, buf);
    expect(await checkModelFile(truncated, entry.sha256, entry.bytes)).toMatchObject({
      state: 'corrupt',
      reason: expect.stringMatching(/expected 98362432 bytes: truncated/),
    });
    expect(await checkModelFile(truncated, entry.sha256)).toMatchObject({
      state: 'corrupt',
      reason: expect.stringMatching(new RegExp(`expected ${entry.sha256}`)),
    });

    const base = models().get(SMOL);
    // With its expected hash: refused before any server starts.
    const withHash: ModelSpec = { ...base, name: 'local/corrupt-a', modelPath: truncated, sha256: entry.sha256, port: base.port! + 100 };
    await expect(startLocalServer(withHash)).rejects.toThrow(/local\/corrupt-a: the model file .*smol\.gguf is corrupt \(sha256 /);
    // Without one: llama.cpp refuses to load it, and the error carries the server log's last lines.
    const noHash: ModelSpec = { ...base, name: 'local/corrupt-b', modelPath: truncated, port: base.port! + 101 };
    const err = await startLocalServer(noHash).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(LocalServerError);
    expect(err?.message).toMatch(/exited while loading/);
    expect(err?.message).toMatch(/failed to load model/);
    expect(runningPid(serverFiles(planFor(noHash).slug).pidFile)).toBeUndefined();
    // A Hugging Face directory (what the trainer takes as a base): llama.cpp cannot read it; said before any start.
    const hfDir = fs.mkdtempSync(path.join(dir, 'hf-'));
    fs.writeFileSync(path.join(hfDir, 'config.json'), '{"model_type": "qwen2"}');
    const directory: ModelSpec = { ...base, name: 'local/hf-dir', modelPath: hfDir, port: base.port! + 102 };
    await expect(startLocalServer(directory)).rejects.toThrow(
      /local\/hf-dir: .*hf-.* is a directory .*llama\.cpp serves GGUF files.*vllm\.loraBases lists local\/hf-dir/,
    );
    expect(runningPid(serverFiles(planFor(directory).slug).pidFile)).toBeUndefined();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});

describe('serve', () => {
  it('listens on 127.0.0.1 and refuses a request without the API key (401)', async () => {
    const spec = models().get(SMOL);
    expect(await startLocalServer(spec)).toMatch(/started|already running/);
    const key = readOrCreateSecret('model-server-key');
    expect(fs.statSync(secretPath('model-server-key')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(secretPath('model-server-key'))).mode & 0o777).toBe(0o700);
    const url = `http://127.0.0.1:${spec.port}/v1/chat/completions`;
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'Say hi.' }], max_tokens: 4 });
    const post = (headers: Record<string, string>) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: 'Bearer not-the-key' })).status).toBe(401);
    const ok = await post({ authorization: `Bearer ${key}` });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { choices: unknown[] }).choices).toHaveLength(1);
  }, 300_000);
});

describe('episodes with real models', () => {
  it('the 0.5B model: an interactive episode runs at least one call read from what the model emitted', async () => {
    await stopAllLocalServers(); // one busy server at a time
    // One call is what is asserted: a budget of one ends the exploration after it (the final ask then sees its
    // result), where three let the model spend two more turns on calls that assert nothing new.
    const out = await episode(QWEN, ADD.id, { budgets: { maxCalls: 1, maxTurns: 3 }, params: { temperature: 0, max_tokens: 200 } });
    expect(out.status).toBe('completed');
    expect(out.callsMade).toBeGreaterThanOrEqual(1);
    const rows = await stepsOf(stack.db, out.episodeId);
    const executed = rows.filter((s) => s.kind === 'call' && (s.observation as { executed?: boolean } | null)?.executed);
    expect(executed.length).toBeGreaterThanOrEqual(1);
    const sources = rows.filter((s) => s.kind === 'assistant').map((s) => (s.agentMessage as { toolCallSource: string }).toolCallSource);
    expect(sources.some((x) => x === 'native' || x === 'text')).toBe(true);
    // a call parsed from text carries its source, and its result went back to the model
    for (const s of executed) expect(['native', 'text']).toContain((s.call as { source: string }).source);
    // a JSON tool call is never the description
    const [ep] = await stack.db.select({ d: episodes.finalDescription }).from(episodes).where(eq(episodes.id, out.episodeId));
    expect((ep?.d ?? '').trim().startsWith('{')).toBe(false);
  }, 900_000);

  it("the judge parses a real model's answer into a score (the 0.5B as judge and code writer)", async () => {
    const out = await episode('mock-oracle', REVERSE.id);
    expect(out.status).toBe('completed');
    const r = await stack.client.workflow.execute(judgeEpisodeWorkflow, {
      taskQueue: TASK_QUEUES.main,
      workflowId: judgeEpisodeWorkflowId(QWEN, out.episodeId),
      args: [{ episodeId: out.episodeId, judgeModel: QWEN }],
      workflowExecutionTimeout: '20 minutes',
    });
    expect(r.judgeModel).toBe(QWEN);
    const [row] = await stack.db
      .select()
      .from(judgments)
      .where(and(eq(judgments.episodeId, out.episodeId), eq(judgments.judgeModel, QWEN)));
    expect(row?.rationale).toBeTruthy();
    expect(row?.rationale).not.toMatch(/scripted mock/);
    // Parsed from the model's own words (possibly after the one retry the judge asks for).
    expect(r.unparsable).toBe(false);
    expect(r.score).toBeGreaterThanOrEqual(1);
    expect(r.score).toBeLessThanOrEqual(5);
  }, 900_000);

  it('a model server SIGKILLed mid-run is restarted and the episode finishes', async () => {
    await stopAllLocalServers();
    const spec = models().get(SMOL);
    await startLocalServer(spec);
    const pidFile = serverFiles(planFor(spec).slug).pidFile;
    const firstPid = runningPid(pidFile)!;
    const key = readOrCreateSecret('model-server-key');
    const run = episode(SMOL, REVERSE.id, { budgets: { maxCalls: 4, maxTurns: 4 }, params: { temperature: 0, max_tokens: 96 } });
    // Kill it while it is generating (its /slots endpoint says a slot is processing).
    const deadline = Date.now() + 300_000;
    let killedBusy = false;
    while (Date.now() < deadline) {
      const r = await fetch(`http://127.0.0.1:${spec.port}/slots`, { headers: { authorization: `Bearer ${key}` } }).catch(() => null);
      const slots = r && r.ok ? ((await r.json()) as { is_processing: boolean }[]) : [];
      if (slots.some((s) => s.is_processing)) {
        process.kill(-firstPid, 'SIGKILL');
        killedBusy = true;
        break;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(killedBusy).toBe(true);
    const out = await run;
    expect(out.status).toBe('completed');
    expect(out.turns).toBeGreaterThanOrEqual(1);
    const secondPid = runningPid(pidFile);
    expect(secondPid).toBeDefined();
    expect(secondPid).not.toBe(firstPid);
    const log = fs.readFileSync(serverFiles(planFor(spec).slug).logFile, 'utf8');
    expect(log.match(/=== .* starting local\/smollm2-135m/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
  }, 900_000);
});
