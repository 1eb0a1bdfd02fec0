// Worker process for the `pau-sandbox` queue. Run several of these (on several machines) to scale out.
import { runWorkers } from './runWorkers';

await runWorkers(['pau-sandbox']);
process.exit(0);
