// The forms of `pau stack`: scripts/commands/stack.ts.
import type { VerbUsage } from '../lib/options';

export const verb: VerbUsage = {
  forms: [{ words: 'pau stack up|down|status' }],
  notes: [
    'up: start the local Temporal dev server, Postgres, the mock model server and the codec endpoint (a no-op when running)',
    'down: stop what up started; status: what runs where (exit 1 when a part is down)',
  ],
};
