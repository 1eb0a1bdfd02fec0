// Setup file of the integration projects (vitest.config.ts): runs in each test file's process before the file is
// imported, and points the configuration at the file's worker slot (test/setup/workerSlots.ts). Nothing has read
// the configuration yet (config/env.ts caches it on first read), so the file, its workers and every process it
// spawns (the CLI, worker scripts) see only this slot's namespace, database, mock server, ports and state dir.
import { SLOTS_ENV, slotEnv } from './workerSlots';

Object.assign(process.env, slotEnv(process.env.VITEST_POOL_ID, process.env[SLOTS_ENV]));
