// The local stack as one unit: what runs where, bringing it up (idempotent) and down (only what we
// started). External services named in the environment are used as they are and never started.
import { env } from '../../config/env';
import { maskUrl } from '../../config/redact';
import { secretPath } from '../../config/secrets';
import { databaseUrl, temporalAddress, temporalUiUrl } from '../../config/services';
import { runMigrations } from '../../db/migrate';
import { connectClient } from '../../config/temporal';
import { ensureSearchAttributes } from './searchAttributes';
import { clusterPassword, isRunning as pgRunning, localPostgres, startPostgres, stopPostgres } from './postgres';
import { describePrivateDir, makePrivateDir } from './privateState';
import { localTemporal, startTemporal, stopTemporal, temporalCliPath, temporalReady } from './temporal';
import { localMockLlm, mockLlmReady, startMockLlm, stopMockLlm } from './mockLlm';
import { codecServerReady, localCodecServer, startLocalCodecServer, stopLocalCodecServer } from './codecServer';
import { codecConfig } from '../../config/payloadCodec';
import { localServers, startLocalServer, stopAllLocalServers } from '../models/local/server';
import { cudaMissing, stackVllmEntries, startVllmServer } from '../models/vllm/server';
import { models } from '../../config/models';
import { progressLine } from './progressLine';

export interface StackPart {
  part: 'temporal' | 'postgres' | 'mock-llm' | 'codec-server' | `model ${string}`;
  where: string;
  managed: boolean;
  state: string;
}

function parts() {
  const e = env();
  return {
    e,
    temporal: localTemporal(e.PAU_STATE_DIR, e.PAU_TEMPORAL_PORT, e.PAU_TEMPORAL_UI_PORT, e.TEMPORAL_NAMESPACE),
    postgres: localPostgres(e.PAU_STATE_DIR, e.PAU_PG_PORT),
    mock: localMockLlm(e.PAU_STATE_DIR, e.PAU_MOCK_LLM_PORT),
    codec: localCodecServer(e.PAU_STATE_DIR, e.PAU_CODEC_SERVER_PORT, e.PAU_TEMPORAL_UI_PORT),
  };
}

/**
 * `localModels`: the local models to install when missing and serve (the CLI names those the configuration uses,
 * scripts/client/localModels.ts); absent, the caller serves them (`npm start` starts them beside the stack).
 */
export async function stackUp(log: (line: string) => void = console.log, opts: { localModels?: readonly string[] } = {}): Promise<void> {
  const { e, temporal, postgres, mock, codec } = parts();
  const tightened = describePrivateDir(e.PAU_STATE_DIR, makePrivateDir(e.PAU_STATE_DIR));
  if (tightened) log(tightened);
  // The payload key first: nothing is written to Temporal before it exists (its cut-over is now).
  const key = codecConfig();
  log(
    `temporal: payloads encrypted (AES-256-GCM, key ${key.keys[0]!.id} from ${key.source}${key.cutoverMs === undefined ? '' : `; plain payloads accepted only from workflows started before ${new Date(key.cutoverMs).toISOString()}`})`,
  );
  if (e.TEMPORAL_ADDRESS && !e.PAU_TEMPORAL_CODEC_KEY && !e.PAU_TEMPORAL_CODEC_KEY_FILE)
    log(
      "temporal: WARNING: an external cluster with this machine's own payload key: every client and worker of the deployment needs the same key (PAU_TEMPORAL_CODEC_KEY_FILE)",
    );
  if (e.TEMPORAL_ADDRESS) {
    log(`temporal: using ${e.TEMPORAL_ADDRESS} (namespace ${e.TEMPORAL_NAMESPACE}); nothing started`);
  } else {
    const state = await startTemporal(temporal, temporalCliPath(e.TEMPORAL_CLI_PATH));
    log(`temporal: ${state} at ${temporalAddress()} (namespace ${e.TEMPORAL_NAMESPACE}, state ${temporal.dbFile})`);
  }
  if (e.DATABASE_URL) {
    log('postgres: using DATABASE_URL; nothing started');
  } else {
    const state = await startPostgres(postgres, clusterPassword(postgres), log);
    log(`postgres: ${state} on 127.0.0.1:${postgres.port} (data ${postgres.dataDir})`);
  }
  const client = await connectClient();
  try {
    const sa = await ensureSearchAttributes(client);
    if (sa.added.length > 0) log(`temporal: registered search attributes ${sa.added.join(', ')}`);
    if (sa.missing.length > 0) {
      log(
        `temporal: WARNING: could not register search attributes ${sa.missing.join(', ')} (Temporal Cloud: add them as Keyword in the namespace settings, or \`tcld namespace search-attributes add\`)`,
      );
    }
  } finally {
    await client.connection.close();
  }
  await runMigrations(databaseUrl());
  log('migrations: applied');
  // The scripted mock models' server (not an LLM): its own process, so no worker has to start one.
  if (e.PAU_MOCK_LLM_URL) log(`mock-llm: using ${e.PAU_MOCK_LLM_URL}; nothing started`);
  else log(`mock-llm: ${await startMockLlm(mock)} at ${mock.url} (the scripted mock models, not an LLM)`);
  // The codec endpoint, so your Web UI and CLI show decrypted payloads (token-protected).
  log(
    `codec-server: ${await startLocalCodecServer(codec)} at ${codec.url} (\`npm run pau -- codec-server --print-url\` for the Web UI's Codec Server setting)`,
  );
  if (opts.localModels) await serveLocalModels(opts.localModels, log);
  log(`Temporal Web UI: ${temporalUiUrl()}`);
  log(`DATABASE_URL=${maskUrl(databaseUrl())}${e.DATABASE_URL ? '' : ` (password in ${secretPath('postgres-password')})`}`);
}

/**
 * The local models named, installed first when missing, then served (llama.cpp on loopback), and the vLLM
 * entries on a CUDA host. `quiet`: no in-place progress line (for when another stage draws one at the same time).
 */
export async function serveLocalModels(
  names: readonly string[],
  log: (line: string) => void = console.log,
  opts: { quiet?: boolean; skip?: ReadonlySet<string> } = {},
): Promise<void> {
  for (const name of names.filter((n) => !opts.skip?.has(n))) {
    const line = opts.quiet ? undefined : progressLine();
    const state = await startLocalServer(models().get(name), {
      progress: (t) => line?.update(t),
      log: (t) => {
        line?.done();
        log(t);
      },
    });
    line?.done();
    log(`model ${name}: ${state}`);
  }
  // vLLM entries (no baseUrl): started on a CUDA host; a CPU host says why not and goes on (llama.cpp serves there).
  for (const spec of stackVllmEntries(
    models()
      .names()
      .map((n) => models().get(n)),
  )) {
    const missing = await cudaMissing(spec);
    if (missing) {
      log(`model ${spec.name}: not started: ${missing}`);
      continue;
    }
    const line = opts.quiet ? undefined : progressLine();
    const state = await startVllmServer(spec, {
      progress: (t) => line?.update(t),
      log: (t) => {
        line?.done();
        log(t);
      },
    });
    line?.done();
    log(`model ${spec.name}: ${state}`);
  }
}

export async function stackDown(log: (line: string) => void = console.log): Promise<void> {
  const { e, temporal, postgres, mock, codec } = parts();
  log(`codec-server: ${await stopLocalCodecServer(codec)}`);
  log(e.PAU_MOCK_LLM_URL ? 'mock-llm: external, left alone' : `mock-llm: ${await stopMockLlm(mock)}`);
  log(e.TEMPORAL_ADDRESS ? 'temporal: external, left alone' : `temporal: ${await stopTemporal(temporal)}`);
  log(e.DATABASE_URL ? 'postgres: external, left alone' : `postgres: ${await stopPostgres(postgres)}`);
  for (const s of await stopAllLocalServers()) log(`model ${s.name}: ${s.result}`);
}

export async function stackStatus(): Promise<StackPart[]> {
  const { e, postgres, mock, codec } = parts();
  const temporalUp = await temporalReady(temporalAddress(), e.TEMPORAL_NAMESPACE);
  const rows: StackPart[] = [
    {
      part: 'temporal',
      where: `${temporalAddress()} ns=${e.TEMPORAL_NAMESPACE}${e.TEMPORAL_ADDRESS ? '' : `, UI ${temporalUiUrl()}`}`,
      managed: !e.TEMPORAL_ADDRESS,
      state: temporalUp ? 'up' : 'down',
    },
  ];
  if (e.DATABASE_URL) {
    rows.push({ part: 'postgres', where: maskUrl(e.DATABASE_URL), managed: false, state: (await dbReachable()) ? 'up' : 'down' });
  } else {
    rows.push({
      part: 'postgres',
      where: `127.0.0.1:${postgres.port} (${postgres.dataDir})`,
      managed: true,
      state: (await pgRunning(postgres)) ? 'up' : 'down',
    });
  }
  const mockUrl = e.PAU_MOCK_LLM_URL ?? mock.url;
  rows.push({ part: 'mock-llm', where: mockUrl, managed: !e.PAU_MOCK_LLM_URL, state: (await mockLlmReady(mockUrl)) ? 'up' : 'down' });
  rows.push({ part: 'codec-server', where: codec.url, managed: true, state: (await codecServerReady(codec.url)) ? 'up' : 'down' });
  for (const m of await localServers()) {
    rows.push({
      part: `model ${m.name}`,
      where: `127.0.0.1:${m.port ?? '?'}${m.pid ? ` pid ${m.pid}` : ''}`,
      managed: true,
      state: m.state === 'up' ? 'up' : 'down',
    });
  }
  return rows;
}

async function dbReachable(): Promise<boolean> {
  const { connect } = await import('../../db/client');
  const h = connect(databaseUrl(), 1);
  try {
    await h.pool.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await h.close();
  }
}
