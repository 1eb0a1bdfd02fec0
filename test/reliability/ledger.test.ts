// The llm_calls ledger records a call before it is sent: a request sent again after a send with no
// recorded outcome (a crash mid-request, here an abort) is counted as possibly paid twice; a refused
// connection is not.
import http from 'node:http';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { chat } from '../../activities/llm/chat';
import { llmCalls } from '../../db/schema/index';
import { paidTwice } from '../../activities/llm/ledger';
import { useStack } from '../helpers/stack';
import { freePort, modelsFile, provider } from './helpers';

const port = await freePort();
const mock = provider(port);
process.env.PAU_MODELS_FILE = await modelsFile({ ledgered: { policy: 'oracle', port } });

const stack = useStack();

/** A server that takes requests and never answers (the provider is working on it when the worker dies). */
async function blackHole(): Promise<{ received: Promise<void>; close: () => Promise<void> }> {
  let got: () => void = () => undefined;
  const received = new Promise<void>((r) => (got = r));
  const server = http.createServer(() => got());
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return {
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const request = (runId: string, content: string) => ({
  model: 'ledgered',
  messages: [{ role: 'user' as const, content }],
  callKey: `${runId}/fixture/add/ledgered/interactive/0#2`,
});

describe('llm_calls ledger', () => {
  it('a request re-sent after a send with no outcome is counted once as paid twice, with its cost', async () => {
    const runId = `ledger-${Date.now().toString(36)}`;
    const deps = { db: () => stack.db };
    const hole = await blackHole();
    const abort = new AbortController();
    const lost = chat(request(runId, 'describe add'), { ...deps, signal: abort.signal });
    await hole.received;
    const [inFlight] = await stack.db
      .select()
      .from(llmCalls)
      .where(eq(llmCalls.callKey, request(runId, '').callKey));
    expect(inFlight).toMatchObject({ state: 'sent', sends: 1, resent: 0, response: null });
    abort.abort(); // the worker dies with the request in flight
    await expect(lost).rejects.toThrow();
    await hole.close();

    await mock.up();
    try {
      const r = await chat(request(runId, 'describe add'), deps);
      expect(r.cached).toBe(false);
      const [row] = await stack.db.select().from(llmCalls).where(eq(llmCalls.requestHash, r.requestHash));
      expect(row).toMatchObject({ state: 'completed', sends: 2, resent: 1 });
      // A third ask is answered from the ledger: no send, nothing more counted.
      expect((await chat(request(runId, 'describe add'), deps)).cached).toBe(true);

      // A refused connection was not processed: the next send is not counted as paid twice.
      await mock.down();
      await expect(chat(request(runId, 'another question'), deps)).rejects.toThrow(/no mock model server answers/);
      await mock.up();
      await chat(request(runId, 'another question'), deps);

      const paid = await paidTwice(stack.db, runId);
      expect(paid).toMatchObject({ calls: 1, extraSends: 1, unanswered: 0 });
      expect(paid.costUsd).toBeCloseTo(row?.costUsd ?? 0, 10);
    } finally {
      await mock.down();
    }
  });
});
