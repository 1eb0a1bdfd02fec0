// All three queues in one process: the local default (`npm run workers`). In production run
// workers/pau.ts, workers/pau-sandbox.ts and workers/pau-gpu.ts as separate processes.
import { runWorkers } from './runWorkers';

await runWorkers(['pau', 'pau-sandbox', 'pau-gpu']);
process.exit(0);
