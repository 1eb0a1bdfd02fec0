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
