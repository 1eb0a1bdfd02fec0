// Option entries that more than one verb's table holds (scripts/options/<verb>.ts), built from what differs
// between them (the help's words, a default), so each meaning and range is declared once.
import { z } from 'zod';
import { BUDGET_RANGES } from '../../domain/episode/bounds';
import type { Split } from '../../domain/dataset/split';
import { TRAINING_RANGES as T } from '../../domain/training/trainingRanges';
import { numberOption } from './options';

export const SPLITS = ['train', 'validation', 'test'] as const satisfies readonly Split[];

/** A boolean flag (absent: false). */
export const flag = (help: string) => ({ schema: z.boolean().optional(), help });

/** A split with its default (`--split`, `--eval-split`). */
export const splitOption = (fallback: Split, help: string) => ({ schema: z.enum(SPLITS).default(fallback), help });

/** The judge model, when not PAU_JUDGE_MODEL (`arg`: its placeholder). */
export const judgeModelOption = (help: string, arg = 'M') => ({ schema: z.string().min(1).optional(), arg, help });

const callBudget = () => numberOption(BUDGET_RANGES.maxCalls);
const turnBudget = { schema: numberOption(BUDGET_RANGES.maxTurns).optional(), arg: 'N' };

type CallBudget<S extends z.ZodType> = { schema: S; arg: string; help: string };

/** `--max-calls` and `--max-turns`: the budgets of `whose` episodes ("a rollout's"); `maxCalls`, the calls' default. */
export function budgetOptions(whose: string): {
  'max-calls': CallBudget<z.ZodOptional<ReturnType<typeof callBudget>>>;
  'max-turns': typeof turnBudget & { help: string };
};
export function budgetOptions(
  whose: string,
  maxCalls: number,
): { 'max-calls': CallBudget<z.ZodDefault<ReturnType<typeof callBudget>>>; 'max-turns': typeof turnBudget & { help: string } };
export function budgetOptions(whose: string, maxCalls?: number) {
  return {
    'max-calls': { schema: maxCalls === undefined ? callBudget().optional() : callBudget().default(maxCalls), arg: 'N', help: `${whose} call budget` },
    'max-turns': { ...turnBudget, help: `${whose} turn budget` },
  };
}

/** The trainer's settings that SFT and GRPO runs both pass on, under the same flags. */
export const trainerOptions = {
  'lora-rank': { schema: numberOption(T.loraRank).optional(), arg: 'R', help: 'LoRA rank (trainer default)' },
  'max-length': { schema: numberOption(T.maxLength).optional(), arg: 'N', help: "tokens per trained conversation (default: the base's serving context)" },
  threads: { schema: numberOption(T.threads).optional(), arg: 'N', help: "the trainer's CPU threads" },
};
