// The critic card workflow's query, apart from the workflow (which imports activity proxies) so a client
// and its pure tests can name it.
import { defineQuery } from '@temporalio/workflow';
import type { JudgeCardProgress } from '../../domain/judge/card';

/** Episodes of the card recorded (`resumed` of them before this run of the workflow) and in all: a card's progress, the judge card's shape. */
export const criticCardProgressQuery = defineQuery<JudgeCardProgress>('criticCardProgress');
