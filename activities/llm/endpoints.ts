// What chat() needs from the providers, and nothing of how they are run: a model name as the spec its calls
// are sent with, what identifies that endpoint in the cache key, where to send, and that a call failed in
// transport. The workers hand chat() this host's implementation (hostEndpoints.ts: local llama.cpp, vLLM,
// stored checkpoints, the scripted mock, remote APIs), so an episode's code reaches this interface and not
// the provisioning code behind it (docs/architecture.md, "Where each concept lives").
import type { ModelSpec } from '../../config/models';
import type { Db } from '../../db/client';

/** An OpenAI-compatible endpoint and the key it takes. */
export interface Endpoint {
  baseURL: string;
  apiKey: string;
}

export interface ModelEndpoints {
  /**
   * A model name (a registry entry, `mock-<policy>`, `ckpt:<id>`) as the spec its calls are sent with.
   * Throws ModelConfigError for a name that is not a model, a non-retryable ApplicationFailure for one that
   * cannot be served on this host (e.g. a checkpoint whose stored file is corrupt).
   */
  resolve(name: string, db: Db): Promise<ModelSpec>;
  /** What identifies the endpoint in the cache key: a local model by its weights and adapters, not its port. */
  identity(spec: ModelSpec): string | undefined;
  /**
   * The adapter this endpoint serves, as a completion records it: `base`, or the trained adapter's sha256
   * (domain/training/sampledWith.ts; an episode's turns record it, a GRPO update checks it).
   */
  sampledWith(spec: ModelSpec): string;
  /**
   * Where to send this model's calls, connected to (or started) as its provider does it. What retrying
   * cannot fix (not installed, corrupt weights) is a non-retryable ApplicationFailure with an LLM error type.
   */
  connect(spec: ModelSpec, onProgress?: (what: string) => void): Promise<Endpoint>;
  /** A request to this endpoint failed in transport: check it again before the next one. */
  lost(spec: ModelSpec): void;
}
