// A scripted model server the test can take down and bring back on the same port (a provider outage), and
// a models file naming models served by it. Set PAU_MODELS_FILE before anything reads the registry.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMockServer, type MockServer } from '../../platform/models/mock/server';
import { freePort } from '../../platform/process/processes';

export interface Provider {
  readonly port: number;
  up(): Promise<void>;
  down(): Promise<void>;
  /** Each answer's delay from now on (the server reads it per request): a test slows a run only while it must. */
  setLatency(ms: number): void;
}

export function provider(port: number, latencyMs = 0): Provider {
  let server: MockServer | undefined;
  const opts = { port, latencyMs };
  return {
    port,
    async up() {
      server ??= await startMockServer(opts);
    },
    setLatency(ms: number) {
      opts.latencyMs = ms;
    },
    async down() {
      await server?.close();
      server = undefined;
    },
  };
}

/** Writes a models file: each model a scripted policy served at a port (`provider: mock` with a base URL). */
export async function modelsFile(entries: Record<string, { policy: string; port: number; timeoutMs?: number }>): Promise<string> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pau-models-')), 'models.json');
  const models = Object.fromEntries(
    Object.entries(entries).map(([name, e]) => [
      name,
      {
        provider: 'mock',
        model: e.policy,
        baseUrl: `http://127.0.0.1:${e.port}/v1`,
        maxConcurrency: 64,
        timeoutMs: e.timeoutMs ?? 10_000,
        params: { temperature: 0 },
      },
    ]),
  );
  fs.writeFileSync(file, JSON.stringify({ models }));
  return file;
}

export { freePort };
