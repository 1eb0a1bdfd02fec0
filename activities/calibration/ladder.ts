// The description ladder with a real judge (`pau calibrate ladder`): the judge model scores gold /
// partial / wrong / empty descriptions of the first N methods with a gold description, with the same
// prompt and parsing as benchmark judging, through the llm_calls cache (a rerun costs nothing).
// Sequential on purpose: a local model on a shared machine serves one request at a time anyway.
import type { Db } from '../../db/client';
import { models } from '../../config/models';
import { getDatasetMethods } from '../../platform/dataset/store';
import type { Split } from '../../domain/dataset/split';
import { buildLadders, RUNGS, type LadderScores, type Rung } from '../../domain/calibration/ladder';
import { entryPointOf } from '../../domain/dataset/entryPoint';
import { buildJudgeMessages, parseScore } from '../../domain/judge/judgePrompt';
import { requestParams } from '../../domain/llm/requestParams';
import { chat } from '../llm/chat';

export interface LadderRow extends LadderScores {
  methodId: string;
  rationales: Record<Rung, string>;
}

export async function runLadder(
  db: () => Db,
  opts: { judgeModel: string; dataset: string; split: Split; methods: number; onProgress?: (done: number, total: number) => void },
): Promise<LadderRow[]> {
  const all = await getDatasetMethods(db(), opts.dataset, { split: opts.split });
  const withGold = all.filter((m) => (m.goldDescription ?? '').trim().length > 0).slice(0, opts.methods);
  const byId = new Map(withGold.map((m) => [m.id, m]));
  const ladders = buildLadders(withGold.map((m) => ({ id: m.id, goldDescription: m.goldDescription ?? '' })));
  const params = requestParams(models().get(opts.judgeModel), undefined);
  const out: LadderRow[] = [];
  const total = ladders.length * RUNGS.length;
  let done = 0;
  for (const l of ladders) {
    const m = byId.get(l.methodId)!;
    const row = { methodId: l.methodId, rationales: {} } as LadderRow;
    for (const rung of RUNGS) {
      const messages = buildJudgeMessages({
        signature: m.signature ?? `def ${entryPointOf(m)}(...)`,
        code: m.code,
        goldDescription: m.goldDescription,
        agentDescription: l.descriptions[rung],
      });
      const r = await chat(
        {
          model: opts.judgeModel,
          messages,
          params,
          callKey: `ladder/${m.id}/${opts.judgeModel}/${rung === 'wrong' ? `wrong-from/${l.wrongFrom}` : rung}`,
          about: { methodId: m.id },
        },
        { db },
      );
      const text = r.message.content ?? r.message.refusal ?? '';
      row[rung] = parseScore(text);
      row.rationales[rung] = text;
      opts.onProgress?.(++done, total);
    }
    out.push(row);
  }
  return out;
}
