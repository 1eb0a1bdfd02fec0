// The integration projects' setup file (vitest.config.ts): runs in each test file's process before the file is
// imported, claims a free worker slot (test/setup/slotClaim.ts) and points the configuration at it
// (test/setup/workerSlots.ts). Nothing has read the configuration yet (config/env.ts caches it on first read), so
// the file, its workers and every process it spawns (the CLI, worker scripts) see only this slot's namespace,
// database, mock server, ports and state dir.
import { claimSlot } from './slotClaim';
import { decodeSlots, SLOT_ENV, SLOT_LOCKS_ENV, SLOTS_ENV, slotEnv } from './workerSlots';

const locks = process.env[SLOT_LOCKS_ENV];
if (!locks) throw new Error(`${SLOT_LOCKS_ENV} is not set: integration files need the global setup test/setup/stack.ts`);
const k = await claimSlot(locks, decodeSlots(process.env[SLOTS_ENV]).length);
Object.assign(process.env, slotEnv(k, process.env[SLOTS_ENV]), { [SLOT_ENV]: String(k) });
