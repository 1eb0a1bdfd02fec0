// Worker process for the `pau-gpu` queue. Run several of these (on several machines) to scale out.
import { runWorkers } from './runWorkers';

process.exit(await runWorkers(['pau-gpu']));
