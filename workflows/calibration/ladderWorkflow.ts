// The description ladder with a real judge (`pau calibrate ladder`): plan the methods, then one judgment
// at a time (method by method, rung by rung; a local judge serves one request at a time anyway). Each
// judgment goes through the llm_calls cache, so a rerun or a retried activity costs nothing.
import { defineQuery, setHandler } from '@temporalio/workflow';
import { RUNGS, type LadderProgress, type LadderRow, type LadderRunInput } from '../../domain/calibration/ladder';
import { calibration, judge } from '../proxies/mainQueue';

export const ladderProgressQuery = defineQuery<LadderProgress>('ladderProgress');

export async function ladderWorkflow(input: LadderRunInput): Promise<LadderRow[]> {
  const progress: LadderProgress = { done: 0, total: 0 };
  setHandler(ladderProgressQuery, () => progress);
  const { methodIds } = await calibration.planLadder(input);
  progress.total = methodIds.length * RUNGS.length;
  const rows: LadderRow[] = [];
  for (const methodId of methodIds) {
    const row = { methodId, rationales: {} } as LadderRow;
    for (const rung of RUNGS) {
      const r = await judge.scoreLadderRung({ ...input, methodId, rung });
      row[rung] = r.score;
      row.rationales[rung] = r.rationale;
      progress.done++;
    }
    rows.push(row);
  }
  return rows;
}
