// The training verbs' max_length: the base model's serving context unless given (domain/training/maxLength.ts).
import { models } from '../../config/models';
import { planFor } from '../../platform/models/local/server';
import { isCheckpointModel } from '../../domain/training/checkpointIds';
import { trainingMaxLength } from '../../domain/training/maxLength';
import { UsageError } from './args';

/** The serving context of a local base (the registry's ctxPerSlot, else the catalogue's); null when not local. */
export function servingContextOf(base: string): number | null {
  const spec = models().get(base);
  return spec.provider === 'local' ? planFor(spec).ctxPerSlot : null;
}

/** max_length for a run on `base`: the given one (refused above the serving context), else the serving context. */
export function maxLengthFor(base: string, given: number | undefined): number | undefined {
  // A checkpoint is not a base: the run refuses it (BaseModelUnusable), as before.
  if (isCheckpointModel(base)) return given;
  let ctx: number | null;
  try {
    ctx = servingContextOf(base);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  // Not a local model: the run refuses it later (BaseModelUnusable); nothing to fit.
  if (ctx === null) return given;
  const r = trainingMaxLength(ctx, given);
  if ('error' in r) throw new UsageError(r.error);
  return r.maxLength;
}
