// `pau workers [--queue Q]...`: run workers in this process until Ctrl-C.
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { runWorkers } from '../../workers/runWorkers';
import { parseCommandArgs } from '../lib/args';
import { workersOptions } from '../options/workers';

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, workersOptions);
  return await runWorkers(values.queue ?? [TASK_QUEUES.main, TASK_QUEUES.sandbox, TASK_QUEUES.gpu]);
}
