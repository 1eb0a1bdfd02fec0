// The options of `pau report`: scripts/commands/report.ts.
import { z } from 'zod';
import { REPORT_KINDS } from '../../domain/report/reportKinds';
import { defineOptions, type VerbUsage } from '../lib/options';

export const reportOptions = defineOptions({
  compare: { schema: z.string().min(1).optional(), arg: '<runId>|<A,B>', help: 'beside another run; A,B: run A beside run B' },
  'judge-model': { schema: z.string().min(1).optional(), arg: '<model>', help: "the judge whose judgments the report reads (default: the run's)" },
  out: { schema: z.string().min(1).optional(), arg: '<dir>', help: 'where the files go (default reports/)' },
  latest: { schema: z.boolean().optional(), help: 'the newest benchmark run' },
});

export const reportShowOptions = defineOptions({
  kind: { schema: z.enum(REPORT_KINDS).optional(), help: 'only a report of this kind' },
  out: { schema: z.string().min(1).optional(), arg: '<dir>', help: 'where the files go (default reports/)' },
});

export const verb: VerbUsage = {
  forms: [
    { words: 'pau report <runId>|--latest', options: reportOptions },
    { words: 'pau report show <runId>', options: reportShowOptions },
  ],
  notes: ["report: produce the run's report (Postgres only) and write it; show: print the stored one as it was stored"],
};
