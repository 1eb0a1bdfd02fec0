// The `vllm` model kind without a GPU: the models file's vllm entries (validation, registry rules), the
// `vllm serve` command line, the one-line refusal on a host without CUDA, `ckpt:<id>` resolved to the vLLM
// entry that serves its base (the adapter fetched from the store into this host's cache), and the adapter
// hand-off through chat(): against a small HTTP stand-in of vLLM's OpenAI server that records every
// request, a checkpoint is loaded with POST /v1/load_lora_adapter before its first request, once, and a
// second epoch's checkpoint is loaded beside it on the same server (no restart).
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat } from '../../activities/llm/chat';
import { resolveModel } from '../../activities/llm/checkpointModels';
import { cudaMissing, ensureVllmServer, vllmPlan } from '../../platform/models/vllm/server';
import { BlobStore } from '../../platform/storage/blobStore';
import { registerCheckpointRow } from '../../activities/training/checkpoints';
import { storeCheckpointFiles } from '../../activities/training/checkpointFiles';
import { reloadEnv } from '../../config/env';
import { buildRegistry, ModelConfigError, modelsFileSchema, reloadModels } from '../../config/models';
import { LLM_ERROR_TYPES } from '../../domain/llm/errorTypes';
import { insertTestRun } from '../fixtures/runs';
import { useStack } from '../helpers/stack';
import { hostEndpoints } from '../../activities/llm/hostEndpoints';
import { createGrpoActivities } from '../../activities/training/grpo';

const stack = useStack();
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-vllm-'));
const saved = { models: process.env.PAU_MODELS_FILE, cache: process.env.PAU_CHECKPOINT_CACHE_DIR, key: process.env.PAU_TEST_VLLM_KEY };
const tag = Date.now().toString(36);

function setEnv(k: string, v: string | undefined) {
  if (v === undefined) delete process.env[k];
  else process.env[k] = v;
  reloadEnv();
  reloadModels();
}

describe('vllm entries in the models file', () => {
  const parse = (models: unknown) => modelsFileSchema.safeParse({ models });
  const problems = (r: ReturnType<typeof parse>) => (r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));

  it('parses with defaults, and rejects what does not belong to a vllm entry', () => {
    const ok = parse({
      'vllm/qwen': { provider: 'vllm', model: 'Qwen/Qwen2.5-Coder-0.5B-Instruct', port: 8600, vllm: { loraBases: ['local/qwen2.5-coder-0.5b'] } },
    });
    expect(ok.success).toBe(true);
    expect(ok.data?.models['vllm/qwen']?.vllm).toEqual({
      loraBases: ['local/qwen2.5-coder-0.5b'],
      maxLoraRank: 16,
      maxLoras: 4,
      maxNumSeqs: 64,
      args: [],
      executable: 'vllm',
      loadTimeoutS: 900,
    });
    expect(problems(parse({ v: { provider: 'vllm', model: 'm', vllm: { maxLoraRank: 12 } } }))).toEqual([
      expect.stringMatching(/^models\.v\.vllm\.maxLoraRank: one of 1, 8, 16, 32/),
    ]);
    expect(problems(parse({ v: { provider: 'local', model: 'smollm2-135m', port: 8600, vllm: {} } }))).toEqual(['models.v.vllm: only for provider "vllm"']);
    expect(problems(parse({ v: { provider: 'vllm', model: 'm', loraAdapters: ['/x.gguf'] } }))).toEqual([
      expect.stringMatching(/^models\.v\.loraAdapters: provider "local" only/),
    ]);
    expect(problems(parse({ v: { provider: 'vllm', model: 'm', vllm: { tensorParalelSize: 2 } } }))[0]).toMatch(/tensorParalelSize/);
  });

  it('the registry: a base served by one vllm entry at most, and only a base it knows', () => {
    const file = (models: unknown) => modelsFileSchema.parse({ models });
    const r = buildRegistry(
      file({ 'vllm/smol': { provider: 'vllm', model: 'HuggingFaceTB/SmolLM2-135M-Instruct', vllm: { loraBases: ['local/smollm2-135m'] } } }),
    );
    expect(r.vllmServerFor('local/smollm2-135m')?.name).toBe('vllm/smol');
    expect(r.vllmServerFor('local/qwen2.5-coder-0.5b')).toBeUndefined();
    expect(() => buildRegistry(file({ v: { provider: 'vllm', model: 'm', vllm: { loraBases: ['local/nope'] } } }))).toThrow(
      /vllm.loraBases names "local\/nope", which is not in the registry/,
    );
    expect(() =>
      buildRegistry(
        file({
          a: { provider: 'vllm', model: 'm', vllm: { loraBases: ['local/smollm2-135m'] } },
          b: { provider: 'vllm', model: 'm', vllm: { loraBases: ['local/smollm2-135m'] } },
        }),
      ),
    ).toThrow(/models a and b both serve the checkpoints of local\/smollm2-135m/);
  });

  it('the command line: vllm serve on loopback, LoRA enabled, runtime adapter loading allowed', () => {
    const r = buildRegistry(
      modelsFileSchema.parse({
        models: {
          'vllm/qwen3-8b': {
            provider: 'vllm',
            model: 'Qwen/Qwen3-8B',
            port: 8600,
            vllm: {
              maxLoraRank: 64,
              maxLoras: 2,
              gpuMemoryUtilization: 0.85,
              tensorParallelSize: 8,
              maxModelLen: 16384,
              dtype: 'bfloat16',
              args: ['--enforce-eager'],
              executable: '/opt/vllm/bin/vllm',
            },
          },
        },
      }),
    );
    expect(vllmPlan(r.get('vllm/qwen3-8b')).launch).toEqual({
      command: '/opt/vllm/bin/vllm',
      args: [
        'serve',
        'Qwen/Qwen3-8B',
        '--host',
        '127.0.0.1',
        '--port',
        '8600',
        '--enable-lora',
        '--max-lora-rank',
        '64',
        '--max-loras',
        '2',
        '--enable-auto-tool-choice',
        '--tool-call-parser',
        'hermes',
        '--generation-config',
        'vllm',
        '--max-model-len',
        '16384',
        '--reasoning-parser',
        'qwen3',
        '--gpu-memory-utilization',
        '0.85',
        '--tensor-parallel-size',
        '8',
        '--max-num-seqs',
        '64',
        '--dtype',
        'bfloat16',
        '--enforce-eager',
      ],
      env: { VLLM_ALLOW_RUNTIME_LORA_UPDATING: 'True' },
    });
    // Defaults: vLLM's port, rank 16, 4 adapters per batch, the trainer's max length, 64 sequences at once.
    const d = vllmPlan(buildRegistry(modelsFileSchema.parse({ models: { v: { provider: 'vllm', model: 'm' } } })).get('v'));
    expect(d.launch.args).toEqual([
      'serve',
      'm',
      '--host',
      '127.0.0.1',
      '--port',
      '8000',
      '--enable-lora',
      '--max-lora-rank',
      '16',
      '--max-loras',
      '4',
      '--enable-auto-tool-choice',
      '--tool-call-parser',
      'hermes',
      '--generation-config',
      'vllm',
      '--max-model-len',
      '8192',
      '--max-num-seqs',
      '64',
    ]);
  });

  it('on a host without CUDA (this one): one clear line, no process started', async () => {
    const spec = buildRegistry(modelsFileSchema.parse({ models: { 'vllm/x': { provider: 'vllm', model: 'Qwen/Qwen3-8B', port: 8601 } } })).get('vllm/x');
    const line = await cudaMissing(spec, async () => ({ kind: 'cpu', description: 'cpu only (2 cores, 8 GiB)', gpus: 0 }));
    expect(line).toBe(
      'model vllm/x (provider "vllm") needs a CUDA GPU and this host has none (cpu only (2 cores, 8 GiB)): run it on a GPU host, or use a provider "local" (llama.cpp) model here',
    );
    expect(await cudaMissing(spec, async () => ({ kind: 'cuda', description: 'GPU0: H200', gpus: 1 }))).toBeUndefined();
    // The real check of this host (nvidia-smi): no GPU here.
    const err = await ensureVllmServer(spec).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ModelConfigError);
    expect((err as Error).message).toMatch(/^model vllm\/x \(provider "vllm"\) needs a CUDA GPU and this host has none \(cpu only/);
    expect((err as Error).message).not.toContain('\n');
  });
});

interface Recorded {
  method: string;
  url: string;
  auth: string | undefined;
  body: unknown;
}

/** A stand-in of vLLM's OpenAI server: /health, /v1/models (base + loaded adapters), LoRA loading, chat. */
function vllmStandIn(base: string) {
  const requests: Recorded[] = [];
  const loaded = new Map<string, string>();
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => {
      data += c.toString();
    });
    req.on('end', () => {
      const body = data ? (JSON.parse(data) as Record<string, unknown>) : undefined;
      requests.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (req.url === '/health') return json(200, {});
      if (req.url === '/v1/models') {
        return json(200, { object: 'list', data: [{ id: base, parent: null }, ...[...loaded].map(([id, root]) => ({ id, root, parent: base }))] });
      }
      if (req.url === '/v1/load_lora_adapter' && body) {
        const name = String(body.lora_name);
        if (loaded.has(name)) return json(400, { message: `The lora adapter '${name}' has already been loaded.` });
        if (!fs.existsSync(path.join(String(body.lora_path), 'adapter_config.json'))) return json(404, { message: 'no adapter_config.json' });
        loaded.set(name, String(body.lora_path));
        res.writeHead(200);
        return res.end(`Success: LoRA adapter '${name}' added successfully.`);
      }
      if (req.url === '/v1/chat/completions' && body) {
        const model = String(body.model);
        if (model !== base && !loaded.has(model)) return json(404, { message: `The model \`${model}\` does not exist.` });
        return json(200, {
          id: 'cmpl-standin',
          object: 'chat.completion',
          created: 0,
          model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: `stand-in answer from ${model}` } }],
          usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
        });
      }
      json(404, { message: 'not found' });
    });
  });
  return { server, requests, loaded };
}

describe('checkpoints served by vLLM (a stand-in server)', () => {
  const BASE_HF = 'HuggingFaceTB/SmolLM2-135M-Instruct';
  const standIn = vllmStandIn(BASE_HF);
  let url = '';
  const runId = `vllm-${tag}`;
  const ids = [`${runId}-e1`, `${runId}-e2`];

  beforeAll(async () => {
    await new Promise<void>((resolve) => standIn.server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(standIn.server.address() as AddressInfo).port}/v1`;
    const modelsFile = path.join(root, 'pau.models.json');
    fs.writeFileSync(
      modelsFile,
      JSON.stringify({
        models: {
          'vllm/smol': { provider: 'vllm', model: BASE_HF, baseUrl: url, apiKeyEnv: 'PAU_TEST_VLLM_KEY', vllm: { loraBases: ['local/smollm2-135m'] } },
        },
      }),
    );
    setEnv('PAU_MODELS_FILE', modelsFile);
    setEnv('PAU_CHECKPOINT_CACHE_DIR', path.join(root, 'cache'));
    setEnv('PAU_TEST_VLLM_KEY', 'test-key-1');
    // Two epochs' checkpoints of local/smollm2-135m, their files stored (small stand-in adapter files: the
    // stand-in reads only adapter_config.json; real vLLM loads the peft directory, see docs/models.md).
    await insertTestRun(stack.db, runId);
    for (const [i, id] of ids.entries()) {
      const dir = path.join(root, 'trainer-host', id);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'adapter_model.safetensors'), `adapter bytes of epoch ${i + 1} ${tag}`);
      fs.writeFileSync(path.join(dir, 'adapter_config.json'), JSON.stringify({ r: 8, lora_alpha: 16, peft_type: 'LORA' }));
      const stored = await storeCheckpointFiles(new BlobStore(stack.db), {
        checkpointDir: dir,
        adapterSha256: crypto
          .createHash('sha256')
          .update(fs.readFileSync(path.join(dir, 'adapter_model.safetensors')))
          .digest('hex'),
        ggufPath: null,
        ggufSha256: null,
      });
      await registerCheckpointRow(stack.db, {
        id,
        runId,
        epoch: i + 1,
        jobId: id,
        baseModel: 'local/smollm2-135m',
        parentId: i === 0 ? null : ids[0]!,
        path: dir,
        adapterPath: path.join(dir, 'adapter_model.safetensors'),
        adapterSha256: stored.files.find((f) => f.name === 'adapter_model.safetensors')!.sha256,
        ggufPath: null,
        ggufSha256: null,
        config: {},
        metrics: {},
        files: stored.files,
      });
      fs.rmSync(dir, { recursive: true });
    }
  });

  afterAll(async () => {
    await new Promise((resolve) => standIn.server.close(resolve));
    setEnv('PAU_MODELS_FILE', saved.models);
    setEnv('PAU_CHECKPOINT_CACHE_DIR', saved.cache);
    setEnv('PAU_TEST_VLLM_KEY', saved.key);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('ckpt:<id> of a base listed in vllm.loraBases resolves to that server, the adapter fetched into this host’s cache', async () => {
    const spec = await resolveModel(`ckpt:${ids[0]}`, stack.db);
    const dir = path.join(root, 'cache', ids[0]!);
    expect(spec).toMatchObject({
      name: `ckpt:${ids[0]}`,
      provider: 'vllm',
      model: `ckpt:${ids[0]}`,
      baseUrl: url,
      loraModule: { name: `ckpt:${ids[0]}`, path: dir, base: BASE_HF },
    });
    expect(fs.readdirSync(dir).sort()).toEqual(['DONE', 'adapter_config.json', 'adapter_model.safetensors']);
    expect(standIn.requests).toEqual([]); // resolving talks to no server
  });

  it('the base it serves resolves to the same server, no adapter: both arms of an evaluation on one stack', async () => {
    const base = await resolveModel('local/smollm2-135m', stack.db);
    expect(base).toMatchObject({ name: 'local/smollm2-135m', provider: 'vllm', model: BASE_HF, baseUrl: url });
    expect(base.loraModule).toBeUndefined();
    expect(hostEndpoints.identity(base)).toBe(`vllm:${BASE_HF}`);
    // A base no vllm entry lists stays on llama.cpp.
    expect((await resolveModel('local/qwen2.5-coder-0.5b', stack.db)).provider).toBe('local');

    const grpo = createGrpoActivities(() => stack.db, hostEndpoints);
    expect(await grpo.servingStacks({ checkpointModel: `ckpt:${ids[0]}`, base: 'local/smollm2-135m', allowMixed: false })).toEqual({
      checkpoint: `vLLM ${BASE_HF} at ${url}`,
      base: `vLLM ${BASE_HF} at ${url}`,
    });
    // Arms on two stacks: refused, non-retryable, naming both; allowed by the run's flag and marked.
    const err = await grpo.servingStacks({ checkpointModel: `ckpt:${ids[0]}`, base: 'local/qwen2.5-coder-0.5b', allowMixed: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).type).toBe('MixedServingStacks');
    expect((err as ApplicationFailure).nonRetryable).toBe(true);
    expect((err as ApplicationFailure).message).toContain(
      `checkpoint ckpt:${ids[0]}: vLLM ${BASE_HF} at ${url}; base local/qwen2.5-coder-0.5b: llama.cpp qwen2.5-coder-0.5b (GGUF)`,
    );
    expect(await grpo.servingStacks({ checkpointModel: `ckpt:${ids[0]}`, base: 'local/qwen2.5-coder-0.5b', allowMixed: true })).toEqual({
      checkpoint: `vLLM ${BASE_HF} at ${url}`,
      base: 'llama.cpp qwen2.5-coder-0.5b (GGUF)',
      mixedAllowed: true,
    });
    expect(standIn.requests).toEqual([]); // resolving talks to no server
  });

  it('chat(): the adapter is loaded once before its first request; the next epoch is loaded beside it, no restart', async () => {
    const ask = (id: string, content: string) =>
      chat({ model: `ckpt:${id}`, messages: [{ role: 'user', content }], callKey: `${runId}#${content}` }, { db: () => stack.db, endpoints: hostEndpoints });
    const r1 = await ask(ids[0]!, 'first');
    expect(r1.message.content).toBe(`stand-in answer from ckpt:${ids[0]}`);
    await ask(ids[0]!, 'second');
    const r3 = await ask(ids[1]!, 'third');
    expect(r3.message.content).toBe(`stand-in answer from ckpt:${ids[1]}`);

    const seen = standIn.requests.map((r) => `${r.method} ${r.url}`);
    // A server someone else runs (baseUrl): no health probe or start, only the adapter check before each request.
    expect(seen).toEqual([
      'GET /v1/models',
      'POST /v1/load_lora_adapter',
      'POST /v1/chat/completions',
      'GET /v1/models',
      'POST /v1/chat/completions',
      'GET /v1/models',
      'POST /v1/load_lora_adapter',
      'POST /v1/chat/completions',
    ]);
    const loads = standIn.requests.filter((r) => r.url === '/v1/load_lora_adapter').map((r) => r.body);
    expect(loads).toEqual([
      { lora_name: `ckpt:${ids[0]}`, lora_path: path.join(root, 'cache', ids[0]!) },
      { lora_name: `ckpt:${ids[1]}`, lora_path: path.join(root, 'cache', ids[1]!) },
    ]);
    const chats = standIn.requests.filter((r) => r.url === '/v1/chat/completions');
    expect(chats.map((r) => (r.body as { model: string }).model)).toEqual([`ckpt:${ids[0]}`, `ckpt:${ids[0]}`, `ckpt:${ids[1]}`]);
    // The key from the entry's apiKeyEnv on every request to the server.
    expect(new Set(standIn.requests.map((r) => r.auth))).toEqual(new Set(['Bearer test-key-1']));
  });

  it('a vllm entry the stack starts, asked for on this CPU host: a non-retryable one-line error from chat()', async () => {
    const modelsFile = path.join(root, 'pau.models.cpu.json');
    fs.writeFileSync(modelsFile, JSON.stringify({ models: { 'vllm/local-gpu': { provider: 'vllm', model: BASE_HF, port: 8602 } } }));
    setEnv('PAU_MODELS_FILE', modelsFile);
    const err = await chat(
      { model: 'vllm/local-gpu', messages: [{ role: 'user', content: 'hi' }], callKey: `${runId}#cpu` },
      { db: () => stack.db, endpoints: hostEndpoints },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: LLM_ERROR_TYPES.config, nonRetryable: true });
    expect((err as Error).message).toMatch(/^model vllm\/local-gpu \(provider "vllm"\) needs a CUDA GPU and this host has none/);
    expect((err as Error).message).not.toContain('\n');
  });
});
