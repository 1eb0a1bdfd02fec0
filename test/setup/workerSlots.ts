// The integration tier runs PAU_TEST_INTEGRATION_WORKERS files at once (default 3). Each worker slot (1..N: a
// running file claims one, and no two files hold the same slot at once: test/setup/slotClaim.ts) gets a stack of
// its own on the run's one Postgres and Temporal server: a Temporal namespace (its workers poll only their own
// task queues), a database cloned from the migrated one, a scripted mock model server
// reading that database, a range of local model ports and a state dir (local model servers, trainer jobs, reports).
// The global setup (test/setup/stack.ts) makes them and passes them in PAU_TEST_SLOTS; test/setup/useWorkerSlot.ts
// applies a file's slot before the file loads. Slot 1 is exactly the stack of a one-worker run.
import { z } from 'zod';

export const WORKERS_ENV = 'PAU_TEST_INTEGRATION_WORKERS';
export const SLOTS_ENV = 'PAU_TEST_SLOTS';
/** The folder of the slots' lock files (test/setup/slotClaim.ts), made by the global setup. */
export const SLOT_LOCKS_ENV = 'PAU_TEST_SLOT_LOCKS';
/** The slot a file's process claimed, set by test/setup/useWorkerSlot.ts. */
export const SLOT_ENV = 'PAU_TEST_SLOT';

const workersSchema = z.coerce.number().int().min(1).max(8);

/**
 * How many integration files run at once: PAU_TEST_INTEGRATION_WORKERS, 1 to 8, default 3. Fresh-clone runs on 2 idle
 * cores (2026-12-02), once each file claimed a slot of its own (test/setup/slotClaim.ts): vitest 1,167 s one at a
 * time, 845 s two at once, 764 s three at once; 1 runs them one at a time (docs/results/test-time.md).
 */
const DEFAULT_INTEGRATION_WORKERS = 3;
export function integrationWorkers(value = process.env[WORKERS_ENV]): number {
  if (value === undefined || value.trim() === '') return DEFAULT_INTEGRATION_WORKERS;
  const parsed = workersSchema.safeParse(value.trim());
  if (!parsed.success) throw new Error(`${WORKERS_ENV}=${JSON.stringify(value)}: expected a whole number from 1 to 8 (integration files run at once)`);
  return parsed.data;
}

/**
 * Slots the global setup makes: one per worker, and never fewer than 2, so the isolation checks
 * (workerSlots.test.ts) always have a second slot to compare with, also when files run one at a time.
 */
export const slotCount = (workers = integrationWorkers()) => Math.max(2, workers);

/** What differs between slots: set in a test file's environment before anything reads the configuration. */
export const slotEnvSchema = z.object({
  DATABASE_URL: z.string().min(1),
  TEMPORAL_NAMESPACE: z.string().min(1),
  PAU_MOCK_LLM_URL: z.string().min(1),
  PAU_MODEL_PORT_BASE: z.string().regex(/^\d+$/),
  PAU_STATE_DIR: z.string().min(1),
  PAU_CHECKPOINT_CACHE_DIR: z.string().min(1),
});
export type SlotEnv = z.infer<typeof slotEnvSchema>;

/** Slot k's names: slot 1 keeps the one-worker run's (namespace `default`, database `pau`, the run's state dir). */
export const slotNamespace = (k: number) => (k === 1 ? 'default' : `pau-test-${k}`);
export const slotDatabase = (k: number) => (k === 1 ? 'pau' : `pau_test_${k}`);

/** The slots the global setup passed in PAU_TEST_SLOTS. */
export function decodeSlots(encoded: string | undefined): SlotEnv[] {
  if (!encoded) throw new Error(`${SLOTS_ENV} is not set: integration files need the global setup test/setup/stack.ts`);
  return z.array(slotEnvSchema).min(1).parse(JSON.parse(encoded));
}

/** The environment of slot k, read from what the global setup passed. */
export function slotEnv(k: number, encoded: string | undefined): SlotEnv {
  const slots = decodeSlots(encoded);
  if (!Number.isInteger(k) || k < 1) throw new Error(`worker slot ${JSON.stringify(k)}: expected a whole number, 1 or more`);
  const slot = slots[k - 1];
  if (!slot) {
    throw new Error(
      `worker slot ${k}, but the global setup made ${slots.length} (${WORKERS_ENV}=${slots.length}): run at most that many files at once (--maxWorkers) or raise ${WORKERS_ENV}`,
    );
  }
  return slot;
}
