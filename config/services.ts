// Where the services are: the external ones named in the environment, else the local stack's.
import { env } from './env';
import { readOrCreateSecret } from './secrets';

/**
 * DATABASE_URL when set (used as given); else the local cluster's, with its password from the secrets
 * file. It holds a password: print it only through maskUrl (config/redact.ts).
 */
export function databaseUrl(): string {
  const e = env();
  return e.DATABASE_URL ?? localDatabaseUrl(e.PAU_PG_PORT, readOrCreateSecret('postgres-password'));
}

/** The project-local cluster's URL: the `pau` role on loopback, password authentication. */
export function localDatabaseUrl(port: number, password: string, database = 'pau'): string {
  return `postgres://pau:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

/**
 * The scripted mock model server (not an LLM): PAU_MOCK_LLM_URL when set (a running `pau mock-llm`, or the
 * test setup's); else the local stack's, which `stack up` starts on 127.0.0.1:PAU_MOCK_LLM_PORT.
 */
export function mockLlmUrl(): string {
  const e = env();
  return e.PAU_MOCK_LLM_URL ?? `http://127.0.0.1:${e.PAU_MOCK_LLM_PORT}/v1`;
}

export function temporalAddress(): string {
  const e = env();
  return e.TEMPORAL_ADDRESS ?? `127.0.0.1:${e.PAU_TEMPORAL_PORT}`;
}

/**
 * PAU_TEMPORAL_UI_URL when set; else Temporal Cloud's UI for a `*.tmprl.cloud` address, and for any other
 * server the same host on PAU_TEMPORAL_UI_PORT (where a dev server, like the local stack's, serves it).
 */
export function temporalUiUrl(): string {
  const e = env();
  if (e.PAU_TEMPORAL_UI_URL) return e.PAU_TEMPORAL_UI_URL.replace(/\/$/, '');
  const host = e.TEMPORAL_ADDRESS ? e.TEMPORAL_ADDRESS.replace(/:\d+$/, '') : '127.0.0.1';
  if (/(^|\.)tmprl\.cloud$/i.test(host)) return 'https://cloud.temporal.io';
  return `http://${host}:${e.PAU_TEMPORAL_UI_PORT}`;
}

/** A link to one workflow in the Web UI. */
export function workflowUiLink(workflowId: string, runId?: string): string {
  const ns = encodeURIComponent(env().TEMPORAL_NAMESPACE);
  const base = `${temporalUiUrl()}/namespaces/${ns}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${runId}/history` : base;
}
