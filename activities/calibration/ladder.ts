// The description ladder with a real judge (`pau calibrate ladder`, workflows/calibration/ladderWorkflow.ts):
// the judge model scores gold / partial / wrong / empty descriptions of the first N methods with a gold
// description, with the same prompt and parsing as benchmark judging, through the llm_calls cache (a rerun
// costs nothing). The workflow asks one judgment at a time: a local model on a shared machine serves one
// request at a time anyway.
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import type { Db } from '../../db/client';
import type { ModelEndpoints } from '../llm/endpoints';
import { models } from '../../config/models';
import { getDatasetMethods } from '../../platform/dataset/store';
import { buildLadders, ladderRunInputSchema, RUNGS, type LadderRunInput, type Rung } from '../../domain/calibration/ladder';
import { entryPointOf } from '../../domain/dataset/entryPoint';
import { buildJudgeMessages, parseScore } from '../../domain/judge/judgePrompt';
import { requestParams } from '../../domain/llm/requestParams';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { chat } from '../llm/chat';

const scoreRungInputSchema = ladderRunInputSchema.extend({ methodId: z.string().min(1), rung: z.enum(RUNGS) });
export type ScoreLadderRungInput = z.infer<typeof scoreRungInputSchema>;

function parsed<T>(schema: z.ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  throw ApplicationFailure.create({
    type: FAILURE_TYPES.ladderBadInput,
    message: r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    nonRetryable: true,
  });
}

export function createLadderActivities(db: () => Db, endpoints: ModelEndpoints) {
  /** The run's methods (with a gold description) and their ladders; the same for every call of a run. */
  async function ladders(input: LadderRunInput) {
    const all = await getDatasetMethods(db(), input.dataset, { split: input.split });
    const withGold = all.filter((m) => (m.goldDescription ?? '').trim().length > 0).slice(0, input.methods);
    const byId = new Map(withGold.map((m) => [m.id, m]));
    return { byId, ladders: buildLadders(withGold.map((m) => ({ id: m.id, goldDescription: m.goldDescription ?? '' }))) };
  }

  /** The methods the ladder scores, in order (none when fewer than 2 have a gold description). */
  async function planLadder(input: LadderRunInput): Promise<{ methodIds: string[] }> {
    const { ladders: ls } = await ladders(parsed(ladderRunInputSchema, input));
    return { methodIds: ls.map((l) => l.methodId) };
  }

  /** The judge's score (null when unparsable) and reply for one rung of one method. */
  async function scoreLadderRung(raw: ScoreLadderRungInput): Promise<{ score: number | null; rationale: string }> {
    const input = parsed(scoreRungInputSchema, raw);
    const { byId, ladders: ls } = await ladders(input);
    const l = ls.find((x) => x.methodId === input.methodId);
    const m = byId.get(input.methodId);
    if (!l || !m) {
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.methodNotFound,
        message: `method ${input.methodId} is not on the ladder of ${input.dataset}/${input.split}`,
        nonRetryable: true,
      });
    }
    const rung: Rung = input.rung;
    const messages = buildJudgeMessages(
      {
        signature: m.signature ?? `def ${entryPointOf(m)}(...)`,
        code: m.code,
        goldDescription: m.goldDescription,
        agentDescription: l.descriptions[rung],
      },
      // The ladder reads the score digit of a rationale reply (parseScore); the card measures the formats.
      'rationale',
    );
    const r = await chat(
      {
        model: input.judgeModel,
        messages,
        params: requestParams(models().get(input.judgeModel), undefined),
        callKey: `ladder/${m.id}/${input.judgeModel}/${rung === 'wrong' ? `wrong-from/${l.wrongFrom}` : rung}`,
        about: { methodId: m.id },
      },
      { db, endpoints },
    );
    const text = r.message.content ?? r.message.refusal ?? '';
    return { score: parseScore(text), rationale: text };
  }

  return { planLadder, scoreLadderRung };
}
