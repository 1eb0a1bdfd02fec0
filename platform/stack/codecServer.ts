// The codec endpoint for the owner's Temporal Web UI and CLI (Temporal's remote codec server protocol:
// POST /encode and /decode with {payloads: [...]}, payloads in proto JSON, CORS for the UI): on loopback,
// answering only requests that bear the `codec-server-token` secret, either as `Authorization: Bearer
// TOKEN` (the CLI's --codec-auth) or as the first path segment (http://127.0.0.1:PORT/TOKEN: the UI's
// "Codec Server" setting, kept in the owner's browser). Without it other users of the machine would
// decrypt every history through it. A detached process of the local stack (`pau codec-server`, started by
// `stack up`), like the scripted mock server.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Payload } from '@temporalio/common';
import { z } from 'zod';
import { PROJECT_ROOT } from '../../config/env';
import { payloadCodec } from '../../config/payloadCodec';
import { bearsSecret, readOrCreateSecret, sameSecret } from '../../config/secrets';
import { portOpen, runningPid, spawnDetached, stopPidFile, waitFor, withPrivateUmask } from '../process/processes';

const wirePayloads = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), z.string()).nullish(), data: z.string().nullish() })),
});
type WirePayload = z.infer<typeof wirePayloads>['payloads'][number];

const fromWire = (p: WirePayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))])),
  data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
});
const toWire = (p: Payload): WirePayload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

export interface CodecServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface CodecServerOptions {
  port?: number;
  /** Default: the `codec-server-token` secret. */
  token?: string;
  /** Origins allowed by CORS (the Web UI's); default: the local UI on 127.0.0.1 and localhost. */
  origins?: string[];
}

export async function startCodecServer(opts: CodecServerOptions & { uiPort: number }): Promise<CodecServer> {
  const token = opts.token ?? readOrCreateSecret('codec-server-token');
  const origins = new Set(opts.origins ?? [`http://127.0.0.1:${opts.uiPort}`, `http://localhost:${opts.uiPort}`]);
  // Decode passes plain payloads through (histories that predate the codec stay readable).
  const codec = payloadCodec('pass');

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const origin = req.headers.origin;
    const cors: Record<string, string> =
      origin && origins.has(origin)
        ? {
            'access-control-allow-origin': origin,
            'access-control-allow-methods': 'POST, OPTIONS',
            'access-control-allow-headers': 'content-type, x-namespace, authorization',
            vary: 'Origin',
          }
        : {};
    const send = (status: number, body: unknown) => {
      const data = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...cors });
      res.end(data);
    };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      return res.end();
    }
    const parts = new URL(req.url ?? '/', 'http://x').pathname.split('/').filter(Boolean);
    const viaPath = parts.length === 2 && sameSecret(parts[0]!, token);
    const viaHeader = bearsSecret(req.headers.authorization, token);
    if (!viaPath && !viaHeader) return send(401, { message: 'codec endpoint: missing or wrong token (the codec-server-token secret)' });
    const op = parts.at(-1);
    if (req.method !== 'POST' || (op !== 'encode' && op !== 'decode') || parts.length > 2)
      return send(404, { message: 'codec endpoint: POST /encode or /decode' });
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: z.infer<typeof wirePayloads>;
    try {
      body = wirePayloads.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    } catch (err) {
      return send(400, { message: `codec endpoint: expected {"payloads": [{metadata, data}]}: ${(err as Error).message}` });
    }
    const input = body.payloads.map(fromWire);
    try {
      const out = op === 'encode' ? await codec.encode(input) : await codec.decode(input);
      send(200, { payloads: out.map(toWire) });
    } catch (err) {
      send(400, { message: `codec endpoint: ${(err as Error).message}` });
    }
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String((err as Error).message));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface LocalCodecServer {
  port: number;
  uiPort: number;
  url: string;
  pidFile: string;
  logFile: string;
}

export function localCodecServer(stateDir: string, port: number, uiPort: number): LocalCodecServer {
  return {
    port,
    uiPort,
    url: `http://127.0.0.1:${port}`,
    pidFile: path.join(stateDir, 'codec-server.pid'),
    logFile: path.join(stateDir, 'logs', 'codec-server.log'),
  };
}

/** The server decodes for our token (an empty list answers an empty list). */
export async function codecServerReady(url: string): Promise<boolean> {
  try {
    const r = await fetch(`${url}/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${readOrCreateSecret('codec-server-token')}` },
      body: '{"payloads":[]}',
      signal: AbortSignal.timeout(1000),
    });
    return r.ok;
  } catch {
    return false;
  }
}

export async function startLocalCodecServer(c: LocalCodecServer): Promise<'started' | 'already running'> {
  if (runningPid(c.pidFile) !== undefined && (await codecServerReady(c.url))) return 'already running';
  if (await portOpen(c.port)) throw new Error(`port ${c.port} is taken by another program; set PAU_CODEC_SERVER_PORT to a free port`);
  fs.mkdirSync(path.dirname(c.logFile), { recursive: true, mode: 0o700 });
  readOrCreateSecret('codec-server-token'); // made before the server starts, so both read the same
  const tsx = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx');
  withPrivateUmask(() =>
    spawnDetached(tsx, [path.join(PROJECT_ROOT, 'scripts', 'pau.ts'), 'codec-server', '--port', String(c.port), '--ui-port', String(c.uiPort)], {
      logFile: c.logFile,
      pidFile: c.pidFile,
      cwd: PROJECT_ROOT,
    }),
  );
  await waitFor('the codec endpoint', () => codecServerReady(c.url), 60_000, c.logFile);
  return 'started';
}

export function stopLocalCodecServer(c: LocalCodecServer): Promise<'stopped' | 'not running'> {
  return stopPidFile(c.pidFile);
}
