// The training verbs' max_length: the base model's serving context unless given (domain/training/maxLength.ts).
import { models } from '../../config/models';
import { planFor } from '../../platform/models/local/server';
import { isCheckpointModel } from '../../domain/training/checkpointIds';
import { trainingMaxLength } from '../../domain/training/maxLength';
import { engineRolloutWindow } from '../../domain/training/grpo';
import { TRAINER_MAX_LENGTH } from '../../domain/llm/vllmCommand';
import { UsageError } from './args';

/**
 * The serving context of a base: its vLLM server's max model length when a vllm entry serves it (default the
 * trainer's max_length), else a local base's (the registry's ctxPerSlot, else the catalogue's); null otherwise.
 */
export function servingContextOf(base: string): number | null {
  const registry = models();
  const server = registry.vllmServerFor(base);
  if (server) return server.vllm?.maxModelLen ?? TRAINER_MAX_LENGTH;
  const spec = registry.get(base);
  return spec.provider === 'local' ? planFor(spec).ctxPerSlot : null;
}

/** `--rollout-window` unless given: sized to the policy's vLLM engine when a vllm entry serves the base, else the run's default. */
export function rolloutWindowFor(base: string, given: number | undefined, epochRollouts: number): number | undefined {
  if (given !== undefined || isCheckpointModel(base)) return given;
  const server = models().vllmServerFor(base);
  return server ? engineRolloutWindow(server.maxConcurrency, epochRollouts) : undefined;
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
