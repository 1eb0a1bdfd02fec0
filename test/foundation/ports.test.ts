// Ports for programs that bind them later (Postgres, Temporal, `stack up`): chosen where no other program's
// listen(0) or outgoing connection is handed them meanwhile, and a start that lost its port to another program
// is retried on other ones, a bounded number of times.
import fs from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, retryOnPortCollision } from '../../platform/process/processes';

const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number) as [number, number];

function listen(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(server));
  });
}
const close = (s: net.Server) => new Promise<void>((resolve) => s.close(() => resolve()));

describe('freePort', () => {
  it('gives bindable ports below the ephemeral range, runs of consecutive ones included', async () => {
    for (const run of [1, 1, 1, 3]) {
      const base = await freePort(run);
      expect(base + run - 1 < low || base > high, `${base} (+${run}) in ${low}-${high}`).toBe(true);
      const servers = await Promise.all(Array.from({ length: run }, (_, i) => listen(base + i)));
      await Promise.all(servers.map(close));
    }
  });
});

describe('retryOnPortCollision', () => {
  it('starts again, on another port, when the chosen one was taken before the bind', async () => {
    const taken = await listen(await freePort());
    const port = (taken.address() as net.AddressInfo).port;
    const tried: number[] = [];
    try {
      const server = await retryOnPortCollision('a test server', async () => {
        const p = tried.length === 0 ? port : await freePort(); // the first choice lost to another program
        tried.push(p);
        return listen(p);
      });
      expect(tried).toHaveLength(2);
      expect((server.address() as net.AddressInfo).port).toBe(tried[1]);
      await close(server);
    } finally {
      await close(taken);
    }
  });

  it('gives up after the bound, saying so; other errors end it at once', async () => {
    let n = 0;
    const taken = async () => {
      n++;
      throw new Error('port 34519 is taken by another program; set PAU_PG_PORT to a free port');
    };
    await expect(retryOnPortCollision('test Postgres', taken, 3)).rejects.toThrow(
      /^test Postgres: a port was taken before it could be bound, 3 times in a row; the last: port 34519 is taken/,
    );
    expect(n).toBe(3);
    n = 0;
    const broken = async () => {
      n++;
      throw new Error('initdb failed');
    };
    await expect(retryOnPortCollision('test Postgres', broken)).rejects.toThrow('initdb failed');
    expect(n).toBe(1);
  });
});
