// `pau workers [--queue Q]...`: run workers in this process until Ctrl-C.
import { z } from 'zod';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { runWorkers } from '../../workers/runWorkers';
import { defineOptions, parseCommandArgs } from '../lib/args';

const queueName = z.enum([TASK_QUEUES.main, TASK_QUEUES.sandbox, TASK_QUEUES.gpu]);
const options = defineOptions({ queue: { schema: z.array(queueName).optional(), arg: queueName.options.join('|') } });

export const usage = `pau workers ${options.usage}`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, options);
  return await runWorkers(values.queue ?? [TASK_QUEUES.main, TASK_QUEUES.sandbox, TASK_QUEUES.gpu]);
}
