// A model turn never provisions a local model (issue 28): `chat()` connects to a server, or starts one from a
// ready install, and a model file or llama.cpp runtime that is not installed fails the call at once,
// non-retryably, with the command that installs it; nothing is downloaded or created on the way. The
// registry entries get names of their own, so no server another test file started is touched.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import { chat } from '../../activities/llm/chat';
import { modelsDir, reloadEnv } from '../../config/env';
import { reloadModels } from '../../config/models';
import { LLM_ERROR_TYPES } from '../../domain/llm/errorTypes';
import { serverFiles } from '../../platform/models/local/server';
import { useStack } from '../helpers/stack';
import { hostEndpoints } from '../../activities/llm/hostEndpoints';

const stack = useStack();
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-not-installed-'));
const saved = { models: process.env.PAU_MODELS_FILE, modelsDir: process.env.PAU_MODELS_DIR, cache: process.env.PAU_CACHE_DIR };
const tag = Date.now().toString(36);
// Where the global setup installed the models (the shared cache), read before any test changes the environment.
const installedDir = modelsDir();

function setEnv(vars: Record<string, string | undefined>) {
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  reloadEnv();
  reloadModels();
}

afterAll(() => {
  setEnv({ PAU_MODELS_FILE: saved.models, PAU_MODELS_DIR: saved.modelsDir, PAU_CACHE_DIR: saved.cache });
  fs.rmSync(root, { recursive: true, force: true });
});

/** A registry with one local entry of the built-in SmolLM2 under a name of its own. */
function registryWith(name: string) {
  const file = path.join(root, `${name.replace(/\W+/g, '_')}.json`);
  fs.writeFileSync(file, JSON.stringify({ models: { [name]: { provider: 'local', model: 'smollm2-135m', port: 1 } } }));
  return file;
}

async function turnError(model: string): Promise<unknown> {
  return chat(
    { model, messages: [{ role: 'user', content: 'hi' }], callKey: `not-installed-${tag}#${model}` },
    { db: () => stack.db, endpoints: hostEndpoints },
  ).then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('a model turn of a local model that is not installed', () => {
  it('model file missing: a non-retryable LlmModelNotInstalled naming `models install`, and nothing is downloaded', async () => {
    const empty = fs.mkdtempSync(path.join(root, 'models-'));
    const name = `local/absent-${tag}`;
    setEnv({ PAU_MODELS_FILE: registryWith(name), PAU_MODELS_DIR: empty });
    const err = await turnError(name);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: LLM_ERROR_TYPES.notInstalled, nonRetryable: true });
    expect((err as Error).message).toBe(
      `${name}: the model file ${path.join(empty, 'smollm2-135m.gguf')} is not installed; install it with \`npm run pau -- models install smollm2-135m\` (or \`npm run pau -- stack up\`), then retry`,
    );
    expect(fs.readdirSync(empty)).toEqual([]);
    expect(fs.existsSync(serverFiles(name.replace(/[^A-Za-z0-9._-]+/g, '_')).pidFile)).toBe(false);
  });

  it('model file installed but the llama.cpp runtime missing: the same typed error, and no virtualenv is created', async () => {
    // SmolLM2 is installed (the global setup did it); the runtime is looked for in an empty cache.
    const cache = fs.mkdtempSync(path.join(root, 'cache-'));
    const name = `local/no-runtime-${tag}`;
    setEnv({ PAU_MODELS_FILE: registryWith(name), PAU_MODELS_DIR: installedDir, PAU_CACHE_DIR: cache });
    const err = await turnError(name);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: LLM_ERROR_TYPES.notInstalled, nonRetryable: true });
    expect((err as Error).message).toMatch(
      new RegExp(
        `^${name}: the llama\\.cpp runtime \\(${cache}/venvs/models-[0-9a-f]{12}\\) is not installed; install it with \`npm run pau -- models install smollm2-135m\``,
      ),
    );
    expect(fs.readdirSync(cache)).toEqual([]);
  });
});
