// The integration files' worker slots (test/setup/workerSlots.ts): this file's process runs on the slot it claimed
// (test/setup/slotClaim.ts), a claim holds a slot for one live process only, and the run's slots share nothing a test writes: each has a migrated database of its
// own, a Temporal namespace with the project's search attributes, a scripted mock server reading its own database,
// its own model ports and state dir. With PAU_TEST_INTEGRATION_WORKERS=1 the checks across slots have one slot.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { env } from '../../config/env';
import { readOrCreateSecret } from '../../config/secrets';
import { connect } from '../../db/client';
import { TOOLS } from '../../domain/episode/prompts';
import { LOCAL_MODELS } from '../../domain/llm/localModels';
import { SEARCH_ATTRIBUTE_NAMES } from '../../domain/temporal/searchAttributes';
import { MOCK_METHOD_HEADER } from '../../platform/models/mock/seam';
import { fixtureMethod, insertFixtureMethods } from '../fixtures/episodeMethods';
import { useStack } from '../helpers/stack';
import { claimSlot, releaseSlot, slotHolder } from './slotClaim';
import { integrationWorkers, SLOT_ENV, SLOT_LOCKS_ENV, SLOTS_ENV, slotCount, slotDatabase, slotEnv, slotEnvSchema, slotNamespace } from './workerSlots';

const stack = useStack();
const slots = z.array(slotEnvSchema).parse(JSON.parse(process.env[SLOTS_ENV] ?? '[]'));
const k = Number(process.env[SLOT_ENV]);
const others = slots.filter((_, i) => i + 1 !== k);

/** The oracle's first reply about `methodId` from the mock server at `url`: its probes, when it knows the method. */
async function oracleProbes(url: string, methodId: string): Promise<string[]> {
  const r = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${readOrCreateSecret('model-server-key')}`, [MOCK_METHOD_HEADER]: methodId },
    body: JSON.stringify({ model: 'oracle', messages: [{ role: 'user', content: 'Start investigating.' }], tools: TOOLS }),
  });
  expect(r.status).toBe(200);
  const body = (await r.json()) as { choices: { message: { tool_calls?: { function: { arguments: string } }[] } }[] };
  return (body.choices[0]?.message.tool_calls ?? []).map((t) => (JSON.parse(t.function.arguments) as { arguments: string }).arguments);
}

describe('worker slots', () => {
  it('this file runs on the slot it holds: its namespace, database, mock server, model ports and state dir', async () => {
    expect(slots).toHaveLength(slotCount());
    expect(slotHolder(process.env[SLOT_LOCKS_ENV]!, k)).toBe(process.pid);
    const mine = slotEnv(k, process.env[SLOTS_ENV]);
    expect(env()).toMatchObject({
      DATABASE_URL: mine.DATABASE_URL,
      TEMPORAL_NAMESPACE: slotNamespace(k),
      PAU_MOCK_LLM_URL: mine.PAU_MOCK_LLM_URL,
      PAU_MODEL_PORT_BASE: Number(mine.PAU_MODEL_PORT_BASE),
      PAU_STATE_DIR: mine.PAU_STATE_DIR,
    });
    expect(stack.client.options.namespace).toBe(slotNamespace(k));
    const [row] = (await stack.db.execute<{ db: string }>(sql`select current_database() as db`)).rows;
    expect(row?.db).toBe(slotDatabase(k));
    expect(fs.statSync(mine.PAU_STATE_DIR).mode & 0o777).toBe(0o700);
  });

  it('every slot has its own migrated database, namespace with the search attributes, mock server, ports and state dir', async () => {
    for (const key of ['DATABASE_URL', 'TEMPORAL_NAMESPACE', 'PAU_MOCK_LLM_URL', 'PAU_STATE_DIR', 'PAU_CHECKPOINT_CACHE_DIR'] as const) {
      expect(new Set(slots.map((s) => s[key])).size, key).toBe(slots.length);
    }
    // Each slot's model ports (one per catalogue model from its base) overlap no other slot's.
    const bases = slots.map((s) => Number(s.PAU_MODEL_PORT_BASE)).sort((a, b) => a - b);
    for (let i = 1; i < bases.length; i++) expect(bases[i]! - bases[i - 1]!).toBeGreaterThanOrEqual(LOCAL_MODELS.length);
    for (const s of slots) {
      const h = connect(s.DATABASE_URL, 1);
      try {
        await h.db.execute(sql`select count(*) from methods`); // the schema is there
      } finally {
        await h.close();
      }
      const listed = await stack.client.connection.operatorService.listSearchAttributes({ namespace: s.TEMPORAL_NAMESPACE });
      expect(Object.keys(listed.customAttributes ?? {})).toEqual(expect.arrayContaining([...SEARCH_ATTRIBUTE_NAMES]));
      const models = await fetch(`${s.PAU_MOCK_LLM_URL}/models`, { headers: { authorization: `Bearer ${readOrCreateSecret('model-server-key')}` } });
      expect(models.status).toBe(200);
    }
  });

  it.skipIf(others.length === 0)("a method written on this slot is in no other slot's database, and only this slot's mock server knows it", async () => {
    const method = fixtureMethod({
      id: `fixture/slot-${k}-${Date.now().toString(36)}`,
      entryPoint: 'f',
      code: 'def f(x):\n    return x\n',
      gold: 'Returns its argument.',
      probes: ['7', "'slot'"],
    });
    await insertFixtureMethods(stack.db, `fixture-slot-${k}`, [method]);
    expect(await oracleProbes(env().PAU_MOCK_LLM_URL!, method.id)).toEqual(method.probes);
    for (const s of others) {
      const h = connect(s.DATABASE_URL, 1);
      try {
        const found = await h.db.execute(sql`select id from methods where id = ${method.id}`);
        expect(found.rows).toEqual([]);
      } finally {
        await h.close();
      }
      expect(await oracleProbes(s.PAU_MOCK_LLM_URL, method.id)).not.toEqual(method.probes);
    }
  });

  it.skipIf(others.length === 0)("a workflow started in this slot's namespace is not in another slot's", async () => {
    // On a queue nobody polls: it waits, untouched, until terminated.
    const id = `slot-${k}-wf-${Date.now().toString(36)}`;
    const handle = await stack.client.workflow.start('doctorWorkflow', { taskQueue: `slot-${k}-nobody`, workflowId: id, args: [] });
    try {
      expect((await handle.describe()).status.name).toBe('RUNNING');
      for (const s of others) {
        const there = stack.client.connection.workflowService.describeWorkflowExecution({ namespace: s.TEMPORAL_NAMESPACE, execution: { workflowId: id } });
        await expect(there).rejects.toThrow(/not found/i);
      }
    } finally {
      await handle.terminate('worker slot test');
    }
  });

  it('a claim holds a slot for one live process: the lowest free one, taken over from a dead owner, freed on release, and a clear error when none frees', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-slot-claim-'));
    try {
      // Pid 1 (init) is always alive. Pids above Linux's largest pid_max (2^22) name no process: an owner that is gone.
      const gone = 4_194_305;
      const alive = process.ppid; // the vitest main process, alive for this whole file
      expect(await claimSlot(dir, 3, { pid: alive })).toBe(1);
      expect(await claimSlot(dir, 3, { pid: alive })).toBe(1); // the same process keeps its slot
      fs.writeFileSync(path.join(dir, 'slot-2.pid'), `${gone}\n`);
      expect(slotHolder(dir, 2)).toBeUndefined();
      expect(await claimSlot(dir, 3, { pid: process.pid })).toBe(2); // taken over from the dead owner
      expect(slotHolder(dir, 2)).toBe(process.pid);
      await expect(claimSlot(dir, 2, { pid: 1, waitMs: 200 })).rejects.toThrow(
        /no free worker slot of 2 after 200 ms \(1: pid \d+, 2: pid \d+\): more files run at once than the global setup made slots for/,
      );
      releaseSlot(dir, 2, process.pid);
      expect(slotHolder(dir, 2)).toBeUndefined();
      releaseSlot(dir, 1, process.pid); // not its holder: nothing freed
      expect(slotHolder(dir, 1)).toBe(alive);
      // Two claims at once never get the same slot.
      const [a, b] = await Promise.all([claimSlot(dir, 3, { pid: 1 }), claimSlot(dir, 3, { pid: process.pid })]);
      expect(new Set([a, b]).size).toBe(2);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a slot the global setup did not make, or a bad worker count, is a clear error', () => {
    expect(() => slotEnv(slots.length + 1, process.env[SLOTS_ENV])).toThrow(
      new RegExp(`worker slot ${slots.length + 1}, but the global setup made ${slots.length} \\(PAU_TEST_INTEGRATION_WORKERS=${slots.length}\\)`),
    );
    expect(() => slotEnv(1, undefined)).toThrow(/PAU_TEST_SLOTS is not set: integration files need the global setup/);
    expect(() => integrationWorkers('0')).toThrow(/PAU_TEST_INTEGRATION_WORKERS="0": expected a whole number from 1 to 8/);
    expect(() => integrationWorkers('two')).toThrow(/PAU_TEST_INTEGRATION_WORKERS="two"/);
    expect([integrationWorkers(''), integrationWorkers(' 2 ')]).toEqual([3, 2]);
  });
});
