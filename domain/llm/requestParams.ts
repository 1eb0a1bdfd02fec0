// The request parameters a model call sends: the registry entry's defaults, then the caller's overrides
// (a run's --temperature, a judge config), minus the parameters the entry says its endpoint rejects
// (reasoning models answer 400 to `temperature`/`top_p`; a 400 is not retried, so sending one would fail
// every call). Pure: the judge records what this returns, and chat() sends exactly that.
import type { ModelParams } from './modelParams';

export interface ParamsSource {
  /** The registry entry's default params. */
  params: ModelParams;
  /** Parameter names the endpoint rejects; dropped whoever set them. */
  unsupportedParams?: readonly string[];
}

export function requestParams(entry: ParamsSource, overrides: ModelParams = {}): ModelParams {
  const merged: ModelParams = { ...entry.params, ...overrides };
  for (const name of entry.unsupportedParams ?? []) delete merged[name];
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  return merged;
}

/**
 * Caps the reply's length with `max_tokens`, except where the params use `max_completion_tokens` (reasoning
 * models, which reject `max_tokens` and count their hidden reasoning in the cap): there the registry's
 * budget stands, since a cap sized for the visible reply would cut the reasoning and leave no answer.
 */
export function withTokenLimit(params: ModelParams, limit: number): ModelParams {
  return params.max_completion_tokens !== undefined ? params : { ...params, max_tokens: limit };
}

/**
 * The params of the i-th extra sample of a verdict or a program: seed i, and `temperature` (1 unless given)
 * where the params set a temperature. Where they leave it to the endpoint (reasoning models answer 400 to it), its default already
 * samples, so none is added.
 */
export function sampleParams(params: ModelParams, i: number, temperature = 1): ModelParams {
  return { ...params, seed: i, ...(params.temperature !== undefined ? { temperature } : {}) };
}
