// A judge's newest card and what a report says about it (qualified, unqualified, missing), read by reports, the
// main job and `calibrate judge` alike. The card is computed by the judge-card activities (activities/judge/card.ts).
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../client';
import { judgeCards } from '../schema/judgeCards';
import { ModelConfigError, models } from '../../config/models';
import type { ModelParams } from '../../domain/llm/modelParams';
import { judgePromptVersion, qualifiedModes, type JudgeCard, type JudgeCardStatus } from '../../domain/judge/card';
import { DEFAULT_JUDGE_FORMAT, type JudgeFormat } from '../../domain/judge/judgePrompt';
import { requestParams } from '../../domain/llm/requestParams';
import { coderSamplesOf } from '../../domain/judge/mbrExec';
import { coderModelOf, type RunJudgeFields } from '../../domain/judge/config';
import { parseRunConfig } from '../runDocuments';

/** The params a registry model is sent with: the key a card is stored under. Throws ModelConfigError off the registry. */
function sentParams(model: string, overrides: ModelParams | undefined): ModelParams {
  return requestParams(models().get(model), overrides);
}

/** What a judge card is stored under: judge, coder, dataset, the params each is sent with, format and code samples. */
export interface JudgeCardKey {
  judgeModel: string;
  coderModel: string;
  dataset: string;
  judgeParams?: Record<string, unknown>;
  coderParams?: Record<string, unknown>;
  format?: JudgeFormat;
  coderSamples?: number;
}

/** The newest completed card of (judge, coder, params sent, prompt version, dataset), any split. */
export async function latestJudgeCard(db: Db, q: JudgeCardKey): Promise<JudgeCard | null> {
  const judgeParams = sentParams(q.judgeModel, q.judgeParams);
  const coderParams = sentParams(q.coderModel, q.coderParams);
  const rows = await db
    .select({ card: judgeCards.card })
    .from(judgeCards)
    .where(
      and(
        eq(judgeCards.judgeModel, q.judgeModel),
        eq(judgeCards.coderModel, q.coderModel),
        eq(judgeCards.dataset, q.dataset),
        eq(judgeCards.promptVersion, judgePromptVersion(q.format ?? DEFAULT_JUDGE_FORMAT, coderSamplesOf(q.coderSamples))),
        eq(judgeCards.status, 'completed'),
        sql`${judgeCards.judgeParams} = ${JSON.stringify(judgeParams)}::jsonb and ${judgeCards.coderParams} = ${JSON.stringify(coderParams)}::jsonb`,
      ),
    )
    .orderBy(desc(judgeCards.finishedAt))
    .limit(1);
  return rows[0]?.card ?? null;
}

/** The command that computes a missing card (what reports and `npm start` print). */
export function judgeCardCommand(judgeModel: string, coderModel: string, dataset: string): string {
  return `npm run pau -- calibrate judge --judge ${judgeModel}${coderModel !== judgeModel ? ` --coder ${coderModel}` : ''} --dataset ${dataset}`;
}

/** What a report says about its judge: the card and whether it qualified, or that there is none yet. */
export async function judgeCardStatus(db: Db, q: JudgeCardKey & { forced?: boolean }): Promise<JudgeCardStatus> {
  const forced = q.forced ?? false;
  // A judge outside the registry (a `ckpt:` model) has no registry params: no card can match it.
  const card = await latestJudgeCard(db, q).catch((err: unknown) => {
    if (err instanceof ModelConfigError) return null;
    throw err;
  });
  if (!card)
    return { status: 'missing', judgeModel: q.judgeModel, coderModel: q.coderModel, command: judgeCardCommand(q.judgeModel, q.coderModel, q.dataset), forced };
  // Scores need a judge qualified in some mode (a report withholds the methods of a mode it is not qualified in,
  // domain/report/judgeCardView.ts withheldModes); code match additionally needs card.coderQualified.
  if (qualifiedModes(card).length > 0) return { status: 'qualified', card };
  return { status: 'unqualified', card, failed: card.checks.filter((c) => !c.pass).map((c) => `${c.name} (${c.applies})`), forced };
}

/**
 * The card status of `judgeModel` judging a stored run, with the run's judge fields (code writer, params,
 * format, forced): what its report, a comparison with it and a training report that cites it all read.
 * Undefined for a run whose config names no dataset (no card can be looked up).
 */
export async function runJudgeCard(db: Db, run: { id: string; kind: string; config: unknown }, judgeModel: string): Promise<JudgeCardStatus | undefined> {
  const rc: RunJudgeFields & { dataset?: string } = run.kind === 'benchmark' || run.kind === 'grpo' ? parseRunConfig(run.kind, run.config, run.id) : {};
  if (!rc.dataset) return undefined;
  return judgeCardStatus(db, {
    judgeModel,
    coderModel: coderModelOf(rc, judgeModel),
    dataset: rc.dataset,
    ...(rc.judge?.judgeParams ? { judgeParams: rc.judge.judgeParams } : {}),
    ...(rc.judge?.coderParams ? { coderParams: rc.judge.coderParams } : {}),
    ...(rc.judge?.format ? { format: rc.judge.format } : {}),
    ...(rc.judge?.coderSamples ? { coderSamples: rc.judge.coderSamples } : {}),
    forced: rc.allowUnqualifiedJudge === true,
  });
}
