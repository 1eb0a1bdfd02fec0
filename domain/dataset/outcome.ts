// One call's outcome as the dataset build observes it and as the `methods` table stores it (probe_outputs,
// heldout_outputs, heldout_generated_outputs). One schema for both: the build classifies each sandbox
// CallResult (domain/dataset/sandboxPort.ts) into a ClassifiedCall; what it stores is the StoredOutcome part.
// Flat and all-optional on purpose: that is how every stored row already looks (`{ok:false}` alone included).
import { z } from 'zod';

/** What a stored row holds: the value's repr, or the exception's type and (truncated) message. */
export const storedOutcomeSchema = z.object({
  /** Returned normally (false: raised, or the sandbox stopped it). */
  ok: z.boolean(),
  repr: z.string().optional(),
  excType: z.string().optional(),
  message: z.string().optional(),
});
export type StoredOutcome = z.infer<typeof storedOutcomeSchema>;

export const storedOutcomesSchema = z.array(storedOutcomeSchema);

/** A stored outcome plus what the filters need to know before it is stored. */
export const classifiedCallSchema = storedOutcomeSchema.extend({
  /** A limit stopped the call (time, memory, output, recursion) rather than the method raising: never evidence. */
  limit: z.string().optional(),
  /** The sandbox itself could not run it (bad arguments, executor error): never evidence. */
  sandboxError: z.string().optional(),
  /** The value is None. */
  isNone: z.boolean().optional(),
  /** `ast.literal_eval(repr)` gives the value back (the sandbox's typed encoding says so). */
  literal: z.boolean().optional(),
});
export type ClassifiedCall = z.infer<typeof classifiedCallSchema>;

/** The part of a classified call a row keeps; messages are cut to `maxMessage` characters. */
export function toStoredOutcome(c: ClassifiedCall, maxMessage: number): StoredOutcome {
  return c.ok
    ? { ok: true, ...(c.repr !== undefined ? { repr: c.repr } : {}) }
    : { ok: false, ...(c.excType ? { excType: c.excType } : {}), ...(c.message ? { message: c.message.slice(0, maxMessage) } : {}) };
}
