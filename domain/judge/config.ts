// Which judge and code writer score a run's episodes, as rules (pure): a caller's choice, then what the
// run's config names, then the defaults. The one place the order `judge.coderModel ?? coderModel ??
// judgeModel` is written; the CLI, the report and the judge activity read it from here.
import { judgeFormatOf } from './judgePrompt';
import { z } from 'zod';
import { documentSchema } from '../common/jsonDocument';
import { DEFAULT_UNDER_EXPLORED } from './diagnostics';
import { DEFAULT_HELDOUT } from './codeMatch';
import { DEFAULT_EQUALITY } from './outcomeEquality';
import { coderSamplesOf } from './mbrExec';
import type { SelfJudgePair } from './selfJudge';
import type { JudgeConfig, JudgeEpisodeInput } from './types';

/** The judge used when neither the caller nor the run names one: the scripted oracle (reports say so). */
export const DEFAULT_JUDGE_MODEL = 'mock-oracle';

/** The judge fields a run's config may hold (a benchmark's, a GRPO run's): checked wherever the config is read. */
export interface RunJudgeFields {
  /** Judge each completed episode with this model. */
  judgeModel?: string;
  /** The code writer (default: the judge). */
  coderModel?: string;
  /** Overrides of the judging config (domain/judge/types.ts JudgeConfig), `judge.coderModel` first. */
  judge?: Partial<JudgeConfig> & Record<string, unknown>;
  /** Started with --allow-unqualified-judge: the judge's card failed, and the report marks its scores. */
  allowUnqualifiedJudge?: boolean;
  /** A run forced with --allow-self-judge: the judge is an agent, its base or a checkpoint. */
  selfJudge?: SelfJudgePair[];
}

/** The envelope check of RunJudgeFields, spread into each run kind's config schema (domain/runs/runDocuments.ts). */
export const runJudgeFieldsShape = {
  judgeModel: z.string().optional(),
  coderModel: z.string().optional(),
  judge: z.looseObject({ judgeModel: z.string().optional(), coderModel: z.string().optional() }).optional(),
  allowUnqualifiedJudge: z.boolean().optional(),
  selfJudge: z.array(z.looseObject({ agent: z.string(), judge: z.string(), role: z.string() })).optional(),
};

/** A run config's judge fields alone, its other fields kept unchecked (db/runJudgeFields.ts). */
export const runJudgeFieldsSchema = documentSchema<RunJudgeFields>(runJudgeFieldsShape);

/** The code writer the run's config names, if any (`judge.coderModel`, then `coderModel`). */
export function storedCoderModel(rc: RunJudgeFields): string | undefined {
  return rc.judge?.coderModel ?? rc.coderModel;
}

/** The judge model: the caller's, then the run's (`judge.judgeModel`, then `judgeModel`), then DEFAULT_JUDGE_MODEL. */
export function judgeModelOf(rc: RunJudgeFields, explicit?: string): string {
  return explicit ?? rc.judge?.judgeModel ?? rc.judgeModel ?? DEFAULT_JUDGE_MODEL;
}

/** The code writer: the caller's, then the run's, then the judge itself. */
export function coderModelOf(rc: RunJudgeFields, judgeModel: string, explicit?: string): string {
  return explicit ?? storedCoderModel(rc) ?? judgeModel;
}

export const DEFAULT_JUDGE_CONFIG: Omit<JudgeConfig, 'judgeModel' | 'coderModel'> = {
  heldout: DEFAULT_HELDOUT,
  equality: DEFAULT_EQUALITY,
  underExploredThreshold: DEFAULT_UNDER_EXPLORED,
  resultBytes: 16_384,
};

/** An episode's judging config: the caller's choice, then the run's config (`judgeModel`, `judge: {...}`), then the defaults. */
export function resolveJudgeConfig(input: JudgeEpisodeInput, rc: RunJudgeFields): JudgeConfig {
  const judgeModel = judgeModelOf(rc, input.judgeModel);
  const coderModel = coderModelOf(rc, judgeModel, input.coderModel);
  const over = { ...(rc.judge ?? {}), ...(input.config ?? {}) };
  return {
    judgeModel,
    coderModel,
    heldout: { ...DEFAULT_JUDGE_CONFIG.heldout, ...(over.heldout ?? {}) },
    equality: { ...DEFAULT_JUDGE_CONFIG.equality, ...(over.equality ?? {}) },
    underExploredThreshold: over.underExploredThreshold ?? DEFAULT_JUDGE_CONFIG.underExploredThreshold,
    resultBytes: over.resultBytes ?? DEFAULT_JUDGE_CONFIG.resultBytes,
    format: judgeFormatOf(over.format),
    coderSamples: coderSamplesOf(over.coderSamples),
    ...(over.judgeParams ? { judgeParams: over.judgeParams } : {}),
    ...(over.coderParams ? { coderParams: over.coderParams } : {}),
  };
}

export type JudgeProvider = 'mock' | 'local' | (string & {});

/**
 * The automatic judge of a run with none configured, by its agents' providers: the scripted oracle when
 * every agent is scripted; the strongest unrelated local model installed when every agent is local or
 * scripted (`strongestLocal`: asked only then; the installed local judge that is no agent nor related to
 * one, strongest first); no judge for any other run (`none`: rather than a mock or the agent judging itself).
 */
export function automaticJudge(
  providers: readonly JudgeProvider[],
  strongestLocal: () => string | undefined,
): { kind: 'scripted'; judgeModel: string } | { kind: 'local'; judgeModel: string } | { kind: 'no-local' } | { kind: 'none' } {
  if (providers.every((p) => p === 'mock')) return { kind: 'scripted', judgeModel: DEFAULT_JUDGE_MODEL };
  if (providers.every((p) => p === 'mock' || p === 'local')) {
    const judge = strongestLocal();
    return judge ? { kind: 'local', judgeModel: judge } : { kind: 'no-local' };
  }
  return { kind: 'none' };
}
