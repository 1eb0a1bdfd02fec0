// Is the stack there? A TCP connect to Temporal's and Postgres' ports, answered in milliseconds on loopback,
// so a verb run while the stack is down says so at once in one line instead of a grpc-js "Failed to connect
// before the deadline" after ~15 s or a node-postgres stack trace (docs/cli.md, "When the stack is down").
import net from 'node:net';
import { env } from './env';
import { temporalAddress } from './services';

export type StackService = 'temporal' | 'postgres';

/** The exit code of a verb that needs a service that is not running (docs/cli.md). */
export const EXIT_SERVICE_DOWN = 3;

interface Endpoint {
  service: StackService;
  host: string;
  port: number;
  /** Named in the environment (TEMPORAL_ADDRESS, DATABASE_URL): this project never starts it. */
  external: boolean;
}

export interface DownService extends Endpoint {
  /** Why the connect failed: `connection refused`, `host not found`, ... */
  reason: string;
}

/** Where a service is, without reading secrets; undefined when it is not a TCP address (a Unix socket). */
export function serviceEndpoint(service: StackService): Endpoint | undefined {
  const e = env();
  if (service === 'temporal') {
    const m = /^(.*):(\d+)$/.exec(temporalAddress());
    return m ? { service, host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]), external: e.TEMPORAL_ADDRESS !== undefined } : undefined;
  }
  if (!e.DATABASE_URL) return { service, host: '127.0.0.1', port: e.PAU_PG_PORT, external: false };
  const url = new URL(e.DATABASE_URL);
  const socketHost = url.searchParams.get('host');
  if (!url.hostname || socketHost?.startsWith('/')) return undefined;
  return { service, host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port ? Number(url.port) : 5432, external: true };
}

/** Errors that mean nothing answers there (not "slow"): a verb may stop at once on them. */
const DOWN_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name not resolvable now',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
};

/**
 * 'up', or why not. A connect that neither succeeds nor fails within the timeout is 'unknown': a slow
 * network is left to the client's own deadline, so a probe never turns a slow service into a "down" one.
 */
export function probe(host: string, port: number, timeoutMs = 2000): Promise<'up' | 'unknown' | { reason: string }> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const finish = (r: 'up' | 'unknown' | { reason: string }) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => finish('unknown'), timeoutMs);
    socket.once('connect', () => finish('up'));
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const reason = err.code ? DOWN_CODES[err.code] : undefined;
      finish(reason ? { reason } : 'unknown');
    });
  });
}

/** The services among `services` that are certainly not running (probed in parallel). */
export async function downServices(services: readonly StackService[]): Promise<DownService[]> {
  const found = await Promise.all(
    services.map(async (service): Promise<DownService | undefined> => {
      const ep = serviceEndpoint(service);
      if (!ep) return undefined;
      const r = await probe(ep.host, ep.port);
      return typeof r === 'object' ? { ...ep, reason: r.reason } : undefined;
    }),
  );
  return found.filter((d): d is DownService => d !== undefined);
}

const NAMES: Record<StackService, string> = { temporal: 'Temporal', postgres: 'Postgres' };
const VARIABLES: Record<StackService, string> = { temporal: 'TEMPORAL_ADDRESS', postgres: 'DATABASE_URL' };

/**
 * The one line: which service is not running, where, and the command that starts it (the local stack's),
 * or, for a service named in the environment, which variable points there (this project does not start it).
 */
export function serviceDownLine(down: readonly DownService[]): string {
  const local = down.filter((d) => !d.external);
  const external = down.filter((d) => d.external);
  const parts: string[] = [];
  if (local.length > 0) {
    const what = local.map((d) => `${NAMES[d.service]} (${d.host}:${d.port})`).join(' and ');
    parts.push(
      `the local stack is not running: ${what} ${local.length > 1 ? 'refuse' : 'refuses'} connections; start it with \`npm run pau -- stack up\` (or \`npm start\`)`,
    );
  }
  for (const d of external)
    parts.push(
      `${NAMES[d.service]} at ${d.host}:${d.port} (${VARIABLES[d.service]}) is not reachable: ${d.reason}; start that server or fix ${VARIABLES[d.service]}`,
    );
  return parts.join('; ');
}

/** Thrown by a client connect when its service is certainly down; the CLI prints its line and exits 3. */
export class ServiceDownError extends Error {
  override name = 'ServiceDownError';
  constructor(readonly down: DownService[]) {
    super(serviceDownLine(down));
  }
}

/** Throws ServiceDownError when one of `services` is certainly down; else returns (unknown counts as up). */
export async function requireServices(services: readonly StackService[]): Promise<void> {
  const down = await downServices(services);
  if (down.length > 0) throw new ServiceDownError(down);
}

/**
 * The services a failed verb could not reach: the error (or one of its causes) is a ServiceDownError, or a
 * connection error while one of the stack's services is down now. Undefined for any other error (a model
 * endpoint refusing is not the stack's fault).
 */
export async function stackDownIn(err: unknown): Promise<DownService[] | undefined> {
  let connectionError = false;
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof ServiceDownError) return e.down;
    const code = (e as NodeJS.ErrnoException).code;
    if ((code && code in DOWN_CODES) || /Failed to connect before the deadline|Connection terminated|timeout exceeded when trying to connect/.test(e.message))
      connectionError = true;
  }
  if (!connectionError) return undefined;
  const down = await downServices(['temporal', 'postgres']);
  return down.length > 0 ? down : undefined;
}
