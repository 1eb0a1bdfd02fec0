// The form of `pau doctor`: scripts/commands/doctor.ts.
import type { VerbUsage } from '../lib/options';

export const verb: VerbUsage = {
  forms: [{ words: 'pau doctor' }],
  notes: ['one activity on each queue (Postgres, the sandbox, the device); a pass/fail table, exit 1 naming the failing parts'],
};
