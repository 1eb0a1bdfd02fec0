// Command-line pieces shared by the verbs that name models: comma lists and the registry check.
import { z } from 'zod';
import { models } from '../../config/models';
import { UsageError } from './args';

/** `a,b, c` → ['a', 'b', 'c'] */
export const commaList = z.string().transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean));

/** Every name must be in the model registry; otherwise a usage error naming the unknown one. */
export function requireKnownModels(names: readonly string[]): void {
  for (const m of names) {
    try {
      models().get(m);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
}
