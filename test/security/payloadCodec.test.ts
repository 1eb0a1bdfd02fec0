// The payload codec (config/payloadCodec.ts) and the payload guard on the real stack: what this project
// writes to Temporal is ciphertext (a method's gold description, which the oracle's episode carries in its
// activity results, appears nowhere in the raw history), a workflow started with a plain input is refused
// before any activity runs, and the owner's codec endpoint decodes with its token only. As root, a
// throwaway user of the machine tries the same with nothing but the `temporal` binary and loopback.
// The episode's history is the `episode-encrypted.json` replay fixture (PAU_RECORD_HISTORIES=1).
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../config/env';
import { AesGcmPayloadCodec, parseKey, payloadCodec } from '../../config/payloadCodec';
import type { ReportRow } from '../../db/queries/reports';
import { writeReportFiles } from '../../scripts/client/report';
import { episodeWorkflowId } from '../../domain/bench/workflowIds';
import { episodeIdOf, type EpisodeInput } from '../../domain/episode/types';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { GUARD_MARK } from '../../domain/temporal/payloadGuard';
import { startCodecServer, type CodecServer } from '../../platform/stack/codecServer';
import { insertFixtureMethods } from '../fixtures/episodeMethods';
import { insertTestRun } from '../fixtures/runs';
import { activitiesOf, decodedHistoryText, historyPayloads, maybeRecordHistory } from '../helpers/histories';
import { useStack } from '../helpers/stack';
import { runEpisode } from '../episode/helpers';
import { addThrowawayUser, removeThrowawayUser } from '../helpers/throwawayUser';

// The test run's key is the committed test key (test/setup/stack.ts), so this history can be a replay fixture.

const MARKER = `gold-marker-${crypto.randomBytes(6).toString('hex')}`;
const METHOD = {
  id: 'fixture/sec_add',
  entryPoint: 'add',
  signature: 'def add(a, b):',
  code: 'def add(a, b):\n    return a + b\n',
  gold: `Returns the sum of a and b (${MARKER}).`,
  probes: ['1, 2', '-3, 3'],
};

const stack = useStack({
  workers: ['pau', 'pau-sandbox', 'pau-gpu'],
  setup: async ({ db }) => insertFixtureMethods(db, 'fixture-sec', [METHOD]),
});

const utf8 = (b: Uint8Array | null | undefined) => Buffer.from(b ?? new Uint8Array()).toString('utf8');

let workflowId = '';
let input: EpisodeInput;

describe('payload codec on the real stack', () => {
  beforeAll(async () => {
    const out = await runEpisode(stack.client, stack.db, METHOD.id, 'mock-oracle', 'interactive');
    expect(out.status).toBe('completed');
    workflowId = episodeWorkflowId(out.episodeId.split('/')[0]!, METHOD.id, 'mock-oracle', 'interactive', 0);
    input = { runId: 'x', episodeId: out.episodeId, methodId: METHOD.id, model: 'mock-oracle', setting: 'interactive', sample: 0 };
  }, 180_000);

  it('the history holds ciphertext only: every payload encrypted, the gold description nowhere; the codec restores it', async () => {
    await maybeRecordHistory(stack.client.workflow.getHandle(workflowId), 'episode-encrypted.json');
    const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
    const text = historyToJSON(history);
    expect(text).not.toContain(MARKER);
    expect(text).not.toContain('Returns the sum of a and b');
    const payloads = historyPayloads(history);
    expect(payloads.length).toBeGreaterThan(5);
    expect(new Set(payloads.map((p) => utf8(p.metadata?.encoding)))).toEqual(new Set(['binary/encrypted']));
    expect(await decodedHistoryText(history)).toContain(MARKER); // the marker did travel through Temporal, encrypted
  });

  it('a workflow started with a plain input (a client without the codec) fails, non-retryable, before any activity', async () => {
    const plain = new Client({ connection: stack.client.connection, namespace: stack.client.options.namespace });
    const runId = `t-plain-${Date.now().toString(36)}`;
    await insertTestRun(stack.db, runId);
    const id = episodeWorkflowId(runId, METHOD.id, 'mock-oracle', 'interactive', 0);
    const handle = await plain.workflow.start('episodeWorkflow', {
      taskQueue: 'pau',
      workflowId: id,
      args: [{ ...input, runId, episodeId: episodeIdOf(runId, METHOD.id, 'mock-oracle', 'interactive', 0) }],
    });
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe(FAILURE_TYPES.unauthenticatedPayload);
    expect((cause as ApplicationFailure).nonRetryable).toBe(true);
    expect(cause?.message).toMatch(/workflow input was not encrypted with this deployment's payload key .* refused/);
    expect(await activitiesOf(stack.client.workflow.getHandle(id))).toEqual({ scheduled: [], local: [] });
  });

  it('a workflow started with no argument is refused too (nothing authenticates it)', async () => {
    const plain = new Client({ connection: stack.client.connection, namespace: stack.client.options.namespace });
    const handle = await plain.workflow.start('doctorWorkflow', { taskQueue: 'pau', workflowId: `t-noarg-${Date.now().toString(36)}`, args: [] });
    await expect(handle.result()).rejects.toMatchObject({
      cause: { type: FAILURE_TYPES.unauthenticatedPayload, message: expect.stringMatching(/started with no argument/) },
    });
    expect(await activitiesOf(handle)).toEqual({ scheduled: [], local: [] });
  });

  it('an altered ciphertext becomes a refusal on a worker and an error elsewhere; another key is named', async () => {
    const [p] = await payloadCodec('pass').encode([{ metadata: { encoding: new TextEncoder().encode('json/plain') }, data: new TextEncoder().encode('"x"') }]);
    const data = Buffer.from(p!.data!);
    data[20]! ^= 1;
    const altered = { ...p!, data: new Uint8Array(data) };
    const [marked] = await payloadCodec('mark').decode([altered]);
    expect(JSON.parse(utf8(marked!.data))).toEqual({ [GUARD_MARK]: { kind: 'refused', reason: expect.stringMatching(/failed authentication/) } });
    await expect(payloadCodec('pass').decode([altered])).rejects.toThrow(/failed authentication/);
    const other = new AesGcmPayloadCodec({ keys: [parseKey(Buffer.alloc(32, 1).toString('base64'), 'other')], cutoverMs: 0, source: 'elsewhere' }, 'mark');
    await expect(other.decode([p!])).rejects.toThrow(/encrypted with key pau-[0-9a-f]{12}; this process has pau-[0-9a-f]{12} \(from elsewhere\)/);
  });

  describe('the codec endpoint', () => {
    let server: CodecServer;
    const token = crypto.randomBytes(16).toString('hex');
    beforeAll(async () => {
      server = await startCodecServer({ port: 0, token, uiPort: 8233 });
    });
    afterAll(() => server.close());

    const body = async () => {
      const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
      const payloads = historyPayloads(history).map((p) => ({
        metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
        data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
      }));
      return JSON.stringify({ payloads });
    };
    const decodedText = async (r: Response) =>
      ((await r.json()) as { payloads: { data: string }[] }).payloads.map((p) => Buffer.from(p.data, 'base64').toString('utf8')).join('\n');

    it('decodes for the token (header, as the CLI sends it, or path, as the Web UI is set up) and for nobody else', async () => {
      const b = await body();
      const viaHeader = await fetch(`${server.url}/decode`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: b });
      expect(viaHeader.status).toBe(200);
      expect(await decodedText(viaHeader)).toContain(MARKER);
      const viaPath = await fetch(`${server.url}/${token}/decode`, { method: 'POST', body: b });
      expect(await decodedText(viaPath)).toContain(MARKER);
      for (const init of [{}, { headers: { authorization: 'Bearer wrong' } }]) {
        const r = await fetch(`${server.url}/decode`, { method: 'POST', body: b, ...init });
        expect(r.status).toBe(401);
        expect(await r.text()).not.toContain(MARKER);
      }
      expect((await fetch(`${server.url}/wrong/decode`, { method: 'POST', body: b })).status).toBe(401);
    });

    it("answers the Web UI's CORS preflight for the UI's origin only", async () => {
      const ok = await fetch(`${server.url}/${token}/decode`, { method: 'OPTIONS', headers: { origin: 'http://127.0.0.1:8233' } });
      expect(ok.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8233');
      const other = await fetch(`${server.url}/${token}/decode`, { method: 'OPTIONS', headers: { origin: 'http://evil.example' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    });
  });
});

const isRoot = process.getuid?.() === 0;
const rootTitle = isRoot
  ? 'another user of the machine, with the temporal binary and loopback'
  : 'another user of the machine (SKIPPED: needs root to create a throwaway user with useradd and switch to it with runuser)';

describe.skipIf(!isRoot)(rootTitle, () => {
  const user = `paucodec${crypto.randomBytes(3).toString('hex')}`;
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-codec-sec-'));
  const reportsDir = path.join(parent, 'reports');
  const temporalCli = process.env.PAU_TEST_TEMPORAL_CLI ?? path.join(PROJECT_ROOT, '.tools', 'temporal', 'bin', 'temporal');
  const address = () => process.env.TEMPORAL_ADDRESS!;
  let server: CodecServer;
  const asUser = (cmd: string[]) =>
    spawnSync('runuser', ['-u', user, '--', 'env', '-i', 'PATH=/usr/local/bin:/usr/bin:/bin', 'HOME=/nonexistent', ...cmd], {
      encoding: 'utf8',
      cwd: '/',
      timeout: 30_000,
    });
  /** The same, without blocking this process (whose codec endpoint the command may call). */
  const asUserAsync = (cmd: string[]) =>
    promisify(execFile)('runuser', ['-u', user, '--', 'env', '-i', 'PATH=/usr/local/bin:/usr/bin:/bin', 'HOME=/nonexistent', ...cmd], {
      encoding: 'utf8',
      cwd: '/',
      timeout: 30_000,
    }).catch((err: { stdout?: string; stderr?: string; code?: number }) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? String(err), code: err.code }));
  // The other user runs a copy in the world-readable parent: a checkout may sit in a private directory.
  const cliCopy = path.join(parent, 'temporal');
  const temporal = (...args: string[]) => asUser([cliCopy, ...args, '--address', address(), '--namespace', process.env.TEMPORAL_NAMESPACE!]);

  beforeAll(async () => {
    fs.chmodSync(parent, 0o755);
    fs.copyFileSync(temporalCli, cliCopy);
    fs.chmodSync(cliCopy, 0o755);
    await addThrowawayUser(user);
    server = await startCodecServer({ port: 0, uiPort: 8233 }); // the stack's token (a 0600 secret)
    const row = { id: 1, runId: 'sec-run', html: `<p>${MARKER}</p>`, json: { runId: 'sec-run', headline: [] } } as unknown as ReportRow;
    try {
      writeReportFiles(row, reportsDir);
    } catch {
      /* the headline of this stub may not render; the files are written before it is read */
    }
  });

  afterAll(async () => {
    await server?.close();
    await removeThrowawayUser(user);
    fs.rmSync(parent, { recursive: true, force: true });
  });

  it('lists the workflows but reads no payload: the gold description is in no history it can fetch', async () => {
    const list = temporal('workflow', 'list', '--limit', '500', '--output', 'json');
    expect(list.status, list.stderr).toBe(0);
    const ids = (JSON.parse(list.stdout || '[]') as { execution: { workflowId: string } }[]).map((w) => w.execution.workflowId);
    expect(ids).toContain(workflowId);
    for (const id of ids) {
      const show = temporal('workflow', 'show', '-w', id, '--output', 'json');
      expect([id, show.status]).toEqual([id, 0]);
      expect(show.stdout).not.toContain(MARKER);
    }
    // With the owner's codec endpoint but no token, the CLI gets no plaintext either.
    const args = [
      'workflow',
      'show',
      '-w',
      workflowId,
      '--output',
      'json',
      '--codec-endpoint',
      server.url,
      '--address',
      address(),
      '--namespace',
      process.env.TEMPORAL_NAMESPACE!,
    ];
    const viaCodec = await asUserAsync([cliCopy, ...args]);
    expect(viaCodec.stdout).not.toContain(MARKER);
    expect(viaCodec.stderr).not.toBe('');
  });

  it.each(['pau', 'pau-sandbox', 'pau-gpu'])('a workflow it starts on %s runs no activity (on pau: refused, UnauthenticatedPayload)', async (queue) => {
    const runId = `sec-${queue}-${Date.now().toString(36)}`;
    await insertTestRun(stack.db, runId);
    const id = `attack/${runId}`;
    const payload = JSON.stringify({ ...input, runId, episodeId: episodeIdOf(runId, METHOD.id, 'mock-oracle', 'interactive', 0) });
    const start = temporal('workflow', 'start', '--task-queue', queue, '--type', 'episodeWorkflow', '--workflow-id', id, '--input', payload);
    expect(start.status, start.stderr).toBe(0);
    const handle = stack.client.workflow.getHandle(id);
    if (queue === 'pau') {
      await expect(handle.result()).rejects.toMatchObject({ cause: { type: FAILURE_TYPES.unauthenticatedPayload, nonRetryable: true } });
    } else {
      // No worker serves workflows there: it waits, untouched, until the owner terminates it.
      await new Promise((r) => setTimeout(r, 5000));
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('security test');
    }
    expect(await activitiesOf(handle)).toEqual({ scheduled: [], local: [] });
  });

  it('cannot read reports/ (0700, files 0600), the codec token, or decode without it', async () => {
    expect(fs.statSync(reportsDir).mode & 0o777).toBe(0o700);
    const files = fs.readdirSync(reportsDir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect([f, fs.statSync(path.join(reportsDir, f)).mode & 0o777]).toEqual([f, 0o600]);
    for (const cmd of [
      ['ls', reportsDir],
      ['cat', path.join(reportsDir, files[0]!)],
      ['cat', path.join(process.env.PAU_STATE_DIR!, 'secrets', 'codec-server-token')],
    ]) {
      const r = asUser(cmd);
      expect([cmd.join(' '), r.status]).not.toEqual([cmd.join(' '), 0]);
      expect(r.stderr).toMatch(/Permission denied/);
    }
    const probe = await asUserAsync([
      process.execPath,
      '-e',
      `fetch(${JSON.stringify(`${server.url}/decode`)}, { method: 'POST', body: '{"payloads":[]}' }).then((r) => console.log(r.status))`,
    ]);
    expect(probe.stdout.trim(), probe.stderr).toBe('401');
  });
});
