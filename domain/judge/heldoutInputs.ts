// Held-out inputs for code match: the method's own held-out probe inputs plus generated inputs of the same
// shapes, made by mutating the literals of the known inputs (domain/inputs/mutation.ts). Deterministic: the
// same method, inputs, count and seed give the same inputs. Pure code, no I/O.
import { mutateInputs } from '../inputs/mutation';

export interface HeldoutOptions {
  /** How many generated inputs to add (before the sandbox drops those the original rejects). */
  generated: number;
  seed: number;
}

export const DEFAULT_HELDOUT: HeldoutOptions = { generated: 10, seed: 1 };

export interface HeldoutSet {
  /** The method's own held-out inputs (always used). */
  given: string[];
  /** Generated inputs of the same shapes (dropped by code match where the original rejects them). */
  generated: string[];
}

/** The held-out set of a method: its held-out inputs plus `generated` mutations of probe and held-out inputs. */
export function heldoutSet(
  method: { id: string; probeInputs: readonly string[]; heldoutInputs: readonly string[] },
  options: Partial<HeldoutOptions> = {},
): HeldoutSet {
  const o = { ...DEFAULT_HELDOUT, ...options };
  const known = [...method.heldoutInputs, ...method.probeInputs];
  return { given: [...method.heldoutInputs], generated: mutateInputs(known, o.generated, method.id, o.seed) };
}
