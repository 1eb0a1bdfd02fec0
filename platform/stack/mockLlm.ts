// The scripted mock model server (`pau mock-llm`, not an LLM) as a part of the local stack: a detached
// process on 127.0.0.1:PAU_MOCK_LLM_PORT with a pid file and a log under the state dir. The mock models
// reach it through config/services.ts mockLlmUrl(); with PAU_MOCK_LLM_URL set, that server is used and
// nothing is started here.
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../config/env';
import { readOrCreateSecret } from '../../config/secrets';
import { portOpen, runningPid, spawnDetached, stopPidFile, waitFor, withPrivateUmask } from '../process/processes';

export interface LocalMockLlm {
  port: number;
  url: string;
  pidFile: string;
  logFile: string;
}

export function localMockLlm(stateDir: string, port: number): LocalMockLlm {
  return {
    port,
    url: `http://127.0.0.1:${port}/v1`,
    pidFile: path.join(stateDir, 'mock-llm.pid'),
    logFile: path.join(stateDir, 'logs', 'mock-llm.log'),
  };
}

/** The server answers its model list to our key (and says it is the scripted mock). */
export async function mockLlmReady(url: string): Promise<boolean> {
  try {
    const r = await fetch(`${url}/models`, {
      headers: { authorization: `Bearer ${readOrCreateSecret('model-server-key')}` },
      signal: AbortSignal.timeout(1000),
    });
    return r.ok && r.headers.get('x-pau-scripted-mock') === 'not-a-real-llm';
  } catch {
    return false;
  }
}

export async function startMockLlm(m: LocalMockLlm): Promise<'started' | 'already running'> {
  if (runningPid(m.pidFile) !== undefined && (await mockLlmReady(m.url))) return 'already running';
  if (await portOpen(m.port)) {
    // Possibly another checkout's mock server: it would read another database's methods.
    throw new Error(`port ${m.port} is taken by another program; set PAU_MOCK_LLM_PORT to a free port, or PAU_MOCK_LLM_URL to use that server`);
  }
  fs.mkdirSync(path.dirname(m.pidFile), { recursive: true, mode: 0o700 });
  const tsx = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx');
  withPrivateUmask(() =>
    spawnDetached(tsx, [path.join(PROJECT_ROOT, 'scripts', 'pau.ts'), 'mock-llm', '--port', String(m.port)], {
      logFile: m.logFile,
      pidFile: m.pidFile,
      cwd: PROJECT_ROOT,
    }),
  );
  await waitFor('the scripted mock model server', () => mockLlmReady(m.url), 60_000, m.logFile);
  return 'started';
}

export async function stopMockLlm(m: LocalMockLlm): Promise<'stopped' | 'not running'> {
  return stopPidFile(m.pidFile);
}
