// The GRPO workflow's query, apart from the workflow (which imports activity proxies) so a client and its
// pure tests can name it.
import { defineQuery } from '@temporalio/workflow';
import type { GrpoProgress } from '../../domain/training/grpo';

/** The epoch and stage the run is in: `pau grpo train` shows it beside the rollout counts. */
export const grpoProgressQuery = defineQuery<GrpoProgress>('grpoProgress');
