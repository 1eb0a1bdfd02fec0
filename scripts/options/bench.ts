// The options of `pau bench run | status | models`: scripts/commands/bench.ts (docs/cli.md).
import { z } from 'zod';
import { IN_CONTEXT_EXAMPLES } from '../../domain/episode/types';
import { NAME_SETTINGS } from '../../domain/episode/names';
import { BUDGET_RANGES, IN_CONTEXT_K_RANGE, OUTAGE_WAIT_RANGE } from '../../domain/episode/bounds';
import { WINDOW_RANGE } from '../../domain/bench/configBounds';
import { SEED_RANGE, TEMPERATURE_RANGE } from '../../domain/llm/modelParams';
import { rangeSchema } from '../../domain/common/numberRange';
import { defineOptions, numberOption, type VerbUsage } from '../lib/options';
import { flag } from '../lib/optionBuilders';
import { commaList, runSelectionFields } from './runSelection';

/** `90s`, `30m`, `6h`, `1d`, or plain seconds. */
function durationSeconds(text: string): number {
  const unit = text.at(-1) ?? '';
  const n = Number.parseFloat(text);
  const mult = unit === 'm' ? 60 : unit === 'h' ? 3600 : unit === 'd' ? 86400 : 1;
  return Math.round(n * mult);
}

export const benchRunOptions = defineOptions({
  dataset: { schema: z.string().min(1).default('pau-v1'), help: 'the dataset' },
  ...runSelectionFields,
  methods: {
    schema: commaList.pipe(z.array(z.string()).min(1)).optional(),
    arg: 'a,b',
    help: 'only these methods of the split (ids, in this order; --limit keeps the first N)',
  },
  'max-calls': {
    schema: numberOption(BUDGET_RANGES.maxCalls).optional(),
    arg: 'N',
    help: "an interactive episode's call budget, and the in-context examples' number (default 20)",
  },
  'max-turns': { schema: numberOption(BUDGET_RANGES.maxTurns).optional(), arg: 'N', help: "an episode's turn budget (default 20)" },
  'max-idle-turns': {
    schema: numberOption(BUDGET_RANGES.maxIdleTurns).optional(),
    arg: 'N',
    help: 'end an episode after N turns with no call and no answer (end reason no_progress)',
  },
  k: { schema: numberOption(IN_CONTEXT_K_RANGE).optional(), arg: 'N', help: 'in-context examples per method (default: the call budget)' },
  'in-context-examples': {
    schema: z.enum(IN_CONTEXT_EXAMPLES).optional(),
    help: 'generated: probe inputs then typed generated ones; probe: the first k probe inputs',
  },
  names: {
    schema: z.enum(NAME_SETTINGS).optional(),
    help: 'what the agent is told the method is called: original (default) or anonymised (`f`; docs/episodes.md#names)',
  },
  window: { schema: numberOption(WINDOW_RANGE).optional(), arg: 'N', help: 'episodes in flight at once (default 50)' },
  temperature: { schema: numberOption(TEMPERATURE_RANGE).optional(), arg: 'T', help: "the agents' sampling temperature (default: each model's own)" },
  seed: { schema: numberOption(SEED_RANGE).optional(), arg: 'S', help: "the agents' sampling seed" },
  replay: flag('answer from the llm_calls cache even when sampling'),
  'run-id': {
    schema: z
      .string()
      .regex(/^[A-Za-z0-9._:-]+$/)
      .optional(),
    arg: 'ID',
    help: 'the run id (default: a new one); an existing one needs --resume',
  },
  resume: flag('with --run-id: continue that run with its stored config (ended episodes kept)'),
  detach: flag('start the run and exit'),
  'report-dir': { schema: z.string().min(1).optional(), arg: 'DIR', help: 'where the report files go (default reports/)' },
  'outage-wait': {
    schema: z
      .string()
      .regex(/^\d+(\.\d+)?[smhd]?$/, 'a duration like 90s, 30m, 6h or 1d (plain numbers are seconds)')
      .transform(durationSeconds)
      .pipe(rangeSchema(OUTAGE_WAIT_RANGE))
      .optional(),
    arg: '6h',
    help: 'how long an episode waits out a model or Postgres outage (default 6h)',
  },
});

export const verb: VerbUsage = {
  forms: [{ words: 'pau bench run', options: benchRunOptions }, { words: 'pau bench status RUN_ID' }, { words: 'pau bench models' }],
  notes: ["run: a benchmark with live progress; status: a run's progress and tables from Postgres; models: the model registry"],
};
