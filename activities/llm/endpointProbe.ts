// Is anything listening? A few quick TCP connects to an endpoint's host and port, to tell a server that is
// restarting from a port nothing will ever answer on (a model entry pointing at a loopback port with no server).
import net from 'node:net';

/** The waits before each further try: 3.5 s in all. */
export const REFUSED_RETRY_MS = [500, 1000, 2000] as const;

/** One TCP connect: `refused`, `open`, or `other` (a timeout, no route: not this question's answer). */
function connectOnce(host: string, port: number, timeoutMs = 1000): Promise<'refused' | 'open' | 'other'> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (r: 'refused' | 'open' | 'other') => {
      socket.removeAllListeners();
      socket.destroy();
      resolve(r);
    };
    socket.setTimeout(timeoutMs, () => done('other'));
    socket.once('connect', () => done('open'));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED' ? 'refused' : 'other'));
  });
}

/**
 * Whether the URL's port stays refused over REFUSED_RETRY_MS (its first refusal already seen): true when every
 * try is refused; false as soon as one connects or fails otherwise, or when `signal` aborts.
 */
export async function staysRefused(url: string, signal?: AbortSignal, waits: readonly number[] = REFUSED_RETRY_MS): Promise<boolean> {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  for (const ms of waits) {
    await new Promise((r) => setTimeout(r, ms));
    if (signal?.aborted) return false;
    if ((await connectOnce(host, port)) !== 'refused') return false;
  }
  return true;
}
