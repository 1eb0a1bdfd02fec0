// The judge card workflow's query, apart from the workflow (which imports activity proxies) so a client
// and its pure tests can name it.
import { defineQuery } from '@temporalio/workflow';
import type { JudgeCardProgress } from '../../domain/judge/card';

/** Methods of the card recorded (`resumed` of them before this run of the workflow) and in all. */
export const judgeCardProgressQuery = defineQuery<JudgeCardProgress>('judgeCardProgress');
