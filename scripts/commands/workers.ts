// `pau workers [--queue Q]...`: run workers in this process until Ctrl-C.
import { z } from 'zod';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { runWorkers } from '../../workers/runWorkers';
import { parseCommandArgs } from '../lib/args';

export const usage = 'pau workers [--queue pau|pau-sandbox|pau-gpu]...';

const queueName = z.enum([TASK_QUEUES.main, TASK_QUEUES.sandbox, TASK_QUEUES.gpu]);

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, { queue: { type: 'string', multiple: true } }, z.object({ queue: z.array(queueName).optional() }));
  await runWorkers(values.queue ?? [TASK_QUEUES.main, TASK_QUEUES.sandbox, TASK_QUEUES.gpu]);
  return 0;
}
