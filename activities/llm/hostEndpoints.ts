// This host's model endpoints (the ModelEndpoints chat() is handed by the workers): registry entries and
// stored checkpoints resolved, local llama.cpp servers connected to (or restarted from a ready install),
// vLLM started on a CUDA host, the scripted mock's server, remote APIs by their base URL and key.
import { ApplicationFailure } from '@temporalio/common';
import { apiKeyFor, ModelConfigError, type ModelSpec } from '../../config/models';
import { readOrCreateSecret } from '../../config/secrets';
import { mockLlmUrl } from '../../config/services';
import type { Db } from '../../db/client';
import { ModelCorruptError, ModelInstallError, ModelNotInstalledError } from '../../platform/models/local/install';
import { ensureLocalServer, forgetHealth, planFor } from '../../platform/models/local/server';
import { ensureLoraLoaded, ensureVllmServer } from '../../platform/models/vllm/server';
import { checkpointFileFailure } from '../training/checkpointFiles';
import { resolveModel } from './checkpointModels';
import type { Endpoint, ModelEndpoints } from './endpoints';
import { LLM_ERROR_TYPES } from './errors';
import { BASE_ADAPTER, sampledWithLabel } from '../../domain/training/sampledWith';
import { endpointIdentity } from '../../platform/models/identity';

function sampledWith(spec: ModelSpec): string {
  if (spec.provider === 'local') return sampledWithLabel({ trainedSha256: spec.trainedAdapterSha256, served: planFor(spec).lora });
  if (spec.provider === 'vllm') return sampledWithLabel({ trainedSha256: spec.trainedAdapterSha256, served: spec.loraModule ? [spec.loraModule.path] : [] });
  // The scripted mock has no weights (a checkpoint of a mock base answers as its base), a remote API no adapter of ours.
  return BASE_ADAPTER;
}

async function endpointOf(spec: ModelSpec, onProgress?: (what: string) => void): Promise<Endpoint> {
  if (spec.provider === 'local') {
    // Provisioned by `stack up` / `models install`, never from a turn: connected to, or started from a ready
    // install (a server that died since the last call is restarted here); a missing install is ModelNotInstalledError.
    const baseURL = await ensureLocalServer(spec, { install: false, ...(onProgress ? { progress: onProgress, log: onProgress } : {}) });
    return { baseURL, apiKey: readOrCreateSecret('model-server-key') };
  }
  if (spec.provider === 'vllm') {
    // Started on this (CUDA) host when needed; a checkpoint's adapter is loaded as a LoRA module first.
    const endpoint = await ensureVllmServer(spec, onProgress ? { progress: onProgress, log: onProgress } : {});
    if (spec.loraModule) await ensureLoraLoaded(endpoint.baseURL, endpoint.apiKey, spec.loraModule);
    return endpoint;
  }
  // The scripted mock runs as its own server (the stack's, or PAU_MOCK_LLM_URL): never inside a worker.
  if (spec.provider === 'mock') return { baseURL: spec.baseUrl ?? mockLlmUrl(), apiKey: readOrCreateSecret('model-server-key') };
  if (!spec.baseUrl) throw new ModelConfigError(`model ${spec.name}: provider ${spec.provider} has no baseUrl`);
  return { baseURL: spec.baseUrl, apiKey: apiKeyFor(spec) ?? 'no-key' };
}

export const hostEndpoints: ModelEndpoints = {
  async resolve(name: string, db: Db): Promise<ModelSpec> {
    try {
      // Registry names, and `ckpt:<id>` looked up in Postgres now (new checkpoints need no worker restart).
      return await resolveModel(name, db);
    } catch (err) {
      // A checkpoint's stored file that is corrupt or missing: non-retryable, typed.
      throw checkpointFileFailure(err) ?? err;
    }
  },
  identity: endpointIdentity,
  sampledWith,
  async connect(spec, onProgress) {
    try {
      return await endpointOf(spec, onProgress);
    } catch (err) {
      if (err instanceof ModelNotInstalledError) throw ApplicationFailure.nonRetryable(err.message, LLM_ERROR_TYPES.notInstalled);
      if (err instanceof ModelCorruptError || err instanceof ModelInstallError) throw ApplicationFailure.nonRetryable(err.message, LLM_ERROR_TYPES.config);
      throw err;
    }
  },
  lost(spec) {
    // A local server that died mid-request: checked (and restarted) before the retried attempt.
    if (spec.provider === 'local') forgetHealth(spec);
  },
};
