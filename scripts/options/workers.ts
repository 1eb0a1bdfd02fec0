// The options of `pau workers`: scripts/commands/workers.ts.
import { z } from 'zod';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { defineOptions, type VerbUsage } from '../lib/options';

const queueName = z.enum([TASK_QUEUES.main, TASK_QUEUES.sandbox, TASK_QUEUES.gpu]);

export const workersOptions = defineOptions({
  queue: { schema: z.array(queueName).optional(), arg: queueName.options.join('|'), help: 'serve this queue (repeatable; default all three)' },
});

export const verb: VerbUsage = { forms: [{ words: 'pau workers', options: workersOptions }] };
