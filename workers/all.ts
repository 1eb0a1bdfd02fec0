// All three queues in one process: the local default (`npm run workers`). In production run
// workers/pau.ts, workers/pau-sandbox.ts and workers/pau-gpu.ts as separate processes.
import { runWorkers } from './runWorkers';

process.exit(await runWorkers(['pau', 'pau-sandbox', 'pau-gpu']));
