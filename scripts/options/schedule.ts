// The options of `pau schedule`: scripts/commands/schedule.ts (docs/operations.md).
import { z } from 'zod';
import { defineOptions, type VerbUsage } from '../lib/options';
import { runSelectionFields } from './runSelection';

const OVERLAPS = ['skip', 'buffer_one', 'buffer_all', 'allow_all', 'cancel_other', 'terminate_other'] as const;

export const nightlyOptions = defineOptions({
  dataset: { schema: z.string().min(1), arg: 'NAME', help: 'the dataset' },
  ...runSelectionFields,
  at: {
    schema: z
      .string()
      .regex(/^([01]?\d|2[0-3]):[0-5]\d$/, 'HH:MM (24-hour)')
      .default('02:00'),
    arg: 'HH:MM',
    help: 'the time of day each run starts',
  },
  tz: {
    schema: z
      .string()
      .min(1)
      .default('UTC')
      .refine((tz) => {
        try {
          new Intl.DateTimeFormat('en-US', { timeZone: tz });
          return true;
        } catch {
          return false;
        }
      }, 'an IANA time zone such as UTC or Europe/Paris'),
    help: 'the time zone of --at',
  },
  id: {
    schema: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, . _ -')
      .optional(),
    help: 'the schedule id (default nightly-<dataset>)',
  },
  overlap: { schema: z.enum(OVERLAPS).default('skip'), arg: OVERLAPS.join('|'), help: 'what a run due while the last one still runs does' },
  catchup: {
    schema: z
      .string()
      .regex(/^\d+\s*(s|m|h|d)$/, 'a duration like 30m, 1h, 1d')
      .default('1h'),
    arg: '1h',
    help: 'how late a missed run may still start',
  },
  paused: { schema: z.boolean().optional(), help: 'create the schedule paused' },
});

export const backfillOptions = defineOptions({
  from: { schema: z.iso.datetime({ offset: true }), arg: 'ISO-TIME', help: 'the first time to run as if scheduled' },
  to: { schema: z.iso.datetime({ offset: true }), arg: 'ISO-TIME', help: 'the last one' },
});

export const verb: VerbUsage = {
  forms: [
    { words: 'pau schedule nightly', options: nightlyOptions },
    { words: 'pau schedule list' },
    { words: 'pau schedule describe|pause|unpause|trigger|delete ID' },
    { words: 'pau schedule backfill ID', options: backfillOptions },
  ],
};
